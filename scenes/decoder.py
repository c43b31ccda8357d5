"""``decoder``: the plain decoder RNN writing the output one word at a time.

Draft 000, "4. Decoder stack of NNs": s_0 is zeros and op_0 the embedding of
<START>; at each step s_t = decoder_RNN(op_{t-1}, s_{t-1}, h_T), s_t is
mapped to an output word, and that word's embedding is the next op. Each
input is labelled with what it tells the decoder.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from .base import WalkthroughScene
from .components import (
    CellBox,
    NumberLabel,
    TokenStrip,
    VectorColumn,
    arrow_between,
    caption,
    fit_within,
    math_label,
)
from .picked_rows import untrained_note

__all__ = ["DecoderScene"]

TITLE_Y = 3.55
NOTE_Y = 3.0
WORK_Y = 0.4
HISTORY_Y = -3.2
INPUT_X = (-6.05, -4.5, -2.95)  # op_{t-1}, s_{t-1}, h_T
CELL_X = -0.35
STATE_X = 1.75
MAP_X = 3.55
WORD_X = 5.75


class DecoderScene(WalkthroughScene):
    scene_id = "decoder"
    trace_sections = ("target", "sizes", "encoder.tokens", "decoder")
    description = ("The plain decoder: s_t = decoder_RNN(op_{t-1}, s_{t-1}, h_T), each s_t mapped to a word "
                   "whose embedding feeds the next step.")

    def construct(self) -> None:
        theme, dec = self.theme, self.trace.decoder
        n, H = dec.steps, dec.states.shape[1]
        T = len(self.trace.encoder.tokens)
        self.cell_h = 0.4 if H <= 6 else 0.32
        self.cell_w = 0.74

        title = VGroup(
            caption("Decoder", theme, 30),
            math_label(r"s_t = \tanh(W_o\,op_{t-1} + W_s\,s_{t-1} + W_c\,h_{" + str(T) + r"} + b)", theme, 30),
        ).arrange(RIGHT, buff=0.5)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        note = untrained_note(dec.seeded, theme, 18).move_to([0, NOTE_Y, 0])
        fit_within(note, max_width=13.4)
        self.play(FadeIn(title), FadeIn(note))

        # The three inputs of step 1, each with what it tells the decoder.
        op_col = self._op_column(0)
        s_col = self._state_column(0, INPUT_X[1])
        h_col = VectorColumn(dec.context, theme, key="decoder.context", label=f"h_{{{T}}}",
                             colour=theme.encoder, cell_width=self.cell_w, cell_height=self.cell_h,
                             label_size=28).move_to([INPUT_X[2], WORK_Y, 0])
        low = min(c.frame.get_bottom()[1] for c in (op_col, s_col, h_col))
        op_word = self._op_word(0, low)
        meanings = VGroup(*[
            caption(text, theme, 15, theme.muted).move_to([x, 0, 0])
            for text, x in zip(("previous\noutput\nword", "what has been\ngenerated\nso far",
                                "the whole\ninput\nsentence"), INPUT_X)
        ])
        for m in meanings:
            fit_within(m, max_width=1.45)
            m.set_y(low - 0.45 - m.height / 2)
        inputs_box = RoundedRectangle(corner_radius=0.15, stroke_color=theme.muted, stroke_width=2,
                                      width=INPUT_X[2] - INPUT_X[0] + 1.5,
                                      height=op_col.height + 0.3).move_to([sum(INPUT_X[::2]) / 2,
                                                                          op_col.frame.get_y(), 0])
        zeros = caption("s\u2080 starts as zeros", theme, 15, theme.muted)
        zeros.next_to(inputs_box, UP, buff=0.12).set_x(INPUT_X[1])
        fit_within(zeros, max_width=1.9)

        cell = CellBox("decoder RNN", theme, theme.decoder, width=1.9, height=1.3).move_to([CELL_X, WORK_Y, 0])
        mapper = CellBox("output\nmapping", theme, theme.decoder, width=1.5, height=1.0, font_size=20)
        mapper.move_to([MAP_X, WORK_Y, 0])
        into_cell = arrow_between(inputs_box, cell.box, theme.decoder)
        self.play(FadeIn(op_col), FadeIn(op_word), FadeIn(s_col), FadeIn(h_col), Create(inputs_box),
                  FadeIn(meanings), FadeIn(zeros))
        self.play(Create(cell), Create(mapper), GrowArrow(into_cell))

        history_name = caption("output so far:", theme, 18, theme.muted)
        history = TokenStrip(dec.chosen_words, theme, colour=theme.decoder, font_size=20,
                             max_width=13.2 - history_name.width - 0.3)
        VGroup(history_name, history).arrange(RIGHT, buff=0.3).move_to([0, HISTORY_Y, 0])
        self.play(FadeIn(history_name))

        for t in range(1, n + 1):
            fast = t > 2
            s_new = self._state_column(t, STATE_X)
            out = arrow_between(cell.box, s_new.frame, theme.decoder)
            self.play(Indicate(cell.box, color=theme.decoder, scale_factor=1.05), GrowArrow(out),
                      FadeIn(s_new, shift=RIGHT * 0.3), run_time=0.6 if fast else 1.0)
            word, prob = self._chosen(t)
            to_map = arrow_between(s_new.frame, mapper.box, theme.decoder)
            to_word = arrow_between(mapper.box, word, theme.decoder)
            self.play(GrowArrow(to_map), GrowArrow(to_word), FadeIn(word), FadeIn(prob),
                      run_time=0.6 if fast else 1.0)
            self.play(TransformFromCopy(word, history.boxes[t - 1]), run_time=0.5 if fast else 0.8)
            if t == n:
                break
            # s_t becomes s_{t-1}; the chosen word's embedding becomes op_{t}.
            s_moved = self._state_column(t, INPUT_X[1])
            op_next = self._op_column(t)
            op_word_next = self._op_word(t, low)
            anims = [ReplacementTransform(s_new, s_moved), FadeOut(s_col), FadeOut(op_col),
                     FadeOut(op_word), FadeIn(op_next, target_position=word, scale=0.5),
                     FadeIn(op_word_next), FadeOut(out), FadeOut(to_map), FadeOut(to_word),
                     FadeOut(word), FadeOut(prob)]
            if t == 1:
                anims.append(FadeOut(zeros))
            self.play(*anims, run_time=0.6 if fast else 1.0)
            s_col, op_col, op_word = s_moved, op_next, op_word_next

        if dec.ended:
            end_text = "<END> chosen: decoding stops"
        else:
            end_text = f"stopped after {n} steps (target length + 1) without <END>"
        end = caption(end_text, theme, 18, theme.decoder)
        fit_within(end, max_width=6).next_to(history, UP, buff=0.2)
        self.play(Create(SurroundingRectangle(history.boxes[n - 1], color=theme.highlight, buff=0.05)),
                  FadeIn(end))
        self.wait(1.5)

    # -- builders -------------------------------------------------------------

    def _state_column(self, t: int, x: float) -> VectorColumn:
        return VectorColumn(self.trace.decoder.states[t], self.theme, key=f"decoder.states.{t}",
                            label=f"s_{{{t}}}", colour=self.theme.decoder, cell_width=self.cell_w,
                            cell_height=self.cell_h, label_size=28).move_to([x, WORK_Y, 0])

    def _op_column(self, t: int) -> VectorColumn:
        """The embedding of op_t, the input of step t + 1."""
        return VectorColumn(self.trace.decoder.input_embeddings[t], self.theme,
                            key=f"decoder.input_embeddings.{t}", label=f"op_{{{t}}}",
                            colour=self.theme.embedding, cell_width=self.cell_w,
                            cell_height=self.cell_h, label_size=28).move_to([INPUT_X[0], WORK_Y, 0])

    def _op_word(self, t: int, low: float):
        word = caption(self.trace.decoder.input_words[t], self.theme, 17, self.theme.embedding)
        fit_within(word, max_width=1.4)
        return word.move_to([INPUT_X[0], low - 0.22, 0])

    def _chosen(self, t: int):
        """The word chosen at step t and its probability."""
        dec, theme = self.trace.decoder, self.theme
        word = caption(dec.chosen_words[t - 1], theme, 26, theme.text)
        fit_within(word, max_width=2.4).move_to([WORD_X, WORK_Y + 0.2, 0])
        prob = VGroup(caption("p =", theme, 18, theme.muted),
                      NumberLabel(dec.chosen_probabilities[t - 1], theme,
                                  ("decoder.chosen_probabilities", t - 1), font_size=18))
        prob.arrange(RIGHT, buff=0.1).next_to(word, DOWN, buff=0.2)
        return word, prob
