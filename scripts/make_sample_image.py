"""Draw the sample image of the ``cnn_attention`` scene (run once, by hand).

The picture (a sky, a sun, a tree and a red ball on grass) is made by this
project, procedurally, so it can ship with the package under any licence.
It is drawn 4x larger and averaged down, which smooths the edges.

    python scripts/make_sample_image.py   # writes attention_core/sample_image.png
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

SIZE = 160
SUPER = 4
OUT = Path(__file__).resolve().parents[1] / "attention_core" / "sample_image.png"


def draw(size: int) -> np.ndarray:
    """The scene as a ``size x size x 3`` float array in [0, 1]."""
    y, x = np.mgrid[0:size, 0:size] / size  # 0 at the top-left corner
    img = np.zeros((size, size, 3))
    # Sky: light blue, paler towards the horizon.
    sky = np.stack([0.45 + 0.35 * y, 0.68 + 0.2 * y, 0.95 + 0.0 * y], axis=-1)
    img[:] = sky
    # Sun, top right.
    sun = (x - 0.78) ** 2 + (y - 0.2) ** 2 < 0.11**2
    img[sun] = (1.0, 0.86, 0.25)
    # Grass: the lower third, a little darker at the bottom.
    grass = y > 0.64 + 0.03 * np.sin(6 * x)
    img[grass] = np.stack([0.25 - 0.1 * y, 0.62 - 0.15 * y, 0.2 + 0.0 * y], axis=-1)[grass]
    # Tree on the left: a brown trunk and a round green crown.
    trunk = (np.abs(x - 0.22) < 0.035) & (y > 0.4) & (y < 0.72)
    img[trunk] = (0.45, 0.28, 0.14)
    crown = (x - 0.22) ** 2 + (y - 0.34) ** 2 < 0.15**2
    img[crown] = (0.12, 0.45, 0.16)
    # The red ball, resting on the grass right of centre.
    ball = (x - 0.62) ** 2 + (y - 0.76) ** 2 < 0.09**2
    img[ball] = (0.88, 0.12, 0.1)
    return img


def main() -> None:
    big = draw(SIZE * SUPER)
    small = big.reshape(SIZE, SUPER, SIZE, SUPER, 3).mean(axis=(1, 3))
    Image.fromarray(np.round(small * 255).astype(np.uint8), "RGB").save(OUT, optimize=True)
    print(f"wrote {OUT} ({SIZE}x{SIZE})")


if __name__ == "__main__":
    main()
