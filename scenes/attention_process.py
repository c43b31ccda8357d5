"""``attention_process``: attention over the encoder states, step by step.

Draft 000, Part 1, "Building towards Attention" (the full attention-process
video): the encoder states h_1 ... h_T stay on screen under the source
words. At every decoder step f_att scores each h_j against s_{t-1}
(e_tj), a softmax turns the scores into weights a_tj (a heat strip over the
words), the weighted sum of the h_j is the context c_t (each h_j's copy
scaled and faded by a_tj on its way), and the decoder turns op_{t-1},
s_{t-1} and c_t into s_t and the next word op_t. The clip ends on the
alignment matrix: one row of weights per output word.

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
    AnimationGroup,
    Create,
    DashedVMobject,
    GrowArrow,
    Indicate,
    LaggedStart,
    Mobject,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from .base import WalkthroughScene
from .process_view import ProcessView, process_view
from .seq2seq_view import network_note
from .components import (
    CELL_W,
    CellBox,
    NumberLabel,
    ValueCell,
    ValueMatrix,
    VectorColumn,
    arrow_between,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
)

__all__ = ["AttentionProcessScene"]

# Layout (frame is 14.2 x 8 units).
TITLE_Y = 3.62
SOURCE_CENTRE_X = 0.55  # the source columns leave room on the left for row names
SOURCE_WIDTH = 11.6
MAX_STATE_ROWS = 6  # longer vectors are elided with dots
PANEL_TOP = -0.78  # top of the decoder panel (its labels)
NOTE_Y = -3.78
WORD_FONT = 20
MIN_WORD_FONT = 15
MIN_FLYING_WEIGHT = 0.02  # lighter copies of h_j do not fly into c_t (issue 13)

_SCORE_TEX = {
    "additive": r"e_{tj} = f_{att}(s_{t-1}, h_j) = v^{\top}\tanh(W_a\,s_{t-1} + U_a\,h_j)",
    "dot": r"e_{tj} = f_{att}(s_{t-1}, h_j) = s_{t-1}^{\top}\,h_j",
    "scaled_dot": r"e_{tj} = f_{att}(s_{t-1}, h_j) = s_{t-1}^{\top}\,h_j \,/\, \sqrt{d}",
}
_SCORE_NAME = {"additive": "additive (Bahdanau)", "dot": "dot product", "scaled_dot": "scaled dot product"}

# The decoder and output equations (the drafts' notation): the decoder is
# the one of the network without attention, reading c_t instead of h_T;
# the output is the dot product with every French embedding e_w.
_DECODER_TEX = {
    "tanh": ([r"s_t = \tanh(W_o\,op_{t-1} + W_s\,s_{t-1}", r"+\,W_c\,c_t + b)"],
             [r"op_t = \arg\max_w\ s_t \cdot e_w"]),
    "gru": ([r"s_t = \mathrm{GRU}(op_{t-1},\ s_{t-1},\ c_t)"],
            [r"op_t = \arg\max_w\ s_t \cdot e_w"]),
}





def word_labels(words, xs, y: float, pitch: float, theme, colour=None,
                font_size: float = WORD_FONT) -> VGroup:
    """Words centred on ``xs``; on two staggered rows when one row is too tight.

    A word never gets more width than its slot (two slots when staggered),
    so neighbours never overlap, and it is shrunk only as far as needed.
    """
    texts = [caption(w, theme, font_size, colour) for w in words]
    one_row = pitch - 0.1
    stagger = any(t.width * MIN_WORD_FONT / font_size > one_row for t in texts) and len(texts) > 1
    room = 2 * pitch - 0.18 if stagger else one_row
    out = VGroup()
    for i, (t, x) in enumerate(zip(texts, xs)):
        fit_within(t, max_width=room)
        dy = (0.17 if i % 2 == 0 else -0.17) if stagger else 0.0
        t.move_to([x, y + dy, 0])
        out.add(t)
    return out


class AttentionProcessScene(WalkthroughScene):
    scene_id = "attention_process"
    trace_sections = ("source", "sizes", "attention.parameters", "model")
    description = ("Attention at every decoder step (the trained translator, or seeded weights outside "
                   "its grammar): scores, softmax weights, context c_t, the decoder's s_t and word; "
                   "ends on the alignment matrix.")

    # -- layout --------------------------------------------------------------

    def _layout(self) -> None:
        self.view: ProcessView = process_view(self.trace)
        T, H = self.view.encoder_states.shape
        self.T, self.H = T, H
        self.pitch = min(1.25, SOURCE_WIDTH / T)
        self.cell_w = min(CELL_W, self.pitch - 0.1)
        shown_rows = min(H, MAX_STATE_ROWS)
        self.cell_h = 0.36 if shown_rows <= 4 else 0.30
        span = (T - 1) * self.pitch
        self.xs = [SOURCE_CENTRE_X - span / 2 + i * self.pitch for i in range(T)]
        col_h = shown_rows * self.cell_h + 0.08
        self.words_y = 3.0
        self.h_top = 2.52
        self.h_name_y = self.h_top - col_h - 0.2
        self.scores_y = self.h_name_y - 0.42
        self.weights_y = self.scores_y - self.cell_h - 0.12
        # Decoder panel: columns hang from PANEL_TOP (their labels above them).
        self.panel_col_top = PANEL_TOP - 0.42

    def _column(self, values, key: str, label: str, colour) -> VectorColumn:
        col = VectorColumn(values, self.theme, key=key, colour=colour, cell_width=CELL_W,
                           cell_height=self.cell_h, max_rows=MAX_STATE_ROWS)
        # Pango names with Unicode subscripts: a LaTeX run per step would be slow.
        col.label = caption(label, self.theme, 22, colour).next_to(col.frame, UP, buff=0.1)
        col.add(col.label)
        return col

    def _panel_column(self, values, key: str, label: str, colour, x: float) -> VectorColumn:
        col = self._column(values, key, label, colour)
        col.shift(np.array([x, self.panel_col_top, 0]) - col.frame.get_top())
        return col

    # -- builders ------------------------------------------------------------

    def _encoder_states(self) -> VGroup:
        """h_1 ... h_T under the source words, each with its name."""
        theme, view = self.theme, self.view
        cols = VGroup()
        for i in range(self.T):
            col = VectorColumn(view.encoder_states[i], theme, key=view.encoder_keys[i], colour=theme.encoder,
                               cell_width=self.cell_w, cell_height=self.cell_h,
                               max_rows=MAX_STATE_ROWS)
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
        return row

    def _weight_row(self, t: int) -> VGroup:
        theme, step = self.theme, self.view.steps[t]
        a = step.weights
        row = VGroup()
        for i in range(self.T):
            cell = ValueCell(a[i], theme, (step.weights_key, i), self.cell_w, self.cell_h,
                             fill=theme.heat(a[i]))
            row.add(cell.move_to([self.xs[i], self.weights_y, 0]))
        return row

    def _row_name(self, word: str, tex: str, colour, y: float) -> VGroup:
        """A row's name left of the source columns: a word and its symbol."""
        name = VGroup(caption(word, self.theme, 16, self.theme.muted),
                      math_label(tex, self.theme, 32, colour)).arrange(RIGHT, buff=0.12)
        right = self.xs[0] - self.cell_w / 2 - 0.25
        return name.move_to([0, y, 0]).align_to([right, 0, 0], RIGHT)

    def _equations(self) -> tuple[VGroup, VGroup, VGroup]:
        """All equations, and the decoder's and the output's lines (highlighted together)."""
        theme, view = self.theme, self.view
        decoder_tex, output_tex = _DECODER_TEX[view.decoder]
        lines = VGroup(
            math_label(_SCORE_TEX[view.score], theme, 24),
            math_label(r"a_{tj} = \mathrm{softmax}_j\,(e_{tj})", theme, 24),
            math_label(r"c_t = \textstyle\sum_j a_{tj}\,h_j", theme, 24),
            *[math_label(tex, theme, 24) for tex in decoder_tex + output_tex],
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        decoder = VGroup(*lines[3:3 + len(decoder_tex)])
        output = VGroup(*lines[3 + len(decoder_tex):])
        if len(decoder_tex) > 1:  # a continued line is indented
            decoder[1].shift(RIGHT * 0.5)
        fit_within(lines, max_width=3.7, max_height=2.75)
        lines.move_to([0, PANEL_TOP - 1.35, 0]).align_to([6.95, 0, 0], RIGHT)
        return lines, decoder, output

    # -- the scene -----------------------------------------------------------

    def construct(self) -> None:
        theme = self.theme
        self._layout()
        view = self.view
        n = len(view.steps)

        title = caption("Attention over the encoder states", theme, 28)
        which = "trained" if view.trained else "seeded"
        kind = caption(f"score: {_SCORE_NAME[view.score]}, {which}", theme, 19, theme.muted)
        title.move_to([0, TITLE_Y, 0]).align_to([-6.9, 0, 0], LEFT)
        kind.next_to(title, RIGHT, buff=0.3).align_to(title, DOWN)
        words = word_labels(view.source_tokens, self.xs, self.words_y, self.pitch, theme)
        states = self._encoder_states()
        self.play(fade_in(title), fade_in(kind), fade_in(words))
        self.play(LaggedStart(*[fade_in(s, shift=DOWN * 0.2) for s in states], lag_ratio=0.08), run_time=1.2)

        if view.untrained:
            note = caption(network_note(self.trace, "model") + "; the weights show no real alignment yet",
                           theme, 17, theme.highlight)
        else:
            # Where h_j and s_0 come from, said once for the whole clip.
            note = caption("h\u2c7c: the encoder's states, h\u2081 \u2026 h" + subscript(self.T)
                           + " (the plain network keeps only the last);  s\u2080 = 0,  op\u2080 = <START>",
                           theme, 17, theme.muted)
        fit_within(note, max_width=13.6).move_to([0, NOTE_Y, 0])
        self.play(fade_in(note))

        e_name = self._row_name("score", r"e_{tj}", theme.text, self.scores_y)
        a_name = self._row_name("weight", r"a_{tj}", theme.heat_high, self.weights_y)
        equations, eq_decoder, eq_output = self._equations()
        self.play(fade_in(equations), run_time=0.6)

        # Decoder panel positions: the three inputs, the decoder, s_t, the word.
        x_op, x_s, x_c, x_box, x_new, x_word = -6.3, -5.25, -4.2, -2.45, -0.7, 0.95
        first = view.steps[0]
        s_prev = self._panel_column(first.previous_state, first.previous_state_key, f"s{subscript(0)}",
                                    theme.decoder, x_s)
        op_col = self._panel_column(first.input_embedding, first.input_embedding_key, f"op{subscript(0)}",
                                    theme.embedding, x_op)
        op_word = self._op_word(first.input_word, op_col)
        # Both networks start from zeros, as the draft says.
        zero_note = VGroup(caption("s\u2080 = 0", theme, 18, theme.muted).next_to(s_prev.frame, DOWN, buff=0.12))
        box = CellBox("decoder" if view.decoder == "tanh" else "GRU decoder", theme, theme.decoder,
                      width=1.6, height=1.1)
        box.move_to([x_box, s_prev.frame.get_center()[1], 0])
        self.play(fade_in(s_prev), fade_in(op_col), fade_in(op_word), fade_in(zero_note), Create(box))

        for t in range(n):
            fast = 1.0 if t == 0 else (0.7 if t == 1 else 0.45)
            step = caption(f"step {t + 1} of {n}", theme, 22, theme.highlight)
            step.align_to(title, DOWN).align_to([6.9, 0, 0], RIGHT)
            if t == 0:
                self.play(fade_in(step), run_time=0.4)
            else:
                self.play(ReplacementTransform(self._step_label, step), run_time=0.3)
            self._step_label = step

            # 1. f_att scores every h_j against s_{t-1}.
            focus = SurroundingRectangle(s_prev.frame, color=theme.highlight, buff=0.06)
            eq_focus = SurroundingRectangle(equations[0], color=theme.highlight, buff=0.06)
            scores = self._score_row(t)
            intro = [Create(focus), Create(eq_focus)] + ([fade_in(e_name)] if t == 0 else [])
            self.play(*intro, run_time=0.5 * fast)
            self.play(LaggedStart(*[
                AnimationGroup(Indicate(states[i][0].frame, color=theme.highlight, scale_factor=1.03),
                               fade_in(scores[i], shift=DOWN * 0.15))
                for i in range(self.T)], lag_ratio=0.25 if t == 0 else 0.08), run_time=2.0 * fast)

            # 2. softmax: the weights, as heat over the words.
            weights = self._weight_row(t)
            eq2 = SurroundingRectangle(equations[1], color=theme.highlight, buff=0.06)
            # The boxes travel down (cheap), the weights' numbers fade in on arrival.
            w_boxes = VGroup(*[c.box for c in weights])
            w_numbers = VGroup(*[c.number for c in weights])
            anims = [TransformFromCopy(VGroup(*[c.box for c in scores]), w_boxes),
                     ReplacementTransform(eq_focus, eq2), fade_out(focus)]
            if t == 0:
                anims.append(fade_in(a_name))
            self.play(*anims, run_time=0.8 * fast)
            self.play(fade_in(w_numbers), run_time=0.3 * fast)
            self.remove(w_boxes, w_numbers)
            self.add(weights)

            # 3. c_t forms from the h_j, each scaled and faded by its weight.
            step_t = view.steps[t]
            c_col = self._panel_column(step_t.context, step_t.context_key, f"c{subscript(t + 1)}",
                                       theme.encoder, x_c)
            eq3 = SurroundingRectangle(equations[2], color=theme.highlight, buff=0.06)
            sources, ghosts = self._weighted_ghosts(states, t, c_col)
            self.play(ReplacementTransform(eq2, eq3),
                      LaggedStart(*[TransformFromCopy(src, g) for src, g in zip(sources, ghosts)],
                                  lag_ratio=0.05), run_time=1.3 * fast)
            self.play(fade_out(ghosts), fade_in(c_col), run_time=0.6 * fast)

            # 4. the decoder consumes op_{t-1}, s_{t-1}, c_t and emits s_t, then the word.
            inputs = VGroup(op_col.frame, s_prev.frame, c_col.frame, op_col.label, s_prev.label, c_col.label)
            bracket = DashedVMobject(RoundedRectangle(corner_radius=0.12, width=inputs.width + 0.25,
                                                      height=inputs.height + 0.2, stroke_color=theme.muted,
                                                      stroke_width=2).move_to(inputs), num_dashes=40)
            into = arrow_between(bracket, box.box, theme.decoder, buff=0.05)
            eq4 = SurroundingRectangle(eq_decoder, color=theme.highlight, buff=0.06)
            exit_zero = [fade_out(zero_note)] if t == 0 else []
            self.play(Create(bracket), GrowArrow(into), ReplacementTransform(eq3, eq4), *exit_zero,
                      run_time=0.7 * fast)
            s_new = self._panel_column(step_t.state, step_t.state_key, f"s{subscript(t + 1)}",
                                       theme.decoder, x_new)
            out = arrow_between(box.box, s_new.frame, theme.decoder, buff=0.08)
            self.play(Indicate(box.box, color=theme.decoder, scale_factor=1.05), GrowArrow(out),
                      fade_in(s_new, shift=RIGHT * 0.2), run_time=0.9 * fast)
            word = self._emitted(t, s_new, x_word)
            to_word = arrow_between(s_new.frame, word[0], theme.decoder, buff=0.1)
            eq5 = SurroundingRectangle(eq_output, color=theme.highlight, buff=0.06)
            self.play(GrowArrow(to_word), fade_in(word, shift=RIGHT * 0.2), ReplacementTransform(eq4, eq5),
                      run_time=0.8 * fast)
            self.wait(0.6 * fast)

            leaving = [scores, weights, bracket, into, out, to_word, eq5, c_col]
            if t + 1 < n:
                # s_t becomes s_{t-1}, the word becomes op_{t-1} of the next step.
                nxt = view.steps[t + 1]
                next_s = self._panel_column(nxt.previous_state, nxt.previous_state_key, f"s{subscript(t + 1)}",
                                            theme.decoder, x_s)
                next_op = self._panel_column(nxt.input_embedding, nxt.input_embedding_key,
                                             f"op{subscript(t + 1)}", theme.embedding, x_op)
                next_word = self._op_word(nxt.input_word, next_op)
                self.play(*[fade_out(m) for m in leaving], fade_out(s_prev), fade_out(op_col), fade_out(op_word),
                          ReplacementTransform(s_new, next_s), ReplacementTransform(word[0], next_word),
                          fade_out(word[1]), fade_in(next_op), run_time=0.8 * fast)
                s_prev, op_col, op_word = next_s, next_op, next_word
            else:
                final = [scores, weights, bracket, into, out, to_word, eq5, c_col, s_prev, op_col, op_word,
                         s_new, word, box]
        self.wait(0.4)

        # The alignment matrix: every step's weights, words on both axes.
        self.play(*[fade_out(m) for m in final], fade_out(states), fade_out(words), fade_out(e_name),
                  fade_out(title), fade_out(kind),
                  fade_out(a_name), fade_out(equations), fade_out(self._step_label), run_time=0.8)
        self._alignment()
        self.wait(2.0)

    # -- pieces of a step ----------------------------------------------------

    def _op_word(self, word: str, col: VectorColumn) -> Mobject:
        """The previous output word, under its embedding column."""
        text = caption(word, self.theme, 18, self.theme.embedding)
        fit_within(text, max_width=1.0)
        return text.next_to(col.frame, DOWN, buff=0.14)

    def _emitted(self, t: int, s_new: VectorColumn, x: float) -> VGroup:
        """The chosen word and its probability, right of s_t."""
        theme, step = self.theme, self.view.steps[t]
        word = caption(step.chosen, theme, 26, theme.decoder)
        fit_within(word, max_width=2.1)
        p = VGroup(caption("p =", theme, 18, theme.muted),
                   NumberLabel(step.probability, theme, step.probability_key))
        p.arrange(RIGHT, buff=0.1)
        group = VGroup(word, p).arrange(DOWN, buff=0.15)
        group.move_to([x + group.width / 2, s_new.frame.get_center()[1], 0])
        return group

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

    def _alignment(self) -> None:
        theme, view = self.theme, self.view
        n, T = view.alignment.shape
        # Cells as large as the frame allows: 12 columns x 13 rows still fit.
        cell_w = min(1.0, 11.0 / T)
        cell_h = min(0.5, 4.9 / n)
        matrix = ValueMatrix(view.alignment, theme, key=view.alignment_key, row_labels=list(view.chosen),
                             colour=theme.panel, max_rows=13, max_cols=12, cell_width=cell_w,
                             cell_height=cell_h, heat=True, label_size=20)
        for lab in matrix.row_labels:
            fit_within(lab, max_width=1.5)
            lab.align_to(matrix.frame.get_left() + LEFT * 0.15, RIGHT)
        heading = caption("Alignment: the attention weights of every step", theme, 26)
        heading.move_to([0, TITLE_Y, 0])
        # The block (axis name, source words, grid) is centred under the heading.
        above = 1.05
        block = above + matrix.frame.height
        centre = (heading.get_bottom()[1] - 0.1 + NOTE_Y + 0.25) / 2
        grid_top = centre + block / 2 - above
        top = matrix.frame.get_top()
        matrix.shift([0.6 - top[0], grid_top - top[1], 0])
        xs = [matrix.cell(0, j).get_x() for j in range(T)]
        cols = word_labels(view.source_tokens, xs, grid_top + 0.38, cell_w, theme)
        src = caption("source words", theme, 18, theme.encoder)
        src.move_to([matrix.frame.get_x(), grid_top + above - 0.15, 0])
        out = caption("output words", theme, 18, theme.decoder)
        out.next_to(matrix.row_labels, DOWN, buff=0.2).align_to(matrix.row_labels, RIGHT)
        self.play(fade_in(heading), fade_in(cols), fade_in(src))
        self.play(LaggedStart(*[fade_in(VGroup(*[matrix.cell(t, j) for j in range(T)]), shift=DOWN * 0.1)
                                for t in range(n)], lag_ratio=0.2),
                  fade_in(matrix.frame), fade_in(matrix.row_labels), fade_in(out), run_time=1.5)
