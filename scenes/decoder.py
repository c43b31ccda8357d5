"""``decoder``: the plain decoder writing the output one word at a time.

Draft 000, "4. Decoder stack of NNs": s_0 is a vector of zeros and op_0 the
embedding of <START>; at each step the decoder reads the previous output
word's embedding op_{t-1}, its previous state s_{t-1} and the encoder's
h_T (the draft's h_8), ``s_t = decoder_RNN(op_{t-1}, s_{t-1}, h_T)``; s_t
is mapped to the output word op_t, whose embedding is the next step's
input. Each input is labelled with what it tells the decoder.

One code path for whichever network :func:`scenes.seq2seq_view.decoder_view`
gives: the translator trained without attention (a GRU) by default, else
the small seeded tanh RNN, said on screen to be untrained. At the end the
words written are set against the reference translation, when there is
one, and the words that differ are marked.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    GrowArrow,
    Indicate,
    MoveToTarget,
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
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
    word_box,
)
from .seq2seq_view import decoder_view, network_note

__all__ = ["DecoderScene"]

TITLE_Y = 3.55
NOTE_Y = 3.0
WORK_Y = 0.35
HISTORY_Y = -3.2
INPUT_X = (-6.05, -4.5, -2.95)  # previous word, s_{t-1}, context
CELL_X = -0.35
STATE_X = 2.05
MAP_X = 3.75
WORD_X = 5.75
STRIP_FONT = 20
# The final comparison: written words above, the reference below.
WRITTEN_Y = 1.2
REFERENCE_Y = -0.4
MIDDLE_Y = -0.3


class DecoderScene(WalkthroughScene):
    scene_id = "decoder"
    trace_sections = ("target", "sizes", "plain_model")
    description = ("The plain decoder: s_0 = 0, op_0 = <START>, then s_t = decoder_RNN(op_{t-1}, s_{t-1}, h_T), "
                   "each s_t mapped to the word op_t that feeds the next step.")

    def construct(self) -> None:
        theme = self.theme
        view = self.view = decoder_view(self.trace)
        n = view.steps
        size = max(view.states.shape[1], view.input_embeddings.shape[1])
        # 8 numbers a column need smaller cells to leave room for the labels
        # under the working row.
        self.cell_h = 0.4 if size <= 6 else 0.3
        self.cell_w = 0.74
        # The draft's names: op_{t-1} in, h_T the context (its h_8).
        self.word_name = "op"
        T = len(self.trace.source_tokens)
        context_name = f"h{subscript(T)}"
        formula = view.formula.replace("h_{T}", "h_{" + str(T) + "}")

        title = VGroup(caption("Decoder", theme, 30), math_label(formula, theme, 30)).arrange(RIGHT, buff=0.5)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        note = self._network_note().move_to([0, NOTE_Y, 0])
        fit_within(note, max_width=13.4)
        self.play(fade_in(title), fade_in(note))

        # The three inputs of step 1, each with what it tells the decoder.
        op_col = self._op_column(0)
        s_col = self._state_column(view.initial_state, view.initial_state_key, 0, INPUT_X[1])
        h_col = self._column(view.context, view.context_key, context_name, theme.encoder, INPUT_X[2])
        low = min(c.frame.get_bottom()[1] for c in (op_col, s_col, h_col))
        self.low = low
        op_word = self._op_word(0)
        meanings = VGroup(*[
            caption(text, theme, 15, theme.muted).move_to([x, 0, 0])
            for text, x in zip(("previous\noutput\nword", "what has been\ngenerated\nso far",
                                "the whole\ninput\nsentence"), INPUT_X)
        ])
        for m in meanings:
            fit_within(m, max_width=1.45)
            m.set_y(low - 0.45 - m.height / 2)
        top = max(c.get_top()[1] for c in (op_col, s_col, h_col))
        inputs_box = RoundedRectangle(corner_radius=0.15, stroke_color=theme.muted, stroke_width=2,
                                      width=INPUT_X[2] - INPUT_X[0] + 1.5, height=top - low + 0.3)
        inputs_box.move_to([sum(INPUT_X[::2]) / 2, (top + low) / 2, 0])
        # s_0 is zeros, shown as its numbers in the s_{t-1} slot; op_0 is <START>'s embedding.
        start = caption("s\u2080 = 0,  op\u2080 = <START>", theme, 15, theme.muted)
        start.next_to(inputs_box, UP, buff=0.12).set_x(inputs_box.get_x())
        fit_within(start, max_width=inputs_box.width)

        cell = CellBox("decoder GRU" if view.network == "gru" else "decoder RNN", theme, theme.decoder,
                       width=1.9, height=1.3)
        cell.move_to([CELL_X, WORK_Y, 0])
        mapper = CellBox("output\nmapping", theme, theme.decoder, width=1.5, height=1.0, font_size=20)
        mapper.move_to([MAP_X, WORK_Y, 0])
        into_cell = arrow_between(inputs_box, cell.box, theme.decoder)
        self.play(fade_in(op_col), fade_in(op_word), fade_in(s_col), fade_in(h_col), Create(inputs_box),
                  fade_in(meanings), fade_in(start))
        self.play(Create(cell), Create(mapper), GrowArrow(into_cell))

        history_name = caption("output so far:", theme, 18, theme.muted)
        history = TokenStrip(view.chosen, theme, colour=theme.decoder, font_size=STRIP_FONT,
                             max_width=13.2 - history_name.width - 0.3)
        VGroup(history_name, history).arrange(RIGHT, buff=0.3).move_to([0, HISTORY_Y, 0])
        history_name.set_y(history.boxes[0].get_y())
        self.play(fade_in(history_name))

        step_parts = VGroup()
        for t in range(1, n + 1):
            # The first two steps are told slowly; later ones repeat the
            # pattern quickly, their columns appearing without a fade (each
            # fade copies a column of texts, the costliest part to build).
            slow = t <= 2
            s_new = self._state_column(view.states[t - 1], view.state_keys[t - 1], t, STATE_X)
            out = arrow_between(cell.box, s_new.frame, theme.decoder)
            pulse = Indicate(cell.box, color=theme.decoder, scale_factor=1.05)
            if slow:
                self.play(pulse, GrowArrow(out), fade_in(s_new, shift=RIGHT * 0.3))
            else:
                self.add(s_new)
                self.play(pulse, GrowArrow(out), run_time=0.6)
            word, prob = self._chosen(t)
            to_map = arrow_between(s_new.frame, mapper.box, theme.decoder)
            to_word = arrow_between(mapper.box, word, theme.decoder)
            self.play(GrowArrow(to_map), GrowArrow(to_word), fade_in(word), fade_in(prob),
                      run_time=1.0 if slow else 0.6)
            self.play(TransformFromCopy(word, history.boxes[t - 1]), run_time=0.8 if slow else 0.5)
            if t == n:
                step_parts = VGroup(s_new, out, word, prob, to_map, to_word)
                break
            # s_t becomes the next step's s_{t-1}; the chosen word its input.
            s_moved = self._state_column(view.states[t - 1], view.state_keys[t - 1], t, INPUT_X[1])
            op_next = self._op_column(t)
            op_word_next = self._op_word(t)
            gone = [s_col, op_col, op_word, out, to_map, to_word, word, prob]
            if slow:
                # A cross-fade, not a slide: sliding left, s_t would cross h_T.
                anims = [fade_out(s_new, shift=LEFT * 0.4), fade_in(s_moved, shift=LEFT * 0.4),
                         *[fade_out(m) for m in gone], FadeIn(op_next, target_position=word, scale=0.5),
                         fade_in(op_word_next)]
                if t == 1:
                    anims.append(fade_out(start))
                self.play(*anims)
            else:
                self.remove(s_new, *gone)
                self.add(s_moved, op_next, op_word_next)
            s_col, op_col, op_word = s_moved, op_next, op_word_next

        if view.ended:
            end_text = "<END> chosen: decoding stops"
        else:
            end_text = f"stopped after {n} steps without choosing <END>"
        end = caption(end_text, theme, 18, theme.decoder)
        fit_within(end, max_width=6).next_to(history, UP, buff=0.2)
        last = SurroundingRectangle(history.boxes[n - 1], color=theme.highlight, buff=0.05)
        self.play(Create(last), fade_in(end))
        self.wait(0.8)

        # The words written against the reference: clear the working row.
        work = VGroup(op_col, op_word, s_col, h_col, inputs_box, meanings, cell, mapper, into_cell,
                      step_parts, history_name, last)
        if n == 1:
            work.add(start)
        self._compare(work, end, history)

    # -- the comparison ---------------------------------------------------------

    def _compare(self, work: VGroup, end, history: TokenStrip) -> None:
        view, theme = self.view, self.theme
        if view.reference is None:
            self.play(fade_out(work), VGroup(end, history).animate.shift(UP * (WRITTEN_Y - history.get_y())))
            verdict = _centred_lines(("This sentence has no reference translation in the corpus,",
                                      "so the words written are not checked."), theme, 20, theme.muted)
            fit_within(verdict, max_width=13.2).move_to([0, REFERENCE_Y, 0])
            name = caption("written:", theme, 18, theme.muted).next_to(history, LEFT, buff=0.3)
            name.set_y(history.boxes[0].get_y())
            self.play(fade_in(verdict), fade_in(name))
            self.wait(1.5)
            return
        names = ("written:", "reference:" if view.network == "gru" else "target:")
        rows = ComparedRows(view.chosen, view.reference, names, theme)

        differ = view.mismatches
        against = "the reference" if view.network == "gru" else "the target sentence"
        if not differ:
            lines, colour = [f"The words written equal {against}."], theme.positive
        else:
            lines, colour = [f"Marked: the word differs from {against} at the same position."], theme.text
            if view.untrained:
                lines.append("Untrained weights write no translation.")
        verdict = _centred_lines(lines, theme, 20, colour)
        fit_within(verdict, max_width=13.2)

        # End note, rows and verdict as one block in the middle of the frame.
        end.generate_target()
        block = VGroup(end.target, rows, verdict).arrange(DOWN, buff=0.4)
        rows.set_x(0)
        block.move_to([0, MIDDLE_Y, 0])
        if block.get_top()[1] > NOTE_Y - 0.3:
            block.shift(DOWN * (block.get_top()[1] - NOTE_Y + 0.3))
        # Box to box: the same word in the same kind of box (cheap to morph).
        moves = [ReplacementTransform(history.boxes[i], rows.written_box(i)) for i in range(len(view.chosen))]
        self.play(fade_out(work), *moves, MoveToTarget(end))
        self.play(fade_in(rows.names), FadeIn(rows.reference, lag_ratio=0.1))
        marks = VGroup()
        for i in differ:
            for box in (rows.written_box(i), rows.reference_box(i)):
                if box is not None:
                    marks.add(SurroundingRectangle(box, color=theme.negative, buff=0.05, stroke_width=3))
        self.play(*[Create(m) for m in marks], fade_in(verdict))
        self.wait(1.5)

    # -- builders -------------------------------------------------------------

    def _network_note(self):
        theme, view = self.theme, self.view
        text = network_note(self.trace)
        if view.trained:
            text += f": its only view of the sentence is h{subscript(len(self.trace.source_tokens))}"
        elif "untrained" in text:
            text += "; its words are not a translation"
        return caption(text, theme, 18, theme.highlight if view.untrained else theme.muted)

    def _state_column(self, values, key: str, t: int, x: float) -> VectorColumn:
        return self._column(values, key, f"s{subscript(t)}", self.theme.decoder, x)

    def _op_column(self, t: int) -> VectorColumn:
        """The embedding of the word fed in at step t + 1."""
        view = self.view
        return self._column(view.input_embeddings[t], view.input_embedding_keys[t],
                            f"{self.word_name}{subscript(t)}", self.theme.embedding, INPUT_X[0])

    def _column(self, values, key: str, name: str, colour, x: float) -> VectorColumn:
        """A vector on the working row, named in plain text above it (no
        LaTeX run per step: the names change every step)."""
        col = VectorColumn(values, self.theme, key=key, colour=colour, cell_width=self.cell_w,
                           cell_height=self.cell_h)
        _place(col, x)
        col.label = caption(name, self.theme, 24, colour, slant="ITALIC").next_to(col.frame, UP, buff=0.1)
        col.add(col.label)
        return col


    def _op_word(self, t: int):
        word = caption(self.view.input_words[t], self.theme, 17, self.theme.embedding)
        fit_within(word, max_width=1.4)
        return word.move_to([INPUT_X[0], self.low - 0.22, 0])

    def _chosen(self, t: int):
        """The word chosen at step t and its probability."""
        view, theme = self.view, self.theme
        word = caption(view.chosen[t - 1], theme, 26, theme.text)
        fit_within(word, max_width=2.4).move_to([WORD_X, WORK_Y + 0.2, 0])
        prob = VGroup(caption("p =", theme, 18, theme.muted),
                      NumberLabel(view.chosen_probabilities[t - 1], theme,
                                  view.chosen_probability_keys[t - 1], font_size=18))
        prob.arrange(RIGHT, buff=0.1).next_to(word, DOWN, buff=0.2)
        return word, prob


def _centred_lines(lines, theme, font_size: float, colour) -> VGroup:
    """Lines of text, each centred under the one before."""
    return VGroup(*[caption(line, theme, font_size, colour) for line in lines]).arrange(DOWN, buff=0.12)


def _place(col: VectorColumn, x: float) -> VectorColumn:
    """Centre the column's cells (not its label) on the working row."""
    return col.shift([x, WORK_Y, 0] - col.frame.get_center())


# ComparedRows layout: gap between slots, written-to-reference row pitch,
# extra gap between two wrapped pairs of rows.
SLOT_GAP = 0.15
ROW_PITCH = 0.8
PAIR_GAP = 0.45


class ComparedRows(VGroup):
    """The words written above the reference, position under position.

    Each position gets one slot as wide as the wider of its two words, so a
    word and the reference word it is compared with stand one above the
    other. Too long for one pair of rows at a readable size, the slots wrap
    onto a second pair.
    """

    def __init__(self, written, reference, names: tuple[str, str], theme, max_width: float = 13.3,
                 font_size: float = STRIP_FONT, min_scale: float = 0.8) -> None:
        super().__init__()
        n = max(len(written), len(reference))
        self._written: dict[int, VGroup] = {}
        self._reference: dict[int, VGroup] = {}
        self.written, self.reference = VGroup(), VGroup()
        slots = []
        for i in range(n):
            pair = []
            for words, store, group, colour in ((written, self._written, self.written, theme.decoder),
                                                (reference, self._reference, self.reference, theme.muted)):
                if i >= len(words):
                    pair.append(None)
                    continue
                item = word_box(words[i], theme, colour, font_size)
                store[i] = item
                group.add(item)
                pair.append(item)
            slots.append(pair)
        self.names = VGroup(*[caption(t, theme, 18, theme.muted) for t in names])
        name_w = max(m.width for m in self.names) + 0.3
        widths = [max(p.width for p in pair if p is not None) for pair in slots]
        lines = [list(range(n))]
        if sum(widths) + SLOT_GAP * (n - 1) > (max_width - name_w) / min_scale and n > 1:
            half = (n + 1) // 2
            lines = [list(range(half)), list(range(half, n))]
        y = 0.0
        for line in lines:
            x = 0.0
            for i in line:
                for r, item in enumerate(slots[i]):
                    if item is not None:
                        item.move_to([x + widths[i] / 2, y - r * ROW_PITCH, 0])
                x += widths[i] + SLOT_GAP
            y -= 2 * ROW_PITCH + PAIR_GAP
        for r, name in enumerate(self.names):
            name.next_to([0, 0, 0], LEFT, buff=0.3).set_y(-r * ROW_PITCH)
            self.add(name)
        self.add(self.written, self.reference)
        fit_within(self, max_width=max_width)

    def written_box(self, i: int):
        return self._written.get(i)

    def reference_box(self, i: int):
        return self._reference.get(i)
