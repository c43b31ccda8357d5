"""Matrix products laid out the textbook way: the pieces the matrix scenes share.

``dot_product_attention``, ``multi_query_attention`` and ``worked_example`` draw
the same kind of picture: named matrices in a legend row under the title,
tables of value cells in the band below it, a product ``result = left @ top``
with ``top`` above the result and ``left`` beside it, and the draft's steps as
sections. The sizes, the layout and the step record live here, so no scene
module imports another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import RIGHT, Rectangle, VGroup

from .components import CELL_H, CELL_W, NumberLabel, ValueCell, ValueMatrix, caption, math_label
from .glyphs import cell_width_for, heat_key

__all__ = [
    "TITLE_Y", "LEFT_ROOM", "LEGEND_Y", "CONTENT_TOP", "CONTENT_BOTTOM", "W_MAX", "NAME_TEX", "LABEL_SIZE",
    "TRANSPOSE_LAG", "ZOOMS",
    "RowVector", "rekey_transposed", "place_product", "StepLog", "zoom_for", "table_cell_width", "legend_row",
]

TITLE_Y = 3.55
LEFT_ROOM = 2.0  # left of the left factor: its row label, the step-2 row names
#: The row of matrix names under the title, and the band the tables use
#: (between it and a two-line caption at the bottom).
LEGEND_Y = 2.95
CONTENT_TOP = 2.62
CONTENT_BOTTOM = -2.88
#: Widest cell: a longer number shows fewer decimals.
W_MAX = 0.95
#: Formulas at 33.5 pt: capitals 14.3 px at 480p (the 14 px floor needs 33.2 pt).
NAME_TEX = 33.5
#: Secondary text (shapes, names of rows, the heat key): 14.6 px capitals at 480p (STYLE.md §4.8).
LABEL_SIZE = 24
#: Later columns of the transpose start this far into the previous one's flight: one at a time.
TRANSPOSE_LAG = 0.6


class RowVector(VGroup):
    """A vector as a row of value cells, framed in its role colour.

    Cell ``k`` gets the key ``(key, k)``; ``cell_by_index[k]`` finds it.
    """

    def __init__(self, values: Sequence[float], theme: Any, key: str | None, colour: Any,
                 scale: float | None = None, heat: bool = False,
                 cell_width: float = CELL_W, cell_height: float = CELL_H) -> None:
        super().__init__()
        values = np.asarray(values, dtype=float)
        scale = scale if scale is not None else max(float(np.max(np.abs(values))), 1e-9)
        self.cells = VGroup()
        self.cell_by_index: dict[int, ValueCell] = {}
        for k, v in enumerate(values):
            cell = ValueCell(v, theme, (key, k) if key else None, cell_width, cell_height, scale,
                             fill=theme.heat(v) if heat else None)
            self.cell_by_index[k] = cell
            self.cells.add(cell)
        self.cells.arrange(RIGHT, buff=0)
        self.frame = Rectangle(width=self.cells.width + 0.1, height=self.cells.height + 0.1,
                               stroke_color=colour, stroke_width=3).move_to(self.cells)
        self.add(self.cells, self.frame)


def rekey_transposed(matrix: ValueMatrix, key: str) -> ValueMatrix:
    """Key the cells of a matrix built from ``values.T`` as entries of ``values``.

    Cell ``(i, j)`` on screen shows ``values[j, i]``, so its key is
    ``(key, j, i)``: the number a reader sees is found at that path in the
    trace's JSON export.
    """
    for (i, j), cell in matrix.cell_by_index.items():
        if cell.number is not None:
            cell.number.key = (key, j, i)
    return matrix


def place_product(left: ValueMatrix, top: ValueMatrix, result: ValueMatrix, top_y: float,
                  gap: float = 0.35, hgap: float = 0.5, left_room: float = 1.0) -> None:
    """Lay out ``result = left @ top`` the textbook way.

    ``top`` sits above ``result`` (same columns), ``left`` beside it (same
    rows), so every result entry is level with its row of ``left`` and under
    its column of ``top``. The three are centred in the frame with
    ``left_room`` kept free left of ``left`` for its row labels.
    """
    total = left_room + left.frame.width + hgap + result.frame.width
    x0 = -total / 2 + left_room
    top_edge = top_y - (top.col_labels.height + 0.1 if len(top.col_labels) else 0.0)
    top.shift([0, top_edge - top.frame.get_top()[1], 0])
    left.shift([x0 - left.frame.get_left()[0], 0, 0])
    result.shift([left.frame.get_right()[0] + hgap - result.frame.get_left()[0],
                  top.frame.get_bottom()[1] - gap - result.frame.get_top()[1], 0])
    top.shift([result.frame.get_left()[0] - top.frame.get_left()[0], 0, 0])
    left.shift([0, result.frame.get_top()[1] - left.frame.get_top()[1], 0])


class StepLog:
    """Mixin: remembers each ``next_section`` name and its start time.

    Manim drops sections with no rendered animation (every section in a
    headless dry run), so the scene keeps its own record for the tests:
    ``step_log`` [(name, start)], and ``step_end_keys[name]``, the keys of
    the numbers visible in the section's last frame (its still figure).
    """

    def next_section(self, name: str = "unnamed", *args: Any, **kwargs: Any) -> None:
        self.close_step()
        self.step_log.append((name, float(self.time)))
        super().next_section(name, *args, **kwargs)

    def close_step(self) -> None:
        """Record what the current section's last frame shows."""
        if not hasattr(self, "step_log"):
            self.step_log: list[tuple[str, float]] = []
            self.step_end_keys: dict[str, set[tuple]] = {}
        if self.step_log:
            self.step_end_keys[self.step_log[-1][0]] = {
                m.key for top in self.mobjects for m in top.get_family()
                if isinstance(m, NumberLabel) and m.key is not None
                and max(float(m.get_fill_opacity()), float(m.get_stroke_opacity())) > 0.02}


#: Zooms tried for small tables, largest first (1.5: digits at 30 pt).
ZOOMS = (1.5, 1.4, 1.3, 1.2, 1.1)


def zoom_for(fits: Any) -> float:
    """The largest of :data:`ZOOMS` for which ``fits(zoom)`` holds, else 1."""
    return next((z for z in ZOOMS if fits(z)), 1.0)


def table_cell_width(values: np.ndarray, theme: Any) -> float:
    """Cells wide enough for the numbers at 20 pt, between CELL_W and W_MAX:
    longer numbers drop decimals rather than push a table off the frame."""
    return max(CELL_W, cell_width_for(values, theme, maximum=W_MAX))


def legend_row(theme: Any, entries: Sequence[tuple[str, str, Any]], y: float = LEGEND_Y,
               max_width: float = 13.6, heat: bool = False, heat_top: Any = None,
               heat_bottom: Any = None) -> VGroup:
    """Matrix names with their shapes in one row under the title: ``[(tex, shape, colour)]``.

    With ``heat``, the heat scale's key ends the row (weights are filled by it).
    Never shrunk: if the full row is too wide, each shape loses its
    description (the part after the colon), then the key goes.
    """
    def build(full: bool, with_key: bool) -> VGroup:
        items = VGroup()
        for tex, shape, colour in entries:
            items.add(VGroup(math_label(tex, theme, NAME_TEX, colour),
                             caption(shape if full else shape.split(":")[0], theme, LABEL_SIZE,
                                     theme.muted)
                             ).arrange(RIGHT, buff=0.2))
        if with_key:
            items.add(heat_key(theme, width=1.6, font_size=LABEL_SIZE,
                               top=None if heat_top is None else heat_top.copy(),
                               bottom=None if heat_bottom is None else heat_bottom.copy()))
        return items.arrange(RIGHT, buff=0.7)

    for full, with_key in ((True, heat), (False, heat), (False, False)):
        row = build(full, with_key)
        if row.width <= max_width:
            break
    return row.move_to([0, y, 0])
