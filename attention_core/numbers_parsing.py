"""The numbers file's validators, shared by every section's parser.

Each section module (``cnn``, ``decoder``, ``attention``...) reads its own
top-level table of the numbers file with these small checks, and so does
:mod:`attention_core.numbers_file` for the tables it reads itself. They sit
below both, so a section never imports the numbers file (which finds the
sections through :mod:`attention_core.numbers_sections`).

Every check raises :class:`NumbersError` with one line naming the dotted key
(``where``) and what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .text import tokenize

__all__ = [
    "NumbersError",
    "MAX_TOKENS",
    "SIZE_RANGE",
    "VALUE_RANGE",
    "wrong_value",
    "check_keys",
    "as_table",
    "as_number",
    "as_int",
    "as_str",
    "as_vector",
    "as_matrix",
    "as_word_list",
]

#: The most words a sentence of the numbers file may have.
MAX_TOKENS = 12
SIZE_RANGE = (2, 8)
#: Every number of a numeric table (weights, embeddings, inputs, queries...)
#: lies in this range unless its parser names another. Bounded inputs keep
#: every derived value finite and short enough to read in a cell.
VALUE_RANGE = (-10.0, 10.0)


class NumbersError(ValueError):
    """A problem with the numbers file, described in one line."""


def wrong_value(where: str, expected: str, got: Any) -> NumbersError:
    """The error for ``got`` at ``where`` where ``expected`` was wanted (long values cut short)."""
    shown = repr(got)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return NumbersError(f"{where}: expected {expected}, got {shown}")


def check_keys(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    """Reject keys that no parser reads (typos would otherwise be ignored)."""
    unknown = sorted(set(table) - allowed)
    if unknown:
        prefix = f"{where}." if where else ""
        raise NumbersError(
            f"{prefix}{unknown[0]}: unknown key (known here: {', '.join(sorted(allowed))})"
        )


def as_table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise wrong_value(where, "a table", value)
    return value


def as_number(value: Any, where: str, value_range: tuple[float, float] | None = None) -> float:
    """A finite number, within ``value_range`` (inclusive) when one is given."""
    # bool is an int subclass in Python; "true" is not a number here.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise wrong_value(where, "a number", value)
    if not math.isfinite(value):
        raise wrong_value(where, "a finite number (no nan or inf)", value)
    if value_range is not None:
        lo, hi = value_range
        if not lo <= value <= hi:
            raise wrong_value(where, f"a number from {lo:g} to {hi:g}", value)
    return float(value)


def as_int(value: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong_value(where, f"a whole number from {lo} to {hi}", value)
    if not lo <= value <= hi:
        raise wrong_value(where, f"a whole number from {lo} to {hi}", value)
    return value


def as_str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise wrong_value(where, "a string", value)
    return value


def as_vector(value: Any, where: str, length: int | None = None,
              value_range: tuple[float, float] | None = VALUE_RANGE) -> np.ndarray:
    """A non-empty list of numbers in ``value_range`` (default :data:`VALUE_RANGE`)."""
    if not isinstance(value, list) or not value:
        raise wrong_value(where, "a non-empty list of numbers", value)
    vec = np.array([as_number(v, f"{where}[{i}]", value_range) for i, v in enumerate(value)])
    if length is not None and vec.shape[0] != length:
        raise NumbersError(f"{where}: expected {length} numbers, got {vec.shape[0]}")
    vec.flags.writeable = False
    return vec


def as_matrix(
    value: Any, where: str, rows: int | None = None, cols: int | None = None,
    value_range: tuple[float, float] | None = VALUE_RANGE,
) -> np.ndarray:
    """A list of equally long lists of numbers in ``value_range`` (default
    :data:`VALUE_RANGE`), optionally of a set shape."""
    want = f"a {rows if rows is not None else 'N'}x{cols if cols is not None else 'M'} matrix"
    if not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
        raise wrong_value(where, f"{want} (a list of rows)", value)
    if rows is not None and len(value) != rows:
        raise NumbersError(f"{where}: expected {want}, got {len(value)} rows")
    width = cols if cols is not None else len(value[0])
    out = []
    for i, row in enumerate(value):
        if len(row) != width:
            raise NumbersError(
                f"{where}: expected {want}, row {i} has {len(row)} numbers instead of {width}"
            )
        out.append([as_number(v, f"{where}[{i}][{j}]", value_range) for j, v in enumerate(row)])
    mat = np.array(out, dtype=float)
    mat.flags.writeable = False
    return mat


def as_word_list(value: Any, where: str, max_len: int) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise wrong_value(where, "a list of words", value)
    words: list[str] = []
    for i, w in enumerate(value):
        toks = tokenize(as_str(w, f"{where}[{i}]"))
        if len(toks) != 1:
            raise wrong_value(f"{where}[{i}]", "a single word", w)
        words.append(toks[0])
    if len(words) > max_len:
        raise NumbersError(f"{where}: expected at most {max_len} words, got {len(words)}")
    return tuple(words)
