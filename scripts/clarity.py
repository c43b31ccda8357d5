"""How clear each clip is, by STYLE.md §4 (issue 31): built headless, measured, printed.

    .venv/bin/python scripts/clarity.py                      # every scene, default numbers
    .venv/bin/python scripts/clarity.py encoder decoder      # some scenes
    .venv/bin/python scripts/clarity.py --numbers my.toml    # another numbers file
    .venv/bin/python scripts/clarity.py --faults             # also list each fault by the rules
    .venv/bin/python scripts/clarity.py --varied encoder     # the varied numbers of the pacing test

Columns: the clip's length, legible numbers at once (time-weighted median and the most, outside the
close-up, with when), the close-up's seconds and its most numbers, the ending's hold, the longest
stretch without motion before the ending, groups that left and came back, the smallest text (px at
480p). The rules and their limits are in ``scenes/base.py`` (``Clarity.faults``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

__all__ = ["measure", "main"]


def measure(scene_id: str, trace, theme=None):
    """Build ``scene_id`` headless with the audit on and return its :class:`Clarity`."""
    from manim import tempconfig

    from scenes import DARK, SCENES

    with tempfile.TemporaryDirectory() as media, tempconfig({
        "dry_run": True, "quality": "low_quality", "verbosity": "ERROR",
        "progress_bar": "none", "media_dir": media, "disable_caching": True,
    }):
        scene = SCENES[scene_id](trace, theme or DARK, audit=True, skip_animations=True)
        scene.renderer.update_frame = lambda *a, **k: None  # nothing reads the pixels
        scene.render()
    return scene.clarity()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*")
    parser.add_argument("--numbers", type=Path, default=None, help="a numbers file (default: the shipped one)")
    parser.add_argument("--faults", action="store_true", help="list the faults by the rules")
    parser.add_argument("--varied", action="store_true",
                        help="the varied numbers of tests/test_pacing_legibility.py (VARIED)")
    args = parser.parse_args(argv)

    from attention_core import compute_trace, load_numbers
    from scenes import SCENE_MODULES

    if args.varied:
        from tests.helpers import trace_from
        from tests.test_pacing_legibility import VARIED

        trace = trace_from(VARIED)
    else:
        trace = compute_trace(load_numbers(args.numbers) if args.numbers else load_numbers())
    ids = args.scenes or list(SCENE_MODULES)
    unknown = [s for s in ids if s not in SCENE_MODULES]
    if unknown:
        print(f"clarity: unknown scene {unknown[0]!r}", file=sys.stderr)
        return 2
    print(f"{'scene':24} {'len s':>6} {'median':>6} {'max@s':>10} {'close-up':>9} {'hold':>5} "
          f"{'still@s':>11} {'back':>4} {'min px':>6}")
    total, failing = 0.0, 0
    for scene_id in ids:
        c = measure(scene_id, trace)
        total += c.duration
        px = f"{c.smallest_text[0]:.1f}" if c.smallest_text else "-"
        print(f"{scene_id:24} {c.duration:6.1f} {c.median_numbers:6g} {c.max_numbers:4d}@{c.max_numbers_at:<5.1f} "
              f"{c.close_up_seconds:5.1f}/{c.close_up_max:<3d} {c.end_hold:5.1f} "
              f"{c.longest_still:5.1f}@{c.longest_still_at:<5.1f} {len(c.returns):4d} {px:>6}")
        faults = c.faults()
        failing += bool(faults)
        if args.faults:
            for f in faults:
                print(f"    - {f}")
    print(f"{'set':24} {total:6.1f} s = {total / 60:.1f} min; {failing} of {len(ids)} clips break a rule")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
