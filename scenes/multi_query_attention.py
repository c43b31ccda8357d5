"""``multi_query_attention``: many queries at once.

Draft 000, Part 2, "Abstraction 3", its Steps 1-4 and the close-up, each a
named section (``next_section``):

1. ``step-1-variables``: the queries stacked as the rows of ``Q`` (N_Q x D)
   and the inputs as the columns of ``X^T`` (D x N);
2. ``step-2-scores``: ``E = Q X^T`` (N_Q x N) in one product;
3. ``step-3-softmax``: ``A`` = softmax along each row of ``E``, drawn under
   ``E`` where ``E`` was made (Q and X^T stay, dimmed: one stage), each weight
   with its bar (many queries: beside ``E``, which slides to the top);
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
    SurroundingRectangle,
    VGroup,
)

from .base import RESULT_PAUSE, SAFE_EDGE, CaptionPacer, WalkthroughScene
from .components import (
    CELL_H,
    caption_in,
    caption_out,
    ValueCell,
    ValueMatrix,
    kept_indices,
    caption,
    fade_in,
    fade_out,
    math_label,
    subscript,
    title_bar,
)
from .clarity_moves import (
    dim_labels,
    end_on_poster,
    quiet,
    set_quiet,
    shapes_of_legend,
    voice,
)
from .matrix_layout import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    LABEL_SIZE,
    LEFT_ROOM,
    NAME_TEX,
    TRANSPOSE_LAG,
    ZOOMS,
    legend_row,
    table_cell_width,
    zoom_for,
    TITLE_Y,
    StepLog,
    place_product,
    rekey_transposed,
)
from .glyphs import NUMBER_FONT, weight_cells
from .motion import TRANSPOSE_TIME, fly, focus, gather, ring_to, slide, transpose

__all__ = ["MultiQueryAttentionScene", "winners_kept"]

MAX_SHOWN = 8
MIN_ROW_H = 0.34  # a row 0.21-tall digits still sit in with room
SOFTMAX_GAP = 1.6  # between E and A in step 3: the arrow and "softmax per row"
#: Level bars in the weight cells: 0.14 units, 8 px at 480p (0.08 was 5 px, read as a hairline).
BAR_THICKNESS = 0.14
#: Between Q and E's column names in step 4's left column.
STACK_GAP = 0.3
#: Between E and A under it (step 3, and the stack of step 4): the arrow "softmax per row".
UNDER_GAP = 0.65


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
        if len(kept_indices(n, max_shown, [*keep, i])) <= max_shown:
            keep.append(i)
    return keep


class MultiQueryAttentionScene(StepLog, WalkthroughScene):
    scene_id = "multi_query_attention"
    trace_sections = ("multi_query_attention",)
    description = ("Attention for a matrix of queries (draft Steps 1-4 and the close-up): "
                   "E = Q X^T, softmax along each row (A under E, Q and X^T kept, weights with bars), "
                   "O = A X gives every output at once.")
    steps = ("step-1-variables", "step-2-scores", "step-3-softmax", "step-4-output", "close-up")
    shown_results = ("scores", "weights", "output")

    def construct(self) -> None:
        self.stage: dict = {}
        self.set_stage()                 # sizes and the title; nothing played
        self.show_queries_and_inputs()   # Q (rows) and X^T (columns)
        self.score_every_pair()          # E = Q X^T; Q and X^T dim to chips
        self.normalise_each_row()        # softmax per row: each row of E flies into A, under E
        self.stack_the_factors()         # Q up, E and A left along their rows
        self.transpose_the_inputs()      # the columns of X^T turn, one by one, into the rows of X
        self.settle_under_the_query()    # E and A up under Q: one column Q / E / A, A level with O
        self.mix_the_outputs()           # O = A X
        with self.close_up("a_1. h_.2"):
            self.close_up_one_output()   # a_1. h_.2 gathers into O's entry
        self.collapse_to_poster()        # the close-up's digits dim; the poster held

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
        z, w, h, max_shown, stack, under = self._sizes()
        keep = winners_kept(tr.weights, max_shown)
        shown = [i for i in kept_indices(N, max_shown, keep) if i is not None]
        mat = dict(cell_width=w, cell_height=h, font_size=NUMBER_FONT * z,
                   label_size=max(20 * z, LABEL_SIZE))
        title = title_bar(
            caption("Many queries at once", theme, 28),
            math_label(r"E = Q\,X^{T} \quad A = \mathrm{softmax}_{\text{rows}}(E) \quad O = A\,X",
                       theme, NAME_TEX),
            y=TITLE_Y,
        )
        self.add(title)  # the first frame is the title, never black
        self._keep(
            D=D, N=N, NQ=NQ, h=h, h_names=[f"h{subscript(i + 1)}" for i in range(N)], keep=keep,
            key="multi_query_attention", mat=mat, max_shown=max_shown, nf=NUMBER_FONT * z,
            pacer=CaptionPacer(self), q_names=[f"q{subscript(j + 1)}" for j in range(NQ)], shown=shown,
            stack=stack, theme=theme, tr=tr, under=under, w=w)
        self.pacer = self.stage["pacer"]

    def _sizes(self) -> tuple[float, float, float, int, bool, bool]:
        """Zoom, cell width and height, inputs shown, whether Q, E and A fit in one column,
        and whether A fits under E in step 3 (Q and X^T stay where they are)."""
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
            return (3 * (NQ * h1 * z + 0.1) + STACK_GAP + 0.3 * z + UNDER_GAP + 0.2 + h1 * z
                    + 0.1 <= band)

        def under(z: float) -> bool:
            """Whether X^T, E and A under E (step 3) fit the band at zoom ``z``."""
            return 0.3 * z + 0.1 + (D + 2 * NQ) * h1 * z + 0.3 + 0.35 + UNDER_GAP + 0.05 <= band

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

        # Small tables larger (digits up to 30 pt) when all fits unelided; A under E if it can.
        z = next((z for z in ZOOMS if layout(z)[1] and layout(z)[0] >= N and under(z)), None)
        if z is None:
            z = zoom_for(lambda z: layout(z)[1] and layout(z)[0] >= N)
        return z, w0 * z, h1 * z, max(3, layout(z)[0]), stacks(z), under(z) and stacks(z)

    def show_queries_and_inputs(self) -> None:
        """Step 1: the queries as the rows of Q, the inputs as the columns of X^T."""
        (D, N, NQ, h_names, keep, key, mat, max_shown, pacer, q_names, theme, tr) = self._take(
            'D N NQ h_names keep key mat max_shown pacer q_names theme tr')
        self.next_section(self.steps[0])
        Q = ValueMatrix(tr.queries, theme, key=f"{key}.queries", colour=theme.query,
                        row_labels=q_names, **mat)
        Q.row_labels.set_color(theme.query)
        XT = rekey_transposed(ValueMatrix(tr.inputs.T, theme, colour=theme.key, col_labels=h_names,
                                          max_cols=max_shown, keep_cols=keep, **mat),
                              f"{key}.inputs")
        XT.col_labels.set_color(theme.key)
        E = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.score,
                        max_cols=max_shown, keep_cols=keep, **mat)
        place_product(Q, XT, E, CONTENT_TOP, left_room=LEFT_ROOM)
        names = legend_row(theme, [
            ("Q", f"{NQ}\u00d7{D}: {NQ} quer{'y' if NQ == 1 else 'ies'} as rows", theme.query),
            ("X^{T}", f"{D}\u00d7{N}: inputs as columns", theme.key),
            (r"E = Q\,X^{T}", f"{NQ}\u00d7{N}: raw scores", theme.score),
        ])
        self.play(fade_in(Q), fade_in(XT), fade_in(names[0]), fade_in(names[1]))
        pacer.swap(f"Step 1: stack the {NQ} query vectors as the rows of Q. "
                   "The input features X are the same as before.")
        self.wait(RESULT_PAUSE)
        self._keep(E=E, Q=Q, XT=XT, names=names)

    def score_every_pair(self) -> None:
        """Step 2: E = Q X^T, the first entry flown in from its row and column; then Q and
        X^T, read, dim to chips (they stay where they are)."""
        D, E, Q, XT, names, pacer, shown, theme = self._take('D E Q XT names pacer shown theme')
        self.next_section(self.steps[1])
        first = VGroup(*(Q.cell(0, k) for k in range(D)))
        column = VGroup(*(XT.cell(k, shown[0]) for k in range(D)))
        rings = VGroup(SurroundingRectangle(first, color=theme.highlight, buff=0.03),
                       SurroundingRectangle(column, color=theme.highlight, buff=0.03))
        others = [c for c in Q.cell_by_index.values() if c not in first]
        others += [c for c in XT.cell_by_index.values() if c not in column]
        pacer.swap("Step 2: e\u2c7c\u1d62 = q\u2c7c\u00b7h\u1d62, query j with input i: "
                   "one product gives every query's raw scores.",
                   Create(rings), fade_in(E.frame), fade_in(names[2]), quiet(*others),
                   dim_labels(shapes_of_legend(names[:2])))
        self.play(fly(VGroup(first, column), E.cell(0, shown[0])), run_time=0.8)
        rest = VGroup(*(m for m in E.grid if m is not E.cell(0, shown[0])))
        self.play(fade_out(rings), FadeIn(rest, lag_ratio=0.05), quiet(first, column), run_time=1.2)
        self.add(E)
        self.pause_on_result("scores")
        self._keep(rings=rings)

    def normalise_each_row(self) -> None:
        """Step 3: softmax row by row, each row of E flown into its row of A: under E where it
        was made (Q and X^T stay), or, with many queries, beside E at the top."""
        self.next_section(self.steps[2])
        if not self.stage["under"]:
            self._slide_scores_beside_weights()
        A, E, NQ, arrow, label = self._weights_and_arrow()
        # The name comes once the rows have landed: under E it stands in the gap they fly through.
        self.play(Create(arrow), fade_in(A.frame), fade_in(A.labels),
                  *([] if self.stage["under"] else [fade_in(label)]), run_time=0.8)
        width = len(E.grid) // NQ
        for j in range(NQ):
            row_E = VGroup(*E.grid[j * width:(j + 1) * width])
            row_A = VGroup(*A.grid[j * width:(j + 1) * width])
            ring = SurroundingRectangle(row_E, color=self.theme.highlight, buff=0.03)
            slow = j == 0 or NQ <= 2
            self.play(Create(ring), run_time=0.5 if slow else 0.2)
            self.play(fly(row_E, row_A), fade_out(ring), run_time=1.0 if slow else 0.4)
            if j == 0:
                self.pause_on_result("weights")
        self.add(A)
        self.play(quiet(E.grid), *([fade_in(label)] if self.stage["under"] else []),
                  run_time=0.5)  # E read: A carries the argument on
        self.pause_on_result("weights")
        self._keep(arrow=arrow, soft=label)

    def _weights_and_arrow(self) -> tuple:
        """A (with its bars) where step 3 makes it, the arrow from E, the softmax label, and
        the names (under: A's name under it; beside: the names row)."""
        (E, N, NQ, h_names, keep, key, mat, max_shown, names, pacer, q_names, theme, tr, under) = \
            self._take('E N NQ h_names keep key mat max_shown names pacer q_names theme tr under')
        E = self.stage.get("E3", E)
        A = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.weight,
                        row_labels=q_names if under else None, col_labels=None if under else h_names,
                        max_cols=max_shown, keep_cols=keep, **mat)
        weight_cells(A.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights",
                     thickness=BAR_THICKNESS)
        A.labels = A.row_labels if under else A.col_labels
        A.labels.set_color(theme.query if under else theme.key)
        if under:
            A.shift([E.frame.get_x() - A.frame.get_x(),
                     E.frame.get_bottom()[1] - UNDER_GAP - A.frame.get_top()[1], 0])
            arrow = Arrow(E.frame.get_corner(DOWN + LEFT) + RIGHT * 0.45, A.frame.get_corner(UP + LEFT)
                          + RIGHT * 0.45, buff=0.04, color=theme.muted,
                          stroke_width=3, max_tip_length_to_length_ratio=0.35)
            # In the gap, right of the arrow: what A is (its shape comes with step 4's names).
            label = math_label(r"A = \mathrm{softmax}_{\text{rows}}(E)", theme, NAME_TEX, theme.weight)
            label.next_to(arrow, RIGHT, buff=0.2)
            pacer.swap(f"Step 3: softmax along each row: every query gets its own weights over the "
                       f"{N} inputs, summing to 1.", dim_labels(shapes_of_legend(names[2:])))
        else:
            A.shift([E.frame.get_right()[0] + SOFTMAX_GAP - A.frame.get_left()[0],
                     E.frame.get_y() - A.frame.get_y(), 0])
            arrow = Arrow(E.frame.get_right(), A.frame.get_left(), buff=0.1, color=theme.muted,
                          stroke_width=3, max_tip_length_to_length_ratio=0.2)
            soft = VGroup(caption("softmax", theme, LABEL_SIZE, theme.muted),
                          caption("per row", theme, LABEL_SIZE, theme.muted)).arrange(DOWN, buff=0.06)
            soft.next_to(arrow, UP, buff=0.1)
            label = VGroup(soft, self.stage["names3"][1])
        self._keep(A=A, A_label=label, E_now=E)
        return A, E, NQ, arrow, label

    def _slide_scores_beside_weights(self) -> None:
        """Many queries (A does not fit under E): Q and X^T leave, E slides (in its frame) to
        the top left, where A will stand beside it."""
        (E, N, NQ, h_names, keep, key, mat, max_shown, names, pacer, q_names, theme, tr) = self._take(
            'E N NQ h_names keep key mat max_shown names pacer q_names theme tr')
        E3 = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.score,
                         row_labels=q_names, col_labels=h_names, max_cols=max_shown,
                         keep_cols=keep, **mat)
        for m in (E3.row_labels, E3.col_labels):
            m.set_color(theme.query if m is E3.row_labels else theme.key)
        E3.shift([-(E3.frame.get_right()[0] + SOFTMAX_GAP / 2), CONTENT_TOP - E3.get_top()[1], 0])
        names3 = legend_row(theme, [
            ("E", f"{NQ}\u00d7{N}: raw scores", theme.score),
            (r"A = \mathrm{softmax}_{\text{rows}}(E)", f"{NQ}\u00d7{N}: each row sums to 1",
             theme.weight),
        ], heat=True)
        pacer.swap(f"Step 3: softmax along each row: every query gets its own weights over the "
                   f"{N} inputs, summing to 1.",
                   fade_out(self.stage["Q"]), fade_out(self.stage["XT"]), *(caption_out(m) for m in names),
                   caption_in(names3[0]), run_time=1.0)
        self.play(slide(VGroup(E.grid, E.frame), E3.frame, what="slide", src="E", dst="E beside A"),
                  run_time=1.2)
        self.remove(E, E.grid, *E.grid, E.frame)
        self.add(E3)
        self.play(fade_in(E3.row_labels), fade_in(E3.col_labels), run_time=0.5)
        self._keep(E3=E3, names=names3)
        self.stage["names3"] = names3

    def _step_4_layout(self) -> tuple:
        """Where step 4 puts things (nothing played): A, X and O as the product O = A X,
        E's place above A and Q's above E (when they fit), and the names row."""
        (A, D, E, N, NQ, Q, h_names, keep, key, mat, max_shown, q_names, stack, theme, tr) = self._take(
            'A D E_now N NQ Q h_names keep key mat max_shown q_names stack theme tr')
        X = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key, row_labels=h_names,
                        max_rows=max_shown, keep_rows=keep, **mat)
        X.row_labels.set_color(theme.key)
        set_quiet(X.grid)  # the inputs were read in step 1: X lands as chips
        O = ValueMatrix(tr.outputs, theme, key=f"{key}.outputs", colour=theme.value, **mat)
        slot = A.frame.copy()
        slot.frame = slot
        hgap = 0.75 if LEFT_ROOM + slot.width + 0.75 + O.frame.width <= 13.4 else 0.5
        place_product(slot, X, O, CONTENT_TOP, left_room=LEFT_ROOM, hgap=hgap)  # room for X's row names
        # Q and E stand in one column above A, so Q, E, A, X and O stay together to the last frame.
        E4 = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.score, row_labels=q_names,
                         col_labels=h_names, max_cols=max_shown, keep_cols=keep, **mat)
        E4.row_labels.set_color(theme.query)
        E4.col_labels.set_color(theme.key)
        set_quiet(E4.grid)
        e_bottom = slot.get_top()[1] + UNDER_GAP
        q_bottom = e_bottom + E4.frame.height + (E4.col_labels.height + 0.1) + STACK_GAP
        drop = max(0.0, q_bottom + Q.frame.height - CONTENT_TOP) if stack else 0.0
        for m in (slot, X, O):
            m.shift(DOWN * drop)
        E4.shift([slot.get_left()[0] - E4.frame.get_left()[0], e_bottom - drop - E4.frame.get_bottom()[1], 0])
        a_to = A.get_center() + (slot.get_center() - A.frame.get_center())
        q_to = Q.get_center() + np.array([slot.get_left()[0] - Q.frame.get_left()[0],
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
        return E4, X, O, a_to, q_to, names4

    def stack_the_factors(self) -> None:
        """Step 4 begins: Q rises to the top left; E and A go left along their rows, under it
        (E stays between Q and A). Many queries: A goes down to O's row, E above it and Q
        back on top; or, with no room for them, A alone."""
        (A, E, Q, arrow, label, names, pacer, stack, under) = self._take(
            'A E_now Q arrow A_label names pacer stack under')
        self.next_section(self.steps[3])
        E4, X, O, a_to, q_to, names4 = self._step_4_layout()
        pacer.swap("Step 4: O = A\u00b7X: row j of O is query j's weighted average of the inputs, "
                   "all in one product.", *(fade_out(m) for m in [arrow, label] + ([] if stack else [E])),
                   *(caption_out(m) for m in names), caption_in(names4[:3]), run_time=1.0)
        self._keep(A4=A, E4=E4, O=O, X=X, names4=names4, a_to=a_to)
        if under:
            self.play(slide(Q, q_to, what="slide", src="Q", dst="stack"), run_time=1.0)
            block = VGroup(E.grid, E.frame, A)  # left along their rows: under Q, clear of X's place
            self.play(slide(block, block.get_center() + [a_to[0] - A.get_x(), 0, 0], what="slide",
                            src="E,A", dst="left column"), run_time=1.0)
            return
        self.play(slide(A, a_to, via=[(A.get_x(), a_to[1], 0)], what="slide", src="A",
                        dst="A in O = A X"), run_time=1.4)
        if stack:
            e_to = E.get_center() + (E4.frame.get_center() - E.frame.get_center())
            self.play(slide(E, e_to, what="slide", src="E", dst="stack"), run_time=1.2)
            self.play(fade_in(Q.move_to(q_to)), run_time=0.6)

    def settle_under_the_query(self) -> None:
        """E and A rise in the left column under Q: A level with where O will be."""
        A, E, E4, a_to, under = self._take('A E_now E4 a_to under')
        if not under:
            return
        block = VGroup(E.grid, E.frame, A)
        self.play(slide(block, block.get_center() + (a_to - A.get_center()), what="slide", src="E,A",
                        dst="stack"), run_time=1.0)
        self.remove(E, E.grid, *E.grid, E.frame)
        self.add(E4.grid, E4.frame)  # the same cells where they now rest, with their names
        self.play(fade_in(E4.row_labels), fade_in(E4.col_labels), run_time=0.6)

    def transpose_the_inputs(self) -> None:
        """The columns of X^T turn, one after another, into the rows of X (step 1's X^T
        itself when it stayed; with many queries it comes back in X's place first)."""
        (D, X, h_names, keep, key, mat, max_shown, names4, shown, theme, tr, under) = self._take(
            'D X h_names keep key mat max_shown names4 shown theme tr under')
        if under:
            XT = self.stage["XT"]
        else:
            XT = rekey_transposed(ValueMatrix(tr.inputs.T, theme, colour=theme.key, col_labels=h_names,
                                              max_cols=max_shown, keep_cols=keep, **mat),
                                  f"{key}.inputs")
            XT.col_labels.set_color(theme.key)
            set_quiet(XT.grid)
            XT.shift(X.frame.get_corner(UP + LEFT) - XT.frame.get_corner(UP + LEFT))
            if XT.get_right()[0] > SAFE_EDGE:
                XT.shift(LEFT * (XT.get_right()[0] - SAFE_EDGE))
            self.play(fade_in(XT), run_time=0.6)
        cols = [VGroup(*(XT.cell(k, i) for k in range(D))) for i in shown]
        rows = [VGroup(*(X.cell(i, k) for k in range(D))) for i in shown]
        xt_rest = VGroup(XT.frame, XT.col_labels,
                         *(m for m in XT.grid if m not in XT.cell_by_index.values()))
        x_rest = VGroup(X.frame, X.row_labels, *(m for m in X.grid if m not in X.cell_by_index.values()))
        self.play(transpose(cols, rows, turn="column", lag_ratio=TRANSPOSE_LAG), caption_out(xt_rest),
                  caption_in(x_rest), caption_in(names4[3]),
                  run_time=max(TRANSPOSE_TIME, 0.8 * len(cols)))
        self.remove(XT)
        self.add(X)

    def mix_the_outputs(self) -> None:
        """O = A X: every output at once, under X, level with A."""
        O, names4 = self._take('O names4')
        self.play(fade_in(O.frame), fade_in(names4[4]), FadeIn(O.grid, lag_ratio=0.05),
                  dim_labels(shapes_of_legend(names4[:4])), run_time=1.2)
        self.pause_on_result("output")

    def close_up_one_output(self) -> None:
        """The close-up: one number of O as a weighted average."""
        (A4, D, NQ, O, X, h, key, nf, pacer, shown, theme, tr, w) = self._take(
            'A4 D NQ O X h key nf pacer shown theme tr w')
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
        dim, undim = focus(theme, *others)  # lifted as the close-up collapses (the poster)
        pacer.swap("Close-up: O's number (1, 2) is a weighted average of the 2nd feature of "
                   "every input, weighted by query 1's attention.",
                   dim, Create(rings[0]), Create(rings[1]), fade_in(w_name), voice(col_x))
        self.play(fly(col_x, weighted), run_time=1.0)
        self.play(gather(list(weighted), total, [tr.weights[j, i] for i in shown],
                         dst=(f"{key}.outputs", j, f)),
                  fade_in(sigma), Create(found), run_time=1.4)
        self.pause_on_result("output")
        self.play(ring_to(found, O.cell(j, f), buff=0.04), run_time=0.8)
        pacer.wait_for_reader(extra=0.5)  # the close-up's caption read before it collapses
        self._keep(close_up=(undim, rings, VGroup(weighted, total, col_x)))

    def collapse_to_poster(self) -> None:
        """The close-up collapses: its digits dim, the veils lift, its rings go; the poster
        (Q, E, A, X, O and the products) is held 4-8 s."""
        (pacer, names4), (undim, rings, digits) = self._take('pacer names4'), self.stage["close_up"]
        pacer.swap("Stacking the queries changes no equation: one pass gives every query its output.",
                   undim, fade_out(rings), quiet(digits), dim_labels(shapes_of_legend(names4[4:])))
        end_on_poster(self, pacer)
