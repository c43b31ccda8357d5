"""``output_mapping``: one decoder state mapped to an output word.

Draft 000, "5. Mapping of hidden state -> output word": the decoder state
s_t is compared with every French word's embedding e_w by a dot product,
``scores_w = s_t . e_w`` (nothing else added); the raw scores can be any
size, so a softmax turns them into probabilities that sum to 1, and the
most probable word is op_t. The draft shows s_2 -> op_2; the numbers
file's ``[output_mapping] step`` picks the step.

One code path for whichever network :func:`scenes.seq2seq_view.output_view`
gives (the translator trained without attention, or the untrained tanh RNN
fallback, said so on screen). A large French vocabulary is elided: the most
probable words are shown and dots stand for the rest; one score is spelled
out term by term.
"""

from __future__ import annotations

import re

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    GrowArrow,
    GrowFromEdge,
    LaggedStart,
    Rectangle,
    SurroundingRectangle,
    VGroup,
)

from attention_core.formatting import sum_sign

from .base import FINAL_HOLD, WalkthroughScene, reading_time
from .components import (
    NumberLabel,
    ValueCell,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    on_baseline,
    read_as_line,
    readable_text,
    subscript,
)
from .motion import fly, ring_to, window
from .picked_rows import PickedRowsMatrix, elided_cell, pick_cols, pick_rows
from .seq2seq_view import network_note, output_view

__all__ = ["OutputMappingScene"]

TITLE_Y = 3.55
NOTE_Y = 3.0
STATE_Y = 1.95  # s_t as a row above the embedding matrix
TOP_ROW_Y = 1.25  # the first word's row
FOOT_Y = -3.1
MAX_ROWS = 8  # rows 0.4 high: a word label (accents, descenders) stays at 20 pt
MAX_COLS = 6  # wider states show their first 4 numbers, dots and the last
BAR_W = 1.5
SOFTMAX_GAP = 1.6
PROB_W = 0.8
TEXT_FONT = 20  # the legibility floor: 12 px capitals at 480p
WIDTH = 13.9  # of the frame's 14.2, what the table may use
# The translator: the top-ranked words, then dots for the rest.
TOP_WORDS = 7
TERMS_Y = -3.4  # one dot product term by term (gone before the result comes)
RESULT_Y = -3.35
#: Seconds per score after the first: the ring moves to the row, the score arrives.
SCORE_STEP = 0.45


class OutputMappingScene(WalkthroughScene):
    scene_id = "output_mapping"
    trace_sections = ("sizes", "source", "plain_model.network", "plain_model.weights", "plain_model.trained",
                      "plain_output_mapping")
    description = ("One decoder state s_t: scores_w = s_t . e_w with every French word's embedding, "
                   "softmax, the most probable word op_t.")
    shown_results = ("scores", "probabilities", "word")

    def construct(self) -> None:
        self.stage: dict = {}
        self.set_stage()                  # the title and the network's note: the first frame
        self.show_state_and_embeddings()  # s_t above the rows e_w
        self.score_every_word()           # s_t . e_w, one row at a time
        self.softmax_the_scores()         # probabilities and bars, all sum to 1
        self.pick_the_word()              # op_t, the poster

    def _take(self, names: str) -> tuple:
        """Values an earlier beat laid out (``self.stage``), by name."""
        return tuple(self.stage[n] for n in names.split())

    def _keep(self, **values: object) -> None:
        """What a later beat reads: the on-screen slots and sizes this beat made."""
        self.stage.update(values)

    def set_stage(self) -> None:
        """The title and what network this is (the first frame); nothing played."""
        self.view = view = output_view(self.trace)
        theme, m = self.theme, view.mapping
        key = view.key
        t = m.step
        V, H = m.embeddings.shape
        # Wide states: the first numbers, dots, the last, in s_t and in every e_w alike.
        self.cols = cols = pick_cols(H, MAX_COLS)
        slots = len(cols)

        title = VGroup(
            caption("Output mapping", theme, 30),
            math_label(rf"s_{{{t}}} \rightarrow op_{{{t}}}", theme, 34),
            math_label(r"p_w = \mathrm{softmax}_w(s_t \cdot e_w)", theme, 30),
        ).arrange(RIGHT, buff=0.45)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        said = network_note(self.trace) + f", decode step {t}"
        if "untrained" in said:
            said += ": not a translation"
        colour = theme.highlight if view.untrained else theme.muted
        note = caption(said, theme, TEXT_FONT, colour)
        if note.width > 13.8:
            # Long unknown words: one line at the floor size, without their list.
            note = caption(re.sub(r" \([^)]*\)", "", said), theme, TEXT_FONT, colour)
        fit_within(note, max_width=13.8).move_to([0, NOTE_Y, 0])
        # The first frame is the title, never black.
        self.add(title, note)

        self._keep(V=V, cols=cols, key=key, m=m, slots=slots, t=t, theme=theme)

    def show_state_and_embeddings(self) -> None:
        """s_t above the embedding rows e_w (the most probable first), and what the rows are."""
        (V, cols, key, m, slots, t, theme,) = self._take('V cols key m slots t theme')
        # The most probable words stay visible when the vocabulary is elided.
        if V <= MAX_ROWS:
            rows = pick_rows(V, list(m.ranked[:3]), MAX_ROWS)
        else:
            rows = [*m.ranked[:TOP_WORDS], None]
        cell_h = min(0.4, (TOP_ROW_Y - FOOT_Y - 0.5) / len(rows))
        kept = [i for i in rows if i is not None]
        cell_w, font, score_w = self._widths([*m.state, *m.embeddings[kept].ravel()], m.scores[kept], slots)
        prob_w = PROB_W
        softmax_gap = SOFTMAX_GAP
        # Word labels get the width the rest leaves (long words stay readable
        # when the embeddings are short); a word longer than that is cut
        # with an ellipsis at the floor size, never shrunk below it.
        rest = 0.25 + slots * cell_w + 0.1 + 0.55 + score_w + softmax_gap + prob_w + 0.15 + BAR_W
        label_w = min(max(WIDTH - rest, 1.2), 2.8)
        labels = list(m.vocabulary)
        for i in kept:
            labels[i] = readable_text(labels[i], theme, TEXT_FONT, max_width=label_w).original_text
        matrix = PickedRowsMatrix(m.embeddings, theme, key("embeddings"), rows, labels,
                                  theme.target_embedding, cell_w, cell_h, font, label_size=TEXT_FONT,
                                  label_width=label_w, cols=cols)
        # Total width: matrix (with labels), "=" gap, scores, softmax gap, probabilities, bars.
        total = matrix.width + 0.55 + score_w + softmax_gap + prob_w + 0.15 + BAR_W
        left = -total / 2
        matrix.move_to([left + matrix.width / 2, 0, 0])
        matrix.shift(UP * (TOP_ROW_Y - matrix.grid[0].get_y()))
        grid_left = matrix.frame.get_left()[0] + 0.05

        state = VGroup(*[
            ValueCell(m.state[j], theme, (key("state"), j), cell_w, 0.4, 1.0, True, font) if j is not None
            else elided_cell(theme, cell_w, 0.4, font)
            for j in cols
        ]).arrange(RIGHT, buff=0).move_to([grid_left + slots * cell_w / 2, STATE_Y, 0])
        state_frame = SurroundingRectangle(state, color=theme.decoder, buff=0.04, stroke_width=3)
        state_name = math_label(f"s_{{{t}}}", theme, 30, theme.decoder).next_to(state_frame, LEFT, buff=0.2)
        # What the rows are, said while the table comes in (and stays to the end).
        if V > len(kept):
            before, after = "rows:", f", most probable first (dots: the others of the {V} French words)"
        else:
            before, after = "rows: the embeddings", f"of all {V} French words"
        e_w = math_label("e_w", theme, TEXT_FONT * 1.5, theme.target_embedding)
        e_w.spoken = "e_w"
        count = read_as_line(on_baseline(VGroup(
            caption(before, theme, TEXT_FONT, theme.muted), e_w,
            caption(after, theme, TEXT_FONT, theme.muted)).arrange(RIGHT, buff=0.1)))
        count[2].shift(LEFT * 0.08 if after.startswith(",") else 0)
        fit_within(count, max_width=WIDTH - 3.0)
        count.next_to(matrix.frame, DOWN, buff=0.15).align_to(matrix.labels, LEFT)
        self.play(fade_in(matrix), fade_in(VGroup(state, state_frame, state_name)), fade_in(count))

        self._keep(
            cell_h=cell_h, count=count, font=font, matrix=matrix, prob_w=prob_w, score_w=score_w,
            softmax_gap=softmax_gap, state=state, total=total)

    def score_every_word(self) -> None:
        """s_t . e_w: the chosen word's term by term, its sum flying into its cell, then the
        other rows one at a time."""
        (cell_h, font, key, m, matrix, prob_w, score_w, softmax_gap, state, t, theme, total,) = self._take(
            'cell_h font key m matrix prob_w score_w softmax_gap state t theme total')
        score_x = matrix.frame.get_right()[0] + 0.55 + score_w / 2
        prob_x = score_x + score_w / 2 + softmax_gap + prob_w / 2
        bar_x = prob_x + prob_w / 2 + 0.15
        head_y = STATE_Y
        score_head = math_label(rf"s_{{{t}}} \cdot e_w", theme, 32, theme.text).move_to([score_x, head_y, 0])
        prob_head = caption("probability", theme, TEXT_FONT, theme.weight)
        prob_head.move_to([prob_x - prob_w / 2 + prob_head.width / 2, head_y, 0])
        fit_within(score_head, max_width=score_w + 0.5)

        scores, probs, bars, equals = {}, {}, {}, {}
        score_scale = max(float(abs(m.scores).max()), 1e-9)
        for i in matrix.shown_rows:
            y = matrix.row(i).get_y()
            scores[i] = ValueCell(m.scores[i], theme, (key("scores"), i), score_w, cell_h,
                                  score_scale, True, font).move_to([score_x, y, 0])
            probs[i] = ValueCell(m.probabilities[i], theme, (key("probabilities"), i), prob_w,
                                 cell_h, 1.0, True, font, fill=theme.heat(m.probabilities[i])).move_to([prob_x, y, 0])
            # Bar length is p times the bar width: layout, not arithmetic on values.
            bars[i] = Rectangle(width=max(BAR_W * m.probabilities[i], 0.01), height=cell_h * 0.6,
                                stroke_width=0, fill_color=theme.weight,
                                fill_opacity=1).move_to([bar_x, y, 0], aligned_edge=LEFT)
            equals[i] = caption("=", theme, 22, theme.muted).move_to(
                [(matrix.frame.get_right()[0] + score_x - score_w / 2) / 2, y, 0])
        order = list(scores)
        c = m.chosen_id
        self.play(fade_in(score_head))
        # The chosen word's score term by term, then the others.
        terms = self._dot_terms(c, font)
        focus = SurroundingRectangle(VGroup(matrix.row(c), state), color=theme.highlight, buff=0.04)
        self.play(Create(focus), run_time=0.5)
        terms_in, score_in, terms_out = 1.0, 0.6, 0.3
        if terms is not None:
            self.play(fade_in(terms), run_time=terms_in)
            # Held to be read, term by term (1 s per 3 words, numbers counted), counting the
            # fades and the score's entrance it stays on screen for; a frame's slack over.
            on_screen = terms_in + score_in + terms_out
            self.wait(max(0.8, reading_time(terms.text) - on_screen + 0.1))
        if terms is not None:
            # The sum travels from the end of the line into its row's score cell.
            total = terms[-1]
            self.play(fly(SurroundingRectangle(total, buff=0.04), scores[c], what="sum", src="terms",
                          dst=(key("scores"), c)), fade_in(equals[c]), run_time=score_in)
        else:
            self.play(fade_in(scores[c], shift=RIGHT * 0.2), fade_in(equals[c]), run_time=score_in)
        if terms is not None:
            self.play(fade_out(terms), run_time=terms_out)
        # The other scores one row at a time, the ring going down the rows, so each can be followed.
        for i in (i for i in order if i != c):
            goal = VGroup(matrix.label(i), matrix.row(i), scores[i])
            self.play(ring_to(focus, goal, buff=0.04), fade_in(scores[i], rate_func=window(0.5, 1.0)),
                      fade_in(equals[i], rate_func=window(0.5, 1.0)), run_time=SCORE_STEP)
        self.play(fade_out(focus), run_time=0.3)
        self.pause_on_result("scores")

        self._keep(
            bar_x=bar_x, bars=bars, c=c, order=order, prob_head=prob_head, prob_x=prob_x, probs=probs,
            score_x=score_x, scores=scores, total=total)

    def softmax_the_scores(self) -> None:
        """Softmax: the scores become probabilities (numbers and bars) that sum to 1."""
        (V, bar_x, bars, count, key, m, matrix, order, prob_head, prob_w, prob_x, probs, score_w,
         score_x, softmax_gap, theme, total,) = self._take(
            'V bar_x bars count key m matrix order prob_head prob_w prob_x probs score_w score_x '
            'softmax_gap theme total')
        # Softmax: any scores become probabilities that sum to 1.
        top, bottom = matrix.frame.get_top()[1], matrix.frame.get_bottom()[1]
        mid = (top + bottom) / 2
        arrow = Arrow([score_x + score_w / 2 + 0.1, mid, 0], [prob_x - prob_w / 2 - 0.1, mid, 0],
                      buff=0, color=theme.heat_high, stroke_width=4, max_tip_length_to_length_ratio=0.2)
        soft = caption("softmax", theme, TEXT_FONT, theme.heat_high)
        fit_within(soft, max_width=softmax_gap - 0.2).next_to(arrow, UP, buff=0.1)
        self.play(GrowArrow(arrow), fade_in(soft), fade_in(prob_head))
        self.play(LaggedStart(*[fade_in(probs[i]) for i in order], lag_ratio=0.1),
                  LaggedStart(*[GrowFromEdge(bars[i], LEFT) for i in order], lag_ratio=0.1), run_time=1.5)
        # The softmax's promise, checked by the core: all V probabilities sum to 1.
        total = read_as_line(VGroup(
            caption(f"all {V} sum to", theme, TEXT_FONT, theme.muted),
            NumberLabel(m.probability_sum, theme, (key("probability_sum"),), font_size=TEXT_FONT),
        ).arrange(RIGHT, buff=0.12))
        total.next_to(matrix.frame, DOWN, buff=0.15).align_to([bar_x + BAR_W, 0, 0], RIGHT)
        if total.get_left()[0] < count.get_right()[0] + 0.3:
            # A narrow table: the sum goes under the note on the rows, not over it.
            total.next_to(count, DOWN, buff=0.12).align_to([bar_x + BAR_W, 0, 0], RIGHT)
        self.play(fade_in(total), run_time=0.6)
        self.pause_on_result("probabilities")


    def pick_the_word(self) -> None:
        """The word with the highest probability is op_t: the poster."""
        (bars, c, key, m, matrix, probs, scores, t, theme,) = self._take(
            'bars c key m matrix probs scores t theme')
        # The chosen word: the highest probability.
        pick = SurroundingRectangle(VGroup(matrix.label(c), matrix.row(c), scores[c], probs[c], bars[c]),
                                    color=theme.highlight, buff=0.05)
        result = VGroup(
            math_label(f"op_{{{t}}} =", theme, 30, theme.target_embedding),
            caption(m.chosen_word, theme, 26, theme.text),
            caption("with", theme, TEXT_FONT, theme.muted),
            NumberLabel(m.chosen_percent, theme, (key("chosen_percent"),), font_size=22),
            caption("%", theme, 22, theme.text),
        ).arrange(RIGHT, buff=0.15)
        result[4].next_to(result[3], RIGHT, buff=0.05)
        result.move_to([0, RESULT_Y, 0]).align_to(matrix.labels, LEFT)
        fit_within(result, max_width=13.0)
        self.play(Create(pick), fade_in(result))
        # The poster: the table, its scores, the probabilities as bars, the chosen word.
        self.pause_on_result("word", FINAL_HOLD)


    def _widths(self, in_cells, in_column, H: int):
        """Cell width, number font and score-column width: wide enough for
        the longest number shown, narrow enough to fit."""
        fmt = self.theme.fmt
        widest = max(in_cells, key=lambda v: len(fmt(v)))
        widest_col = max(in_column, key=lambda v: len(fmt(v)))
        # One size, the floor: a table too wide shows fewer columns instead (pick_cols).
        font = TEXT_FONT
        cell_w = max(NumberLabel(widest, self.theme, None, font_size=font).width / 0.9 + 0.02, 0.8)
        col_w = max(NumberLabel(widest_col, self.theme, None, font_size=font).width / 0.9 + 0.02, 0.8)
        return cell_w, font, col_w

    def _dot_terms(self, i: int, font: float):
        """``s_t . e_w = p_1 + ... + p_H = score`` for word ``i``, or None if it does not fit.

        The terms follow the shown columns: for a wide state the elided ones
        are one "\u2026", so the line never claims to add up what it hides."""
        theme, view = self.theme, self.view
        m = view.mapping
        word = readable_text(m.vocabulary[i], theme, TEXT_FONT, max_width=2.4).original_text
        parts = [caption(f"s{subscript(m.step)} \u00b7 e({word}) =", theme, TEXT_FONT, theme.text)]
        for slot, j in enumerate(self.cols):
            if slot:
                parts.append(caption("+", theme, TEXT_FONT, theme.muted))
            if j is None:
                parts.append(caption("\u2026", theme, TEXT_FONT, theme.muted))
                continue
            parts.append(NumberLabel(m.products[i, j], theme, (f"{view.key('products')}.{i}", j),
                                     font_size=font))
        # "=" only if the shown terms add up to the shown score (issue 25); a
        # line with elided terms ("\u2026") cannot be redone and keeps "=".
        sign = sum_sign(m.products[i], m.scores[i], theme.decimals) if None not in self.cols else "="
        parts.append(caption(sign, theme, TEXT_FONT, theme.muted))
        parts.append(NumberLabel(m.scores[i], theme, (view.key("scores"), i), font_size=font))
        line = read_as_line(VGroup(*parts).arrange(RIGHT, buff=0.12))
        if line.width > 13.4:
            return None
        return line.move_to([0, TERMS_Y, 0])
