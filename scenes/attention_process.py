"""``attention_process``: attention over the encoder states, step by step.

Draft 000, Part 1, "Building towards Attention" (the full attention-process
video): the encoder states h_1 ... h_T stay on screen under the source
words. At every decoder step f_att scores each h_j against s_{t-1}
(e_tj), a softmax turns the scores into weights a_tj (numbers, bars, and
the links from s_{t-1} to each h_j drawn thick and opaque by a_tj), the
weighted sum of the h_j is the context c_t (each h_j's copy scaled and
faded by a_tj on its way), and the decoder turns op_{t-1}, s_{t-1} and
c_t into s_t and the next word op_t, which joins the "French so far"
strip. The first step is explained phase by phase, the second more
briefly, the others quickly (each still pausing on its word). Each step's
weight row files into an alignment-so-far grid right of the h_j; the clip
ends on that grid grown into the alignment matrix (one row of weights per
output word), the source words its columns, the strip's words its rows.

``construct`` is the storyboard: one method per beat, named for what the
reader sees, sharing the on-screen slots in :class:`Stage`.

The values are the Trace section ``model``: the network WITH attention,
the same encoder and decoder as the Part 1 scenes' network plus attention
(so the h_j here are the kind of vectors the bottleneck scene discards).
By default it is the trained translator; for a sentence its grammar cannot
read, the untrained tanh RNN fallback, said so on screen. ``process_view``
gives both the same shape, so one code path draws either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Create,
    DashedVMobject,
    GrowArrow,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    Mobject,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    config,
)

from .base import FINAL_HOLD, SAFE_EDGE, SAFE_EDGE_TEXT, CaptionPacer, WalkthroughScene, reading_time
from .motion import file_row, focus, hand_off, moved, ring_to, slide, unfold_strip, window
from .part1_layout import wrapped_note
from .process_view import ProcessView, process_view
from .seq2seq_view import network_note
from .components import (
    CELL_W,
    ELLIPSIS,
    MIN_FONT_SIZE,
    NUMBER_SIZE,
    CellBox,
    NumberLabel,
    OpacityScaling,
    StateStrip,
    ValueCell,
    ValueMatrix,
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
    step_caption,
    subscript,
    unbreakable_words,
)

__all__ = ["AttentionProcessScene", "Stage", "word_labels", "MIN_FLYING_WEIGHT"]

# Layout (frame is 14.2 x 8 units; at 480p one unit is 60 px).
TITLE_Y = 3.62
SOURCE_LEFT, SOURCE_RIGHT = -4.6, 5.45  # the columns' outer edges: row names left, the alignment so far right
MAX_STATE_ROWS = 4  # longer vectors are elided with dots (short columns leave the links room to fan out)
CELL_H = 0.31  # a 23.5-pt number (0.247 high) fits in 80 % of it (fitted_number drops decimals otherwise)
# Every text at least 14 px tall at 480p (STYLE.md §4.8): Text >= 23.1 pt, formulas >= 33 pt.
TEXT_SIZE = 24
WORD_FONT = TEXT_SIZE
BAR_MAX_H = 0.48
PANEL_TOP = -2.1  # top of the decoder panel's columns (their labels above)
STRIP_Y = -3.64  # the "French so far" strip (clear of the bottom edge)
EXPLAIN_LEFT, EXPLAIN_RIGHT, EXPLAIN_TOP = 2.7, SAFE_EDGE_TEXT, -1.3  # the equation and caption of the moment
EQUATION_SIZE = 34  # >= 33.2 pt: 14 px capitals at 480p
DOTS_SIZE = 34
STRIP_WORD = TEXT_SIZE
MIN_FLYING_WEIGHT = 0.02  # lighter copies of h_j do not fly into c_t (issue 13)
STATE_CELL_W = 0.96  # a 20-pt − 0.94 is 0.82 wide: at CELL_W (0.9) it lost a decimal
FULL_STEPS = 1  # steps explained phase by phase; the next one briefly, the rest quickly
# The alignment so far: each step's weight row files into it, right of the h_j columns.
ALIGN_LEFT, ALIGN_RIGHT, ALIGN_TOP = 5.62, 6.92, 2.62
# Under the finished matrix: its note, then the lines saying why a row is off its word.
NOTE_Y, WHY_YS = -2.8, (-3.22, -3.64)

# (Lines at most 3.8 wide at EQUATION_SIZE: the explanation's column is 4.25, a continued line indented.)
_SCORE_TEX = {
    "additive": [r"e_{tj} = f_{att}(s_{t-1}, h_j)", r"= v^{\top}\tanh(W_a\,s_{t-1}", r"+\,U_a\,h_j)"],
    "dot": [r"e_{tj} = f_{att}(s_{t-1}, h_j)", r"= s_{t-1}^{\top}\,h_j"],
    "scaled_dot": [r"e_{tj} = f_{att}(s_{t-1}, h_j)", r"= s_{t-1}^{\top}\,h_j \,/\, \sqrt{d}"],
}
_SCORE_NAME = {"additive": "additive (Bahdanau)", "dot": "dot product", "scaled_dot": "scaled dot product"}

# The decoder and output equations (the drafts' notation): the decoder is
# the one of the network without attention, reading c_t instead of h_T;
# the output is the dot product with every French embedding e_w.
_DECODER_TEX = {
    "tanh": [r"s_t = \tanh(W_o\,op_{t-1}", r"+\,W_s\,s_{t-1} + W_c\,c_t + b)"],
    "gru": [r"s_t = \mathrm{GRU}(op_{t-1},", r"s_{t-1},\ c_t)"],
}
_OUTPUT_TEX = r"op_t = \arg\max_w\ s_t \cdot e_w"


def word_labels(words, xs, y: float, pitch: float, theme, colour=None,
                font_size: float = WORD_FONT) -> VGroup:
    """Words centred on ``xs``; on two staggered rows when one row is too tight.

    A word never gets more width than its slot (two slots when staggered),
    so neighbours never overlap; a word too long even then keeps its size
    (never under the legibility floor) and loses its end to an ellipsis.
    """
    one_row = pitch - 0.1
    widths = [caption(w, theme, font_size).width for w in words]
    stagger = len(words) > 1 and any(w > one_row for w in widths)
    room = 2 * pitch - 0.18 if stagger else one_row
    out = VGroup()
    for i, (w, x) in enumerate(zip(words, xs)):
        t = readable_text(w, theme, font_size, max_width=room, colour=colour, min_size=font_size)
        dy = (0.17 if i % 2 == 0 else -0.17) if stagger else 0.0
        t.move_to([x, y + dy, 0])
        out.add(t)
    return out


def _touch(a: Mobject, b: Mobject, gap: float = 0.05) -> bool:
    """Whether the boxes of ``a`` and ``b`` come within ``gap`` of each other."""
    return (a.get_left()[0] < b.get_right()[0] + gap and b.get_left()[0] < a.get_right()[0] + gap
            and a.get_bottom()[1] < b.get_top()[1] + gap and b.get_bottom()[1] < a.get_top()[1] + gap)


def _legible_dots(col: VectorColumn) -> VectorColumn:
    """The elision dots of a column at the formulas' legibility floor (they are drawn at 24 pt)."""
    for cell in col.cells:
        if not isinstance(cell, ValueCell):
            for mob in cell:
                if isinstance(mob, MathTex) and mob.font_size < DOTS_SIZE:
                    centre = mob.get_center()
                    mob.font_size = DOTS_SIZE
                    mob.move_to(centre)
    return col


def _one_precision(row: VGroup, theme) -> VGroup:
    """Every number of a row (or of columns: any group of cells) at the decimals of its widest
    one (-2.2, -2.3, -12.5, not -2.22, -2.3, -12.5): a group is read as one set of numbers."""
    cells = [c for c in row.get_family() if isinstance(c, ValueCell) and c.number is not None]
    fewest = min((c.number.decimals for c in cells), default=theme.decimals)
    for c in cells:
        if c.number.decimals == fewest:
            continue
        old = c.number
        new = NumberLabel(c.value, theme, old.key, font_size=NUMBER_SIZE, decimals=fewest)
        floor = min(1.0, MIN_FONT_SIZE / NUMBER_SIZE)
        new.scale(max(floor, min(1.0, c.box.width * 0.9 / new.width, c.box.height * 0.8 / new.height)))
        c.remove(old)
        c.add(new.move_to(c.box))
        c.number = new
    return row


class _FadeInPlace(OpacityScaling):
    """A part of a group on screen fades out (or in) and stays in its group (the caller takes
    it out of the group after a fade out): no copy, and the scene's list of mobjects is left
    alone (a remover or an introducer would make the scene split the group into loose parts)."""

    def __init__(self, mobject: Mobject, out: bool = True, **kw) -> None:
        self.out = out
        super().__init__(mobject, **kw)

    def interpolate_mobject(self, alpha: float) -> None:
        a = self.rate_func(alpha)
        self.scale_opacity(1.0 - a if self.out else a)


@dataclass
class Stage:
    """What is on screen across the beats: the slots a beat reads and writes (STYLE.md §3.2)."""

    title: Mobject
    kind: Mobject | None = None
    words: VGroup | None = None
    states: VGroup | None = None
    e_name: Mobject | None = None
    a_name: Mobject | None = None
    bar_base: Mobject | None = None
    align_name: Mobject | None = None
    box: Mobject | None = None
    s_prev: VectorColumn | None = None
    op_col: VectorColumn | None = None
    pacer: CaptionPacer | None = None
    strip_words: list = field(default_factory=list)
    dots_shown: bool = False
    step_label: Mobject | None = None
    align_rows: list = field(default_factory=list)  # row t of the alignment so far, filed at step t
    final: list = field(default_factory=list)  # the panel's pieces left after the last step
    # This step's pieces (built by open_step and the beats, gone by the next step).
    step_start: float = 0.0
    label_anim: Animation | None = None
    scores: VGroup | None = None
    weights: VGroup | None = None
    bars: VGroup | None = None
    links: VGroup | None = None
    focus: Mobject | None = None
    c_col: VectorColumn | None = None
    bracket: Mobject | None = None
    into: Mobject | None = None
    out: Mobject | None = None
    s_new: VectorColumn | None = None
    word: Mobject | None = None
    p_label: VGroup | None = None  # "p =" and the word's probability (first step only)
    # The next values of the rows that stay on screen (built by open_step, morphed into by the beats).
    new_scores: VGroup | None = None
    new_weights: VGroup | None = None
    new_bars: VGroup | None = None
    new_links: VGroup | None = None
    veils_out: Animation | None = None  # lifts the close-up's veils


class AttentionProcessScene(WalkthroughScene):
    scene_id = "attention_process"
    trace_sections = ("source", "sizes", "attention.parameters", "model")
    description = ("Attention at every decoder step (the trained translator, or seeded weights outside "
                   "its grammar): scores, softmax weights as bars and as links from s_{t-1} to each h_j, "
                   "the context c_t made of the weighted h_j, the decoder's s_t and word, the French so "
                   "far; ends on the alignment matrix.")
    shown_results = ("scores", "weights", "context", "word")

    # -- layout --------------------------------------------------------------

    def _layout(self) -> None:
        self.view: ProcessView = process_view(self.trace)
        T, H = self.view.encoder_states.shape
        self.T, self.H = T, H
        room = SOURCE_RIGHT - SOURCE_LEFT
        self.pitch = min(1.25, room / T)
        self.cell_w = min(STATE_CELL_W, self.pitch - 0.1)
        # The score and weight rows use the whole pitch: at the 14 px floor "-0.56" needs ~1 unit.
        self.row_w = self.pitch - 0.1
        self.cell_h = CELL_H
        shown_rows = min(H, MAX_STATE_ROWS)
        span = (T - 1) * self.pitch
        centre = (SOURCE_LEFT + SOURCE_RIGHT) / 2
        self.xs = [centre - span / 2 + i * self.pitch for i in range(T)]
        col_h = shown_rows * self.cell_h + 0.08
        self.words_y = 3.08
        self.h_top = 2.66
        self.h_name_y = self.h_top - col_h - 0.18
        self.scores_y = self.h_name_y - 0.38
        self.weights_y = self.scores_y - self.cell_h - 0.06
        # The bars stand under the weights' numbers; the links from s_{t-1} end at their feet.
        self.bar_base_y = self.weights_y - self.cell_h / 2 - 0.2 - BAR_MAX_H
        # Decoder panel, left to right: the three inputs, the decoder, s_t, the word.
        self.x_op, self.x_s, self.x_c, self.x_box, self.x_new, self.x_word = -6.35, -5.3, -4.25, -2.4, -0.6, 0.15
        #: (start, end) in seconds of the clip of every decoder step (the tests compare them).
        self.step_times: list[tuple[float, float]] = []
        #: The words the "French so far" strip shows after each step (full words, the hidden front dropped).
        self.strip_log: list[tuple[str, ...]] = []

    def _column(self, values, key: str, label: str, colour, width: float = STATE_CELL_W,
                digits: bool = False) -> VectorColumn:
        """A vector as a chip (heat cells, no digits: STYLE.md §4.1) with its name; ``digits``
        only in the close-up, where its numbers are read once."""
        col = _legible_dots(VectorColumn(values, self.theme, key=key, colour=colour, cell_width=width,
                                         cell_height=self.cell_h, max_rows=MAX_STATE_ROWS,
                                         show_numbers=digits))
        # Pango names with Unicode subscripts: a LaTeX run per step would be slow.
        col.label = caption(label, self.theme, TEXT_SIZE, colour).next_to(col.frame, UP, buff=0.1)
        col.add(col.label)
        return _one_precision(col, self.theme)

    def _panel_column(self, values, key: str, label: str, colour, x: float,
                      digits: bool = False) -> VectorColumn:
        col = self._column(values, key, label, colour, digits=digits)
        col.shift(np.array([x, PANEL_TOP, 0]) - col.frame.get_top())
        return col

    # -- builders ------------------------------------------------------------

    def _encoder_states(self) -> VGroup:
        """h_1 ... h_T under the source words, each with its name."""
        theme, view = self.theme, self.view
        cols = VGroup()
        for i in range(self.T):
            col = _legible_dots(VectorColumn(view.encoder_states[i], theme, key=view.encoder_keys[i],
                                             colour=theme.encoder, cell_width=self.cell_w,
                                             cell_height=self.cell_h, max_rows=MAX_STATE_ROWS,
                                             show_numbers=False))
            col.shift(np.array([self.xs[i], self.h_top, 0]) - col.frame.get_top())
            name = caption(f"h{subscript(i + 1)}", theme, TEXT_SIZE, theme.encoder).move_to([self.xs[i], self.h_name_y, 0])
            part = VGroup(col, name)
            part.key = view.encoder_keys[i]  # a chip has no digits to name it: the moves read this
            cols.add(part)
        return _one_precision(cols, theme)

    def _score_row(self, t: int, digits: bool = False) -> VGroup:
        """e_tj under the h_j: heat cells, with their digits only in the close-up."""
        step = self.view.steps[t]
        e = step.scores
        scale = max(float(np.max(np.abs(e))), 1e-9)
        row = VGroup()
        for i in range(self.T):
            cell = ValueCell(e[i], self.theme, (step.scores_key, i), self.row_w, self.cell_h, scale,
                             show_number=digits)
            row.add(cell.move_to([self.xs[i], self.scores_y, 0]))
        return _one_precision(row, self.theme)

    def _weight_row(self, t: int, digits: bool = False) -> VGroup:
        """a_tj under the scores: heat cells, with their digits only in the close-up."""
        theme, step = self.theme, self.view.steps[t]
        a = step.weights
        row = VGroup()
        for i in range(self.T):
            cell = ValueCell(a[i], theme, (step.weights_key, i), self.row_w, self.cell_h,
                             fill=theme.heat(a[i]), show_number=digits)
            row.add(cell.move_to([self.xs[i], self.weights_y, 0]))
        return row

    def _weight_bars(self, t: int) -> VGroup:
        """a_tj as bars standing on a common line under the weights' numbers (height a_tj)."""
        theme, a = self.theme, self.view.steps[t].weights
        bars = VGroup()
        width = min(0.4, self.cell_w * 0.5)
        for i in range(self.T):
            h = max(float(a[i]) * BAR_MAX_H, 0.01)  # a hairline for a zero weight: the slot stays legible
            bar = Rectangle(width=width, height=h, stroke_width=0, fill_color=theme.weight, fill_opacity=0.9)
            bars.add(bar.move_to([self.xs[i], self.bar_base_y + h / 2, 0]))
        return bars

    def _bar_base(self) -> Line:
        left, right = self.xs[0] - self.pitch / 2, self.xs[-1] + self.pitch / 2
        return Line([left, self.bar_base_y, 0], [right, self.bar_base_y, 0], stroke_width=1.5,
                    stroke_color=self.theme.muted)

    def _links(self, s_prev: VectorColumn, weights=None) -> VGroup:
        """Lines from s_{t-1} to each h_j (to its bar's foot).

        Without ``weights``: all alike, thin (f_att looks at every h_j).
        With them: thickness and opacity by a_tj, so the eye follows the
        links that carry the weight.
        """
        theme = self.theme
        start = s_prev.label.get_top() + UP * 0.06
        links = VGroup()
        for j in range(self.T):
            if weights is None:
                width, opacity = 1.5, 0.35
            else:
                a = float(weights[j])
                width, opacity = 0.5 + 9.5 * a, 0.08 + 0.92 * a
            links.add(Line(start, [self.xs[j], self.bar_base_y, 0], stroke_width=width,
                           stroke_color=theme.weight, stroke_opacity=opacity))
        return links

    def _row_name(self, word: str, tex: str, colour, y: float) -> VGroup:
        """A row's name left of the source columns: a word and its symbol (the symbol alone if tight)."""
        right = self.xs[0] - self.cell_w / 2 - 0.2
        symbol = math_label(tex, self.theme, EQUATION_SIZE, colour)
        name = VGroup(caption(word, self.theme, TEXT_SIZE, self.theme.muted), symbol).arrange(RIGHT, buff=0.12)
        if name.width > right + SAFE_EDGE_TEXT:
            name = VGroup(symbol)
        return name.move_to([0, y, 0]).align_to([right, 0, 0], RIGHT)

    def _explain(self, tex_lines: list[str], text: str) -> VGroup:
        """The equation of the moment and a sentence about it, right of the decoder panel."""
        theme = self.theme
        width = EXPLAIN_RIGHT - EXPLAIN_LEFT
        group = VGroup()
        if tex_lines:
            eq = VGroup(*[math_label(t, theme, EQUATION_SIZE) for t in tex_lines]).arrange(
                DOWN, aligned_edge=LEFT, buff=0.12)
            for line in eq[1:]:
                line.shift(RIGHT * 0.4)  # a continued line is indented
            group.add(eq)
        lines = VGroup()
        words, line = unbreakable_words(text), ""
        for w in words:
            trial = f"{line} {w}".strip()
            if line and caption(trial, theme, TEXT_SIZE).width > width:
                lines.add(caption(line, theme, TEXT_SIZE))
                line = w
            else:
                line = trial
        lines.add(caption(line, theme, TEXT_SIZE))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        group.add(lines)
        group.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        group.move_to([0, 0, 0]).align_to([EXPLAIN_LEFT, 0, 0], LEFT).align_to([0, EXPLAIN_TOP, 0], UP)
        group.text = " ".join(words)  # the prose in one line: the column's breaks are too narrow for a caption
        return group

    # -- the "French so far" strip -----------------------------------------

    def _strip_word(self, word: str, colour) -> Mobject:
        return readable_text(word, self.theme, STRIP_WORD, max_width=2.2, colour=colour)

    def _strip_layout(self, words: list[Mobject]) -> tuple[list[np.ndarray], int]:
        """Positions of the strip's words, and how many at the front are hidden
        (the last words always show; hidden ones give way to an ellipsis)."""
        left = self.strip_label.get_right()[0] + 0.3
        room = SAFE_EDGE_TEXT - left
        gap = 0.22
        first = 0
        while first < len(words) - 1 and (sum(w.width for w in words[first:]) + gap * (len(words) - first - 1)
                                          + (self.strip_dots.width + gap if first else 0)) > room:
            first += 1
        x = left + (self.strip_dots.width + gap if first else 0)
        places = [None] * first
        for w in words[first:]:
            places.append(np.array([x + w.width / 2, STRIP_Y, 0]))
            x += w.width + gap
        return places, first

    # -- the scene: a storyboard of beats --------------------------------------

    def construct(self) -> None:
        self.set_stage()
        self.carry_the_states_up()
        self.show_encoder_states()
        for t, mode in self.step_modes():
            self.open_step(t, mode)
            self.score_each_h_j(t, mode)  # the first step's opens the close-up ...
            self.weigh_scores(t, mode)
            self.weigh_and_sum_context(t, mode)  # ... and its context closes it
            self.decode_word(t, mode)
            filing = self.file_weights_row(t, mode)
            self.pass_state_and_word_on(t, mode, alongside=filing)
        self.build_alignment_from_rows()
        self.say_why()
        self.hold_final()

    def step_modes(self) -> list[tuple[int, str]]:
        """Each step and how fully it is explained: "full", then "brief", then "quick"."""
        return [(t, "full" if t < FULL_STEPS else ("brief" if t == FULL_STEPS else "quick"))
                for t in range(len(self.view.steps))]

    def set_stage(self) -> None:
        """Layout and every piece that lives across steps; the first frame names the clip."""
        theme = self.theme
        self._layout()
        view, n = self.view, len(self.view.steps)
        first = view.steps[0]
        self.stage = st = Stage(title=caption("Attention over the encoder states", theme, 28))
        st.title.move_to([0, TITLE_Y, 0]).align_to([-SAFE_EDGE, 0, 0], LEFT)
        st.kind = self._kind_note(st.title, n)
        st.words = word_labels(view.source_tokens, self.xs, self.words_y, self.pitch, theme)
        st.states = self._encoder_states()
        st.e_name = self._row_name("score", r"e_{tj}", theme.score, self.scores_y)
        st.a_name = self._row_name("weight", r"a_{tj}", theme.weight, self.weights_y)
        st.bar_base = self._bar_base()
        st.s_prev = self._panel_column(first.previous_state, first.previous_state_key, f"s{subscript(0)}",
                                       theme.decoder, self.x_s)
        st.op_col = self._panel_column(first.input_embedding, first.input_embedding_key, f"op{subscript(0)}",
                                       theme.target_embedding, self.x_op)
        st.box = CellBox("decoder", theme, theme.decoder, width=1.6, height=1.1)
        st.box.move_to([self.x_box, st.s_prev.frame.get_center()[1], 0])
        # The strip starts with <START>, op_0: the word the decoder reads next is always its last.
        self.strip_label = caption("French so far:", theme, TEXT_SIZE, theme.muted)
        self.strip_label.move_to([0, STRIP_Y, 0]).align_to([-SAFE_EDGE, 0, 0], LEFT)
        self.strip_dots = caption(ELLIPSIS, theme, STRIP_WORD, theme.muted)
        self.strip_dots.move_to([self.strip_label.get_right()[0] + 0.3 + self.strip_dots.width / 2, STRIP_Y, 0])
        st.strip_words = [self._strip_word(first.input_word, theme.target_embedding)]
        st.strip_words[0].move_to(self._strip_layout(st.strip_words)[0][0])
        st.align_name = self._alignment_name()
        st.pacer = CaptionPacer(self)
        # h_1 .. h_T open as the strip the encoder leaves (same place, same look), saying whose they are.
        self.strip = StateStrip(view.encoder_states, theme)
        self.strip_note = self.strip.place_note(wrapped_note(
            f"h\u2081 \u2026 h{subscript(self.T)} from the network with attention (its own encoder)",
            theme, TEXT_SIZE, theme.muted, max_width=SAFE_EDGE - self.strip.get_right()[0] - 0.3))
        self.add(st.title, st.kind, st.words, self.strip, self.strip_note)

    def carry_the_states_up(self) -> None:
        """The strip unfolds into h_1 .. h_T under their words (its note read first)."""
        run = 2.0
        self.wait(max(0.5, reading_time(self.strip_note.text) - run))
        self.play(unfold_strip(self.strip, list(self.stage.states), leaving=(self.strip_note,)), run_time=run)

    def show_encoder_states(self) -> None:
        """h_1 ... h_T stand under their words; s_0, op_0 and the decoder appear in the panel."""
        st, view = self.stage, self.view
        intro = ("Untrained, seeded weights: expect no real alignment." if view.untrained
                 else "One encoder state h\u2c7c per source word.")
        st.pacer.swap(self._explain([], intro + " The decoder starts from s\u2080 = 0."),
                      fade_in(st.s_prev), fade_in(st.op_col), Create(st.box), fade_in(self.strip_label),
                      fade_in(st.strip_words[0]), run_time=1.2)

    def open_step(self, t: int, mode: str) -> None:
        """This step's pieces, built now that the previous step has come to rest (nothing played).
        Digits only in the first step, the clip's one close-up."""
        st, theme, n = self.stage, self.theme, len(self.view.steps)
        st.step_start = self.time
        label = caption(f"step {t + 1} of {n}", theme, TEXT_SIZE, theme.highlight)
        label.align_to(st.title, DOWN).align_to([SAFE_EDGE, 0, 0], RIGHT)
        # The counter's texts swap without crossing (each is its own caption cue).
        st.label_anim = (fade_in(label) if st.step_label is None
                         else AnimationGroup(caption_out(st.step_label), caption_in(label)))
        st.step_label = label
        digits = t == 0
        st.new_scores, st.new_weights = self._score_row(t, digits), self._weight_row(t, digits)
        st.new_bars = self._weight_bars(t)
        st.new_links = self._links(st.s_prev)

    def _open_close_up(self) -> None:
        """The clip's one close-up begins: the first step's scores, weights and context, in
        numbers, from the moment its scores appear (:meth:`_collapse_digits` ends it)."""
        self._close_up = self.close_up("step 1 in numbers: scores, weights, context")
        self._close_up.__enter__()

    def score_each_h_j(self, t: int, mode: str) -> None:
        """f_att scores every h_j against s_{t-1}: a thin link to each, its score under it (after
        the first step the score row changes in place)."""
        st, theme, view = self.stage, self.theme, self.view
        st.focus = SurroundingRectangle(st.s_prev.frame, color=theme.highlight, buff=0.06)
        if t > 0:
            self._rescore(t, mode)
            return
        # The close-up: what is not scored is veiled until the context is made.
        veils_in, st.veils_out = focus(theme, st.op_col, st.box, VGroup(self.strip_label, *st.strip_words))
        first = [fade_in(st.e_name), fade_in(st.a_name), Create(st.bar_base), fade_in(st.align_name), veils_in]
        text = self._explain(_SCORE_TEX[view.score], f"f\u2090\u209c\u209c scores every h\u2c7c against s\u2080.")
        st.pacer.swap(text, st.label_anim, Create(st.focus), *first, run_time=0.8)
        self._open_close_up()
        self.play(Create(st.new_links), LaggedStart(*[
            AnimationGroup(Indicate(st.states[i][0].frame, color=theme.highlight, scale_factor=1.03),
                           fade_in(st.new_scores[i], shift=DOWN * 0.1))
            for i in range(self.T)], lag_ratio=0.25), run_time=2.0)
        self.add(st.new_scores)  # the row, not its cells one by one: later beats move it as one
        st.scores, st.links = st.new_scores, st.new_links
        self.pause_on_result("scores")

    def _rescore(self, t: int, mode: str) -> None:
        """The score row recomputed in place (its cells take the new scores' colours); the links
        from the new s_{t-1} go back to even."""
        st, view = self.stage, self.view
        morph = [ReplacementTransform(st.scores, st.new_scores), ReplacementTransform(st.links, st.new_links)]
        if mode == "quick":
            if t == FULL_STEPS + 1:
                st.pacer.swap(self._explain([], "Faster now: thick links show which h\u2c7c make "
                                                "up each context."), run_time=0.5)
            self.play(st.label_anim, *morph, run_time=0.4)
        else:
            text = self._explain([], f"Step {t + 1}: the same with s{subscript(t)}, the state after "
                                     f"\u201c{view.steps[t - 1].chosen}\u201d.")
            st.pacer.swap(text, st.label_anim, Create(st.focus), run_time=0.8)
            self.play(*morph, run_time=1.2)
        st.scores, st.links = st.new_scores, st.new_links

    def weigh_scores(self, t: int, mode: str) -> None:
        """Softmax: the score boxes become weight boxes (last step's weights give way); the bars
        and the links take a_tj."""
        st = self.stage
        new = st.new_weights
        w_boxes = VGroup(*[c.box for c in new]).set_z_index(-1)  # the copies pass under the scores' digits
        w_numbers = VGroup(*[c.number for c in new if c.number is not None])
        weighted = self._links(st.s_prev, self.view.steps[t].weights)
        grow = [TransformFromCopy(VGroup(*[c.box for c in st.scores]), w_boxes), Transform(st.links, weighted)]
        if st.weights is not None:
            grow += [fade_out(st.weights, rate_func=window(0.0, 0.4)), ReplacementTransform(st.bars, st.new_bars)]
        else:
            grow.append(LaggedStart(*[GrowFromEdge(b, DOWN) for b in st.new_bars], lag_ratio=0.05))
        if mode == "quick":
            self.play(*grow, run_time=0.5)
        else:
            unfocus = [fade_out(st.focus)]
            if mode == "full":
                st.pacer.swap(self._explain([r"a_{tj} = \mathrm{softmax}_j\,(e_{tj})"],
                                            "Softmax: weights summing to 1, drawn as bars and links."),
                              *unfocus, run_time=0.8)
                unfocus = []
            self.play(*grow, *unfocus, run_time=1.0 if mode == "full" else 0.7)
        # The new row itself stands where its boxes landed (its digits, if any, still hidden).
        self.remove(w_boxes)
        self.add(new)  # (no frame is drawn before its digits' fade in begins at nothing)
        st.weights, st.bars = new, st.new_bars
        if mode != "quick":
            if len(w_numbers):
                self.play(*[_FadeInPlace(d, out=False) for d in w_numbers], run_time=0.3)
            self.pause_on_result("weights")

    def weigh_and_sum_context(self, t: int, mode: str) -> None:
        """c_t forms from the h_j, each copy scaled and faded by its weight on the way (in numbers
        in the close-up, which then collapses: every row and vector a chip again)."""
        st, theme, step = self.stage, self.theme, self.view.steps[t]
        c_name = f"c{subscript(t + 1)}"
        st.c_col = self._panel_column(step.context, step.context_key, c_name, theme.value, self.x_c,
                                      digits=t == 0)
        sources, ghosts = self._weighted_ghosts(st.states, t, st.c_col)
        if mode == "full":
            st.pacer.swap(self._explain([r"c_t = \textstyle\sum_j a_{tj}\,h_j"],
                                        f"{c_name}: each h\u2c7c scaled and faded by its weight."), run_time=0.8)
        self.play(LaggedStart(*[TransformFromCopy(src, g) for src, g in zip(sources, ghosts)], lag_ratio=0.05),
                  run_time={"full": 1.6, "brief": 1.1}.get(mode, 0.5))
        self.play(fade_out(ghosts), fade_in(st.c_col), run_time=0.6 if mode != "quick" else 0.25)
        if t == 0:
            self.pause_on_result("context")
            self._collapse_digits()

    def _collapse_digits(self) -> None:
        """The close-up ends: the digits read once fade, their cells stay as heat, the veils lift."""
        st = self.stage
        cells = [c for group in (st.scores, st.weights, st.c_col.cells) for c in group
                 if isinstance(c, ValueCell) and c.number is not None]
        # Each digit fades where it stands, none leaves the scene (a remover, or a new group of
        # them, would make the scene split their rows into loose cells).
        self.play(*[_FadeInPlace(c.number) for c in cells], st.veils_out, run_time=0.6)
        for c in cells:
            c.remove(c.number)
            c.number = None
        self._close_up.__exit__(None, None, None)

    def decode_word(self, t: int, mode: str) -> None:
        """The decoder reads op_{t-1}, s_{t-1} and c_t, writes s_t, then the closest French word."""
        st, theme, view = self.stage, self.theme, self.view
        inputs = VGroup(st.op_col.frame, st.s_prev.frame, st.c_col.frame,
                        st.op_col.label, st.s_prev.label, st.c_col.label)
        st.bracket = DashedVMobject(RoundedRectangle(corner_radius=0.12, width=inputs.width + 0.25,
                                                     height=inputs.height + 0.2, stroke_color=theme.muted,
                                                     stroke_width=2).move_to(inputs), num_dashes=40)
        st.into = arrow_between(st.bracket, st.box.box, theme.decoder, buff=0.05)
        step = view.steps[t]
        st.s_new = self._panel_column(step.state, step.state_key, f"s{subscript(t + 1)}", theme.decoder, self.x_new)
        st.out = arrow_between(st.box.box, st.s_new.frame, theme.decoder, buff=0.08)
        st.word, p_label = self._emitted(t, st.s_new)
        # The word's probability is read once, in the first step (a readout that changed from
        # step to step would flicker 1.00 -> 0.97 -> 1.00 in one place).
        st.p_label = p_label if t == 0 else None
        p_in = [fade_in(p_label)] if t == 0 else []
        if mode == "full":
            st.pacer.swap(self._explain([*_DECODER_TEX[view.decoder], _OUTPUT_TEX],
                                        f"The decoder writes s{subscript(t + 1)}, then the closest French word."),
                          run_time=0.8)
            self.play(Create(st.bracket), GrowArrow(st.into), run_time=0.6)
            self.play(Indicate(st.box.box, color=theme.decoder, scale_factor=1.05), GrowArrow(st.out),
                      fade_in(st.s_new, shift=RIGHT * 0.2), run_time=0.9)
            self.play(fade_in(st.word, shift=RIGHT * 0.2), *p_in, run_time=0.6)
        else:
            self.play(Create(st.bracket), GrowArrow(st.into), GrowArrow(st.out), fade_in(st.s_new),
                      run_time=0.8 if mode == "brief" else 0.4)
            self.play(fade_in(st.word), *p_in, run_time=0.4 if mode == "brief" else 0.25)
        self.pause_on_result("word")

    def file_weights_row(self, t: int, mode: str) -> Animation | None:
        """A copy of this step's weight row files into row t of the alignment so far: its heat
        boxes shrink and slide right along their own line, then up into the row. The row itself
        stays: the next step's weights take its place.

        Played on its own when the step is explained in full; otherwise returned, to play
        while s_t moves on (the two paths are far apart).
        """
        st = self.stage
        row = self._alignment_row(t)
        st.align_rows.append(row)
        filing = file_row(st.weights.copy(), row, t)
        if mode != "full":
            return filing
        self.play(filing, run_time=1.0)
        return None

    def pass_state_and_word_on(self, t: int, mode: str, alongside: Animation | None = None) -> None:
        """The word joins the strip; s_t moves into the s_{t-1} slot (``alongside``: the weight
        row filing away at the same time); the word goes up into op."""
        st, theme, view = self.stage, self.theme, self.view
        step = view.steps[t]
        new_strip = self._strip_word(step.chosen, theme.target_embedding)
        st.strip_words.append(new_strip)
        places, hidden = self._strip_layout(st.strip_words)
        moves = self._strip_moves(places, hidden)
        new_strip.move_to(places[-1])
        leaving = [st.bracket, st.into, st.out, st.c_col, *([st.p_label] if st.p_label is not None else [])]
        if t + 1 < len(view.steps):
            nxt = view.steps[t + 1]
            next_op = self._panel_column(nxt.input_embedding, nxt.input_embedding_key,
                                         f"op{subscript(t + 1)}", theme.target_embedding, self.x_op)
            st.s_prev = self._hand_off_state(st.s_new, [st.s_prev, *leaving], t, nxt, mode, alongside)
            self.play(Transform(st.word, new_strip), *moves, run_time=0.7 if mode != "quick" else 0.4)
            self.remove(st.word)
            self.add(new_strip)
            st.op_col = self._feed_word_back(new_strip, st.op_col, next_op, t, mode)
        else:
            self.play(*([alongside] if alongside else []), *[caption_out(m) for m in leaving],
                      Transform(st.word, new_strip), *moves, run_time=0.7)
            st.final = [st.s_prev, st.op_col, st.s_new, st.box, st.scores, st.weights, st.bars, st.links]
            self.remove(st.word)
            self.add(new_strip)
        self.step_times.append((st.step_start, self.time))
        self.strip_log.append(tuple(getattr(w, "full_text", "") for w in st.strip_words[hidden:]))

    def _strip_moves(self, places: list, hidden: int) -> list[Animation]:
        """The strip's words shift left to make room (the oldest give way to an ellipsis)."""
        st = self.stage
        moves: list[Animation] = []
        for k, w in enumerate(st.strip_words[:-1]):
            if places[k] is None:
                if w in self.mobjects:
                    moves.append(caption_out(w))
            else:
                moves.append(w.animate.move_to(places[k]))
        if hidden and not st.dots_shown:
            moves.append(caption_in(self.strip_dots))
            st.dots_shown = True
        return moves

    # -- the alignment: grown row by row, then enlarged ------------------------------

    def _align_geometry(self) -> tuple[float, float]:
        """Cell width and height of the alignment so far (every row above the weights' line)."""
        n = len(self.view.steps)
        bottom = self.weights_y + self.cell_h / 2 + 0.15
        return (ALIGN_RIGHT - ALIGN_LEFT) / self.T, min(0.2, (ALIGN_TOP - bottom) / n)

    def _alignment_name(self) -> Mobject:
        """The name over the alignment so far: a_tj in the weights' colour."""
        name = math_label(r"a_{tj}", self.theme, EQUATION_SIZE, self.theme.weight)
        return name.move_to([(ALIGN_LEFT + ALIGN_RIGHT) / 2, ALIGN_TOP + 0.3, 0])

    def _alignment_row(self, t: int) -> VGroup:
        """Row t of the alignment so far: the step's weights as heat boxes, no digits."""
        theme, a = self.theme, self.view.steps[t].weights
        w, h = self._align_geometry()
        y = ALIGN_TOP - (t + 0.5) * h
        return VGroup(*[ValueCell(a[j], theme, None, w, h, show_number=False, fill=theme.heat(a[j]))
                        .move_to([ALIGN_LEFT + (j + 0.5) * w, y, 0]) for j in range(self.T)])

    def build_alignment_from_rows(self) -> None:
        """The steps' pieces leave as the alignment so far grows into the matrix (one play: the
        picture is never empty) and the title becomes the heading; then the source words slide up
        to name its columns and the strip's words travel to name its rows. Heat only: the
        weights' digits were read in the close-up."""
        st = self.stage
        st.pacer.wait_for_reader()
        parts = self._alignment_parts()
        matrix, heading, note = parts["matrix"], parts["heading"], parts["note"]
        self.align_parts = parts
        panel = [*st.final, st.states, st.e_name, st.a_name, st.bar_base]
        self.play(*[fade_out(m, rate_func=window(0.0, 0.5)) for m in panel], fade_out(st.kind),
                  fade_out(st.step_label), caption_out(st.pacer.current), caption_out(st.title),
                  caption_in(heading), self._enlarge_rows(matrix, [i for i, _ in parts["rows"]]),
                  fade_out(st.align_name, rate_func=window(0.0, 0.3)),
                  fade_in(matrix.frame, rate_func=window(0.5, 1.0)), run_time=1.8)
        start = self.time
        slides = [slide(w, c, what="source_word", src=("word", k), dst=("column", k))
                  for k, (w, c) in enumerate(zip(st.words, parts["cols"]))]
        self.play(LaggedStart(*slides, lag_ratio=0.05), self._words_to_row_names(parts["rows"]),
                  fade_in(parts["src"], rate_func=window(0.6, 1.0)),
                  fade_in(parts["out"], rate_func=window(0.6, 1.0)), caption_in(note),
                  run_time=max(1.6, 0.25 * len(parts["rows"])))
        self.remove(*st.words)
        self.add(parts["cols"])
        # Heading and note stay to the end: read before the final hold ends (the why-lines, if
        # any, follow at once, each held for its own reading).
        why_time = sum(1.0 + reading_time(self._why_line(*w).text) for w in self._why_rows())
        due = reading_time(f"{heading.original_text} {note.text}") - (self.time - start) - FINAL_HOLD - why_time
        if due > 0:
            self.wait(due + 1.0 / config.frame_rate)

    def _why_rows(self) -> list[tuple[str, int, int, int]]:
        """Rows whose strongest weight is not on the grammar's word for them, at most one of each
        kind: ("later", i, peak, grammar's j) where the peak is on a later word (the encoder reads
        left to right, so h_peak has read word j too), ("earlier", ...) where it is on an earlier
        one (h_peak has not read word j: no such excuse). The one furthest from its word of each
        kind. None without the grammar's alignment of these very rows, or for untrained weights."""
        view = self.view
        ref, ref_align = view.reference, view.reference_alignment
        if view.untrained or ref is None or ref_align is None or tuple(view.chosen[:len(ref)]) != tuple(ref):
            return []
        found: dict[str, tuple[int, int, int, int]] = {}
        for i, j in enumerate(ref_align):
            peak = int(np.argmax(view.alignment[i]))
            if peak == j:
                continue
            kind = "later" if peak > j else "earlier"
            if kind not in found or abs(peak - j) > abs(found[kind][1] - found[kind][2]):
                found[kind] = (i, peak, int(j), 0)
        return [(kind, *found[kind][:3]) for kind in ("later", "earlier") if kind in found]

    def _why_line(self, kind: str, i: int, peak: int, j: int) -> Mobject:
        """One short line: why row i (an output word) looks at source word ``peak``, not at word j."""
        view, theme = self.view, self.theme
        row, at, meant = view.chosen[i], view.source_tokens[peak], view.source_tokens[j]
        h = f"h{subscript(peak + 1)}"
        if kind == "later":
            text = f"{row} \u2192 {at}: reading left to right, {h} has read \u201c{meant}\u201d too"
        else:
            guided = getattr(getattr(self.trace.model, "config", None), "guide", 0)
            text = (f"{row} \u2192 {at}: {h} never read \u201c{meant}\u201d; "
                    + ("the grammar's hint did not hold here" if guided else "nothing told attention where to look"))
        return step_caption(text, theme, 0, TEXT_SIZE)

    def say_why(self) -> None:
        """Where a row does not sit on its word, one line says why, a ring on that cell and its
        weight in digits: a later word's state has read the word (left-to-right encoder); an
        earlier word's has not, and the screen says only what is true."""
        parts = self.align_parts
        matrix, digits = parts["matrix"], parts["digits"]
        ring = None
        for k, (kind, i, peak, j) in enumerate(self._why_rows()):
            line = self._why_line(kind, i, peak, j).move_to([0, WHY_YS[k], 0])
            cell = matrix.cell(i, peak)
            if cell is None:
                continue
            number = digits[(i, peak)].move_to(cell.box)
            cell.add(number)
            cell.number = number
            target = SurroundingRectangle(cell, color=self.theme.highlight, buff=0.04, stroke_width=3)
            if ring is None:
                ring = target
                enter = Create(ring)
            else:
                enter = ring_to(ring, cell, buff=0.04)
            self.play(enter, fade_in(number), caption_in(line), run_time=1.0)
            self.wait(reading_time(line.text) - (FINAL_HOLD if k == len(self._why_rows()) - 1 else 0)
                      + 1.0 / config.frame_rate)

    def _words_to_row_names(self, rows: list) -> Animation:
        """Each word of the strip travels up to name its row (a word hidden behind the ellipsis
        appears there); <START>, read but never written, and the ellipsis leave."""
        st = self.stage
        written = st.strip_words[1:]
        # (<START> only if still shown: fading out a word hidden behind the ellipsis would show it.)
        moves: list[Animation] = [caption_out(m) for m in (st.strip_words[0], self.strip_label) if m in self.mobjects]
        if st.dots_shown:
            moves.append(caption_out(self.strip_dots))
        for i, label in rows:
            word = written[i]
            if word in self.mobjects:
                k = label.font_size / word.font_size  # (heights differ when the label is cut)
                # Right-aligned like the names it stands for (a word cut longer than they are
                # reaches further left, never into the matrix).
                to = [label.get_right()[0] - word.width * k / 2, label.get_y(), 0]
                moves.append(slide(word, to, scale=k, what="row_name", src=("strip", i + 1), dst=("row_name", i)))
            else:
                moves.append(fade_in(label))
        return LaggedStart(*moves, lag_ratio=0.15)

    def _enlarge_rows(self, matrix: ValueMatrix, rows: list[int]) -> Animation:
        """The alignment so far grows, as one grid, into the matrix (every row keeps its place in
        the grid, so no row crosses another); the numbers fade in once it has landed."""
        st = self.stage
        pairs = [(st.align_rows[i][j], matrix.cell(i, j)) for i in rows for j in range(self.T)
                 if matrix.cell(i, j) is not None]
        big = VGroup(*[b for _, b in pairs])
        boxes = VGroup(*[a.box.copy() for a, _ in pairs])
        goal = VGroup(*[b.box.copy() for _, b in pairs])
        return moved(Transform(boxes, goal, remover=True, rate_func=window(0.0, 0.75)),
                     fade_out(VGroup(*st.align_rows), rate_func=window(0.0, 0.05)),
                     fade_in(big, rate_func=window(0.72, 1.0)),
                     what="enlarge", src="alignment so far", dst=("matrix", tuple(rows)))

    def _kind_note(self, title: Mobject, n: int) -> Mobject:
        """The score's kind and how the network was trained, after the title; the step counter
        ("step 13 of 13") keeps the right end of the line."""
        view, theme = self.view, self.theme
        which = self._how_learned() if view.trained else "untrained"
        counter_left = SAFE_EDGE - caption(f"step {n} of {n}", theme, TEXT_SIZE).width - 0.3
        for said in (f"{_SCORE_NAME[view.score]} score, {which}", f"{view.score.replace('_', ' ')} score, {which}",
                     which, "untrained" if view.untrained else "trained"):  # the note shortened when the counter leaves it no room
            kind = caption(said, theme, TEXT_SIZE, theme.muted)
            kind.next_to(title, RIGHT, buff=0.3).align_to(title, DOWN)
            if kind.get_right()[0] <= counter_left:
                return kind
        return VGroup()  # no room at all (a long counter): the title alone

    def _how_learned(self) -> str:
        """How the translator learned, in the reader's words (not the training log's)."""
        guide = getattr(getattr(self.trace.model, "config", None), "guide", 0)
        return "learned with the grammar's alignment as a hint" if guide else "learned from translation alone"

    def _alignment_parts(self) -> dict:
        """The alignment matrix and its names, laid out, nothing shown."""
        theme, view = self.theme, self.view
        n, T = view.alignment.shape
        note_text = (network_note(self.trace, "model") + ": the weights show no real alignment yet"
                     if view.untrained else
                     "Each row: where the decoder looked while it wrote that word")
        note = step_caption(note_text, theme, NOTE_Y, TEXT_SIZE)
        if not self._why_rows():
            note.align_to([0, -3.75, 0], DOWN)  # the bottom line is free (clear of the edge)
        # Cells as large as the frame allows: 12 columns x 13 rows still fit.
        cell_w = min(1.0, 11.0 / T)
        top_room = 2.3  # under the heading, the axis names and the source words
        cell_h = min(0.5, (top_room - note.get_top()[1] - 0.15) / n)
        matrix = ValueMatrix(view.alignment, theme, key=view.alignment_key, row_labels=list(view.chosen),
                             colour=theme.weight, max_rows=13, max_cols=12, cell_width=cell_w,
                             cell_height=cell_h, heat=True, label_size=24)
        # Heat only: the weights' digits were read in the close-up (say_why shows the few it names).
        digits = {}
        for ij, cell in matrix.cell_by_index.items():
            digits[ij] = cell.number
            cell.remove(cell.number)
            cell.number = None
        # Every name at one readable size, never shrunk to its row's height (an accent and a
        # descender reach into the next row's gap, not its name); long French words are cut to
        # keep the grid centred.
        for k, lab in enumerate(matrix.row_labels):
            matrix.row_labels.submobjects[k] = readable_text(lab.full_text, theme, TEXT_SIZE, max_width=1.8).move_to(lab)
        heading = caption("Alignment: every step's weights", theme, 26)
        heading.move_to([0, TITLE_Y, 0])
        top = matrix.frame.get_top()
        matrix.shift([0.6 - top[0], top_room - top[1], 0])
        for lab in matrix.row_labels:
            lab.set_color(theme.target_embedding).align_to(matrix.frame.get_left() + LEFT * 0.15, RIGHT)
        xs = [matrix.cell(0, j).get_x() for j in range(T) if matrix.cell(0, j) is not None]
        cols = word_labels(view.source_tokens[:len(xs)], xs, top_room + 0.4, cell_w, theme)
        out = caption("output words", theme, TEXT_SIZE, theme.target_embedding)
        out.move_to([0, top_room + 0.9, 0]).align_to(matrix.row_labels, RIGHT)
        if out.get_left()[0] < -6.85:  # a wide matrix leaves its names little room on the left
            out.align_to([-6.85, 0, 0], LEFT)
        src = self._source_words_name(cols, out, top_room)
        shown_rows = sorted({i for (i, _) in matrix.cell_by_index})
        return dict(matrix=matrix, heading=heading, note=note, cols=cols, src=src, out=out, digits=digits,
                    rows=list(zip(shown_rows, matrix.row_labels)))

    def _source_words_name(self, cols: VGroup, out: Mobject, top_room: float) -> Mobject:
        """"source words" where it touches no column word: left of them, in the corner under
        "output words" (a table's corner), else above them (centred, then at the right end)."""
        src = caption("source words", self.theme, TEXT_SIZE, self.theme.encoder)
        left, right = cols.get_left()[0], cols.get_right()[0]
        spots = [[left - 0.25 - src.width / 2, top_room + 0.4], [(left + right) / 2, top_room + 0.9],
                 [right - src.width / 2, top_room + 0.9]]

        def clear(mob: Mobject) -> bool:
            inside = mob.get_left()[0] >= -SAFE_EDGE_TEXT and mob.get_right()[0] <= SAFE_EDGE_TEXT
            return inside and not any(_touch(mob, other) for other in [*cols, out])

        for x, y in spots:
            if clear(src.move_to([x, y, 0])):
                return src
        return src.move_to([spots[0][0], spots[0][1], 0]) if spots[0][0] - src.width / 2 >= -SAFE_EDGE_TEXT else src

    # -- moves between steps ----------------------------------------------------

    def _hand_off_state(self, s_new: VectorColumn, leaving: list, t: int, nxt, mode: str,
                        alongside: Animation | None = None) -> VectorColumn:
        """s_t moves, as a chip over the decoder box and c_t's slot, into the s_{t-1} slot
        (``leaving``: its old occupant and this step's pieces, gone in the first third;
        ``alongside``: a move played with it)."""
        top = leaving[0].label.get_top()[1] + 0.3
        slot = s_new.get_center() + RIGHT * (self.x_s - s_new.frame.get_x())
        self.play(*([alongside] if alongside else []), hand_off(s_new, slot, leaving=leaving, shrink=0.8,
                           via=[(s_new.get_x(), top, 0), (slot[0], top, 0)],
                           what="s", src=("s", t + 1), dst=("s_prev", t + 2)),
                  run_time=1.4 if mode != "quick" else 0.6)
        # The same numbers, now read as the next step's s_{t-1}.
        for k, lab in enumerate(m for m in s_new.get_family() if isinstance(m, NumberLabel)):
            lab.key = (nxt.previous_state_key, lab.key[1])
        return s_new

    def _feed_word_back(self, strip_word: Mobject, op_col: VectorColumn, next_op: VectorColumn, t: int,
                        mode: str) -> VectorColumn:
        """The word just written goes from the strip up into the op slot; its embedding's numbers appear."""
        frame = SurroundingRectangle(strip_word, color=self.theme.target_embedding, buff=0.06, stroke_width=2)
        self.play(moved(Transform(frame, next_op.frame.copy(), remover=True), caption_out(op_col),
                        caption_in(next_op), what="op", src=("strip", t + 1), dst=("op", t + 1)),
                  run_time=1.0 if mode != "quick" else 0.4)
        return next_op

    # -- pieces of a step ----------------------------------------------------

    def _emitted(self, t: int, s_new: VectorColumn) -> tuple[Mobject, VGroup]:
        """The chosen word and its probability, right of s_t.

        The word is the strip's word (same letters, cut the same way) shown
        larger, so it shrinks into the strip without morphing glyphs.
        """
        theme, step = self.theme, self.view.steps[t]
        word = self._strip_word(step.chosen, theme.target_embedding)
        word.scale(max(1.0, min(26 / STRIP_WORD, 2.3 / word.width)))
        p = VGroup(caption("p =", theme, TEXT_SIZE, theme.muted),
                   NumberLabel(step.probability, theme, step.probability_key))
        p.arrange(RIGHT, buff=0.1)
        VGroup(word, p).arrange(DOWN, buff=0.15, aligned_edge=LEFT).move_to(
            [0, s_new.frame.get_center()[1], 0]).align_to([self.x_word, 0, 0], LEFT)
        return word, p

    def _weighted_ghosts(self, states: VGroup, t: int, c_col: VectorColumn) -> tuple[VGroup, VGroup]:
        """The h_j cell boxes, and the copies that fly into c_t: the weighted sum drawn honestly.

        Each copy lands on c_t's cells scaled by a_tj (its boxes a_tj as
        wide) and faded by a_tj (its opacity a_tj): the states that make up
        most of c_t arrive large and bright, the others small and faint.
        Copies with a_tj < MIN_FLYING_WEIGHT do not fly at all. Layout only,
        no arithmetic on values; boxes only, no numbers (stacked numbers
        would be unreadable, and copying text is slow).
        """
        a = self.view.steps[t].weights
        sources, ghosts = VGroup(), VGroup()
        targets = VGroup(*[c.box for c in c_col.cells if isinstance(c, ValueCell)])
        for j in range(self.T):
            weight = float(a[j])
            if weight < MIN_FLYING_WEIGHT:
                continue
            boxes = VGroup(*[c.box for c in states[j][0].cells if isinstance(c, ValueCell)])
            g = VGroup(*[b.copy().match_width(tb, stretch=True).match_height(tb, stretch=True)
                         .stretch(max(weight, 0.05), 0).move_to(tb) for b, tb in zip(boxes, targets)])
            g.set_opacity(weight)
            g.set_z_index(-1)  # under every cell: a copy leaving h_j, or passing the scores, hides no digit
            sources.add(boxes)
            ghosts.add(g)
        return sources, ghosts
