#!/usr/bin/env python3
"""Benchmark of ``render.py render --all`` against plain ``manim`` (not a test).

Prints, in one run, the wall time (median of ``--repeat`` runs) of:

1. the default set rendered cold with ``--jobs 1``;
2. the same, cold, with the default number of jobs (one per core);
3. the same with every scene split in ``--split`` parts (``--split N``);
4. the same on a Dask ``LocalCluster`` of one worker per core (``--executor dask``);
5. a warm re-run with nothing changed (everything from the cache);
6. a re-run after changing one number (an input of dot-product attention): only the
   scenes that show it are rendered again;
7. the longest scene (``--long``, default ``attention_process``) alone, whole
   and split in ``--split`` parts, with the default jobs;
8. the baseline: the same scenes rendered one after another by ``manim`` on
   the command line, from a tiny manim file that instantiates each scene
   with the default trace (caching off, as a cold render);

then the ratios against the baseline. Every step runs in a fresh process,
so imports count, as they do for a user. ``--only SCENE`` (for example with
``--quality high``) measures one scene instead of the set: plain manim,
``--jobs 1``, default jobs, split.

    .venv/bin/python scripts/benchmark.py --quality low --repeat 1
    .venv/bin/python scripts/benchmark.py --quality high --only encoder
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MANIM_FLAGS = {"low": "-ql", "medium": "-qm", "high": "-qh", "4k": "-qk"}


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"benchmark: {' '.join(cmd[:4])}... failed:\n{proc.stderr[-2000:]}")
    return seconds, proc.stderr


def _summary(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("summary:")]
    return lines[-1] if lines else ""


def _changed_numbers(path: Path) -> str:
    """The default numbers with one input value of dot-product attention
    moved by 0.01 (a value the default scenes show; the translator's weights
    are not in the numbers file)."""
    from attention_core import compute_trace, load_numbers
    from attention_core.numbers_file import default_numbers_text

    inputs = compute_trace(load_numbers()).dot_product_attention.inputs
    rows = [[round(float(v), 2) for v in row] for row in inputs]
    rows[0][0] = round(rows[0][0] + 0.01, 2)
    text = default_numbers_text()
    header = "[dot_product_attention]\n"
    assert text.count(header) == 1
    path.write_text(text.replace(header, f"{header}inputs = {rows}\n"))
    return "dot_product_attention.inputs[0][0] += 0.01"


def _manim_file(path: Path, scene_ids: list[str]) -> list[str]:
    """A plain manim file: one subclass per scene, built with the default trace."""
    lines = [
        "import sys",
        f"sys.path.insert(0, {str(ROOT)!r})",
        "from attention_core import compute_trace, load_numbers",
        "from scenes import SCENES, DARK",
        "TRACE = compute_trace(load_numbers())",
    ]
    names = []
    for scene_id in scene_ids:
        name = "Bench_" + "".join(part.title() for part in scene_id.split("_"))
        names.append(name)
        lines += [
            f"class {name}(SCENES[{scene_id!r}]):",
            "    def __init__(self, **kwargs):",
            "        super().__init__(TRACE, DARK, **kwargs)",
        ]
    path.write_text("\n".join(lines) + "\n")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", default="low", choices=list(MANIM_FLAGS))
    parser.add_argument("--format", default="mp4")
    parser.add_argument("--repeat", type=int, default=1, help="runs per cold measurement (median)")
    parser.add_argument("--warm-repeat", type=int, default=5, help="runs per warm measurement (median)")
    parser.add_argument("--split", type=int, default=2, help="parts per scene in the split runs")
    parser.add_argument("--long", default="attention_process", help="the scene measured alone, split or not")
    parser.add_argument("--only", default=None, help="measure this one scene instead of the whole set")
    parser.add_argument("--scenes", default=None,
                        help="comma-separated scene ids instead of the whole set (a quicker run)")
    args = parser.parse_args()

    from scenes import DARK, SCENES

    scene_ids = [args.only] if args.only else list(SCENES)
    if args.scenes and not args.only:
        scene_ids = [s.strip() for s in args.scenes.split(",") if s.strip()]
    py = sys.executable
    manim = str(Path(py).with_name("manim"))
    work = Path(tempfile.mkdtemp(prefix="attention-benchmark-"))
    which = [args.only] if args.only else (scene_ids if args.scenes else ["--all"])
    render = [py, "render.py", "render", *which, "--quality", args.quality, "--format", args.format]
    results: dict[str, float] = {}
    notes: dict[str, str] = {}
    try:
        def cold(label: str, extra: list[str], base: list[str] = render) -> None:
            times = []
            for i in range(args.repeat):
                out = work / f"{label}-{i}"
                seconds, err = _timed(base + ["--out", str(out), *extra])
                times.append(seconds)
                notes[label] = _summary(err)
            results[label] = statistics.median(times)
            print(f"  {label}: {results[label]:.1f} s", flush=True)

        print(f"benchmark: {len(scene_ids)} scenes ({', '.join(scene_ids)}), quality {args.quality}, "
              f"format {args.format}, {os.cpu_count()} cores", flush=True)

        bench = work / "bench_scenes.py"
        names = _manim_file(bench, scene_ids)
        cfg = work / "bench.cfg"
        cfg.write_text(f"[CLI]\nbackground_color = {DARK.background}\nverbosity = ERROR\n"
                       "progress_bar = none\ndisable_caching = True\n")
        times = []
        for i in range(args.repeat):
            total = 0.0
            for name in names:
                seconds, _ = _timed([manim, "render", MANIM_FLAGS[args.quality], "--config_file", str(cfg),
                                     "--media_dir", str(work / f"manim-{i}"), str(bench), name])
                total += seconds
            times.append(total)
        results["plain manim, one after another"] = statistics.median(times)
        print(f"  plain manim: {results['plain manim, one after another']:.1f} s", flush=True)

        cold("cold, --jobs 1", ["--jobs", "1"])
        cold("cold, default jobs", [])
        cold(f"cold, split {args.split}", ["--split", str(args.split)])
        if not args.only:
            cold("cold, dask LocalCluster", ["--executor", "dask"])

            out = work / "cold, default jobs-0"
            times = []
            for _ in range(args.warm_repeat):
                seconds, err = _timed(render + ["--out", str(out)])
                times.append(seconds)
                notes["warm, nothing changed"] = _summary(err)
            results["warm, nothing changed"] = statistics.median(times)

            changed = work / "changed.toml"
            what = _changed_numbers(changed)
            times = []
            for i in range(args.repeat):
                # Each repeat starts from the default-numbers render, then changes one value.
                copy = work / f"changed-{i}"
                shutil.copytree(out, copy)
                seconds, err = _timed(render + ["--out", str(copy), "--numbers", str(changed)])
                times.append(seconds)
                notes["one number changed"] = f"{what}; {_summary(err)}"
            results["one number changed"] = statistics.median(times)
            print("  warm and one-number runs done", flush=True)

        if not args.only and args.long:
            alone = [py, "render.py", "render", args.long, "--quality", args.quality, "--format", args.format]
            cold(f"{args.long} alone, whole", ["--split", "1"], alone)
            cold(f"{args.long} alone, split {args.split}", ["--split", str(args.split)], alone)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    base = results["plain manim, one after another"]
    print()
    print(f"{'step':<40} {'median s':>9} {'vs manim':>9}")
    for label, seconds in results.items():
        print(f"{label:<40} {seconds:9.2f} {seconds / base:8.2f}x")
    long_whole = results.get(f"{args.long} alone, whole")
    if long_whole:
        split_s = results[f"{args.long} alone, split {args.split}"]
        print(f"\n{args.long} with {os.cpu_count()} workers: split {args.split} takes "
              f"{split_s / long_whole:.2f}x the whole-scene time")
    print()
    for label, note in notes.items():
        print(f"{label}: {note}")
    print(f"(repeats: cold {args.repeat}, warm {args.warm_repeat}; the cold runs of render.py also write "
          f"index.html and the cache records; load average at the end: {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
