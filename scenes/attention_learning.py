"""``attention_learning``: attention emerging from translation alone.

Draft 000, Part 1 "Attention": "the weights are learned". The translator
with attention is trained on the translation loss only (no term pulls its
attention anywhere); training keeps its weights at a handful of steps. For
the numbers file's sentence, the scene shows the alignment matrix (French
words written x English words, each row one decoder step's weights a_tj)
at every snapshot, morphing from the seeded weights' pattern to the learned
one, with the training step, the held-out loss, exact match and alignment
beside it and what that snapshot itself writes. It ends on the learned
matrix next to the grammar's reference alignment, with where they agree
and where the learned attention looks instead.

Every value comes from the Trace section ``attention_learning`` (computed
by the core from the shipped snapshot weights); the note saying how the
network was trained comes from the core too. For seeded weights, the tanh
RNN fallback or a network without attention there is no training to show,
and the scene says so.

This scene replaces ``trained_attention``, which repeated
``attention_process`` (issue 22, item 6).
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
    FadeIn,
    Rectangle,
    ReplacementTransform,
    VGroup,
    config,
)

from .base import FINAL_HOLD, SAFE_EDGE, CaptionPacer, WalkthroughScene, reading_time
from .learning_moves import count_to
from .components import (
    NumberLabel,
    caption,
    caption_in,
    caption_out,
    fade_in,
    fade_out,
    fit_within,
    on_baseline,
    read_as_line,
    readable_text,
)

__all__ = ["AttentionLearningScene", "HeatCell", "SLOW_SNAPSHOTS"]

SECTION = "attention_learning"

# Layout (frame 14.2 x 8): the title line; the English words over the
# matrix (staggered on up to three levels when wider than a column); the matrix on the left, the
# measures (later the grammar's alignment) on the right; lines under them.
TITLE_Y = 3.62
LABEL_TOP = 3.2  # top of the English words over the columns
LABEL_STEP = 0.34  # a level of staggered column words
MAX_LEVELS = 3
MATRIX_BOTTOM = -2.45
LEFT_EDGE = -SAFE_EDGE
ROW_LABEL_AREA = 2.15  # at least; as wide as the widest output word needs (économique), up to:
MAX_ROW_LABEL_AREA = 3.2
GAP = 0.9  # between the two matrices
RIGHT_EDGE = SAFE_EDGE
MAX_PITCH = 0.7
MAX_ROW = 0.45
WRITES_Y = -2.84  # what the snapshot writes; later the matrices' names
LINE_YS = (-3.27, -3.68)  # clear of the frame's bottom edge at 24 pt
TEXT_WIDTH = 13.4
WORD_FONT = 23.5  # the 14 px floor at 480p
PANEL_FONT = 24
#: The first snapshots are explained slowly; the later ones go faster.
SLOW_SNAPSHOTS = 2
SLOW_MORPH, FAST_MORPH = 1.6, 1.0
#: The ending is held at most this long (the rule: 4-8 s); each of its lines was read as it came.
END_HOLD_MAX = 7.5


def readers_note(note: str) -> str:
    """How the network was trained, in the reader's words: the core's note says "trained
    unguided, 6000 steps" (the steps are in the measures beside the matrix)."""
    if note.startswith("trained unguided"):
        return "learned from translation alone"
    if note.startswith("trained with guided alignment"):
        return "learned with a pull toward the grammar's alignment"
    return note


class HeatCell(Rectangle):
    """One attention weight as a cell filled by the heat scale (no digits:
    the pattern is what this scene shows; ``value`` and ``key`` say which
    weight it is)."""

    def __init__(self, value: float, theme: Any, key: tuple, width: float, height: float) -> None:
        super().__init__(width=width, height=height, stroke_width=1, stroke_color=theme.panel,
                         fill_color=theme.heat(value), fill_opacity=1.0)
        self.value = float(value)
        self.key = key


class AttentionLearningScene(WalkthroughScene):
    scene_id = "attention_learning"
    trace_sections = (SECTION, "model.network", "model.trained", "model.has_attention",
                      "model.training_note")
    description = ("Attention learned from translation alone: the sentence's alignment matrix at each "
                   "training snapshot of the translator trained without any alignment term, with the step, "
                   "held-out loss, exact match and alignment; ending on the learned matrix next to the "
                   "grammar's alignment.")
    shown_results = ("weights", "measures", "alignment")

    def construct(self) -> None:
        #: The matrix drawn at each snapshot (its cells' values), for the tests.
        self.shown_matrices: list[np.ndarray] = []
        #: (start, end) in seconds of every snapshot's beat, for the pacing tests.
        self.step_spans: list[tuple[float, float]] = []
        data = self.trace.to_dict()
        learning = data[SECTION]
        if learning is None:
            self._no_record(data["model"])
            return
        self.data = learning
        self._lay_out()
        self.show_the_untrained_matrix()
        for k in range(1, len(learning["steps"])):
            self.train_to_snapshot(k)
        self.compare_with_the_grammar()

    # -- the message case --------------------------------------------------

    def _no_record(self, model: dict[str, Any] | None) -> None:
        if model is None or model["network"] != "gru":
            why = "the sentence has words the trained translator does not know"
        elif not model["trained"]:
            why = "the numbers file asks for seeded (untrained) weights"
        elif not model["has_attention"]:
            why = "the numbers file sets model.attention = false"
        else:
            why = "these [model] settings have no training record yet (run: render.py train)"
        text = f"No training to show: {why}.\nThe default settings show attention being learned."
        note = fit_within(caption(text, self.theme, 24), max_width=TEXT_WIDTH, max_height=7)
        self.add(note)
        self.wait(max(reading_time(text), FINAL_HOLD))

    # -- layout ------------------------------------------------------------

    def _lay_out(self) -> None:
        d = self.data
        T, R = len(d["source_tokens"]), len(d["rows"])
        # The output words whole: a fixed 2.15 cut "économique" to "économiq…" at 23.5 pt.
        widest_row = max((caption(w, self.theme, WORD_FONT).width for w in d["rows"]), default=0.0)
        self.label_area = min(MAX_ROW_LABEL_AREA, max(ROW_LABEL_AREA, widest_row + 0.3))
        self.pitch = min(MAX_PITCH, (RIGHT_EDGE - LEFT_EDGE - self.label_area - GAP) / (2 * T))
        widest = max(caption(w, self.theme, WORD_FONT).width for w in d["source_tokens"])
        self.levels = next((n for n in range(1, MAX_LEVELS + 1) if widest <= n * self.pitch - 0.12), MAX_LEVELS)
        self.matrix_top = LABEL_TOP - self.levels * LABEL_STEP - 0.08
        self.row_h = min(MAX_ROW, (self.matrix_top - MATRIX_BOTTOM) / R)
        self.left_x = LEFT_EDGE + self.label_area  # the learned matrix's left edge
        self.right_x = RIGHT_EDGE - T * self.pitch  # the grammar's matrix's left edge

    def _centre(self, left: float, i: int, j: int) -> list[float]:
        return [left + (j + 0.5) * self.pitch, self.matrix_top - (i + 0.5) * self.row_h, 0.0]

    def _grid(self, k: int) -> VGroup:
        """Snapshot ``k``'s matrix as heat cells."""
        values = np.array(self.data["matrices"][k])
        grid = VGroup()
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                cell = HeatCell(values[i, j], self.theme, (f"{SECTION}.matrices", k, i, j),
                                self.pitch, self.row_h)
                grid.add(cell.move_to(self._centre(self.left_x, i, j)))
        return grid

    def _column_words(self, left: float) -> VGroup:
        """The English words over a matrix's columns, staggered on
        ``self.levels`` levels (the first word on the lowest)."""
        group = VGroup()
        n = self.levels
        for j, w in enumerate(self.data["source_tokens"]):
            lab = readable_text(w, self.theme, WORD_FONT, max_width=n * self.pitch - 0.12)
            level = j % n
            lab.move_to([left + (j + 0.5) * self.pitch, self.matrix_top + 0.08 + (level + 0.5) * LABEL_STEP, 0])
            group.add(lab)
        return group

    def _row_words(self) -> VGroup:
        group = VGroup()
        for i, w in enumerate(self.data["rows"]):
            lab = readable_text(w, self.theme, WORD_FONT, max_width=self.label_area - 0.2,
                                colour=self.theme.target_embedding)  # output words: op's colour, as in attention_process
            lab.move_to([self.left_x - 0.12, self._centre(self.left_x, i, 0)[1], 0], aligned_edge=RIGHT)
            group.add(lab)
        return group

    def _frame(self, left: float) -> Rectangle:
        T, R = len(self.data["source_tokens"]), len(self.data["rows"])
        return Rectangle(width=T * self.pitch + 0.08, height=R * self.row_h + 0.08,
                         stroke_color=self.theme.panel, stroke_width=3).move_to(
            [left + T * self.pitch / 2, self.matrix_top - R * self.row_h / 2, 0])

    def _number(self, field: str, k: int, decimals: int, size: float = PANEL_FONT) -> NumberLabel:
        return NumberLabel(self.data[field][k], self.theme, key=(f"{SECTION}.{field}", k),
                           font_size=size, colour=self.theme.weight, decimals=decimals)

    #: The measures beside the matrix: (name, field, decimals, unit).
    MEASURES = (("training step", "steps", 0, ""), ("held-out loss", "losses", 3, ""),
                ("exact match", "exact_match_percent", 1, "%"), ("alignment", "alignment_percent", 1, "%"))

    def _panel_names(self) -> VGroup:
        """The measures' names (and units), which stay while the numbers change."""
        theme = self.theme
        names = VGroup(*[caption(name, theme, PANEL_FONT, theme.muted) for name, *_ in self.MEASURES])
        names.arrange(DOWN, buff=0.36, aligned_edge=LEFT)
        # Right of the matrix, within the frame (a short sentence leaves more room than it needs).
        left = min(self.right_x + 0.2, RIGHT_EDGE - names.width - 2.3)
        names.move_to([left, self.matrix_top - 0.3, 0], aligned_edge=UP + LEFT)
        self.number_x = names.get_right()[0] + 0.35
        units = VGroup()
        for name, (_, _, _, unit) in zip(names, self.MEASURES):
            if unit:
                units.add(caption(unit, theme, PANEL_FONT, theme.weight).move_to(
                    [self.number_x + 1.45, name.get_y(), 0], aligned_edge=LEFT))
        names.units = units
        return names

    def _maker(self, decimals: int):
        """Builds the label of a passing value of a measure shown with ``decimals`` (while counting)."""
        def make(value: float) -> NumberLabel:
            return NumberLabel(value, self.theme, key=None, font_size=PANEL_FONT, colour=self.theme.weight,
                               decimals=decimals)
        return make

    def _panel_numbers(self, k: int) -> VGroup:
        """Snapshot ``k``'s step, held-out loss, exact match and alignment."""
        numbers = VGroup()
        for name, (_, field, decimals, _) in zip(self.panel_names, self.MEASURES):
            number = self._number(field, k, decimals)
            # Right-aligned, so the digits keep their columns while they change.
            numbers.add(number.move_to([self.number_x + 1.3, name.get_y(), 0], aligned_edge=RIGHT))
        return numbers

    def _writes(self, k: int) -> VGroup:
        """What snapshot ``k`` itself writes for the sentence."""
        words = self.data["translations"][k]
        text = " ".join(words) if words else "(nothing: <END> first)"
        line = readable_text(f"it writes: {text}", self.theme, 26, max_width=TEXT_WIDTH, min_size=24)
        return line.move_to([0, WRITES_Y, 0])

    # -- the beats ---------------------------------------------------------

    def show_the_untrained_matrix(self) -> None:
        theme, d = self.theme, self.data
        title = caption("How attention is learned", theme, 30)
        note = caption(readers_note(d["training_note"]), theme, 24, theme.muted)
        head = VGroup(title, note).arrange(RIGHT, buff=0.45, aligned_edge=DOWN)
        fit_within(head, max_width=TEXT_WIDTH).move_to([0, TITLE_Y, 0])
        self.add(head)  # the first frame says what this is
        self.columns = self._column_words(self.left_x)
        self.rows = self._row_words()
        self.frame = self._frame(self.left_x)
        self.pacer = CaptionPacer(self, y=LINE_YS[0], font_size=24)
        self.pacer.swap("Rows: the French words of the finished translation; columns: the English words",
                        FadeIn(self.columns, lag_ratio=0.05), FadeIn(self.rows, lag_ratio=0.05),
                        Create(self.frame), run_time=1.2)
        start = self.time
        self.grid = self._grid(0)
        self.panel_names = self._panel_names()
        self.panel = self._panel_numbers(0)
        self.writes, self.writes_k = self._writes(0), 0
        self.pacer.swap("Step 0: random weights; each row is one step's attention, bright = more",
                        FadeIn(self.grid, lag_ratio=0.3 / len(self.grid)), fade_in(self.panel_names),
                        fade_in(self.panel_names.units), fade_in(self.panel), fade_in(self.writes),
                        run_time=1.2)
        self.shown_matrices.append(np.array([[c.value for c in self.grid]]).reshape(len(d["rows"]), -1))
        self.pause_on_result("weights")
        self.pacer.swap("exact match: all words right; alignment: top weight on the grammar's word",
                        run_time=0.6)
        self.step_spans.append((float(start), float(self.time)))

    def train_to_snapshot(self, k: int) -> None:
        d = self.data
        start = self.time
        slow = k <= SLOW_SNAPSHOTS
        grid, panel = self._grid(k), self._panel_numbers(k)
        # The same sentence written again stays where it is (a swap would blink it out and back).
        same = d["translations"][k] == d["translations"][self.writes_k]
        writes = self.writes if same else self._writes(k)
        swap_writes = [] if same else [caption_out(self.writes), caption_in(writes)]
        text = (f"After {d['steps'][k]} steps of translation loss only" if k < len(d["steps"]) - 1
                else f"After {d['steps'][k]} steps: the end of training")
        # The matrix tweens into the snapshot, and the measures count to theirs, in place.
        self.pacer.swap(text, ReplacementTransform(self.grid, grid),
                        *[count_to(a, b, self._maker(decimals))
                          for a, b, (_, _, decimals, _) in zip(self.panel, panel, self.MEASURES)],
                        *swap_writes, run_time=SLOW_MORPH if slow else FAST_MORPH)
        self.grid, self.panel, self.writes, self.writes_k = grid, panel, writes, k
        self.shown_matrices.append(np.array([c.value for c in grid]).reshape(len(d["rows"]), -1))
        self.pause_on_result("measures")
        # The caption and what this snapshot writes change together: both are read.
        due = self.pacer.since + reading_time(f"{text} {writes.original_text}") - self.time
        if due > 0.01:
            self.wait(due + 1.0 / config.frame_rate)
        self.step_spans.append((float(start), float(self.time)))

    def _grammar_cells(self) -> tuple[VGroup, VGroup]:
        """The grammar's alignment as a matrix right of the learned one (one full cell per
        row), and outlines of those cells on the learned matrix."""
        theme, d = self.theme, self.data
        T, R = len(d["source_tokens"]), len(d["rows"])
        grammar = VGroup()
        for i, a in enumerate(d["reference_alignment"][:R]):
            for j in range(T):
                grammar.add(Rectangle(width=self.pitch, height=self.row_h, stroke_width=1,
                                      stroke_color=theme.panel, fill_color=theme.heat(float(j == a)),
                                      fill_opacity=1.0).move_to(self._centre(self.right_x, i, j)))
        outlines = VGroup(*[Rectangle(width=self.pitch - 0.08, height=self.row_h - 0.07,
                                      stroke_color=theme.text, stroke_width=2.5).move_to(
            self._centre(self.left_x, i, a)) for i, a in enumerate(d["reference_alignment"][:R])])
        return grammar, outlines

    def compare_with_the_grammar(self) -> None:
        """The grammar's alignment beside the learned one, outlined on it; the measures; the poster."""
        theme, d = self.theme, self.data
        K = len(d["steps"]) - 1
        known = d["reference_agreement"] is not None
        lines: list[Any] = []
        shown: list[Any] = []
        if known:
            grammar, outlines = self._grammar_cells()
            names = caption("left: learned · right: the grammar's alignment, outlined on the left", theme, 24)
            agree = [caption("peak weight on the grammar's word:", theme, 24),
                     self._count("reference_agreement", K), caption("of", theme, 24),
                     self._count("row_count"), caption("rows" + (";" if d["later_peaks"] else ""), theme, 24)]
            if d["later_peaks"]:
                agree += [caption("on a later word (its h read it):", theme, 24),
                          self._count("later_peaks")]
            lines.append(read_as_line(on_baseline(VGroup(*agree).arrange(RIGHT, buff=0.12))))
            shown = [FadeIn(grammar, lag_ratio=0.3 / len(grammar)), fade_in(self._column_words(self.right_x)),
                     Create(self._frame(self.right_x))]
        else:
            names = caption("learned from translation alone (the grammar's alignment of this "
                            "translation is not known)", theme, 24)
        held = VGroup(
            caption(f"{d['held_out_sentences']} unseen sentences: exact match", theme, 24),
            self._number("exact_match_percent", K, 1, 24), caption("%, alignment", theme, 24),
            self._number("alignment_percent", K, 1, 24), caption("%", theme, 24))
        lines.append(read_as_line(on_baseline(held.arrange(RIGHT, buff=0.12))))  # "rows;" not above "of"
        fit_within(names, max_width=TEXT_WIDTH).move_to([0, WRITES_Y, 0])
        for y, line in zip(LINE_YS[len(LINE_YS) - len(lines):], lines):
            fit_within(line, max_width=TEXT_WIDTH).move_to([0, y, 0])

        # The measures and the step's caption make way for the grammar's matrix.
        self.pacer.wait_for_reader()
        self.play(fade_out(self.panel), fade_out(self.panel_names), fade_out(self.panel_names.units),
                  fade_out(self.writes), fade_out(self.pacer.current), run_time=0.6)
        self.pacer.current = None
        self.play(*shown, fade_in(names), run_time=1.2)
        if known:
            self.play(Create(outlines), fade_in(lines[0]), run_time=1.0)
        self.pause_on_result("alignment", 1.5)
        self.play(fade_in(lines[-1]), run_time=0.8)
        # The poster: each line was read as it came; held until the last one is, 4-8 s.
        self.hold_final(min(END_HOLD_MAX, max(FINAL_HOLD + 0.5, reading_time(lines[-1].text) + 1.0)))

    def _count(self, field: str, k: int | None = None) -> NumberLabel:
        value = self.data[field] if k is None else self.data[field][k]
        key = (f"{SECTION}.{field}",) if k is None else (f"{SECTION}.{field}", k)
        return NumberLabel(value, self.theme, key=key, font_size=24, colour=self.theme.weight, decimals=0)
