"""Layout helpers the Part 1 scenes share (``seq2seq_overview``, ``word_embeddings``, ``encoder``).

- :func:`wrapped_note`: a muted line that breaks in two rather than shrink below the floor;
- :func:`signed_bars`: magnitude as glyphs beside a column of numbers, a
  bar per value growing left (negative) or right (positive) from a zero line,
  in the sign colours of the cells;
- :func:`readable_dots`: the elision dots of a :class:`~scenes.components.VectorColumn`
  at the formula floor (28.2 pt), so they stay readable at 480p.

Nothing here computes a value: it lays out what it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import DOWN, LEFT, RIGHT, Line, MathTex, Mobject, Rectangle, VGroup

from .components import caption, fit_within, unbreakable_words
from .theme import Theme

__all__ = ["wrapped_note", "signed_bars", "readable_dots", "MIN_TEX_SIZE", "SignedBar"]

#: Formulas (MathTex) have smaller glyphs per point than Text: 33 pt gives 14 px capitals at 480p.
MIN_TEX_SIZE = 33.2


def wrapped_note(text: str, theme: Theme, font_size: float = 20, colour: Any = None,
                 max_width: float = 13.4) -> VGroup:
    """``text`` on one line, or two (broken at a word near the middle) when
    one line would be wider than ``max_width``; never smaller than ``font_size``
    unless even two lines are too wide. ``.text`` holds the whole sentence."""
    colour = colour or theme.muted
    one = caption(text, theme, font_size, colour)
    words = unbreakable_words(text)  # never broken at an equation's "="
    if one.width <= max_width or len(words) < 2:
        lines = VGroup(fit_within(one, max_width=max_width))
    else:
        cut = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(text) / 2))
        lines = VGroup(caption(" ".join(words[:cut]), theme, font_size, colour),
                       caption(" ".join(words[cut:]), theme, font_size, colour)).arrange(DOWN, buff=0.1)
        fit_within(lines, max_width=max_width)
    lines.text = "\n".join(line.original_text for line in lines)  # as the lines break on screen
    return lines


class SignedBar(Rectangle):
    """One magnitude bar; remembers the value it draws and its length per unit."""

    def __init__(self, value: float, length: float, thickness: float, colour: Any) -> None:
        self.value = float(value)
        self.length = float(length)
        super().__init__(width=max(length, 0.015), height=thickness, stroke_width=0,
                         fill_color=colour, fill_opacity=0.95)


def signed_bars(cells: Sequence[Mobject], values: Sequence[float], theme: Theme, scale: float,
                width: float = 0.5, thickness: float = 0.14, buff: float = 0.08) -> VGroup:
    """A bar beside each of ``cells`` (to their right): length ``|v| / scale``
    of ``width / 2``, from a zero line in the middle, right for positive
    values in ``theme.positive``, left for negative in ``theme.negative``.

    ``cells`` and ``values`` pair up; ``None`` cells (elided rows) get no bar.
    """
    pairs = [(c, float(v)) for c, v in zip(cells, values) if c is not None]
    out = VGroup()
    if not pairs:
        return out
    right = max(c.get_right()[0] for c, _ in pairs)
    zero_x = right + buff + width / 2
    top = max(c.get_top()[1] for c, _ in pairs)
    bottom = min(c.get_bottom()[1] for c, _ in pairs)
    axis = Line([zero_x, top, 0], [zero_x, bottom, 0], stroke_width=1.5, color=theme.muted)
    out.add(axis)
    half = width / 2
    for cell, v in pairs:
        length = min(abs(v) / scale, 1.0) * half if scale > 0 else 0.0
        bar = SignedBar(v, length, thickness, theme.positive if v >= 0 else theme.negative)
        side = RIGHT if v >= 0 else LEFT
        bar.move_to([zero_x, cell.get_y(), 0]).shift(side * max(length, 0.015) / 2)
        out.add(bar)
    return out


def readable_dots(column: VGroup) -> VGroup:
    """Scale every elision mark (a MathTex) inside ``column`` up to :data:`MIN_TEX_SIZE`."""
    for mob in column.get_family():
        if isinstance(mob, MathTex) and mob.font_size < MIN_TEX_SIZE:
            mob.scale(MIN_TEX_SIZE / mob.font_size)
    return column


def column_values(values: np.ndarray, column: Any) -> tuple[list[Mobject | None], list[float]]:
    """The cells of a :class:`~scenes.components.VectorColumn` with their values, in order."""
    cells = [column.cell_by_index[i] for i in sorted(column.cell_by_index)]
    return cells, [float(values[i]) for i in sorted(column.cell_by_index)]
