"""How a number is written on screen and in the post's tables.

Kept free of manim (and of numpy) so the table export and the render cache
can use it without importing the animation stack; ``scenes.theme``
re-exports it, so scenes and tables always write a value the same way.
"""

from __future__ import annotations

__all__ = ["MINUS", "APPROX", "format_number", "parse_number", "sum_sign"]

MINUS = "\u2212"  # a real minus sign: same width as the digits, unlike "-"
APPROX = "\u2248"


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


def sum_sign(terms, total: float, decimals: int = 2) -> str:
    """``"="`` when the terms *as shown* add up to the total as shown, else ``"\u2248"``.

    A sum written out term by term (``0.12 + 0.13 + ... = 0.26``) must not
    claim what the reader's own addition of the shown terms contradicts
    (issue 25): rounded terms often miss the rounded total by a digit, and no
    number of decimals prevents it for long sums, so the sign says so.
    """
    added = round(sum(parse_number(format_number(float(t), decimals)) for t in terms), 9)
    return "=" if format_number(added, decimals) == format_number(float(total), decimals) else APPROX
