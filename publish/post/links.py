"""The link table: which of a draft's links become which of our clips, stills, steps or formulas.

It is data the author edits (TOML), not code. The shipped table
(``publish/post/links.toml``) covers the walkthrough's drafts (seeds 000 and
001); ``render.py post --links FILE`` reads another, a ``post.toml`` beside
the draft is read when no ``--links`` is given, and a TOML front matter in
the draft (between ``+++`` lines, or ``---`` lines) adds entries that come
first. Two kinds of entry::

    [[link]]                       # a link or image of the draft
    match = "encoder.mp4"          # a file name (the link's last path part) or a whole URL
    scene = "encoder"              # a scene id (render.py list)
    show = "clip"                  # clip | still | step | step-clip | math | none (default: clip for a video,
                                   # else still; none: the picture is left out, e.g. a figure shown already)
    step = 2                       # show = "step" (its still) or "step-clip" (its part of the clip): by number or name
    at = 8.5                       # show = "still": the clip's frame at this second (default: its poster)
    occurrence = 2                 # only the draft's 2nd link with this match (default: every one)
    latex = 'c_t = \\sum_j a_{tj} h_j'  # show = "math": typeset instead of a picture
    label = "(2)"                  # show = "math": the equation's number, at its right
    alt = "..."                    # alt text (default: the scene's description)
    caption = "..."                # a caption under the figure or clip (e.g. where the draft's picture came from)
    only_in = "Part 1"             # the entry applies only to a draft whose text contains this

    [[insert]]                     # a scene the draft never linked
    after = "where the weights are learned"  # inserted after the first paragraph containing this
    scene = "attention_learning"
    show = "clip"

    [[edit]]                       # the draft's text, where it no longer matches our figures
    find = "with 85% probability"  # exact text of the draft (lines of it); every occurrence
    replace = "with {{ output_mapping.chosen_probability | percent }} probability"  # placeholders allowed
    only_in = "Part 1"

An edit whose text the draft lacks is reported, never applied elsewhere.

Manim-free: scene ids are checked against a registry given by the caller.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

__all__ = ["LinkTableError", "Entry", "Insert", "Edit", "Citation", "Page", "LinkTable", "load_table",
           "default_table_text", "link_key", "VIDEO_HOSTS", "MEDIA_SUFFIXES", "is_media_link", "SHOWS",
           "parse_table", "table_from_data"]

SHOWS = ("clip", "still", "step", "step-clip", "math", "none")
VIDEO_HOSTS = ("youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be", "vimeo.com", "player.vimeo.com")
MEDIA_SUFFIXES = (".mp4", ".webm", ".mov", ".gif", ".png", ".jpg", ".jpeg", ".svg", ".webp")
_LINK_KEYS = {"match", "scene", "show", "step", "at", "occurrence", "latex", "label", "alt", "caption", "only_in"}
_INSERT_KEYS = {"after", "scene", "show", "step", "at", "alt", "caption", "only_in"}


class LinkTableError(ValueError):
    """A link table that cannot be read or has a bad entry."""


@dataclass(frozen=True)
class Entry:
    """What one link of the draft becomes."""

    match: str
    show: str
    scene: str | None = None
    step: int | str | None = None
    at: float | None = None
    occurrence: int | None = None
    latex: str | None = None
    label: str | None = None
    alt: str | None = None
    caption: str | None = None  # shown under the figure
    only_in: str | None = None  # the entry applies only to a draft containing this text
    source: str = ""  # where the entry was written, for messages


@dataclass(frozen=True)
class Insert:
    """A scene placed after the paragraph that contains ``after``."""

    after: str
    entry: Entry


@dataclass(frozen=True)
class Edit:
    """The draft's text ``find`` written as ``replace`` (which may hold placeholders)."""

    find: str
    replace: str
    only_in: str | None = None
    source: str = ""


_EDIT_KEYS = {"find", "replace", "only_in"}
_CITE_KEYS = {"key", "authors", "title", "year", "link", "venue", "at", "only_in"}
_PAGE_KEYS = {"title", "description", "author", "date", "only_in"}


@dataclass(frozen=True)
class Citation:
    """A work the post cites: ``[@key]`` in the text (or an ``at`` phrase of the draft) becomes ``[n]``.

    ``at``: phrases of the draft; a ``[]`` inside one is the draft's empty reference, which
    becomes this citation; a phrase without ``[]`` gets the citation after it (first occurrence)."""

    key: str
    authors: str
    title: str
    year: int | str
    link: str = ""
    venue: str = ""
    at: tuple[str, ...] = ()
    only_in: str | None = None
    source: str = ""


@dataclass(frozen=True)
class Page:
    """What the page is called when the draft says nothing (no front matter title, no H1)."""

    title: str | None = None
    description: str | None = None
    author: str | None = None
    date: str | None = None
    only_in: str | None = None


def link_key(href: str) -> str:
    """What a link is matched by: a web URL as written (without a trailing slash), else its file name."""
    href = href.strip()
    parsed = urlparse(href)
    if parsed.scheme in ("http", "https"):
        return href.rstrip("/")
    return unquote(parsed.path).rsplit("/", 1)[-1]


def is_media_link(href: str) -> bool:
    """A link that shows a picture or a video (not an ordinary hyperlink to a paper)."""
    parsed = urlparse(href.strip())
    if parsed.netloc.lower() in VIDEO_HOSTS:
        return True
    return unquote(parsed.path).lower().endswith(MEDIA_SUFFIXES)


def _is_video(match: str) -> bool:
    parsed = urlparse(match)
    return parsed.netloc.lower() in VIDEO_HOSTS or match.lower().endswith((".mp4", ".webm", ".mov", ".gif"))


def _entry(raw: Any, where: str, registry: dict[str, type], keys: set[str], match: str) -> Entry:
    if not isinstance(raw, dict):
        raise LinkTableError(f"{where}: expected a table of keys, got {type(raw).__name__}")
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise LinkTableError(f"{where}: unknown key {unknown[0]!r} (valid: {', '.join(sorted(keys))})")
    latex = raw.get("latex")
    show = raw.get("show") or ("math" if latex else ("clip" if _is_video(match) else "still"))
    if show not in SHOWS:
        raise LinkTableError(f"{where}: show = {show!r} (valid: {', '.join(SHOWS)})")
    scene = raw.get("scene")
    if show == "none":  # the draft's picture left out (one figure per idea), listed in the run
        scene = None
    elif show == "math":
        if not isinstance(latex, str) or not latex.strip():
            raise LinkTableError(f"{where}: show = \"math\" needs latex = '...'")
    else:
        if not isinstance(scene, str) or not scene:
            raise LinkTableError(f"{where}: needs scene = \"<scene id>\" (or latex = '...')")
        if scene not in registry:
            raise LinkTableError(f"{where}: unknown scene id {scene!r} (valid: {', '.join(registry)})")
    step = raw.get("step")
    if show in ("step", "step-clip"):
        if not isinstance(step, (int, str)) or isinstance(step, bool) or (isinstance(step, int) and step < 1):
            raise LinkTableError(f"{where}: show = \"{show}\" needs step = <number from 1> or \"<step name>\"")
    elif step is not None:
        raise LinkTableError(f"{where}: step = {step!r} needs show = \"step\"")
    at = raw.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at)
                           or at < 0 or show != "still"):
        raise LinkTableError(f"{where}: at = {at!r} must be a time in seconds (>= 0) of a show = \"still\"")
    occurrence = raw.get("occurrence")
    if occurrence is not None and (isinstance(occurrence, bool) or not isinstance(occurrence, int) or occurrence < 1):
        raise LinkTableError(f"{where}: occurrence = {occurrence!r} must be a whole number from 1")
    for text_key in ("label", "alt", "caption", "only_in"):
        if raw.get(text_key) is not None and not isinstance(raw[text_key], str):
            raise LinkTableError(f"{where}: {text_key} must be a string")
    return Entry(match=match, show=show, scene=scene if show not in ("math", "none") else None, step=step,
                 at=float(at) if at is not None else None, occurrence=occurrence, latex=latex,
                 label=raw.get("label"), alt=raw.get("alt"), caption=raw.get("caption"),
                 only_in=raw.get("only_in"), source=where)


@dataclass
class LinkTable:
    links: list[Entry]
    inserts: list[Insert]
    source: str = ""
    edits: list[Edit] = field(default_factory=list)
    cites: list[Citation] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    _by_key: dict[str, list[Entry]] | None = field(default=None, repr=False, compare=False)
    _indexed: list[Entry] | None = field(default=None, repr=False, compare=False)

    def lookup(self, href: str, occurrence: int) -> Entry | None:
        """The entry for the ``occurrence``-th (1-based) link of the draft to ``href``, if any."""
        if self._by_key is None or self._indexed is not self.links:
            # The entries by key, once: a draft of thousands of links read the whole table for each.
            self._by_key, self._indexed = {}, self.links
            for entry in self.links:
                self._by_key.setdefault(link_key(entry.match), []).append(entry)
        for entry in self._by_key.get(link_key(href), ()):
            if entry.occurrence in (None, occurrence):
                return entry
        return None

    def for_draft(self, text: str) -> "LinkTable":
        """The entries that apply to a draft of this text (``only_in`` absent or found in it)."""
        return LinkTable([e for e in self.links if not e.only_in or e.only_in in text],
                         [i for i in self.inserts if not i.entry.only_in or i.entry.only_in in text], self.source,
                         [e for e in self.edits if not e.only_in or e.only_in in text],
                         [c for c in self.cites if not c.only_in or c.only_in in text],
                         [p for p in self.pages if not p.only_in or p.only_in in text])

    def extended(self, other: "LinkTable") -> "LinkTable":
        """This table's entries first, then ``other``'s."""
        own = {c.key for c in self.cites}
        return LinkTable(self.links + other.links, self.inserts + other.inserts, self.source,
                         self.edits + other.edits, self.cites + [c for c in other.cites if c.key not in own],
                         self.pages + other.pages)


def parse_table(text: str, source: str, registry: dict[str, type]) -> LinkTable:
    """Read a link table from TOML text; :class:`LinkTableError` names the file and entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LinkTableError(f"{source}: not valid TOML ({exc})") from None
    return table_from_data(data, source, registry)


def table_from_data(data: dict[str, Any], source: str, registry: dict[str, type]) -> LinkTable:
    """A link table from its keys (a TOML file's, or a front matter's settings, YAML or TOML)."""
    kinds = ("link", "insert", "edit", "cite", "page")
    unknown = sorted(set(data) - set(kinds))
    if unknown:
        raise LinkTableError(f"{source}: unknown table {unknown[0]!r} (valid: "
                             + ", ".join(f"[[{k}]]" for k in kinds) + ")")
    links, inserts, edits, cites, pages = [], [], [], [], []
    for kind in kinds:
        rows = data.get(kind, [])
        if not isinstance(rows, list):
            raise LinkTableError(f"{source}: {kind} must be written [[{kind}]] (a list of entries)")
        for i, raw in enumerate(rows, start=1):
            where = f"{source}: [[{kind}]] #{i}"
            if kind == "edit":
                edits.append(_edit(raw, where))
            elif kind == "cite":
                cites.append(_cite(raw, where))
            elif kind == "page":
                pages.append(_page(raw, where))
            elif kind == "link":
                match = raw.get("match") if isinstance(raw, dict) else None
                if not isinstance(match, str) or not match.strip():
                    raise LinkTableError(f"{where}: needs match = \"<file name or URL>\"")
                links.append(_entry(raw, f"{where} ({match})", registry, _LINK_KEYS, match.strip()))
            else:
                after = raw.get("after") if isinstance(raw, dict) else None
                if not isinstance(after, str) or not after.strip():
                    raise LinkTableError(f"{where}: needs after = \"<text of the paragraph>\"")
                rest = {k: v for k, v in raw.items() if k != "after"}
                entry = _entry(rest, f"{where} (after {after.strip()[:30]!r})", registry,
                               _INSERT_KEYS - {"after"}, "")
                inserts.append(Insert(after.strip(), entry))
    keys = [(c.key, c.only_in) for c in cites]
    twice = sorted({k for k, o in keys if keys.count((k, o)) > 1})
    if twice:
        raise LinkTableError(f"{source}: [[cite]] key {twice[0]!r} is given twice")
    return LinkTable(links, inserts, source, edits, cites, pages)


def _keys_of(raw: Any, where: str, keys: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise LinkTableError(f"{where}: expected a table of keys, got {type(raw).__name__}")
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise LinkTableError(f"{where}: unknown key {unknown[0]!r} (valid: {', '.join(sorted(keys))})")
    return raw


def _cite(raw: Any, where: str) -> Citation:
    raw = _keys_of(raw, where, _CITE_KEYS)
    for key in ("key", "authors", "title"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise LinkTableError(f"{where}: needs {key} = \"<text>\"")
    year = raw.get("year")
    if isinstance(year, bool) or not isinstance(year, (int, str)) or not str(year).strip():
        raise LinkTableError(f"{where} ({raw['key']}): needs year = <year>")
    for key in ("link", "venue", "only_in"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise LinkTableError(f"{where} ({raw['key']}): {key} must be a string")
    at = raw.get("at", [])
    at = [at] if isinstance(at, str) else at
    if not isinstance(at, list) or not all(isinstance(a, str) and a.strip() and "\n" not in a for a in at):
        raise LinkTableError(f"{where} ({raw['key']}): at must be a phrase of the draft or a list of them")
    return Citation(raw["key"].strip(), raw["authors"].strip(), raw["title"].strip(), year,
                    raw.get("link") or "", raw.get("venue") or "", tuple(at), raw.get("only_in"), where)


def _page(raw: Any, where: str) -> Page:
    raw = _keys_of(raw, where, _PAGE_KEYS)
    for key in _PAGE_KEYS:
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise LinkTableError(f"{where}: {key} must be a string")
    return Page(raw.get("title"), raw.get("description"), raw.get("author"), raw.get("date"), raw.get("only_in"))


def _edit(raw: Any, where: str) -> Edit:
    if not isinstance(raw, dict):
        raise LinkTableError(f"{where}: expected a table of keys, got {type(raw).__name__}")
    unknown = sorted(set(raw) - _EDIT_KEYS)
    if unknown:
        raise LinkTableError(f"{where}: unknown key {unknown[0]!r} (valid: {', '.join(sorted(_EDIT_KEYS))})")
    for key in ("find", "replace"):
        value = raw.get(key)
        if not isinstance(value, str) or (key == "find" and not value.strip()):
            raise LinkTableError(f"{where}: needs {key} = \"<text>\"")
    if raw["replace"].count("\n") > raw["find"].count("\n"):
        # The page's line numbers are the draft's: an edit may shorten the text, never lengthen it.
        raise LinkTableError(f"{where}: replace must not have more lines than find")
    if raw.get("only_in") is not None and not isinstance(raw["only_in"], str):
        raise LinkTableError(f"{where}: only_in must be a string")
    return Edit(raw["find"], raw["replace"], raw.get("only_in"), where)


def default_table_text() -> str:
    """The shipped table (package data)."""
    return resources.files("publish.post").joinpath("links.toml").read_text(encoding="utf-8")


def load_table(path: Path | None, registry: dict[str, type]) -> LinkTable:
    """The table at ``path``, or the shipped one for ``None``."""
    if path is None:
        return parse_table(default_table_text(), "the shipped link table (publish/post/links.toml)", registry)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise LinkTableError(f"links file {path}: cannot read it ({reason})") from None
    return parse_table(text, f"links file {path}", registry)
