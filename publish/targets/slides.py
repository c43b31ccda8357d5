"""A deck for class (issue 34): one slide per step of each scene, offline, in one folder.

``render.py slides SCENE... --out DECK`` renders the scenes with their steps (``--steps``: each
named section as its own clip, still and captions) into ``DECK/clips/`` through the same pipeline
and cache as ``render``, then writes ``DECK/index.html``: a title slide, then one slide per step
(a scene without named steps is one slide). A slide's clip plays from its start when the slide is
shown and stops on its last frame (no loop); the right arrow, space, Page Down or a click go on,
the left arrow or Page Up go back, Home and End jump, ``N`` shows the speaker notes (the step's
captions), ``F`` goes fullscreen. The slide's number is kept in the address (``#3``), so a reload
stays on it.

Everything is in DECK: the page, its style and its script inline, the clips beside it; nothing is
fetched from another host. reveal.js is not used: it would need Node.js and npm on the author's
machine (not installed by ``scripts/setup.sh``) for what about eighty lines of script do here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Slide", "deck_slides", "deck_html", "write_deck", "vtt_text", "step_title"]

#: Where the clips go inside the deck.
CLIPS = "clips"


@dataclass(frozen=True)
class Slide:
    """One slide: the scene it belongs to, its title, its clip (relative to the deck) and poster,
    and the speaker notes (the step's captions, in order)."""

    scene_id: str
    title: str
    clip: str
    poster: str | None
    notes: tuple[str, ...] = field(default_factory=tuple)
    captions: str | None = None


def vtt_text(path: Path) -> tuple[str, ...]:
    """The cue texts of a WebVTT file, in order, one entry a cue (header, timings and ids dropped)."""
    cues: list[str] = []
    block: list[str] = []
    timed = False
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip():
            if timed and block:
                cues.append(" ".join(block))
            block, timed = [], False
        elif "-->" in line:
            timed = True
        elif timed:
            block.append(line.strip())
    return tuple(dict.fromkeys(cues))  # a cue repeated across a split is one note


def step_title(stem: str) -> str:
    """``03-softmax-of-e`` -> ``Softmax of e``: a step's file name, read back as its title."""
    words = re.sub(r"^\d+-", "", stem).replace("-", " ").strip()
    return words[:1].upper() + words[1:] if words else stem


def deck_slides(deck: Path, scene_ids: list[str], titles: dict[str, str]) -> list[Slide]:
    """The slides of the rendered scenes: each scene's steps (``clips/<id>/<nn>-<step>.mp4``), in
    order, or its whole clip when it names no step. ``titles``: each scene's title."""
    slides: list[Slide] = []
    for scene_id in scene_ids:
        folder = deck / CLIPS / scene_id
        steps = sorted(folder.glob("[0-9][0-9]-*.mp4")) if folder.is_dir() else []
        clips = steps or [deck / CLIPS / f"{scene_id}.mp4"]
        for clip in clips:
            if not clip.is_file():
                continue
            poster = clip.with_suffix(".png")
            vtt = clip.with_suffix(".vtt")
            title = titles.get(scene_id, scene_id) if not steps else step_title(clip.stem)
            slides.append(Slide(scene_id, title, clip.relative_to(deck).as_posix(),
                                poster.relative_to(deck).as_posix() if poster.is_file() else None,
                                vtt_text(vtt) if vtt.is_file() else (),
                                vtt.relative_to(deck).as_posix() if vtt.is_file() else None))
    return slides


_STYLE = """
html,body{margin:0;height:100%;background:#111318;color:#ECEFF4;font-family:"DejaVu Sans",sans-serif}
.slide{display:none;position:absolute;inset:0;flex-direction:column;align-items:center;justify-content:center}
.slide.current{display:flex}
.slide h1{font-size:2.6vw;margin:0 0 1vh}
.slide h2{font-size:1.8vw;margin:0 0 1.2vh;font-weight:normal}
.slide .scene{color:#7B8394;font-size:1.2vw;margin:0 0 0.6vh}
.slide video{max-width:94vw;max-height:80vh;background:#000}
.title p{color:#7B8394;font-size:1.4vw;max-width:60vw;text-align:center}
.notes{display:none;position:fixed;left:0;right:0;bottom:0;max-height:30vh;overflow:auto;
  background:#1D2230ee;color:#ECEFF4;padding:1vh 2vw;font-size:1.2vw;margin:0}
body.show-notes .slide.current .notes{display:block}
.count{position:fixed;right:1.5vw;bottom:1vh;color:#7B8394;font-size:1vw}
"""

# The deck's whole behaviour. A slide shown: its clip from the start, to its last frame (no
# loop); a slide left: its clip paused.
_SCRIPT = """
(function () {
  var slides = Array.prototype.slice.call(document.querySelectorAll('.slide'));
  var count = document.querySelector('.count');
  var current = -1;
  function show(n) {
    n = Math.max(0, Math.min(slides.length - 1, n));
    if (n === current) return;
    if (current >= 0) {
      slides[current].classList.remove('current');
      var old = slides[current].querySelector('video');
      if (old) old.pause();
    }
    current = n;
    slides[n].classList.add('current');
    document.body.dataset.slide = String(n);
    count.textContent = (n + 1) + ' / ' + slides.length;
    history.replaceState(null, '', '#' + (n + 1));
    var video = slides[n].querySelector('video');
    if (video) {
      video.currentTime = 0;
      var playing = video.play();
      if (playing && playing.catch) playing.catch(function () {});
    }
  }
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowRight' || e.key === 'PageDown' || e.key === ' ') { show(current + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' || e.key === 'PageUp') { show(current - 1); e.preventDefault(); }
    else if (e.key === 'Home') show(0);
    else if (e.key === 'End') show(slides.length - 1);
    else if (e.key === 'n' || e.key === 'N') document.body.classList.toggle('show-notes');
    else if ((e.key === 'f' || e.key === 'F') && document.documentElement.requestFullscreen) {
      document.documentElement.requestFullscreen();
    }
  });
  document.addEventListener('click', function (e) {
    if (e.target.closest('video')) return;  // the clip's own controls
    show(current + 1);
  });
  var start = parseInt((location.hash || '#1').slice(1), 10);
  show(isNaN(start) ? 0 : start - 1);
})();
"""


def deck_html(title: str, subtitle: str, slides: list[Slide]) -> str:
    """The deck's page: a title slide, then ``slides``; style and script inline."""
    e = html.escape
    parts = [f'<section class="slide title"><h1>{e(title)}</h1><p>{e(subtitle)}</p>'
             '<p>&rarr; or click: next &middot; &larr;: back &middot; N: notes &middot; F: fullscreen</p></section>']
    for k, slide in enumerate(slides, start=1):
        poster = f' poster="{e(slide.poster)}"' if slide.poster else ""
        track = (f'<track kind="captions" srclang="en" label="Captions" src="{e(slide.captions)}">'
                 if slide.captions else "")
        notes = "".join(f"<li>{e(n)}</li>" for n in slide.notes) or "<li>(no captions)</li>"
        parts.append(
            f'<section class="slide" data-scene="{e(slide.scene_id)}" data-step="{k}">'
            f'<p class="scene">{e(slide.scene_id)}</p><h2>{e(slide.title)}</h2>'
            f'<video src="{e(slide.clip)}"{poster} preload="auto" playsinline muted controls>{track}</video>'
            f'<aside class="notes"><ul>{notes}</ul></aside></section>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>"
            + "".join(parts) + '<div class="count"></div>'
            f"<script>{_SCRIPT}</script></body></html>\n")


def write_deck(deck: Path, scene_ids: list[str], titles: dict[str, str], title: str, subtitle: str) -> list[Slide]:
    """Write ``deck/index.html`` for the rendered scenes (under a temporary name, then moved into
    place); returns the slides."""
    import os
    import tempfile

    from publish.post.manifest import public_mode

    slides = deck_slides(deck, scene_ids, titles)
    page = deck_html(title, subtitle, slides)
    fd, tmp = tempfile.mkstemp(dir=deck, prefix=".index-", suffix=".html")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        public_mode(tmp)  # 0644 under the umask: mkstemp makes 0600, and a web server must read it
        os.replace(tmp, deck / "index.html")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return slides
