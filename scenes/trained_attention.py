"""``trained_attention``: the trained numpy translator at work on the numbers
file's sentence, ending on its alignment matrix.

Draft 000, Part 1 "Attention": the real version of the alignment figure.
First the encoder states h_1 ... h_T (h_0 = 0; the same GRU encoder as the
network without attention, which keeps only h_T); then the decoder step by
step: the attention weights over the English words as a row of the matrix
(each weight a number and a bar), the French word written and its
probability, and a "French so far" strip of the words written up to that
step. The first steps go slowly, with a still second on the weights and on
the word; the repeated ones go faster. Finally the full matrix of weights
(French words x English words) with the grammar's reference alignment
outlined, the word-order crossing pointed out, and the held-out accuracy of
the trained weights: the poster.

Every value comes from the Trace section ``model``, the network with
attention: the trained translator, or for a sentence outside its grammar
the untrained tanh RNN fallback, said so in the title.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    CurvedArrow,
    FadeIn,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    Transform,
    Text,
    VGroup,
    config,
)

from .base import FINAL_HOLD, CaptionPacer, WalkthroughScene, reading_time
from .components import (
    NumberLabel,
    ValueMatrix,
    VectorColumn,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    read_as_line,
    subscript,
    word_box,
)
from .glyphs import weight_cells

__all__ = ["TrainedAttentionScene", "crossing_rows", "SLOW_STEPS"]

SECTION = "model"
END_TOKEN = "<END>"

# Layout (frame 14.2 x 8): title, English words, then the working area
# (annotations, later the matrix), then the caption line and the strip.
TITLE_Y = 3.62
TOP_Y = 2.5  # top edge of the annotations and of the matrix
MATRIX_BOTTOM = -2.45  # lowest the matrix may reach
LINE_YS = (-2.85, -3.3, -3.75)  # the caption lines under the final matrix
STEP_LINE_Y = -2.85  # the step caption while decoding
STRIP_TOP = -3.1  # top of the "French so far" strip while decoding
MARGIN = 0.2  # each side of the frame
LABEL_AREA = 1.95  # room left of the matrix for the French words ("économique" at 20 pt)
SIDE_AREA = 0.85  # room right of the matrix: the probabilities, later the crossing arrows
MAX_PITCH = 1.05  # widest column of the matrix
TEXT_WIDTH = 13.4
NUMBER_FONT = 20  # the legibility floor (12 px capitals at 480p)
WORD_FONT = 20
TEX_FONT = 30  # a formula's glyphs are smaller per point: 30 pt stands over 12 px
STRIP_FONT = 22
H_CELL_H = 0.3  # a cell of h_j: holds a 20-pt number
#: The first steps go slowly (a still second on the weights, then on the
#: word, each said in a caption); the repeated ones go faster.
SLOW_STEPS = 2
SLOW_WEIGHTS, SLOW_WORD = 1.2, 0.8  # run times of a slow step's two parts
FAST_STEP, FAST_REST = 0.6, 0.3  # a fast step: one animation, then a short rest


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
                   "each decoding step (numbers and bars), the French written so far, and the alignment "
                   "matrix it learned.")
    shown_results = ("weights", "word", "alignment")

    def construct(self) -> None:
        #: (start, end) in seconds of every decoding step, for the pacing tests.
        self.step_spans: list[tuple[float, float]] = []
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
        columns_width = config.frame_width - 2 * MARGIN - LABEL_AREA - SIDE_AREA
        pitch = min(MAX_PITCH, columns_width / T)
        cell_h = min(0.46, (TOP_Y - MATRIX_BOTTOM) / R)
        rows = [s["chosen"] for s in steps]

        attention = np.array(data["attention"])
        matrix = ValueMatrix(attention, theme, key=f"{SECTION}.attention",
                             row_labels=rows, max_rows=R, max_cols=T, cell_width=pitch,
                             cell_height=cell_h, scale=1.0, font_size=NUMBER_FONT,
                             label_size=WORD_FONT)
        # Each weight also as a bar at the foot of its cell (a weight of 1 spans the cell).
        weight_cells(matrix.cell_by_index.items(), attention, theme, key=f"{SECTION}.attention")
        x_mid = (LABEL_AREA - SIDE_AREA) / 2
        matrix.shift([x_mid - matrix.frame.get_x(), TOP_Y - matrix.frame.get_top()[1], 0])
        col_x = [matrix.cell(0, j).get_x() for j in range(T)]

        if data["trained"]:
            title = caption("The trained translator, word by word", theme, 30)
        else:
            title = caption("Untrained (seeded random) weights, word by word: not a translation",
                            theme, 30, theme.highlight)
        fit_within(title, max_width=TEXT_WIDTH).move_to([0, TITLE_Y, 0])
        self.add(title)  # the first frame already says what this is
        words = self._column_labels(tokens, col_x, pitch, matrix.frame.get_top()[1] + 0.1)
        self.play(FadeIn(words, lag_ratio=0.08), run_time=0.8)

        self._annotations(data, col_x, pitch, H)
        self._decode(data, matrix, rows)
        self._alignment(data, matrix, words, rows)

    # -- the message cases -------------------------------------------------

    def _message(self, text: str) -> None:
        note = fit_within(caption(text, self.theme, 24), max_width=TEXT_WIDTH, max_height=7)
        self.add(note)  # the first frame shows it: a note, no animation
        self.wait(max(reading_time(text), FINAL_HOLD))

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

    def _column_labels(self, tokens: list[str], col_x: list[float], pitch: float,
                       bottom: float) -> VGroup:
        """The English words over their columns, staggered on two rows
        when a word is wider than its column."""
        theme = self.theme
        labels = [caption(w, theme, WORD_FONT) for w in tokens]
        stagger = len(tokens) > 1 and any(lab.width > pitch * 0.95 for lab in labels)
        limit = 2 * pitch - 0.12 if stagger else pitch * 0.95
        group = VGroup()
        for j, lab in enumerate(labels):
            fit_within(lab, max_width=limit)
            lift = 0.34 if stagger and j % 2 else 0.0
            lab.move_to([col_x[j], bottom + lift + 0.15, 0])
            group.add(lab)
        return group

    def _annotations(self, data: dict[str, Any], col_x: list[float], pitch: float, H: int) -> None:
        """h_1 ... h_T under the words: the encoder states attention reads."""
        theme = self.theme
        T = len(col_x)
        cols, names = VGroup(), VGroup()
        for j, x in enumerate(col_x):
            col = VectorColumn(data["encoder_states"][j + 1], theme, key=f"{SECTION}.encoder_states.{j + 1}",
                               colour=theme.encoder, cell_width=pitch - 0.1, cell_height=H_CELL_H,
                               max_rows=8, font_size=NUMBER_FONT)
            for dots in col.cells:
                if isinstance(dots[-1], MathTex):  # the elision dots: a formula needs 30 pt to be legible
                    dots[-1].scale(TEX_FONT / dots[-1].font_size)
            col.move_to([x, TOP_Y - col.height / 2, 0])
            cols.add(col)
            names.add(math_label(f"h_{{{j + 1}}}", theme, 30, theme.encoder).next_to(col, DOWN, buff=0.12))
        formula = math_label(r"h_j = \mathrm{GRU}(x_j,\ h_{j-1}),\quad h_0 = \mathbf{0}"
                             if self._network(data) == "gru" else
                             r"h_j = \tanh(W_x\,x_j + W_h\,h_{j-1} + b),\quad h_0 = \mathbf{0}",
                             theme, 32, theme.encoder)
        lines = VGroup(
            caption("h\u2c7c: the encoder's state after reading the words up to j", theme, 22),
            caption(f"without attention the decoder gets only h{subscript(T)}; with attention it weighs "
                    "every h\u2c7c at every step", theme, 22, theme.highlight),
        ).arrange(DOWN, buff=0.16)
        text = VGroup(formula, lines).arrange(DOWN, buff=0.25)
        text.next_to([0, names.get_bottom()[1], 0], DOWN, buff=0.3)

        self.play(fade_in(names), fade_in(formula), run_time=0.6)
        self.play(fade_in(lines[0]), FadeIn(cols, lag_ratio=0.6 / max(T, 1), shift=RIGHT * 0.15),
                  run_time=1.8)
        self.play(fade_in(lines[1]), run_time=0.6)
        # Both lines stay until the second one has been read.
        self.wait(reading_time(lines[1].original_text) + 0.2)
        # A cut, not a fade: fading copies every cell, slow for 12 columns.
        self.remove(cols, names, formula, *lines)

    @staticmethod
    def _network(data: dict[str, Any]) -> str:
        return "tanh" if data["network"] == "tanh_rnn" else "gru"

    # -- the decoder, step by step -----------------------------------------

    def _decode(self, data: dict[str, Any], matrix: ValueMatrix, rows: list[str]) -> None:
        theme = self.theme
        steps, T = data["steps"], len(data["tokens"])
        pacer = CaptionPacer(self, y=STEP_LINE_Y, font_size=22)
        strip = self.strip = self._strip(rows)
        probabilities = self._probabilities(matrix, steps)
        pacer.swap("Each step: weigh every English word, then write one French word",
                   Create(matrix.frame), fade_in(strip.label), run_time=0.8)

        focus = None
        for t, step in enumerate(steps):
            start = self.time
            cells = VGroup(*[matrix.cell(t, j) for j in range(T)])
            box = SurroundingRectangle(cells, color=theme.highlight, buff=0.03, stroke_width=4)
            mark = Create(box) if focus is None else Transform(focus, box)
            focus = focus or box
            written = [fade_in(matrix.row_labels[t], shift=RIGHT * 0.2), fade_in(strip.words[t]),
                       fade_in(probabilities[t])]
            if t < SLOW_STEPS:
                # The weights first, a still second, then the word, another.
                self.play(FadeIn(cells, lag_ratio=0.5 / T), mark, run_time=SLOW_WEIGHTS)
                self.pause_on_result("weights")
                self._swap(pacer, self._step_line(t, step), *written, run_time=SLOW_WORD)
                self.pause_on_result("word")
            else:
                if t == SLOW_STEPS:
                    self._swap(pacer, "The next steps, faster: weights, then the word", run_time=0.5)
                self.play(FadeIn(cells, lag_ratio=0.3 / T), mark, *written, run_time=FAST_STEP)
                self.wait(FAST_REST)
            self.step_spans.append((float(start), float(self.time)))
        # Let the last caption be read, then clear the working area for the matrix.
        self._wait_for_reader(pacer)
        self.play(fade_out(pacer.current), fade_out(strip), fade_out(probabilities), fade_out(focus),
                  run_time=0.5)

    def _wait_for_reader(self, pacer: CaptionPacer) -> None:
        """Wait until the pacer's caption has been on screen its reading time."""
        due = pacer.since + pacer.needed(pacer.current.text) - self.time
        if due > 0.01:
            self.wait(due + 1.0 / config.frame_rate)  # whole frames: round up, never down

    def _swap(self, pacer: CaptionPacer, text: str | VGroup, *anims: Any, run_time: float) -> None:
        """The pacer's swap, the old caption gone before the new one comes
        (the audit counts a fading text as present, so a cross-fade in the
        same place reads as an overlap halfway)."""
        if pacer.current is not None:
            self._wait_for_reader(pacer)
            self.play(fade_out(pacer.current), run_time=0.3)
            pacer.current = None
        pacer.swap(text, *anims, run_time=run_time)

    def _strip(self, rows: list[str]) -> VGroup:
        """"French so far": every word the decoder writes, in order, revealed one by one.

        Boxed words at 22 pt; a long sentence at 20 pt, then without boxes,
        then on two rows, never smaller. Returns the strip with ``label`` and
        ``words`` (one group per step).
        """
        theme = self.theme
        for size, boxed, n_rows in ((STRIP_FONT, True, 1), (WORD_FONT, True, 1), (WORD_FONT, False, 1),
                                    (WORD_FONT, False, 2)):
            label = caption("French so far:", theme, size, theme.muted)
            words = VGroup()
            for w in rows:
                colour = theme.muted if w == END_TOKEN else theme.decoder
                if boxed:
                    words.add(word_box(w, theme, colour, size))
                    words[-1][1].set_color(colour)
                else:
                    words.add(VGroup(caption(w, theme, size, colour)))
            per_row = -(-len(words) // n_rows)
            lines = VGroup(*[VGroup(*words[k:k + per_row]).arrange(RIGHT, buff=0.1 if boxed else 0.22)
                             for k in range(0, len(words), per_row)])
            lines.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
            strip = VGroup(label, lines).arrange(RIGHT, buff=0.25, aligned_edge=UP)
            if strip.width <= TEXT_WIDTH:
                break
        strip.move_to([0, 0, 0]).shift([0, STRIP_TOP - strip.get_top()[1], 0])
        strip.label, strip.words = label, words
        return strip

    def _probabilities(self, matrix: ValueMatrix, steps: list[dict[str, Any]]) -> VGroup:
        """Each written word's probability, right of its row (cut before the final figure)."""
        x = matrix.frame.get_right()[0] + 0.12
        group = VGroup()
        for t, step in enumerate(steps):
            p = NumberLabel(step["chosen_probability"], self.theme,
                            key=(f"{SECTION}.steps.{t}.chosen_probability",),
                            font_size=NUMBER_FONT, colour=self.theme.decoder)
            group.add(p.move_to([x, matrix.row_labels[t].get_y(), 0], aligned_edge=LEFT))
        # The column's name, over it at the height of the English words.
        head = math_label("p", self.theme, TEX_FONT, self.theme.decoder)
        group.add(head.move_to([group[0].get_x(), matrix.frame.get_top()[1] + 0.3, 0]))
        return group

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
        fit_within(line, max_width=TEXT_WIDTH).move_to([0, STEP_LINE_Y, 0])
        line.text = f"{head} {p.shown}"
        return line

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
            lines.append(VGroup(caption(f"{fr} for \u201c{en}\u201d: attention steps back, the order crosses",
                                        theme, 20, theme.highlight)))
        else:
            lines.append(VGroup(caption("attention never steps back here: no word order crosses",
                                        theme, 20, theme.muted)))

        held = data["held_out"]
        if held is not None:
            exact = read_as_line(VGroup(
                caption("unseen test sentences: translated exactly", theme, 20),
                NumberLabel(held["exact_match"], theme, key=(f"{SECTION}.held_out.exact_match",),
                            font_size=20, colour=theme.decoder),
            ).arrange(RIGHT, buff=0.12))
            aligned = read_as_line(VGroup(
                caption("strongest weight on the reference word", theme, 20),
                NumberLabel(held["alignment"], theme, key=(f"{SECTION}.held_out.alignment",),
                            font_size=20, colour=theme.decoder),
            ).arrange(RIGHT, buff=0.12))
            lines.append(read_as_line(VGroup(exact, caption("\u00b7", theme, 20), aligned).arrange(RIGHT, buff=0.2)))
        else:
            lines.append(VGroup(caption("untrained (seeded) weights: no held-out figures", theme, 20,
                                        theme.muted)))
        for y, line in zip(LINE_YS[3 - len(lines):], lines):
            fit_within(line, max_width=TEXT_WIDTH).move_to([0, y, 0])

        if len(marks):
            self.play(Create(marks), fade_in(lines[0]), run_time=1.0)
        cross_line = lines[-2]
        highlighted = []
        for t, before, now in crossings:
            highlighted += [matrix.row_labels[t - 1], matrix.row_labels[t], words[before], words[now]]
        recolour = [m.animate.set_color(theme.highlight) for m in dict.fromkeys(highlighted)]
        self.play(*[Create(a) for a in arrows], *recolour, fade_in(cross_line), run_time=1.2)
        self.pause_on_result("alignment", 1.5)
        self.play(fade_in(lines[-1]), run_time=0.8)
        # The poster, held until its last line has been read.
        self.hold_final(max(FINAL_HOLD, reading_time(_line_text(lines[-1]))))


def _line_text(line: VGroup) -> str:
    """The words of a caption line (its texts joined), for its reading time."""
    return " ".join(m.original_text for m in line.get_family() if isinstance(m, Text))
