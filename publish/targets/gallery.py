"""``OUT/index.html``: every rendered clip of the folder on one page.

Links are relative, so the folder can be copied into a site as it is. For
each scene with a file in the folder (named by its id or by the draft's
name): the video (mp4 and/or webm sources, png poster, captions track,
controls) in a figure whose caption and alt text are the scene's
description, the svg still, links to every file, a copy-paste embed snippet,
the scene's steps (stills with links to their clips) and the tables of the
numbers it was rendered from (the snapshot written next to the cache
records). Manim-free.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import quote

from publish.rendering.cache import CACHE_DIR, atomic_write_text
from publish.rendering.names import draft_name
from publish.rendering.render_setup import FORMATS
from publish.tables import to_html

__all__ = ["write_gallery", "gallery_html", "embed_snippet"]

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       background: #f7f7f9; color: #1b1f27; }
section { background: #fff; border-radius: 8px; padding: 1rem 1.5rem; margin-bottom: 2rem;
          box-shadow: 0 1px 3px rgba(0,0,0,.12); }
video, img.still { width: 100%; height: auto; border-radius: 4px; background: #111318; }
table { border-collapse: collapse; margin: .5rem 1rem .5rem 0; display: inline-table; font-size: .85rem; }
caption { font-weight: 600; text-align: left; }
td, th { border: 1px solid #d0d4dc; padding: .15rem .45rem; text-align: right;
         font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
details { margin-top: .5rem; }
figure { margin: 0; }
figcaption { font-size: .9rem; color: #4a5160; margin-top: .3rem; }
.steps { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: 1rem; }
.steps img { width: 100%; height: auto; border: 1px solid #d0d4dc; border-radius: 4px; }
pre { white-space: pre-wrap; word-break: break-all; background: #f0f1f4; padding: .5rem; font-size: .8rem; }
"""


def _href(name: str) -> str:
    return html.escape(quote(name))


_STEP_NAME = re.compile(r"^(\d\d)-(.+)$")


def _stem(out_dir: Path, scene_id: str) -> str:
    """The name the scene's files have here: its id or its draft name (the newer if both)."""
    candidates = [scene_id] + ([draft_name(scene_id)] if draft_name(scene_id) else [])
    found = [(max((out_dir / f"{c}.{f}").stat().st_mtime for f in FORMATS
                  if (out_dir / f"{c}.{f}").is_file()), c)
             for c in candidates if any((out_dir / f"{c}.{f}").is_file() for f in FORMATS)]
    return max(found)[1] if found else scene_id


def _video_tag(files: dict[str, str], label: str, attributes: str) -> str:
    poster = f' poster="{_href(files["png"])}"' if "png" in files else ""
    parts = [f'<video {attributes}{poster} aria-label="{html.escape(label)}">']
    # H.264 first: every current browser plays it; VP9 is the fallback.
    if "mp4" in files:
        parts.append(f'<source src="{_href(files["mp4"])}" type="video/mp4">')
    if "webm" in files:
        parts.append(f'<source src="{_href(files["webm"])}" type="video/webm">')
    if "vtt" in files:
        parts.append(f'<track kind="captions" src="{_href(files["vtt"])}" srclang="en" label="English" default>')
    parts.append("</video>")
    return "".join(parts)


def embed_snippet(files: dict[str, str], description: str) -> str:
    """The HTML a post pastes to show a clip: the reader's to play, pause, scrub, enlarge and caption.

    Nothing plays until asked (WCAG 2.2.2; a reader who prefers reduced motion sees the poster)
    and nothing of the clip is fetched before that (``preload="none"``): a page of many clips
    opens light."""
    return _video_tag(files, description, 'controls preload="none" playsinline')


def _steps_html(out_dir: Path, stem: str) -> str:
    folder = out_dir / stem
    if not folder.is_dir():
        return ""
    steps: dict[str, dict[str, str]] = {}
    for path in sorted(folder.iterdir()):
        if _STEP_NAME.match(path.stem) and path.suffix[1:] in FORMATS:
            steps.setdefault(path.stem, {})[path.suffix[1:]] = f"{stem}/{path.name}"
    if not steps:
        return ""
    parts = ['<div class="steps">']
    for name, files in steps.items():
        number, slug = _STEP_NAME.match(name).groups()
        title = f"Step {int(number)}: {slug.replace('-', ' ')}"
        image = files.get("svg") or files.get("png")
        parts.append('<figure class="step">')
        if image:
            parts.append(f'<img src="{_href(image)}" alt="{html.escape(title)}" loading="lazy">')
        links = " &middot; ".join(f'<a href="{_href(n)}">{fmt}</a>' for fmt, n in files.items())
        parts.append(f"<figcaption>{html.escape(title)} ({links})</figcaption></figure>")
    parts.append("</div>")
    return "\n".join(parts)


def gallery_html(out_dir: Path, registry: dict[str, type]) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>Attention walkthrough: rendered clips</title>", f"<style>{_STYLE}</style>",
             "</head>", "<body>", "<h1>Attention walkthrough: rendered clips</h1>"]
    shown = 0
    for scene_id, cls in registry.items():
        stem = _stem(out_dir, scene_id)
        files = {fmt: f"{stem}.{fmt}" for fmt in FORMATS if (out_dir / f"{stem}.{fmt}").is_file()}
        steps = _steps_html(out_dir, stem)
        if not files and not steps:
            continue
        shown += 1
        description = cls.description
        tables = ""
        snapshot = out_dir / CACHE_DIR / f"{scene_id}.numbers.json"
        try:
            data = json.loads(snapshot.read_text(encoding="utf-8"))
            description = data.get("description", description)
            tables = to_html(data["sections"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        alt = html.escape(description)
        parts.append(f'<section id="{html.escape(scene_id)}">')
        parts.append(f"<h2>{html.escape(scene_id)}" + (f" <small>({html.escape(stem)})</small>" if stem != scene_id
                                                        else "") + "</h2>")
        parts.append("<figure>")
        if "mp4" in files or "webm" in files:
            parts.append(_video_tag(files, description, 'controls preload="none" playsinline'))
        else:
            # No clip: the first still there is, the animated gif before the vector and raster stills.
            still = next((files[f] for f in ("gif", "svg", "png") if f in files), None)
            if still is not None:
                parts.append(f'<img class="still" src="{_href(still)}" alt="{alt}">')
        parts.append(f"<figcaption>{alt}</figcaption>")
        parts.append("</figure>")
        if "svg" in files and ("mp4" in files or "webm" in files or "gif" in files):
            parts.append(f'<details><summary>Vector still (svg)</summary><img class="still" '
                         f'src="{_href(files["svg"])}" alt="{alt}" loading="lazy"></details>')
        links = [f'<a href="{_href(name)}">{fmt}</a>' for fmt, name in files.items()]
        if links:
            parts.append(f"<p>Files: {' &middot; '.join(links)}</p>")
        if "mp4" in files:
            parts.append("<details><summary>Embed in a post</summary><pre><code>"
                         f"{html.escape(embed_snippet(files, description))}</code></pre></details>")
        if steps:
            parts.append(f"<h3>Steps</h3>\n{steps}")
        if tables:
            parts.append(f"<details><summary>Numbers shown</summary>\n{tables}\n</details>")
        parts.append("</section>")
    if not shown:
        parts.append("<p>No clips rendered yet.</p>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def write_gallery(out_dir: Path, registry: dict[str, type]) -> Path:
    path = out_dir / "index.html"
    atomic_write_text(path, gallery_html(out_dir, registry))
    return path
