"""``trained_attention``: the trained numpy translator at work on the numbers
file's sentence, ending on its alignment matrix.

Draft 000, Part 1 "Attention": the real version of the alignment figure.
First the encoder states h_1 ... h_T (h_0 = 0; the same GRU encoder as the
network without attention, which keeps only h_T); then the decoder step by
step: the attention weights over the English words as a heat row, the
French word written and its probability, the sentence growing; finally the
full matrix of weights (French words x English words) with the grammar's
reference alignment outlined, the word-order crossing pointed out, and the
held-out accuracy of the trained weights.

Every value comes from the Trace section ``model``, the network with
attention: the trained translator, or for a sentence outside its grammar
the untrained tanh RNN fallback, said so in the title.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import (
    DOWN,
    RIGHT,
    Create,
    CurvedArrow,
    FadeIn,
    Rectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from .base import WalkthroughScene
from .components import (
    NumberLabel,
    ValueMatrix,
    VectorColumn,
    caption,
    fade_in,
    fit_within,
    math_label,
    subscript,
)

__all__ = ["TrainedAttentionScene", "crossing_rows"]

SECTION = "model"
END_TOKEN = "<END>"

# Layout (frame 14.2 x 8): title, English words, then the working area
# (annotations, later the matrix), then up to three caption lines.
TITLE_Y = 3.62
TOP_Y = 2.5  # top edge of the annotations and of the matrix
MATRIX_BOTTOM = -2.45  # lowest the matrix may reach
LINE_YS = (-2.85, -3.3, -3.75)  # the caption lines under the matrix
LABEL_AREA = 1.9  # room left of the matrix for the French words
ARROW_AREA = 0.7  # room right of the matrix for the crossing arrows
TEXT_WIDTH = 13.4
NUMBER_FONT = 16
WORD_FONT = 20


def crossing_rows(attention: np.ndarray, rows: int) -> list[tuple[int, int, int]]:
    """Rows whose strongest weight lies left of the previous row's.

    Returns ``(t, previous column, column)`` for each such row ``t`` among
    the first ``rows`` rows: the decoder stepped back in the English
    sentence, i.e. the word order crosses. (A lookup of where each row
    peaks, for laying out the arrows; no value is computed.)
    """
    peaks = [int(np.argmax(attention[t])) for t in range(rows)]
    return [(t, peaks[t - 1], peaks[t]) for t in range(1, rows) if peaks[t] < peaks[t - 1]]


class TrainedAttentionScene(WalkthroughScene):
    scene_id = "trained_attention"
    trace_sections = (SECTION,)
    description = ("The trained translator on the sentence: encoder states h_j, attention weights a_tj at "
                   "each decoding step, and the alignment matrix it learned.")

    def construct(self) -> None:
        data = self.trace.to_dict()[SECTION]
        if data is None:
            self._outside_vocabulary()
            return
        if data["attention"] is None:
            self._message("This model was set up without attention (model.attention = false):\n"
                          "there are no attention weights to show.")
            return
        theme = self.theme
        tokens, steps = data["tokens"], data["steps"]
        T, R = len(tokens), len(steps)
        H = len(data["encoder_states"][0])
        cell_w = min(1.0, 9.4 / T)
        cell_h = min(0.46, (TOP_Y - MATRIX_BOTTOM) / R)
        rows = [s["chosen"] for s in steps]

        matrix = ValueMatrix(np.array(data["attention"]), theme, key=f"{SECTION}.attention",
                             row_labels=rows, max_rows=R, max_cols=T, cell_width=cell_w,
                             cell_height=cell_h, scale=1.0, font_size=NUMBER_FONT,
                             label_size=WORD_FONT, heat=True)
        x_mid = (LABEL_AREA - ARROW_AREA) / 2
        matrix.shift([x_mid - matrix.frame.get_x(), TOP_Y - matrix.frame.get_top()[1], 0])
        col_x = [matrix.cell(0, j).get_x() for j in range(T)]
        for cell in matrix.cell_by_index.values():
            if cell.value > 0.5:  # light text would fade into a hot cell
                cell.number.set_color(theme.background)

        if data["trained"]:
            title = caption("The trained translator, word by word", theme, 30)
        else:
            title = caption("Untrained (seeded random) weights, word by word: not a translation",
                            theme, 30, theme.highlight)
        fit_within(title, max_width=TEXT_WIDTH).move_to([0, TITLE_Y, 0])
        words = self._column_labels(tokens, col_x, cell_w, matrix.frame.get_top()[1] + 0.1)
        self.play(fade_in(title), FadeIn(words, lag_ratio=0.08))

        self._annotations(data, col_x, cell_w, H, matrix.frame.get_left()[0])
        self._decode(data, matrix, rows)
        self._alignment(data, matrix, words, rows)

    # -- the message cases -------------------------------------------------

    def _message(self, text: str) -> None:
        note = fit_within(caption(text, self.theme, 24), max_width=TEXT_WIDTH, max_height=7)
        self.play(fade_in(note))
        self.wait(2)

    def _outside_vocabulary(self) -> None:
        # Which words the grammar lacks: a lookup in the core's word list.
        from attention_core.translator.corpus import DRAFT_PAIRS, source_words

        tokens = self.trace.to_dict()["source"]["tokens"]
        known = set(source_words())
        unknown = [w for w in dict.fromkeys(tokens) if w not in known]
        shown = ", ".join(f"\u201c{w}\u201d" for w in unknown[:4]) + (", \u2026" if len(unknown) > 4 else "")
        self._message(
            "This sentence is outside the trained model's vocabulary:\n"
            f"it has never seen {shown}.\n\n"
            "To fix it, write the numbers file's sentence with the grammar's English words\n"
            f"(for example \u201c{DRAFT_PAIRS[-1].source_sentence}\u201d), or add a [model] table with\n"
            "weights = \"seeded\" to watch an untrained model instead."
        )

    # -- the encoder annotations -------------------------------------------

    def _column_labels(self, tokens: list[str], col_x: list[float], cell_w: float,
                       bottom: float) -> VGroup:
        """The English words over their columns, staggered on two rows
        when a word is wider than its column."""
        theme = self.theme
        labels = [caption(w, theme, WORD_FONT) for w in tokens]
        stagger = len(tokens) > 1 and any(lab.width > cell_w * 0.95 for lab in labels)
        limit = 2 * cell_w - 0.12 if stagger else cell_w * 0.95
        group = VGroup()
        for j, lab in enumerate(labels):
            fit_within(lab, max_width=limit)
            lift = 0.34 if stagger and j % 2 else 0.0
            lab.move_to([col_x[j], bottom + lift + 0.15, 0])
            group.add(lab)
        return group

    def _annotations(self, data: dict[str, Any], col_x: list[float], cell_w: float, H: int,
                     left: float) -> None:
        """h_1 ... h_T under the words: the encoder states attention reads."""
        theme = self.theme
        T = len(col_x)
        ch = min(0.36, 2.9 / H)
        cols, names = VGroup(), VGroup()
        for j, x in enumerate(col_x):
            col = VectorColumn(data["encoder_states"][j + 1], theme, key=f"{SECTION}.encoder_states.{j + 1}",
                               colour=theme.encoder, cell_width=cell_w - 0.12, cell_height=ch,
                               max_rows=8, font_size=15)
            col.move_to([x, TOP_Y - col.height / 2, 0])
            cols.add(col)
            names.add(math_label(f"h_{{{j + 1}}}", theme, 26, theme.encoder).next_to(col, DOWN, buff=0.12))
        formula = math_label(r"h_j = \mathrm{GRU}(x_j,\ h_{j-1}),\quad h_0 = \mathbf{0}"
                             if self._network(data) == "gru" else
                             r"h_j = \tanh(W_x\,x_j + W_h\,h_{j-1} + b),\quad h_0 = \mathbf{0}",
                             theme, 30, theme.encoder)
        lines = VGroup(
            caption("h\u2c7c: the encoder's state after reading the words up to j", theme, 20),
            caption(f"without attention the decoder gets only h{subscript(T)}; with attention it weighs "
                    "every h\u2c7c at every step", theme, 20, theme.highlight),
        ).arrange(DOWN, buff=0.14)
        fit_within(lines, max_width=TEXT_WIDTH)
        text = VGroup(formula, lines).arrange(DOWN, buff=0.2)
        fit_within(text, max_width=TEXT_WIDTH, max_height=names.get_bottom()[1] + 3.9 - 0.25)
        text.next_to([0, names.get_bottom()[1], 0], DOWN, buff=0.25)

        self.play(fade_in(names), fade_in(formula), run_time=0.6)
        self.play(fade_in(lines[0]), FadeIn(cols, lag_ratio=0.6 / max(T, 1), shift=RIGHT * 0.15),
                  run_time=1.8)
        self.play(fade_in(lines[1]), run_time=0.6)
        self.wait(1.5)
        # A cut, not a fade: fading copies every cell, slow for 12 columns.
        self.remove(cols, names, formula, *lines)

    @staticmethod
    def _network(data: dict[str, Any]) -> str:
        return "tanh" if data["network"] == "tanh_rnn" else "gru"

    # -- the decoder, step by step -----------------------------------------

    def _decode(self, data: dict[str, Any], matrix: ValueMatrix, rows: list[str]) -> None:
        theme = self.theme
        steps, T = data["steps"], len(data["tokens"])
        intro = caption("Each step: the decoder weighs every English word (a row of weights summing "
                        "to one), then writes a French word", theme, 20, theme.muted)
        fit_within(intro, max_width=TEXT_WIDTH).move_to([0, LINE_YS[0], 0])
        self.play(Create(matrix.frame), fade_in(intro), run_time=0.8)

        # Slow first steps, then quicker ones. Texts are swapped without
        # animating (every animation deep-copies its mobjects, which is what
        # makes long scenes slow to build); the weights always fade in.
        focus = step_line = sentence = None
        for t, step in enumerate(steps):
            slow = t < 3
            cells = VGroup(*[matrix.cell(t, j) for j in range(T)])
            box = SurroundingRectangle(cells, color=theme.highlight, buff=0.03, stroke_width=4)
            if step_line is not None:
                self.remove(step_line)
            step_line = self._step_line(t, step).move_to([0, LINE_YS[1], 0])
            anims = [FadeIn(cells, lag_ratio=0.5 / T), Create(box) if focus is None else Transform(focus, box)]
            if slow:
                anims.append(fade_in(step_line))
            else:
                self.add(step_line)
            self.play(*anims, run_time=1.4 if slow else 0.6)
            focus = focus or box

            written = [w for w in rows[: t + 1] if w != END_TOKEN]
            if sentence is not None:
                self.remove(sentence)
            sentence = VGroup(caption("French so far:", theme, 22, theme.muted),
                              caption(" ".join(written) if written else "\u2014", theme, 22,
                                      theme.decoder)).arrange(RIGHT, buff=0.2)
            fit_within(sentence, max_width=TEXT_WIDTH).move_to([0, LINE_YS[2], 0])
            if slow:
                self.play(fade_in(matrix.row_labels[t], shift=RIGHT * 0.2), fade_in(sentence), run_time=0.7)
                self.wait(0.4)
            else:
                self.add(matrix.row_labels[t], sentence)
                self.wait(0.35)
        self.remove(intro, step_line, sentence, focus)
        self.wait(0.3)

    def _step_line(self, t: int, step: dict[str, Any]) -> VGroup:
        theme = self.theme
        shown_in = "\u201c" + step["input"] + "\u201d"
        if step["chosen"] == END_TOKEN:
            head = f"reads {shown_in}, writes {END_TOKEN} (the sentence is finished) with probability"
        else:
            head = f"reads {shown_in}, writes \u201c{step['chosen']}\u201d with probability"
        p = NumberLabel(step["chosen_probability"], theme, key=(f"{SECTION}.steps.{t}.chosen_probability",),
                        font_size=22, colour=theme.decoder)
        line = VGroup(caption(head, theme, 22), p).arrange(RIGHT, buff=0.15)
        return fit_within(line, max_width=TEXT_WIDTH)

    # -- the whole matrix --------------------------------------------------

    def _alignment(self, data: dict[str, Any], matrix: ValueMatrix, words: VGroup,
                   rows: list[str]) -> None:
        theme = self.theme
        T, R = len(data["tokens"]), len(rows)
        # Swap the pieces revealed one by one for the matrix as one object.
        self.remove(matrix.frame, *[matrix.cell(t, j) for t in range(R) for j in range(T)],
                    *matrix.row_labels)
        self.add(matrix)

        lines: list[VGroup] = []
        marks = VGroup()
        ref, ref_align = data["reference"], data["reference_alignment"]
        if ref is not None:
            for t in range(min(len(ref), R)):
                if rows[t] == ref[t]:  # the row writes the reference word: outline its reference column
                    cell = matrix.cell(t, ref_align[t])
                    marks.add(Rectangle(width=cell.width - 0.08, height=cell.height - 0.07,
                                        stroke_color=theme.text, stroke_width=2.5).move_to(cell))
        if len(marks):
            sample = Rectangle(width=0.34, height=0.22, stroke_color=theme.text, stroke_width=2.5)
            lines.append(VGroup(sample, caption("outlined: the English word the grammar aligns each "
                                                "French word to", theme, 20)).arrange(RIGHT, buff=0.2))

        last = R - 1 if rows[-1] == END_TOKEN else R
        crossings = crossing_rows(np.array(data["attention"]), last)
        arrows = VGroup()
        right = matrix.frame.get_right()[0]
        for t, before, now in crossings:
            y0, y1 = matrix.cell(t - 1, before).get_y(), matrix.cell(t, now).get_y()
            arrows.add(CurvedArrow([right + 0.12, y0, 0], [right + 0.12, y1, 0], angle=-2.2,
                                   color=theme.highlight, stroke_width=4, tip_length=0.16))
        if crossings:
            t, before, now = crossings[0]
            fr = f"\u201c{rows[t - 1]} {rows[t]}\u201d"
            en = " ".join(data["tokens"][now:before + 1])
            lines.append(VGroup(caption(f"{fr} for \u201c{en}\u201d: attention steps back, the order crosses", theme, 20, theme.highlight)))
        else:
            lines.append(VGroup(caption("attention never steps back here: no word order crosses",
                                        theme, 20, theme.muted)))

        held = data["held_out"]
        if held is not None:
            exact = VGroup(
                caption("unseen test sentences: translated exactly", theme, 20),
                NumberLabel(held["exact_match"], theme, key=(f"{SECTION}.held_out.exact_match",),
                            font_size=20, colour=theme.decoder),
            ).arrange(RIGHT, buff=0.12)
            aligned = VGroup(
                caption("strongest weight on the reference word", theme, 20),
                NumberLabel(held["alignment"], theme, key=(f"{SECTION}.held_out.alignment",),
                            font_size=20, colour=theme.decoder),
            ).arrange(RIGHT, buff=0.12)
            lines.append(VGroup(exact, caption("\u00b7", theme, 20), aligned).arrange(RIGHT, buff=0.2))
        else:
            lines.append(VGroup(caption("untrained (seeded) weights: no held-out figures", theme, 20,
                                        theme.muted)))
        for y, line in zip(LINE_YS[3 - len(lines):], lines):
            fit_within(line, max_width=TEXT_WIDTH).move_to([0, y, 0])

        anims = [Create(marks)] if len(marks) else []
        if len(marks):
            self.play(*anims, fade_in(lines[0]), run_time=1.0)
        cross_line = lines[-2]
        highlighted = []
        for t, before, now in crossings:
            highlighted += [matrix.row_labels[t - 1], matrix.row_labels[t], words[before], words[now]]
        recolour = [m.animate.set_color(theme.highlight) for m in dict.fromkeys(highlighted)]
        self.play(*[Create(a) for a in arrows], *recolour, fade_in(cross_line), run_time=1.2)
        self.play(Write(lines[-1]), run_time=1.0)
        self.wait(2.5)
