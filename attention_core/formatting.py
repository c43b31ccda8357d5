"""How a number is written on screen and in the post's tables.

Kept free of manim (and of numpy) so the table export and the render cache
can use it without importing the animation stack; ``scenes.theme``
re-exports it, so scenes and tables always write a value the same way.
"""

from __future__ import annotations

__all__ = ["MINUS", "format_number", "parse_number"]

MINUS = "\u2212"  # a real minus sign: same width as the digits, unlike "-"


def format_number(value: float, decimals: int = 2) -> str:
    """The text a number is shown as: fixed decimals, a true minus sign.

    A value that rounds to zero is shown unsigned ("0.00", never "-0.00").
    """
    text = f"{value:.{decimals}f}"
    if text.startswith("-"):
        text = text[1:] if float(text[1:]) == 0 else MINUS + text[1:]
    return text


def parse_number(text: str) -> float:
    """Inverse of :func:`format_number` (tests read numbers back from screen)."""
    return float(text.replace(MINUS, "-").rstrip("%"))
