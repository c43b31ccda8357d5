"""The deck for class (``render.py slides``, issue 34): its parts worked by hand, then a real deck of
the small test scenes stepped through in headless Chromium: one slide per step, the right arrow
goes on, the shown slide's clip plays (once: no loop) and the one left is paused."""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from publish.targets.slides import Slide, deck_html, deck_slides, step_title, vtt_text

from .test_post import _chromium

ROOT = Path(__file__).resolve().parent.parent


def test_vtt_text_reads_the_cues_in_order_without_timings(tmp_path):
    vtt = tmp_path / "a.vtt"
    vtt.write_text("WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\nThe movie and the user,\none value per feature\n\n"
                   "2\n00:00:01.500 --> 00:00:03.000\nTheir products add up\n\n"
                   "3\n00:00:03.000 --> 00:00:04.000\nTheir products add up\n", encoding="utf-8")
    assert vtt_text(vtt) == ("The movie and the user, one value per feature", "Their products add up")


@pytest.mark.parametrize("stem, title", [("03-step-3-softmax", "Step 3 softmax"), ("01-final-softmax", "Final softmax"),
                                         ("12-x", "X")])
def test_step_title_reads_the_file_name_back(stem, title):
    assert step_title(stem) == title


def test_deck_slides_follow_the_scenes_and_their_steps_in_order(tmp_path):
    clips = tmp_path / "clips"
    (clips / "b").mkdir(parents=True)
    for name in ("02-scores.mp4", "01-variables.mp4", "01-variables.png", "02-scores.vtt"):
        (clips / "b" / name).write_bytes(b"x")
    (clips / "b" / "02-scores.vtt").write_text("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\ne = s . x\n", encoding="utf-8")
    (clips / "a.mp4").write_bytes(b"x")  # a scene without steps: its whole clip
    slides = deck_slides(tmp_path, ["a", "b"], {"a": "Scene A", "b": "Scene B"})
    assert [(s.scene_id, s.title, s.clip, s.poster, s.notes) for s in slides] == [
        ("a", "Scene A", "clips/a.mp4", None, ()),
        ("b", "Variables", "clips/b/01-variables.mp4", "clips/b/01-variables.png", ()),
        ("b", "Scores", "clips/b/02-scores.mp4", None, ("e = s . x",)),
    ]


def test_the_deck_escapes_what_it_is_given():
    page = deck_html("<script>x</script>", "a & b", [Slide("s", "<b>t</b>", "clips/s.mp4", None, ("<i>note</i>",))])
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "&lt;b&gt;t&lt;/b&gt;" in page and "&lt;i&gt;note&lt;/i&gt;" in page and "a &amp; b" in page
    assert " loop" not in page  # a step's clip stops on its last frame
    assert "://" not in page    # nothing from another host


_CHECK = """
<script>
(async function () {
  const wait = ms => new Promise(r => setTimeout(r, ms));
  const out = {slides: document.querySelectorAll('.slide').length, steps: []};
  const key = k => document.dispatchEvent(new KeyboardEvent('keydown', {key: k}));
  for (let i = 0; i < 3; i++) {
    key('ArrowRight');
    await wait(200);
    const shown = document.querySelector('.slide.current');
    const video = shown.querySelector('video');
    // Playing: the 'playing' event (playback has started from the slide's start). Not waited to
    // its end: headless Chromium's virtual clock and the media clock do not keep step.
    await new Promise(r => { if (!video.paused && video.readyState >= 3) r(); video.addEventListener('playing', r);
                              setTimeout(r, 20000); });
    const others = [...document.querySelectorAll('.slide:not(.current) video')];
    out.steps.push({index: document.body.dataset.slide, scene: shown.dataset.scene, title: shown.querySelector('h2').textContent,
                    playing: !video.paused, error: video.error ? video.error.code : null, loop: video.loop,
                    hash: location.hash, notes: shown.querySelectorAll('.notes li').length,
                    othersPlaying: others.filter(v => !v.paused).length});
  }
  key('ArrowLeft');
  await wait(200);
  out.back = document.body.dataset.slide;
  const pre = document.createElement('pre'); pre.id = 'results'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.mark.render
def test_a_deck_steps_through_in_chromium(tmp_path):
    deck = tmp_path / "deck"
    code = ("import sys; sys.path.insert(0, sys.argv[1]); del sys.argv[1]; "
            "from tests import render_scenes; render_scenes.register(); import render; render.main()")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT), "slides", "tiny_steps", "tiny", "--quality", "low",
                           "--jobs", "1", "--out", str(deck)], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "RENDER_TEST_NONCE": "deck"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(3 slides after the title)" in done.stderr  # two steps of tiny_steps, tiny's whole clip
    page = (deck / "index.html").read_text(encoding="utf-8")
    assert oct((deck / "index.html").stat().st_mode & 0o777) == oct(0o644 & ~_umask())
    check = deck / "check.html"
    check.write_text(page.replace("</body>", _CHECK + "</body>"), encoding="utf-8")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(deck)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = _chromium(f"http://127.0.0.1:{server.server_address[1]}/check.html", "--virtual-time-budget=60000",
                           "--autoplay-policy=no-user-gesture-required", "--dump-dom")
    finally:
        server.shutdown()
        server.server_close()
    assert '<pre id="results">' in result.stdout, result.stderr[-2000:]
    found = json.loads(result.stdout.split('<pre id="results">')[1].split("</pre>")[0].replace("&quot;", '"'))
    assert found["slides"] == 4  # the title slide and three
    steps = found["steps"]
    assert [(s["index"], s["scene"], s["title"], s["hash"]) for s in steps] == [
        ("1", "tiny_steps", "Show the vector", "#2"), ("2", "tiny_steps", "Final softmax", "#3"),
        ("3", "tiny", "Test scene", "#4")]
    for s in steps:  # the shown slide's clip plays, once (no loop: it rests on its last frame), and only it
        assert s["playing"] and s["error"] is None and not s["loop"] and s["othersPlaying"] == 0, steps
    assert steps[0]["notes"] >= 1  # the step's captions as speaker notes
    assert found["back"] == "2"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
