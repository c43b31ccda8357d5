"""Rendering for the blog: formats, render cache, atomic writes, parallel jobs, gallery.

Real renders use the small test scenes of ``tests/render_scenes.py`` at low
quality, so the whole file stays within a couple of minutes on two cores.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import av
import numpy as np
import pytest
from PIL import Image

from publish.rendering import cache
from publish.rendering.encode import GIF_MAX_FPS, gif_schedule
from publish.targets.gallery import write_gallery
from publish.rendering.pipeline import run_renders
from scenes import LIGHT

from . import render_scenes
from .helpers import trace_from, varied
from .render_scenes import BrokenScene, LatexScene0, TinyScene

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
ALL = ("mp4", "webm", "gif", "png", "svg", "vtt")


def _run(out: Path, ids, formats=("png",), data=None, theme="dark", quality="low", jobs=1,
         force=False, registry=None):
    lines: list[str] = []
    summary = run_renders(list(ids), trace_from(data or varied()), out, quality, tuple(formats), theme,
                          jobs, force, echo=lines.append, registry=registry or render_scenes.registry())
    return summary, lines


def _status(summary) -> dict[str, str]:
    return {r.scene_id: r.status for r in summary.results}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """tiny and tiny_poster rendered once to every format."""
    out = tmp_path_factory.mktemp("formats")
    TinyScene.plays = 0
    summary, _ = _run(out, ["tiny", "tiny_poster"], ALL)
    assert _status(summary) == {"tiny": "rendered", "tiny_poster": "rendered"}, summary.line()
    return out


def _frames(path: Path):
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        frames = [(float(f.time), f.to_ndarray(format="rgb24")) for f in c.decode(stream)]
        return stream.codec_context.name, stream.codec_context.pix_fmt, frames


# -- formats -------------------------------------------------------------------

def test_each_scene_is_rendered_once_for_all_formats(rendered):
    # tiny's construct ran once, though six files were written.
    assert TinyScene.plays == 1
    assert sorted(p.name for p in rendered.glob("tiny.*")) == [f"tiny.{f}" for f in sorted(ALL)]
    # Nothing temporary is left in the folder.
    assert not list(rendered.glob(".rendering-*")) and not list(rendered.rglob("*.part"))


def test_mp4_is_h264_yuv420p_with_moov_first(rendered):
    codec, pix_fmt, frames = _frames(rendered / "tiny.mp4")
    assert (codec, pix_fmt) == ("h264", "yuv420p")
    data = (rendered / "tiny.mp4").read_bytes()
    assert 0 < data.find(b"moov") < data.find(b"mdat"), "moov box must precede mdat (fast start)"
    # TinyScene plays 1 s + 1 s and waits 1 s: 3 s at 15 fps = 45 frames.
    assert len(frames) == 45


def test_webm_is_vp9_with_the_same_frames(rendered):
    codec, pix_fmt, frames = _frames(rendered / "tiny.webm")
    assert (codec, pix_fmt) == ("vp9", "yuv420p")
    _, _, mp4_frames = _frames(rendered / "tiny.mp4")
    assert len(frames) == len(mp4_frames)
    # Same picture (up to lossy coding): compare the last frames.
    diff = np.abs(frames[-1][1].astype(int) - mp4_frames[-1][1].astype(int)).mean()
    assert diff < 4
    # No bigger than the mp4 it comes from, and as faithful: PSNR over all frames.
    assert (rendered / "tiny.webm").stat().st_size <= (rendered / "tiny.mp4").stat().st_size
    mse = np.mean([np.mean((a.astype(float) - b.astype(float)) ** 2) for (_, a), (_, b) in zip(frames, mp4_frames)])
    assert 10 * np.log10(255 ** 2 / mse) > 40


def test_gif_is_at_most_30_fps_and_small(rendered):
    path = rendered / "tiny.gif"
    _, _, frames = _frames(path)
    times = [t for t, _ in frames]
    delays = np.diff(times)
    assert len(frames) == 45  # 15 fps source: every frame kept
    assert delays.min() > 0.010 + 1e-9, "browsers slow down gifs with delays of 10 ms or less"
    assert len(frames) / (times[-1] + delays[-1]) <= GIF_MAX_FPS
    assert abs(times[-1] - 44 / 15) < 0.02  # the clip keeps its length
    with Image.open(path) as im:
        assert im.size[0] <= 640 and im.info.get("loop") == 0
    assert path.stat().st_size < 200_000


@pytest.mark.parametrize("fps,n", [(60, 120), (30, 90), (15, 33), (24, 48)])
def test_gif_schedule(fps, n):
    step, delays = gif_schedule(fps, n)
    # 60 fps keeps every 2nd frame (30 fps); 30, 24 and 15 fps keep every frame.
    assert step == {60: 2, 30: 1, 15: 1, 24: 1}[fps]
    assert len(delays) == -(-n // step)
    assert all(d % 10 == 0 and d >= 20 for d in delays)  # whole centiseconds, never <= 10 ms
    assert abs(sum(delays) - 1000 * n / fps) <= 10  # total length kept to 1 cs


def _changed(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels that differ clearly (beyond video coding noise)."""
    return float((np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 48).mean())


def test_png_is_last_frame_or_the_scenes_poster(rendered):
    _, _, frames = _frames(rendered / "tiny.mp4")
    last = np.asarray(Image.open(rendered / "tiny.png").convert("RGB"))
    assert last.shape == (480, 854, 3)
    assert _changed(last, frames[-1][1]) < 0.002
    poster = np.asarray(Image.open(rendered / "tiny_poster.png").convert("RGB"))
    # poster_time = 0.2 s: the frame at 0.2 s, not the last one (the column is not there yet).
    at = min(frames, key=lambda f: abs(f[0] - 0.2))[1]
    assert _changed(poster, at) < 0.002
    assert _changed(poster, frames[-1][1]) > 0.01


# -- cache ---------------------------------------------------------------------

def test_cache_hits_and_misses(tmp_path, monkeypatch):
    ids = ["tiny", "latex_0"]  # tiny shows sizes + encoder.context; latex_0 only sizes
    summary, _ = _run(tmp_path, ids)
    assert _status(summary) == {"tiny": "rendered", "latex_0": "rendered"}, summary.line()
    first = (tmp_path / "tiny.png").read_bytes()

    start = time.monotonic()
    summary, lines = _run(tmp_path, ids)
    assert _status(summary) == {"tiny": "cached", "latex_0": "cached"}
    assert time.monotonic() - start < 1.0 * len(ids)
    assert any("up to date" in line for line in lines)

    # A section no scene here shows (the target sentence): still a hit.
    summary, _ = _run(tmp_path, ids, data=varied(sentences={"target": "La croissance ralentit"}))
    assert _status(summary) == {"tiny": "cached", "latex_0": "cached"}

    # Another seed changes h_T (shown by tiny) but not the sizes (all latex_0 shows).
    summary, _ = _run(tmp_path, ids, data=varied(seed=7))
    assert _status(summary) == {"tiny": "rendered", "latex_0": "cached"}
    assert (tmp_path / "tiny.png").read_bytes() != first
    summary, _ = _run(tmp_path, ids, data=varied(seed=7))
    assert _status(summary) == {"tiny": "cached", "latex_0": "cached"}

    # Theme, quality and scene code are part of the key.
    summary, lines = _run(tmp_path, ["tiny"], data=varied(seed=7), theme="light")
    assert _status(summary) == {"tiny": "rendered"}
    # Same file name in both themes: the replacement is announced, once.
    notes = [line for line in lines if line.startswith("note: replacing tiny.png")]
    assert len(notes) == 1 and "light" in notes[0] and "--out" in notes[0], lines
    light = np.asarray(Image.open(tmp_path / "tiny.png").convert("RGB"))
    assert tuple(light[2, 2]) == tuple(int(LIGHT.background[i:i + 2], 16) for i in (1, 3, 5))
    summary, lines = _run(tmp_path, ["tiny"], data=varied(seed=7), theme="light", quality="medium")
    assert _status(summary) == {"tiny": "rendered"}
    assert not any(line.startswith("note:") for line in lines)  # same theme: nothing to say
    assert Image.open(tmp_path / "tiny.png").size == (1280, 720)

    real_hash = cache.code_hash
    monkeypatch.setattr(cache, "code_hash", lambda cls: real_hash(cls) + "-edited")
    summary, _ = _run(tmp_path, ["tiny"], data=varied(seed=7), theme="light", quality="medium")
    assert _status(summary) == {"tiny": "rendered"}
    monkeypatch.setattr(cache, "code_hash", real_hash)

    # A replaced output file no longer matches its record; --force re-renders anyway.
    summary, _ = _run(tmp_path, ["latex_0"], data=varied(seed=7), force=True)
    assert _status(summary) == {"latex_0": "rendered"}
    (tmp_path / "latex_0.png").write_bytes(b"not the rendered file")
    summary, _ = _run(tmp_path, ["latex_0"], data=varied(seed=7))
    assert _status(summary) == {"latex_0": "rendered"}


def test_new_formats_are_derived_from_the_current_mp4_without_rendering(tmp_path):
    summary, _ = _run(tmp_path, ["tiny"], ("mp4",))
    assert _status(summary) == {"tiny": "rendered"}
    mp4 = (tmp_path / "tiny.mp4").read_bytes()
    plays = TinyScene.plays
    summary, lines = _run(tmp_path, ["tiny"], ("mp4", "gif"))
    assert _status(summary) == {"tiny": "rendered"} and summary.results[0].formats == ("gif",)
    assert TinyScene.plays == plays  # the scene did not run again
    assert any("deriving from the current mp4" in line for line in lines)
    assert (tmp_path / "tiny.mp4").read_bytes() == mp4
    _, _, frames = _frames(tmp_path / "tiny.gif")
    assert len(frames) == 45
    summary, _ = _run(tmp_path, ["tiny"], ("mp4", "gif"))
    assert _status(summary) == {"tiny": "cached"}


def test_code_files_cover_the_scene_module_and_its_scene_imports():
    names = {p.name for p in cache.code_files(TinyScene)}
    # The test scene's module, and base/components/theme through its imports.
    assert {"render_scenes.py", "base.py", "components.py", "theme.py", "formatting.py"} <= names
    from scenes import SCENES

    enc = {p.name for p in cache.code_files(SCENES["encoder"])}
    assert {"encoder.py", "base.py", "components.py", "theme.py"} <= enc
    assert "render_scenes.py" not in enc


def test_cache_key_hashes_exactly_the_declared_sections():
    base = trace_from(varied()).to_dict()
    other = trace_from(varied(sentences={"target": "Autre phrase"})).to_dict()
    assert cache.sections_hash(TinyScene, base) == cache.sections_hash(TinyScene, other)
    assert base["target"] != other["target"]
    changed = json.loads(json.dumps(base))
    changed["encoder"]["context"][0] += 0.01
    assert cache.sections_hash(TinyScene, base) != cache.sections_hash(TinyScene, changed)
    changed = json.loads(json.dumps(base))
    changed["encoder"]["hidden"][0][0] += 0.01  # encoder.hidden is not shown by tiny
    assert cache.sections_hash(TinyScene, base) == cache.sections_hash(TinyScene, changed)


# -- atomic writes and failures --------------------------------------------------

class _FailingTiny(BrokenScene):
    scene_id = "tiny"


def test_failing_scene_keeps_the_good_file_and_others_render(tmp_path):
    summary, _ = _run(tmp_path, ["tiny"], ("mp4", "png"))
    good = {f: (tmp_path / f"tiny.{f}").read_bytes() for f in ("mp4", "png")}
    registry = {"tiny": _FailingTiny, "latex_0": LatexScene0}
    summary, lines = _run(tmp_path, ["tiny", "latex_0"], ("mp4", "png"), force=True, registry=registry)
    assert _status(summary) == {"tiny": "failed", "latex_0": "rendered"}
    assert "tiny" in summary.line() and "scene bug for the test" in summary.line()
    assert any("FAILED" in line and "tiny" in line for line in lines)
    for f, data in good.items():
        assert (tmp_path / f"tiny.{f}").read_bytes() == data
    assert not list(tmp_path.glob(".rendering-*"))


def _cli_subprocess(out: Path, env_extra: dict[str, str], *args: str, group: bool = False) -> subprocess.Popen:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); del sys.argv[1]; "
            "from tests import render_scenes; render_scenes.register(); import render; render.main()")
    env = {**os.environ, **env_extra}
    return subprocess.Popen([PY, "-c", code, str(ROOT), "render", *args, "--out", str(out)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=group)


def _wait_for_work_dir(out: Path, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if list(out.glob(".rendering-*/videos")) or list(out.glob(".rendering-*/*")):
            time.sleep(1.0)  # well into the render
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the render never started")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["sigint", "sigkill"])
def test_interrupted_render_keeps_the_earlier_file(rendered, tmp_path, sig):
    for f in ("mp4", "png"):
        (tmp_path / f"tiny.{f}").write_bytes((rendered / f"tiny.{f}").read_bytes())
    before = {f: (tmp_path / f"tiny.{f}").read_bytes() for f in ("mp4", "png")}
    proc = _cli_subprocess(tmp_path, {"RENDER_TEST_SLOW": "60"}, "tiny", "--format", "mp4,png",
                           "--force", "--jobs", "1")
    _wait_for_work_dir(tmp_path, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    for f, data in before.items():
        assert (tmp_path / f"tiny.{f}").read_bytes() == data
    assert not list(tmp_path.glob("tiny.*.part")) and not list(tmp_path.glob("*.tmp"))
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
        assert not list(tmp_path.glob(".rendering-*"))
    else:
        assert proc.returncode == -signal.SIGKILL
    # The next run cleans up what the killed one left and renders what is missing.
    summary, _ = _run(tmp_path, ["tiny"], ("mp4", "png"))
    assert _status(summary) == {"tiny": "rendered"}
    assert not list(tmp_path.glob(".rendering-*"))


def test_ctrl_c_stops_a_parallel_render_cleanly(rendered, tmp_path):
    (tmp_path / "tiny.mp4").write_bytes((rendered / "tiny.mp4").read_bytes())
    before = (tmp_path / "tiny.mp4").read_bytes()
    proc = _cli_subprocess(tmp_path, {"RENDER_TEST_SLOW": "60"}, "tiny", "tiny_poster", "--format", "mp4",
                           "--force", "--jobs", "2", group=True)
    deadline = time.monotonic() + 90
    while len(list(tmp_path.glob(".rendering-*"))) < 2 and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the parent and both workers
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    assert (tmp_path / "tiny.mp4").read_bytes() == before
    assert not (tmp_path / "tiny_poster.mp4").exists()
    assert not list(tmp_path.glob(".rendering-*"))


# -- parallel jobs ----------------------------------------------------------------

def test_parallel_latex_scenes_do_not_break_each_other(tmp_path, monkeypatch):
    # Fresh formulas, so every worker really runs LaTeX (its folder is cleaned
    # after each compile: a shared folder made such runs fail).
    monkeypatch.setenv("RENDER_TEST_NONCE", f"{os.getpid()}{time.time_ns() % 10**6}")
    ids = ["latex_0", "latex_1", "latex_2", "latex_3"]
    summary, _ = _run(tmp_path, ids, jobs=2)
    assert _status(summary) == dict.fromkeys(ids, "rendered"), summary.line()
    images = {(tmp_path / f"{i}.png").read_bytes() for i in ids}
    assert len(images) == 4


# -- gallery -----------------------------------------------------------------------

_CHECK = """
<script>
(async () => {
  const srcs = [...document.querySelectorAll('video source')].map(s => s.getAttribute('src'));
  const probe = src => new Promise(done => {
    const v = document.createElement('video');
    v.preload = 'auto'; v.muted = true;
    const finish = () => done({src, ready: v.readyState, duration: v.duration,
                               error: v.error ? v.error.code : null});
    v.addEventListener('loadeddata', finish); v.addEventListener('error', finish);
    v.src = src; document.body.appendChild(v);
  });
  const own = [...document.querySelectorAll('video')];
  const results = [];
  for (const src of srcs) results.push(await probe(src));
  // Every svg still decodes; every captions track loads its cues.
  const images = [...document.querySelectorAll('img')].map(img => ({
    src: img.getAttribute('src'), width: img.naturalWidth, height: img.naturalHeight}));
  const tracks = [];
  for (const t of document.querySelectorAll('video track')) {
    t.track.mode = 'hidden';
    if (t.readyState < 2) await new Promise(done => {
      t.addEventListener('load', done); t.addEventListener('error', done); setTimeout(done, 5000);
    });
    tracks.push({src: t.getAttribute('src'), ready: t.readyState,
                 cues: t.track.cues ? t.track.cues.length : -1});
  }
  const out = document.createElement('pre');
  out.id = 'results';
  out.textContent = JSON.stringify({videos: own.length, results, images, tracks});
  document.body.appendChild(out);
})();
</script>
"""


def chromium_check(folder: Path, page: str) -> dict:
    """Open ``page`` (HTML of ``folder``) in headless Chromium over local HTTP; return what _CHECK found.

    Served over http://127.0.0.1, as a site would serve it: browsers refuse
    caption tracks from file:// pages (no origin to check them against).
    """
    import functools
    import http.server
    import threading

    check = folder / "check.html"
    check.write_text(page.replace("</body>", _CHECK + "</body>"))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with tempfile.TemporaryDirectory() as profile:
            result = subprocess.run(
                ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--mute-audio", f"--user-data-dir={profile}", "--virtual-time-budget=20000",
                 "--dump-dom", f"http://127.0.0.1:{server.server_address[1]}/check.html"],
                capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
        server.server_close()
        check.unlink()
    dom = result.stdout
    assert '<pre id="results">' in dom, result.stderr[-2000:]
    return json.loads(dom.split('<pre id="results">')[1].split("</pre>")[0].replace("&quot;", '"'))


def test_gallery_plays_every_clip_in_chromium(rendered, tmp_path):
    page = write_gallery(rendered, render_scenes.registry())
    text = page.read_text()
    assert 'poster="tiny.png"' in text and 'href="tiny.gif"' in text
    assert str(rendered) not in text  # relative links only
    assert "Test scene: the context vector" in text and "encoder.context" in text
    found = chromium_check(rendered, text)
    assert found["videos"] == 2  # tiny and tiny_poster
    assert sorted(r["src"] for r in found["results"]) == sorted(
        f"{s}.{f}" for s in ("tiny", "tiny_poster") for f in ("mp4", "webm"))
    for r in found["results"]:
        assert r["error"] is None and r["ready"] >= 2 and r["duration"] > 1.0, r
    # The svg stills (shown under each clip) load at the frame's size.
    svgs = [i for i in found["images"] if i["src"].endswith(".svg")]
    assert sorted(i["src"] for i in svgs) == ["tiny.svg", "tiny_poster.svg"]
    assert all((i["width"], i["height"]) == (854, 480) for i in svgs), svgs
    # Each clip's captions track loads (readyState 2 = LOADED); tiny shows no sentence, so no cues.
    assert sorted(t["src"] for t in found["tracks"]) == ["tiny.vtt", "tiny_poster.vtt"]
    assert all(t["ready"] == 2 and t["cues"] == 0 for t in found["tracks"]), found["tracks"]
