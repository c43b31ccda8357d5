"""A tall table (an embedding matrix) showing chosen rows, dots for the rest.

Vocabularies reach 40 words; the rows a scene talks about (the words looked
up, the most probable words) must stay visible, so this picks those rows
first and stands a row of dots in for every gap, instead of shrinking the
numbers below readability. Shared by ``word_embeddings`` and
``output_mapping``; computes nothing but layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from manim import LEFT, UP, MathTex, Rectangle, Text, VGroup

from .components import MIN_FONT_SIZE, ValueCell, caption, fit_within, readable_text
from .theme import Theme

#: Formulas (the dots) at 28.5 pt have 12 px capitals at 480p.
MIN_TEX_SIZE = 28.5

__all__ = ["pick_rows", "pick_cols", "PickedRowsMatrix", "untrained_note"]


def _layout(kept: Iterable[int], n: int) -> list[int | None]:
    rows: list[int | None] = []
    prev = -1
    for i in sorted(set(kept)):
        if i > prev + 1:
            rows.append(None)
        rows.append(i)
        prev = i
    if prev < n - 1:
        rows.append(None)
    return rows


def pick_rows(n: int, must: Sequence[int], max_rows: int) -> list[int | None]:
    """Rows to show (``None`` = a row of dots), at most ``max_rows`` lines.

    Every row in ``must`` is kept (as many as fit); then the first rows and
    the last one fill what space is left, so the table still reads as
    "starts here, ends there".
    """
    if n <= max_rows:
        return list(range(n))
    kept: list[int] = []
    for i in dict.fromkeys([*must, n - 1, *range(n)]):
        if len(_layout([*kept, i], n)) <= max_rows:
            kept.append(i)
    return _layout(kept, n)


def pick_cols(n: int, max_cols: int) -> list[int | None]:
    """Columns to show (``None`` = a column of dots): all of them when they
    fit, else the first ones, dots, and the last, ``max_cols`` slots in all."""
    if n <= max_cols:
        return list(range(n))
    return [*range(max_cols - 2), None, n - 1]


class PickedRowsMatrix(VGroup):
    """A matrix of value cells showing only ``rows`` (``None`` = dots).

    Cell ``(i, j)`` gets the key ``(f"{key}.{i}", j)``; ``row(i)`` gives the
    cells of row ``i`` (one per slot of ``cols``, a dots mark for ``None``)
    and ``label(i)`` its word. ``cols`` (default: every column) elides wide
    vectors the same way ``rows`` elides long vocabularies.
    """

    def __init__(self, values: np.ndarray, theme: Theme, key: str, rows: Sequence[int | None],
                 row_labels: Sequence[str], colour: Any, cell_width: float, cell_height: float,
                 font_size: float, label_size: float = 20, label_width: float = 1.6,
                 col_labels: Sequence[str] | None = None, cols: Sequence[int | None] | None = None) -> None:
        super().__init__()
        values = np.atleast_2d(np.asarray(values, dtype=float))
        self.cols_shown = list(cols) if cols is not None else list(range(values.shape[1]))
        n_cols = len(self.cols_shown)
        scale = max(float(np.max(np.abs(values))), 1e-9)
        self.rows_shown = list(rows)
        self._rows: dict[int, VGroup] = {}
        self._labels: dict[int, Text] = {}
        self.grid = VGroup()
        self.labels = VGroup()
        for r, i in enumerate(self.rows_shown):
            y = -r * cell_height
            if i is None:
                # A column of dots under every column: plainly "rows left out".
                for j in range(n_cols):
                    # At the formula floor (12 px at 480p), never shrunk to the row.
                    dots = MathTex(r"\vdots", font_size=max(font_size * 1.4, MIN_TEX_SIZE), color=theme.muted)
                    self.grid.add(dots.move_to([j * cell_width, y, 0]))
                continue
            row = VGroup()
            for slot, j in enumerate(self.cols_shown):
                if j is None:
                    cell = elided_cell(theme, cell_width, cell_height, font_size)
                else:
                    cell = ValueCell(values[i, j], theme, (f"{key}.{i}", j), cell_width, cell_height,
                                     scale, True, font_size)
                cell.move_to([slot * cell_width, y, 0])
                row.add(cell)
            self._rows[i] = row
            self.grid.add(row)
        self.frame = Rectangle(width=n_cols * cell_width + 0.1,
                               height=len(self.rows_shown) * cell_height + 0.1,
                               stroke_color=colour, stroke_width=3).move_to(self.grid)
        self.add(self.grid, self.frame)
        for r, i in enumerate(self.rows_shown):
            if i is None:
                continue
            # A word too long for its room keeps the readable size and ends in an ellipsis.
            lab = readable_text(row_labels[i], theme, label_size, max_width=label_width,
                                max_height=cell_height * 0.95)
            lab.next_to(self.frame, LEFT, buff=0.15)
            lab.set_y(self._rows[i].get_y())
            self._labels[i] = lab
            self.labels.add(lab)
        self.add(self.labels)
        self.col_labels = VGroup()
        if col_labels is not None:
            for j, text in enumerate(col_labels):
                lab = readable_text(text, theme, MIN_FONT_SIZE, max_width=cell_width * 0.95,
                                    colour=theme.muted)
                lab.next_to(self.frame, UP, buff=0.08)
                lab.set_x(self.frame.get_left()[0] + 0.05 + (j + 0.5) * cell_width)
                self.col_labels.add(lab)
            self.add(self.col_labels)

    @property
    def shown_rows(self) -> list[int]:
        """Indices of the rows on screen, top to bottom."""
        return [i for i in self.rows_shown if i is not None]

    def row(self, i: int) -> VGroup:
        return self._rows[i]

    def label(self, i: int) -> Text:
        return self._labels[i]


def elided_cell(theme: Theme, width: float, height: float, font_size: float) -> VGroup:
    """A cell standing for the columns left out: dots in an empty box."""
    dots = MathTex(r"\cdots", font_size=max(font_size * 1.4, MIN_TEX_SIZE), color=theme.muted)
    fit_within(dots, max_width=width * 0.8)
    return VGroup(Rectangle(width=width, height=height, stroke_width=0), dots)


def untrained_note(seeded: Sequence[str], theme: Theme, font_size: float = 18) -> Text:
    """The plain warning that seeded weights do not translate."""
    if seeded:
        text = "Untrained (seeded random) decoder weights: the chosen words are not a translation."
    else:
        text = "Decoder weights as given in the numbers file."
    return caption(text, theme, font_size, theme.muted)
