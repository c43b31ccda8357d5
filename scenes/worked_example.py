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

import numpy as np

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

from attention_core.dot_attention import DRAFT_INPUT_WORDS, DRAFT_QUERY_WORDS

from attention_core.formatting import sum_sign

from .base import CaptionPacer, RESULT_PAUSE, WalkthroughScene
from .glyphs import NUMBER_FONT, cell_width_for, weight_cells
from .components import (
    caption_in,
    caption_out,
    step_caption,
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
from .dot_product_attention import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    fly,
    legend_row,
    table_cell_width,
    zoom_for,
    StepLog,
    RowVector,
    name_block,
    place_product,
    rekey_transposed,
    veil,
)

__all__ = ["WorkedExampleScene", "DRAFT_INPUT_WORDS", "DRAFT_QUERY_WORDS"]


TITLE_Y = 3.55
CAPTION_Y = -3.55
GAP = 0.35
MAX_ROWS = 8
LEFT_ROOM = 1.4  # left of X: its row labels (the draft's French words)
FOCUS = 0  # the query whose softmax and context row are highlighted


class WorkedExampleScene(StepLog, WalkthroughScene):
    scene_id = "worked_example"
    trace_sections = ("worked_example",)
    description = ("Draft 002's worked example (le chat mange du poisson / the cat eats fish): "
                   "E = X q^T, a softmax down each column with bars, C = A^T X, every value "
                   "computed; says where the draft's printed results differ.")
    steps = ("step-1-inputs", "step-2-scores", "step-3-softmax", "step-4-context", "draft-check")
    shown_results = ("scores", "weights", "context")

    def construct(self) -> None:
        theme, tr = self.theme, self.trace.worked_example
        key = "worked_example"
        N, D = tr.inputs.shape
        M = tr.queries.shape[0]
        x_names = (list(DRAFT_INPUT_WORDS) if N == len(DRAFT_INPUT_WORDS)
                   else [f"x{subscript(i + 1)}" for i in range(N)])
        q_names = (list(DRAFT_QUERY_WORDS) if M == len(DRAFT_QUERY_WORDS)
                   else [f"q{subscript(j + 1)}" for j in range(M)])
        w0 = table_cell_width(np.concatenate([a.ravel() for a in (
            tr.inputs, tr.queries, tr.scores, tr.weights, tr.weight_sums, tr.context)]), theme)
        keep = [int(np.argmax(tr.weights[:, FOCUS]))]
        pacer = self.pacer = CaptionPacer(self, CAPTION_Y)
        band = CONTENT_TOP - CONTENT_BOTTOM

        def rows_at(z: float) -> int:
            """Rows of X that fit at zoom ``z``, one elision for every step (X keeps
            its rows): under q^T with the column sums (steps 2-3), above C (step 4),
            and across beside C as the columns of A^T (step 4)."""
            w, h = w0 * z, CELL_H * z
            by_steps_2_3 = (band - 0.3 * z - (D * h + 0.1) - GAP - 0.1 - 0.15 - (h + 0.1)) / h
            by_step_4 = (band - 0.1 - GAP - (M * h + 0.1)) / h
            by_width = (13.4 - LEFT_ROOM * z - 0.5 - D * w) / w
            return min(MAX_ROWS, math.floor(by_steps_2_3), math.floor(by_step_4),
                       math.floor(by_width))

        # Small tables larger (digits up to 30 pt) when all rows fit.
        z = zoom_for(lambda z: rows_at(z) >= N and LEFT_ROOM * z + (D + M) * w0 * z + 0.5 <= 13.4)
        w, h, nf = w0 * z, CELL_H * z, NUMBER_FONT * z
        rows = max(3, rows_at(z))
        mat = dict(cell_width=w, cell_height=h, font_size=nf, label_size=20 * z)

        title = title_bar(
            caption("Worked example", theme, 28),
            math_label(r"E = X\,q^{T} \qquad A = \mathrm{softmax}_{\text{columns}}(E)"
                       r" \qquad C = A^{T} X", theme, 30),
            y=TITLE_Y,
        )
        self.add(title)  # the first frame is the title, never black
        self.next_section(self.steps[0])

        # -- step 1: the inputs (rows of X) and the queries (columns of q^T) ----------
        X2 = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                         row_labels=x_names, max_rows=rows, keep_rows=keep, **mat)
        X2.row_labels.set_color(theme.key)
        qT = rekey_transposed(ValueMatrix(tr.queries.T, theme, colour=theme.query,
                                          col_labels=q_names, **mat), f"{key}.queries")
        qT.col_labels.set_color(theme.query)
        S = ValueMatrix(tr.scores, theme, key=f"{key}.scores", colour=theme.text,
                        max_rows=rows, keep_rows=keep, col_labels=None, **mat)
        place_product(X2, qT, S, CONTENT_TOP, gap=GAP, left_room=LEFT_ROOM * z)
        names = legend_row(theme, [
            ("X", f"{N}\u00d7{D}: {N} inputs as rows", theme.key),
            ("q^{T}", f"{D}\u00d7{M}: {M} queries as columns", theme.query),
            (r"E = X\,q^{T}", f"{N}\u00d7{M}: scores", theme.text),
        ])
        self.play(fade_in(X2), fade_in(qT), fade_in(names[0]), fade_in(names[1]))
        pacer.swap(f"Step 1: the inputs X ({N}\u00d7{D}) and the queries q ({M}\u00d7{D}) have the "
                   f"same {D} features; the queries stand as the columns of q\u1d40.")
        self.wait(RESULT_PAUSE)

        # -- step 2: E = X q^T -----------------------------------------------
        self.next_section(self.steps[1])
        # The first score shown (the winner may have displaced row 1 when rows are elided).
        i0, j0 = next((i, j) for (i, j) in sorted(S.cell_by_index))
        first = VGroup(*(c for c in (X2.cell(i0, k) for k in range(D)) if c is not None))
        column = VGroup(*(c for c in (qT.cell(k, j0) for k in range(D)) if c is not None))
        rings = VGroup(SurroundingRectangle(first, color=theme.highlight, buff=0.03),
                       SurroundingRectangle(column, color=theme.highlight, buff=0.03))
        pacer.swap("Step 2: E = X\u00b7q\u1d40 (the draft calls it s): entry (i, j) is input i "
                   "dotted with query j. Rows: inputs, columns: queries.",
                   fade_in(names[2]), fade_in(S.frame), Create(rings))
        self.play(fly(VGroup(first, column), S.cell(i0, j0)), run_time=0.8)
        rest = VGroup(*(m for m in S.grid if m is not S.cell(i0, j0)))
        self.play(fade_out(rings), FadeIn(rest, lag_ratio=0.05), run_time=1.2)
        self.add(S)
        self.pause_on_result("scores")

        # -- step 3: A = softmax of each column ----------------------------------
        self.next_section(self.steps[2])
        alpha = ValueMatrix(tr.weights, theme, key=f"{key}.weights", colour=theme.weight,
                            max_rows=rows, keep_rows=keep, **mat).move_to(S)
        weight_cells(alpha.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights")
        sums = RowVector(tr.weight_sums, theme, f"{key}.weight_sums", theme.muted, cell_width=w,
                         cell_height=h)
        sums.next_to(alpha.frame, DOWN, buff=0.15)
        # The sums are of the weights before rounding: where the shown weights of a
        # column add up to another number (0.33 x 3 = 0.99), the label says so (issue 25).
        M_cols = tr.weights.shape[1]
        exact = all(sum_sign(tr.weights[:, j], tr.weight_sums[j], theme.decimals) == "="
                    for j in range(M_cols))
        sums_name = caption("column sums" if exact else "column sums (before rounding)", theme, 20,
                            theme.muted)
        sums_name.next_to(sums.frame, LEFT, buff=0.2)
        col_S = VGroup(*(m for r, m in enumerate(S.grid) if r % M == FOCUS))
        col_A = VGroup(*(m for r, m in enumerate(alpha.grid) if r % M == FOCUS))
        ring = SurroundingRectangle(col_S, color=theme.highlight, buff=0.03)
        pacer.swap(f"Step 3: softmax down column {FOCUS + 1}: the scores of query "
                   f"\u201c{q_names[FOCUS]}\u201d over the {N} inputs become weights that sum to 1.",
                   Create(ring))
        # In place: the scores fade out, the weights (filled by the heat scale) fade in.
        self.play(caption_out(col_S), caption_in(col_A), run_time=1.0)
        self.play(fly(col_A, sums.cell_by_index[FOCUS]), fade_in(sums.frame),
                  fade_in(sums_name), run_time=0.8)
        self.pause_on_result("weights")
        rest_S = VGroup(*(m for r, m in enumerate(S.grid) if r % M != FOCUS))
        rest_A = VGroup(*(m for r, m in enumerate(alpha.grid) if r % M != FOCUS))
        rest_sums = VGroup(*(c for k, c in sums.cell_by_index.items() if k != FOCUS))
        names3 = legend_row(theme, [
            ("X", f"{N}\u00d7{D}", theme.key),
            ("q^{T}", f"{D}\u00d7{M}", theme.query),
            (r"A = \mathrm{softmax}_{\text{columns}}(E)", f"{N}\u00d7{M}", theme.weight),
        ], heat=True)
        pacer.swap("... and the same for every column: one distribution over the inputs per "
                   "query; the fill and the bar show each weight.",
                   fade_out(ring), caption_out(rest_S), caption_in(rest_A), fade_out(S.frame),
                   fade_in(alpha.frame), *(caption_out(m) for m in names),
                   *(caption_in(m) for m in names3))
        self.play(fade_in(rest_sums), run_time=0.6)
        self.add(alpha)
        self.pause_on_result("weights")

        # -- step 4: C = A^T X ---------------------------------------------------
        self.next_section(self.steps[3])
        aT = rekey_transposed(ValueMatrix(tr.weights.T, theme, colour=theme.weight,
                                          row_labels=q_names, max_cols=rows, keep_cols=keep,
                                          **mat), f"{key}.weights")
        weight_cells(aT.cell_by_index.items(), tr.weights, theme, key=f"{key}.weights",
                     transposed=True)
        aT.row_labels.set_color(theme.query)
        X4 = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                         row_labels=x_names, max_rows=rows, keep_rows=keep, **mat)
        X4.row_labels.set_color(theme.key)
        C = ValueMatrix(tr.context, theme, key=f"{key}.context", colour=theme.value, **mat)
        place_product(aT, X4, C, CONTENT_TOP, gap=GAP, left_room=LEFT_ROOM * z)
        names4 = legend_row(theme, [
            (r"A^{T}", f"{M}\u00d7{N}", theme.weight),
            ("X", f"{N}\u00d7{D}", theme.key),
            (r"C = A^{T} X", f"{M}\u00d7{D}: one context per query", theme.value),
        ], heat=True)
        # A's entry (i, j) moves to (j, i) of A^T; X moves up, its rows unchanged.
        kept = [(i, j) for (i, j) in alpha.cell_by_index if aT.cell(j, i) is not None]
        src = VGroup(*(alpha.cell(i, j) for i, j in kept))
        tgt = VGroup(*(aT.cell(j, i) for i, j in kept))
        a_dots = VGroup(*(m for m in alpha.grid if m not in alpha.cell_by_index.values()))
        aT_dots = VGroup(*(m for m in aT.grid if m not in aT.cell_by_index.values()))
        pacer.swap(f"Step 4: C = A\u1d40\u00b7X: one context vector per query ({M}\u00d7{D}), "
                   "each a weighted average of the input vectors.",
                   *(caption_out(m) for m in names3), *(caption_in(m) for m in names4[:2]),
                   fade_out(qT), fade_out(sums), fade_out(sums_name), fade_out(alpha.frame),
                   caption_out(a_dots), fly(src, tgt, remove=True), fly(X2, X4, remove=True),
                   fade_in(aT.frame), caption_in(aT.row_labels), caption_in(aT_dots), run_time=1.4)
        self.add(aT, X4)
        self.play(fade_in(names4[2]), fade_in(C.frame), FadeIn(C.grid, lag_ratio=0.05),
                  run_time=1.2)
        self.pause_on_result("context")
        row_a = VGroup(*(aT.cell(FOCUS, i) for i in range(N) if aT.cell(FOCUS, i) is not None))
        row_C = VGroup(*(C.cell(FOCUS, k) for k in range(D) if C.cell(FOCUS, k) is not None))
        rings = VGroup(SurroundingRectangle(row_a, color=theme.value, buff=0.03),
                       SurroundingRectangle(row_C, color=theme.value, buff=0.03))
        formula = self._weighted_average(FOCUS, x_names, q_names)
        self.play(Create(rings), run_time=0.6)
        pacer.swap(formula, run_time=0.8)
        self.pause_on_result("context")

        # -- the draft's printed results, checked ------------------------------------
        self.next_section(self.steps[4])
        note = self._draft_note()
        if note is not None:
            pacer.swap(note, fade_out(rings))
        pacer.finish()

    def _draft_note(self) -> VGroup | None:
        """What the draft prints against what X and q give (only for the draft's X and q)."""
        theme, tr = self.theme, self.trace.worked_example
        if tr.draft_weight_sums is None:
            return None
        first = caption("Draft 002 prints other results: its s is not X\u00b7q\u1d40 "
                        f"({tr.draft_score_mismatches} of {tr.scores.size} entries differ),",
                        theme, 22, theme.negative)
        sums = [NumberLabel(v, theme, ("worked_example.draft_check.printed_weight_sums", j),
                            font_size=NUMBER_FONT, colour=theme.negative)
                for j, v in enumerate(tr.draft_weight_sums)]
        parts: list = [caption("and the columns of its \u03b1 sum to", theme, 22, theme.negative)]
        parts += sums
        second = VGroup(*parts).arrange(RIGHT, buff=0.3)
        for n, lab in enumerate(sums):
            lab.align_to(parts[0], DOWN)
            if n < len(sums) - 1:  # a comma on the digits' baseline, its tail below
                comma = caption(",", theme, 22, theme.negative)
                comma.next_to(lab, RIGHT, buff=0.04).align_to(lab, DOWN).shift(DOWN * 0.07)
                second.add(comma)
        third = caption("(a softmax column sums to 1). Every value here is computed from X and q.",
                        theme, 22)
        note = VGroup(first, second, third).arrange(DOWN, buff=0.1)
        fit_within(note, max_width=13.6)
        note.move_to([0, -3.88 + note.height / 2, 0])
        # What the reader has to read (the pacer times the caption by its words).
        note.text = "\n".join([first.original_text,
                               f"{second[0].original_text} {', '.join(lab.shown for lab in sums)}",
                               third.original_text])
        return note

    def _weighted_average(self, j: int, x_names: list[str], q_names: list[str]) -> VGroup:
        """``c_j = a_1j x_1 + ...`` (inputs by name), the weights as numbers from the trace."""
        theme, tr = self.theme, self.trace.worked_example
        N = tr.inputs.shape[0]
        shown = list(range(N)) if N <= 5 else [0, 1, None, N - 1]
        parts: list = [caption(f"Row \u201c{q_names[j]}\u201d of C =", theme, 22, theme.value)]
        for n, i in enumerate(shown):
            if n:
                parts.append(caption("+", theme, 22))
            if i is None:
                parts.append(caption("\u2026", theme, 22))
                continue
            parts.append(NumberLabel(tr.weights[i, j], theme, ("worked_example.weights", i, j),
                                     font_size=NUMBER_FONT, colour=theme.weight))
            parts.append(caption(f"\u00b7{x_names[i]}", theme, 22, theme.key))
        line = on_baseline(VGroup(*parts).arrange(RIGHT, buff=0.1))  # "·mange" not above "·le"
        tail = caption("a weighted average of the input vectors, weights from column "
                       f"\u201c{q_names[j]}\u201d of A.", theme, 22)
        both = VGroup(line, tail).arrange(DOWN, buff=0.12)
        fit_within(both, max_width=13.6)
        both.text = read_as_line(line).text + "\n" + tail.original_text
        return both.move_to([0, CAPTION_Y, 0])
