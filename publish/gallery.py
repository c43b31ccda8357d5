"""``OUT/index.html``: every rendered clip of the folder on one page.

Links are relative, so the folder can be copied into a site as it is. For
each scene with a file in the folder: the video (webm and/or mp4 sources,
png poster, controls), links to the gif and the still, the scene's
description and the tables of the numbers it was rendered from (the
snapshot written next to the cache records). Manim-free.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import quote

from .cache import CACHE_DIR, atomic_write_text
from .tables import to_html

__all__ = ["write_gallery", "gallery_html"]

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
"""


def _href(name: str) -> str:
    return html.escape(quote(name))


def gallery_html(out_dir: Path, registry: dict[str, type]) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>Attention walkthrough: rendered clips</title>", f"<style>{_STYLE}</style>",
             "</head>", "<body>", "<h1>Attention walkthrough: rendered clips</h1>"]
    shown = 0
    for scene_id, cls in registry.items():
        files = {fmt: f"{scene_id}.{fmt}" for fmt in ("mp4", "webm", "gif", "png")
                 if (out_dir / f"{scene_id}.{fmt}").is_file()}
        if not files:
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
        parts.append(f'<section id="{html.escape(scene_id)}">')
        parts.append(f"<h2>{html.escape(scene_id)}</h2>")
        parts.append(f"<p>{html.escape(description)}</p>")
        if "mp4" in files or "webm" in files:
            poster = f' poster="{_href(files["png"])}"' if "png" in files else ""
            parts.append(f'<video controls preload="metadata" playsinline{poster}>')
            # H.264 first: every current browser plays it; VP9 is the fallback.
            if "mp4" in files:
                parts.append(f'<source src="{_href(files["mp4"])}" type="video/mp4">')
            if "webm" in files:
                parts.append(f'<source src="{_href(files["webm"])}" type="video/webm">')
            parts.append("</video>")
        elif "gif" in files:
            parts.append(f'<img class="still" src="{_href(files["gif"])}" alt="{html.escape(scene_id)}">')
        elif "png" in files:
            parts.append(f'<img class="still" src="{_href(files["png"])}" alt="{html.escape(scene_id)}">')
        links = [f'<a href="{_href(name)}">{fmt}</a>' for fmt, name in files.items()]
        parts.append(f"<p>Files: {' &middot; '.join(links)}</p>")
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
