"""Write a drawn scene of the captioner's data set as a PNG (run by hand).

The default image of ``cnn_attention`` is drawn in memory; this script saves
it (or any other drawn scene) as a file, so it can be looked at or given back
as ``[cnn] image`` to see the captioner read a picture from a file:

    python scripts/make_sample_image.py            # attention_core/sample_image.png
    python scripts/make_sample_image.py 12 out.png --size 96
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention_core.captioner.drawing import draw_scene  # noqa: E402
from attention_core.captioner.train import held_out_scene  # noqa: E402
from attention_core.cnn import DEFAULT_SCENE  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "attention_core" / "sample_image.png"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene", nargs="?", type=int, default=DEFAULT_SCENE)
    parser.add_argument("out", nargs="?", type=Path, default=OUT)
    parser.add_argument("--size", type=int, default=192, help="pixels a side (default 192)")
    args = parser.parse_args()
    recipe = held_out_scene(args.scene)
    scene = draw_scene(recipe.background, recipe.things, args.size)
    Image.fromarray(np.round(scene.pixels * 255).astype(np.uint8), "RGB").save(args.out)
    print(f"{args.out}: drawn scene {args.scene}, \"{' '.join(scene.caption)}\"")


if __name__ == "__main__":
    main()
