"""``worked_example``: draft 002's numerical example, every matrix with its values.

The inputs ``X`` (rows are input vectors, named by the draft's French words
"le chat mange du poisson" when there are five) and queries ``q`` (rows are
query vectors, "the cat eats fish" when there are four); the scores
``E = X q^T`` (inputs x queries; draft 002 calls them ``s``, a name the
walkthrough keeps for the decoder state); the weights ``A``, a softmax down
each *column* of ``E`` (over the inputs), with bars; the context vectors
``C = A^T X``, one row per query. All values are computed by the core; with
the draft's X and q the last step says on screen how the draft's printed
results differ (its scores are not X q^T, two columns of its alpha do not
sum to 1), as the core checks. Steps are named sections.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from manim import (
    DOWN,
    Line,
    Rectangle,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    SurroundingRectangle,
    VGroup,
)

from attention_core.dot_attention import DRAFT_DECIMALS, DRAFT_INPUT_WORDS, DRAFT_QUERY_WORDS
from attention_core.formatting import format_number

from attention_core.formatting import sum_sign

from .base import CaptionPacer, RESULT_PAUSE, WalkthroughScene, reading_time
from .clarity_moves import (LABEL_DIM, dim_labels, end_on_poster, quiet, set_quiet, shapes_of_legend,
                             voice)
from .glyphs import DIGIT_WIDTH, NUMBER_FONT, weight_cells
from .motion import TRANSPOSE_TIME, digits_of, fly, focus, slide, transpose, window
from .components import (
    caption_in,
    caption_out,
    CELL_H,
    NumberLabel,
    ValueMatrix,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    on_baseline,
    read_as_line,
    subscript,
    title_bar,
)
from .matrix_layout import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    LABEL_SIZE,
    LEGEND_Y,
    NAME_TEX,
    TRANSPOSE_LAG,
    legend_row,
    table_cell_width,
    zoom_for,
    StepLog,
    RowVector,
    place_product,
    rekey_transposed,
)

__all__ = ["WorkedExampleScene", "DRAFT_INPUT_WORDS", "DRAFT_QUERY_WORDS", "printed_matrix", "printed_width"]


TITLE_Y = 3.55
#: The step captions' line: two lines of 24 pt stay 0.1 clear of the frame's bottom edge.
CAPTION_Y = -3.3
GAP = 0.35
MAX_ROWS = 8
LEFT_ROOM = 1.4  # left of X: its row labels (the draft's French words)
FOCUS = 0  # the query whose softmax and context row are highlighted
#: Rows grow with the zoom only this far: 24 pt digits (the 14 px floor) sit in a 0.46 row, and
#: q^T, E and the column sums (9 rows) fit the band.
ROW_ZOOM = 1.1


#: Where the draft's printed matrices stand: right of the computed one they contradict.
DRAFT_GAP = 0.55
#: The leftmost x of a layout that leaves room right of it for the draft's values.
LEFT_EDGE = -6.85
#: The rightmost x of q^T's chip in step 4 (right of the names row).
RIGHT_EDGE = 6.85
#: q^T's chip in step 4: at most this part of its size (digits gone, its cells' tints and frame),
#: and at least this, or it leaves (a chip too small to be seen as q^T).
CHIP_SCALE = 0.5
CHIP_SCALE_MIN = 0.25


def printed_matrix(values: np.ndarray, theme: Any, key: str, decimals: int, cell_w: float,
                   cell_h: float, font: float) -> VGroup:
    """The draft's printed values, struck through: plain cells, digits in the
    negative colour as the draft prints them, one line through each row.

    They are data (what draft 002 prints), shown as the wrong values they
    are, never as results: ``key`` points into ``worked_example.draft_check``.
    """
    rows, cols = values.shape
    cells = VGroup()
    for i in range(rows):
        for j in range(cols):
            box = Rectangle(width=cell_w, height=cell_h, stroke_color=theme.panel, stroke_width=1)
            box.move_to([j * cell_w, -i * cell_h, 0])
            num = NumberLabel(values[i, j], theme, (key, i, j), font_size=font, colour=theme.negative,
                              decimals=decimals).move_to(box)
            cells.add(VGroup(box, num))
    frame = Rectangle(width=cols * cell_w + 0.1, height=rows * cell_h + 0.1,
                      stroke_color=theme.negative, stroke_width=2).move_to(cells)
    # Low through the digits (a third of their height up), so a minus sign stays readable.
    strikes = VGroup()
    for i in range(rows):
        first, last = cells[i * cols], cells[i * cols + cols - 1]
        y = first[1].get_bottom()[1] + first[1].height / 3
        strikes.add(Line([first.get_left()[0] + 0.04, y, 0], [last.get_right()[0] - 0.04, y, 0],
                         stroke_color=theme.negative, stroke_width=2.5, stroke_opacity=0.85))
    group = VGroup(cells, frame, strikes)
    group.cells, group.frame, group.strikes, group.cols = cells, frame, strikes, cols
    return group


def printed_width(values: Any, decimals: int, font: float) -> float:
    """A cell wide enough for the longest printed value at ``font``."""
    longest = max(len(format_number(float(v), decimals)) for v in np.ravel(values))
    return DIGIT_WIDTH * font / NUMBER_FONT * longest / 0.9 + 0.08


class WorkedExampleScene(StepLog, WalkthroughScene):
    scene_id = "worked_example"
    trace_sections = ("worked_example",)
    description = ("Draft 002's worked example (le chat mange du poisson / the cat eats fish): "
                   "E = X q^T, a softmax down each column with bars, C = A^T X, every value "
                   "computed; the draft's printed s, alpha and C stand struck through beside them.")
    steps = ("step-1-inputs", "step-2-scores", "step-3-softmax", "step-4-context", "draft-check")
    shown_results = ("scores", "weights", "context")
    key = "worked_example"

    def construct(self) -> None:
        self.set_stage()                  # sizes and the title; nothing played
        self.show_inputs_and_queries()    # X (rows) and q^T (columns)
        self.score_inputs_against_queries()  # E = X q^T, the draft's s struck through beside it
        self.normalise_the_first_column()  # column 1 of E becomes weights; its sum under it
        self.normalise_every_column()     # the other columns; A with its column sums
        self.lift_inputs()                # X rises to the rows of the next product
        self.transpose_weights()          # the columns of A turn, one by one, into the rows of A^T
        self.mix_contexts()               # X slides over C; C = A^T X; E's chips top left
        with self.close_up("the draft's numbers"):
            self.check_the_draft()        # one beat: the draft's C struck through beside C, the counts
        self.collapse_to_poster()         # the close-up's digits dim; the poster held

    # -- beats ---------------------------------------------------------------------

    def set_stage(self) -> None:
        """Sizes (zoom, elided rows) and the title; nothing played."""
        theme, tr = self.theme, self.trace.worked_example
        N, D = tr.inputs.shape
        M = tr.queries.shape[0]
        self.N, self.D, self.M = N, D, M
        self.draft = tr.draft_weights is not None
        self.x_names = (list(DRAFT_INPUT_WORDS) if N == len(DRAFT_INPUT_WORDS)
                        else [f"x{subscript(i + 1)}" for i in range(N)])
        self.q_names = (list(DRAFT_QUERY_WORDS) if M == len(DRAFT_QUERY_WORDS)
                        else [f"q{subscript(j + 1)}" for j in range(M)])
        self.keep = [int(np.argmax(tr.weights[:, FOCUS]))]
        self.pacer = CaptionPacer(self, CAPTION_Y)
        self._fit_sizes()
        # The absolute 0-1 heat scale every clip uses: weights near 1/N look alike, as they are.
        self.top, self.bottom = 1.0, 0.0
        self.heat_ends: dict = {}
        title = title_bar(
            caption("Worked example", theme, 28),
            math_label(r"E = X\,q^{T} \quad A = \mathrm{softmax}_{\text{columns}}(E)"
                       r" \quad C = A^{T} X", theme, NAME_TEX),
            y=TITLE_Y,
        )
        self.title = title
        self.add(title)  # the first frame is the title, never black

    def _fit_sizes(self) -> None:
        """The zoom, cell sizes and rows of X shown: the largest that fits every step
        (and, for the draft's numbers, its printed alpha and C beside ours)."""
        theme, tr, N, D, M = self.theme, self.trace.worked_example, self.N, self.D, self.M
        w0 = table_cell_width(np.concatenate([a.ravel() for a in (
            tr.inputs, tr.queries, tr.scores, tr.weights, tr.weight_sums, tr.context)]), theme)
        band = CONTENT_TOP - CONTENT_BOTTOM

        def rows_at(z: float) -> int:
            """Rows of X that fit at zoom ``z``, one elision for every step (X keeps
            its rows): under q^T with the column sums (steps 2-3), above C with the
            scores' column names (step 4), and across beside C as the columns of A^T."""
            w, h = w0 * z, CELL_H * min(z, ROW_ZOOM)
            by_steps_2_3 = (band - 0.3 * z - (D * h + 0.1) - GAP - 0.1 - 0.15 - (h + 0.1)) / h
            by_step_4 = (band - 0.1 - 0.3 * z - GAP - (M * h + 0.1)) / h
            by_width = (13.4 - LEFT_ROOM * z - 0.5 - D * w) / w
            return min(MAX_ROWS, math.floor(by_steps_2_3), math.floor(by_step_4),
                       math.floor(by_width))

        def fits(z: float) -> bool:
            """All rows, and (for the draft's numbers) its printed alpha and C beside ours."""
            w = w0 * z
            ok = rows_at(z) >= N and LEFT_ROOM * z + (D + M) * w + 0.5 <= 13.4
            return ok

        # Small tables larger (digits up to 30 pt) when all rows fit.
        self.z = z = zoom_for(fits)
        self.w, self.h, self.nf = w0 * z, CELL_H * min(z, ROW_ZOOM), NUMBER_FONT * z
        self.rows = max(3, rows_at(z))
        self.mat = dict(cell_width=self.w, cell_height=self.h, font_size=self.nf,
                        label_size=max(20 * z, LABEL_SIZE))

    def _to_left(self, *mobs: Any) -> None:
        """With the draft's values to show, the layout moves left to leave them room."""
        if not self.draft:
            return
        group = VGroup(*mobs)
        group.shift(RIGHT * (LEFT_EDGE - group.get_left()[0]))

    def show_inputs_and_queries(self) -> None:
        """Step 1: the inputs as the rows of X, the queries as the columns of q^T."""
        self.next_section(self.steps[0])
        theme, tr, key, N, D, M = self.theme, self.trace.worked_example, self.key, self.N, self.D, self.M
        keep = dict(max_rows=self.rows, keep_rows=self.keep)
        self.X2 = X2 = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                                   row_labels=self.x_names, **keep, **self.mat)
        X2.row_labels.set_color(theme.key)
        self.qT = qT = rekey_transposed(ValueMatrix(tr.queries.T, theme, colour=theme.query,
                                                    col_labels=self.q_names, **self.mat),
                                        f"{key}.queries")
        qT.col_labels.set_color(theme.query)
        self.S = S = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.score,
                                 col_labels=None, **keep, **self.mat)
        place_product(X2, qT, S, CONTENT_TOP, gap=GAP, left_room=LEFT_ROOM * self.z)
        self._to_left(X2.row_labels, X2, qT, S)
        self.names = names = legend_row(theme, [
            ("X", f"{N}\u00d7{D}: {N} inputs as rows", theme.key),
            ("q^{T}", f"{D}\u00d7{M}: {M} queries as columns", theme.query),
            (r"E = X\,q^{T}", f"{N}\u00d7{M}: scores", theme.score),
        ])
        self.play(fade_in(X2), fade_in(names[0]))
        self.pacer.swap("Step 1: the inputs X, a row per word;\nthe queries as the columns of q\u1d40.")
        first = VGroup(*(c for c in (X2.cell(i, k) for i in sorted({i for i, _ in X2.cell_by_index})[:1]
                                     for k in range(D)) if c is not None))
        self.play(fade_in(qT), fade_in(names[1]), dim_labels(shapes_of_legend(names[:1])),
                  quiet(*(c for c in X2.cell_by_index.values() if c not in first)), run_time=1.0)
        self.wait(RESULT_PAUSE)

    def score_inputs_against_queries(self) -> None:
        """Step 2: E = X q^T; the first entry flown in, the rest after; the draft's s beside."""
        self.next_section(self.steps[1])
        theme, tr, S, X2, qT, D = self.theme, self.trace.worked_example, self.S, self.X2, self.qT, self.D
        # The first score shown (the winner may have displaced row 1 when rows are elided).
        i0, j0 = next((i, j) for (i, j) in sorted(S.cell_by_index))
        first = VGroup(*(c for c in (X2.cell(i0, k) for k in range(D)) if c is not None))
        column = VGroup(*(c for c in (qT.cell(k, j0) for k in range(D)) if c is not None))
        rings = VGroup(SurroundingRectangle(first, color=theme.highlight, buff=0.03),
                       SurroundingRectangle(column, color=theme.highlight, buff=0.03))
        self.pacer.swap("Step 2: E = X\u00b7q\u1d40 (the draft's s): entry (i, j) = input i \u00b7 "
                        "query j.",
                        fade_in(self.names[2]), fade_in(S.frame), Create(rings),
                        dim_labels(shapes_of_legend(self.names[1:2])))
        self.play(fly(VGroup(first, column), S.cell(i0, j0)), run_time=0.8)
        rest = VGroup(*(m for m in S.grid if m is not S.cell(i0, j0)))
        self.play(fade_out(rings), FadeIn(rest, lag_ratio=0.05), quiet(X2, qT), run_time=1.2)
        self.add(S)
        self.pause_on_result("scores")
        # Read once; step 3 works down column "the": the other columns wait as chips.
        M = self.M
        self.play(quiet(*(m for r, m in enumerate(S.grid) if r % M != FOCUS)), run_time=0.5)

    def normalise_the_first_column(self) -> None:
        """Step 3: softmax down the first column, in place; its sum flies under it."""
        self.next_section(self.steps[2])
        theme, tr, key, N, D, M = self.theme, self.trace.worked_example, self.key, self.N, self.D, self.M
        S, w, h = self.S, self.w, self.h
        keep = dict(max_rows=self.rows, keep_rows=self.keep)
        self.alpha = alpha = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.weight,
                                         **keep, **self.mat).move_to(S)
        weight_cells(alpha.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights",
                     thickness=0.14, top=self.top, bottom=self.bottom)
        self.sums = sums = RowVector(tr.weight_sums, theme, f"{key}.weight_sums", theme.muted,
                                     cell_width=w, cell_height=h)
        sums.next_to(alpha.frame, DOWN, buff=0.15)
        # The sums are of the weights before rounding: where the shown weights of a
        # column add up to another number (0.33 x 3 = 0.99), the label says so (issue 25).
        M_cols = tr.weights.shape[1]
        exact = all(sum_sign(tr.weights[:, j], tr.weight_sums[j], theme.decimals) == "="
                    for j in range(M_cols))
        self.sums_name = sums_name = caption("column sums" if exact else "column sums (before rounding)", theme,
                                             LABEL_SIZE, theme.muted)
        sums_name.next_to(sums.frame, LEFT, buff=0.2)
        col_S = VGroup(*(m for r, m in enumerate(S.grid) if r % M == FOCUS))
        col_A = VGroup(*(m for r, m in enumerate(alpha.grid) if r % M == FOCUS))
        ring = SurroundingRectangle(col_S, color=theme.highlight, buff=0.03)
        self.pacer.swap(f"Step 3: softmax down column \u201c{self.q_names[FOCUS]}\u201d: its {N} scores "
                        "become weights that sum to 1.", Create(ring), dim_labels(shapes_of_legend(self.names[2:])),
                        quiet(*(m for r, m in enumerate(S.grid) if r % M != FOCUS)))
        # In place: the scores fade out, the weights (filled by the heat scale) fade in.
        self.play(caption_out(col_S), caption_in(col_A), run_time=1.0)
        self.play(fly(col_A, sums.cell_by_index[FOCUS]), fade_in(sums.frame), fade_in(sums_name),
                  run_time=0.8)
        self.pause_on_result("weights")
        self.col_ring = ring

    def normalise_every_column(self) -> None:
        """... and the same for every other column: E becomes A in place, the sums under it."""
        theme, tr, N, D, M = self.theme, self.trace.worked_example, self.N, self.D, self.M
        S, alpha, sums = self.S, self.alpha, self.sums
        ring = self.col_ring
        rest_S = VGroup(*(m for r, m in enumerate(S.grid) if r % M != FOCUS))
        rest_A = VGroup(*(m for r, m in enumerate(alpha.grid) if r % M != FOCUS))
        rest_sums = VGroup(*(c for k, c in sums.cell_by_index.items() if k != FOCUS))
        set_quiet(rest_A)  # the other queries' weights: their fill and bars, not their digits
        self.names3 = names3 = legend_row(theme, [
            ("X", f"{N}\u00d7{D}", theme.key),
            ("q^{T}", f"{D}\u00d7{M}", theme.query),
            (r"A = \mathrm{softmax}_{\text{columns}}(E)", f"{N}\u00d7{M}", theme.weight),
        ], heat=True, **self.heat_ends)
        set_quiet(shapes_of_legend(names3[:2]), LABEL_DIM, texts=True)  # X's and q's shapes: read in step 1
        self.pacer.swap("... and every column. Few features, small scores: weights near an even split.",
                        fade_out(ring), caption_out(rest_S), caption_in(rest_A), fade_out(S.frame),
                        fade_in(alpha.frame), *(caption_out(m) for m in self.names),
                        *(caption_in(m) for m in names3))
        self.play(fade_in(rest_sums), run_time=0.6)
        self.remove(S)
        self.add(alpha)
        self.pause_on_result("weights")

    def _step_4_layout(self) -> None:
        """Where step 4 puts things (nothing played): A^T, X and C as the product C = A^T X;
        q^T's corner (top right, if it fits there beside X and above the draft's C); the names."""
        theme, tr, key, N, D, M = self.theme, self.trace.worked_example, self.key, self.N, self.D, self.M
        self.aT = aT = rekey_transposed(ValueMatrix(tr.weights.T, theme, colour=theme.weight,
                                                    row_labels=self.q_names, max_cols=self.rows,
                                                    keep_cols=self.keep, **self.mat), f"{key}.weights")
        weight_cells(aT.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights",
                     transposed=True, thickness=0.14, top=self.top, bottom=self.bottom)
        aT.row_labels.set_color(theme.query)
        self.X4 = X4 = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                                   row_labels=self.x_names, max_rows=self.rows, keep_rows=self.keep,
                                   **self.mat)
        X4.row_labels.set_color(theme.key)
        set_quiet(X4.grid)  # read in step 1: chips here
        self.C = C = ValueMatrix(tr.context, theme, key=f"{key}.context", colour=theme.value, **self.mat)
        # Room above X for the scores' column names (E comes back beside X).
        place_product(aT, X4, C, CONTENT_TOP - 0.3 * self.z, gap=GAP, left_room=LEFT_ROOM * self.z)
        self._to_left(aT.row_labels, aT, X4, C)
        entries = [("E", f"{N}\u00d7{M}", theme.score),
                   (r"A^{T}", f"{M}\u00d7{N}", theme.weight),
                   ("X", f"{N}\u00d7{D}", theme.key),
                   (r"C = A^{T} X", f"{M}\u00d7{D}: one context per query", theme.value)]
        self.names4 = legend_row(theme, entries, heat=True, **self.heat_ends)
        self._q_chip_layout()

    def _q_chip_layout(self) -> None:
        """Where q^T rests in step 4 (nothing played): the product E = X q^T is still on the
        poster, so q^T stays, as a chip (its digits were read in steps 1-2), in the room right of
        the names row, under the title and over X, with its name and shape before it."""
        theme, D, M, qT, names4 = self.theme, self.D, self.M, self.qT, self.names4
        self.q_name4 = name = VGroup(math_label("q^{T}", theme, NAME_TEX, theme.query),
                                     caption(f"{D}\u00d7{M}", theme, LABEL_SIZE, theme.muted)).arrange(RIGHT, buff=0.2)
        set_quiet(name[1], LABEL_DIM, texts=True)  # its shape was read in step 1
        shown = names4[3]  # the last name shown (the heat key after it is not)
        name.next_to(shown, RIGHT, buff=0.7).set_y(shown.get_y())
        self.q_chip = chip = VGroup(qT.grid, qT.frame)
        top = self.title.get_bottom()[1] - 0.1
        bottom = self.X4.frame.get_top()[1] + 0.12
        left = name.get_right()[0] + 0.25
        scale = min(CHIP_SCALE, (top - bottom) / chip.height, (RIGHT_EDGE - left) / chip.width)
        self.q_stays = scale >= CHIP_SCALE_MIN
        if self.q_stays:
            h = chip.height * scale
            y = min(max(LEGEND_Y, bottom + h / 2), top - h / 2)
            self.q_scale, self.q_to = scale, np.array([left + chip.width * scale / 2, y, 0.0])

    def lift_inputs(self) -> None:
        """Step 4 begins: the sums leave; q^T's digits (read in steps 1-2) fade as it slides
        and shrinks to a chip right of the names row, beside its name, while X rises straight
        up to the rows of the next product (q^T leaves only if there is no room for it)."""
        self.next_section(self.steps[3])
        self._step_4_layout()
        X2, X4, names3, names4, qT = self.X2, self.X4, self.names3, self.names4, self.qT
        leaving = [self.sums, self.sums_name]
        leaving += [] if self.q_stays else [qT]
        # The names of X (and of q^T) move to their new places (the same names): with q^T's,
        # side by side once q^T's chip has passed where its name ends.
        x_name = slide(names3[0], names4[2], what="slide", src="X name", dst="X name")
        self.pacer.swap("Step 4: C = A\u1d40\u00b7X: one context vector per query, "
                        "each a weighted average of the input vectors.",
                        *(caption_out(m) for m in names3[1 + self.q_stays:]),
                        *([] if self.q_stays else [x_name]), *(fade_out(m) for m in leaving), run_time=1.0)
        # X straight up its own column (left of where q^T was: nothing there); q^T itself
        # to the top right, over X's new place, its column names gone (E's columns and
        # A^T's rows name the queries).
        self.lift_to = X2.get_center() + np.array([0, X4.frame.get_top()[1] - X2.frame.get_top()[1], 0])
        if not self.q_stays:
            self.remove(names3[0])
            self.add(names4[2])
            self.play(slide(X2, self.lift_to, what="slide", src="X", dst="X above C"), run_time=1.0)
            return
        # The chip first, then its name along the names row beside it (the chip passes
        # over where the name ends).
        self.play(slide(X2, self.lift_to, what="slide", src="X", dst="X above C", rate_func=window(0.0, 0.7)),
                  slide(self.q_chip, self.q_to, scale=self.q_scale, what="slide", src="q^T", dst="q chip",
                        rate_func=window(0.0, 0.6)),
                  fade_out(digits_of(qT), rate_func=window(0.0, 0.3)),
                  fade_out(qT.col_labels, rate_func=window(0.0, 0.3)),
                  slide(names3[1], self.q_name4, what="slide", src="q name", dst="q name",
                        rate_func=window(0.6, 1.0)),
                  slide(names3[0], names4[2], what="slide", src="X name", dst="X name",
                        rate_func=window(0.6, 1.0)), run_time=1.4)
        qT.remove(qT.col_labels)
        self.remove(*names3[:2])
        self.add(names4[2], self.q_name4)

    def transpose_weights(self) -> None:
        """Step 4: column j of A (query j's weights) flies into row j of A^T, one after another."""
        alpha, aT, M = self.alpha, self.aT, self.M
        kept_rows = sorted({i for (i, _) in alpha.cell_by_index})
        cols = [VGroup(*(alpha.cell(i, j) for i in kept_rows if aT.cell(j, i) is not None))
                for j in range(M)]
        rows = [VGroup(*(aT.cell(j, i) for i in kept_rows if aT.cell(j, i) is not None))
                for j in range(M)]
        a_rest = VGroup(alpha.frame, *(m for m in alpha.grid if m not in alpha.cell_by_index.values()))
        # Query "the"'s weights were read in step 3: its row keeps its digits, the others are chips.
        set_quiet(VGroup(*(c for (j, _), c in aT.cell_by_index.items() if j != FOCUS)))
        aT_rest = VGroup(aT.frame, aT.row_labels,
                         *(m for m in aT.grid if m not in aT.cell_by_index.values()))
        self.play(transpose(cols, rows, turn="column", lag_ratio=TRANSPOSE_LAG), caption_out(a_rest), caption_in(aT_rest),
                  caption_in(self.names4[1]), run_time=max(TRANSPOSE_TIME + 0.8, 0.8 * M))
        self.remove(alpha)
        self.add(aT)

    def mix_contexts(self) -> None:
        """X slides right over C; C = A^T X appears; E comes back beside X (its rows are X's)."""
        theme, tr, key = self.theme, self.trace.worked_example, self.key
        X2, X4, C, aT = self.X2, self.X4, self.C, self.aT
        to = X2.get_center() + np.array([X4.frame.get_x() - X2.frame.get_x(), 0, 0])
        self.play(slide(X2, to, what="slide", src="X", dst="X above C"), run_time=1.2)
        self.remove(X2)
        self.add(X4)
        self.E4 = E4 = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.score,
                                   col_labels=self.q_names, max_rows=self.rows, keep_rows=self.keep,
                                   **self.mat)
        E4.col_labels.set_color(theme.query)
        set_quiet(E4.grid)  # E was read in step 2: here it is the chips the weights came from
        E4.shift([X4.row_labels.get_left()[0] - 0.3 - E4.frame.get_right()[0],
                  X4.frame.get_y() - E4.frame.get_y(), 0])
        self.play(fade_in(E4), fade_in(self.names4[0]), fade_in(self.names4[3]), fade_in(C.frame),
                  FadeIn(C.grid, lag_ratio=0.05), dim_labels(shapes_of_legend(self.names4)), run_time=1.2)
        self.pause_on_result("context")
        row_a = VGroup(*(aT.cell(FOCUS, i) for i in range(self.N) if aT.cell(FOCUS, i) is not None))
        row_C = VGroup(*(C.cell(FOCUS, k) for k in range(self.D) if C.cell(FOCUS, k) is not None))
        self.rings = rings = VGroup(SurroundingRectangle(row_a, color=theme.value, buff=0.03),
                                    SurroundingRectangle(row_C, color=theme.value, buff=0.03))
        formula = self._weighted_average(FOCUS, self.x_names, self.q_names)
        others = [c for (j, _), c in C.cell_by_index.items() if j != FOCUS]
        self.pacer.swap(formula, quiet(*others), run_time=0.8)
        self.wait(RESULT_PAUSE * 2)
        self.play(Create(rings), run_time=0.6)  # the row of weights and the row of C it makes
        self.pause_on_result("context")
        self.pacer.wait_for_reader(extra=0.5)  # read before the close-up begins

    def check_the_draft(self) -> None:
        """The close-up, one beat: C's digits, the rest veiled; one caption counts what the
        draft's printed s, alpha and C get wrong and sets its row "the" of C (struck through)
        against ours."""
        self.next_section(self.steps[4])
        note = self._draft_note()
        if note is None:
            return
        veiled = [m for m in (self.X4, self.aT, self.E4) if m is not None]
        veiled += [self.qT] if self.q_stays else []
        dim, self.undim = focus(self.theme, *veiled)
        self.pacer.swap(note, dim, fade_out(self.rings), voice(self.C))
        # Halfway through the note (the draft's row "the"): our row "the" of C is ringed.
        row = VGroup(*(c for (j, _), c in self.C.cell_by_index.items() if j == FOCUS))
        self.wait(RESULT_PAUSE * 2)
        self.rings = SurroundingRectangle(row, color=self.theme.value, buff=0.04)
        self.play(Create(self.rings), run_time=0.8)
        self.wait(RESULT_PAUSE * 2)
        self.play(Create(note.strike), run_time=0.6)
        note.add(note.strike)
        self.pacer.wait_for_reader(extra=0.5)
        self.printed = note

    def collapse_to_poster(self) -> None:
        """The close-up collapses: the veils lift, the digits (ours and the draft's) dim but
        row "the" of C; the poster (X, q, E, A^T, C and the draft's C) is held 4-8 s."""
        C, printed = self.C, getattr(self, "printed", None)
        rest = [c for (j, _), c in C.cell_by_index.items() if j != FOCUS]
        if printed is None:  # not the draft's numbers: the weighted average was the last word
            self.play(fade_out(self.rings), quiet(*rest), run_time=0.8)
        else:
            self.pacer.swap("Every value here is computed from the draft's own X and q.",
                            self.undim, quiet(*rest), fade_out(self.rings))
        end_on_poster(self, self.pacer)

    def _draft_note(self) -> VGroup | None:
        """What the draft prints against what X and q give (only for the draft's X and q): the
        counts, and its row "the" of C, struck through, beside ours."""
        theme, tr, key = self.theme, self.trace.worked_example, self.key
        if tr.draft_weight_sums is None:
            return None
        first = caption(f"The draft's s, \u03b1 and C: {tr.draft_score_mismatches} of {tr.scores.size}, "
                        f"{tr.draft_weight_mismatches} of {tr.weights.size} and {tr.draft_context_mismatches} of "
                        f"{tr.context.size} differ;", theme, LABEL_SIZE, theme.negative)
        row = self.q_names[FOCUS]
        printed = VGroup(*(NumberLabel(v, theme, (f"{key}.draft_check.printed_context", FOCUS, k),
                                       font_size=LABEL_SIZE, colour=theme.negative,
                                       decimals=DRAFT_DECIMALS["context"])
                           for k, v in enumerate(tr.draft_context[FOCUS]))).arrange(RIGHT, buff=0.25)
        ours = VGroup(*(NumberLabel(v, theme, (f"{key}.context", FOCUS, k), font_size=LABEL_SIZE,
                                    colour=theme.value) for k, v in enumerate(tr.context[FOCUS])
                        )).arrange(RIGHT, buff=0.25)
        second = on_baseline(VGroup(
            caption(f"Its C, row \u201c{row}\u201d:", theme, LABEL_SIZE, theme.negative), printed,
            caption("; X and q give", theme, LABEL_SIZE), ours).arrange(RIGHT, buff=0.18))
        VGroup(*second[2:]).shift(LEFT * 0.12)  # the semicolon against the draft's last number
        note = VGroup(first, second).arrange(DOWN, buff=0.1)
        fit_within(note, max_width=13.4)
        note.move_to([0, -3.88 + note.height / 2, 0])  # under the content, 0.12 above the frame's edge
        # Low through the draft's digits (a third of their height up), as printed_matrix strikes.
        strike = Line(printed.get_left() + LEFT * 0.05, printed.get_right() + RIGHT * 0.05,
                      stroke_color=theme.negative, stroke_width=2.5)
        strike.set_y(printed.get_bottom()[1] + printed.height / 3)
        # What the reader has to read (the pacer times the caption by its words).
        note.text = "\n".join([first.original_text, read_as_line(second).text])
        note.strike = strike  # drawn once the reader has found the draft's row
        return note

    def _weighted_average(self, j: int, x_names: list[str], q_names: list[str]) -> VGroup:
        """``c_j = a_1j x_1 + ...`` (inputs by name), the weights as numbers from the trace."""
        theme, tr = self.theme, self.trace.worked_example
        N = tr.inputs.shape[0]
        shown = list(range(N)) if N <= 5 else [0, 1, None, N - 1]
        parts: list = [caption(f"Row \u201c{q_names[j]}\u201d of C =", theme, LABEL_SIZE, theme.value)]
        for n, i in enumerate(shown):
            if n:
                parts.append(caption("+", theme, LABEL_SIZE))
            if i is None:
                parts.append(caption("\u2026", theme, LABEL_SIZE))
                continue
            parts.append(NumberLabel(tr.weights[i, j], theme, ("worked_example.weights", i, j),
                                     font_size=LABEL_SIZE, colour=theme.weight))
            parts.append(caption(f"\u00b7{x_names[i]}", theme, LABEL_SIZE, theme.key))
        line = on_baseline(VGroup(*parts).arrange(RIGHT, buff=0.1))  # "·mange" not above "·le"
        tail = caption(f"a weighted average of the inputs, weighted by column \u201c{q_names[j]}\u201d of A.",
                       theme, LABEL_SIZE)
        both = VGroup(line, tail).arrange(DOWN, buff=0.12)
        fit_within(both, max_width=13.4)
        both.text = read_as_line(line).text + "\n" + tail.original_text
        return both.move_to([0, CAPTION_Y, 0])


def _texts_of(mob: Any) -> str:
    """The words of every text in ``mob``, for its reading time."""
    from manim import Text
    return " ".join(m.original_text for m in mob.get_family() if isinstance(m, Text))
