"""Magnitude as glyphs: bars drawn next to the numbers they measure.

A reader should *see* which weight is large, not only read it. The builders
here add bars beside (never instead of) the numbers a scene shows:

- :func:`bars_under`: a small histogram under a row of cells (one query's
  attention weights);
- :func:`weight_cells`: every cell of a weight matrix (a softmax per row or
  per column) filled by the heat scale, with a level bar at its right edge;
  :func:`heat_key` names the scale's ends.

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
from manim import DOWN, LEFT, RIGHT, UP, ManimColor, Mobject, Rectangle, Text, VGroup

from .theme import Theme, format_number

__all__ = ["Bar", "bars_under", "weight_cells", "ink_for", "heat_key", "cell_width_for",
           "NUMBER_FONT", "DIGIT_WIDTH"]

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

    @property
    def drawn_length(self) -> float:
        """Its size along its direction as it stands now (a hairline for 0)."""
        return self.height if self.vertical else self.width


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


def ink_for(fill: Any, theme: Theme) -> ManimColor:
    """The theme's text or background colour, whichever reads better on ``fill``.

    Heat fills run from near the background to a bright colour in both
    themes, so digits (and bars) on them switch ink where the fill gets light.
    """
    def luminance(colour: Any) -> float:
        r, g, b = (c ** 2.2 for c in ManimColor(colour).to_rgb())
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    lf = luminance(fill)
    inks = (theme.text, theme.background)
    return ManimColor(max(inks, key=lambda ink: (max(lf, luminance(ink)) + 0.05)
                          / (min(lf, luminance(ink)) + 0.05)))


def weight_cells(cells: Iterable[tuple[Any, Mobject]], values: np.ndarray, theme: Theme,
                 key: str | None = None, transposed: bool = False,
                 thickness: float = 0.08, with_bars: bool = True, top: float = 1.0,
                 bottom: float = 0.0) -> VGroup:
    """Fill weight cells by the heat scale and (``with_bars``) give each a level bar.

    ``cells`` yields ``(index, ValueCell)`` pairs (``ValueMatrix.cell_by_index
    .items()``); the value of a cell is ``values[index]`` (``values[j, i]``
    when ``transposed``: a matrix drawn as the transpose of ``values``). The
    fill is ``theme.heat(weight)``, opaque, and the digits take the ink that
    reads on it (:func:`ink_for`). The bar stands at the cell's right edge,
    as tall as the cell for a weight of 1, in the digits' ink: 5 px wide at
    480p, a gauge rather than an underline. The number moves left to make room.
    With ``bottom`` and ``top`` (the smallest and largest weight compared),
    the fill runs over that range instead of 0 to 1, so weights close together
    (0.16 and 0.26 in a softmax over five inputs) get visibly different fills;
    the bars still measure the weight itself (a weight of 1 fills the cell's height).
    Returns the bars (already added to their cells).
    """
    bars = VGroup()
    for index, cell in cells:
        idx = tuple(reversed(index)) if transposed else (
            index if isinstance(index, tuple) else (index,))
        v = float(values[idx])
        fill = theme.heat((v - bottom) / (top - bottom) if top > bottom else v)
        ink = ink_for(fill, theme)
        cell.box.set_fill(fill, opacity=1.0)
        if cell.number is not None:
            cell.number.set_color(ink)
        if not with_bars:  # e.g. a row that gets its own histogram (bars_under)
            continue
        box = cell.box
        full = box.height - 0.08
        if cell.number is not None:
            room = box.get_right()[0] - 0.04 - thickness - 0.05
            cell.number.shift(RIGHT * min(0.0, room - cell.number.get_right()[0]))
        bar = Bar(v, theme, (key, *idx) if key else None, full, thickness, vertical=True, colour=ink)
        bar.move_to(box.get_corner(DOWN + RIGHT) + np.array([-0.04 - thickness / 2, 0.04, 0]),
                    aligned_edge=DOWN)
        # The gauge's track (a weight of 1), so a short bar reads as a low level, not a dot: a faint
        # fill, not an outline (an empty outlined box beside a digit read as a missing glyph, seen
        # at 1080p: "0.03▯").
        track = Rectangle(width=thickness, height=full, stroke_width=0, fill_color=ink,
                          fill_opacity=0.22).move_to(bar, aligned_edge=DOWN)
        cell.add(track, bar)
        bars.add(bar)
    return bars


def heat_key(theme: Theme, width: float = 2.0, height: float = 0.22, font_size: float = 20,
             steps: int = 20, top: Any = None, bottom: Any = None) -> VGroup:
    """The heat scale as a strip from weight 0 to 1, with its two ends named.

    ``bottom`` and ``top`` (:class:`~scenes.components.NumberLabel` s of the
    smallest and largest weight) name the ends instead of 0 and 1, for fills
    scaled to the weights compared (:func:`weight_cells` with ``bottom``, ``top``).
    """
    strip = VGroup(*(Rectangle(width=width / steps, height=height, stroke_width=0,
                               fill_color=theme.heat((k + 0.5) / steps), fill_opacity=1.0)
                     for k in range(steps))).arrange(RIGHT, buff=0)
    frame = Rectangle(width=width, height=height, stroke_color=theme.muted,
                      stroke_width=1).move_to(strip)
    lo = Text("0", font=theme.number_font, font_size=font_size, color=theme.muted) if bottom is None else bottom
    hi = Text("1", font=theme.number_font, font_size=font_size, color=theme.muted) if top is None else top
    name = Text("weight", font=theme.font, font_size=font_size, color=theme.muted)
    lo.next_to(frame, LEFT, buff=0.1)
    hi.next_to(frame, RIGHT, buff=0.1)
    name.next_to(lo, LEFT, buff=0.15)
    return VGroup(name, lo, strip, frame, hi)


def cell_width_for(values: Iterable[float], theme: Theme, minimum: float = 0.82,
                   font_size: float = NUMBER_FONT, maximum: float | None = None) -> float:
    """The cell width that shows the longest of ``values`` at ``font_size``.

    With ``maximum``, no wider: a longer number then drops decimals
    (``components.fitted_number``) rather than pushing the layout off the frame.
    """
    longest = max((len(format_number(float(v), theme.decimals)) for v in values), default=4)
    # ValueCell fits its number in 90 % of the width: leave that room.
    width = max(minimum, DIGIT_WIDTH * font_size / NUMBER_FONT * longest / 0.9 + 0.06)
    return width if maximum is None else min(width, maximum)
