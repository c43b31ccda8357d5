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
    Animation,
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
    Transform,
    VGroup,
)

from attention_core.formatting import sum_sign

from .base import FINAL_HOLD, SAFE_EDGE, WalkthroughScene, reading_time
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
from .motion import cell_boxes, fly, moved, ring_to, window
from .picked_rows import PickedRowsMatrix, elided_cell, pick_cols, pick_rows
from .part1_words import DIGITS_DIM, digits_in, reader_note, to_opacity
from .seq2seq_view import output_view

__all__ = ["OutputMappingScene"]

TITLE_Y = 3.55
NOTE_Y = 3.0
STATE_Y = 1.95  # s_t as a row above the embedding matrix
TOP_ROW_Y = 1.25  # the first word's row
FOOT_Y = -3.1
MAX_ROWS = 8  # rows 0.4 high: a word label (accents, descenders) stays at 20 pt
MAX_COLS = 5  # wider states show their first 3 numbers, dots and the last (room for the words at 24 pt)
BAR_W = 1.5
SOFTMAX_GAP = 1.6
PROB_W = 1.0  # "0.87" at 24 pt keeps both decimals (one rounding with decoder)
TEXT_FONT = 24  # over the legibility floor: 14 px capitals at 480p
WIDTH = 13.9  # of the frame's 14.2, what the table may use
# The translator: the top-ranked words, then dots for the rest.
TOP_WORDS = 7
TERMS_Y = -3.4  # one dot product term by term (gone before the result comes)
RESULT_Y = -3.35
#: Seconds per score after the first: the ring moves to the row, the score arrives.
SCORE_STEP = 0.45
#: Products carried one at a time into the chosen word's line; the rest go together, faster.
SLOW_PRODUCTS = 2


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
        self.score_the_chosen_word()      # its products carried into s_t . e_w, the sum into its cell
        self.score_every_other_word()     # the ring down the other rows, one score each
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
            math_label(r"p_w = \mathrm{softmax}_w(s_t \cdot e_w)", theme, 34),
        ).arrange(RIGHT, buff=0.45)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        said = reader_note(self.trace) + f", step {t}"
        if "untrained" in said:
            said += ": not a translation"
        colour = theme.highlight if view.untrained else theme.muted
        note = caption(said, theme, TEXT_FONT, colour)
        if note.width > 2 * SAFE_EDGE:
            # Long unknown words: one line at the floor size, without their list.
            note = caption(re.sub(r" \([^)]*\)", "", said), theme, TEXT_FONT, colour)
        fit_within(note, max_width=2 * SAFE_EDGE).move_to([0, NOTE_Y, 0])
        # The first frame is the title, never black.
        self.add(title, note)

        self._keep(V=V, cols=cols, key=key, m=m, slots=slots, t=t, theme=theme)

    def _embedding_table(self) -> tuple:
        """The rows e_w shown (the most probable first, dots for the rest) laid out with
        room right of them for the scores, the probabilities and the bars; nothing played."""
        (V, cols, key, m, slots, theme) = self._take('V cols key m slots theme')
        # The most probable words stay visible when the vocabulary is elided.
        if V <= MAX_ROWS:
            rows = pick_rows(V, list(m.ranked[:3]), MAX_ROWS)
        else:
            rows = [*m.ranked[:TOP_WORDS], None]
        cell_h = min(0.4, (TOP_ROW_Y - FOOT_Y - 0.5) / len(rows))
        kept = [i for i in rows if i is not None]
        cell_w, font, score_w = self._widths([*m.state, *m.embeddings[kept].ravel()], m.scores[kept], slots)
        # Word labels get the width the rest leaves (long words stay readable
        # when the embeddings are short); a word longer than that is cut
        # with an ellipsis at the floor size, never shrunk below it.
        rest = 0.25 + slots * cell_w + 0.1 + 0.55 + score_w + SOFTMAX_GAP + PROB_W + 0.15 + BAR_W
        label_w = min(max(WIDTH - rest, 1.2), 2.8)
        labels = list(m.vocabulary)
        for i in kept:
            labels[i] = readable_text(labels[i], theme, TEXT_FONT, max_width=label_w).original_text
        matrix = PickedRowsMatrix(m.embeddings, theme, key("embeddings"), rows, labels,
                                  theme.target_embedding, cell_w, cell_h, font, label_size=TEXT_FONT,
                                  label_width=label_w, cols=cols)
        # Total width: matrix (with labels), "=" gap, scores, softmax gap, probabilities, bars.
        total = matrix.width + 0.55 + score_w + SOFTMAX_GAP + PROB_W + 0.15 + BAR_W
        matrix.move_to([-total / 2 + matrix.width / 2, 0, 0])
        matrix.shift(UP * (TOP_ROW_Y - matrix.grid[0].get_y()))
        return matrix, cell_w, cell_h, font, score_w, total, len(kept)

    def _rows_note(self, shown: int) -> VGroup:
        """What the rows are ("rows: e_w, most probable first ..."), e_w typeset."""
        V, theme = self._take('V theme')
        if V > shown:
            before, after = "rows:", f", most probable first, of {V} French words"
        else:
            before, after = "rows: the embeddings", f"of all {V} French words"
        e_w = math_label("e_w", theme, TEXT_FONT * 1.5, theme.target_embedding)
        e_w.spoken = "e_w"
        count = read_as_line(on_baseline(VGroup(
            caption(before, theme, TEXT_FONT, theme.muted), e_w,
            caption(after, theme, TEXT_FONT, theme.muted)).arrange(RIGHT, buff=0.1)))
        count[2].shift(LEFT * 0.08 if after.startswith(",") else 0)
        return fit_within(count, max_width=WIDTH - 3.0)

    def show_state_and_embeddings(self) -> None:
        """s_t above the embedding rows e_w (the most probable first), and what the rows are."""
        (cols, key, m, slots, t, theme) = self._take('cols key m slots t theme')
        matrix, cell_w, cell_h, font, score_w, total, shown = self._embedding_table()
        grid_left = matrix.frame.get_left()[0] + 0.05
        state = VGroup(*[
            ValueCell(m.state[j], theme, (key("state"), j), cell_w, 0.4, 1.0, True, font) if j is not None
            else elided_cell(theme, cell_w, 0.4, font)
            for j in cols
        ]).arrange(RIGHT, buff=0).move_to([grid_left + slots * cell_w / 2, STATE_Y, 0])
        state_frame = SurroundingRectangle(state, color=theme.decoder, buff=0.04, stroke_width=3)
        state_name = math_label(f"s_{{{t}}}", theme, 34, theme.decoder).next_to(state_frame, LEFT, buff=0.2)
        # What the rows are, said while the table comes in (and stays to the end).
        count = self._rows_note(shown)
        count.next_to(matrix.frame, DOWN, buff=0.15).align_to(matrix.labels, LEFT)
        # The rows' digits are there but not read: each row is its tints until it is scored.
        digits_in(matrix).set_opacity(DIGITS_DIM)
        self.play(fade_in(matrix), fade_in(VGroup(state, state_frame, state_name)), fade_in(count))
        self._keep(cell_h=cell_h, count=count, font=font, matrix=matrix, prob_w=PROB_W, score_w=score_w,
                   softmax_gap=SOFTMAX_GAP, state=state, total=total)

    def _score_column(self) -> None:
        """The scores column, the probabilities and their bars, laid out level with the rows
        (nothing played): the slots the next beats fill."""
        (cell_h, font, key, m, matrix, prob_w, score_w, softmax_gap, t, theme) = self._take(
            'cell_h font key m matrix prob_w score_w softmax_gap t theme')
        score_x = matrix.frame.get_right()[0] + 0.55 + score_w / 2
        prob_x = score_x + score_w / 2 + softmax_gap + prob_w / 2
        bar_x = prob_x + prob_w / 2 + 0.15
        # At the formula floor, never shrunk under it (it may overhang its column a little).
        score_head = math_label(rf"s_{{{t}}} \cdot e_w", theme, 34, theme.text).move_to([score_x, STATE_Y, 0])
        prob_head = caption("probability", theme, TEXT_FONT, theme.weight)
        prob_head.move_to([prob_x - prob_w / 2 + prob_head.width / 2, STATE_Y, 0])
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
            equals[i] = caption("=", theme, TEXT_FONT, theme.muted).move_to(
                [(matrix.frame.get_right()[0] + score_x - score_w / 2) / 2, y, 0])
        self._keep(bar_x=bar_x, bars=bars, c=m.chosen_id, equals=equals, order=list(scores),
                   prob_head=prob_head, prob_x=prob_x, probs=probs, score_head=score_head,
                   score_x=score_x, scores=scores)

    def score_the_chosen_word(self) -> None:
        """s_t . e_w for the most probable word, term by term (the clip's close-up): the first
        products carried one by one from s_t and e_w into the line, the rest faster, the sum
        into its cell; the row's digits then go back to tints."""
        # At most 19 numbers read at once here (s_t, the row, the line): no close-up needed.
        self._score_one()
        c, matrix = self._take('c matrix')
        self.play(*to_opacity(digits_in(matrix.row(c)), DIGITS_DIM), run_time=0.4)

    def _score_one(self) -> None:
        self._score_column()
        (c, equals, key, matrix, score_head, scores, state, theme) = self._take(
            'c equals key matrix score_head scores state theme')
        self.play(fade_in(score_head))
        focus = SurroundingRectangle(VGroup(matrix.row(c), state), color=theme.highlight, buff=0.04)
        # The close-up: this one row's digits read against s_t's, term by term.
        self.play(Create(focus), *to_opacity(digits_in(matrix.row(c)), 1.0), run_time=0.5)
        terms = self._dot_terms(c, self.stage["font"])
        if terms is None:  # too wide for one line: the score arrives from its row
            self.play(fade_in(scores[c], shift=RIGHT * 0.2), fade_in(equals[c]), run_time=0.6)
        else:
            start = self.time
            self.play(fade_in(terms.head), run_time=0.5)
            for n, (slot, part) in enumerate(terms.slots):
                if n == SLOW_PRODUCTS:
                    break
                self.play(self._carry_product(c, slot, part), run_time=0.8)
            rest = [self._carry_product(c, slot, part) for slot, part in terms.slots[SLOW_PRODUCTS:]]
            if rest:
                self.play(LaggedStart(*rest, lag_ratio=0.3), run_time=min(1.6, 0.5 + 0.3 * len(rest)))
            self.play(fade_in(terms.tail), run_time=0.5)
            # Held to be read (1 s per 3 words, numbers counted), counting the time it has been
            # on screen and the sum's flight and the fade it stays for; a frame's slack over.
            shown_for = self.time - start + 0.6 + 0.3
            self.wait(max(0.8, reading_time(terms.text) - shown_for + 0.1))
            # The sum travels from the end of the line into its row's score cell.
            self.play(fly(SurroundingRectangle(terms.total, color=theme.muted, buff=0.04), scores[c], what="sum", src="terms",
                          dst=(key("scores"), c)), fade_in(equals[c]), run_time=0.6)
            self.play(fade_out(terms), run_time=0.3)
        self._keep(focus=focus)

    def _carry_product(self, c: int, slot: int, part: VGroup) -> Animation:
        """s_k and e_k (box copies, no digits in flight) travel down into their product's
        place in the line, which fades in as they land (with its "+")."""
        m, matrix, state = self._take('m matrix state')
        cells = VGroup(state[slot], matrix.row(c)[slot])
        number = part[-1]
        goal = Rectangle(width=number.width + 0.12, height=number.height + 0.14, stroke_width=2,
                         stroke_color=self.theme.muted, fill_opacity=0).move_to(number)
        boxes = VGroup(*(b.copy() for b in cell_boxes(cells)))
        return moved(Transform(boxes, VGroup(goal, goal.copy()), remover=True, rate_func=window(0.0, 0.8)),
                     fade_in(part, rate_func=window(0.6, 1.0)), what="product",
                     src=(self.view.key("state"), m.step, slot), dst=getattr(number, "key", None))

    def score_every_other_word(self) -> None:
        """The other scores one row at a time, the ring going down the rows, so each can be followed."""
        c, equals, focus, matrix, order, scores = self._take('c equals focus matrix order scores')
        for i in (i for i in order if i != c):
            goal = VGroup(matrix.label(i), matrix.row(i), scores[i])
            self.play(ring_to(focus, goal, buff=0.04), fade_in(scores[i], rate_func=window(0.5, 1.0)),
                      fade_in(equals[i], rate_func=window(0.5, 1.0)), run_time=SCORE_STEP)
        self.play(fade_out(focus), run_time=0.3)
        self.pause_on_result("scores")

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
        # The scores, read, go back to tints as their probabilities come.
        scores = self.stage["scores"]
        self.play(LaggedStart(*[fade_in(probs[i]) for i in order], lag_ratio=0.1),
                  LaggedStart(*[GrowFromEdge(bars[i], LEFT) for i in order], lag_ratio=0.1),
                  *to_opacity(digits_in(VGroup(*scores.values())), DIGITS_DIM), run_time=1.5)
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
        # One rounding everywhere: p with the theme's two decimals, as in its cell and in decoder.
        result = read_as_line(VGroup(
            math_label(f"op_{{{t}}} =", theme, 34, theme.target_embedding),
            caption(m.chosen_word, theme, 26, theme.text),
            caption("with p =", theme, TEXT_FONT, theme.muted),
            NumberLabel(m.probabilities[c], theme, (key("probabilities"), c), font_size=TEXT_FONT),
        ).arrange(RIGHT, buff=0.15))
        result.move_to([0, RESULT_Y, 0]).align_to(matrix.labels, LEFT)
        fit_within(result, max_width=13.0)
        self.play(Create(pick), fade_in(result))
        # The poster: the table, its scores, the probabilities as bars, the chosen word.
        self.pause_on_result("word", FINAL_HOLD + 1.0)  # held 5 s: inside STYLE.md 4.9's 4-8


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
        slots: list[tuple[int, VGroup]] = []  # (column slot, its "+", any dots, and its product)
        pending = VGroup()
        for slot, j in enumerate(self.cols):
            if slot:
                parts.append(caption("+", theme, TEXT_FONT, theme.muted))
                pending.add(parts[-1])
            if j is None:
                parts.append(caption("\u2026", theme, TEXT_FONT, theme.muted))
                pending.add(parts[-1])
                continue
            parts.append(NumberLabel(m.products[i, j], theme, (f"{view.key('products')}.{i}", j),
                                     font_size=font))
            slots.append((slot, VGroup(*pending, parts[-1])))
            pending = VGroup()
        # "=" only if the shown terms add up to the shown score (issue 25); a
        # line with elided terms ("\u2026") cannot be redone and keeps "=".
        sign = sum_sign(m.products[i], m.scores[i], theme.decimals) if None not in self.cols else "="
        parts.append(caption(sign, theme, TEXT_FONT, theme.muted))
        parts.append(NumberLabel(m.scores[i], theme, (view.key("scores"), i), font_size=font))
        line = read_as_line(VGroup(*parts).arrange(RIGHT, buff=0.12))
        if line.width > 13.4:
            return None
        # The parts in the order they arrive: the head, the products (each with its "+"), the sum.
        line.head, line.slots, line.total = parts[0], slots, parts[-1]
        line.tail = VGroup(*pending, *parts[-2:])
        return line.move_to([0, TERMS_Y, 0])
