"""``dot_product_attention``: one query over the input features.

Draft 000, Part 2, "Abstraction 2", its Steps 1-4 and the close-up of one
term, each a named section (``next_section``), so ``render --steps`` gives the
draft's step figures:

1. ``step-1-variables``: the query ``s_2`` (1 x D) and the input features as
   the columns of ``X^T`` (D x N);
2. ``step-2-scores``: ``E = s_2 X^T`` (1 x N) laid out the textbook way, ``E``
   under ``X^T`` and level with ``s_2``; each ``e_i`` is built from its
   products ``s_2k h_ik`` and a running sum;
3. ``step-3-softmax``: ``A = softmax(E)`` (1 x N) under ``E``, with bars;
4. ``step-4-output``: ``o = A X`` (1 x N times N x D = 1 x D);
5. ``close-up``: ``a_2. h_.2``, the second number of ``o``, as a weighted
   average of the second feature of every input.

Every label carries its shape, and the shapes multiply. With many inputs the
columns are elided, never the one with the largest weight.
"""

from __future__ import annotations

import re

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    Rectangle,
    SurroundingRectangle,
    VGroup,
)

from .motion import TRANSPOSE_TIME, fly, focus, gather, ring_to, slide, transpose, veil
from attention_core.formatting import sum_sign
from .base import RESULT_PAUSE, CaptionPacer, WalkthroughScene
from .clarity_moves import (dim_labels, end_on_poster, quiet, set_quiet, shapes_of_legend,
                             voice)
from .glyphs import NUMBER_FONT, bars_under, weight_cells
from .components import (
    CELL_H,
    CELL_W,
    NumberLabel,
    ValueCell,
    ValueMatrix,
    caption,
    caption_in,
    caption_out,
    fade_in,
    fade_out,
    STEP_CAPTION_SIZE,
    STEP_CAPTION_Y,
    fit_within,
    math_label,
    on_baseline,
    read_as_line,
    subscript,
    symbol_role,
    title_bar,
)

from .matrix_layout import (CONTENT_BOTTOM, CONTENT_TOP, LABEL_SIZE, LEFT_ROOM, NAME_TEX, TITLE_Y, TRANSPOSE_LAG,
                            RowVector, StepLog, legend_row, place_product, rekey_transposed, table_cell_width,
                            zoom_for)

__all__ = [
    "DotProductAttentionScene",
    "name_block",
    "rekey_vector",
    "formula_caption",
]

CAPTION_Y = -3.3
MAX_ROWS = 8
BAR_LEN = 0.5
#: Between s_2 and E in step 4's left column (E and A keep step 3's arrow between them).
STACK_GAP = 0.3


def name_block(theme: Any, entries: Sequence[tuple[str, str, Any]], font_size: float = 30) -> VGroup:
    """Matrix names with their shapes, one per line: ``[(tex, shape, colour), ...]``."""
    lines = VGroup()
    for tex, shape, colour in entries:
        lines.add(VGroup(math_label(tex, theme, font_size, colour),
                         caption(shape, theme, LABEL_SIZE, theme.muted)).arrange(RIGHT, buff=0.2))
    return lines.arrange(DOWN, buff=0.16, aligned_edge=LEFT)


def rekey_vector(matrix: ValueMatrix, key: str) -> ValueMatrix:
    """Key the cells of a one-row (or one-column) matrix drawn from a vector.

    A vector shown as a 1 x n matrix would get keys ``(key, 0, k)``; the
    vector's own path is ``(key, k)``.
    """
    for (i, j), cell in matrix.cell_by_index.items():
        if cell.number is not None:
            cell.number.key = (key, j if i == 0 else i)
    return matrix


#: Unicode sub- and superscripts (s\u2082, h\u1d62, X\u1d40): symbols written as text.
UNICODE_SCRIPTS = frozenset("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"
                            "\u2090\u2091\u2092\u2093\u2095\u2096\u2097\u2098\u2099\u209a\u209b\u209c"
                            "\u1d62\u2c7c\u1d40\u1d49\u2071\u207f\u00b2\u00b3\u00b9\u2070\u2074\u2075"
                            "\u2076\u2077\u2078\u2079")


def formula_caption(source: str, theme: Any, y: float = STEP_CAPTION_Y,
                    font_size: float = STEP_CAPTION_SIZE) -> VGroup:
    """A step caption whose ``$...$`` pieces are typeset as the draft writes them
    (``$N_X$``, ``$a_{2\\bullet}\\cdot h_{\\bullet 2}$``), the rest plain text.

    Lines break at ``\\n``. The caption reads (``text``) its words and its
    formulas' TeX without braces, so the captions file keeps them.

    A line with a formula writes every symbol as one (STYLE.md §4.8: one typeface
    for the symbols of a line): a plain piece beside a formula may not hold a
    Unicode sub- or superscript (``s\u2082``, ``X\u1d40``), a ValueError says which.
    """
    lines = VGroup()
    for line in source.split("\n"):
        parts = VGroup()
        pieces = line.split("$")
        if len(pieces) > 2:
            mixed = [p for p in pieces[::2] if any(ch in UNICODE_SCRIPTS for ch in p)]
            if mixed:
                raise ValueError(f"formula_caption: {mixed[0].strip()!r} writes a symbol in text beside "
                                 "a formula: typeset it ($...$)")
        for n, piece in enumerate(pieces):
            if not piece.strip():
                continue
            if n % 2:
                role = symbol_role(piece)  # one symbol alone is drawn in its role's colour
                tex = math_label(piece, theme, max(font_size * 1.3, NAME_TEX),
                                 theme.role(role) if role else None)
                # Read as written: "D_Q = 3" is three words to read (its reading time), a product one.
                tex.spoken = re.sub(r"\s*=\s*", " = ", piece.replace("{", "").replace("}", "")
                                    .replace("\\bullet", "\u2022").replace("\\cdot", "\u00b7")
                                    .replace("\\times", "\u00d7").replace("\\,", "").replace(" ", ""))
                parts.add(tex)
            else:
                parts.add(caption(piece.strip(), theme, font_size))
        parts.arrange(RIGHT, buff=0.12)
        for k, part in enumerate(parts):  # a comma or a colon after a formula sits against it
            if k and str(getattr(part, "original_text", ""))[:1] in tuple(",.;:"):
                VGroup(*parts[k:]).shift(LEFT * 0.1)
        lines.add(read_as_line(on_baseline(parts)))
    lines.arrange(DOWN, buff=0.12)
    fit_within(lines, max_width=13.6)
    lines.text = "\n".join(line.text for line in lines)
    return lines.move_to([0, y, 0])


class DotProductAttentionScene(StepLog, WalkthroughScene):
    scene_id = "dot_product_attention"
    trace_sections = ("dot_product_attention",)
    description = ("Dot-product attention for one query s_2 (draft Steps 1-4 and the close-up): "
                   "E = s_2 X^T (1xN), A = softmax(E) with bars, o = A X (1xD), and one "
                   "number of o as a weighted average; the last frame holds s_2, X, E, A and o.")
    #: The sections, in order: the draft's steps and its close-up.
    steps = ("step-1-variables", "step-2-scores", "step-3-softmax", "step-4-output", "close-up")
    shown_results = ("scores", "weights", "output")
    key = "dot_product_attention"

    def construct(self) -> None:
        self.set_stage()                 # sizes and the title (the first frame); nothing played
        self.show_query_and_inputs()     # s_2 beside the columns of X^T
        self.score_every_input()         # E = s_2 X^T, products into running sums into E
        self.normalise_scores()          # E -> A, bars
        self.stack_query_scores_weights()  # s_2, E, A move into one column on the left
        self.transpose_inputs()          # the columns of X^T become the rows of X
        self.mix_inputs_into_output()    # o = A X
        with self.close_up("a_2. h_.2"):
            self.close_up_one_output()   # a_2. h_.2: products gather into o's 2nd number
        self.collapse_to_poster()        # the close-up's digits dim; s_2, X, E, A, o held

    # -- beats -------------------------------------------------------------------

    def set_stage(self) -> None:
        """Sizes (zoom, cell sizes, which inputs show) and the title; nothing played."""
        theme, tr = self.theme, self.trace.dot_product_attention
        self.N, self.D = N, D = tr.inputs.shape
        w0 = table_cell_width(np.concatenate([a.ravel() for a in (
            tr.inputs, tr.query, tr.terms, tr.partial_sums, tr.scores, tr.weights,
            tr.weighted_inputs, tr.output)]), theme)
        band = CONTENT_TOP - CONTENT_BOTTOM

        def layout(z: float) -> tuple[int, bool]:
            """Inputs that fit at zoom ``z``: beside the query (steps 1-3) and, as rows,
            above o with its bars and the close-up row (step 4); and whether the
            steps 2-3 columns and the step-4 stack s_2 / E / A fit the band."""
            w, h = w0 * z, CELL_H * z
            by_width = int((13.4 - LEFT_ROOM - 0.5 - D * w) // w)
            by_height = int((band - 0.1 - 0.35 - (h + 0.1) - 0.08 - BAR_LEN * z - 0.15 - h) // h)
            step2 = 0.3 * z + D * h + 0.1 + 0.35 + h + 0.1 + 0.35 + 2 * h + 0.08
            step3 = 0.3 * z + D * h + 0.1 + 0.35 + h + 0.1 + 0.45 + h + 0.1 + 0.08 + BAR_LEN * z
            stack = 3 * (h + 0.1) + STACK_GAP + 0.45 + 0.08 + BAR_LEN * z + 0.15 + h
            return min(MAX_ROWS, by_width, by_height), max(step2, step3, stack) <= band

        # Small tables are drawn larger (digits up to 30 pt) when everything fits
        # unelided; otherwise at the floor's size, eliding inputs but never the
        # one that gets the most attention.
        z = zoom_for(lambda z: layout(z)[1] and layout(z)[0] >= N)
        self.w, self.h, self.nf = w0 * z, CELL_H * z, NUMBER_FONT * z
        self.z = z
        self.max_shown = max(3, layout(z)[0])
        self.winner = int(np.argmax(tr.weights))
        self.h_names = [f"h{subscript(i + 1)}" for i in range(N)]
        self.pacer = CaptionPacer(self)
        self.mat = dict(cell_width=self.w, cell_height=self.h, font_size=self.nf,
                        label_size=max(20 * z, LABEL_SIZE))
        title = title_bar(
            caption("Dot-product attention, one query", theme, 28),
            math_label(r"E = s_2\,X^{T} \quad A = \mathrm{softmax}(E) \quad o = A\,X", theme, NAME_TEX),
            y=TITLE_Y,
        )
        self.add(title)  # the first frame is the title, never black

    def show_query_and_inputs(self) -> None:
        """Step 1: the query s_2 (1 x D_Q) and the input features as the columns of X^T."""
        self.next_section(self.steps[0])
        theme, tr, key, N, D = self.theme, self.trace.dot_product_attention, self.key, self.N, self.D
        keep = dict(max_cols=self.max_shown, keep_cols=[self.winner])
        self.S = S = rekey_vector(ValueMatrix(tr.query[None, :], theme, key=f"{key}.query",
                                              colour=theme.query, row_labels=["s\u2082"], **self.mat),
                                  f"{key}.query")
        S.row_labels.set_color(theme.query)
        self.XT = XT = rekey_transposed(ValueMatrix(tr.inputs.T, theme, colour=theme.key,
                                                    col_labels=self.h_names, **keep, **self.mat),
                                        f"{key}.inputs")
        XT.col_labels.set_color(theme.key)
        self.E = E = rekey_vector(ValueMatrix(tr.scores[None, :], theme, key=f"{key}.scores",
                                              colour=theme.score, **keep, **self.mat), f"{key}.scores")
        self.shown = [j for (_, j) in sorted(E.cell_by_index)]
        place_product(S, XT, E, CONTENT_TOP, left_room=LEFT_ROOM)
        self.names = names = legend_row(theme, [
            ("s_2", f"1\u00d7{D}: the query", theme.query),
            ("X^{T}", f"{D}\u00d7{N}: inputs as columns", theme.key),
            (r"E = s_2\,X^{T}", f"1\u00d7{N}: raw scores", theme.score),
        ])
        self.play(fade_in(S), fade_in(XT), fade_in(names[0]), fade_in(names[1]))
        self.pacer.swap(formula_caption(
            f"Step 1: the query $s_2$ has $D_Q = {D}$ numbers;\nthe $N_X = {N}$ inputs $h_i$ (the keys) "
            "are the columns of $X^{T}$", theme))
        self.wait(RESULT_PAUSE)

    def score_every_input(self) -> None:
        """Step 2: each e_i = s_2 . h_i, its products flown into a running sum, the sum into E."""
        self.next_section(self.steps[1])
        theme, tr, key, D = self.theme, self.trace.dot_product_attention, self.key, self.D
        S, XT, E, w, h, nf = self.S, self.XT, self.E, self.w, self.h, self.nf
        terms_y = E.frame.get_bottom()[1] - 0.35 - h / 2
        sums_y = terms_y - h - 0.08
        s_x = [S.cell(0, k).get_x() for k in range(D)]
        terms_name, sums_name = self._working_names(terms_y, sums_y)
        # Only the column being multiplied keeps its digits: the others wait as chips.
        self.pacer.swap("Step 2: E = s\u2082\u00b7X\u1d40. Each raw score e\u1d62 = s\u2082\u00b7h\u1d62: "
                        "multiply entry by entry, then add the products.",
                        fade_in(E.frame), fade_in(self.names[2]), fade_in(terms_name), fade_in(sums_name),
                        quiet(*(XT.cell(k, i) for i in self.shown[1:] for k in range(D))),
                        dim_labels(shapes_of_legend(self.names[:2])))
        scales = [max(float(np.max(np.abs(v))), 1e-9) for v in (tr.terms, tr.partial_sums)]
        for n, i in enumerate(self.shown):
            column = VGroup(*(XT.cell(k, i) for k in range(D)))
            ring = VGroup(SurroundingRectangle(column, color=theme.highlight, buff=0.03),
                          SurroundingRectangle(S.grid, color=theme.highlight, buff=0.03))
            terms, sums = (VGroup(*(ValueCell(vals[i, k], theme, (f"{key}.{name}", i, k), w, h, scale,
                                              font_size=nf).move_to([s_x[k], y, 0]) for k in range(D)))
                           for vals, name, scale, y in ((tr.terms, "terms", scales[0], terms_y),
                                                        (tr.partial_sums, "partial_sums", scales[1], sums_y)))
            lit = [voice(column), quiet(*(XT.cell(k, self.shown[n - 1]) for k in range(D)))] if n else []
            self.play(Create(ring), *lit, run_time=0.6 if n else 0.8)
            if n == 0:
                # The first score slowly: each product appears and the sum grows.
                for k in range(D):
                    pair = VGroup(S.cell(0, k), XT.cell(k, i))
                    factors = VGroup(*(SurroundingRectangle(c, color=theme.query, buff=0.04)
                                       for c in pair))
                    self.play(Create(factors), fly(pair, terms[k]), run_time=0.7)
                    parts = VGroup(sums[k - 1], terms[k]) if k > 0 else terms[k]
                    self.play(fly(parts, sums[k]), fade_out(factors), run_time=0.6)
            else:
                # Later scores faster: the products at once, then the sums.
                self.play(fly(VGroup(S.grid, column), terms), run_time=0.5)
                self.play(FadeIn(sums, lag_ratio=0.3), run_time=0.5)
            self.play(fly(sums[D - 1], E.cell(0, i)), run_time=0.6)
            if n == 0:
                self.pause_on_result("scores")
            self.play(fade_out(terms), fade_out(sums), fade_out(ring), run_time=0.4)
        # The dots of an elided E come with the last shown entry.
        self.add(E)
        # s_2 and X^T have been read: chips from now on (their digits stay, dimmed).
        self.play(fade_out(terms_name), fade_out(sums_name), quiet(S.grid, XT.grid),
                  dim_labels(shapes_of_legend(self.names[2:])), run_time=0.4)
        self.pause_on_result("scores")

    def _working_names(self, terms_y: float, sums_y: float) -> tuple[Any, Any]:
        """The names of step 2's working rows, left of s_2: the products and the running sum."""
        terms_name = math_label(r"s_{2\bullet}\cdot h_{i\bullet}", self.theme, NAME_TEX)
        sums_name = caption("running sum", self.theme, LABEL_SIZE, self.theme.muted)
        terms_name.next_to([self.S.frame.get_left()[0], terms_y, 0], LEFT, buff=0.15)
        sums_name.next_to([self.S.frame.get_left()[0], sums_y, 0], LEFT, buff=0.15)
        return terms_name, sums_name

    def normalise_scores(self) -> None:
        """Step 3: A = softmax(E) under E, with bars."""
        self.next_section(self.steps[2])
        theme, tr, key, N = self.theme, self.trace.dot_product_attention, self.key, self.N
        E = self.E
        self.A = A = rekey_vector(ValueMatrix(tr.weights[None, :], theme, key=f"{key}.weights",
                                              colour=theme.weight, max_cols=self.max_shown,
                                              keep_cols=[self.winner], **self.mat), f"{key}.weights")
        weight_cells(A.cell_by_index.items(), tr.weights[None, :], theme, with_bars=False)
        A.shift([E.frame.get_x() - A.frame.get_x(),
                 E.frame.get_bottom()[1] - 0.45 - A.frame.get_top()[1], 0])
        self.A_name = A_name = VGroup(
            math_label(r"A = \mathrm{softmax}(E)", theme, NAME_TEX, theme.weight),
            caption(f"1\u00d7{N}: weights, sum 1", theme, LABEL_SIZE, theme.muted)
        ).arrange(DOWN, buff=0.08, aligned_edge=RIGHT)
        A_name.next_to(A.frame, LEFT, buff=0.3).align_to(A.frame, UP)
        self.bars = bars = bars_under(
            [A.cell(0, j) for j in self.shown], [tr.weights[j] for j in self.shown], theme,
            keys=[(f"{key}.weights", j) for j in self.shown], full_length=BAR_LEN * self.z)
        self.arrow = arrow = Arrow(E.frame.get_bottom(), A.frame.get_top(), buff=0.04,
                                   color=theme.muted, stroke_width=3,
                                   max_tip_length_to_length_ratio=0.35)
        self.pacer.swap("Step 3: softmax turns the scores into weights A, positive and summing to 1: "
                        "each input's share of the query's attention.",
                        Create(arrow))
        self.play(fly(E.grid, A.grid), fade_in(A.frame), fade_in(A_name), run_time=1.2)
        self.play(FadeIn(bars, lag_ratio=0.1), quiet(E.grid), run_time=0.8)
        self.pause_on_result("weights")

    def _step_4_layout(self) -> tuple[Any, np.ndarray, np.ndarray, VGroup]:
        """Where step 4 puts things (nothing played): X and o as the product o = A X with
        a stand-in of A's size as the left factor; where E, A and their bars go (with
        the stand-in's place), where s_2 goes above them; the names row."""
        theme, tr, key, N, D = self.theme, self.trace.dot_product_attention, self.key, self.N, self.D
        S, E, A = self.S, self.E, self.A
        keep = dict(max_rows=self.max_shown, keep_rows=[self.winner])
        self.X = X = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key,
                                 row_labels=self.h_names, **keep, **self.mat)
        X.row_labels.set_color(theme.key)
        self.o = o = rekey_vector(ValueMatrix(tr.output[None, :], theme, key=f"{key}.output",
                                              colour=theme.value, **self.mat), f"{key}.output")
        # Where A goes: placed as the left factor of o = A X (a stand-in of A's size).
        slot = Rectangle(width=max(A.frame.width, S.frame.width), height=A.frame.height).move_to(A.frame)
        slot.frame = slot
        # Room for X's row names between the column and X, when the width allows.
        hgap = 0.75 if LEFT_ROOM + slot.width + 0.75 + o.frame.width <= 13.4 else 0.5
        place_product(slot, X, o, CONTENT_TOP, left_room=LEFT_ROOM, hgap=hgap)
        # The column s_2 / E / A must not rise past the content band: lower all if it would.
        stack_top = slot.get_top()[1] + 0.45 + E.frame.height + STACK_GAP + S.frame.height
        drop = max(0.0, stack_top - CONTENT_TOP)
        for m in (slot, X, o):
            m.shift(DOWN * drop)
        block = VGroup(E, self.arrow, A, self.bars)
        block_to = block.get_center() + np.array([slot.get_left()[0] - A.frame.get_left()[0],
                                                  slot.get_y() - A.frame.get_y(), 0])
        s_to = S.get_center() + np.array([
            slot.get_left()[0] - S.frame.get_left()[0],
            slot.get_top()[1] + 0.45 + E.frame.height + STACK_GAP - S.frame.get_bottom()[1], 0])
        names4 = legend_row(theme, [
            ("s_2", f"1\u00d7{D}", theme.query),
            ("E", f"1\u00d7{N}", theme.score),
            ("A", f"1\u00d7{N}: weights", theme.weight),
            ("X", f"{N}\u00d7{D}: inputs as rows", theme.key),
            (r"o = A\,X", f"1\u00d7{D}: the output", theme.value),
        ])
        return block, block_to, s_to, names4

    def stack_query_scores_weights(self) -> None:
        """Step 4 begins: s_2, E and A (with its bars) move into one column on the left,
        A level with where o will be, so the whole argument stays on screen."""
        self.next_section(self.steps[3])
        theme = self.theme
        block, block_to, s_to, self.names4 = self._step_4_layout()
        E, A, X = self.E, self.A, self.X
        # s_2 rises straight up its column (nothing there); E, A and the bars then go left
        # along their row and up or down the column: no text crosses another.
        self.pacer.swap(formula_caption(
            "Step 4: $o = A\\cdot X$, $(1\\times N_X)\\cdot(N_X\\times D_Q) = 1\\times D_Q$, the query's "
            "shape:\neach number of $o$ mixes one feature of all the inputs.", theme),
            fade_out(self.A_name), caption_out(self.names), caption_in(self.names4[:4]), run_time=1.0)
        self.play(slide(self.S, s_to, what="slide", src="s_2", dst="stack"), run_time=1.0)
        via = [(block_to[0], block.get_center()[1], 0)]
        if abs(block_to[1] - block.get_center()[1]) < 0.05:
            via = []
        # The columns of X^T leave first when X's place is free of the block (else after it).
        if not _overlaps(X.frame, block):
            self.transpose_inputs()
        self.play(slide(block, block_to, via=via, what="slide", src="E,A", dst="stack"),
                  run_time=1.4)
        row_names = VGroup(math_label("E", theme, NAME_TEX, theme.score),
                           math_label("A", theme, NAME_TEX, theme.weight))
        row_names[0].next_to(E.frame, LEFT, buff=0.2)
        row_names[1].next_to(A.frame, LEFT, buff=0.2)
        self.row_names = row_names
        self.play(fade_in(row_names), run_time=0.5)

    def transpose_inputs(self) -> None:
        """Step 4: the columns of X^T fly, one after another, into the rows of X."""
        if getattr(self, "transposed", False):
            return
        self.transposed = True
        XT, X, D = self.XT, self.X, self.D
        cols = [VGroup(*(XT.cell(k, i) for k in range(D))) for i in self.shown]
        rows = [VGroup(*(X.cell(i, k) for k in range(D))) for i in self.shown]
        xt_dots = VGroup(*(m for m in XT.grid if m not in XT.cell_by_index.values()))
        x_dots = VGroup(*(m for m in X.grid if m not in X.cell_by_index.values()))
        set_quiet(X.grid)  # the inputs were read in step 1: X lands as chips
        self.play(transpose(cols, rows, turn="column", lag_ratio=TRANSPOSE_LAG),
                  caption_out(VGroup(XT.frame, XT.col_labels, xt_dots)),
                  caption_in(VGroup(X.frame, X.row_labels, x_dots)),
                  run_time=max(TRANSPOSE_TIME, 0.8 * len(cols)))
        self.remove(XT)
        self.add(X)

    def mix_inputs_into_output(self) -> None:
        """o = A X: o's numbers appear under X, level with A."""
        o = self.o
        self.play(fade_in(o.frame), fade_in(self.names4[4]), FadeIn(o.grid, lag_ratio=0.2),
                  dim_labels(shapes_of_legend(self.names4[:4])), run_time=1.2)
        self.pause_on_result("output")

    def close_up_one_output(self) -> None:
        """The close-up: a_2. h_.2, the products a_i h_i2 gather into o's second number."""
        self.next_section(self.steps[4])
        theme, tr, key, D = self.theme, self.trace.dot_product_attention, self.key, self.D
        A, X, o, w, h, nf = self.A, self.X, self.o, self.w, self.h, self.nf
        f = 1  # the second feature, as in the draft
        wscale = max(float(np.max(np.abs(tr.weighted_inputs))), 1e-9)
        row_y = self.bars.get_bottom()[1] - 0.15 - h / 2
        weighted = VGroup(*(
            ValueCell(tr.weighted_inputs[i, f], theme, (f"{key}.weighted_inputs", i, f), w, h,
                      wscale, font_size=nf).move_to([A.cell(0, i).get_x(), row_y, 0])
            for i in self.shown))
        w_name = math_label(r"a_{2\bullet}\cdot h_{\bullet 2}", theme, NAME_TEX, theme.value)
        w_name.next_to(weighted, LEFT, buff=0.25)
        total = ValueCell(tr.output[f], theme, (f"{key}.output", f), w, h,
                          max(float(np.max(np.abs(tr.output))), 1e-9), font_size=nf)
        total.move_to([o.cell(0, f).get_x(), row_y, 0])
        # "=" only if the shown products add up to the shown total (issue 25).
        adds_up = (len(self.shown) < tr.weighted_inputs.shape[0]
                   or sum_sign(tr.weighted_inputs[:, f], tr.output[f], theme.decimals) == "=")
        sigma = math_label(r"\Sigma =" if adds_up else r"\Sigma \approx", theme, NAME_TEX)
        sigma.next_to(total, LEFT, buff=0.12)
        column = VGroup(*(X.cell(i, f) for i in self.shown))
        rings = VGroup(SurroundingRectangle(column, color=theme.value, buff=0.03),
                       SurroundingRectangle(A.grid, color=theme.value, buff=0.03))
        # One highlight ring: it marks the sum, then travels to the number of o it is.
        found = SurroundingRectangle(total, color=theme.highlight, buff=0.04)
        others = [X.cell(i, k) for i in self.shown for k in range(D) if k != f]
        others += [o.cell(0, k) for k in range(D) if k != f]
        dim, self.undim = focus(theme, *others)  # lifted as the close-up collapses (the poster)
        self.pacer.swap(formula_caption(
            "Close-up: the 2nd number of $o$ is $a_{2\\bullet}\\cdot h_{\\bullet 2}$,\na weighted average "
            "of every input's 2nd feature, weighted by its attention.", theme),
            dim, Create(rings[0]), Create(rings[1]), fade_in(w_name), voice(column))
        self.play(fly(column, weighted), run_time=1.0)
        self.play(gather(list(weighted), total, [tr.weights[i] for i in self.shown],
                         dst=(f"{key}.output", f)),
                  fade_in(sigma), Create(found), run_time=1.4)
        self.pause_on_result("output")
        self.play(ring_to(found, o.cell(0, f), buff=0.04), run_time=0.8)
        self.close_up_parts = (rings, VGroup(weighted, total, column))
        self.pacer.wait_for_reader(extra=0.5)  # the close-up's caption read before it collapses

    def collapse_to_poster(self) -> None:
        """The close-up collapses: its digits dim to chips, the veils lift, its rings go;
        the poster (s_2, E, A, X, o, the products) is held 4-8 s."""
        rings, digits = self.close_up_parts
        self.pacer.swap(formula_caption(
            "o = A\u00b7X has the query's shape:\neach number averages one feature of the inputs.",
            self.theme), self.undim, fade_out(rings), quiet(digits),
            dim_labels(shapes_of_legend(self.names4[4:])))
        end_on_poster(self, self.pacer)


def _overlaps(a: Any, b: Any, pad: float = 0.02) -> bool:
    """Whether the bounding boxes of ``a`` and ``b`` overlap."""
    return (min(a.get_right()[0], b.get_right()[0]) - max(a.get_left()[0], b.get_left()[0]) > pad
            and min(a.get_top()[1], b.get_top()[1]) - max(a.get_bottom()[1], b.get_bottom()[1]) > pad)
