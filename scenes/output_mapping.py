"""``output_mapping``: one decoder state mapped to an output word.

Draft 000, "5. Mapping of hidden state -> output word": the decoder state is
compared with every target-word embedding by a dot product; the raw scores
can be any size, so a softmax turns them into probabilities that sum to 1,
and the most probable word is the output. The draft shows s_2 -> op_2; the
numbers file's ``[output_mapping] step`` picks the step.

By default this is the translator trained without attention
(:func:`scenes.seq2seq_view.output_view`): s_t and the fixed context c first
give ``o_t = W_o [s_t ; c] + b_o``, and each word's score is
``o_t . e_w + b_w``. Its 69 target words are too many to show: the most
probable are shown and dots stand for the rest. When the view gives the
small seeded tanh RNN, s_t itself is compared, as in the draft.
"""

from __future__ import annotations

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
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    VGroup,
    Write,
)

from .base import WalkthroughScene
from .components import (
    CellBox,
    NumberLabel,
    ValueCell,
    VectorColumn,
    arrow_between,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
)
from .picked_rows import PickedRowsMatrix, pick_rows, untrained_note
from .seq2seq_view import output_view

__all__ = ["OutputMappingScene"]

TITLE_Y = 3.55
NOTE_Y = 3.0
STATE_Y = 1.95  # s_t as a row above the embedding matrix
TOP_ROW_Y = 1.25  # the first word's row
FOOT_Y = -3.1
MAX_ROWS = 12
BAR_W = 1.5
# The translator: the top-ranked words, then dots for the rest.
TOP_WORDS = 7
WORK_Y = 0.2  # s_t and c -> o_t, before the table
TERMS_Y = -2.55  # one dot product term by term
RESULT_Y = -3.35


class OutputMappingScene(WalkthroughScene):
    scene_id = "output_mapping"
    trace_sections = ("sizes", "decoder.seeded_weights", "output_mapping", "plain_model",
                      "plain_output_mapping")
    description = ("One decoder state s_t (with c): o_t = W_o [s_t ; c] + b_o, a dot product with every "
                   "target word plus its bias, softmax, the most probable word.")

    def construct(self) -> None:
        self.view = output_view(self.trace)
        if self.view.network == "gru":
            self._translator()
        else:
            self._tanh()

    def _tanh(self) -> None:
        """The small seeded tanh RNN: s_t itself is compared with each embedding."""
        theme, m = self.theme, self.view.mapping
        t = m.step
        V, H = m.embeddings.shape
        cell_w, font = (0.8, 18) if H <= 5 else (0.6, 15)

        title = VGroup(
            caption("Output mapping", theme, 30),
            math_label(rf"s_{{{t}}} \rightarrow op_{{{t}}}", theme, 34),
            math_label(r"p_w = \mathrm{softmax}_w(s_t \cdot e_w)", theme, 30),
        ).arrange(RIGHT, buff=0.45)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        note = untrained_note(self.trace.decoder.seeded, theme, 18).move_to([0, NOTE_Y, 0])
        fit_within(note, max_width=13.4)
        self.play(fade_in(title), fade_in(note))

        # The most probable words stay visible when the vocabulary is elided.
        rows = pick_rows(V, list(m.ranked[:3]), MAX_ROWS)
        cell_h = min(0.4, (TOP_ROW_Y - FOOT_Y) / len(rows))
        score_w, prob_w = 0.8, 0.8
        softmax_gap = 2.4
        # Word labels get the width the rest leaves (long words stay readable
        # when the embeddings are short).
        rest = 0.25 + H * cell_w + 0.55 + score_w + softmax_gap + prob_w + 0.15 + BAR_W
        label_w = min(max(13.5 - rest, 1.5), 2.8)
        matrix = PickedRowsMatrix(m.embeddings, theme, "output_mapping.embeddings", rows, m.vocabulary,
                                  theme.embedding, cell_w, cell_h, font, label_size=20, label_width=label_w)
        # Total width: matrix (with labels), "=" gap, scores, softmax gap, probabilities, bars.
        total = matrix.width + 0.55 + score_w + softmax_gap + prob_w + 0.15 + BAR_W
        left = -total / 2
        matrix.move_to([left + matrix.width / 2, 0, 0])
        matrix.shift(UP * (TOP_ROW_Y - matrix.grid[0].get_y()))
        grid_left = matrix.frame.get_left()[0] + 0.05

        state = VGroup(*[
            ValueCell(m.state[j], theme, ("output_mapping.state", j), cell_w, 0.4, 1.0, True, font)
            for j in range(H)
        ]).arrange(RIGHT, buff=0).move_to([grid_left + H * cell_w / 2, STATE_Y, 0])
        state_frame = SurroundingRectangle(state, color=theme.decoder, buff=0.04, stroke_width=3)
        state_name = math_label(f"s_{{{t}}}", theme, 30, theme.decoder).next_to(state_frame, LEFT, buff=0.2)
        self.play(fade_in(matrix), fade_in(VGroup(state, state_frame, state_name), shift=DOWN * 0.2))

        score_x = matrix.frame.get_right()[0] + 0.55 + score_w / 2
        prob_x = score_x + score_w / 2 + softmax_gap + prob_w / 2
        bar_x = prob_x + prob_w / 2 + 0.15
        head_y = STATE_Y
        score_head = caption("score\ns\u00b7e", theme, 16, theme.muted).move_to([score_x, head_y, 0])
        prob_head = caption("probability", theme, 16, theme.muted).move_to([prob_x, head_y, 0])
        for h in (score_head, prob_head):
            fit_within(h, max_width=1.3, max_height=0.62)

        # Dot products: the first two rows one by one, the rest together.
        scores, probs, bars, equals = {}, {}, {}, []
        for i in matrix.shown_rows:
            y = matrix.row(i).get_y()
            scores[i] = ValueCell(m.scores[i], theme, ("output_mapping.scores", i), score_w, cell_h,
                                  max(abs(m.scores).max(), 1e-9), True, font).move_to([score_x, y, 0])
            probs[i] = ValueCell(m.probabilities[i], theme, ("output_mapping.probabilities", i), prob_w,
                                 cell_h, 1.0, True, font, fill=theme.heat(m.probabilities[i])).move_to([prob_x, y, 0])
            # Bar length is p times the bar width: layout, not arithmetic on values.
            bars[i] = Rectangle(width=max(BAR_W * m.probabilities[i], 0.01), height=cell_h * 0.6,
                                stroke_width=0, fill_color=theme.heat(m.probabilities[i]),
                                fill_opacity=1).move_to([bar_x, y, 0], aligned_edge=LEFT)
            equals.append(math_label("=", theme, 22, theme.muted).move_to(
                [(matrix.frame.get_right()[0] + score_x - score_w / 2) / 2, y, 0]))
        order = list(scores)
        self.play(fade_in(score_head))
        for i in order[:2]:
            focus = SurroundingRectangle(VGroup(matrix.row(i), state), color=theme.highlight, buff=0.04)
            self.play(Create(focus), run_time=0.5)
            self.play(fade_in(scores[i], shift=RIGHT * 0.2), fade_in(equals[order.index(i)]), run_time=0.6)
            self.remove(focus)
        rest = order[2:]
        if rest:
            self.play(LaggedStart(*[fade_in(VGroup(scores[i], equals[order.index(i)])) for i in rest],
                                  lag_ratio=0.15), run_time=1.2)

        # Softmax: any scores become probabilities that sum to 1.
        top, bottom = matrix.frame.get_top()[1], matrix.frame.get_bottom()[1]
        soft = CellBox("softmax", theme, theme.heat_high, width=1.1, height=0.6, font_size=18)
        soft.move_to([(score_x + prob_x) / 2, (top + bottom) / 2, 0])
        a_in = arrow_between(VGroup(*scores.values()), soft.box, theme.muted)
        a_out = arrow_between(soft.box, VGroup(*probs.values()), theme.muted)
        self.play(Create(soft), GrowArrow(a_in), GrowArrow(a_out), fade_in(prob_head))
        self.play(LaggedStart(*[fade_in(probs[i]) for i in order], lag_ratio=0.1),
                  LaggedStart(*[GrowFromEdge(bars[i], LEFT) for i in order], lag_ratio=0.1), run_time=1.5)
        total_label = VGroup(caption(f"all {V} sum to", theme, 16, theme.muted),
                             NumberLabel(m.probability_sum, theme, ("output_mapping.probability_sum",),
                                         font_size=18)).arrange(RIGHT, buff=0.12)
        total_label.next_to(matrix.frame, DOWN, buff=0.18)
        total_label.align_to([bar_x + BAR_W, 0, 0], RIGHT)
        self.play(fade_in(total_label))

        # The chosen word: the highest probability.
        c = m.chosen_id
        pick = SurroundingRectangle(VGroup(matrix.label(c), matrix.row(c), scores[c], probs[c], bars[c]),
                                    color=theme.highlight, buff=0.05)
        result = VGroup(
            math_label(f"op_{{{t}}} =", theme, 30, theme.decoder),
            caption(m.chosen_word, theme, 26, theme.text),
            caption("with", theme, 20, theme.muted),
            NumberLabel(m.chosen_percent, theme, ("output_mapping.chosen_percent",), font_size=22),
            caption("%", theme, 22, theme.text),
        ).arrange(RIGHT, buff=0.15)
        result[4].next_to(result[3], RIGHT, buff=0.05)
        result.next_to(matrix.frame, DOWN, buff=0.15).align_to(matrix.labels, LEFT)
        fit_within(result, max_width=total_label.get_left()[0] - 0.35 - result.get_left()[0])
        result.align_to(matrix.labels, LEFT)
        self.play(Create(pick), Write(result))
        self.wait(1.5)

    # -- the translator -----------------------------------------------------

    def _translator(self) -> None:
        """o_t = W_o [s_t ; c] + b_o, then o_t . e_w + b_w for every word."""
        theme, view = self.theme, self.view
        m, sec = view.mapping, view.section
        t = m.step
        V, E = m.embeddings.shape
        H = len(m.state)
        key = lambda name: f"{sec}.{name}"  # noqa: E731

        title = VGroup(
            caption("Output mapping", theme, 30),
            math_label(rf"s_{{{t}}} \rightarrow y_{{{t}}}", theme, 34),
            math_label(r"p_w = \mathrm{softmax}_w(o_t \cdot e_w + b_w)", theme, 30),
        ).arrange(RIGHT, buff=0.45)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        if view.untrained:
            text = "Untrained (seeded random) translator weights: the chosen word is not a translation."
        else:
            text = "The translator trained without attention, decode step " + str(t) + "."
        note = caption(text, theme, 18, theme.muted)
        fit_within(note, max_width=13.4).move_to([0, NOTE_Y, 0])
        self.play(fade_in(title), fade_in(note))

        # Step 1: the state and the fixed context give the output vector o_t.
        cell_h = 0.36 if max(H, E) <= 6 else 0.3
        s_col = VectorColumn(m.state, theme, key=key("state"), label=f"s_{{{t}}}", colour=theme.decoder,
                             cell_width=0.86, cell_height=cell_h, label_size=28)
        c_col = VectorColumn(m.context, theme, key=key("context"), label="c", colour=theme.encoder,
                             cell_width=0.86, cell_height=cell_h, label_size=28)
        o_col = VectorColumn(m.output, theme, key=key("output"), label=f"o_{{{t}}}", colour=theme.decoder,
                             cell_width=0.86, cell_height=cell_h, label_size=28)
        for col, x in ((s_col, -5.0), (c_col, -3.85), (o_col, 2.6)):
            col.shift([x, WORK_Y, 0] - col.frame.get_center())
        joined = SurroundingRectangle(VGroup(s_col, c_col), color=theme.muted, buff=0.15, corner_radius=0.12)
        joined_name = math_label(rf"[\,s_{{{t}}}\,;\,c\,]", theme, 26, theme.muted).next_to(joined, DOWN, 0.15)
        mix = VGroup(RoundedRectangle(corner_radius=0.2, width=3.1, height=1.0, stroke_color=theme.decoder,
                                      stroke_width=4, fill_color=theme.decoder, fill_opacity=0.12),
                     math_label(r"W_o\,[\,s_t\,;\,c\,] + b_o", theme, 28))
        fit_within(mix[1], max_width=2.8)
        mix.move_to([-0.7, WORK_Y, 0])
        a_in = arrow_between(joined, mix[0], theme.decoder)
        a_out = arrow_between(mix[0], o_col.frame, theme.decoder)
        why = caption("the vector compared\nwith every target\nword's embedding", theme, 16, theme.muted)
        fit_within(why, max_width=2.6).next_to(o_col.frame, RIGHT, buff=0.3)
        self.play(fade_in(s_col), fade_in(c_col), Create(joined), fade_in(joined_name))
        self.play(Create(mix), GrowArrow(a_in))
        self.play(GrowArrow(a_out), fade_in(o_col, shift=RIGHT * 0.2), fade_in(why))
        self.wait(0.5)

        # Step 2: o_t against the top-ranked words' embeddings.
        rows = [*m.ranked[:min(TOP_WORDS, V)], *([None] if V > TOP_WORDS else [])]
        row_h = min(0.38, (TOP_ROW_Y - FOOT_Y - 1.0) / len(rows))
        label_w = 1.5
        kept = [i for i in rows if i is not None]
        cell_w, font, col_w, op_w, soft_gap = self._widths(
            [*m.output, *m.embeddings[kept].ravel()],
            [*m.dot_products[kept], *m.bias[kept], *m.scores[kept]], E, label_w)
        prob_w = 0.72
        matrix = PickedRowsMatrix(m.embeddings, theme, key("embeddings"), rows, m.vocabulary, theme.embedding,
                                  cell_w, row_h, font, label_size=20, label_width=label_w)
        # Columns right of the table: o.e  +  bias  =  score  -> softmax ->  probability.
        rest = op_w + col_w + op_w + col_w + op_w + col_w + soft_gap + prob_w
        left = -(matrix.width + rest) / 2
        matrix.move_to([left + matrix.width / 2, 0, 0])
        matrix.shift(UP * (TOP_ROW_Y - matrix.grid[0].get_y()))
        x = matrix.frame.get_right()[0]
        xs = {}
        for name, w in (("eq1", op_w), ("dot", col_w), ("plus", op_w), ("bias", col_w), ("eq2", op_w),
                        ("score", col_w), ("soft", soft_gap), ("prob", prob_w)):
            xs[name] = x + w / 2
            x += w
        grid_left = matrix.frame.get_left()[0] + 0.05
        o_row = VGroup(*[
            ValueCell(m.output[j], theme, (key("output"), j), cell_w, 0.4, 1.0, True, font) for j in range(E)
        ]).arrange(RIGHT, buff=0).move_to([grid_left + E * cell_w / 2, STATE_Y, 0])
        o_frame = SurroundingRectangle(o_row, color=theme.decoder, buff=0.04, stroke_width=3)
        o_name = math_label(f"o_{{{t}}}", theme, 30, theme.decoder).next_to(o_frame, LEFT, buff=0.2)
        self.play(fade_out(VGroup(s_col, c_col, joined, joined_name, mix, a_in, a_out, why)),
                  ReplacementTransform(o_col.cells, o_row), ReplacementTransform(o_col.frame, o_frame),
                  ReplacementTransform(o_col.label, o_name))
        self.play(fade_in(matrix))

        heads = VGroup()
        for name, text in (("dot", "o\u00b7e"), ("bias", "bias"), ("score", "score"), ("prob", "probability")):
            h = caption(text, theme, 16, theme.muted).move_to([xs[name], STATE_Y, 0])
            heads.add(fit_within(h, max_width=1.3, max_height=0.5))
        dot_scale = max(float(abs(m.dot_products).max()), 1e-9)
        score_scale = max(float(abs(m.scores).max()), 1e-9)
        cells = {}
        for i in matrix.shown_rows:
            y = matrix.row(i).get_y()
            cells[i] = VGroup(
                math_label("=", theme, 22, theme.muted).move_to([xs["eq1"], y, 0]),
                ValueCell(m.dot_products[i], theme, (key("dot_products"), i), col_w, row_h, dot_scale, True,
                          font).move_to([xs["dot"], y, 0]),
                math_label("+", theme, 22, theme.muted).move_to([xs["plus"], y, 0]),
                ValueCell(m.bias[i], theme, (key("bias"), i), col_w, row_h, score_scale, True,
                          font).move_to([xs["bias"], y, 0]),
                math_label("=", theme, 22, theme.muted).move_to([xs["eq2"], y, 0]),
                ValueCell(m.scores[i], theme, (key("scores"), i), col_w, row_h, score_scale, True,
                          font).move_to([xs["score"], y, 0]),
            )
        order = matrix.shown_rows
        c = m.chosen_id
        # The first row's dot product, term by term, when it fits.
        terms = self._dot_terms(c, font)
        self.play(fade_in(heads[:3]))
        focus = SurroundingRectangle(VGroup(matrix.row(c), o_row), color=theme.highlight, buff=0.04)
        self.play(Create(focus), run_time=0.5)
        if terms is not None:
            self.play(fade_in(terms))
        self.play(fade_in(cells[c]), run_time=0.6)
        self.remove(focus)
        others = [i for i in order if i != c]
        self.play(LaggedStart(*[fade_in(cells[i]) for i in others], lag_ratio=0.12), run_time=1.2)

        # Softmax over all V words (only the shown rows are drawn).
        top, bottom = matrix.frame.get_top()[1], matrix.frame.get_bottom()[1]
        probs = {}
        for i in order:
            probs[i] = ValueCell(m.probabilities[i], theme, (key("probabilities"), i), prob_w, row_h, 1.0,
                                 True, font, fill=theme.heat(m.probabilities[i])).move_to(
                [xs["prob"], matrix.row(i).get_y(), 0])
        # The gap is narrow: softmax is a labelled arrow from scores to probabilities.
        mid = (top + bottom) / 2
        arrow = Arrow([xs["soft"] - soft_gap / 2 + 0.1, mid, 0], [xs["soft"] + soft_gap / 2 - 0.1, mid, 0],
                      buff=0, color=theme.heat_high, stroke_width=4, max_tip_length_to_length_ratio=0.2)
        soft = caption("softmax", theme, 17, theme.heat_high)
        fit_within(soft, max_width=soft_gap - 0.1).next_to(arrow, UP, buff=0.1)
        self.play(GrowArrow(arrow), fade_in(soft), fade_in(heads[3]))
        self.play(LaggedStart(*[fade_in(probs[i]) for i in order], lag_ratio=0.1), run_time=1.2)
        count = caption(f"{V} target words, most probable first; the dots stand for the other ones",
                        theme, 16, theme.muted)
        fit_within(count, max_width=13.0).next_to(matrix.frame, DOWN, buff=0.15).align_to(matrix.labels, LEFT)
        self.play(fade_in(count))

        # The chosen word: the highest probability.
        pick = SurroundingRectangle(VGroup(matrix.label(c), matrix.row(c), cells[c], probs[c]),
                                    color=theme.highlight, buff=0.05)
        result = VGroup(
            math_label(f"y_{{{t}}} =", theme, 30, theme.decoder),
            caption(m.chosen_word, theme, 26, theme.text),
            caption("with", theme, 20, theme.muted),
            NumberLabel(m.chosen_percent, theme, (key("chosen_percent"),), font_size=22),
            caption("%", theme, 22, theme.text),
        ).arrange(RIGHT, buff=0.15)
        result[4].next_to(result[3], RIGHT, buff=0.05)
        result.move_to([0, RESULT_Y, 0]).align_to(matrix.labels, LEFT)
        fit_within(result, max_width=13.0)
        self.play(Create(pick), Write(result))
        self.wait(1.5)

    def _widths(self, in_cells, in_columns, E: int, label_w: float):
        """Cell width, number font, score-column width, operator width and
        softmax gap: wide enough for the longest number shown (o_t can
        reach two digits before the point) and narrow enough to fit."""
        fmt = self.theme.fmt
        widest = max(in_cells, key=lambda v: len(fmt(v)))
        widest_col = max(in_columns, key=lambda v: len(fmt(v)))
        for font in ((18, 15, 14) if E <= 5 else (15, 14)):
            need = NumberLabel(widest, self.theme, None, font_size=font).width / 0.9 + 0.02
            cell_w = max(need, 0.8 if font == 18 else 0.66)
            col_w = max(NumberLabel(widest_col, self.theme, None, font_size=font).width / 0.9 + 0.02, 0.8)
            for op_w, soft_gap in ((0.38, 1.35), (0.3, 1.15)):
                total = label_w + 0.15 + E * cell_w + 3 * op_w + 3 * col_w + soft_gap + 0.72
                if total <= 13.5:
                    return cell_w, font, col_w, op_w, soft_gap
        return cell_w, font, col_w, op_w, soft_gap

    def _dot_terms(self, i: int, font: float):
        """``o_t . e_w = p_1 + ... + p_E = dot`` for word ``i``, or None if it does not fit."""
        theme, m, sec = self.theme, self.view.mapping, self.view.section
        parts = [caption(f"o{subscript(m.step)} \u00b7 e({m.vocabulary[i]}) =", theme, 17, theme.muted)]
        for j in range(m.products.shape[1]):
            if j:
                parts.append(caption("+", theme, 17, theme.muted))
            parts.append(NumberLabel(m.products[i, j], theme, (f"{sec}.products.{i}", j), font_size=font + 1))
        parts.append(caption("=", theme, 17, theme.muted))
        parts.append(NumberLabel(m.dot_products[i], theme, (f"{sec}.dot_products", i), font_size=font + 1))
        line = VGroup(*parts).arrange(RIGHT, buff=0.12)
        if line.width > 13.4:
            return None
        return line.move_to([0, TERMS_Y, 0])
