"""How renders execute: interrupts, workers dying with the parent, split scenes, Dask.

Real renders of the small scenes of ``tests/render_scenes.py`` at low quality.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import av
import numpy as np
import psutil
import pytest
from PIL import Image

from publish.rendering import play_costs
from publish.rendering.pipeline import Job, run_renders, scene_ref
from publish.rendering.split import JoinTask, PartTask, concat_videos, join_parts, joined_costs, render_part

from . import render_scenes
from .helpers import trace_from, varied

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SLOW = ("tiny", "tiny_poster")  # 60 s each with RENDER_TEST_SLOW=60
QUEUED = ("latex_0", "latex_1")  # behind them with --jobs 2


def _run(out: Path, ids, formats=("mp4", "png"), **kwargs):
    lines: list[str] = []
    summary = run_renders(list(ids), trace_from(varied()), out, "low", tuple(formats), "dark",
                          kwargs.pop("jobs", 1), kwargs.pop("force", False), echo=lines.append,
                          registry=render_scenes.registry(), **kwargs)
    return summary, lines


def _status(summary) -> dict[str, str]:
    return {r.scene_id: r.status for r in summary.results}


def _frames(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]


def _png(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """tiny, tiny_poster, tiny_steps and latex_0 rendered whole, in this process, with captions."""
    out = tmp_path_factory.mktemp("reference")
    summary, _ = _run(out, ["tiny", "tiny_poster", "tiny_steps", "latex_0"], ("mp4", "png", "vtt"))
    assert set(_status(summary).values()) == {"rendered"}, summary.line()
    return out


def _same_files(a: Path, b: Path, scene_id: str) -> None:
    fa, fb = _frames(a / f"{scene_id}.mp4"), _frames(b / f"{scene_id}.mp4")
    assert len(fa) == len(fb) > 0
    assert all(np.array_equal(x, y) for x, y in zip(fa, fb)), f"{scene_id}: frames differ"
    assert np.array_equal(_png(a / f"{scene_id}.png"), _png(b / f"{scene_id}.png"))
    if (b / f"{scene_id}.vtt").exists():
        assert (a / f"{scene_id}.vtt").read_text() == (b / f"{scene_id}.vtt").read_text()


# -- interrupts ------------------------------------------------------------------------

def _snapshot(out: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(out)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in out.rglob("*") if p.is_file()}


@pytest.mark.parametrize("how", ["sigint-group", "sigterm-main", "sigkill-main"])
def test_interrupt_stops_every_worker_and_writes_nothing_after(tmp_path, how):
    code = ("import sys; sys.path.insert(0, sys.argv[1]); del sys.argv[1]; "
            "from tests import render_scenes; render_scenes.register(); import render; render.main()")
    proc = subprocess.Popen([PY, "-c", code, str(ROOT), "render", *SLOW, *QUEUED, "--format", "mp4",
                             "--jobs", "2", "--out", str(tmp_path)],
                            cwd=ROOT, env={**os.environ, "RENDER_TEST_SLOW": "60"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob(".rendering-*"))) < 2:  # both workers inside a scene
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    time.sleep(1.0)
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert len(workers) >= 2
    sent = time.monotonic()
    if how == "sigint-group":
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    else:
        proc.send_signal(signal.SIGTERM if how == "sigterm-main" else signal.SIGKILL)  # what timeout does
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    at_exit = _snapshot(tmp_path)
    time.sleep(2.0)
    alive = [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"workers alive 2 s after the parent ended: {alive}"
    assert _snapshot(tmp_path) == at_exit, "something was written after the parent ended"
    assert took < 10, f"took {took:.1f} s to stop"
    # Nothing finished, the queued never started: no output (a work folder of a
    # SIGKILLed run may hold manim's partial movies; the next run removes it).
    outputs = [f for f in at_exit if not f.startswith(".")]
    assert not [f for f in outputs if f.endswith(".mp4")], outputs
    if how == "sigkill-main":
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == (130 if how == "sigint-group" else 143), err
        assert err.rstrip().endswith("run again to resume") and "Traceback" not in err, err
        assert "warn" not in err.lower(), err
        assert not list(tmp_path.glob(".rendering-*"))
    # The next run renders everything (and removes what a killed worker left).
    summary, _ = _run(tmp_path, [*SLOW, *QUEUED], ("mp4",))
    assert set(_status(summary).values()) == {"rendered"}, summary.line()
    assert all((tmp_path / f"{s}.mp4").stat().st_size > 0 for s in (*SLOW, *QUEUED))
    assert not list(tmp_path.glob(".rendering-*"))


# -- split scenes ------------------------------------------------------------------------

def test_a_scene_split_in_parts_gives_the_same_frames_and_still(reference, tmp_path):
    summary, lines = _run(tmp_path, ["tiny", "tiny_poster"], jobs=2, split=2)
    assert _status(summary) == {"tiny": "rendered", "tiny_poster": "rendered"}, summary.line()
    assert sum("in 2 parts" in line for line in lines) == 2, lines
    for scene_id in ("tiny", "tiny_poster"):  # the poster is 0.2 s in for tiny_poster, last frame for tiny
        _same_files(reference, tmp_path, scene_id)
    # A second run finds them current: same cache records as a whole render.
    again, _ = _run(tmp_path, ["tiny", "tiny_poster"], jobs=2, split=2)
    assert _status(again) == {"tiny": "cached", "tiny_poster": "cached"}


_ENCODE_ONCE = """
import hashlib, json, sys
from fractions import Fraction
from pathlib import Path
import numpy as np
from manim._config.video_encoder import VideoEncoderSpec
from manim.scene.video_segment_encoder import VideoSegmentEncoder

h, w = 480, 854
yy, xx = np.mgrid[0:h, 0:w]
options = {"crf": "23", **json.loads(sys.argv[1])}  # Manim's libx264 default, then ours
spec = VideoEncoderSpec("mp4", "libx264", "yuv420p", w, h, Fraction(15), tuple(sorted(options.items())))
out = Path(sys.argv[2])
encoder = VideoSegmentEncoder(target=out, spec=spec)
for i in range(15):  # a disc fading in and moving, beside a patch of fine detail
    frame = np.zeros((h, w, 4), np.uint8)
    frame[..., :3] = (16, 17, 22)
    frame[..., 3] = 255
    disc = np.clip(60 - np.hypot(xx - 200 - 20 * i, yy - 240), 0, 1) * i / 14
    for c, v in enumerate((80, 160, 240)):
        frame[..., c] = (frame[..., c] * (1 - disc) + v * disc).astype(np.uint8)
    frame[40:60, 380:470, :3] = ((xx[40:60, 380:470] * 37 + yy[40:60, 380:470] * 11) % 256)[..., None]
    encoder.write_frame(np.ascontiguousarray(frame))
encoder.finish()
print(hashlib.md5(out.read_bytes()).hexdigest())
"""


def test_the_partial_movie_encoder_gives_the_same_bytes_for_the_same_frames(tmp_path):
    # The cause of a split render differing from the whole one (1 run in 3): with its
    # default threads, libx264 encoded the same frames to different bytes in about one
    # fresh process in three. Eight fresh processes, two at a time, as workers start.
    import json

    from publish.rendering.pipeline import encoder_options

    digests = []
    for pair in range(4):
        procs = [subprocess.Popen([PY, "-c", _ENCODE_ONCE, json.dumps(encoder_options()), str(tmp_path / f"{pair}-{k}.mp4")],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(2)]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            digests.append(out.strip())
    assert len(set(digests)) == 1, digests


def test_each_part_draws_only_its_share_of_the_animations(tmp_path):
    from publish.rendering.pipeline import Job, scene_ref

    job = Job("tiny", scene_ref(render_scenes.TinyScene), ("mp4",), {}, tmp_path, "low", "dark",
              trace_from(varied()))
    parts = [render_part(PartTask(job, k, 2)) for k in range(2)]
    # tiny plays FadeIn, FadeIn, wait: animations 0 and 2 in part 0, 1 in part 1.
    assert [sorted(p.segments) for p in parts] == [[0, 2], [1]]
    assert {p.plays for p in parts} == {3}
    assert parts[0].still is not None and parts[1].still is None  # part 0 drew the last animation
    files = []
    for i in range(3):
        path = tmp_path / f"{i}.mp4"
        path.write_bytes((parts[0] if i != 1 else parts[1]).segments[i])
        files.append(path)
    joined = tmp_path / "joined.mp4"
    concat_videos(files, joined)
    assert len(_frames(joined)) == sum(len(_frames(p)) for p in files) == 45  # 3 s at 15 fps


def test_a_render_keeps_what_each_animation_cost(reference):
    # tiny plays FadeIn (1 s), FadeIn (1 s), wait (1 s): 15 frames each to draw.
    costs = play_costs.read_record(reference, "tiny", "low")
    assert costs is not None and len(costs.build) == len(costs.draw) == 3
    assert all(d > 0 for d in costs.draw)
    assert costs.draw[1] > costs.draw[2]  # a fade redraws its shapes each frame, a still wait copies one frame
    assert play_costs.read_record(reference, "tiny", "high") is None


def _steps_job(out: Path) -> Job:
    return Job("tiny_steps", scene_ref(render_scenes.StepsScene), ("mp4", "png", "vtt"), {}, out, "low", "dark",
               trace_from(varied()))


def _joined(job: Job, tasks: list[PartTask], out: Path):
    outputs = tuple(render_part(t) for t in tasks)
    out.mkdir()
    for name, data in join_parts(JoinTask(job, outputs)).items():
        (out / name).write_bytes(data)
    return outputs


def test_parts_cut_anywhere_give_the_whole_render_with_its_captions(reference, tmp_path):
    # tiny_steps: FadeIn 1 s, FadeIn 1 s, wait 0.5 s, FadeOut 0.5 s, wait 0.5 s; captions on
    # screen throughout. A skipped half-second is 8 frames drawn (0.533 s) or 7 (a still
    # wait, 0.467 s): a part keeps the drawn clock, or its captions' times would drift.
    job = _steps_job(tmp_path)
    for cut in range(1, 5):
        outputs = _joined(job, [PartTask(job, 0, 2, 0, cut), PartTask(job, 1, 2, cut, None)], tmp_path / f"cut{cut}")
        assert [sorted(o.segments) for o in outputs] == [list(range(cut)), list(range(cut, 5))]
        assert [(o.plays, o.complete) for o in outputs] == [(cut, False), (5, True)]
        assert outputs[0].captions is None and outputs[1].captions  # from the part that saw the end
        _same_files(reference, tmp_path / f"cut{cut}", "tiny_steps")
        costs = joined_costs(outputs)
        assert len(costs.build) == 5 and all(d > 0 for d in costs.draw)


def test_a_cut_past_the_end_leaves_the_last_part_nothing_to_draw(reference, tmp_path):
    # A record from other numbers may cut after the scene's last animation.
    job = _steps_job(tmp_path)
    outputs = _joined(job, [PartTask(job, 0, 2, 0, 9), PartTask(job, 1, 2, 9, None)], tmp_path / "late")
    assert [sorted(o.segments) for o in outputs] == [[0, 1, 2, 3, 4], []]
    assert [(o.plays, o.complete) for o in outputs] == [(5, True), (5, True)]
    assert outputs[0].still is not None and outputs[1].still is None
    _same_files(reference, tmp_path / "late", "tiny_steps")


def test_the_poster_is_the_earliest_frame_after_its_time_whichever_part_drew_it(tmp_path):
    # Interleaved, part 1 draws animation 1 (1-2 s, the poster 1.2 s in) and part 0
    # animation 2 (2-3 s), whose first frame is also after 1.2 s.
    from publish.rendering.pipeline import render_scene

    scene = render_scenes.LatePosterScene
    whole = tmp_path / "whole"
    whole.mkdir()
    render_scene(scene, trace_from(varied()), whole, "low", ("mp4", "png"))
    job = Job(scene.scene_id, scene_ref(scene), ("mp4", "png"), {}, tmp_path, "low", "dark", trace_from(varied()))
    outputs = _joined(job, [PartTask(job, k, 2) for k in range(2)], tmp_path / "split")
    assert all(o.still is not None for o in outputs)
    assert outputs[1].still_time < outputs[0].still_time
    _same_files(whole, tmp_path / "split", scene.scene_id)


def test_a_split_render_cuts_where_the_record_says(reference, tmp_path, monkeypatch):
    from publish.rendering import split

    record = play_costs.read_record(reference, "tiny_steps", "low")
    assert record is not None
    play_costs.write_record(tmp_path, "tiny_steps", "low", record)
    drawn: list[PartTask] = []
    real = split.render_part
    monkeypatch.setattr(split, "render_part", lambda task: drawn.append(task) or real(task))
    summary, lines = _run(tmp_path, ["tiny_steps"], ("mp4", "png", "vtt"), jobs=1, split=2)
    assert _status(summary) == {"tiny_steps": "rendered"}, summary.line()
    assert any("in 2 parts" in line for line in lines), lines
    assert [(t.start, t.end) for t in drawn] == play_costs.plan_ranges(record, 2)
    _same_files(reference, tmp_path, "tiny_steps")
    after = play_costs.read_record(tmp_path, "tiny_steps", "low")  # measured again, from the parts
    assert after is not None and len(after.build) == 5 and after != record


def test_the_command_line_splits_a_clip_with_captions(tmp_path):
    # render.py adds the captions (vtt) to every clip: the split must take them along.
    code = ("import sys; sys.path.insert(0, sys.argv[1]); del sys.argv[1]; "
            "from tests import render_scenes; render_scenes.register(); import render; render.main()")
    proc = subprocess.run([PY, "-c", code, str(ROOT), "render", "tiny_steps", "--format", "mp4", "--split", "2",
                           "--jobs", "2", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "tiny_steps: rendered mp4, vtt in 2 parts" in proc.stderr + proc.stdout, proc.stderr
    assert (tmp_path / "tiny_steps.vtt").read_text().count("-->") >= 2


# -- Dask -----------------------------------------------------------------------------------

def test_dask_local_cluster_renders_the_same_files_through_the_cache(reference, tmp_path):
    summary, _ = _run(tmp_path, ["tiny", "latex_0"], jobs=2, executor="dask")
    assert _status(summary) == {"tiny": "rendered", "latex_0": "rendered"}, summary.line()
    for scene_id in ("tiny", "latex_0"):
        _same_files(reference, tmp_path, scene_id)
    assert not list(tmp_path.glob(".rendering-*"))
    # The files came back through the cache: a local run finds them current.
    again, _ = _run(tmp_path, ["tiny", "latex_0"])
    assert _status(again) == {"tiny": "cached", "latex_0": "cached"}


def _cli(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "render.py", "render", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_executor_options_refuse_bad_input_in_one_line(tmp_path):
    for args, says in [(("--executor", "spark"), "unknown executor 'spark'"),
                       (("--scheduler", "tcp://127.0.0.1:1"), "--scheduler needs --executor dask"),
                       (("--split", "0"), "--split must be a whole number from 1 to 64"),
                       (("--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"),
                        "cannot reach the Dask scheduler at tcp://127.0.0.1:1")]:
        proc = _cli("encoder", "--out", str(tmp_path / "out"), *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert says in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) <= 2, proc.stderr  # the progress line, then the error
    assert not list((tmp_path / "out").glob("*.mp4"))


def test_a_stop_landing_inside_a_finaliser_still_stops_the_job_cleanly(tmp_path):
    # Python drops exceptions raised in __del__ and weakref callbacks (it prints
    # "Exception ignored in ..." with a traceback): the worker must send the stop
    # again, so the job still unwinds through its finally blocks, silently.
    code = f"""
import os, signal, sys, time
sys.path.insert(0, {str(ROOT)!r})
from publish.rendering import executors

class Finaliser:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)  # the signal arrives while __del__ runs
        for _ in range(100000):
            pass

def job(marker):
    try:
        Finaliser()  # dropped at once: __del__ runs here
        time.sleep(30)
    finally:
        open(marker, "w").write("cleaned")
    return "finished"

executors._worker_init(os.getppid())
print(executors._run_in_worker(job, {str(tmp_path / "marker")!r}))
"""
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, proc.stdout, proc.stderr)
    assert (tmp_path / "marker").read_text() == "cleaned"
    assert "finished" not in proc.stdout
    assert proc.stderr == "", proc.stderr
