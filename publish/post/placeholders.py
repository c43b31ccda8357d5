"""``{{ path | filter }}`` in a draft: numbers from the core, never typed by hand.

A placeholder names a dotted path into the computed numbers (what
``render.py numbers --format json`` prints: ``model.held_out.exact_match``,
``worked_example.weights``, ``encoder.tokens.0``) and optional filters. It is
evaluated by a tiny reader of its own, not by Python or a template engine:
only paths and the filters below exist, so a draft cannot run code.

Filters: ``percent`` / ``percent(d)`` (0.973 -> ``97.3 %``), ``round(d)``
(d decimals), ``int``, ``words`` (a list joined by spaces), ``count``
(its length), ``table`` (a list or matrix as an HTML table; a matrix a
scene shows is labelled as on screen), ``corrected`` (that table, and the
draft's printed values of it struck through beside it). Floats without a filter are written
as on screen (the theme's 2 decimals, a true minus). Manim-free.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from attention_core.formatting import format_number

from publish.tables import DECIMALS, TABLE_SPECS, labelled_tables, section, tables

__all__ = ["PlaceholderError", "Placeholder", "PLACEHOLDER", "FILTERS", "parse", "find", "evaluate", "live",
           "substitute", "code_spans"]

#: No brace inside: from each "{{" the search stops at the next brace, not at the line's end (a line of
#: 20,000 "{{ " read the rest of the line from each, the square of its length; issue 33).
PLACEHOLDER = re.compile(r"\{\{([^{}\n]*)\}\}")
_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|\d+))*$")
_FILTER = re.compile(r"^([a-z]+)(?:\(\s*(\d{1,2})\s*\))?$")
FILTERS = ("percent", "round", "int", "words", "count", "table", "corrected")
#: Filters that take a number of decimals; the others take none.
_WITH_DECIMALS = ("percent", "round")
#: Beyond this a float's binary noise shows (percent(99) wrote 39.000000000000007105...).
MAX_DECIMALS = 6
_MARKER = "\u2063"


class PlaceholderError(ValueError):
    """A placeholder that cannot be read or names no computed value."""


@dataclass(frozen=True)
class Placeholder:
    text: str  # as written, with the braces
    path: str
    filters: tuple[tuple[str, int | None], ...]
    line: int = 0


def parse(text: str, line: int = 0) -> Placeholder:
    """``{{ model.held_out.exact_match | percent(1) }}`` -> its path and filters."""
    inner = text.strip()
    if inner.startswith("{{") and inner.endswith("}}"):
        inner = inner[2:-2]
    where = f"line {line}: " if line else ""
    parts = [p.strip() for p in inner.split("|")]
    path = parts[0]
    if not _PATH.match(path):
        raise PlaceholderError(f"{where}placeholder {text.strip()!r}: {path!r} is not a dotted path "
                               f"(like model.held_out.exact_match)")
    filters = []
    for part in parts[1:]:
        match = _FILTER.match(part)
        if not match or match.group(1) not in FILTERS:
            raise PlaceholderError(f"{where}placeholder {text.strip()!r}: unknown filter {part!r} "
                                   f"(valid: {', '.join(FILTERS)})")
        name, arg = match.group(1), int(match.group(2)) if match.group(2) else None
        if arg is not None and name not in _WITH_DECIMALS:
            raise PlaceholderError(f"{where}placeholder {text.strip()!r}: filter {name!r} takes no argument "
                                   f"(write {name}, not {part})")
        if arg is not None and arg > MAX_DECIMALS:
            raise PlaceholderError(f"{where}placeholder {text.strip()!r}: {part}: at most {MAX_DECIMALS} "
                                   f"decimals (more would show the float's rounding noise)")
        filters.append((name, arg))
    return Placeholder(text, path, tuple(filters), line)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_TICKS = re.compile(r"`+")


def code_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of the text's code: fenced blocks (from their opening fence line to their
    closing one, or the end) and inline code spans (a run of backticks to the next run of as many,
    within a paragraph). Found in one pass each."""
    spans: list[tuple[int, int]] = []
    fence: re.Match[str] | None = None
    for match in _FENCE.finditer(text):
        if fence is None:
            fence = match
        elif match.group(1)[0] == fence.group(1)[0] and len(match.group(1)) >= len(fence.group(1)):
            end = text.find("\n", match.end())
            spans.append((fence.start(), len(text) if end < 0 else end))
            fence = None
    if fence is not None:
        spans.append((fence.start(), len(text)))
    runs, f = [], 0
    for run in _TICKS.finditer(text):  # the backtick runs outside the fenced blocks
        while f < len(spans) and spans[f][1] <= run.start():
            f += 1
        if not (f < len(spans) and spans[f][0] <= run.start()):
            runs.append(run)
    by_length: dict[int, list[int]] = {}
    for k, run in enumerate(runs):
        by_length.setdefault(len(run.group(0)), []).append(k)
    next_of: dict[int, int] = {}
    for ks in by_length.values():
        for a, b in zip(ks, ks[1:]):
            next_of[a] = b
    k = 0
    while k < len(runs):
        close = next_of.get(k)
        if close is not None and "\n\n" not in text[runs[k].end():runs[close].start()]:
            spans.append((runs[k].start(), runs[close].end()))
            k = close + 1
        else:
            k += 1
    return sorted(spans)


def live(text: str) -> list[re.Match[str]]:
    """The placeholders to fill: not inside code (shown as written there), not escaped (``\\{{``)."""
    spans = code_spans(text)
    out, s = [], 0
    for match in PLACEHOLDER.finditer(text):
        while s < len(spans) and spans[s][1] <= match.start():
            s += 1
        if s < len(spans) and spans[s][0] <= match.start() < spans[s][1]:
            continue
        if match.start() > 0 and text[match.start() - 1] == "\\":
            continue
        out.append(match)
    return out


def substitute(text: str, value) -> str:
    """``text`` with each :func:`live` placeholder replaced by ``value(match)``, in order."""
    pieces, done = [], 0
    for match in live(text):
        pieces += [text[done:match.start()], value(match)]
        done = match.end()
    return "".join(pieces) + text[done:]


def find(text: str, first_line: int = 1) -> list[Placeholder]:
    """Every placeholder of ``text`` to fill (:func:`live`), parsed, with its line number."""
    found, line, done = [], first_line, 0
    for match in live(text):
        line += text.count("\n", done, match.start())  # counted as it goes, not from the start each time
        done = match.start()
        found.append(parse(match.group(0), line))
    return found


def _scalar(value: Any, decimals: int | None = None) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_number(value, DECIMALS if decimals is None else decimals)
    return str(value)


def _html_table(rows: list[list[str]], header: list[str] | None, caption: str) -> str:
    parts = ['<table class="numbers">']
    if caption:
        parts.append(f"<caption>{html.escape(caption)}</caption>")
    if header:
        parts.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
    for row in rows:
        cells = [f"<th>{html.escape(row[0])}</th>"] + [f"<td>{html.escape(c)}</td>" for c in row[1:]]
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


def _table(path: str, value: Any, data: dict[str, Any]) -> str:
    # A matrix a scene shows: labelled and rounded exactly as on screen.
    for scene_id, specs in TABLE_SPECS.items():
        for index, spec in enumerate(specs):
            if spec.path == path:
                caption, _, header, rows = labelled_tables(scene_id, data)[index]
                return _html_table(rows, header, caption)
    flat = tables({path: value})
    if not flat:
        raise PlaceholderError(f"{path} is not a list or table")
    return "".join(_html_table(rows, header, title) for title, header, rows in flat)


def evaluate(placeholder: Placeholder, data: dict[str, Any]) -> tuple[str, bool]:
    """``(html, is_block)``: the value at the placeholder's path, through its filters.

    Text is HTML-escaped; ``is_block`` is true for a table (it cannot sit in a sentence).
    """
    where = f"line {placeholder.line}: " if placeholder.line else ""
    try:
        value = section(data, placeholder.path)
    except (KeyError, IndexError, ValueError) as exc:
        detail = exc.args[0] if isinstance(exc, KeyError) else str(exc)
        raise PlaceholderError(f"{where}unknown placeholder {placeholder.path!r} ({detail})") from None
    decimals: int | None = None
    for name, arg in placeholder.filters:
        try:
            if name == "table":
                return _table(placeholder.path, value, data).replace(_MARKER, "&#x2063;"), True
            if name == "corrected":  # the true table, and what the draft printed struck through beside it
                from publish.post.corrected import corrected_table

                table = corrected_table(placeholder.path, _table(placeholder.path, value, data), data)
                return table.replace(_MARKER, "&#x2063;"), True
            if name == "percent":
                value = f"{format_number(100 * float(value), 1 if arg is None else arg)} %"
            elif name == "round":
                decimals = arg if arg is not None else 0
                value = format_number(float(value), decimals)
            elif name == "int":
                value = int(round(float(value)))
            elif name == "words":
                value = " ".join(_scalar(v) for v in value)
            elif name == "count":
                value = len(value)
        except (TypeError, ValueError):
            raise PlaceholderError(f"{where}placeholder {placeholder.text.strip()!r}: filter {name!r} does "
                                   f"not apply to {type(value).__name__} at {placeholder.path}") from None
    if isinstance(value, (list, dict)):
        return _table(placeholder.path, value, data).replace(_MARKER, "&#x2063;"), True
    # A value holding the post's placeholder marker (U+2063) is written as a reference: never a marker.
    return html.escape(_scalar(value)).replace(_MARKER, "&#x2063;"), False
