"""What must be rebuilt, and why, decided from files alone: no manim, no scene, no numbers computed.

One module answers it for ``render.py render`` (the clips), ``render.py post`` and ``--serve``
(the page), at two depths, from one key of named hashes: the inputs' files, the numbers each output
shows, the options and the versions (:func:`clip_key`, whose names :data:`REASONS` puts in words).

- From files alone (:func:`stale_outputs`, :func:`post_is_current`): no manim, no scene, no numbers
  computed; a match is a sure "current", a mismatch means "ask the full check".
- The full check (:func:`clip_keys`, :func:`why_stale`): the numbers computed, the key compared
  with the record the render cache keeps beside each file (:mod:`publish.rendering.cache` stores
  records; it decides nothing); the pipeline re-renders exactly what this says is stale, and says why.

**Clips.**
Like ``make`` with nothing to do: a run whose inputs are the files of the
last run answers from hashes of files. A scene's file ``<stem>.<fmt>`` is
current when its cache record (:mod:`publish.rendering.cache`) holds the same
*fingerprint* of what it was made from, and the file still has its recorded
bytes. The fingerprint hashes:

- the scene's module and every ``scenes.*`` module it imports (its
  ``trace_sections`` and ``poster_time`` are in that source), plus the files
  that shape every output (:data:`publish.rendering.cache.EXTRA_FILES`);
- every file of ``attention_core`` (the code that computes the numbers and
  the shipped default numbers);
- the bytes of the numbers file given (or none: the defaults);
- quality, format, theme, the output options and the manim version.

It is coarser than the cache key, which hashes the trace sections the scene
shows: any change of the numbers file or the core makes every scene "maybe
stale", and the full check (:func:`publish.rendering.pipeline.run_renders`) then
computes the numbers and re-renders only the scenes whose sections changed,
recording the new fingerprint of the others. So a fingerprint match is a
sure "current"; a mismatch only means "ask the full check".

:func:`stale_outputs` is the public question (``render.py render`` asks it
first; so can ``render.py post``).

**The page.** The last build leaves a stamp, ``SITE/.cache/post.json``,
holding

- a hash of what the page is made from: the draft's bytes, the link table's
  (``--links``, a ``post.toml`` beside the draft, or the shipped table), the
  code of :mod:`publish` (the post, its math and placeholders), every file of
  ``attention_core`` and the numbers file, the quality and the themes;
- the renders the page needs (scene, formats, steps, per theme), asked again
  through :func:`publish.freshness.stale_outputs`, so a changed scene file
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

from publish.rendering import cache
from publish.rendering.names import output_stem

__all__ = ["REASONS", "clip_key", "clip_keys", "why_stale", "core_hash", "numbers_hash", "fingerprint",
           "Fingerprints", "stale_outputs",
           "STAMP", "post_inputs_hash", "write_stamp", "post_is_current"]

CORE = cache.ROOT / "attention_core"

#: What a changed part of the key means, in the reader's words (the full check's "why").
REASONS = {
    "code": "its code changed",
    "numbers": "the numbers it shows changed",
    "poster_time": "its poster frame moved",
    "quality": "another quality",
    "format": "another format",
    "theme": "another theme",
    "manim": "another manim version",
    "scene": "another scene under that name",
}


def clip_key(cls: type, data: dict[str, Any], quality: str, fmt: str, theme: str,
             code: str | None = None, options: dict[str, str] | None = None) -> dict[str, str]:
    """Everything the file ``<scene>.<fmt>`` depends on, as named hashes (see
    :func:`publish.rendering.cache.cache_key`, which computes it)."""
    return cache.cache_key(cls, data, quality, fmt, theme, code, options)


def clip_keys(cls: type, data: dict[str, Any], quality: str, formats: tuple[str, ...], theme: str,
              options: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    """:func:`clip_key` for each format (the scene's code hashed once)."""
    code = cache.code_hash(cls)
    return {f: clip_key(cls, data, quality, f, theme, code, options) for f in formats}


def why_stale(out_dir: Path, stem: str, fmt: str, key: dict[str, str]) -> str | None:
    """``None`` when ``<stem>.<fmt>`` in ``out_dir`` is current for ``key``; else why not, in words.

    Current means: a record holds exactly this key, and the file (and every step file written with
    it) still has its recorded size and SHA-256. A record written before hashes were kept is stale.
    """
    record = cache.read_record(out_dir, stem, fmt)
    if record is None:
        return "not rendered yet"
    old = record.get("key")
    if old != key:
        if not isinstance(old, dict):
            return "its record is unreadable"
        changed = sorted(k for k in set(old) | set(key) if old.get(k) != key.get(k))
        words = [REASONS.get(k, f"option {k} changed") for k in changed]
        return ", ".join(dict.fromkeys(words))
    if not cache.files_as_recorded(out_dir, stem, fmt, record):
        return "its file is missing or changed on disk"
    return None


def core_hash() -> str:
    """Every file of ``attention_core`` (sources, default numbers, sample image), by relative path."""
    h = hashlib.sha256()
    for path in sorted(p for p in CORE.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(CORE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def numbers_hash(numbers: str | Path | None) -> str:
    """The numbers file's bytes (``None``: the shipped defaults, covered by :func:`core_hash`)."""
    if numbers is None:
        return "defaults"
    return hashlib.sha256(Path(numbers).read_bytes()).hexdigest()


def fingerprint(module_hash: str, core: str, numbers: str, scene_id: str, quality: str, fmt: str,
                theme: str, options: dict[str, str]) -> str:
    blob = json.dumps({"code": module_hash, "core": core, "numbers": numbers, "scene": scene_id,
                       "quality": quality, "format": fmt, "theme": theme, "options": options,
                       "manim": cache.manim_version()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class Fingerprints:
    """The fingerprints of one run's inputs, scene by scene (each scene's code hashed once)."""

    def __init__(self, numbers: str | Path | None, quality: str, theme: str, options: dict[str, str]) -> None:
        self.core = core_hash()
        self.numbers = numbers_hash(numbers)
        self.quality, self.theme, self.options = quality, theme, options
        self._code: dict[str, str] = {}

    def __call__(self, scene_id: str, module: str, fmt: str) -> str:
        if module not in self._code:
            self._code[module] = cache.module_code_hash(module)
        return fingerprint(self._code[module], self.core, self.numbers, scene_id, self.quality, fmt,
                           self.theme, self.options)


def stale_outputs(scene_ids: list[str], numbers: str | Path | None, out_dir: Path, quality: str,
                  formats: tuple[str, ...], theme: str, options: dict[str, str],
                  naming: str = "id") -> list[tuple[str, str]] | None:
    """The ``(scene_id, format)`` pairs that may be stale; ``[]`` when every file is current.

    ``None`` when this check cannot tell (a scene not in
    :data:`scenes.SCENE_MODULES`, or a numbers file that cannot be read):
    then run the full check. Reads files only: imports neither manim, nor a
    scene, nor numpy.
    """
    from scenes import SCENE_MODULES

    if any(s not in SCENE_MODULES for s in scene_ids):
        return None
    try:
        prints = Fingerprints(numbers, quality, theme, options)
    except OSError:
        return None
    stale = []
    for scene_id in scene_ids:
        module = SCENE_MODULES[scene_id].partition(":")[0]
        stem = output_stem(scene_id, naming)
        for fmt in formats:
            if not cache.current_for_inputs(out_dir, stem, fmt, prints(scene_id, module, fmt)):
                stale.append((scene_id, fmt))
    return stale


#: Where the stamp lives, under SITE.
STAMP = Path(".cache") / "post.json"
_PUBLISH = Path(__file__).resolve().parent  # the whole publish package: the page is made by its code


def _links_bytes(draft: Path, links: Path | None) -> bytes:
    if links is None and (draft.parent / "post.toml").is_file():
        links = draft.parent / "post.toml"
    if links is None:
        return (_PUBLISH / "post" / "links.toml").read_bytes()
    return Path(links).read_bytes()


def post_inputs_hash(draft: Path, links: Path | None, numbers: str | Path | None, quality: str,
                     themes: tuple[str, ...]) -> str:
    """What the page is made from, as one hash (``OSError`` when a file cannot be read)."""
    h = hashlib.sha256()
    for part in (Path(draft).read_bytes(), _links_bytes(Path(draft), links)):
        h.update(hashlib.sha256(part).digest())
    for path in sorted(p for p in _PUBLISH.rglob("*") if p.suffix in {".py", ".toml", ".css", ".html", ".js"}
                       and "__pycache__" not in p.parts):
        h.update(path.relative_to(_PUBLISH).as_posix().encode() + b"\0" + path.read_bytes())
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
