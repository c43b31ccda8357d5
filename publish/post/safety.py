"""Checks of ``render.py post``'s inputs that must come before anything renders (issue 33).

Each raises :class:`InputError` with one line naming what is wrong: a file
name too long for the file system, a draft too large, a character the build
keeps for itself (U+2063, the placeholders' marker). Manim-free.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterator

__all__ = ["InputError", "MAX_DRAFT_BYTES", "MAX_BRACKETS", "MAX_DOLLARS", "MAX_EMPHASIS", "MAX_ANGLES",
           "MAX_AMPERSANDS", "MARKUP_LIMITS", "MARKER", "check_input_file",
           "check_draft_size", "check_no_marker", "check_markup_counts", "token_lines", "check_formulas", "check_slot", "check_table_text", "remote_pictures_as_links"]

#: The largest draft a build reads (a book chapter is ~100 kB; 1 MB builds its text in well under 2 s).
MAX_DRAFT_BYTES = 2 * 1024 * 1024
#: Opening brackets a draft may hold. Each may open a link, a picture or a citation, and Markdown
#: looks for its end up to 20 nestings deep: ~15 us each, 16 s for a 1 MB draft of "[" alone.
MAX_BRACKETS = 5_000
#: Dollar signs a draft may hold (2,000 formulas): each formula is a token, a check and a MathML
#: typesetting, ~0.3 ms when they differ; 262,144 "$a$ " made 1 MB and 5 s.
MAX_DOLLARS = 4_000
#: Emphasis marks ("*" and "_" together) a draft may hold: each is a delimiter Markdown pairs and
#: the page's text passes again, ~20 us each; 1 MB of "*a " (349,525 of them) took 7 s.
MAX_EMPHASIS = 12_000
#: "<" a draft may hold: each is tried as raw HTML, then escaped; 1 MB of them took 3.7 s.
MAX_ANGLES = 20_000
#: "&" a draft may hold: each is tried as an entity; 1 MB of "&amp; " took 2.7 s.
MAX_AMPERSANDS = 10_000
#: What :func:`check_markup_counts` counts: (characters, limit, what they are, why they are costly).
#: At every limit at once, a 1 MB draft's text still builds in under 2 s (tests/test_post_safety.py).
MARKUP_LIMITS = (
    ("[", MAX_BRACKETS, "opening brackets '['", "links, pictures, citations"),
    ("$", MAX_DOLLARS, "dollar signs '$'", f"{MAX_DOLLARS // 2:,} formulas"),
    ("*_", MAX_EMPHASIS, "emphasis marks '*' and '_'", "each a delimiter Markdown pairs"),
    ("<", MAX_ANGLES, "angle brackets '<'", "each tried as raw HTML"),
    ("&", MAX_AMPERSANDS, "ampersands '&'", "each tried as an entity"),
)
#: The invisible separator the build marks placeholders with: no author types it on purpose.
MARKER = "\u2063"


class InputError(ValueError):
    """One line: an input the build refuses before anything renders."""


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_input_file(path: str | Path, what: str) -> None:
    """``path`` names a readable file; a name too long, a loop, a folder: one line, no traceback."""
    name = str(path)
    try:
        if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in Path(name).parts):
            raise InputError(f"{what} {_short(name)}: a file name longer than 255 bytes")
        if os.path.isdir(name):
            raise InputError(f"{what} {_short(name)}: a folder, not a file")
        if not os.path.isfile(name):
            there = os.path.exists(name)
            raise InputError(f"{what} {_short(name)}: " + ("not a regular file (a device, a pipe or a socket)"
                                                           if there else "no such file"))
        with open(name, "rb"):
            pass
    except OSError as exc:
        raise InputError(f"{what} {_short(name)}: cannot read it ({exc.strerror or exc})") from None


def check_draft_size(path: str | Path) -> None:
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise InputError(f"draft {_short(str(path))}: cannot read it ({exc.strerror or exc})") from None
    if size > MAX_DRAFT_BYTES:
        raise InputError(f"draft {_short(str(path))}: {size / 1e6:.1f} MB, more than the "
                         f"{MAX_DRAFT_BYTES / 1024 / 1024:g} MB a draft may hold")


def check_markup_counts(text: str, where: str = "") -> None:
    """At most :data:`MARKUP_LIMITS` of each costly mark (code counts too): counted before
    Markdown reads the draft, so a draft made of them is refused at once, not after seconds."""
    for chars, limit, what, why in MARKUP_LIMITS:
        count = sum(text.count(c) for c in chars)
        if count > limit:
            raise InputError(f"{where}{count:,} {what}, more than the {limit:,} a draft may hold "
                             f"({why}; code counts too)")


def check_no_marker(text: str, where: str, first_line: int = 1) -> None:
    """The build's placeholder marker (U+2063) may not appear in what the author wrote."""
    at = text.find(MARKER)
    if at >= 0:
        line = first_line + text.count("\n", 0, at)
        raise InputError(f"{where}line {line}: an invisible separator (U+2063), which the build keeps for "
                         f"its own use; delete it")


# -- what would fail after the renders, found before them ---------------------------------------------

_MATH_TOKENS = ("math_inline", "math_inline_double", "math_block", "math_block_label")


def token_lines(tokens: list[Any], line_numbers: list[int]) -> Iterator[tuple[Any, int]]:
    """Every token and inline child with its line in the draft: an inline child's line is its
    paragraph's first line plus the line breaks before it (markdown-it maps blocks only)."""
    last = 0

    def draft_line(index: int) -> int:
        if not line_numbers:
            return index + 1
        return line_numbers[max(0, min(index, len(line_numbers) - 1))]

    for tok in tokens:
        if tok.map:
            last = tok.map[0]
        yield tok, draft_line(last)
        if tok.children:
            offset = 0
            for child in tok.children:
                yield child, draft_line(last + offset)
                if child.type in ("softbreak", "hardbreak"):
                    offset += 1
                else:
                    offset += child.content.count("\n") if child.type in _MATH_TOKENS else 0


def check_formulas(tokens: list[Any], line_numbers: list[int], fill: Callable[[str], str],
                   typeset: Callable[[str, bool], Any], split: Callable[[str], list[str]]) -> int:
    """Typeset every formula of the draft once, as the page will (``fill`` puts the placeholders'
    values in); the first that fails is one line with its true line number. Returns how many."""
    count = 0
    for tok, line in token_lines(tokens, line_numbers):
        if tok.type not in _MATH_TOKENS:
            continue
        count += 1
        try:
            latex = fill(tok.content)
            if tok.type == "math_inline":
                typeset(latex, False)
            else:
                for part in split(latex):
                    typeset(part, True)
        except ValueError as exc:  # MathError, or a table where a formula needs one value
            raise InputError(f"line {line}: {exc}") from None
    return count


def check_slot(entry: Any, registry: dict[str, type], typeset: Callable[[str, bool], Any],
               split: Callable[[str], list[str]]) -> None:
    """A link-table entry the page uses: its formula typesets, its step is one the scene declares."""
    if entry.show == "math":
        try:
            for part in split(entry.latex or ""):
                typeset(part, True)
        except ValueError as exc:
            raise InputError(f"{entry.source}: {exc}") from None
        return
    steps = getattr(registry.get(entry.scene), "steps", None)
    if entry.show not in ("step", "step-clip") or not isinstance(steps, (tuple, list)):
        return  # a scene without a declared list of steps is checked when its steps are on disk
    step = entry.step
    known = isinstance(step, int) and 1 <= step <= len(steps)
    known = known or (isinstance(step, str) and any(
        step in (name, f"{n:02d}-{name}") for n, name in enumerate(steps, start=1)))
    if not known:
        listed = ", ".join(f"{n} {name}" for n, name in enumerate(steps, start=1))
        raise InputError(f"{entry.source}: scene {entry.scene} has no step {step!r} (its steps: {listed})")


def check_table_text(table: Any) -> None:
    """No text of the link table (or front matter) holds the build's marker."""
    for entry in [*table.links, *(i.entry for i in table.inserts)]:
        for key in ("match", "latex", "label", "alt", "caption"):
            value = getattr(entry, key, None)
            if isinstance(value, str) and MARKER in value:
                raise InputError(f"{entry.source}: {key} holds an invisible separator (U+2063), which the "
                                 f"build keeps for its own use; delete it")
    for insert in table.inserts:
        if MARKER in insert.after:
            raise InputError(f"{insert.entry.source}: after holds an invisible separator (U+2063); delete it")
    for edit in table.edits:
        if MARKER in edit.find or MARKER in edit.replace:
            raise InputError(f"{edit.source}: an invisible separator (U+2063), which the build keeps for its "
                             f"own use; delete it")


def _remote(src: str) -> bool:
    from urllib.parse import urlparse

    src = src.strip()
    return src.startswith("//") or urlparse(src).scheme.lower() not in ("", "data")


def remote_pictures_as_links(tokens: list[Any]) -> list[str]:
    """A picture of the draft on another host, which the link table does not map, becomes a link to
    it (its alt text, ``class="remote-picture"``), never an ``<img>``: the page fetches nothing from
    another host. Returns their addresses."""
    import html

    from markdown_it.token import Token

    moved = []
    for tok in tokens:
        if tok.type != "inline" or not tok.children:
            continue
        children = []
        for child in tok.children:
            src = child.attrGet("src") if child.type == "image" else None
            if src is None or not _remote(str(src)):
                children.append(child)
                continue
            alt = "".join(c.content for c in (child.children or [])) or child.content or str(src)
            link = Token("html_inline", "", 0)
            link.content = (f'<a class="remote-picture" href="{html.escape(str(src))}">'
                            f"{html.escape(alt)}</a>")
            children.append(link)
            moved.append(str(src))
        tok.children = children
    return moved
