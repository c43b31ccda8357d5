"""Checks of ``render.py post``'s inputs that must come before anything renders (issue 33).

Each raises :class:`InputError` with one line naming what is wrong: a file
name too long for the file system, a draft too large, a character the build
keeps for itself (U+2063, the placeholders' marker). Manim-free.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["InputError", "MAX_DRAFT_BYTES", "MARKER", "check_input_file", "check_draft_size", "check_no_marker"]

#: The largest draft a build reads (a book chapter is ~100 kB; 1 MB builds its text in well under 2 s).
MAX_DRAFT_BYTES = 2 * 1024 * 1024
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
            raise InputError(f"{what} {_short(name)}: no such file")
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


def check_no_marker(text: str, where: str, first_line: int = 1) -> None:
    """The build's placeholder marker (U+2063) may not appear in what the author wrote."""
    at = text.find(MARKER)
    if at >= 0:
        line = first_line + text.count("\n", 0, at)
        raise InputError(f"{where}line {line}: an invisible separator (U+2063), which the build keeps for "
                         f"its own use; delete it")
