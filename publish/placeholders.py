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

from .tables import DECIMALS, TABLE_SPECS, labelled_tables, section, tables

__all__ = ["PlaceholderError", "Placeholder", "PLACEHOLDER", "FILTERS", "parse", "find", "evaluate"]

PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|\d+))*$")
_FILTER = re.compile(r"^([a-z]+)(?:\(\s*(\d{1,2})\s*\))?$")
FILTERS = ("percent", "round", "int", "words", "count", "table", "corrected")


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
        filters.append((match.group(1), int(match.group(2)) if match.group(2) else None))
    return Placeholder(text, path, tuple(filters), line)


def find(text: str, first_line: int = 1) -> list[Placeholder]:
    """Every placeholder of ``text``, parsed, with its line number."""
    found = []
    for match in PLACEHOLDER.finditer(text):
        found.append(parse(match.group(0), first_line + text.count("\n", 0, match.start())))
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
                return _table(placeholder.path, value, data), True
            if name == "corrected":  # the true table, and what the draft printed struck through beside it
                from .post_corrected import corrected_table

                return corrected_table(placeholder.path, _table(placeholder.path, value, data), data), True
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
        return _table(placeholder.path, value, data), True
    return html.escape(_scalar(value)), False
