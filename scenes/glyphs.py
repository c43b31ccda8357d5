"""Magnitude as glyphs: bars drawn next to the numbers they measure.

A reader should *see* which weight is large, not only read it. The builders
here add bars beside (never instead of) the numbers a scene shows:

- :func:`bars_under`: a small histogram under a row of cells (one query's
  attention weights);
- :func:`weight_cells`: a thin bar at the foot of every cell of a weight
  matrix (a softmax per row or per column), the cells tinted in the weight
  role colour.

Every bar is a :class:`Bar` that remembers the value it measures, its key (as
``NumberLabel.key``) and the length a value of 1 would have, so tests can
check that each bar's length is proportional to the value on screen.

Also :func:`cell_width_for`: a cell as wide as its longest number needs at a
readable size, so long numbers widen the layout (which then elides more)
instead of shrinking to an unreadable size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from manim import DOWN, UP, Mobject, Rectangle, VGroup

from .theme import Theme, format_number

__all__ = ["Bar", "bars_under", "weight_cells", "cell_width_for", "NUMBER_FONT",
           "DIGIT_WIDTH"]

#: Numbers in these scenes are drawn at this size: digits 0.21 units tall,
#: 12.6 px at 480p (the legibility floor is 12 px).
NUMBER_FONT = 20
#: Width of one character of the number font at NUMBER_FONT (DejaVu Sans Mono).
DIGIT_WIDTH = 0.165


class Bar(Rectangle):
    """One bar: its length is ``value * full_length``.

    Attributes
    ----------
    value
        The value it measures (from the core).
    key
        Where the value comes from, as ``NumberLabel.key``.
    full_length
        The length of a bar of value 1.
    length
        The drawn length (along ``direction``).
    """

    def __init__(self, value: float, theme: Theme, key: tuple | None, full_length: float,
                 thickness: float, vertical: bool, colour: Any = None) -> None:
        self.value = float(value)
        self.key = key
        self.full_length = float(full_length)
        self.vertical = vertical
        # A zero weight still gets a hairline, so the bar's place reads as "none".
        self.length = max(self.value, 0.0) * self.full_length
        drawn = max(self.length, 0.012)
        w, h = (thickness, drawn) if vertical else (drawn, thickness)
        super().__init__(width=w, height=h, stroke_width=0,
                         fill_color=colour or theme.weight, fill_opacity=1.0)


def bars_under(cells: Sequence[Mobject], values: Sequence[float], theme: Theme,
               keys: Sequence[tuple | None] | None = None, full_length: float = 0.9,
               thickness: float = 0.3, buff: float = 0.08) -> VGroup:
    """A histogram hanging under a row of cells: bar ``i`` under ``cells[i]``.

    The bars grow downwards from a common top line just under the cells, so
    their lengths compare at a glance; a faint track shows the length of 1.
    """
    out = VGroup()
    top = min(c.get_bottom()[1] for c in cells) - buff
    for n, (cell, v) in enumerate(zip(cells, values)):
        key = keys[n] if keys is not None else None
        track = Rectangle(width=thickness, height=full_length, stroke_color=theme.muted,
                          stroke_width=1, stroke_opacity=0.5, fill_opacity=0)
        track.move_to([cell.get_x(), top - full_length / 2, 0])
        bar = Bar(v, theme, key, full_length, thickness, vertical=True)
        bar.move_to([cell.get_x(), 0, 0]).align_to(track, UP)
        out.add(VGroup(track, bar))
    return out


def weight_cells(cells: Iterable[tuple[Any, Mobject]], values: np.ndarray, theme: Theme,
                 key: str | None = None, transposed: bool = False,
                 thickness: float = 0.055, with_bars: bool = True) -> VGroup:
    """Tint weight cells in the weight colour and (``with_bars``) put a bar at each one's foot.

    ``cells`` yields ``(index, ValueCell)`` pairs (``ValueMatrix.cell_by_index
    .items()``); the value of a cell is ``values[index]`` (``values[j, i]``
    when ``transposed``: a matrix drawn as the transpose of ``values``). The
    bar of a weight of 1 spans the cell's width. The number moves up a little
    so the bar has its own strip and never crosses the digits.
    Returns the bars (already added to their cells).
    """
    bars = VGroup()
    for index, cell in cells:
        idx = tuple(reversed(index)) if transposed else (
            index if isinstance(index, tuple) else (index,))
        v = float(values[idx])
        width = cell.box.width
        cell.box.set_fill(theme.weight, opacity=0.08 + 0.42 * min(max(v, 0.0), 1.0))
        if not with_bars:  # e.g. a row that gets its own histogram (bars_under)
            continue
        if cell.number is not None:
            cell.number.shift(UP * 0.045)
        full = width - 0.1
        bar = Bar(v, theme, (key, *idx) if key else None, full, thickness, vertical=False)
        bar.next_to(cell.box.get_corner(DOWN + np.array([-1, 0, 0])), UP, buff=0.035,
                    aligned_edge=np.array([-1, 0, 0]))
        bar.shift(np.array([0.05, 0, 0]))
        cell.add(bar)
        bars.add(bar)
    return bars


def cell_width_for(values: Iterable[float], theme: Theme, minimum: float = 0.82,
                   font_size: float = NUMBER_FONT) -> float:
    """The cell width that shows the longest of ``values`` at ``font_size``."""
    longest = max((len(format_number(float(v), theme.decimals)) for v in values), default=4)
    # ValueCell fits its number in 90 % of the width: leave that room.
    return max(minimum, DIGIT_WIDTH * font_size / NUMBER_FONT * longest / 0.9 + 0.06)
