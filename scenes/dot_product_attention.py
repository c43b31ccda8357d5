"""``dot_product_attention``: one query over the input features.

Draft 000, Part 2, "Abstraction 2", steps 1-4: the query ``s_2`` and the
input features ``X`` (``N_X x D_Q``); ``E = s_2 X^T`` computed entry by entry
(each product ``s_2k h_ik`` appears and a running sum grows); ``A =
softmax(E)``; ``o = A X``; and a zoom into ``o_2 = a_2. h_.2``, a weighted
average of the second feature of every input.

Layout: ``s_2`` is a row above ``X`` (its entries sit over the columns they
multiply), ``E`` and ``A`` are columns beside ``X`` (entry ``i`` level with
row ``h_i``), the products and running sums are rows under ``X``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Arrow,
    Create,
    FadeIn,
    Line,
    Rectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    smooth,
)

from .base import WalkthroughScene
from .components import (
    CELL_H,
    CELL_W,
    ValueCell,
    ValueMatrix,
    VectorColumn,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
    title_bar,
)

__all__ = [
    "DotProductAttentionScene",
    "RowVector",
    "step_caption",
    "rekey_transposed",
    "veil",
    "place_product",
    "name_block",
    "caption_out",
    "caption_in",
]

TITLE_Y = 3.55
CAPTION_Y = -3.3
MAX_ROWS = 8




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


def step_caption(text: str, theme: Any, y: float = CAPTION_Y, font_size: float = 22) -> VGroup:
    """A caption line (or two) at the bottom of the frame, fitted to its width."""
    lines = VGroup(*(caption(line, theme, font_size) for line in text.split("\n")))
    lines.arrange(DOWN, buff=0.12)
    fit_within(lines, max_width=13.4)
    return lines.move_to([0, y, 0])


def _first_half(t: float) -> float:
    return smooth(min(1.0, 2.0 * t))


def _second_half(t: float) -> float:
    return smooth(max(0.0, 2.0 * t - 1.0))


def caption_out(cap: Any) -> Animation:
    """The old caption fades out in the first half of the animation ..."""
    return fade_out(cap, rate_func=_first_half)


def caption_in(cap: Any) -> Animation:
    """... and the new one fades in during the second half, so they never cross."""
    return fade_in(cap, rate_func=_second_half)


def veil(theme: Any, *mobs: Any, opacity: float = 0.72, buff: float = 0.04) -> VGroup:
    """Background-coloured veils over ``mobs``: dims what is out of focus.

    Fading a veil in and out is much cheaper than animating the opacity of
    every cell (each such animation deep-copies the whole group).
    """
    out = VGroup()
    for mob in mobs:
        out.add(Rectangle(width=mob.width + 2 * buff, height=mob.height + 2 * buff,
                          stroke_width=0, fill_color=theme.background,
                          fill_opacity=opacity).move_to(mob))
    return out


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


def name_block(theme: Any, entries: Sequence[tuple[str, str, Any]], font_size: float = 30) -> VGroup:
    """Matrix names with their shapes, one per line: ``[(tex, shape, colour), ...]``."""
    lines = VGroup()
    for tex, shape, colour in entries:
        lines.add(VGroup(math_label(tex, theme, font_size, colour),
                         caption(shape, theme, 18, theme.muted)).arrange(RIGHT, buff=0.2))
    return lines.arrange(DOWN, buff=0.2, aligned_edge=LEFT)


class DotProductAttentionScene(WalkthroughScene):
    scene_id = "dot_product_attention"
    trace_sections = ("dot_product_attention",)
    description = ("Dot-product attention for one query s_2: E = s_2 X^T entry by entry, "
                   "A = softmax(E), o = A X as weighted averages.")

    def construct(self) -> None:
        theme, tr = self.theme, self.trace.dot_product_attention
        N, D = tr.inputs.shape
        key = "dot_product_attention"
        rows = min(N, MAX_ROWS)
        # X's left edge leaves room for its name and row labels.
        x_left = -5.35
        # Centre the working block (s_2 row, X, two rows below) in the space
        # between the title and the caption; big N starts right under the title.
        block = 0.85 + rows * CELL_H + 0.1 + 1.45
        x_top = min(2.25, 0.15 + block / 2 - 0.85)

        title = title_bar(
            caption("Dot-product attention, one query", theme, 28),
            math_label(r"E = s_2\,X^{T} \qquad A = \mathrm{softmax}(E) \qquad o = A\,X", theme, 30),
            y=TITLE_Y,
        )

        # -- step 1: the variables and their shapes --------------------------
        X = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                        row_labels=[f"h{subscript(i + 1)}" for i in range(N)], max_rows=MAX_ROWS)
        X.frame.set_stroke(theme.key)
        X.shift([x_left - X.frame.get_left()[0], x_top - X.frame.get_top()[1], 0])
        col_x = [X.grid[c].get_x() for c in range(D)]  # D <= 6: never elided
        row_y = {i: X.cell(i, 0).get_y() for i in range(N) if X.cell(i, 0) is not None}

        s = RowVector(tr.query, theme, f"{key}.query", theme.query)
        s.move_to([np.mean(col_x), x_top + 0.55, 0])
        s_name = VGroup(math_label("s_2", theme, 32, theme.query),
                        caption(f"1\u00d7{D}", theme, 16, theme.muted)).arrange(DOWN, buff=0.05)
        s_name.next_to(s.frame, LEFT, buff=0.25)
        X_name = VGroup(math_label("X", theme, 34, theme.key),
                        caption(f"{N}\u00d7{D}", theme, 16, theme.muted)).arrange(DOWN, buff=0.05)
        X_name.next_to(X.row_labels, LEFT, buff=0.2)
        cap = step_caption(
            f"Step 1: the query s\u2082 has D_Q = {D} numbers; the N_X = {N} input features "
            f"are the rows h\u1d62 of X ({N}\u00d7{D}), the keys.", theme)
        self.play(fade_in(title))
        self.play(fade_in(s), fade_in(s_name), fade_in(X), fade_in(X_name), fade_in(cap))
        self.wait(0.8)

        # -- step 2: E = s_2 X^T, one entry at a time ------------------------
        e_x = X.frame.get_right()[0] + 0.85
        a_x = e_x + 2.2
        E = VectorColumn(tr.scores, theme, key=f"{key}.scores", colour=theme.text,
                         max_rows=MAX_ROWS)
        E.move_to([e_x, 0, 0]).shift([0, row_y[0] - E.cell_by_index[0].get_y(), 0])
        E_name = VGroup(math_label("E", theme, 32), caption(f"{N}\u00d71", theme, 16, theme.muted)
                        ).arrange(DOWN, buff=0.05).next_to(E.frame, UP, buff=0.12)
        terms_y = X.frame.get_bottom()[1] - 0.45
        sums_y = terms_y - CELL_H - 0.12
        terms_name = math_label(r"s_{2k}\,h_{ik}", theme, 24).move_to([x_left - 0.75, terms_y, 0])
        sums_name = caption("running sum", theme, 16, theme.muted)
        fit_within(sums_name, max_width=1.45).move_to([x_left - 0.75, sums_y, 0])
        new_cap = step_caption(
            "Step 2: E = s\u2082\u00b7X\u1d40. Each raw score e\u1d62 = s\u2082\u00b7h\u1d62: "
            "multiply s\u2082 with row h\u1d62 entry by entry and add the products up.", theme)
        self.play(caption_out(cap), caption_in(new_cap), fade_in(E.frame), fade_in(E_name),
                  fade_in(terms_name), fade_in(sums_name))
        cap = new_cap

        shown_rows = [i for i in range(N) if i in row_y]
        for n, i in enumerate(shown_rows):
            focus_row = SurroundingRectangle(VGroup(*(X.cell(i, k) for k in range(D))),
                                             color=theme.highlight, buff=0.03)
            focus_s = SurroundingRectangle(s.cells, color=theme.highlight, buff=0.03)
            terms = VGroup()
            sums = VGroup()
            for k in range(D):
                terms.add(ValueCell(tr.terms[i, k], theme, (f"{key}.terms", i, k),
                                    scale=max(float(np.max(np.abs(tr.terms))), 1e-9))
                          .move_to([col_x[k], terms_y, 0]))
                sums.add(ValueCell(tr.partial_sums[i, k], theme, (f"{key}.partial_sums", i, k),
                                   scale=max(float(np.max(np.abs(tr.partial_sums))), 1e-9))
                         .move_to([col_x[k], sums_y, 0]))
            self.play(Create(focus_row), Create(focus_s), run_time=0.5 if n else 0.8)
            if n == 0:
                # The first entry slowly: each product appears and the sum grows.
                for k in range(D):
                    pair = VGroup(s.cell_by_index[k], X.cell(i, k))
                    ring = SurroundingRectangle(pair, color=theme.query, buff=0.04)
                    self.play(Create(ring), TransformFromCopy(pair, terms[k]), run_time=0.6)
                    # The sum so far plus this product gives the next running sum.
                    parts = VGroup(sums[k - 1], terms[k]) if k > 0 else terms[k]
                    self.play(TransformFromCopy(parts, sums[k]), fade_out(ring), run_time=0.6)
            else:
                self.play(TransformFromCopy(VGroup(s.cells, *(X.cell(i, k) for k in range(D))),
                                            terms), run_time=0.6)
                self.play(FadeIn(sums, lag_ratio=0.3), run_time=0.6)
            self.play(TransformFromCopy(sums[D - 1], E.cell_by_index[i]), run_time=0.6)
            self.add(E.cell_by_index[i])
            self.play(fade_out(terms), fade_out(sums), fade_out(focus_row), fade_out(focus_s),
                      run_time=0.4)
        # The dots of an elided E come with the last shown row.
        self.add(E.cells)
        self.play(fade_out(terms_name), fade_out(sums_name), run_time=0.4)

        # -- step 3: A = softmax(E) ------------------------------------------
        A = VectorColumn(tr.weights, theme, key=f"{key}.weights", colour=theme.highlight,
                         max_rows=MAX_ROWS)
        for i, cell in A.cell_by_index.items():
            cell.box.set_fill(theme.heat(tr.weights[i]), opacity=0.85)
        A.move_to([a_x, 0, 0]).shift([0, row_y[0] - A.cell_by_index[0].get_y(), 0])
        A_name = VGroup(math_label("A", theme, 32, theme.highlight),
                        caption(f"{N}\u00d71", theme, 16, theme.muted)
                        ).arrange(DOWN, buff=0.05).next_to(A.frame, UP, buff=0.12)
        arrow = Arrow(E.frame.get_right(), A.frame.get_left(), buff=0.08, color=theme.muted,
                      stroke_width=3, max_tip_length_to_length_ratio=0.2)
        soft = caption("softmax", theme, 16, theme.muted)
        fit_within(soft, max_width=a_x - e_x - 0.9)
        soft.next_to(arrow, UP, buff=0.08)
        new_cap = step_caption(
            "Step 3: softmax turns the raw scores into weights A: all positive, summing to 1,\n"
            "the share of attention each input feature gets from this query.", theme)
        self.play(caption_out(cap), caption_in(new_cap), Create(arrow), fade_in(soft))
        cap = new_cap
        self.play(TransformFromCopy(E.cells, A.cells), fade_in(A.frame), fade_in(A_name), run_time=1.2)
        self.wait(0.8)

        # -- step 4: o = A X ---------------------------------------------------
        o = RowVector(tr.output, theme, f"{key}.output", theme.value)
        o.move_to([np.mean(col_x), X.frame.get_bottom()[1] - 0.6, 0])
        o_name = VGroup(math_label("o", theme, 32, theme.value),
                        caption(f"1\u00d7{D}", theme, 16, theme.muted)).arrange(DOWN, buff=0.05)
        o_name.next_to(o.frame, LEFT, buff=0.25)
        new_cap = step_caption(
            f"Step 4: o = A\u00b7X has the query's shape (1\u00d7{D}): each output number mixes "
            "one feature of all the inputs.", theme)
        self.play(caption_out(cap), caption_in(new_cap))
        cap = new_cap
        # A cheap fade: a transform from all of A and X would copy every glyph.
        self.play(FadeIn(o.cells, shift=DOWN * 0.2, lag_ratio=0.3), fade_in(o.frame),
                  fade_in(o_name), run_time=1.2)
        self.wait(0.6)

        # The zoom: o_2 = a_2. h_.2, a weighted average of feature 2.
        f = 1  # the second feature, as in the draft
        col = VGroup(*(X.cell(i, f) for i in shown_rows))
        others = [X.cell(i, k) for i in shown_rows for k in range(D) if k != f]
        others += [o.cell_by_index[k] for k in range(D) if k != f]
        veils = veil(theme, s, E, *others, s_name, E_name)
        self.play(fade_in(veils), run_time=0.6)
        w_x = a_x + 1.7
        weighted = VGroup()
        for i in shown_rows:
            weighted.add(ValueCell(tr.weighted_inputs[i, f], theme, (f"{key}.weighted_inputs", i, f),
                                   scale=max(float(np.max(np.abs(tr.weighted_inputs))), 1e-9))
                         .move_to([w_x, row_y[i], 0]))
        w_frame = Rectangle(width=CELL_W + 0.1, height=len(E.cells) * CELL_H + 0.1,
                            stroke_color=theme.value, stroke_width=3).move_to(
                                [w_x, E.cells.get_y(), 0])
        w_name = math_label(r"a_i\,h_{i2}", theme, 28, theme.value).next_to(w_frame, UP, buff=0.12)
        w_name.set_y(A_name.get_y())
        rings = VGroup(SurroundingRectangle(col, color=theme.value, buff=0.03),
                       SurroundingRectangle(A.cells, color=theme.value, buff=0.03))
        self.play(Create(rings), fade_in(w_name), Create(w_frame), run_time=0.6)
        self.play(TransformFromCopy(col, weighted), run_time=1.0)
        rule = Line([w_x - CELL_W / 2, 0, 0], [w_x + CELL_W / 2, 0, 0], color=theme.value)
        rule.next_to(w_frame, DOWN, buff=0.12)
        total = ValueCell(tr.output[f], theme, (f"{key}.output", f),
                          scale=max(float(np.max(np.abs(tr.output))), 1e-9))
        total.next_to(rule, DOWN, buff=0.1)
        plus = caption("sum", theme, 16, theme.muted).next_to(total, RIGHT, buff=0.12)
        new_cap = step_caption(
            "Zoom: o\u2082 = a\u2082\u2022\u00b7h\u2022\u2082 = \u03a3\u1d62 a\u1d62 h\u1d62\u2082, "
            "a weighted average of the second feature of every input,\n"
            "weighted by how much attention each input gets.", theme)
        self.play(caption_out(cap), caption_in(new_cap), Create(rule), fade_in(plus),
                  fade_in(total, shift=DOWN * 0.2), run_time=1.0)
        cap = new_cap
        same = VGroup(SurroundingRectangle(o.cell_by_index[f], color=theme.highlight, buff=0.04),
                      SurroundingRectangle(total, color=theme.highlight, buff=0.04))
        self.play(Create(same), run_time=0.8)
        self.wait(1.5)
        self.play(fade_out(veils), run_time=0.6)
        self.wait(0.5)
