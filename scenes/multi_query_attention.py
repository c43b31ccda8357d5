"""``multi_query_attention``: many queries at once.

Draft 000, Part 2, "Abstraction 3", its Steps 1-4 and the close-up, each a
named section (``next_section``):

1. ``step-1-variables``: the queries stacked as the rows of ``Q`` (N_Q x D)
   and the inputs as the columns of ``X^T`` (D x N);
2. ``step-2-scores``: ``E = Q X^T`` (N_Q x N) in one product;
3. ``step-3-softmax``: ``A`` = softmax along each row of ``E``, drawn beside
   ``E`` (which stays visible), each weight with its bar;
4. ``step-4-output``: ``O = A X`` (N_Q x N times N x D = N_Q x D);
5. ``close-up``: one number of ``O``, ``a_1. h_.2``, as a weighted average of
   the second feature of every input.

With many inputs the columns are elided, never those with a query's largest
weight (as far as they fit).
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    ReplacementTransform,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from .base import CaptionPacer, RESULT_PAUSE, WalkthroughScene
from .components import (
    CELL_H,
    caption_in,
    caption_out,
    ValueCell,
    ValueMatrix,
    _kept_indices,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
    title_bar,
)
from .dot_product_attention import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    LEFT_ROOM,
    NAME_TEX,
    fly,
    legend_row,
    table_cell_width,
    zoom_for,
    TITLE_Y,
    StepLog,
    _centred_top,
    name_block,
    place_product,
    rekey_transposed,
    veil,
)
from .glyphs import NUMBER_FONT, cell_width_for, weight_cells

__all__ = ["MultiQueryAttentionScene", "winners_kept"]

MAX_SHOWN = 8
MIN_ROW_H = 0.34  # a row 0.21-tall digits still sit in with room
SOFTMAX_GAP = 1.6  # between E and A in step 3: the arrow and "softmax per row"


def winners_kept(weights: np.ndarray, max_shown: int) -> list[int]:
    """Inputs that must stay visible: each query's favourite, as many as fit.

    Favourites are taken in order of their weight, so the strongest
    attention is never hidden behind the dots.
    """
    n = weights.shape[1]
    best = sorted({int(np.argmax(row)) for row in weights},
                  key=lambda i: -float(np.max(weights[:, i])))
    keep: list[int] = []
    for i in best:
        if len(_kept_indices(n, max_shown, [*keep, i])) <= max_shown:
            keep.append(i)
    return keep


class MultiQueryAttentionScene(StepLog, WalkthroughScene):
    scene_id = "multi_query_attention"
    trace_sections = ("multi_query_attention",)
    description = ("Attention for a matrix of queries (draft Steps 1-4 and the close-up): "
                   "E = Q X^T, softmax along each row (E kept beside A, weights with bars), "
                   "O = A X gives every output at once.")
    steps = ("step-1-variables", "step-2-scores", "step-3-softmax", "step-4-output", "close-up")
    shown_results = ("scores", "weights", "output")

    def construct(self) -> None:
        theme, tr = self.theme, self.trace.multi_query_attention
        key = "multi_query_attention"
        N, D = tr.inputs.shape
        NQ = tr.queries.shape[0]
        q_names = [f"q{subscript(j + 1)}" for j in range(NQ)]
        h_names = [f"h{subscript(i + 1)}" for i in range(N)]
        w0 = table_cell_width(np.concatenate([a.ravel() for a in (
            tr.inputs, tr.queries, tr.scores, tr.weights, tr.weighted_inputs, tr.outputs)]), theme)
        band = CONTENT_TOP - CONTENT_BOTTOM
        # Rows: X^T's D rows above E's NQ (steps 1-2) must fit the band; past
        # it the rows get lower (never the digits smaller: they are 0.21 tall).
        h1 = max(MIN_ROW_H, min(CELL_H, (band - 0.3 - 0.1 - 0.35 - 0.1 - 0.05) / (D + NQ)))

        def layout(z: float) -> tuple[int, bool]:
            """Inputs that fit at zoom ``z``: E and A side by side (step 3), Q beside
            X^T (step 2), X above O with the close-up row (step 4); and whether
            X^T above E fits the band (steps 1-2)."""
            w, h = w0 * z, h1 * z
            by_width = min(int((13.4 - 0.6 - SOFTMAX_GAP) / (2 * w)),
                           int((13.4 - LEFT_ROOM - 0.5 - D * w) // w))
            by_height = int((band - 0.05 - 0.1 - 0.35 - (NQ * h + 0.1) - 0.2 - h) // h)
            tall = 0.3 * z + (D + NQ) * h + 0.1 + 0.35 + 0.1 + 0.05 <= band
            return min(MAX_SHOWN, by_width, by_height), tall

        # Small tables larger (digits up to 30 pt) when all fits unelided.
        z = zoom_for(lambda z: layout(z)[1] and layout(z)[0] >= N)
        w, h, nf = w0 * z, h1 * z, NUMBER_FONT * z
        max_shown = max(3, layout(z)[0])
        keep = winners_kept(tr.weights, max_shown)
        shown = [i for i in _kept_indices(N, max_shown, keep) if i is not None]
        mat = dict(cell_width=w, cell_height=h, font_size=nf, label_size=20 * z)
        pacer = self.pacer = CaptionPacer(self)

        title = title_bar(
            caption("Many queries at once", theme, 28),
            math_label(r"E = Q\,X^{T} \qquad A = \mathrm{softmax}_{\text{rows}}(E) \qquad O = A\,X",
                       theme, 30),
            y=TITLE_Y,
        )
        self.add(title)  # the first frame is the title, never black

        # -- step 1: Q and X^T ----------------------------------------------------
        self.next_section(self.steps[0])
        Q = ValueMatrix(tr.queries, theme, key=f"{key}.queries", colour=theme.query,
                        row_labels=q_names, **mat)
        Q.row_labels.set_color(theme.query)
        XT = rekey_transposed(ValueMatrix(tr.inputs.T, theme, colour=theme.key, col_labels=h_names,
                                          max_cols=max_shown, keep_cols=keep, **mat),
                              f"{key}.inputs")
        XT.col_labels.set_color(theme.key)
        E = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.text,
                        max_cols=max_shown, keep_cols=keep, **mat)
        place_product(Q, XT, E, CONTENT_TOP, left_room=LEFT_ROOM)
        names = legend_row(theme, [
            ("Q", f"{NQ}\u00d7{D}: {NQ} quer{'y' if NQ == 1 else 'ies'} as rows", theme.query),
            ("X^{T}", f"{D}\u00d7{N}: inputs as columns", theme.key),
            (r"E = Q\,X^{T}", f"{NQ}\u00d7{N}: raw scores", theme.text),
        ])
        self.play(fade_in(Q), fade_in(XT), fade_in(names[0]), fade_in(names[1]))
        pacer.swap(f"Step 1: stack the {NQ} query vectors as the rows of Q. "
                   "The input features X are the same as before.")
        self.wait(RESULT_PAUSE)

        # -- step 2: E = Q X^T -----------------------------------------------------
        self.next_section(self.steps[1])
        first = VGroup(*(Q.cell(0, k) for k in range(D)))
        column = VGroup(*(XT.cell(k, shown[0]) for k in range(D)))
        rings = VGroup(SurroundingRectangle(first, color=theme.highlight, buff=0.03),
                       SurroundingRectangle(column, color=theme.highlight, buff=0.03))
        pacer.swap("Step 2: e\u2c7c\u1d62 = q\u2c7c\u00b7h\u1d62, query j with input i: "
                   "one product gives every query's raw scores.",
                   Create(rings), fade_in(E.frame), fade_in(names[2]))
        self.play(fly(VGroup(first, column), E.cell(0, shown[0])), run_time=0.8)
        rest = VGroup(*(m for m in E.grid if m is not E.cell(0, shown[0])))
        self.play(fade_out(rings), FadeIn(rest, lag_ratio=0.05), run_time=1.2)
        self.add(E)
        self.pause_on_result("scores")

        # -- step 3: softmax along each row, E kept beside A -------------------------
        self.next_section(self.steps[2])
        E3 = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.text,
                         row_labels=q_names, col_labels=h_names, max_cols=max_shown,
                         keep_cols=keep, **mat)
        A = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.weight,
                        col_labels=h_names, max_cols=max_shown, keep_cols=keep, **mat)
        weight_cells(A.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights")
        for m in (E3, A):
            m.row_labels.set_color(theme.query)
            m.col_labels.set_color(theme.key)
        A.shift([E3.frame.get_right()[0] + SOFTMAX_GAP - A.frame.get_left()[0],
                 E3.frame.get_y() - A.frame.get_y(), 0])
        pair = VGroup(E3, A)
        pair.shift([-pair.get_center()[0], CONTENT_TOP - pair.get_top()[1], 0])
        arrow = Arrow(E3.frame.get_right(), A.frame.get_left(), buff=0.1, color=theme.muted,
                      stroke_width=3, max_tip_length_to_length_ratio=0.2)
        soft = VGroup(caption("softmax", theme, 20, theme.muted),
                      caption("per row", theme, 20, theme.muted)).arrange(DOWN, buff=0.06)
        soft.next_to(arrow, UP, buff=0.1)
        names3 = legend_row(theme, [
            ("E", f"{NQ}\u00d7{N}: raw scores", theme.score),
            (r"A = \mathrm{softmax}_{\text{rows}}(E)", f"{NQ}\u00d7{N}: each row sums to 1",
             theme.weight),
        ], heat=True)
        # E moves to its place beside A; what made it leaves.
        pacer.swap(f"Step 3: softmax along each row: every query gets its own weights over the "
                   f"{N} inputs, summing to 1. E stays beside A.",
                   fade_out(Q), fade_out(XT), *(caption_out(m) for m in names), fade_out(E.frame),
                   fly(E.grid, E3.grid, remove=True), caption_in(names3[0]),
                   fade_in(E3.frame), caption_in(E3.row_labels), caption_in(E3.col_labels),
                   run_time=1.4)
        self.add(E3)
        self.play(Create(arrow), fade_in(soft), fade_in(A.frame), fade_in(A.col_labels),
                  fade_in(names3[1]), run_time=0.8)
        width = len(E3.grid) // NQ
        for j in range(NQ):
            row_E = VGroup(*E3.grid[j * width:(j + 1) * width])
            row_A = VGroup(*A.grid[j * width:(j + 1) * width])
            ring = SurroundingRectangle(row_E, color=theme.highlight, buff=0.03)
            slow = j == 0 or NQ <= 2
            self.play(Create(ring), run_time=0.5 if slow else 0.3)
            self.play(fly(row_E, row_A), fade_out(ring), run_time=1.0 if slow else 0.5)
            if j == 0:
                self.pause_on_result("weights")
        self.add(A)
        self.pause_on_result("weights")

        # -- step 4: O = A X ----------------------------------------------------------
        self.next_section(self.steps[3])
        A4 = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.weight,
                         row_labels=q_names, max_cols=max_shown, keep_cols=keep, **mat)
        weight_cells(A4.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights")
        A4.row_labels.set_color(theme.query)
        X = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key, row_labels=h_names,
                        max_rows=max_shown, keep_rows=keep, **mat)
        X.row_labels.set_color(theme.key)
        O = ValueMatrix(tr.outputs, theme, key=f"{key}.outputs", colour=theme.value, **mat)
        place_product(A4, X, O, CONTENT_TOP, left_room=LEFT_ROOM)
        names4 = legend_row(theme, [
            ("A", f"{NQ}\u00d7{N}: weights", theme.weight),
            ("X", f"{N}\u00d7{D}: inputs as rows", theme.key),
            (r"O = A\,X", f"{NQ}\u00d7{D}: one output per query", theme.value),
        ], heat=True)
        pacer.swap(f"Step 4: O = A\u00b7X, ({NQ}\u00d7{N})\u00b7({N}\u00d7{D}) = {NQ}\u00d7{D}: "
                   "row j of O is query j's weighted average of the inputs.",
                   fade_out(VGroup(E3, arrow, soft, A.frame, A.col_labels)),
                   *(caption_out(m) for m in names3),
                   fly(A.grid, A4.grid, remove=True), fade_in(A4.frame),
                   caption_in(A4.row_labels), caption_in(X), caption_in(names4[0]),
                   caption_in(names4[1]), run_time=1.4)
        self.add(A4)
        self.play(fade_in(O.frame), fade_in(names4[2]), FadeIn(O.grid, lag_ratio=0.05), run_time=1.2)
        self.pause_on_result("output")

        # -- close-up: O's entry (1, 2) as a weighted average ----------------------------
        self.next_section(self.steps[4])
        j, f = 0, 1  # the first query, the second feature (as the draft)
        wscale = max(float(np.max(np.abs(tr.weighted_inputs))), 1e-9)
        row_y = A4.frame.get_bottom()[1] - 0.2 - h / 2
        weighted = VGroup(*(
            ValueCell(tr.weighted_inputs[j, i, f], theme, (f"{key}.weighted_inputs", j, i, f), w,
                      h, wscale, font_size=nf).move_to([A4.cell(j, i).get_x(), row_y, 0])
            for i in shown))
        w_name = math_label(r"a_{1i}\,h_{i2}", theme, NAME_TEX, theme.value)
        w_name.next_to(weighted, LEFT, buff=0.25)
        total = ValueCell(tr.outputs[j, f], theme, (f"{key}.outputs", j, f), w, h,
                          max(float(np.max(np.abs(tr.outputs))), 1e-9), font_size=nf)
        total.move_to([O.cell(j, f).get_x(), row_y, 0])
        sigma = math_label(r"\Sigma =", theme, NAME_TEX).next_to(total, LEFT, buff=0.12)
        row_a = VGroup(*(A4.cell(j, i) for i in shown))
        col_x = VGroup(*(X.cell(i, f) for i in shown))
        rings = VGroup(SurroundingRectangle(row_a, color=theme.value, buff=0.03),
                       SurroundingRectangle(col_x, color=theme.value, buff=0.03),
                       SurroundingRectangle(O.cell(j, f), color=theme.highlight, buff=0.04),
                       SurroundingRectangle(total, color=theme.highlight, buff=0.04))
        others = [X.cell(i, k) for i in shown for k in range(D) if k != f]
        others += [O.cell(r, k) for r in range(NQ) for k in range(D) if (r, k) != (j, f)]
        others += [A4.cell(r, i) for r in range(NQ) for i in shown if r != j]
        veils = veil(theme, *others)
        pacer.swap("Close-up: O's number (1, 2) is a weighted average of the 2nd feature of "
                   "every input, weighted by query 1's attention. All queries are done in one pass.",
                   fade_in(veils), Create(rings[0]), Create(rings[1]), fade_in(w_name))
        self.play(fly(col_x, weighted), run_time=1.0)
        self.play(fly(weighted, total), fade_in(sigma), Create(rings[2]), Create(rings[3]),
                  run_time=1.0)
        self.pause_on_result("output")
        pacer.finish()
