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

import re

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    GrowArrow,
    Indicate,
    MathTex,
    Rectangle,
    RoundedRectangle,
    SurroundingRectangle,
    VGroup,
)

from .base import FINAL_HOLD, WalkthroughScene
from .components import (
    WORD_MAX_W,
    CellBox,
    NumberLabel,
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
    subscript,
    word_box,
)
from .seq2seq_view import decoder_view, network_note

__all__ = ["DecoderScene", "ComparedRows", "legible_dots"]

TITLE_Y = 3.6
NOTE_Y = 3.1
START_Y = 1.72
WORK_Y = 0.74
INPUT_X = (-6.0, -4.65, -3.3)  # previous word, s_{t-1}, context
CELL_X = -1.2
STATE_X = 0.85
MAP_X = 2.75
WORD_X = 5.3
CELL_W = 0.92  # "\u22123.14" at 20 pt needs 0.81 of the cell's 0.9 of its width
CELL_H = 0.34
STRIP_FONT = 20
TEXT_FONT = 20  # the legibility floor: 12 px capitals at 480p
MEANING_TOP = -1.2
# The words written (and, at the end, the reference) under the diagram.
ROWS_TOP = -1.95
ROWS_TOP_TALL = -1.35  # two pairs of rows: the meanings make room
NOTES_X = 4.3  # the end note and the verdict: right of s_t, above the rows
NOTES_W = 5.4
#: Seconds still after a chosen word in the first steps and the quick later ones.
QUICK_PAUSE = 0.4


class DecoderScene(WalkthroughScene):
    scene_id = "decoder"
    trace_sections = ("target", "sizes", "plain_model")
    description = ("The plain decoder: s_0 = 0, op_0 = <START>, then s_t = decoder_RNN(op_{t-1}, s_{t-1}, h_T), "
                   "each s_t mapped to the word op_t that feeds the next step.")
    shown_results = ("state", "word", "translation")

    def construct(self) -> None:
        theme = self.theme
        view = self.view = decoder_view(self.trace)
        n = view.steps
        # The draft's names: op_{t-1} in, h_T the context (its h_8).
        self.word_name = "op"
        T = len(self.trace.source_tokens)
        context_name = f"h{subscript(T)}"
        formula = view.formula.replace("h_{T}", "h_{" + str(T) + "}")

        title = VGroup(caption("Decoder", theme, 30), math_label(formula, theme, 30)).arrange(RIGHT, buff=0.5)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        note = self._network_note().move_to([0, NOTE_Y, 0])
        fit_within(note, max_width=13.6)
        # The first frame is the title, never black.
        self.add(title, note)

        # The three inputs of step 1, each with what it tells the decoder.
        op_col = self._op_column(0)
        s_col = self._state_column(view.initial_state, view.initial_state_key, 0, INPUT_X[1])
        h_col = self._column(view.context, view.context_key, context_name, theme.encoder, INPUT_X[2])
        self.low = low = min(c.frame.get_bottom()[1] for c in (op_col, s_col, h_col))
        top = max(c.get_top()[1] for c in (op_col, s_col, h_col))
        inputs_box = RoundedRectangle(corner_radius=0.15, stroke_color=theme.muted, stroke_width=2,
                                      width=INPUT_X[2] - INPUT_X[0] + 1.4, height=top - low + 0.55)
        inputs_box.move_to([sum(INPUT_X[::2]) / 2, (top + low - 0.35) / 2, 0])
        self.inputs_left = inputs_box.get_left()[0]
        op_word = self._op_word(0)
        meanings = VGroup(*[
            caption(text, theme, TEXT_FONT, theme.muted).move_to([x, 0, 0])
            for text, x in zip(("previous\nword", "generated\nso far", "whole\nsentence"), INPUT_X)
        ])
        meanings.next_to(inputs_box, DOWN, buff=0.15, coor_mask=[0, 1, 0])
        # s_0 is zeros, shown as its numbers in the s_{t-1} slot; op_0 is <START>'s embedding.
        start = caption("s\u2080 = 0,  op\u2080 = <START>", theme, TEXT_FONT, theme.muted)
        # Above the decoder cell, where step 1 begins (above the inputs sit their names).
        start.move_to([CELL_X, START_Y, 0])

        cell = CellBox("decoder\nGRU" if view.network == "gru" else "decoder\nRNN", theme, theme.decoder,
                       width=1.9, height=1.2, font_size=22)
        cell.move_to([CELL_X, WORK_Y, 0])
        mapper = CellBox("output\nmapping", theme, theme.decoder, width=1.7, height=1.1, font_size=TEXT_FONT)
        mapper.move_to([MAP_X, WORK_Y, 0])
        into_cell = arrow_between(inputs_box, cell.box, theme.decoder)
        self.play(fade_in(op_col), fade_in(op_word), fade_in(s_col), fade_in(h_col), Create(inputs_box),
                  fade_in(meanings), fade_in(start))
        # Boxes drawn, their names faded in: a text half drawn reads as a smaller one.
        self.play(Create(cell.box), fade_in(cell.text), Create(mapper.box), fade_in(mapper.text),
                  GrowArrow(into_cell))

        # The words written, position under position with the reference (shown at the end).
        rows = self.rows = self._rows()
        tall = self.tall = rows.height > ROWS_TOP - (-3.95)
        rows.shift(UP * ((ROWS_TOP_TALL if tall else ROWS_TOP) - rows.get_top()[1]))
        if not tall:
            self.play(fade_in(rows.names[0]))

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
                extra = [fade_out(meanings)] if tall and t == 1 else []
                self.play(pulse, GrowArrow(out), fade_in(s_new), *extra)
                if t == 1:
                    self.pause_on_result("state")
            else:
                self.add(s_new)
                self.play(pulse, GrowArrow(out), run_time=0.6)
            word, prob = self._chosen(t)
            to_map = arrow_between(s_new.frame, mapper.box, theme.decoder)
            to_word = arrow_between(mapper.box, word, theme.decoder)
            self.play(GrowArrow(to_map), GrowArrow(to_word), fade_in(word), fade_in(prob),
                      run_time=1.0 if slow else 0.6)
            if slow:
                self.pause_on_result("word")
            else:
                self.wait(QUICK_PAUSE)
            # Two pairs of rows: their name comes once the meanings have made room.
            named = [fade_in(rows.names[0])] if tall and t == 1 else []
            self.play(fade_in(rows.written_box(t - 1)), Indicate(word, color=theme.decoder, scale_factor=1.0),
                      *named, run_time=0.8 if slow else 0.5)
            if t == n:
                step_parts = VGroup(s_new, out, word, prob, to_map, to_word)
                break
            # s_t becomes the next step's s_{t-1}; the chosen word its input.
            s_moved = self._state_column(view.states[t - 1], view.state_keys[t - 1], t, INPUT_X[1])
            op_next = self._op_column(t)
            op_word_next = self._op_word(t)
            gone = [s_col, op_col, op_word, out, to_map, to_word, word, prob]
            if slow:
                # A cross-fade in place: anything sliding would cross the columns between.
                # The old column is gone before the new one shows: they never overlap.
                anims = [caption_out(s_new), caption_in(s_moved), *[caption_out(m) for m in gone],
                         caption_in(op_next), caption_in(op_word_next)]
                if t == 1:
                    anims.append(fade_out(start))
                self.play(*anims)
            else:
                self.remove(s_new, *gone)
                self.add(s_moved, op_next, op_word_next)
            s_col, op_col, op_word = s_moved, op_next, op_word_next

        if view.ended:
            end_lines = ["<END> chosen: decoding stops"]
        else:
            # One line (two would push the verdict onto the words written).
            end_lines = [f"{n} steps, without choosing <END>"]
        end = _centred_lines(end_lines, theme, TEXT_FONT, theme.decoder)
        end.move_to([NOTES_X, 0.1 if self.tall else -0.75, 0], aligned_edge=UP)
        last = SurroundingRectangle(rows.written_box(n - 1), color=theme.highlight, buff=0.05)
        self.play(Create(last), fade_in(end))
        self.wait(1.0)
        if n == 1:
            self.play(fade_out(start), run_time=0.5)
        self._compare(end)

    # -- the comparison ---------------------------------------------------------

    def _compare(self, end) -> None:
        """The reference under the words written; the words that differ framed."""
        view, theme, rows = self.view, self.theme, self.rows
        if view.reference is None:
            lines, colour = ["There is no reference translation:", "the words written are not checked."], theme.muted
        else:
            against = "the reference" if view.network == "gru" else "the target"
            if not view.mismatches:
                lines, colour = ["The words written", f"equal {against}."], theme.positive
            else:
                lines, colour = [f"Framed: differs from {against}", "at the same position."], theme.text
        verdict = _centred_lines(lines, theme, TEXT_FONT, colour)
        fit_within(verdict, max_width=NOTES_W)
        verdict.next_to(end, DOWN, buff=0.1 if self.tall else 0.2).set_x(NOTES_X)
        if view.reference is None:
            self.play(fade_in(verdict))
            self.pause_on_result("translation", FINAL_HOLD)
            return
        self.play(fade_in(rows.names[1]), FadeIn(rows.reference, lag_ratio=0.1))
        marks = VGroup()
        for i in view.mismatches:
            for box in (rows.written_box(i), rows.reference_box(i)):
                if box is not None:
                    marks.add(SurroundingRectangle(box, color=theme.negative, buff=0.04, stroke_width=3))
        self.play(*[Create(m) for m in marks], fade_in(verdict))
        # The poster: the whole decoder, its last step, the words written against the reference.
        self.pause_on_result("translation", FINAL_HOLD)

    # -- builders -------------------------------------------------------------

    def _rows(self) -> "ComparedRows":
        view = self.view
        names = ("written:", "reference:" if view.network == "gru" else "target:")
        return ComparedRows(view.chosen, view.reference or (), names, self.theme)

    def _network_note(self):
        theme, view = self.theme, self.view
        text = network_note(self.trace)
        if view.trained:
            text += f": its only view of the sentence is h{subscript(len(self.trace.source_tokens))}"
        elif "untrained" in text:
            text += "; its words are not a translation"
        colour = theme.highlight if view.untrained else theme.muted
        note = caption(text, theme, TEXT_FONT, colour)
        if note.width > 13.6:
            # The title names the network; the words the grammar lacks are the encoder's story.
            text = re.sub(r" \([^)]*\)", "", text)
            note = caption(text, theme, TEXT_FONT, colour)
        if note.width > 13.6:
            # Too long for one line at the floor: two lines, never smaller.
            note = _centred_lines(_halves(text), theme, TEXT_FONT,
                                  theme.highlight if view.untrained else theme.muted)
        return note

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
        col = legible_dots(VectorColumn(values, self.theme, key=key, colour=colour, cell_width=CELL_W,
                                        cell_height=CELL_H))
        _place(col, x)
        col.label = caption(name, self.theme, 24, colour, slant="ITALIC").next_to(col.frame, UP, buff=0.08)
        col.add(col.label)
        return col

    def _op_word(self, t: int):
        # Under the columns (nothing else is there): as wide as the inputs' box.
        word = readable_text(self.view.input_words[t], self.theme, TEXT_FONT, max_width=INPUT_X[2] - INPUT_X[0] + 1.1,
                             colour=self.theme.embedding)
        return word.move_to([self.inputs_left + 0.15, self.low - 0.25, 0], aligned_edge=LEFT)

    def _chosen(self, t: int):
        """The word chosen at step t, its probability, and a bar as long as it."""
        view, theme = self.view, self.theme
        word = readable_text(view.chosen[t - 1], theme, 26, max_width=2.6)
        word.move_to([WORD_X, WORK_Y + 0.3, 0])
        p = view.chosen_probabilities[t - 1]
        number = VGroup(caption("p =", theme, TEXT_FONT, theme.muted),
                        NumberLabel(p, theme, view.chosen_probability_keys[t - 1], font_size=TEXT_FONT))
        number.arrange(RIGHT, buff=0.1).next_to(word, DOWN, buff=0.2)
        # The bar's length is p times the track's: layout, not arithmetic shown as a number.
        track = Rectangle(width=PROB_BAR_W, height=0.16, stroke_color=theme.muted, stroke_width=1)
        bar = Rectangle(width=max(PROB_BAR_W * float(p), 0.01), height=0.16, stroke_width=0,
                        fill_color=theme.weight, fill_opacity=1)
        track.next_to(number, DOWN, buff=0.12)
        bar.move_to(track.get_left(), aligned_edge=LEFT)
        return word, VGroup(number, track, bar)


PROB_BAR_W = 1.6


def legible_dots(col: VectorColumn, font_size: float = 30) -> VectorColumn:
    """Enlarge a column's elision dots to the formula floor (28.2 pt): the
    shared column draws them at 1.2 times its number size, 24 pt for 20 pt
    numbers, 10 px at 480p."""
    for cell in col.cells:
        for mob in cell.submobjects:
            if isinstance(mob, MathTex) and mob.font_size < font_size:
                mob.scale(font_size / mob.font_size)
    return col


def _halves(text: str) -> tuple[str, str]:
    """``text`` cut at the space nearest its middle."""
    words = text.split(" ")
    cut = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(text) / 2))
    return " ".join(words[:cut]), " ".join(words[cut:])


def _centred_lines(lines, theme, font_size: float, colour) -> VGroup:
    """Lines of text, each centred under the one before."""
    return VGroup(*[caption(line, theme, font_size, colour) for line in lines]).arrange(DOWN, buff=0.12)


def _place(col: VectorColumn, x: float) -> VectorColumn:
    """Centre the column's cells (not its label) on the working row."""
    return col.shift([x, WORK_Y, 0] - col.frame.get_center())


# ComparedRows layout: gap between slots, written-to-reference row pitch,
# extra gap between two wrapped pairs of rows.
SLOT_GAP = 0.12
ROW_PITCH = 0.62
PAIR_GAP = 0.25


class ComparedRows(VGroup):
    """The words written above the reference, position under position.

    Each position gets one slot as wide as the wider of its two words, so a
    word and the reference word it is compared with stand one above the
    other. Too long for one pair of rows at ``font_size``, the slots wrap
    onto a second pair, and words too long for their share of the width are
    cut with an ellipsis (never drawn below the font size).
    """

    def __init__(self, written, reference, names: tuple[str, str], theme, max_width: float = 13.9,
                 font_size: float = STRIP_FONT) -> None:
        super().__init__()
        n = max(len(written), len(reference))
        self.names = VGroup(*[caption(t, theme, font_size, theme.muted) for t in names])
        name_w = max(m.width for m in self.names) + 0.3
        room = max_width - name_w

        def build(word_w: float):
            slots = []
            for i in range(n):
                slots.append([word_box(words[i], theme, colour, font_size, max_width=word_w)
                              if i < len(words) else None
                              for words, colour in ((written, theme.decoder), (reference, theme.muted))])
            widths = [max(b.width for b in pair if b is not None) for pair in slots]
            return slots, widths

        slots, widths = build(WORD_MAX_W)
        lines = [list(range(n))]
        if sum(widths) + SLOT_GAP * (n - 1) > room and n > 1:
            half = (n + 1) // 2
            lines = [list(range(half)), list(range(half, n))]
            # Each word gets at most its share of the longer line.
            share = room / half - SLOT_GAP - 0.25
            if max(sum(widths[i] for i in line) + SLOT_GAP * (len(line) - 1) for line in lines) > room:
                slots, widths = build(max(share, 0.6))
        self._written: dict[int, VGroup] = {}
        self._reference: dict[int, VGroup] = {}
        self.written, self.reference = VGroup(), VGroup()
        y = 0.0
        for line in lines:
            x = 0.0
            for i in line:
                for r, item in enumerate(slots[i]):
                    if item is not None:
                        item.move_to([x + widths[i] / 2, y - r * ROW_PITCH, 0])
                        (self._written, self._reference)[r][i] = item
                        (self.written, self.reference)[r].add(item)
                x += widths[i] + SLOT_GAP
            # Without a reference each line is one row of words, not a pair.
            y -= (2 if reference else 1) * ROW_PITCH + PAIR_GAP
        for r, name in enumerate(self.names):
            name.next_to([0, 0, 0], LEFT, buff=0.3).set_y(-r * ROW_PITCH)
            self.add(name)
        self.add(self.written, self.reference)
        self.move_to([0, 0, 0])

    def written_box(self, i: int):
        return self._written.get(i)

    def reference_box(self, i: int):
        return self._reference.get(i)
