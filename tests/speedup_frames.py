"""The frames a few real scenes draw, as Manim hands them to the encoder: run on plain Manim in a
subprocess (``ATTENTION_SPEEDUPS=off``) and with the speedups in the test process, by
``tests/test_speedups.py``.

Each scene draws only its first animations (``upto_animation_number``: its code stops there), at
low quality; every frame is recorded at ``add_frame`` (before the encoder: the held-frames patch
changes only the file, which ``tests/test_held_frames.py`` compares) as a sha256 of its pixels,
and every tenth frame is kept whole to say how far apart two frames are when they differ.

    python -m tests.speedup_frames OUT.npz   # from the project root
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from typing import Any

import numpy as np

__all__ = ["SAMPLE", "KEEP_EVERY", "record", "main"]

#: (scene id, last animation drawn): titles, shapes moving over still ones, texts and numbers;
#: ~110 frames in all, ~20 s of processor time for both runs (plain Manim takes twice as long).
SAMPLE = (("dot_product", 3), ("encoder", 3))
KEEP_EVERY = 10


def record(scene_id: str, upto: int) -> tuple[list[str], dict[int, np.ndarray]]:
    """The sha256 of every frame ``scene_id`` draws up to animation ``upto`` (a held frame
    counted once per time it is handed over), and every :data:`KEEP_EVERY`-th frame."""
    from manim import tempconfig

    from attention_core import compute_trace, load_numbers
    from publish.rendering.render_setup import tex_slot
    from scenes import DARK, SCENES

    cls = SCENES[scene_id]
    trace = compute_trace(load_numbers(), cls.trace_sections)
    hashes: list[str] = []
    kept: dict[int, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as media, tempconfig({
            "quality": "low_quality", "format": "mp4", "media_dir": media, "disable_caching": True,
            "progress_bar": "none", "verbosity": "ERROR", "upto_animation_number": upto,
            "background_color": DARK.background, "output_file": scene_id,
            "tex_dir": str(tex_slot())}):  # formulas compiled once, kept across runs as a render keeps them
        scene = cls(trace, DARK)
        renderer = scene.renderer
        add_frame = renderer.add_frame

        def recorded(frame: Any, num_frames: int = 1) -> None:
            if not renderer.skip_animations:
                digest = hashlib.sha256(np.ascontiguousarray(frame).tobytes()).hexdigest()
                for _ in range(num_frames):
                    if len(hashes) % KEEP_EVERY == 0:
                        kept[len(hashes)] = np.array(frame)
                    hashes.append(digest)
            add_frame(frame, num_frames)

        renderer.add_frame = recorded
        scene.render()
    return hashes, kept


def main(out: str) -> None:
    arrays: dict[str, np.ndarray] = {}
    for scene_id, upto in SAMPLE:
        hashes, kept = record(scene_id, upto)
        arrays[f"{scene_id}/hashes"] = np.array(hashes)
        for i, frame in kept.items():
            arrays[f"{scene_id}/frame{i}"] = frame
    np.savez_compressed(out, **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
