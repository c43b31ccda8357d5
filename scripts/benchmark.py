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
   and split in ``--split`` parts, with the default jobs, ``--long-repeat``
   runs each (default 2), alternating so that a change in the machine's load
   falls on all: split cold (no cost record: interleaved parts) and split into
   a folder holding the cost record the whole render wrote (contiguous parts,
   cut by :mod:`publish.rendering.play_costs`), everything else cold;
8. the baseline: the same scenes rendered one after another by ``manim`` on
   the command line, from a tiny manim file that instantiates each scene
   with the default trace (caching off, as a cold render);

then the ratios against the baseline. ``--steps patches`` (not in the default run) measures each
module of ``manim_speedups`` instead: ``--pairs`` pairs of renders of ``--patch-scene`` (default
``encoder``), the module's switch off (``ATTENTION_FAST_RENDER=0`` ...) then everything on, in
turn, and prints the medians and the median of the pair-by-pair ratios (off / on: above 1, the
patch saves time), as ``docs/performance.md`` quotes them:

    .venv/bin/python scripts/benchmark.py --steps patches --pairs 3 --quality low
 Every step runs in a fresh process,
so imports count, as they do for a user. Next to the wall time, each step's
processor time (user + system of the processes it started, as the kernel
counts them for reaped children: complete for one process, possibly
undercounted for worker pools, and including the cluster's own processes
for Dask) is printed: on a machine shared with other work
the wall times swell with the load, the processor times much less. The
last columns give each step's peak resident memory: the main process and
all its workers summed, sampled every 50 ms (the highest of the step's runs).

How long a run takes, on 2 cores: the whole set at low quality with
``--repeat 1 --long-repeat 3`` 28 minutes (measured at a load average of 1.4
to 3.9: plain manim 7 min, each cold run of the set 2 to 3.5 min,
``attention_process`` alone 9 x ~40 s); ``--steps long`` alone about 6
minutes; both double or worse under heavy load. ``--only SCENE`` (for example with
``--quality high``) measures one scene instead of the set: plain manim,
``--jobs 1``, default jobs, split.

    .venv/bin/python scripts/benchmark.py --quality low --repeat 1
    .venv/bin/python scripts/benchmark.py --quality high --only encoder
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEPS = ("plain", "jobs1", "jobs", "split", "dask", "warm", "changed", "long")
EXTRA_STEPS = ("patches",)  # only when asked for
COLD_LATEX: tuple[str, ...] = ()  # switches measured with an empty LaTeX folder each run (none now)
MANIM_FLAGS = {"low": "-ql", "medium": "-qm", "high": "-qh", "4k": "-qk"}


CPU: dict[str, float] = {}  # processor seconds of the last _timed call, by label


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


PEAK: dict[str, float] = {}  # peak resident memory (MB) of the last _timed call's process tree


def _tree_rss(proc: Any) -> int:
    """Resident bytes of a process and all its children (workers included), now."""
    import psutil

    total = 0
    try:
        root = psutil.Process(proc.pid)
        for p in [root, *root.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return total


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run ``cmd``: its wall time and stderr; its processor time in CPU["last"] and the
    peak of its process tree's summed resident memory (sampled every 50 ms) in PEAK["last"]."""
    start, cpu = time.monotonic(), _children_cpu()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, text=True, env=env)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc))
            time.sleep(0.05)
        seconds = time.monotonic() - start
        err.seek(0)
        stderr = err.read()
    CPU["last"] = _children_cpu() - cpu
    PEAK["last"] = peak / (1 << 20)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark: {' '.join(cmd[:4])}... failed:\n{stderr[-2000:]}")
    return seconds, stderr


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


def _fresh_tmp(work: Path, name: str) -> dict[str, str]:
    """A new empty temporary folder for one run (render.py keeps compiled LaTeX there)."""
    tmp = work / f"tmp-{name}"
    tmp.mkdir()
    return {"TMPDIR": str(tmp)}


def _patches(quality: str, scene: str, pairs: int) -> None:
    """Each speedup module's switch off against all on, in turn, ``pairs`` times: medians of wall
    and processor seconds and of the pair-by-pair ratios off / on."""
    import manim_speedups

    switches = list(dict.fromkeys(p.switch for p in manim_speedups.PATCHES))
    work = Path(tempfile.mkdtemp(prefix="attention-benchmark-"))
    render = [sys.executable, "render.py", "render", scene, "--quality", quality, "--force", "--out", str(work / "out")]
    base = {k: v for k, v in os.environ.items() if not k.startswith("ATTENTION_")}
    print(f"benchmark: {scene} at {quality} quality, each speedup module off against all on, {pairs} pairs, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    try:
        _timed(render, env=base)  # warm: the LaTeX folder and the translator's cache are filled once
        for switch in switches:
            off_wall, off_cpu, on_wall, on_cpu = [], [], [], []
            for i in range(pairs):
                # A patch that pays only where formulas are compiled would need a cold LaTeX folder each run.
                cold = switch in COLD_LATEX
                off_wall.append(_timed(render, env={**base, switch: "0",
                                                    **(_fresh_tmp(work, f"off-{i}") if cold else {})})[0])
                off_cpu.append(CPU["last"])
                on_wall.append(_timed(render, env={**base, **(_fresh_tmp(work, f"on-{i}") if cold else {})})[0])
                on_cpu.append(CPU["last"])
            wall_ratio = statistics.median(a / b for a, b in zip(off_wall, on_wall))
            cpu_ratio = statistics.median(a / b for a, b in zip(off_cpu, on_cpu))
            rows.append((switch, statistics.median(off_wall), statistics.median(on_wall), wall_ratio,
                         statistics.median(off_cpu), statistics.median(on_cpu), cpu_ratio))
            print(f"  {switch}=0: wall {rows[-1][1]:.1f} s vs {rows[-1][2]:.1f} s ({wall_ratio:.3f}x), "
                  f"cpu {rows[-1][4]:.1f} s vs {rows[-1][5]:.1f} s ({cpu_ratio:.3f}x)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'switch off':<28} {'wall off':>9} {'wall on':>8} {'off/on':>7} {'cpu off':>8} {'cpu on':>7} {'off/on':>7}")
    for switch, w_off, w_on, w_ratio, c_off, c_on, c_ratio in rows:
        print(f"{switch:<28} {w_off:9.1f} {w_on:8.1f} {w_ratio:6.3f}x {c_off:8.1f} {c_on:7.1f} {c_ratio:6.3f}x")
    print(f"(medians of {pairs} pairs; ratios taken pair by pair; load average now {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", default="low", choices=list(MANIM_FLAGS))
    parser.add_argument("--format", default="mp4")
    parser.add_argument("--repeat", type=int, default=1, help="runs per cold measurement (median)")
    parser.add_argument("--warm-repeat", type=int, default=5, help="runs per warm measurement (median)")
    parser.add_argument("--split", type=int, default=2, help="parts per scene in the split runs")
    parser.add_argument("--long", default="attention_process", help="the scene measured alone, split or not")
    parser.add_argument("--long-repeat", type=int, default=2,
                        help="runs of the long scene alone, whole and split (median)")
    parser.add_argument("--only", default=None, help="measure this one scene instead of the whole set")
    parser.add_argument("--scenes", default=None,
                        help="comma-separated scene ids instead of the whole set (a quicker run)")
    parser.add_argument("--steps", default=None,
                        help="comma-separated subset of the steps: plain,jobs1,jobs,split,dask,warm,changed,long "
                             "(default: all; without plain, no ratios to it)")
    parser.add_argument("--pairs", type=int, default=3, help="pairs of runs per patch (--steps patches)")
    parser.add_argument("--patch-scene", default="encoder", help="the scene rendered for --steps patches")
    args = parser.parse_args()
    steps = set(STEPS if args.steps is None else [s.strip() for s in args.steps.split(",")])
    if steps - set(STEPS) - set(EXTRA_STEPS):
        parser.error(f"unknown steps: {', '.join(sorted(steps - set(STEPS) - set(EXTRA_STEPS)))} "
                     f"(known: {', '.join(STEPS + EXTRA_STEPS)})")
    if steps == {"patches"}:
        _patches(args.quality, args.patch_scene, args.pairs)
        return
    steps.discard("patches")
    if "patches" in (args.steps or ""):
        parser.error("--steps patches is measured on its own (give it alone)")

    from publish.rendering import play_costs
    from scenes import DARK, SCENES

    scene_ids = [args.only] if args.only else list(SCENES)
    if args.scenes and not args.only:
        scene_ids = [s.strip() for s in args.scenes.split(",") if s.strip()]
    py = sys.executable
    manim = str(Path(py).with_name("manim"))
    work = Path(tempfile.mkdtemp(prefix="attention-benchmark-"))
    which = [args.only] if args.only else (scene_ids if args.scenes else ["--all"])
    render = [py, "render.py", "render", *which, "--quality", args.quality, "--format", args.format]
    results: dict[str, float] = {}  # label -> median wall seconds
    peaks: dict[str, float] = {}  # label -> the highest peak resident memory (MB) of its runs
    cpu: dict[str, float] = {}  # label -> median processor seconds
    runs: dict[str, list[float]] = {}  # label -> every wall time, for the report
    notes: dict[str, str] = {}
    loads: list[float] = []

    step_peaks: list[float] = []  # every _timed call's peak since the last record()

    def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
        seconds, err = _timed(cmd, env)
        step_peaks.append(PEAK["last"])
        return seconds, err

    def record(label: str, walls: list[float], cpus: list[float]) -> None:
        results[label], cpu[label], runs[label] = statistics.median(walls), statistics.median(cpus), walls
        peaks[label] = max(step_peaks, default=float("nan"))
        step_peaks.clear()
        loads.append(os.getloadavg()[0])
        print(f"  {label}: {results[label]:.1f} s wall, {cpu[label]:.1f} s cpu "
              f"(runs {', '.join(f'{w:.1f}' for w in walls)}; load {loads[-1]:.1f})", flush=True)

    try:
        def fresh_tmp(name: str) -> dict[str, str]:
            # render.py keeps compiled LaTeX in the temporary folder across runs (plain manim in its
            # media folder): a cold run starts from an empty one, as plain manim's fresh media folder does.
            tmp = work / f"tmp-{name}"
            tmp.mkdir()
            return {**os.environ, "TMPDIR": str(tmp)}

        def cold_once(label: str, extra: list[str], base: list[str], i: int,
                      seed: Path | None = None) -> tuple[float, float]:
            out = work / f"{label}-{i}"
            if seed is not None:  # what an earlier render left in the folder: its cost record only
                (out / ".cache").mkdir(parents=True)
                shutil.copy(seed, out / ".cache" / seed.name)
            seconds, err = timed(base + ["--out", str(out), *extra], env=fresh_tmp(f"{label}-{i}"))
            notes[label] = _summary(err)
            return seconds, CPU["last"]

        def cold(label: str, extra: list[str], base: list[str] = render) -> None:
            timed = [cold_once(label, extra, base, i) for i in range(args.repeat)]
            record(label, [w for w, _ in timed], [c for _, c in timed])

        print(f"benchmark: {len(scene_ids)} scenes ({', '.join(scene_ids)}), quality {args.quality}, "
              f"format {args.format}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}",
              flush=True)

        bench = work / "bench_scenes.py"
        names = _manim_file(bench, scene_ids)
        cfg = work / "bench.cfg"
        cfg.write_text(f"[CLI]\nbackground_color = {DARK.background}\nverbosity = ERROR\n"
                       "progress_bar = none\ndisable_caching = True\n")
        walls, cpus = [], []
        for i in range(args.repeat if "plain" in steps else 0):
            total = total_cpu = 0.0
            for scene_id, name in zip(scene_ids, names):
                seconds, _ = timed([manim, "render", MANIM_FLAGS[args.quality], "--config_file", str(cfg),
                                     "--media_dir", str(work / f"manim-{i}"), str(bench), name])
                total += seconds
                total_cpu += CPU["last"]
                print(f"    plain manim {scene_id}: {seconds:.1f} s", flush=True)
            walls.append(total)
            cpus.append(total_cpu)
        if walls:
            record("plain manim, one after another", walls, cpus)

        if "jobs1" in steps:
            cold("cold, --jobs 1", ["--jobs", "1"])
        if steps & {"jobs", "warm", "changed"}:
            cold("cold, default jobs", [])
        if "split" in steps:
            cold(f"cold, split {args.split}", ["--split", str(args.split)])
        if not args.only and "dask" in steps:
            cold("cold, dask LocalCluster", ["--executor", "dask"])
        if not args.only and steps & {"warm", "changed"}:
            out = work / "cold, default jobs-0"
            warm_env = {**os.environ, "TMPDIR": str(work / "tmp-cold, default jobs-0")}
            walls, cpus = [], []
            for _ in range(args.warm_repeat):
                seconds, err = timed(render + ["--out", str(out)], env=warm_env)
                walls.append(seconds)
                cpus.append(CPU["last"])
                notes["warm, nothing changed"] = _summary(err)
            record("warm, nothing changed", walls, cpus)

            changed = work / "changed.toml"
            what = _changed_numbers(changed)
            walls, cpus = [], []
            for i in range(args.repeat):
                # Each repeat starts from the default-numbers render, then changes one value.
                copy = work / f"changed-{i}"
                shutil.copytree(out, copy)
                seconds, err = timed(render + ["--out", str(copy), "--numbers", str(changed)], env=warm_env)
                walls.append(seconds)
                cpus.append(CPU["last"])
                notes["one number changed"] = f"{what}; {_summary(err)}"
            record("one number changed", walls, cpus)

        if not args.only and args.long and "long" in steps:
            alone = [py, "render.py", "render", args.long, "--quality", args.quality, "--format", args.format]
            whole, split = f"{args.long} alone, whole", f"{args.long} alone, split {args.split}"
            interleaved = f"{split}, no record"
            timed: dict[str, list[tuple[float, float]]] = {whole: [], interleaved: [], split: []}
            for i in range(args.long_repeat):
                # Alternating, so that a change of the machine's load falls on all three. The
                # split with a record starts from the cost record the whole render just wrote
                # (as a re-render after a change of numbers does), everything else cold.
                timed[whole].append(cold_once(whole, ["--split", "1"], alone, i))
                timed[interleaved].append(cold_once(interleaved, ["--split", str(args.split)], alone, i))
                costs_file = play_costs.record_path(work / f"{whole}-{i}", args.long, args.quality)
                timed[split].append(cold_once(split, ["--split", str(args.split)], alone, i,
                                              seed=costs_file if costs_file.is_file() else None))
            for label, pairs in timed.items():
                record(label, [w for w, _ in pairs], [c for _, c in pairs])
    finally:
        shutil.rmtree(work, ignore_errors=True)

    base = results.get("plain manim, one after another", float("nan"))
    base_cpu = cpu.get("plain manim, one after another", float("nan"))
    print()
    base_peak = peaks.get("plain manim, one after another", float("nan"))
    print(f"{'step':<44} {'median s':>9} {'vs manim':>9} {'cpu s':>9} {'vs manim':>9} {'peak MB':>8} {'vs manim':>9}")
    for label, seconds in results.items():
        print(f"{label:<44} {seconds:9.2f} {seconds / base:8.2f}x {cpu[label]:9.2f} {cpu[label] / base_cpu:8.2f}x "
              f"{peaks[label]:8.0f} {peaks[label] / base_peak:8.2f}x")
    long_whole = results.get(f"{args.long} alone, whole")
    if long_whole:
        split_s = results[f"{args.long} alone, split {args.split}"]
        blind = results[f"{args.long} alone, split {args.split}, no record"]
        print(f"\n{args.long} with {os.cpu_count()} workers: split {args.split} takes "
              f"{split_s / long_whole:.2f}x the whole-scene time cut by the cost record of an earlier render, "
              f"{blind / long_whole:.2f}x without one (interleaved; medians of {args.long_repeat} runs each)")
    print()
    for label, note in notes.items():
        print(f"{label}: {note}")
    print(f"(repeats: cold {args.repeat}, warm {args.warm_repeat}, {args.long} alone {args.long_repeat}; "
          f"the cold runs of render.py also write index.html and the cache records; load average after "
          f"each step: {', '.join(f'{x:.1f}' for x in loads)})")

if __name__ == "__main__":
    main()
