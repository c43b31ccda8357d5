"""``worked_example``: draft 002's numerical example, every matrix with its values.

The inputs ``X`` (rows are input vectors) and queries ``q`` (rows are query
vectors); the scores ``s = X q^T`` (inputs x queries); the weights ``alpha``,
a softmax down each *column* of ``s`` (over the inputs); the context vectors
``C = alpha^T X``, one row per query. One column's softmax and one row of
``C`` (a weighted average of the inputs) are highlighted. All values are
computed by the core; draft 002's printed results are not used.
"""

from __future__ import annotations

import math

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    ReplacementTransform,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from .base import WalkthroughScene
from .components import (
    CELL_H,
    NumberLabel,
    ValueMatrix,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
    title_bar,
)
from .dot_product_attention import (
    caption_in,
    caption_out,
    RowVector,
    name_block,
    place_product,
    rekey_transposed,
    step_caption,
    veil,
)

__all__ = ["WorkedExampleScene"]

TITLE_Y = 3.55
CAPTION_Y = -3.55
CAPTION_TOP = -3.3
MATRIX_TOP = 3.1
GAP = 0.35
SUM_ROW = 0.55  # room under alpha for its column sums
MAX_COLS = 8
FOCUS = 0  # the query whose softmax and context row are highlighted


def _rows_budget(top_rows: int, bottom_reserve: float) -> int:
    """How many rows of an input matrix fit under a matrix of ``top_rows`` rows."""
    free = MATRIX_TOP - 0.3 - (top_rows * CELL_H + 0.1) - GAP - bottom_reserve - CAPTION_TOP
    return max(3, min(8, math.floor((free - 0.1) / CELL_H)))


class WorkedExampleScene(WalkthroughScene):
    scene_id = "worked_example"
    trace_sections = ("worked_example",)
    description = ("Draft 002's worked example: s = X q^T, a softmax down each column, "
                   "C = alpha^T X, with every value computed.")

    def construct(self) -> None:
        theme, tr = self.theme, self.trace.worked_example
        key = "worked_example"
        N, D = tr.inputs.shape
        M = tr.queries.shape[0]
        x_names = [f"x{subscript(i + 1)}" for i in range(N)]
        q_names = [f"q{subscript(j + 1)}" for j in range(M)]
        # One elision for X everywhere, so it keeps its rows between steps.
        step4_free = MATRIX_TOP - CAPTION_TOP - GAP - (M * CELL_H + 0.1) - 0.15
        rows = max(3, min(_rows_budget(D, SUM_ROW), math.floor(step4_free / CELL_H)))

        title = title_bar(
            caption("Worked example", theme, 28),
            math_label(r"s = X\,q^{T} \qquad \alpha = \mathrm{softmax}_{\text{columns}}(s)"
                       r" \qquad C = \alpha^{T} X", theme, 30),
            y=TITLE_Y,
        )

        # -- step 1: the inputs and the queries -------------------------------
        X1 = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                         row_labels=x_names, max_rows=rows)
        q1 = ValueMatrix(tr.queries, theme, key=f"{key}.queries", colour=theme.query,
                         row_labels=q_names)
        # Lays the two side by side (the group itself is not shown).
        VGroup(X1, q1).arrange(RIGHT, buff=2.0, aligned_edge=UP).move_to([0, 0.3, 0])
        X1_name = name_block(theme, [("X", f"{N}\u00d7{D}: {N} input vectors (rows)", theme.key)])
        q1_name = name_block(theme, [("q", f"{M}\u00d7{D}: {M} query vectors (rows)", theme.query)])
        X1_name.next_to(X1, UP, buff=0.3)
        q1_name.next_to(q1, UP, buff=0.3)
        for name, mat in ((X1_name, X1), (q1_name, q1)):
            fit_within(name, max_width=6.2)
            name.next_to(mat, UP, buff=0.3)
        cap = step_caption(f"Step 1: the inputs X ({N}\u00d7{D}) and the queries q ({M}\u00d7{D}) "
                           f"have the same {D} features.", theme, CAPTION_Y)
        self.play(fade_in(title))
        self.play(fade_in(X1), fade_in(q1), fade_in(X1_name), fade_in(q1_name), fade_in(cap))
        self.wait(1.0)

        # -- step 2: s = X q^T -----------------------------------------------
        X2 = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                         row_labels=x_names, max_rows=rows)
        qT = rekey_transposed(ValueMatrix(tr.queries.T, theme, colour=theme.query,
                                          col_labels=q_names), f"{key}.queries")
        S = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.text,
                        max_rows=rows, col_labels=None)
        top2 = self._top_y(qT, S, SUM_ROW)
        place_product(X2, qT, S, top2)
        names = name_block(theme, [
            ("X", f"{N}\u00d7{D}", theme.key),
            ("q^{T}", f"{D}\u00d7{M}", theme.query),
            (r"s = X\,q^{T}", f"{N}\u00d7{M}", theme.text),
        ])
        self._fit_names(names, X2, qT, top2)
        new_cap = step_caption(
            "Step 2: s = X\u00b7q\u1d40: entry (i, j) is the dot product of input x\u1d62 "
            "with query q\u2c7c (rows: inputs, columns: queries).", theme, CAPTION_Y)
        src = VGroup(*(q1.cell(j, k) for k in range(D) for j in range(M)))
        tgt = VGroup(*(qT.cell(k, j) for k in range(D) for j in range(M)))
        self.play(caption_out(cap), caption_in(new_cap), fade_out(X1_name), fade_out(q1_name),
                  ReplacementTransform(X1, X2), ReplacementTransform(src, tgt),
                  fade_out(q1.frame), fade_out(q1.row_labels), fade_in(qT.frame), fade_in(qT.col_labels),
                  run_time=1.2)
        cap = new_cap
        self.play(fade_in(names[0]), fade_in(names[1]), fade_in(names[2]), fade_in(S.frame))
        first = VGroup(*(X2.cell(0, k) for k in range(D)))
        column = VGroup(*(qT.cell(k, 0) for k in range(D)))
        rings = VGroup(SurroundingRectangle(first, color=theme.highlight, buff=0.03),
                       SurroundingRectangle(column, color=theme.highlight, buff=0.03))
        self.play(Create(rings), run_time=0.5)
        self.play(TransformFromCopy(VGroup(first, column), S.cell(0, 0)), run_time=0.8)
        rest = VGroup(*(m for m in S.grid if m is not S.cell(0, 0)))
        self.play(fade_out(rings), FadeIn(rest, lag_ratio=0.05), run_time=1.2)
        self.wait(0.8)

        # -- step 3: alpha = softmax of each column ----------------------------
        alpha = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.highlight,
                            max_rows=rows, heat=True).move_to(S)
        sums = RowVector(tr.weight_sums, theme, f"{key}.weight_sums", theme.muted)
        sums.next_to(alpha.frame, DOWN, buff=0.15)
        sums_name = caption("column sums", theme, 16, theme.muted)
        fit_within(sums_name, max_width=2.0).next_to(sums.frame, LEFT, buff=0.2)
        col_S = VGroup(*(m for r, m in enumerate(S.grid) if r % M == FOCUS))
        col_A = VGroup(*(m for r, m in enumerate(alpha.grid) if r % M == FOCUS))
        new_cap = step_caption(
            f"Step 3: softmax down column {FOCUS + 1}: the scores of query {FOCUS + 1} over the "
            f"{N} inputs become weights that sum to 1.", theme, CAPTION_Y)
        ring = SurroundingRectangle(col_S, color=theme.highlight, buff=0.03)
        self.play(caption_out(cap), caption_in(new_cap), Create(ring))
        cap = new_cap
        self.play(fade_out(col_S), fade_in(col_A), run_time=1.0)
        self.play(TransformFromCopy(col_A, sums.cell_by_index[FOCUS]), fade_in(sums.frame),
                  fade_in(sums_name), run_time=0.8)
        self.wait(0.8)
        rest_S = VGroup(*(m for r, m in enumerate(S.grid) if r % M != FOCUS))
        rest_A = VGroup(*(m for r, m in enumerate(alpha.grid) if r % M != FOCUS))
        rest_sums = VGroup(*(c for k, c in sums.cell_by_index.items() if k != FOCUS))
        new_cap = step_caption("... and the same for every column: one distribution over the "
                               "inputs per query.", theme, CAPTION_Y)
        self.play(caption_out(cap), caption_in(new_cap), fade_out(ring), fade_out(rest_S), fade_in(rest_A),
                  fade_out(S.frame), fade_in(alpha.frame), run_time=1.0)
        cap = new_cap
        self.play(fade_in(rest_sums), run_time=0.6)
        alpha_name = name_block(theme, [(r"\alpha = \mathrm{softmax}(s)", f"{N}\u00d7{M}",
                                         theme.highlight)])[0]
        # As tall as the line it replaces, unless that would overflow the free corner.
        alpha_name.scale_to_fit_height(names[2].height * 1.1)
        fit_within(alpha_name, max_width=qT.frame.get_left()[0] - names[2].get_left()[0] - 0.3)
        alpha_name.move_to(names[2], aligned_edge=LEFT)
        self.play(fade_out(names[2]), fade_in(alpha_name))
        self.wait(0.8)

        # -- step 4: C = alpha^T X ---------------------------------------------
        aT = rekey_transposed(ValueMatrix(tr.weights.T, theme, colour=theme.highlight,
                                          row_labels=q_names, max_cols=rows, heat=True),
                              f"{key}.weights")
        X4 = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                         row_labels=x_names, max_rows=rows)
        C = ValueMatrix(tr.context, theme, key=f"{key}.context", colour=theme.value)
        top4 = self._top_y(X4, C, 0.0)
        place_product(aT, X4, C, top4)
        names4 = name_block(theme, [
            (r"\alpha^{T}", f"{M}\u00d7{N}", theme.highlight),
            ("X", f"{N}\u00d7{D}", theme.key),
            (r"C = \alpha^{T} X", f"{M}\u00d7{D}", theme.value),
        ])
        self._fit_names(names4, aT, X4, top4)
        new_cap = step_caption(
            f"Step 4: C = \u03b1\u1d40\u00b7X: one context vector per query ({M}\u00d7{D}), "
            "each a weighted average of the input vectors.", theme, CAPTION_Y)
        # alpha's entry (i, j) moves to (j, i) of alpha^T.
        kept = [(i, j) for (i, j) in alpha.cell_by_index if aT.cell(j, i) is not None]
        src = VGroup(*(alpha.cell(i, j) for i, j in kept))
        tgt = VGroup(*(aT.cell(j, i) for i, j in kept))
        a_dots = VGroup(*(m for m in alpha.grid if m not in alpha.cell_by_index.values()))
        aT_dots = VGroup(*(m for m in aT.grid if m not in aT.cell_by_index.values()))
        self.play(caption_out(cap), caption_in(new_cap), fade_out(VGroup(names[0], names[1], alpha_name)),
                  fade_out(qT), fade_out(sums), fade_out(sums_name), fade_out(alpha.frame),
                  fade_out(a_dots), ReplacementTransform(src, tgt), ReplacementTransform(X2, X4),
                  fade_in(aT.frame), fade_in(aT.row_labels), fade_in(aT_dots), run_time=1.4)
        cap = new_cap
        self.play(fade_in(names4[0]), fade_in(names4[1]), fade_in(names4[2]), fade_in(C.frame))
        self.play(FadeIn(C.grid, shift=DOWN * 0.2, lag_ratio=0.05), run_time=1.2)
        self.wait(0.8)

        # Row FOCUS of C: the inputs averaged with query FOCUS's weights.
        row_a = VGroup(*(aT.cell(FOCUS, i) for i in range(N) if aT.cell(FOCUS, i) is not None))
        row_C = VGroup(*(C.cell(FOCUS, k) for k in range(D)))
        others = [VGroup(*(aT.cell(r, i) for i in range(N) if aT.cell(r, i) is not None))
                  for r in range(M) if r != FOCUS]
        others += [VGroup(*(C.cell(r, k) for k in range(D))) for r in range(M) if r != FOCUS]
        veils = veil(theme, *others)
        rings = VGroup(SurroundingRectangle(row_a, color=theme.value, buff=0.03),
                       SurroundingRectangle(row_C, color=theme.value, buff=0.03))
        formula = self._weighted_average(FOCUS)
        self.play(caption_out(cap), caption_in(formula), Create(rings), fade_in(veils), run_time=0.8)
        self.wait(2.0)
        self.play(fade_out(veils), fade_out(rings), run_time=0.5)
        self.wait(0.5)

    def _weighted_average(self, j: int) -> VGroup:
        """``c_j = alpha_1j x_1 + ...``, the weights as numbers from the trace."""
        theme, tr = self.theme, self.trace.worked_example
        N = tr.inputs.shape[0]
        shown = list(range(N)) if N <= 5 else [0, 1, 2, None, N - 1]
        parts = [caption(f"Row {j + 1} of C:", theme, 22),
                 math_label(f"c_{{{j + 1}}} =", theme, 30, theme.value)]
        for n, i in enumerate(shown):
            if n:
                parts.append(math_label("+", theme, 30))
            if i is None:
                parts.append(math_label(r"\cdots", theme, 30))
                continue
            parts.append(NumberLabel(tr.weights[i, j], theme, ("worked_example.weights", i, j),
                                     font_size=22, colour=theme.highlight))
            parts.append(math_label(rf"x_{{{i + 1}}}", theme, 30, theme.key))
        parts.append(caption(": a weighted average of the inputs", theme, 22))
        line = VGroup(*parts).arrange(RIGHT, buff=0.12)
        for p in parts:
            if isinstance(p, NumberLabel):
                p.align_to(parts[0], DOWN)
        fit_within(line, max_width=13.6)
        return line.move_to([0, CAPTION_Y, 0])

    @staticmethod
    def _top_y(top, result, below: float) -> float:
        """Top edge that centres a product layout between title and caption."""
        height = (top.col_labels.height + 0.1 if len(top.col_labels) else 0.0)
        height += top.frame.height + GAP + result.frame.height + below
        return min(MATRIX_TOP, height / 2 + 0.1)

    def _fit_names(self, names: VGroup, left, top, top_y: float) -> None:
        """Put the name block in the free corner: left of ``top``, above ``left``."""
        right = top.frame.get_left()[0]
        if len(top.row_labels):
            right = top.row_labels.get_left()[0]
        room_w = right - (-7.0) - 0.3
        room_h = top_y - left.frame.get_top()[1] - 0.15
        fit_within(names, max_width=room_w, max_height=room_h)
        names.move_to([(-7.0 + right) / 2, (top_y + left.frame.get_top()[1]) / 2, 0])
