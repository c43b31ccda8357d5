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

from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Arrow,
    Create,
    FadeIn,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    config,
    smooth,
)

from attention_core.formatting import sum_sign

from .base import FINAL_HOLD, RESULT_PAUSE, CaptionPacer, WalkthroughScene
from .glyphs import NUMBER_FONT, bars_under, cell_width_for, heat_key, weight_cells
from .components import (
    CELL_H,
    CELL_W,
    NumberLabel,
    ValueCell,
    ValueMatrix,
    VectorColumn,
    caption,
    caption_in,
    caption_out,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    step_caption,
    subscript,
    title_bar,
)

__all__ = [
    "DotProductAttentionScene",
    "RowVector",
    "rekey_transposed",
    "veil",
    "place_product",
    "name_block",
    "StepLog",
    "rekey_vector",
    "fly",
    "legend_row",
    "table_cell_width",
    "zoom_for",
]

TITLE_Y = 3.55
CAPTION_Y = -3.3
MAX_ROWS = 8
LEFT_ROOM = 2.0  # left of the left factor: its row label, the step-2 row names
#: The row of matrix names under the title, and the band the tables use
#: (between it and a two-line caption at the bottom).
LEGEND_Y = 2.95
CONTENT_TOP = 2.62
CONTENT_BOTTOM = -2.88
#: Widest cell: a longer number shows fewer decimals.
W_MAX = 0.95
#: Formulas at 30 pt: capitals 12.8 px at 480p (MathTex needs 28.2 pt for 12 px).
NAME_TEX = 30
BAR_LEN = 0.5




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
                         caption(shape, theme, 20, theme.muted)).arrange(RIGHT, buff=0.2))
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


def _centred_top(height: float, ceiling: float = 3.0, floor: float = -2.8) -> float:
    """Top edge of a block ``height`` tall centred between title and caption."""
    return min(ceiling, (ceiling + floor) / 2 + height / 2)


#: Zooms tried for small tables, largest first (1.5: digits at 30 pt).
ZOOMS = (1.5, 1.4, 1.3, 1.2, 1.1)


def zoom_for(fits: Any) -> float:
    """The largest of :data:`ZOOMS` for which ``fits(zoom)`` holds, else 1."""
    return next((z for z in ZOOMS if fits(z)), 1.0)


def table_cell_width(values: np.ndarray, theme: Any) -> float:
    """Cells wide enough for the numbers at 20 pt, between CELL_W and W_MAX:
    longer numbers drop decimals rather than push a table off the frame."""
    return max(CELL_W, cell_width_for(values, theme, maximum=W_MAX))


def _cell_boxes(mob: Any) -> list[Any]:
    return [m.box for m in mob.get_family() if isinstance(m, ValueCell)] or [mob]


def fly(sources: Any, targets: Any, remove: bool = False, **kw: Any) -> AnimationGroup:
    """Values travel from ``sources`` to ``targets`` with no digits in flight.

    Copies of the cells' boxes move (digits morphing into other digits, or
    crossing other numbers mid-way, cannot be read); the target cells fade in
    over the second half. With ``remove`` the sources fade out over the first
    half: a move (a matrix going to its new place) rather than a copy.
    """
    src = VGroup(*(b.copy() for b in _cell_boxes(sources)))
    tgt = VGroup(*(b.copy() for b in _cell_boxes(targets)))
    anims = [Transform(src, tgt, remover=True), caption_in(targets)]
    if remove:
        anims.append(caption_out(sources))
    return AnimationGroup(*anims, **kw)


def legend_row(theme: Any, entries: Sequence[tuple[str, str, Any]], y: float = LEGEND_Y,
               max_width: float = 13.6, heat: bool = False) -> VGroup:
    """Matrix names with their shapes in one row under the title: ``[(tex, shape, colour)]``.

    With ``heat``, the heat scale's key ends the row (weights are filled by it).
    Never shrunk: if the full row is too wide, each shape loses its
    description (the part after the colon), then the key goes.
    """
    def build(full: bool, with_key: bool) -> VGroup:
        items = VGroup()
        for tex, shape, colour in entries:
            items.add(VGroup(math_label(tex, theme, NAME_TEX, colour),
                             caption(shape if full else shape.split(":")[0], theme, 20, theme.muted)
                             ).arrange(RIGHT, buff=0.2))
        if with_key:
            items.add(heat_key(theme, width=1.6))
        return items.arrange(RIGHT, buff=0.7)

    for full, with_key in ((True, heat), (False, heat), (False, False)):
        row = build(full, with_key)
        if row.width <= max_width:
            break
    return row.move_to([0, y, 0])


class DotProductAttentionScene(StepLog, WalkthroughScene):
    scene_id = "dot_product_attention"
    trace_sections = ("dot_product_attention",)
    description = ("Dot-product attention for one query s_2 (draft Steps 1-4 and the close-up): "
                   "E = s_2 X^T (1xN), A = softmax(E) with bars, o = A X (1xD), and one "
                   "number of o as a weighted average.")
    #: The sections, in order: the draft's steps and its close-up.
    steps = ("step-1-variables", "step-2-scores", "step-3-softmax", "step-4-output", "close-up")
    shown_results = ("scores", "weights", "output")

    def construct(self) -> None:
        theme, tr = self.theme, self.trace.dot_product_attention
        N, D = tr.inputs.shape
        key = "dot_product_attention"
        w0 = table_cell_width(np.concatenate([a.ravel() for a in (
            tr.inputs, tr.query, tr.terms, tr.partial_sums, tr.scores, tr.weights,
            tr.weighted_inputs, tr.output)]), theme)
        band = CONTENT_TOP - CONTENT_BOTTOM

        def layout(z: float) -> tuple[int, bool]:
            """Inputs that fit at zoom ``z``: beside the query (steps 1-3) and, as rows,
            above o with its bars and the close-up row (step 4); and whether the
            steps 2-3 columns fit the band's height."""
            w, h = w0 * z, CELL_H * z
            by_width = int((13.4 - LEFT_ROOM - 0.5 - D * w) // w)
            by_height = int((band - 0.1 - 0.35 - (h + 0.1) - 0.08 - BAR_LEN * z - 0.15 - h) // h)
            step2 = 0.3 * z + D * h + 0.1 + 0.35 + h + 0.1 + 0.35 + 2 * h + 0.08
            step3 = 0.3 * z + D * h + 0.1 + 0.35 + h + 0.1 + 0.45 + h + 0.1 + 0.08 + BAR_LEN * z
            return min(MAX_ROWS, by_width, by_height), max(step2, step3) <= band

        # Small tables are drawn larger (digits up to 30 pt) when everything fits
        # unelided; otherwise at the floor's size, eliding inputs but never the
        # one that gets the most attention.
        z = zoom_for(lambda z: layout(z)[1] and layout(z)[0] >= N)
        w, h, nf = w0 * z, CELL_H * z, NUMBER_FONT * z
        max_shown = max(3, layout(z)[0])
        winner = int(np.argmax(tr.weights))
        h_names = [f"h{subscript(i + 1)}" for i in range(N)]
        pacer = self.pacer = CaptionPacer(self)
        mat = dict(cell_width=w, cell_height=h, font_size=nf, label_size=20 * z)

        title = title_bar(
            caption("Dot-product attention, one query", theme, 28),
            math_label(r"E = s_2\,X^{T} \qquad A = \mathrm{softmax}(E) \qquad o = A\,X", theme, 30),
            y=TITLE_Y,
        )
        # The first frame is the title, never black.
        self.add(title)

        # -- step 1: the query and the input features ---------------------------
        self.next_section(self.steps[0])
        S = rekey_vector(ValueMatrix(tr.query[None, :], theme, key=f"{key}.query",
                                     colour=theme.query, row_labels=["s\u2082"], **mat),
                         f"{key}.query")
        S.row_labels.set_color(theme.query)
        XT = rekey_transposed(ValueMatrix(tr.inputs.T, theme, colour=theme.key, col_labels=h_names,
                                          max_cols=max_shown, keep_cols=[winner], **mat),
                              f"{key}.inputs")
        XT.col_labels.set_color(theme.key)
        E = rekey_vector(ValueMatrix(tr.scores[None, :], theme, key=f"{key}.scores",
                                     colour=theme.text, max_cols=max_shown, keep_cols=[winner],
                                     **mat), f"{key}.scores")
        shown = [j for (_, j) in sorted(E.cell_by_index)]
        place_product(S, XT, E, CONTENT_TOP, left_room=LEFT_ROOM)
        names = legend_row(theme, [
            ("s_2", f"1\u00d7{D}: the query", theme.query),
            ("X^{T}", f"{D}\u00d7{N}: inputs as columns", theme.key),
            (r"E = s_2\,X^{T}", f"1\u00d7{N}: raw scores", theme.text),
        ])
        self.play(fade_in(S), fade_in(XT), fade_in(names[0]), fade_in(names[1]))
        pacer.swap(f"Step 1: the query s\u2082 has D = {D} numbers. The N = {N} input "
                   f"features h\u1d62 (the keys) are the columns of X\u1d40.")
        self.wait(RESULT_PAUSE)

        # -- step 2: E = s_2 X^T, one entry at a time --------------------------
        self.next_section(self.steps[1])
        terms_y = E.frame.get_bottom()[1] - 0.35 - h / 2
        sums_y = terms_y - h - 0.08
        s_x = [S.cell(0, k).get_x() for k in range(D)]
        terms_name = math_label(r"s_{2k}\,h_{ik}", theme, NAME_TEX)
        sums_name = caption("running sum", theme, 20, theme.muted)
        terms_name.next_to([S.frame.get_left()[0], terms_y, 0], LEFT, buff=0.15)
        sums_name.next_to([S.frame.get_left()[0], sums_y, 0], LEFT, buff=0.15)
        pacer.swap("Step 2: E = s\u2082\u00b7X\u1d40. Each raw score e\u1d62 = s\u2082\u00b7h\u1d62: "
                   "multiply entry by entry, then add the products.",
                   fade_in(E.frame), fade_in(names[2]), fade_in(terms_name), fade_in(sums_name))
        tscale = max(float(np.max(np.abs(tr.terms))), 1e-9)
        pscale = max(float(np.max(np.abs(tr.partial_sums))), 1e-9)
        for n, i in enumerate(shown):
            column = VGroup(*(XT.cell(k, i) for k in range(D)))
            focus = VGroup(SurroundingRectangle(column, color=theme.highlight, buff=0.03),
                           SurroundingRectangle(S.grid, color=theme.highlight, buff=0.03))
            terms, sums = VGroup(), VGroup()
            for k in range(D):
                terms.add(ValueCell(tr.terms[i, k], theme, (f"{key}.terms", i, k), w, h,
                                    tscale, font_size=nf).move_to([s_x[k], terms_y, 0]))
                sums.add(ValueCell(tr.partial_sums[i, k], theme, (f"{key}.partial_sums", i, k), w,
                                   h, pscale, font_size=nf).move_to([s_x[k], sums_y, 0]))
            self.play(Create(focus), run_time=0.6 if n else 0.8)
            if n == 0:
                # The first score slowly: each product appears and the sum grows.
                for k in range(D):
                    pair = VGroup(S.cell(0, k), XT.cell(k, i))
                    # One ring per factor: they sit far apart (row of s_2, column of X^T).
                    ring = VGroup(*(SurroundingRectangle(c, color=theme.query, buff=0.04)
                                    for c in pair))
                    self.play(Create(ring), fly(pair, terms[k]), run_time=0.7)
                    parts = VGroup(sums[k - 1], terms[k]) if k > 0 else terms[k]
                    self.play(fly(parts, sums[k]), fade_out(ring), run_time=0.6)
            else:
                # Later scores faster: the products at once, then the sums.
                self.play(fly(VGroup(S.grid, column), terms), run_time=0.5)
                self.play(FadeIn(sums, lag_ratio=0.3), run_time=0.5)
            self.play(fly(sums[D - 1], E.cell(0, i)), run_time=0.6)
            if n == 0:
                self.pause_on_result("scores")
            self.play(fade_out(terms), fade_out(sums), fade_out(focus), run_time=0.4)
        # The dots of an elided E come with the last shown entry.
        self.add(E)
        self.play(fade_out(terms_name), fade_out(sums_name), run_time=0.4)
        self.pause_on_result("scores")

        # -- step 3: A = softmax(E) ------------------------------------------
        self.next_section(self.steps[2])
        A = rekey_vector(ValueMatrix(tr.weights[None, :], theme, key=f"{key}.weights",
                                     colour=theme.weight, max_cols=max_shown, keep_cols=[winner],
                                     **mat), f"{key}.weights")
        weight_cells(A.cell_by_index.items(), tr.weights[None, :], theme, with_bars=False)
        A.shift([E.frame.get_x() - A.frame.get_x(),
                 E.frame.get_bottom()[1] - 0.45 - A.frame.get_top()[1], 0])
        A_name = VGroup(math_label(r"A = \mathrm{softmax}(E)", theme, NAME_TEX, theme.weight),
                        caption(f"1\u00d7{N}: weights, sum 1", theme, 20, theme.muted)
                        ).arrange(DOWN, buff=0.08, aligned_edge=RIGHT)
        A_name.next_to(A.frame, LEFT, buff=0.3).align_to(A.frame, UP)
        bars = bars_under([A.cell(0, j) for j in shown], [tr.weights[j] for j in shown], theme,
                          keys=[(f"{key}.weights", j) for j in shown], full_length=BAR_LEN * z)
        arrow = Arrow(E.frame.get_bottom(), A.frame.get_top(), buff=0.04, color=theme.muted,
                      stroke_width=3, max_tip_length_to_length_ratio=0.35)
        pacer.swap("Step 3: softmax turns the raw scores into weights A: all positive, summing "
                   "to 1, the share of attention each input feature gets from this query.",
                   Create(arrow))
        self.play(fly(E.grid, A.grid), fade_in(A.frame), fade_in(A_name), run_time=1.2)
        self.play(FadeIn(bars, lag_ratio=0.1), run_time=0.8)
        self.pause_on_result("weights")

        # -- step 4: o = A X ---------------------------------------------------
        self.next_section(self.steps[3])
        A4 = rekey_vector(ValueMatrix(tr.weights[None, :], theme, key=f"{key}.weights",
                                      colour=theme.weight, row_labels=["A"], max_cols=max_shown,
                                      keep_cols=[winner], **mat), f"{key}.weights")
        A4.row_labels.set_color(theme.weight)
        weight_cells(A4.cell_by_index.items(), tr.weights[None, :], theme, with_bars=False)
        X = ValueMatrix(tr.inputs, theme, key=f"{key}.inputs", colour=theme.key, row_labels=h_names,
                        max_rows=max_shown, keep_rows=[winner], **mat)
        X.row_labels.set_color(theme.key)
        o = rekey_vector(ValueMatrix(tr.output[None, :], theme, key=f"{key}.output",
                                     colour=theme.value, **mat), f"{key}.output")
        place_product(A4, X, o, CONTENT_TOP, left_room=LEFT_ROOM)
        names4 = legend_row(theme, [
            ("A", f"1\u00d7{N}: weights", theme.weight),
            ("X", f"{N}\u00d7{D}: inputs as rows", theme.key),
            (r"o = A\,X", f"1\u00d7{D}: the output", theme.value),
        ], heat=True)
        bars4 = bars_under([A4.cell(0, j) for j in shown], [tr.weights[j] for j in shown], theme,
                           keys=[(f"{key}.weights", j) for j in shown], full_length=BAR_LEN * z)
        old = VGroup(S, XT, E, A_name, arrow, A.frame, bars)
        pacer.swap(f"Step 4: o = A\u00b7X, (1\u00d7{N})\u00b7({N}\u00d7{D}) = 1\u00d7{D}, the "
                   "query's shape: each number of o mixes one feature of all the inputs.",
                   fade_out(old), caption_out(names), fly(A.grid, A4.grid, remove=True),
                   fade_in(A4.frame), caption_in(A4.row_labels), caption_in(X),
                   caption_in(names4[0]), caption_in(names4[1]), run_time=1.4)
        self.play(FadeIn(bars4, lag_ratio=0.1), run_time=0.6)
        self.play(fade_in(o.frame), fade_in(names4[2]), FadeIn(o.grid, lag_ratio=0.2), run_time=1.2)
        self.pause_on_result("output")

        # -- close-up: the second number of o, a weighted average ---------------
        self.next_section(self.steps[4])
        f = 1  # the second feature, as in the draft
        wscale = max(float(np.max(np.abs(tr.weighted_inputs))), 1e-9)
        row_y = bars4.get_bottom()[1] - 0.15 - h / 2
        weighted = VGroup(*(
            ValueCell(tr.weighted_inputs[i, f], theme, (f"{key}.weighted_inputs", i, f), w, h,
                      wscale, font_size=nf).move_to([A4.cell(0, i).get_x(), row_y, 0])
            for i in shown))
        w_name = math_label(r"a_{2i}\,h_{i2}", theme, NAME_TEX, theme.value)
        w_name.next_to(weighted, LEFT, buff=0.25)
        total = ValueCell(tr.output[f], theme, (f"{key}.output", f), w, h,
                          max(float(np.max(np.abs(tr.output))), 1e-9), font_size=nf)
        total.move_to([o.cell(0, f).get_x(), row_y, 0])
        # "=" only if the shown products add up to the shown total (issue 25).
        adds_up = len(shown) < N or sum_sign(tr.weighted_inputs[:, f], tr.output[f], theme.decimals) == "="
        sigma = math_label(r"\Sigma =" if adds_up else r"\Sigma \approx", theme, NAME_TEX)
        sigma.next_to(total, LEFT, buff=0.12)
        column = VGroup(*(X.cell(i, f) for i in shown))
        rings = VGroup(SurroundingRectangle(column, color=theme.value, buff=0.03),
                       SurroundingRectangle(A4.grid, color=theme.value, buff=0.03),
                       SurroundingRectangle(o.cell(0, f), color=theme.highlight, buff=0.04),
                       SurroundingRectangle(total, color=theme.highlight, buff=0.04))
        others = [X.cell(i, k) for i in shown for k in range(D) if k != f]
        others += [o.cell(0, k) for k in range(D) if k != f]
        veils = veil(theme, *others)
        pacer.swap("Close-up: the 2nd number of o is \u03a3\u1d62 a\u1d62 h\u1d62\u2082, a weighted "
                   "average of the 2nd feature of every input, weighted by the attention each "
                   "input gets.",
                   fade_in(veils), Create(rings[0]), Create(rings[1]), fade_in(w_name))
        self.play(fly(column, weighted), run_time=1.0)
        self.play(fly(weighted, total), fade_in(sigma), Create(rings[2]), Create(rings[3]),
                  run_time=1.0)
        self.pause_on_result("output")
        pacer.finish()

    @staticmethod
    def _corner(names: VGroup, left: ValueMatrix, top: ValueMatrix, top_y: float,
                right: float | None = None) -> None:
        """Put the name block in the free corner: left of ``top``, above ``left``."""
        right = top.frame.get_left()[0] if right is None else right
        room_w = right - (-7.0) - 0.35
        room_h = top_y - left.frame.get_top()[1] - 0.1
        fit_within(names, max_width=room_w, max_height=room_h)
        names.move_to([(-7.0 + right) / 2, (top_y + left.frame.get_top()[1]) / 2, 0])
