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

import numpy as np

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    GrowArrow,
    Indicate,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
)

from .base import FINAL_HOLD, SAFE_EDGE, WalkthroughScene
from .components import (
    WORD_MAX_W,
    kept_indices,
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
    on_baseline,
    readable_text,
    subscript,
    word_box,
)
from manim.utils.rate_functions import smooth

from .motion import crossfade, feed_back, hand_off, moved, window
from .part1_words import become_chip, chip_column, reader_note
from .seq2seq_view import decoder_view

__all__ = ["DecoderScene", "ComparedRows"]

TITLE_Y = 3.6
NOTE_Y = 3.1
WORK_Y = 0.74
# The inputs, left to right: the previous word, the context h_T, s_{t-1}; s_{t-1} sits next to
# the cell, so s_t's way back into its slot crosses only the cell. 1.55 apart: "generated" and
# "sentence" under them keep a gap.
OP_X, H_X, S_PREV_X = -6.25, -4.6, -2.95  # 1.65 apart: the meanings at 24 pt keep a gap
CELL_X = -0.75  # "op\u2080 = <START>" under the cell clears the inputs' box and s_1
STATE_X = 1.25
MAP_X = 3.05
WORD_X = 5.5
CELL_W = 1.08  # "\u22123.14" at 23.5 pt needs 0.95 of the cell's 0.9 of its width
CELL_H = 0.34
STRIP_FONT = 24
TEXT_FONT = 24  # over the legibility floor: 14 px capitals at 480p
#: Seconds each quick step's moves take, as a share of the told ones' (issue 31: at most 40 %
#: of the first step in all).
QUICK = 0.45
# The words written (and, at the end, the reference) under the diagram.
ROWS_TOP = -2.25  # room above for the word fed back (the op word's lane)
ROWS_TOP_TALL = -1.15  # two pairs of rows (24 pt): the meanings make room
NOTES_X = 4.3  # the end note and the verdict: right of s_t, above the rows
NOTES_W = 6.2
#: Seconds still after a chosen word in the first steps and the quick later ones.
QUICK_PAUSE = 0.25
#: The poster held this long (STYLE.md 4.9: 4-8 s).
END_HOLD = 5.0


class DecoderScene(WalkthroughScene):
    scene_id = "decoder"
    trace_sections = ("target", "sizes", "plain_model")
    description = ("The plain decoder: s_0 = 0, op_0 = <START>, then s_t = decoder_RNN(op_{t-1}, s_{t-1}, h_T), "
                   "each s_t mapped to the word op_t that feeds the next step.")
    shown_results = ("state", "word", "translation")

    def construct(self) -> None:
        self.set_stage()
        self.show_inputs()
        n = self.view.steps
        for t in range(1, n + 1):
            # The first two steps are told slowly; later ones repeat the pattern quickly (at most
            # 40 % of the first), but every step still carries its state and its word to where
            # they are used next.
            slow = t <= 2
            self.compute_state(t, slow)
            self.choose_word(t, slow)
            self.write_word(t, slow)
            if t == 1:
                self.collapse_digits()
            if t < n:
                self.hand_off_state(t, slow)
                self.feed_word_back(t, slow)
        self.mark_the_end()
        self._compare(self.end)

    # -- beats ------------------------------------------------------------------

    def set_stage(self) -> None:
        """Title and network note (the first frame), the cell and the mapping's boxes (not shown yet)."""
        theme = self.theme
        view = self.view = decoder_view(self.trace)
        # The French embeddings' tints on their own scale (as output_mapping's rows).
        self.op_scale = max(float(np.abs(np.asarray(view.input_embeddings)).max()), 1e-9)
        self.word_name = "op"  # the draft's names: op_{t-1} in, h_T the context (its h_8)
        T = len(self.trace.source_tokens)
        self.context_name = f"h{subscript(T)}"
        formula = view.formula.replace("h_{T}", "h_{" + str(T) + "}")
        title = VGroup(caption("Decoder", theme, 30), math_label(formula, theme, 34)).arrange(RIGHT, buff=0.5)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        note = self._network_note()
        fit_within(note, max_width=13.6)
        note.next_to(title, DOWN, buff=0.12)
        self.add(title, note)  # the first frame is the title, never black
        self.cell = CellBox("decoder\nGRU" if view.network == "gru" else "decoder\nRNN", theme, theme.decoder,
                            width=1.9, height=1.2, font_size=24).move_to([CELL_X, WORK_Y, 0])
        self.mapper = CellBox("output\nmapping", theme, theme.decoder, width=1.7, height=1.1,
                              font_size=TEXT_FONT).move_to([MAP_X, WORK_Y, 0])
        rows = self.rows = self._rows()
        self.tall = rows.height > ROWS_TOP - (-3.95)
        rows.shift(UP * ((ROWS_TOP_TALL if self.tall else ROWS_TOP) - rows.get_top()[1]))
        #: The words written wrap onto a second line: a word travelling to it would cross the first.
        self.wrapped = len({round(float(w.get_y()), 2) for w in rows.written}) > 1

    def show_inputs(self) -> None:
        """Step 1's three inputs, each with what it tells the decoder; s_0 = 0 and op_0 = <START>."""
        theme, view = self.theme, self.view
        # s_0's zeros are the draft's point; op_0 (<START>'s row) and h_T (read in the encoder)
        # are chips: digits once, then a symbol (issue 31).
        self.op_col = self._op_column(0)
        self.s_col = self._state_column(view.initial_state, view.initial_state_key, 0, S_PREV_X, digits=True)
        h_col = self._chip(view.context, self.context_name, theme.encoder, H_X)
        cols = (self.op_col, h_col, self.s_col)
        self.low = low = min(c.frame.get_bottom()[1] for c in cols)
        top = max(c.get_top()[1] for c in cols)
        box = RoundedRectangle(corner_radius=0.15, stroke_color=theme.muted, stroke_width=2,
                               width=S_PREV_X - OP_X + 1.55, height=top - low + 0.35)
        box.move_to([(OP_X + S_PREV_X) / 2, (top + low) / 2, 0])
        self.inputs_left = box.get_left()[0]
        self.meanings = VGroup(*[
            caption(text, theme, TEXT_FONT, theme.muted).move_to([x, 0, 0])
            for text, x in zip(("previous\nword", "whole\nsentence", "written\nso far"), (OP_X, H_X, S_PREV_X))
        ]).next_to(box, DOWN, buff=0.12, coor_mask=[0, 1, 0])
        self.op_word = self._op_word(0)
        # s_0 is zeros, shown as its numbers in the s_{t-1} slot; op_0 is <START>'s embedding.
        # Under the decoder cell, clear of every column.
        self.start = VGroup(caption("s\u2080 = 0", theme, TEXT_FONT, theme.decoder),
                            caption("op\u2080 = <START>", theme, TEXT_FONT, theme.target_embedding)
                            ).arrange(DOWN, buff=0.1)
        self.start.next_to(self.cell.box, DOWN, buff=0.25)
        into_cell = arrow_between(box, self.cell.box, theme.decoder)
        word_now = [] if self.tall else [fade_in(self.op_word)]
        self.play(fade_in(self.op_col), *word_now, fade_in(self.s_col), fade_in(h_col), Create(box),
                  fade_in(self.meanings), fade_in(self.start))
        # Boxes drawn, their names faded in: a text half drawn reads as a smaller one.
        self.play(Create(self.cell.box), fade_in(self.cell.text), Create(self.mapper.box),
                  fade_in(self.mapper.text), GrowArrow(into_cell))
        if not self.tall:
            self.play(fade_in(self.rows.names[0]))

    def compute_state(self, t: int, slow: bool) -> None:
        """The cell reads op_{t-1}, h_T and s_{t-1}: out comes s_t."""
        theme, view = self.theme, self.view
        self.s_new = self._state_column(view.states[t - 1], view.state_keys[t - 1], t, STATE_X, digits=t == 1)
        pulse = Indicate(self.cell.box, color=theme.decoder, scale_factor=1.05)
        # Two pairs of rows: the meanings make room for the word fed back.
        extra = [caption_out(self.meanings), caption_in(self.op_word)] if self.tall and t == 1 else []
        if t == 1:  # the arrows are drawn once and stay: every step uses the same way
            self.out = arrow_between(self.cell.box, self.s_new.frame, theme.decoder)
            extra.append(GrowArrow(self.out))
        self.play(pulse, fade_in(self.s_new), *extra, run_time=1.0 if slow else QUICK)
        if t == 1:
            self.pause_on_result("state")

    def choose_word(self, t: int, slow: bool) -> None:
        """s_t goes through the output mapping: the most probable word, with its p (the readout
        stays on the mapping's way out and changes in place from step to step)."""
        theme = self.theme
        previous = getattr(self, "word", None)
        word, prob = self._chosen(t)
        if previous is None:
            self.to_map = arrow_between(self.s_new.frame, self.mapper.box, theme.decoder)
            self.to_word = arrow_between(self.mapper.box, word, theme.decoder)
            shown = [GrowArrow(self.to_map), GrowArrow(self.to_word), fade_in(prob), fade_in(word)]
            self.prob = prob
        else:
            # The p readout changes where it stands (its bar grows or shrinks); the same value
            # again stays as it is, now this step's.
            old, new = self.prob[0][1], prob[0][1]
            shown = [Transform(self.prob[2], prob[2])]
            if old.shown == new.shown:
                old.key, old.value = new.key, new.value
            else:
                shown.append(crossfade(old, new))
                self.prob[0].submobjects[1] = new
            if previous.original_text == word.original_text:
                word = previous  # the same word again: it stays, unchanged (no blink)
            else:
                # After the previous word has gone: the two never show in one place at once.
                shown += [fade_out(previous, rate_func=window(0.0, 0.4)),
                          fade_in(word, rate_func=window(0.4, 1.0))]
        self.word = word
        self.play(*shown, run_time=1.0 if slow else QUICK)
        if previous is None:
            # The readout's parts stand on their own: its number is swapped, never its group.
            self.remove(self.prob)
            self.add(*self.prob[0], self.prob[1], self.prob[2])
        if slow:
            self.pause_on_result("word")
        else:
            self.wait(QUICK_PAUSE)

    def collapse_digits(self) -> None:
        """Read once, s_0 and s_1 become chips where they stand: from here on a vector is its
        colours (one band per number) and its name."""
        theme, view = self.theme, self.view
        s0 = self._state_column(view.initial_state, view.initial_state_key, 0, S_PREV_X)
        s1 = self._state_column(view.states[0], view.state_keys[0], 1, STATE_X)
        moves = [m for old, chip in ((self.s_col, s0), (self.s_new, s1)) for m in become_chip(old, chip)]
        self.play(*moves, run_time=0.8)
        self.remove(self.s_col, self.s_new)
        self.add(s0, s1)
        self.s_col, self.s_new = s0, s1

    def write_word(self, t: int, slow: bool) -> None:
        """A copy of the chosen word goes down into its place among the words written."""
        slot = self.rows.written_box(t - 1)
        named = [fade_in(self.rows.names[0])] if self.tall and t == 1 else []
        line_names = self.rows.names_of_line_starting_at(t - 1)
        if line_names is not None:  # the first word of a wrapped line: that line is named as the first
            named.append(fade_in(line_names[0]))
        # Down, then along the band above the row (clear of s_t's column), then into its place.
        self.play(self._carry_word(self.word, slot[1], slot, "written", ("word", t), ("written", t - 1)),
                  fade_in(slot[0] if not self.wrapped else VGroup(), rate_func=window(0.7, 1.0)), *named,
                  run_time=0.9 if slow else QUICK)

    def hand_off_state(self, t: int, slow: bool) -> None:
        """s_t becomes the next step's s_{t-1}: it moves, as a chip over the cell, into the slot."""
        gone = [self.s_col]
        if t == 1:
            gone.append(self.start)
        # Up from s_t, over the cell (clear of its arrow and its name), down into the slot.
        over = WORK_Y + 1.2
        self.play(hand_off(self.s_new, self.s_col.get_center(), leaving=gone,
                           via=[(STATE_X, over, 0), (S_PREV_X, over, 0)], shrink=0.8,
                           what="s", src=("s", t), dst=("s_prev", t + 1)),
                  run_time=1.6 if slow else 0.6)
        self.s_col = self.s_new

    def feed_word_back(self, t: int, slow: bool) -> None:
        """The word written goes back to the inputs as op_t; its embedding is looked up."""
        op_next, op_word_next = self._op_column(t), self._op_word(t)
        slot = self.rows.written_box(t - 1)
        same = op_word_next.original_text == self.op_word.original_text
        if same:  # the same word again: the copy lands on it, nothing fades out and back
            op_word_next = self.op_word
        # Up out of the row of words, left along the free band above it, into the op word's place.
        leaving = [] if same else [fade_out(self.op_word, rate_func=window(0.0, 0.3))]
        self.play(*leaving, self._carry_word(slot[1], op_word_next, None, "op", ("written", t - 1), ("op", t),
                                             reveal=not same),
                  run_time=1.2 if slow else QUICK)
        if same:  # the same embedding, from this step's row: swapped without a fade
            self.remove(self.op_col)
            self.add(op_next)
        else:
            # The lookup: op_t's numbers, the embedding of the word just fed back.
            self.play(caption_out(self.op_col), caption_in(op_next), run_time=0.8 if slow else 0.3)
        self.op_col, self.op_word = op_next, op_word_next

    def mark_the_end(self) -> None:
        """Why decoding stopped, with the last word framed."""
        theme, view, n = self.theme, self.view, self.view.steps
        if view.ended:
            end_lines = ["<END> chosen: decoding stops"]
        else:
            # One line (two would push the verdict onto the words written).
            end_lines = [f"{n} steps, without choosing <END>"]
        self.end = _centred_lines(end_lines, theme, TEXT_FONT, theme.decoder)
        self.end.move_to([NOTES_X, 0.1 if self.tall else -0.75, 0], aligned_edge=UP)
        self.end.shift(LEFT * max(0.0, self.end.get_right()[0] - SAFE_EDGE))  # a long note stays inside
        last = SurroundingRectangle(self.rows.written_box(n - 1), color=theme.highlight, buff=0.05)
        self.play(Create(last), fade_in(self.end))
        self.wait(1.0)
        if n == 1:
            self.play(fade_out(self.start), run_time=0.5)

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
        verdict.shift(LEFT * max(0.0, verdict.get_right()[0] - SAFE_EDGE))
        if view.reference is None:
            self.play(fade_in(verdict))
            self.pause_on_result("translation", END_HOLD)
            return
        self.play(*[fade_in(line_names[1]) for line_names in rows.line_names], FadeIn(rows.reference, lag_ratio=0.1))
        marks = VGroup()
        for i in view.mismatches:
            for box in (rows.written_box(i), rows.reference_box(i)):
                if box is not None:
                    marks.add(SurroundingRectangle(box, color=theme.negative, buff=0.04, stroke_width=3))
        self.play(*[Create(m) for m in marks], fade_in(verdict))
        # The poster: the whole decoder, its last step, the words written against the reference.
        self.pause_on_result("translation", END_HOLD)

    # -- builders -------------------------------------------------------------

    def _rows(self) -> "ComparedRows":
        view = self.view
        names = ("written:", "reference:" if view.network == "gru" else "target:")
        return ComparedRows(view.chosen, view.reference or (), names, self.theme)

    def _network_note(self):
        theme, view = self.theme, self.view
        text = reader_note(self.trace)
        if view.trained:
            # The title and the cell name the network: the note says what matters here.
            text = f"without attention: all the decoder sees of the sentence is h{subscript(len(self.trace.source_tokens))}"
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

    def _state_column(self, values, key: str, t: int, x: float, digits: bool = False) -> VectorColumn:
        name = f"s{subscript(t)}"
        if digits:
            return self._column(values, key, name, self.theme.decoder, x)
        return self._chip(values, name, self.theme.decoder, x)

    def _op_column(self, t: int) -> VectorColumn:
        """The embedding of the word fed in at step t + 1: a chip (its digits are the French
        embeddings' rows, read in output_mapping)."""
        view = self.view
        return self._chip(view.input_embeddings[t], f"{self.word_name}{subscript(t)}",
                          self.theme.target_embedding, OP_X, scale=self.op_scale)

    def _chip(self, values, name: str, colour, x: float, scale: float = 1.0) -> VectorColumn:
        """A vector as a chip as tall as a column of digits, centred on the working row at ``x``."""
        rows = len(kept_indices(len(values), 8))
        chip = chip_column(values, self.theme, name, colour, scale, CELL_H * rows, slant="ITALIC")
        chip.label.next_to(chip.frame, UP, buff=0.08)
        return chip.shift([x, WORK_Y, 0] - chip.frame.get_center())

    def _column(self, values, key: str, name: str, colour, x: float) -> VectorColumn:
        """A vector on the working row, named in plain text above it (no
        LaTeX run per step: the names change every step)."""
        col = VectorColumn(values, self.theme, key=key, colour=colour, cell_width=CELL_W, cell_height=CELL_H)
        _place(col, x)
        col.label = caption(name, self.theme, 24, colour, slant="ITALIC").next_to(col.frame, UP, buff=0.08)
        col.add(col.label)
        return col

    def _lane_y(self) -> float:
        """The free band between the inputs (their meanings) and the words written: words travel along it."""
        if self.tall:  # the meanings make room at step 1; the word fed back takes their row, clear of
            # the rows' names ("written:") that reach up into it when two pairs of rows wrap
            return max(self.meanings.get_y(), self.rows.get_top()[1] + 0.28)
        return (self.meanings.get_bottom()[1] + self.rows.get_top()[1]) / 2

    def _carry_word(self, word, slot_word, slot_box, what: str, src, dst, reveal: bool = True):
        """A word travels to where it is used next: itself, along the lane, when the way is
        clear (one line of words written); over two lines its box flies (a text would cross
        the words written) and the word fades in at its place."""
        if not self.wrapped:
            return feed_back(word, slot_word, lane_y=self._lane_y(), reveal=reveal, what=what, src=src, dst=dst)
        frame = SurroundingRectangle(word, color=self.theme.target_embedding, buff=0.08, stroke_width=2)
        goal = SurroundingRectangle(slot_word, color=self.theme.target_embedding, buff=0.08, stroke_width=2)
        arrive = [fade_in(slot_box if slot_box is not None else slot_word, rate_func=window(0.6, 1.0))] \
            if reveal else []
        return moved(Transform(frame, goal, remover=True), *arrive, what=what, src=src, dst=dst)

    def _op_word(self, t: int):
        """The word fed in, under "previous word" (above the words written: the lane it comes back along)."""
        word = readable_text(self.view.input_words[t], self.theme, TEXT_FONT, max_width=S_PREV_X - OP_X + 1.1,
                             colour=self.theme.target_embedding)
        return word.move_to([self.inputs_left + 0.15, self._lane_y(), 0], aligned_edge=LEFT)

    def _chosen(self, t: int):
        """The word chosen at step t, its probability, and a bar as long as it."""
        view, theme = self.view, self.theme
        word = readable_text(view.chosen[t - 1], theme, 26, max_width=2.6)
        # Left-aligned where the mapping's arrow ends: one arrow serves every word.
        word.move_to([WORD_X - 1.2, WORK_Y - 0.1, 0], aligned_edge=LEFT)
        p = view.chosen_probabilities[t - 1]
        number = VGroup(caption("p =", theme, TEXT_FONT, theme.muted),
                        NumberLabel(p, theme, view.chosen_probability_keys[t - 1], font_size=TEXT_FONT))
        # Above the word: under it is the way the word goes down to the words written.
        on_baseline(number.arrange(RIGHT, buff=0.2))  # "p" has a descender; "=" spaced as in "p = 0.81"
        number.move_to([WORD_X - 1.2, word.get_top()[1] + 0.2, 0], aligned_edge=DOWN + LEFT)
        # The bar's length is p times the track's: layout, not arithmetic shown as a number.
        track = Rectangle(width=PROB_BAR_W, height=0.16, stroke_color=theme.muted, stroke_width=1)
        bar = Rectangle(width=max(PROB_BAR_W * float(p), 0.01), height=0.16, stroke_width=0,
                        fill_color=theme.weight, fill_opacity=1)
        track.next_to(number, UP, buff=0.12)
        bar.move_to(track.get_left(), aligned_edge=LEFT)
        return word, VGroup(number, track, bar)


PROB_BAR_W = 1.6


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

        def named() -> VGroup:
            return VGroup(*[caption(t, theme, font_size, theme.muted) for t in names])

        self.names = named()
        name_w = max(m.width for m in self.names) + 0.3
        room = max_width - name_w

        def build(word_w: float):
            slots = []
            for i in range(n):
                slots.append([word_box(words[i], theme, colour, font_size, max_width=word_w)
                              if i < len(words) else None
                              for words, colour in ((written, theme.target_embedding), (reference, theme.muted))])
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
        #: Each line's first position and its pair of names: a wrapped pair is named as the first is
        #: (the reader sees two pairs of rows, not one pair and two rows without names).
        self.line_starts = [line[0] for line in lines]
        self.line_names = [self.names] + [named() for _ in lines[1:]]
        self._lay_out(lines, slots, widths, pairs=bool(reference))
        self.move_to([0, 0, 0])

    def _lay_out(self, lines: list[list[int]], slots: list, widths: list[float], pairs: bool) -> None:
        """Each line's names, then its slots left to right, a line under the one before."""
        self._written: dict[int, VGroup] = {}
        self._reference: dict[int, VGroup] = {}
        self.written, self.reference = VGroup(), VGroup()
        y = 0.0
        for line, line_names in zip(lines, self.line_names):
            for r, name in enumerate(line_names):
                name.next_to([0, 0, 0], LEFT, buff=0.3).set_y(y - r * ROW_PITCH)
                self.add(name)
            x = 0.0
            for i in line:
                for r, item in enumerate(slots[i]):
                    if item is not None:
                        item.move_to([x + widths[i] / 2, y - r * ROW_PITCH, 0])
                        (self._written, self._reference)[r][i] = item
                        (self.written, self.reference)[r].add(item)
                x += widths[i] + SLOT_GAP
            # Without a reference each line is one row of words, not a pair.
            y -= (2 if pairs else 1) * ROW_PITCH + PAIR_GAP
        self.add(self.written, self.reference)

    def written_box(self, i: int):
        return self._written.get(i)

    def names_of_line_starting_at(self, i: int) -> VGroup | None:
        """The pair of names of the wrapped line whose first position is ``i`` (None: ``i`` starts
        no line after the first)."""
        for start, line_names in zip(self.line_starts[1:], self.line_names[1:]):
            if start == i:
                return line_names
        return None

    def reference_box(self, i: int):
        return self._reference.get(i)
