"""``multi_query_attention``: many queries at once.

Draft 000, Part 2, "Abstraction 3": the queries stacked as the rows of
``Q`` (``N_Q x D_Q``); ``E = Q X^T`` gives every query's raw scores in one
product; softmax along each row; ``O = A X`` gives every output at once,
row ``j`` of ``O`` coming from row ``j`` of ``A``, the weights of query ``j``.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    Create,
    FadeIn,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from .base import WalkthroughScene
from .components import (
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
    name_block,
    place_product,
    rekey_transposed,
    step_caption,
    veil,
)

__all__ = ["MultiQueryAttentionScene"]

TITLE_Y = 3.55
CAPTION_Y = -3.55
MATRIX_TOP = 3.1
MAX_SHOWN = 8


class MultiQueryAttentionScene(WalkthroughScene):
    scene_id = "multi_query_attention"
    trace_sections = ("multi_query_attention",)
    description = ("Attention for a matrix of queries: E = Q X^T, softmax along each row, "
                   "O = A X gives every output at once.")

    def construct(self) -> None:
        theme, tr = self.theme, self.trace.multi_query_attention
        key = "multi_query_attention"
        N, D = tr.inputs.shape
        NQ = tr.queries.shape[0]
        q_names = [f"q{subscript(j + 1)}" for j in range(NQ)]
        h_names = [f"h{subscript(i + 1)}" for i in range(N)]

        title = title_bar(
            caption("Many queries at once", theme, 28),
            math_label(r"E = Q\,X^{T} \qquad A = \mathrm{softmax}_{\text{rows}}(E) \qquad O = A\,X",
                       theme, 30),
            y=TITLE_Y,
        )

        # -- steps 1-2: Q and X^T, then E = Q X^T ------------------------------
        Q = ValueMatrix(tr.queries, theme, key=f"{key}.queries", colour=theme.query,
                        row_labels=q_names)
        XT = rekey_transposed(ValueMatrix(tr.inputs.T, theme, colour=theme.key,
                                          col_labels=h_names, max_cols=MAX_SHOWN), f"{key}.inputs")
        E = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.text,
                        max_cols=MAX_SHOWN)
        top1 = self._top_y(XT, E)
        place_product(Q, XT, E, top1)
        names = name_block(theme, [
            ("Q", f"{NQ}\u00d7{D}: {NQ} quer{'y' if NQ == 1 else 'ies'} as rows", theme.query),
            ("X^{T}", f"{D}\u00d7{N}: the {N} inputs as columns", theme.key),
            (r"E = Q\,X^{T}", f"{NQ}\u00d7{N}", theme.text),
        ], font_size=28)
        self._fit_names(names, Q, XT, top1)

        cap = step_caption(
            f"Step 1: stack the {NQ} query vectors as the rows of Q; the input features X are "
            "the same as before.", theme, CAPTION_Y)
        self.play(fade_in(title))
        self.play(fade_in(Q), fade_in(XT), fade_in(names[0]), fade_in(names[1]), fade_in(cap))
        self.wait(0.6)

        new_cap = step_caption(
            "Step 2: e\u2c7c\u1d62 = q\u2c7c\u00b7h\u1d62, the query of row j with the input of "
            "column i: one product gives every query's raw scores.", theme, CAPTION_Y)
        first = VGroup(*(Q.cell(0, k) for k in range(D)))
        column = VGroup(*(XT.cell(k, 0) for k in range(D)))
        rings = VGroup(SurroundingRectangle(first, color=theme.highlight, buff=0.03),
                       SurroundingRectangle(column, color=theme.highlight, buff=0.03))
        self.play(caption_out(cap), caption_in(new_cap), Create(rings), fade_in(E.frame), fade_in(names[2]))
        cap = new_cap
        self.play(TransformFromCopy(VGroup(first, column), E.cell(0, 0)), run_time=0.8)
        rest = VGroup(*(m for m in E.grid if m is not E.cell(0, 0)))
        self.play(fade_out(rings), FadeIn(rest, lag_ratio=0.05), run_time=1.2)
        self.wait(0.6)

        # -- step 3: softmax along each row ------------------------------------
        A = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.highlight,
                        max_cols=MAX_SHOWN, heat=True).move_to(E)
        new_cap = step_caption(
            "Step 3: softmax along each row: every query gets its own weights over the "
            f"{N} inputs, summing to 1.", theme, CAPTION_Y)
        self.play(caption_out(cap), caption_in(new_cap))
        cap = new_cap
        width = len(E.grid) // NQ
        rows_A = []
        for j in range(NQ):
            row_E = VGroup(*E.grid[j * width:(j + 1) * width])
            row_A = VGroup(*A.grid[j * width:(j + 1) * width])
            ring = SurroundingRectangle(row_E, color=theme.highlight, buff=0.03)
            self.play(Create(ring), run_time=0.3)
            self.play(fade_out(row_E), fade_in(row_A), fade_out(ring), run_time=0.5 if NQ > 3 else 0.8)
            rows_A.append(row_A)
        self.play(fade_out(E.frame), fade_in(A.frame), run_time=0.4)
        # From here A is one group (its rows were added one by one).
        self.remove(E, *rows_A)
        self.add(A)
        A_name = name_block(theme, [(r"A = \mathrm{softmax}(E)", f"{NQ}\u00d7{N}", theme.highlight)],
                            font_size=28)[0].move_to(names[2], aligned_edge=LEFT)
        self.play(fade_out(names[2]), fade_in(A_name))
        self.wait(0.6)

        # -- step 4: O = A X, every output row at once --------------------------
        X = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                        row_labels=h_names, max_rows=MAX_SHOWN)
        O = ValueMatrix(tr.outputs, theme, key=f"{key}.outputs", colour=theme.value)
        A2 = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.highlight,
                         max_cols=MAX_SHOWN, heat=True, row_labels=q_names)
        top2 = self._top_y(X, O)
        place_product(A2, X, O, top2)
        names2 = name_block(theme, [
            ("A", f"{NQ}\u00d7{N}: one row of weights per query", theme.highlight),
            ("X", f"{N}\u00d7{D}: the inputs as rows", theme.key),
            (r"O = A\,X", f"{NQ}\u00d7{D}: one output per query", theme.value),
        ], font_size=28)
        self._fit_names(names2, A2, X, top2)
        new_cap = step_caption(
            "Step 4: O = A\u00b7X: each row of O is a weighted average of the inputs, "
            "for all queries at once.", theme, CAPTION_Y)
        self.play(caption_out(cap), caption_in(new_cap), fade_out(Q), fade_out(XT), fade_out(names),
                  fade_out(A_name), fade_out(A.frame), run_time=0.8)
        cap = new_cap
        self.remove(A, A.grid)  # fading its frame split A into parts
        self.play(TransformFromCopy(A.grid, A2.grid), fade_in(A2.frame), fade_in(A2.row_labels),
                  fade_in(X), fade_in(names2[0]), fade_in(names2[1]), run_time=1.0)
        self.play(fade_in(O.frame), fade_in(names2[2]),
                  FadeIn(O.grid, shift=DOWN * 0.2, lag_ratio=0.05), run_time=1.2)
        self.wait(0.6)

        # Row j of A (query j's weights) makes row j of O.
        width_A = len(A2.grid) // NQ
        for j in range(NQ):
            row_A = VGroup(*A2.grid[j * width_A:(j + 1) * width_A])
            row_O = VGroup(*O.grid[j * D:(j + 1) * D])
            rings = VGroup(SurroundingRectangle(row_A, color=theme.query, buff=0.03),
                           SurroundingRectangle(row_O, color=theme.query, buff=0.03))
            others = [VGroup(*A2.grid[r * width_A:(r + 1) * width_A]) for r in range(NQ) if r != j]
            others += [VGroup(*O.grid[r * D:(r + 1) * D]) for r in range(NQ) if r != j]
            veils = veil(theme, *others)
            note = step_caption(
                f"Query {j + 1}: its weights (row {j + 1} of A) average the inputs into "
                f"output row {j + 1} of O.", theme, CAPTION_Y)
            self.play(Create(rings), fade_in(veils), caption_out(cap), caption_in(note),
                      run_time=0.5 if NQ > 3 else 0.8)
            self.wait(0.4 if NQ > 3 else 0.8)
            self.play(fade_out(rings), fade_out(veils), run_time=0.3)
            cap = note
        final = step_caption(
            f"Stacking the queries computes all {NQ} outputs in one pass: no loop over "
            "time steps.", theme, CAPTION_Y)
        self.play(caption_out(cap), caption_in(final))
        self.wait(1.5)

    @staticmethod
    def _top_y(top, result) -> float:
        """Top edge that centres a product layout between title and caption."""
        height = (top.col_labels.height + 0.1 if len(top.col_labels) else 0.0)
        height += top.frame.height + 0.35 + result.frame.height
        return min(MATRIX_TOP, height / 2 + 0.1)

    def _fit_names(self, names: VGroup, left, top, top_y: float) -> None:
        """Put the name block in the free corner: left of ``top``, above ``left``."""
        room_w = top.frame.get_left()[0] - (-7.0) - 0.3
        room_h = top_y - left.frame.get_top()[1] - 0.15
        fit_within(names, max_width=room_w, max_height=room_h)
        names.move_to([(-7.0 + top.frame.get_left()[0]) / 2 - 0.1,
                       (top_y + left.frame.get_top()[1]) / 2, 0])

