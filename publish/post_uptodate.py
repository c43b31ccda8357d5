"""Whether ``render.py post`` has anything to do, decided from files alone.

Like :mod:`publish.uptodate` for ``render.py render``: no manim, no scene, no
numbers computed. The last build leaves a stamp, ``SITE/.cache/post.json``,
holding

- a hash of what the page is made from: the draft's bytes, the link table's
  (``--links``, a ``post.toml`` beside the draft, or the shipped table), the
  code of :mod:`publish` (the post, its math and placeholders), every file of
  ``attention_core`` and the numbers file, the quality and the themes;
- the renders the page needs (scene, formats, steps, per theme), asked again
  through :func:`publish.uptodate.stale_outputs`, so a changed scene file
  makes the post stale too;
- the size and modification time of the page and of every figure it shows.

The stamp says "current" only when all three still hold; anything else, a
missing or unreadable stamp included, means "build" (the full build then
decides what to re-render, from the render cache).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from . import cache
from .uptodate import core_hash, numbers_hash, stale_outputs

__all__ = ["STAMP", "post_inputs_hash", "write_stamp", "post_is_current"]

#: Where the stamp lives, under SITE.
STAMP = Path(".cache") / "post.json"
_PUBLISH = Path(__file__).resolve().parent


def _links_bytes(draft: Path, links: Path | None) -> bytes:
    if links is None and (draft.parent / "post.toml").is_file():
        links = draft.parent / "post.toml"
    if links is None:
        return (_PUBLISH / "post_links.toml").read_bytes()
    return Path(links).read_bytes()


def post_inputs_hash(draft: Path, links: Path | None, numbers: str | Path | None, quality: str,
                     themes: tuple[str, ...]) -> str:
    """What the page is made from, as one hash (``OSError`` when a file cannot be read)."""
    h = hashlib.sha256()
    for part in (Path(draft).read_bytes(), _links_bytes(Path(draft), links)):
        h.update(hashlib.sha256(part).digest())
    for path in sorted(_PUBLISH.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    blob = json.dumps({"core": core_hash(), "numbers": numbers_hash(numbers), "quality": quality,
                       "themes": list(themes), "manim": cache.manim_version()}, sort_keys=True)
    h.update(blob.encode())
    return h.hexdigest()


def _file_state(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def write_stamp(site: Path, inputs: str, renders: list[dict[str, Any]], shown: list[str], summary: str) -> None:
    """Record a finished build: ``renders`` as ``{"theme", "scenes", "formats", "steps"}``,
    ``shown`` the files of SITE the page uses (relative paths), ``summary`` its last line."""
    files = {rel: _file_state(site / rel) for rel in ["index.html", *shown] if (site / rel).is_file()}
    cache.atomic_write_text(site / STAMP, json.dumps({"inputs": inputs, "renders": renders, "files": files,
                                                      "summary": summary}))


def post_is_current(draft: Path, site: Path, links: Path | None, numbers: str | Path | None, quality: str,
                    themes: tuple[str, ...]) -> str | None:
    """The last build's summary line when nothing it was made from changed; else ``None``."""
    try:
        stamp = json.loads((site / STAMP).read_text(encoding="utf-8"))
        if stamp.get("inputs") != post_inputs_hash(draft, links, numbers, quality, themes):
            return None
        files = stamp["files"]
        if "index.html" not in files or any(_file_state(site / rel) != state for rel, state in files.items()):
            return None
        for need in stamp["renders"]:
            options = {"steps": str(bool(need["steps"])), "naming": "id", "transparent": "False"}
            if stale_outputs(list(need["scenes"]), numbers, site / "media" / need["theme"], quality,
                             tuple(need["formats"]), need["theme"], options, "id") != []:
                return None
        return str(stamp["summary"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
