"""``attention_process``: attention over the encoder states, step by step.

Draft 000, Part 1, "Building towards Attention" (the full attention-process
video): the encoder states h_1 ... h_T stay on screen under the source
words. At every decoder step f_att scores each h_j against s_{t-1}
(e_tj), a softmax turns the scores into weights a_tj (numbers, bars, and
the links from s_{t-1} to each h_j drawn thick and opaque by a_tj), the
weighted sum of the h_j is the context c_t (each h_j's copy scaled and
faded by a_tj on its way), and the decoder turns op_{t-1}, s_{t-1} and
c_t into s_t and the next word op_t, which joins the "French so far"
strip. The first step is explained phase by phase, the second more
briefly, the others quickly (each still pausing on its word). The clip
ends on the alignment matrix: one row of weights per output word.

The values are the Trace section ``model``: the network WITH attention,
the same encoder and decoder as the Part 1 scenes' network plus attention
(so the h_j here are the kind of vectors the bottleneck scene discards).
By default it is the trained translator; for a sentence its grammar cannot
read, the untrained tanh RNN fallback, said so on screen. ``process_view``
gives both the same shape, so one code path draws either.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Create,
    DashedVMobject,
    GrowArrow,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    Mobject,
    Rectangle,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    config,
)

from .base import FINAL_HOLD, CaptionPacer, WalkthroughScene, reading_time
from .motion import fly, hand_off, moved, slide, window
from .process_view import ProcessView, process_view
from .seq2seq_view import network_note
from .components import (
    CELL_W,
    ELLIPSIS,
    MIN_FONT_SIZE,
    NUMBER_SIZE,
    CellBox,
    NumberLabel,
    ValueCell,
    ValueMatrix,
    VectorColumn,
    arrow_between,
    caption,
    caption_in,
    caption_out,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    readable_text,
    step_caption,
    subscript,
)

__all__ = ["AttentionProcessScene", "word_labels", "MIN_FLYING_WEIGHT"]

# Layout (frame is 14.2 x 8 units; at 480p one unit is 60 px).
TITLE_Y = 3.62
SOURCE_CENTRE_X = 0.55  # the source columns leave room on the left for row names
SOURCE_WIDTH = 11.6
MAX_STATE_ROWS = 6  # longer vectors are elided with dots
CELL_H = 0.28  # a 20-pt number (0.21 high) fits with its margin
WORD_FONT = 20
BAR_MAX_H = 0.58
PANEL_TOP = -1.58  # top of the decoder panel's columns (their labels above)
STRIP_Y = -3.72  # the "French so far" strip
EXPLAIN_LEFT, EXPLAIN_RIGHT, EXPLAIN_TOP = 2.7, 6.95, -1.3  # the equation and caption of the moment
EQUATION_SIZE = 30  # >= 28.2 pt: 12 px capitals at 480p
DOTS_SIZE = 29
STRIP_WORD = 22
MIN_FLYING_WEIGHT = 0.02  # lighter copies of h_j do not fly into c_t (issue 13)
FULL_STEPS = 1  # steps explained phase by phase; the next one briefly, the rest quickly

_SCORE_TEX = {
    "additive": [r"e_{tj} = f_{att}(s_{t-1}, h_j)", r"= v^{\top}\tanh(W_a\,s_{t-1} + U_a\,h_j)"],
    "dot": [r"e_{tj} = f_{att}(s_{t-1}, h_j) = s_{t-1}^{\top}\,h_j"],
    "scaled_dot": [r"e_{tj} = f_{att}(s_{t-1}, h_j)", r"= s_{t-1}^{\top}\,h_j \,/\, \sqrt{d}"],
}
_SCORE_NAME = {"additive": "additive (Bahdanau)", "dot": "dot product", "scaled_dot": "scaled dot product"}

# The decoder and output equations (the drafts' notation): the decoder is
# the one of the network without attention, reading c_t instead of h_T;
# the output is the dot product with every French embedding e_w.
_DECODER_TEX = {
    "tanh": [r"s_t = \tanh(W_o\,op_{t-1} + W_s\,s_{t-1}", r"+\,W_c\,c_t + b)"],
    "gru": [r"s_t = \mathrm{GRU}(op_{t-1},\ s_{t-1},\ c_t)"],
}
_OUTPUT_TEX = r"op_t = \arg\max_w\ s_t \cdot e_w"


def word_labels(words, xs, y: float, pitch: float, theme, colour=None,
                font_size: float = WORD_FONT) -> VGroup:
    """Words centred on ``xs``; on two staggered rows when one row is too tight.

    A word never gets more width than its slot (two slots when staggered),
    so neighbours never overlap; a word too long even then keeps its size
    (never under the legibility floor) and loses its end to an ellipsis.
    """
    one_row = pitch - 0.1
    widths = [caption(w, theme, font_size).width for w in words]
    stagger = len(words) > 1 and any(w > one_row for w in widths)
    room = 2 * pitch - 0.18 if stagger else one_row
    out = VGroup()
    for i, (w, x) in enumerate(zip(words, xs)):
        t = readable_text(w, theme, font_size, max_width=room, colour=colour, min_size=font_size)
        dy = (0.17 if i % 2 == 0 else -0.17) if stagger else 0.0
        t.move_to([x, y + dy, 0])
        out.add(t)
    return out


def _legible_dots(col: VectorColumn) -> VectorColumn:
    """The elision dots of a column at the formulas' legibility floor (they are drawn at 24 pt)."""
    for cell in col.cells:
        if not isinstance(cell, ValueCell):
            for mob in cell:
                if isinstance(mob, MathTex) and mob.font_size < DOTS_SIZE:
                    centre = mob.get_center()
                    mob.font_size = DOTS_SIZE
                    mob.move_to(centre)
    return col


def _one_precision(row: VGroup, theme) -> VGroup:
    """Every number of a row at the decimals of its widest one (-2.2, -2.3, -12.5, not
    -2.22, -2.3, -12.5): a row is read as one set of numbers."""
    cells = [c for c in row if isinstance(c, ValueCell) and c.number is not None]
    fewest = min((c.number.decimals for c in cells), default=theme.decimals)
    for c in cells:
        if c.number.decimals == fewest:
            continue
        old = c.number
        new = NumberLabel(c.value, theme, old.key, font_size=NUMBER_SIZE, decimals=fewest)
        floor = min(1.0, MIN_FONT_SIZE / NUMBER_SIZE)
        new.scale(max(floor, min(1.0, c.box.width * 0.9 / new.width, c.box.height * 0.8 / new.height)))
        c.remove(old)
        c.add(new.move_to(c.box))
        c.number = new
    return row


class AttentionProcessScene(WalkthroughScene):
    scene_id = "attention_process"
    trace_sections = ("source", "sizes", "attention.parameters", "model")
    description = ("Attention at every decoder step (the trained translator, or seeded weights outside "
                   "its grammar): scores, softmax weights as bars and as links from s_{t-1} to each h_j, "
                   "the context c_t made of the weighted h_j, the decoder's s_t and word, the French so "
                   "far; ends on the alignment matrix.")
    shown_results = ("scores", "weights", "context", "word")

    # -- layout --------------------------------------------------------------

    def _layout(self) -> None:
        self.view: ProcessView = process_view(self.trace)
        T, H = self.view.encoder_states.shape
        self.T, self.H = T, H
        self.pitch = min(1.25, SOURCE_WIDTH / T)
        self.cell_w = min(CELL_W, self.pitch - 0.1)
        self.cell_h = CELL_H
        shown_rows = min(H, MAX_STATE_ROWS)
        span = (T - 1) * self.pitch
        self.xs = [SOURCE_CENTRE_X - span / 2 + i * self.pitch for i in range(T)]
        col_h = shown_rows * self.cell_h + 0.08
        self.words_y = 3.08
        self.h_top = 2.66
        self.h_name_y = self.h_top - col_h - 0.18
        self.scores_y = self.h_name_y - 0.38
        self.weights_y = self.scores_y - self.cell_h - 0.06
        # The bars stand under the weights' numbers; the links from s_{t-1} end at their feet.
        self.bar_base_y = self.weights_y - self.cell_h / 2 - 0.2 - BAR_MAX_H
        # Decoder panel, left to right: the three inputs, the decoder, s_t, the word.
        self.x_op, self.x_s, self.x_c, self.x_box, self.x_new, self.x_word = -6.35, -5.3, -4.25, -2.4, -0.6, 0.15
        #: (start, end) in seconds of the clip of every decoder step (the tests compare them).
        self.step_times: list[tuple[float, float]] = []
        #: The words the "French so far" strip shows after each step (full words, the hidden front dropped).
        self.strip_log: list[tuple[str, ...]] = []

    def _column(self, values, key: str, label: str, colour, width: float = CELL_W) -> VectorColumn:
        col = _legible_dots(VectorColumn(values, self.theme, key=key, colour=colour, cell_width=width,
                                         cell_height=self.cell_h, max_rows=MAX_STATE_ROWS))
        # Pango names with Unicode subscripts: a LaTeX run per step would be slow.
        col.label = caption(label, self.theme, 22, colour).next_to(col.frame, UP, buff=0.1)
        col.add(col.label)
        return col

    def _panel_column(self, values, key: str, label: str, colour, x: float) -> VectorColumn:
        col = self._column(values, key, label, colour)
        col.shift(np.array([x, PANEL_TOP, 0]) - col.frame.get_top())
        return col

    # -- builders ------------------------------------------------------------

    def _encoder_states(self) -> VGroup:
        """h_1 ... h_T under the source words, each with its name."""
        theme, view = self.theme, self.view
        cols = VGroup()
        for i in range(self.T):
            col = _legible_dots(VectorColumn(view.encoder_states[i], theme, key=view.encoder_keys[i],
                                             colour=theme.encoder, cell_width=self.cell_w,
                                             cell_height=self.cell_h, max_rows=MAX_STATE_ROWS))
            col.shift(np.array([self.xs[i], self.h_top, 0]) - col.frame.get_top())
            name = caption(f"h{subscript(i + 1)}", theme, 20, theme.encoder).move_to([self.xs[i], self.h_name_y, 0])
            cols.add(VGroup(col, name))
        return cols

    def _score_row(self, t: int) -> VGroup:
        step = self.view.steps[t]
        e = step.scores
        scale = max(float(np.max(np.abs(e))), 1e-9)
        row = VGroup()
        for i in range(self.T):
            cell = ValueCell(e[i], self.theme, (step.scores_key, i), self.cell_w, self.cell_h, scale)
            row.add(cell.move_to([self.xs[i], self.scores_y, 0]))
        return _one_precision(row, self.theme)

    def _weight_row(self, t: int) -> VGroup:
        theme, step = self.theme, self.view.steps[t]
        a = step.weights
        row = VGroup()
        for i in range(self.T):
            cell = ValueCell(a[i], theme, (step.weights_key, i), self.cell_w, self.cell_h,
                             fill=theme.heat(a[i]))
            row.add(cell.move_to([self.xs[i], self.weights_y, 0]))
        return row

    def _weight_bars(self, t: int) -> VGroup:
        """a_tj as bars standing on a common line under the weights' numbers (height a_tj)."""
        theme, a = self.theme, self.view.steps[t].weights
        bars = VGroup()
        width = min(0.4, self.cell_w * 0.5)
        for i in range(self.T):
            h = max(float(a[i]) * BAR_MAX_H, 0.01)  # a hairline for a zero weight: the slot stays legible
            bar = Rectangle(width=width, height=h, stroke_width=0, fill_color=theme.weight, fill_opacity=0.9)
            bars.add(bar.move_to([self.xs[i], self.bar_base_y + h / 2, 0]))
        return bars

    def _bar_base(self) -> Line:
        left, right = self.xs[0] - self.pitch / 2, self.xs[-1] + self.pitch / 2
        return Line([left, self.bar_base_y, 0], [right, self.bar_base_y, 0], stroke_width=1.5,
                    stroke_color=self.theme.muted)

    def _links(self, s_prev: VectorColumn, weights=None) -> VGroup:
        """Lines from s_{t-1} to each h_j (to its bar's foot).

        Without ``weights``: all alike, thin (f_att looks at every h_j).
        With them: thickness and opacity by a_tj, so the eye follows the
        links that carry the weight.
        """
        theme = self.theme
        start = s_prev.label.get_top() + UP * 0.06
        links = VGroup()
        for j in range(self.T):
            if weights is None:
                width, opacity = 1.5, 0.35
            else:
                a = float(weights[j])
                width, opacity = 0.5 + 9.5 * a, 0.08 + 0.92 * a
            links.add(Line(start, [self.xs[j], self.bar_base_y, 0], stroke_width=width,
                           stroke_color=theme.weight, stroke_opacity=opacity))
        return links

    def _row_name(self, word: str, tex: str, colour, y: float) -> VGroup:
        """A row's name left of the source columns: a word and its symbol (the symbol alone if tight)."""
        right = self.xs[0] - self.cell_w / 2 - 0.2
        symbol = math_label(tex, self.theme, 32, colour)
        name = VGroup(caption(word, self.theme, 20, self.theme.muted), symbol).arrange(RIGHT, buff=0.12)
        if name.width > right + 6.95:
            name = VGroup(symbol)
        return name.move_to([0, y, 0]).align_to([right, 0, 0], RIGHT)

    def _explain(self, tex_lines: list[str], text: str) -> VGroup:
        """The equation of the moment and a sentence about it, right of the decoder panel."""
        theme = self.theme
        width = EXPLAIN_RIGHT - EXPLAIN_LEFT
        group = VGroup()
        if tex_lines:
            eq = VGroup(*[math_label(t, theme, EQUATION_SIZE) for t in tex_lines]).arrange(
                DOWN, aligned_edge=LEFT, buff=0.12)
            for line in eq[1:]:
                line.shift(RIGHT * 0.4)  # a continued line is indented
            group.add(eq)
        lines = VGroup()
        words, line = text.split(), ""
        for w in words:
            trial = f"{line} {w}".strip()
            if line and caption(trial, theme, 22).width > width:
                lines.add(caption(line, theme, 22))
                line = w
            else:
                line = trial
        lines.add(caption(line, theme, 22))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        group.add(lines)
        group.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        group.move_to([0, 0, 0]).align_to([EXPLAIN_LEFT, 0, 0], LEFT).align_to([0, EXPLAIN_TOP, 0], UP)
        group.text = " ".join(words)  # the prose in one line: the column's breaks are too narrow for a caption
        return group

    # -- the "French so far" strip -----------------------------------------

    def _strip_word(self, word: str, colour) -> Mobject:
        return readable_text(word, self.theme, STRIP_WORD, max_width=2.2, colour=colour)

    def _strip_layout(self, words: list[Mobject]) -> tuple[list[np.ndarray], int]:
        """Positions of the strip's words, and how many at the front are hidden
        (the last words always show; hidden ones give way to an ellipsis)."""
        left = self.strip_label.get_right()[0] + 0.3
        room = 6.95 - left
        gap = 0.22
        first = 0
        while first < len(words) - 1 and (sum(w.width for w in words[first:]) + gap * (len(words) - first - 1)
                                          + (self.strip_dots.width + gap if first else 0)) > room:
            first += 1
        x = left + (self.strip_dots.width + gap if first else 0)
        places = [None] * first
        for w in words[first:]:
            places.append(np.array([x + w.width / 2, STRIP_Y, 0]))
            x += w.width + gap
        return places, first

    # -- the scene -----------------------------------------------------------

    def construct(self) -> None:
        theme = self.theme
        self._layout()
        view = self.view
        n = len(view.steps)

        title = caption("Attention over the encoder states", theme, 28)
        which = self.trace.model.training_note if view.trained else "untrained"
        title.move_to([0, TITLE_Y, 0]).align_to([-6.9, 0, 0], LEFT)
        # The step counter ("step 13 of 13") takes the right end of the title line.
        counter_left = 6.9 - caption(f"step {n} of {n}", theme, 22).width - 0.3
        for said in (f"{_SCORE_NAME[view.score]} score, {which}", f"{view.score.replace('_', ' ')} score, {which}",
                     which):  # the training note alone when the score's name leaves it no room
            kind = caption(said, theme, 20, theme.muted)
            kind.next_to(title, RIGHT, buff=0.3).align_to(title, DOWN)
            if kind.get_right()[0] <= counter_left:
                break
        words = word_labels(view.source_tokens, self.xs, self.words_y, self.pitch, theme)
        states = self._encoder_states()
        # The first frame already names the clip and shows the sentence.
        self.add(title, kind, words)

        pacer = CaptionPacer(self)
        if view.untrained:
            intro = "Untrained, seeded weights: expect no real alignment."
        else:
            intro = "One encoder state h\u2c7c per source word."
        e_name = self._row_name("score", r"e_{tj}", theme.score, self.scores_y)
        a_name = self._row_name("weight", r"a_{tj}", theme.weight, self.weights_y)
        bar_base = self._bar_base()

        first = view.steps[0]
        s_prev = self._panel_column(first.previous_state, first.previous_state_key, f"s{subscript(0)}",
                                    theme.decoder, self.x_s)
        op_col = self._panel_column(first.input_embedding, first.input_embedding_key, f"op{subscript(0)}",
                                    theme.target_embedding, self.x_op)
        box = CellBox("decoder", theme, theme.decoder, width=1.6, height=1.1)
        box.move_to([self.x_box, s_prev.frame.get_center()[1], 0])
        # The strip starts with <START>, op_0: the word the decoder reads next is always its last.
        self.strip_label = caption("French so far:", theme, 20, theme.muted)
        self.strip_label.move_to([0, STRIP_Y, 0]).align_to([-6.9, 0, 0], LEFT)
        self.strip_dots = caption(ELLIPSIS, theme, STRIP_WORD, theme.muted)
        strip_words = [self._strip_word(first.input_word, theme.target_embedding)]
        places, _ = self._strip_layout(strip_words)
        strip_words[0].move_to(places[0])
        self.strip_dots.move_to([self.strip_label.get_right()[0] + 0.3 + self.strip_dots.width / 2, STRIP_Y, 0])
        dots_shown = False
        pacer.swap(self._explain([], intro + " The decoder starts from s\u2080 = 0."),
                   LaggedStart(*[fade_in(s, shift=DOWN * 0.2) for s in states], lag_ratio=0.08),
                   fade_in(s_prev), fade_in(op_col), Create(box), fade_in(self.strip_label),
                   fade_in(strip_words[0]), run_time=1.2)

        step_label = None
        for t in range(n):
            start_time = self.time
            mode = "full" if t < FULL_STEPS else ("brief" if t == FULL_STEPS else "quick")
            step_t = view.steps[t]
            label = caption(f"step {t + 1} of {n}", theme, 22, theme.highlight)
            label.align_to(title, DOWN).align_to([6.9, 0, 0], RIGHT)
            # The counter's texts swap without crossing (each is its own caption cue).
            label_anim = (fade_in(label) if step_label is None
                          else AnimationGroup(caption_out(step_label), caption_in(label)))
            step_label = label
            s_name, c_name = f"s{subscript(t)}", f"c{subscript(t + 1)}"
            scores = self._score_row(t)
            weights = self._weight_row(t)
            bars = self._weight_bars(t)
            even = self._links(s_prev)
            weighted = self._links(s_prev, step_t.weights)
            w_boxes = VGroup(*[c.box for c in weights])
            w_numbers = VGroup(*[c.number for c in weights])
            focus = SurroundingRectangle(s_prev.frame, color=theme.highlight, buff=0.06)

            # 1. f_att scores every h_j against s_{t-1}: a thin link to each.
            if mode != "quick":
                extra = [fade_in(e_name), fade_in(a_name), Create(bar_base)] if t == 0 else []
                if mode == "full":
                    pacer.swap(self._explain(_SCORE_TEX[view.score],
                                             f"f\u2090\u209c\u209c scores every h\u2c7c against {s_name}."),
                               label_anim, Create(focus), *extra, run_time=0.8)
                else:
                    pacer.swap(self._explain([], f"Step {t + 1}: the same with {s_name}, the state after "
                                                 f"\u201c{view.steps[t - 1].chosen}\u201d."),
                               label_anim, Create(focus), *extra, run_time=0.8)
                self.play(Create(even), LaggedStart(*[
                    AnimationGroup(Indicate(states[i][0].frame, color=theme.highlight, scale_factor=1.03),
                                   fade_in(scores[i], shift=DOWN * 0.1))
                    for i in range(self.T)], lag_ratio=0.25 if mode == "full" else 0.1),
                    run_time=2.0 if mode == "full" else 1.2)
                if mode == "full":
                    self.pause_on_result("scores")
                # 2. softmax: the weights, as numbers, bars and links.
                if mode == "full":
                    pacer.swap(self._explain([r"a_{tj} = \mathrm{softmax}_j\,(e_{tj})"],
                                             "Softmax: weights summing to 1, drawn as bars and links."),
                               fade_out(focus), run_time=0.8)
                    fade_focus = []
                else:
                    fade_focus = [fade_out(focus)]
                self.play(TransformFromCopy(VGroup(*[c.box for c in scores]), w_boxes),
                          Transform(even, weighted), *fade_focus,
                          LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars], lag_ratio=0.05),
                          run_time=1.0 if mode == "full" else 0.7)
                self.play(fade_in(w_numbers), run_time=0.3)
                self.pause_on_result("weights")
            else:
                if t == FULL_STEPS + 1:
                    pacer.swap(self._explain([], "Faster now: thick links show which h\u2c7c make "
                                                 "up each context."), run_time=0.5)
                self.play(label_anim, fade_in(scores), Create(even), run_time=0.3)
                self.play(TransformFromCopy(VGroup(*[c.box for c in scores]), w_boxes),
                          Transform(even, weighted), fade_in(w_numbers, rate_func=lambda x: x),
                          *[GrowFromEdge(b, DOWN) for b in bars], run_time=0.5)
            self.remove(w_boxes, w_numbers)
            self.add(weights)
            links = even

            # 3. c_t forms from the h_j, each scaled and faded by its weight.
            c_col = self._panel_column(step_t.context, step_t.context_key, c_name, theme.value, self.x_c)
            sources, ghosts = self._weighted_ghosts(states, t, c_col)
            if mode == "full":
                pacer.swap(self._explain([r"c_t = \textstyle\sum_j a_{tj}\,h_j"],
                                         f"{c_name}: each h\u2c7c scaled and faded by its weight."),
                           run_time=0.8)
            fly = 1.6 if mode == "full" else (1.1 if mode == "brief" else 0.6)
            self.play(LaggedStart(*[TransformFromCopy(src, g) for src, g in zip(sources, ghosts)],
                                  lag_ratio=0.05), run_time=fly)
            self.play(fade_out(ghosts), fade_in(c_col), run_time=0.6 if mode != "quick" else 0.25)
            if mode == "full":
                self.pause_on_result("context")

            # 4. the decoder reads op_{t-1}, s_{t-1}, c_t, writes s_t, then the word.
            inputs = VGroup(op_col.frame, s_prev.frame, c_col.frame, op_col.label, s_prev.label, c_col.label)
            bracket = DashedVMobject(RoundedRectangle(corner_radius=0.12, width=inputs.width + 0.25,
                                                      height=inputs.height + 0.2, stroke_color=theme.muted,
                                                      stroke_width=2).move_to(inputs), num_dashes=40)
            into = arrow_between(bracket, box.box, theme.decoder, buff=0.05)
            s_new = self._panel_column(step_t.state, step_t.state_key, f"s{subscript(t + 1)}",
                                       theme.decoder, self.x_new)
            out = arrow_between(box.box, s_new.frame, theme.decoder, buff=0.08)
            word, p_label = self._emitted(t, s_new)
            if mode == "full":
                pacer.swap(self._explain([*_DECODER_TEX[view.decoder], _OUTPUT_TEX],
                                         f"The decoder writes s{subscript(t + 1)}, then the closest "
                                         "French word."),
                           run_time=0.8)
                self.play(Create(bracket), GrowArrow(into), run_time=0.6)
                self.play(Indicate(box.box, color=theme.decoder, scale_factor=1.05), GrowArrow(out),
                          fade_in(s_new, shift=RIGHT * 0.2), run_time=0.9)
                self.play(fade_in(word, shift=RIGHT * 0.2), fade_in(p_label), run_time=0.6)
            else:
                self.play(Create(bracket), GrowArrow(into), GrowArrow(out), fade_in(s_new),
                          run_time=0.8 if mode == "brief" else 0.4)
                self.play(fade_in(word), fade_in(p_label), run_time=0.4 if mode == "brief" else 0.25)
            self.pause_on_result("word")

            # The word joins the strip; s_t becomes s_{t-1}; this step's pieces leave.
            new_strip = self._strip_word(step_t.chosen, theme.target_embedding)
            strip_words.append(new_strip)
            places, hidden = self._strip_layout(strip_words)
            moves = []
            for k, w in enumerate(strip_words[:-1]):
                if places[k] is None:
                    if w in self.mobjects:
                        moves.append(caption_out(w))
                else:
                    moves.append(w.animate.move_to(places[k]))
            if hidden and not dots_shown:
                moves.append(caption_in(self.strip_dots))
                dots_shown = True
            new_strip.move_to(places[-1])
            leaving = [scores, weights, bars, links, bracket, into, out, c_col]
            if t + 1 < n:
                nxt = view.steps[t + 1]
                next_op = self._panel_column(nxt.input_embedding, nxt.input_embedding_key,
                                             f"op{subscript(t + 1)}", theme.target_embedding, self.x_op)
                # This step's pieces leave as s_t moves into the s_{t-1} slot; then the word joins the strip.
                s_prev = self._hand_off_state(s_new, [s_prev, *leaving, p_label], t, nxt, mode)
                self.play(Transform(word, new_strip), *moves, run_time=0.7 if mode != "quick" else 0.4)
                self.remove(word)
                self.add(new_strip)
                op_col = self._feed_word_back(new_strip, op_col, next_op, t, mode)
            else:
                self.play(*[caption_out(m) for m in leaving], caption_out(p_label),
                          Transform(word, new_strip), *moves, run_time=0.6)
                final = [s_prev, op_col, s_new, box]
            if word in self.mobjects:
                self.remove(word)
                self.add(new_strip)
            self.step_times.append((start_time, self.time))
            self.strip_log.append(tuple(getattr(w, "full_text", "") for w in strip_words[hidden:]))

        # The alignment matrix: every step's weights, words on both axes, assembled from what is
        # on screen (the source words, the French so far), never from a blank frame.
        pacer._wait_for_reader()
        self.strip_words, self.dots_shown = strip_words, dots_shown
        self.reveal_alignment(title, kind, step_label, pacer.current, words,
                              [*final, states, e_name, a_name, bar_base])
        self.hold_final()

    # -- the alignment, assembled --------------------------------------------

    def reveal_alignment(self, title, kind, step_label, caption_now, words, panel) -> None:
        """The steps' pieces leave while the title becomes the heading; the source words slide
        up to be the columns' names; each step's weight row rises from where the weights stood
        into its row of the matrix, named by its word from the strip."""
        parts = self._alignment_parts()
        matrix, heading, note = parts["matrix"], parts["heading"], parts["note"]
        self.play(*[fade_out(m) for m in panel], fade_out(kind), fade_out(step_label), caption_out(caption_now),
                  caption_out(title), caption_in(heading), run_time=0.8)
        slides = [slide(w, c, what="source_word", src=("word", k), dst=("column", k))
                  for k, (w, c) in enumerate(zip(words, parts["cols"]))]
        self.play(LaggedStart(*slides, lag_ratio=0.05), fade_in(matrix.frame), run_time=1.2)
        self.remove(*words)
        self.add(parts["cols"])
        # The strip's words become the rows' names: the note takes the strip's place.
        gone = [w for w in self.strip_words if w in self.mobjects]
        self.play(*[caption_out(w) for w in gone], caption_out(self.strip_label),
                  *([caption_out(self.strip_dots)] if self.dots_shown else []), caption_in(note), run_time=0.8)
        start = self.time
        self.play(LaggedStart(*[self._drop_step_row(matrix, i, label) for i, label in parts["rows"]],
                              lag_ratio=0.3), fade_in(parts["src"]), fade_in(parts["out"]),
                  run_time=max(1.5, 0.35 * len(parts["rows"])))
        # Heading and note arrive together (one caption): with the final hold, long enough to read both.
        due = reading_time(f"{heading.original_text} {note.text}") - (self.time - start) - FINAL_HOLD
        if due > 0:
            self.wait(due + 1.0 / config.frame_rate)

    def _drop_step_row(self, matrix: ValueMatrix, i: int, label) -> Animation:
        """Step i's weights, as heat boxes where its weight row stood, drop into row i; its word
        (from the strip when still shown there) becomes the row's name."""
        theme, a = self.theme, self.view.alignment[i]
        js = [j for j in range(self.T) if matrix.cell(i, j) is not None]
        row = VGroup(*[ValueCell(a[j], theme, None, self.cell_w, self.cell_h, show_number=False,
                                 fill=theme.heat(a[j])).move_to([self.xs[j], self.weights_y, 0]) for j in js])
        # (The strip's words cannot travel to the row names: the rows fill the frame down to the strip.)
        return moved(fly(row, VGroup(*[matrix.cell(i, j) for j in js])),
                     fade_in(label, rate_func=window(0.5, 1.0)), what="drop_row", src=("row", i), dst=("matrix", i))

    def _alignment_parts(self) -> dict:
        """The alignment matrix and its names, laid out, nothing shown."""
        theme, view = self.theme, self.view
        n, T = view.alignment.shape
        note_text = (network_note(self.trace, "model") + ": the weights show no real alignment yet"
                     if view.untrained else
                     "Each row: where the decoder looked while it wrote that word")
        note = step_caption(note_text, theme, -3.62, 22)
        note.align_to([0, -3.9, 0], DOWN)
        # Cells as large as the frame allows: 12 columns x 13 rows still fit.
        cell_w = min(1.0, 11.0 / T)
        top_room = 2.45  # under the heading, the axis names and the source words
        cell_h = min(0.5, (top_room - note.get_top()[1] - 0.15) / n)
        matrix = ValueMatrix(view.alignment, theme, key=view.alignment_key, row_labels=list(view.chosen),
                             colour=theme.panel, max_rows=13, max_cols=12, cell_width=cell_w,
                             cell_height=cell_h, heat=True, label_size=20)
        # Long French words are cut (never shrunk under the floor) to keep the grid centred.
        for k, lab in enumerate(matrix.row_labels):
            if lab.width > 1.8:
                short = readable_text(lab.full_text, theme, 20, max_width=1.8).move_to(lab)
                matrix.row_labels.submobjects[k] = short
        heading = caption("Alignment: the attention weights of every step", theme, 26)
        heading.move_to([0, TITLE_Y, 0])
        top = matrix.frame.get_top()
        matrix.shift([0.6 - top[0], top_room - top[1], 0])
        for lab in matrix.row_labels:
            lab.set_color(theme.target_embedding).align_to(matrix.frame.get_left() + LEFT * 0.15, RIGHT)
        xs = [matrix.cell(0, j).get_x() for j in range(T) if matrix.cell(0, j) is not None]
        cols = word_labels(view.source_tokens[:len(xs)], xs, top_room + 0.4, cell_w, theme)
        src = caption("source words", theme, 20, theme.encoder)
        src.move_to([matrix.frame.get_x(), top_room + 0.8, 0])
        out = caption("output words", theme, 20, theme.target_embedding)
        out.move_to([0, top_room + 0.8, 0]).align_to(matrix.row_labels, RIGHT)
        if out.get_right()[0] > src.get_left()[0] - 0.2:
            out.align_to([src.get_left()[0] - 0.3, 0, 0], RIGHT)
        shown_rows = sorted({i for (i, _) in matrix.cell_by_index})
        return dict(matrix=matrix, heading=heading, note=note, cols=cols, src=src, out=out,
                    rows=list(zip(shown_rows, matrix.row_labels)))

    # -- moves between steps ----------------------------------------------------

    def _hand_off_state(self, s_new: VectorColumn, leaving: list, t: int, nxt, mode: str) -> VectorColumn:
        """s_t moves, as a chip over the decoder box and c_t's slot, into the s_{t-1} slot
        (``leaving``: its old occupant and this step's pieces, gone in the first third)."""
        top = leaving[0].label.get_top()[1] + 0.3
        slot = s_new.get_center() + RIGHT * (self.x_s - s_new.frame.get_x())
        self.play(hand_off(s_new, slot, leaving=leaving, shrink=0.8,
                           via=[(s_new.get_x(), top, 0), (slot[0], top, 0)],
                           what="s", src=("s", t + 1), dst=("s_prev", t + 2)),
                  run_time=1.4 if mode != "quick" else 0.7)
        # The same numbers, now read as the next step's s_{t-1}.
        for k, lab in enumerate(m for m in s_new.get_family() if isinstance(m, NumberLabel)):
            lab.key = (nxt.previous_state_key, lab.key[1])
        return s_new

    def _feed_word_back(self, strip_word: Mobject, op_col: VectorColumn, next_op: VectorColumn, t: int,
                        mode: str) -> VectorColumn:
        """The word just written goes from the strip up into the op slot; its embedding's numbers appear."""
        frame = SurroundingRectangle(strip_word, color=self.theme.target_embedding, buff=0.06, stroke_width=2)
        self.play(moved(Transform(frame, next_op.frame.copy(), remover=True), caption_out(op_col),
                        caption_in(next_op), what="op", src=("strip", t + 1), dst=("op", t + 1)),
                  run_time=1.0 if mode != "quick" else 0.5)
        return next_op

    # -- pieces of a step ----------------------------------------------------

    def _emitted(self, t: int, s_new: VectorColumn) -> tuple[Mobject, VGroup]:
        """The chosen word and its probability, right of s_t.

        The word is the strip's word (same letters, cut the same way) shown
        larger, so it shrinks into the strip without morphing glyphs.
        """
        theme, step = self.theme, self.view.steps[t]
        word = self._strip_word(step.chosen, theme.target_embedding)
        word.scale(max(1.0, min(26 / STRIP_WORD, 2.3 / word.width)))
        p = VGroup(caption("p =", theme, 20, theme.muted),
                   NumberLabel(step.probability, theme, step.probability_key))
        p.arrange(RIGHT, buff=0.1)
        VGroup(word, p).arrange(DOWN, buff=0.15, aligned_edge=LEFT).move_to(
            [0, s_new.frame.get_center()[1], 0]).align_to([self.x_word, 0, 0], LEFT)
        return word, p

    def _weighted_ghosts(self, states: VGroup, t: int, c_col: VectorColumn) -> tuple[VGroup, VGroup]:
        """The h_j cell boxes, and the copies that fly into c_t: the weighted sum drawn honestly.

        Each copy lands on c_t's cells scaled by a_tj (its boxes a_tj as
        wide) and faded by a_tj (its opacity a_tj): the states that make up
        most of c_t arrive large and bright, the others small and faint.
        Copies with a_tj < MIN_FLYING_WEIGHT do not fly at all. Layout only,
        no arithmetic on values; boxes only, no numbers (stacked numbers
        would be unreadable, and copying text is slow).
        """
        a = self.view.steps[t].weights
        sources, ghosts = VGroup(), VGroup()
        targets = VGroup(*[c.box for c in c_col.cells if isinstance(c, ValueCell)])
        for j in range(self.T):
            weight = float(a[j])
            if weight < MIN_FLYING_WEIGHT:
                continue
            boxes = VGroup(*[c.box for c in states[j][0].cells if isinstance(c, ValueCell)])
            g = VGroup(*[b.copy().match_width(tb, stretch=True).match_height(tb, stretch=True)
                         .stretch(max(weight, 0.05), 0).move_to(tb) for b, tb in zip(boxes, targets)])
            g.set_opacity(weight)
            sources.add(boxes)
            ghosts.add(g)
        return sources, ghosts
