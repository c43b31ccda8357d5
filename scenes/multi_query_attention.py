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
    UP,
    Arrow,
    Create,
    FadeIn,
    SurroundingRectangle,
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
    place_product,
    rekey_transposed,
)
from .glyphs import NUMBER_FONT, weight_cells
from .motion import TRANSPOSE_TIME, focus, gather, ring_to, slide, transpose

__all__ = ["MultiQueryAttentionScene", "winners_kept"]

MAX_SHOWN = 8
MIN_ROW_H = 0.34  # a row 0.21-tall digits still sit in with room
SOFTMAX_GAP = 1.6  # between E and A in step 3: the arrow and "softmax per row"
#: Level bars in the weight cells: 0.14 units, 8 px at 480p (0.08 was 5 px, read as a hairline).
BAR_THICKNESS = 0.14
#: Between Q and E's column names in step 4's left column.
STACK_GAP = 0.3


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
        self.stage: dict = {}
        self.set_stage()                 # sizes and the title; nothing played
        self.show_queries_and_inputs()   # Q (rows) and X^T (columns)
        self.score_every_pair()          # E = Q X^T
        self.slide_scores_beside_weights()  # Q and X^T leave; E slides to the left of A's place
        self.normalise_each_row()        # softmax per row: each row of E flies into A
        self.stack_the_factors()         # A down and left, E and Q above it: one column
        self.transpose_the_inputs()      # X^T comes back; its columns fly into the rows of X
        self.mix_the_outputs()           # O = A X
        self.close_up_one_output()       # a_1. h_.2 gathers into O's entry; the poster

    def _take(self, names: str) -> tuple:
        """Values an earlier beat laid out (``self.stage``), by name."""
        return tuple(self.stage[n] for n in names.split())

    def _keep(self, **values: object) -> None:
        """What a later beat reads: the on-screen slots and sizes this beat made."""
        self.stage.update(values)

    def set_stage(self) -> None:
        """Sizes (zoom, which inputs show), the title (the first frame); nothing played."""
        theme, tr = self.theme, self.trace.multi_query_attention
        N, D = tr.inputs.shape
        NQ = tr.queries.shape[0]
        z, w, h, max_shown, stack = self._sizes()
        keep = winners_kept(tr.weights, max_shown)
        shown = [i for i in _kept_indices(N, max_shown, keep) if i is not None]
        mat = dict(cell_width=w, cell_height=h, font_size=NUMBER_FONT * z, label_size=20 * z)
        title = title_bar(
            caption("Many queries at once", theme, 28),
            math_label(r"E = Q\,X^{T} \qquad A = \mathrm{softmax}_{\text{rows}}(E) \qquad O = A\,X",
                       theme, 30),
            y=TITLE_Y,
        )
        self.add(title)  # the first frame is the title, never black
        self._keep(
            D=D, N=N, NQ=NQ, h=h, h_names=[f"h{subscript(i + 1)}" for i in range(N)], keep=keep,
            key="multi_query_attention", mat=mat, max_shown=max_shown, nf=NUMBER_FONT * z,
            pacer=CaptionPacer(self), q_names=[f"q{subscript(j + 1)}" for j in range(NQ)], shown=shown,
            stack=stack, theme=theme, tr=tr, w=w)
        self.pacer = self.stage["pacer"]

    def _sizes(self) -> tuple[float, float, float, int, bool]:
        """Zoom, cell width and height, inputs shown, and whether Q, E and A fit in one column."""
        theme, tr = self.theme, self.trace.multi_query_attention
        N, D = tr.inputs.shape
        NQ = tr.queries.shape[0]
        w0 = table_cell_width(np.concatenate([a.ravel() for a in (
            tr.inputs, tr.queries, tr.scores, tr.weights, tr.weighted_inputs, tr.outputs)]), theme)
        band = CONTENT_TOP - CONTENT_BOTTOM
        # Rows: X^T's D rows above E's NQ (steps 1-2) must fit the band; past
        # it the rows get lower (never the digits smaller: they are 0.21 tall).
        h1 = max(MIN_ROW_H, min(CELL_H, (band - 0.3 - 0.1 - 0.35 - 0.1 - 0.05) / (D + NQ)))

        def stacks(z: float) -> bool:
            """Whether Q, E and A fit in one column at zoom ``z`` (many queries: not)."""
            return 3 * (NQ * h1 * z + 0.1) + STACK_GAP + 0.3 * z + 0.35 + 0.2 + h1 * z <= band

        def layout(z: float) -> tuple[int, bool]:
            """Inputs that fit at zoom ``z``: E and A side by side (step 3), Q beside
            X^T (step 2), X above O with the close-up row (step 4); and whether
            X^T above E fits the band (steps 1-2) and Q, E, A stack (step 4)."""
            w, h = w0 * z, h1 * z
            by_width = min(int((13.4 - 0.6 - SOFTMAX_GAP) / (2 * w)),
                           int((13.4 - LEFT_ROOM - 0.5 - D * w) // w))
            by_height = int((band - 0.05 - 0.1 - 0.35 - (NQ * h + 0.1) - 0.2 - h) // h)
            tall = 0.3 * z + (D + NQ) * h + 0.1 + 0.35 + 0.1 + 0.05 <= band
            return min(MAX_SHOWN, by_width, by_height), tall and stacks(z)

        # Small tables larger (digits up to 30 pt) when all fits unelided.
        z = zoom_for(lambda z: layout(z)[1] and layout(z)[0] >= N)
        return z, w0 * z, h1 * z, max(3, layout(z)[0]), stacks(z)

    def show_queries_and_inputs(self) -> None:
        """Step 1: the queries as the rows of Q, the inputs as the columns of X^T."""
        (D, N, NQ, h_names, keep, key, mat, max_shown, pacer, q_names, theme, tr) = self._take(
            'D N NQ h_names keep key mat max_shown pacer q_names theme tr')
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

        self._keep(E=E, Q=Q, XT=XT, names=names)

    def score_every_pair(self) -> None:
        """Step 2: E = Q X^T, the first entry flown in from its row and column."""
        D, E, Q, XT, names, pacer, shown, theme = self._take('D E Q XT names pacer shown theme')
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

        self._keep(rings=rings)

    def slide_scores_beside_weights(self) -> None:
        """Step 3 begins: Q and X^T leave, E slides (in its frame) to where A will stand beside it."""
        (E, N, NQ, h_names, keep, key, mat, max_shown, names, pacer, q_names, theme, tr) = self._take(
            'E N NQ h_names keep key mat max_shown names pacer q_names theme tr')
        self.next_section(self.steps[2])
        E3 = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.text,
                         row_labels=q_names, col_labels=h_names, max_cols=max_shown,
                         keep_cols=keep, **mat)
        A = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.weight,
                        col_labels=h_names, max_cols=max_shown, keep_cols=keep, **mat)
        weight_cells(A.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights",
                     thickness=BAR_THICKNESS)
        for m in (E3, A):
            m.row_labels.set_color(theme.query)
            m.col_labels.set_color(theme.key)
        A.shift([E3.frame.get_right()[0] + SOFTMAX_GAP - A.frame.get_left()[0],
                 E3.frame.get_y() - A.frame.get_y(), 0])
        pair = VGroup(E3, A)
        pair.shift([-pair.get_center()[0], CONTENT_TOP - pair.get_top()[1], 0])
        names3 = legend_row(theme, [
            ("E", f"{NQ}\u00d7{N}: raw scores", theme.score),
            (r"A = \mathrm{softmax}_{\text{rows}}(E)", f"{NQ}\u00d7{N}: each row sums to 1",
             theme.weight),
        ], heat=True)
        # E moves to its place beside A; what made it leaves.
        pacer.swap(f"Step 3: softmax along each row: every query gets its own weights over the "
                   f"{N} inputs, summing to 1. E stays beside A.",
                   fade_out(self.stage["Q"]), fade_out(self.stage["XT"]), *(caption_out(m) for m in names),
                   caption_in(names3[0]), run_time=1.0)
        # The same cells in their frame slide (digits legible, none outside the border); the
        # labels come once E rests.
        self.play(slide(VGroup(E.grid, E.frame), E3.frame, what="slide", src="E", dst="E beside A"),
                  run_time=1.2)
        self.remove(E, E.grid, *E.grid, E.frame)  # step 2 brought its cells and frame in one by one
        self.add(E3)  # E3 is E where it now rests (its labels fade in from the next frame on)
        self.play(fade_in(E3.row_labels), fade_in(E3.col_labels), run_time=0.5)
        self._keep(A=A, E3=E3, names3=names3)

    def normalise_each_row(self) -> None:
        """Step 3: softmax row by row, each row of E flown into its row of A."""
        A, E3, NQ, names3, theme = self._take('A E3 NQ names3 theme')
        arrow = Arrow(E3.frame.get_right(), A.frame.get_left(), buff=0.1, color=theme.muted,
                      stroke_width=3, max_tip_length_to_length_ratio=0.2)
        soft = VGroup(caption("softmax", theme, 20, theme.muted),
                      caption("per row", theme, 20, theme.muted)).arrange(DOWN, buff=0.06)
        soft.next_to(arrow, UP, buff=0.1)
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
        self._keep(arrow=arrow, soft=soft)

    def _step_4_layout(self) -> tuple:
        """Where step 4 puts things (nothing played): A, X and O as the product O = A X,
        E's place above A and Q's above E (when they fit), and the names row."""
        (D, E3, N, NQ, Q, h_names, keep, key, mat, max_shown, q_names, stack, theme, tr) = self._take(
            'D E3 N NQ Q h_names keep key mat max_shown q_names stack theme tr')
        A4 = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.weight,
                         row_labels=q_names, max_cols=max_shown, keep_cols=keep, **mat)
        weight_cells(A4.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights",
                     thickness=BAR_THICKNESS)
        A4.row_labels.set_color(theme.query)
        X = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key, row_labels=h_names,
                        max_rows=max_shown, keep_rows=keep, **mat)
        X.row_labels.set_color(theme.key)
        O = ValueMatrix(tr.outputs, theme, key=f"{key}.outputs", colour=theme.value, **mat)
        hgap = 0.75 if LEFT_ROOM + A4.frame.width + 0.75 + O.frame.width <= 13.4 else 0.5
        place_product(A4, X, O, CONTENT_TOP, left_room=LEFT_ROOM, hgap=hgap)  # room for X's row names
        # Q and E stand in one column above A, so Q, E, A, X and O stay together to the last frame.
        e_bottom = A4.frame.get_top()[1] + 0.35
        q_bottom = e_bottom + E3.frame.height + (E3.col_labels.height + 0.1) + STACK_GAP
        drop = max(0.0, q_bottom + Q.frame.height - CONTENT_TOP) if stack else 0.0
        for m in (A4, X, O):
            m.shift(DOWN * drop)
        e_to = E3.get_center() + np.array([A4.frame.get_left()[0] - E3.frame.get_left()[0],
                                           e_bottom - drop - E3.frame.get_bottom()[1], 0])
        Q.shift([A4.frame.get_left()[0] - Q.frame.get_left()[0],
                 q_bottom - drop - Q.frame.get_bottom()[1], 0])
        entries = [
            ("Q", f"{NQ}\u00d7{D}", theme.query),
            ("E", f"{NQ}\u00d7{N}", theme.score),
            ("A", f"{NQ}\u00d7{N}", theme.weight),
            ("X", f"{N}\u00d7{D}: inputs as rows", theme.key),
            (r"O = A\,X", f"{NQ}\u00d7{D}: one output per query", theme.value),
        ]
        names4 = legend_row(theme, entries if stack else entries[2:])
        if not stack:  # the same slots, the first two empty: Q and E are not in this figure
            names4 = VGroup(VGroup(), VGroup(), *names4)
        return A4, X, O, e_to, names4

    def stack_the_factors(self) -> None:
        """Step 4 begins: A goes down, then left along its new row (nothing there yet);
        E then moves down into the column above it; Q comes back on top."""
        (A, D, E3, N, NQ, Q, arrow, names3, pacer, soft, stack) = self._take(
            'A D E3 N NQ Q arrow names3 pacer soft stack')
        self.next_section(self.steps[3])
        A4, X, O, e_to, names4 = self._step_4_layout()
        pacer.swap(f"Step 4: O = A\u00b7X, ({NQ}\u00d7{N})\u00b7({N}\u00d7{D}) = {NQ}\u00d7{D}: "
                   "row j of O is query j's weighted average of the inputs.",
                   fade_out(VGroup(arrow, soft, A.col_labels)), *(caption_out(m) for m in names3),
                   caption_in(names4[:3]), *([] if stack else [fade_out(E3)]), run_time=1.0)
        block = VGroup(A.grid, A.frame)
        self.play(slide(block, A4.frame, via=[(block.get_x(), A4.frame.get_y(), 0)], what="slide",
                        src="A", dst="A in O = A X"), run_time=1.4)
        self.remove(A, A.grid, *A.grid, A.frame)
        self.add(A4)
        if stack:
            self.play(slide(E3, e_to, what="slide", src="E", dst="stack"), fade_in(A4.row_labels),
                      run_time=1.2)
            self.play(fade_in(Q), run_time=0.6)
        else:  # too many queries for Q, E and A in one column: E has left, A stays with X and O
            self.play(fade_in(A4.row_labels), run_time=0.5)
        self._keep(A4=A4, O=O, X=X, names4=names4)

    def transpose_the_inputs(self) -> None:
        """The inputs come back as step 1 showed them, X^T, in X's place; then each
        column of X^T flies into a row of X (the transpose as motion)."""
        (D, X, h_names, keep, key, mat, max_shown, names4, shown, theme, tr) = self._take(
            'D X h_names keep key mat max_shown names4 shown theme tr')
        XT4 = rekey_transposed(ValueMatrix(tr.inputs.T, theme, colour=theme.key, col_labels=h_names,
                                           max_cols=max_shown, keep_cols=keep, **mat),
                               f"{key}.inputs")
        XT4.col_labels.set_color(theme.key)
        XT4.shift(X.frame.get_corner(UP + LEFT) - XT4.frame.get_corner(UP + LEFT))
        if XT4.get_right()[0] > 6.9:
            XT4.shift(LEFT * (XT4.get_right()[0] - 6.9))
        self.play(fade_in(XT4), run_time=0.6)
        cols = [VGroup(*(XT4.cell(k, i) for k in range(D))) for i in shown]
        rows = [VGroup(*(X.cell(i, k) for k in range(D))) for i in shown]
        xt_rest = VGroup(XT4.frame, XT4.col_labels,
                         *(m for m in XT4.grid if m not in XT4.cell_by_index.values()))
        x_rest = VGroup(X.frame, X.row_labels, *(m for m in X.grid if m not in X.cell_by_index.values()))
        self.play(transpose(cols, rows), caption_out(xt_rest), caption_in(x_rest), caption_in(names4[3]),
                  run_time=max(TRANSPOSE_TIME, 0.55 * len(cols)))
        self.remove(XT4)
        self.add(X)

    def mix_the_outputs(self) -> None:
        """O = A X: every output at once, under X, level with A."""
        O, names4 = self._take('O names4')
        self.play(fade_in(O.frame), fade_in(names4[4]), FadeIn(O.grid, lag_ratio=0.05), run_time=1.2)
        self.pause_on_result("output")

    def close_up_one_output(self) -> None:
        """The close-up: one number of O as a weighted average; the poster."""
        (A4, D, NQ, O, X, h, key, nf, pacer, rings, shown, theme, tr, w) = self._take(
            'A4 D NQ O X h key nf pacer rings shown theme tr w')
        # -- close-up: O's entry (1, 2) as a weighted average ----------------------------
        self.next_section(self.steps[4])
        j, f = 0, 1  # the first query, the second feature (as the draft)
        wscale = max(float(np.max(np.abs(tr.weighted_inputs))), 1e-9)
        row_y = A4.frame.get_bottom()[1] - 0.2 - h / 2
        weighted = VGroup(*(
            ValueCell(tr.weighted_inputs[j, i, f], theme, (f"{key}.weighted_inputs", j, i, f), w,
                      h, wscale, font_size=nf).move_to([A4.cell(j, i).get_x(), row_y, 0])
            for i in shown))
        w_name = math_label(r"a_{1\bullet}\cdot h_{\bullet 2}", theme, NAME_TEX, theme.value)
        w_name.next_to(weighted, LEFT, buff=0.25)
        total = ValueCell(tr.outputs[j, f], theme, (f"{key}.outputs", j, f), w, h,
                          max(float(np.max(np.abs(tr.outputs))), 1e-9), font_size=nf)
        total.move_to([O.cell(j, f).get_x(), row_y, 0])
        sigma = math_label(r"\Sigma =", theme, NAME_TEX).next_to(total, LEFT, buff=0.12)
        row_a = VGroup(*(A4.cell(j, i) for i in shown))
        col_x = VGroup(*(X.cell(i, f) for i in shown))
        rings = VGroup(SurroundingRectangle(row_a, color=theme.value, buff=0.03),
                       SurroundingRectangle(col_x, color=theme.value, buff=0.03))
        # One highlight ring: it marks the sum, then travels to the number of O it is.
        found = SurroundingRectangle(total, color=theme.highlight, buff=0.04)
        others = [X.cell(i, k) for i in shown for k in range(D) if k != f]
        others += [O.cell(r, k) for r in range(NQ) for k in range(D) if (r, k) != (j, f)]
        others += [A4.cell(r, i) for r in range(NQ) for i in shown if r != j]
        dim, _ = focus(theme, *others)  # the close-up keeps its focus to the last frame
        pacer.swap("Close-up: O's number (1, 2) is a weighted average of the 2nd feature of "
                   "every input, weighted by query 1's attention. All queries are done in one pass.",
                   dim, Create(rings[0]), Create(rings[1]), fade_in(w_name))
        self.play(fly(col_x, weighted), run_time=1.0)
        self.play(gather(list(weighted), total, [tr.weights[j, i] for i in shown],
                         dst=(f"{key}.outputs", j, f)),
                  fade_in(sigma), Create(found), run_time=1.4)
        self.pause_on_result("output")
        self.play(ring_to(found, O.cell(j, f), buff=0.04), run_time=0.8)
        pacer.finish()
