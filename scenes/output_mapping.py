"""``output_mapping``: one decoder state mapped to an output word.

Draft 000, "5. Mapping of hidden state -> output word": s_t is compared with
every target-word embedding by a dot product; the raw scores can be any
size, so a softmax turns them into probabilities that sum to 1, and the
most probable word is op_t. The draft shows s_2 -> op_2; the numbers file's
``[output_mapping] step`` picks the step.
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
    GrowFromEdge,
    LaggedStart,
    Rectangle,
    SurroundingRectangle,
    VGroup,
    Write,
)

from .base import WalkthroughScene
from .components import CellBox, NumberLabel, ValueCell, arrow_between, caption, fit_within, math_label
from .picked_rows import PickedRowsMatrix, pick_rows, untrained_note

__all__ = ["OutputMappingScene"]

TITLE_Y = 3.55
NOTE_Y = 3.0
STATE_Y = 1.95  # s_t as a row above the embedding matrix
TOP_ROW_Y = 1.25  # the first word's row
FOOT_Y = -3.1
MAX_ROWS = 12
BAR_W = 1.5


class OutputMappingScene(WalkthroughScene):
    scene_id = "output_mapping"
    trace_sections = ("sizes", "decoder.seeded_weights", "output_mapping")
    description = "One decoder state s_t: dot product with every target word, softmax, the most probable word."

    def construct(self) -> None:
        theme, m = self.theme, self.trace.output_mapping
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
        self.play(FadeIn(title), FadeIn(note))

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
        self.play(FadeIn(matrix), FadeIn(VGroup(state, state_frame, state_name), shift=DOWN * 0.2))

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
        self.play(FadeIn(score_head))
        for i in order[:2]:
            focus = SurroundingRectangle(VGroup(matrix.row(i), state), color=theme.highlight, buff=0.04)
            self.play(Create(focus), run_time=0.5)
            self.play(FadeIn(scores[i], shift=RIGHT * 0.2), FadeIn(equals[order.index(i)]), run_time=0.6)
            self.remove(focus)
        rest = order[2:]
        if rest:
            self.play(LaggedStart(*[FadeIn(VGroup(scores[i], equals[order.index(i)])) for i in rest],
                                  lag_ratio=0.15), run_time=1.2)

        # Softmax: any scores become probabilities that sum to 1.
        top, bottom = matrix.frame.get_top()[1], matrix.frame.get_bottom()[1]
        soft = CellBox("softmax", theme, theme.heat_high, width=1.1, height=0.6, font_size=18)
        soft.move_to([(score_x + prob_x) / 2, (top + bottom) / 2, 0])
        a_in = arrow_between(VGroup(*scores.values()), soft.box, theme.muted)
        a_out = arrow_between(soft.box, VGroup(*probs.values()), theme.muted)
        self.play(Create(soft), GrowArrow(a_in), GrowArrow(a_out), FadeIn(prob_head))
        self.play(LaggedStart(*[FadeIn(probs[i]) for i in order], lag_ratio=0.1),
                  LaggedStart(*[GrowFromEdge(bars[i], LEFT) for i in order], lag_ratio=0.1), run_time=1.5)
        total_label = VGroup(caption(f"all {V} sum to", theme, 16, theme.muted),
                             NumberLabel(m.probability_sum, theme, ("output_mapping.probability_sum",),
                                         font_size=18)).arrange(RIGHT, buff=0.12)
        total_label.next_to(matrix.frame, DOWN, buff=0.18)
        total_label.align_to([bar_x + BAR_W, 0, 0], RIGHT)
        self.play(FadeIn(total_label))

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
