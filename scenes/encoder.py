"""``encoder``: the encoder reading the source sentence word by word.

Draft 000, "2. Encoder stack of NNs": each token enters as its embedding
x_t; the RNN takes x_t and the previous state h_{t-1} and gives h_t; the
initial state h_0 is all zeros; h_T (the draft's h_8) is the final state,
the context vector the decoder gets.

One code path for whichever network :func:`scenes.seq2seq_view.encoder_view`
gives: by default the translator trained without attention (a GRU,
``h_t = GRU(x_t, h_{t-1})``), else the small seeded tanh RNN
(``h_t = tanh(W_x x_t + W_h h_{t-1} + b)``), said on screen to be untrained.
"""

from __future__ import annotations


import numpy as np

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arrow,
    Create,
    CurvedArrow,
    GrowArrow,
    Indicate,
    SurroundingRectangle,
    ReplacementTransform,
    Transform,
    VGroup,
    TAU,
)

from .base import CaptionPacer, WalkthroughScene
from .components import (
    NUMBER_SIZE,
    CellBox,
    StateStrip,
    TokenStrip,
    VectorColumn,
    caption,
    caption_in,
    caption_out,
    fade_in,
    fade_out,
    math_label,
    subscript,
    title_bar,
)
from .glyphs import cell_width_for
from .motion import hand_off, window
from .part1_layout import column_values, readable_dots, signed_bars, wrapped_note
from .part1_words import CHIP_W, become_chip, chip_column, reader_note
from .seq2seq_view import encoder_view

__all__ = ["EncoderScene"]

# Layout (frame is 14.2 x 8 units): title, note, tokens, working row, history, foot.
TITLE_Y = 3.6
FOOT_Y = -3.68
X_X, PREV_X, CELL_X, NEW_X = -5.45, -2.75, 0.45, 3.75
#: Each step's pace (a factor on its moves' times): steps 1 and 2 told, every later one quick,
#: at most 40 % of the first (STYLE.md 4.5: repeats accelerate).
STEP_PACE = (1.0, 1.0, 0.4)
#: Words already read, and vectors not in the step, at this opacity.
DIM = 0.35
NOTE_FONT = 24
#: The poster held this long (STYLE.md 4.9: 4-8 s).
END_HOLD = 5.5
BAR_W = 0.5  # the magnitude bars beside a column (half each side of zero)
MIN_CELL_H = 0.3  # a number at 20 pt (12 px at 480p) needs this much height


class EncoderScene(WalkthroughScene):
    scene_id = "encoder"
    trace_sections = ("source", "sizes", "plain_model.network", "plain_model.weights", "plain_model.trained",
                      "plain_model.tokens", "plain_model.embeddings", "plain_model.encoder_states")
    description = ("The encoder reads the sentence one word at a time from h_0 = 0: "
                   "h_t = RNN(x_t, h_{t-1}); the last state h_T is the context vector.")
    shown_results = ("state", "context")

    def construct(self) -> None:
        self.set_stage()
        self.show_cell()
        for j in range(len(self.view.tokens)):
            pace = STEP_PACE[min(j, len(STEP_PACE) - 1)]  # steps 1 and 2 told, the rest quick
            if j > 0:
                self.hand_off_state(j, pace)
            self.read_word(j, pace)
            self.step_cell(j, pace)
            if j == 0:
                self.collapse_digits()
            self.file_state(j, pace)
        self.name_the_context()

    # -- beats ------------------------------------------------------------------

    def set_stage(self) -> None:
        """Title, the network in the reader's words and the sentence (the first frame); the
        layout of the working row."""
        view = self.view = encoder_view(self.trace)
        theme = self.theme
        title = title_bar(caption("Encoder", theme, 30), math_label(view.formula, theme, 34), y=TITLE_Y)
        note = wrapped_note(reader_note(self.trace), theme, NOTE_FONT,
                            theme.highlight if view.untrained else theme.muted)
        note.next_to(title, DOWN, buff=0.14)
        self.tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=24, max_width=13.4)
        self.tokens.next_to(note, DOWN, buff=0.16)
        self.add(title, note, self.tokens)  # the title, whose network it is and the sentence
        self.pacer = CaptionPacer(self, FOOT_Y)
        H, E = view.states.shape[1], view.inputs.shape[1]
        # The strip of states the next scenes pick up (one definition of its place and look).
        self.history = StateStrip(view.hidden, theme)
        # The context's name goes to the right of the history row, at the end.
        self.context_name = self.history.context_name(theme)
        space_top = self.tokens.get_bottom()[1] - 0.2
        space_bottom = self.history.get_top()[1] + 0.32  # x_t's arrow curves under the columns, over the strip
        rows = min(max(H, E), 8)
        # Label above the cells (0.45), the cells; as tall as fits, 0.4 at most.
        self.cell_h = max(MIN_CELL_H, min(0.4, (space_top - space_bottom - 0.55) / rows))
        self.work_y = (space_top - 0.45 + space_bottom) / 2
        # Cells as wide as the longest number needs (no decimal dropped).
        self.cell_w = cell_width_for(np.concatenate([view.inputs.ravel(), view.states.ravel()]), theme,
                                     font_size=NUMBER_SIZE)
        self.x_scale = max(float(abs(view.inputs).max()), 1e-9)
        self.cell = CellBox("encoder\nRNN" if view.network == "tanh" else "encoder\nGRU", theme, theme.encoder,
                            width=2.4, height=1.3).move_to([CELL_X, self.work_y, 0])
        self.x_col = self.focus = self.new = None
        self.arrows: list = []

    def show_cell(self) -> None:
        """The cell, and h_0 = 0 in the previous-state slot (its zeros: the draft's "all 0s")."""
        view = self.view
        self.prev = self._state_column(view.states[0], view.state_keys[0], "h\u2080 = 0", self.work_y, PREV_X)
        self.pacer.swap("x\u2081 and h\u2080 = 0 go into the cell; the new state h\u2081 comes out",
                        Create(self.cell.box), fade_in(self.cell.text), fade_in(self.prev))

    def read_word(self, j: int, pace: float) -> None:
        """The word's box travels to x_t's frame: x_1 with its numbers, later ones as chips
        (the last x_t leaves: the next word's vector takes its place)."""
        view, theme = self.view, self.theme
        box = self.tokens.boxes[j]
        label = f"x{subscript(j + 1)}"
        if j == 0:
            new_x = self._column(view.inputs[j], view.input_keys[j], label, theme.embedding,
                                 self.x_scale, self.work_y, X_X)
        else:
            new_x = self._chip(view.inputs[j], label, theme.embedding, self.x_scale, self.slots["x"])
        focus = SurroundingRectangle(box, color=theme.highlight, buff=0.05)
        ghost = box[0].copy()
        old = [caption_out(self.x_col)] if self.x_col is not None else []
        ring = [Transform(self.focus, focus)] if self.focus is not None else [Create(focus)]
        # The words already read are dimmed: the sentence shows where the reading is.
        read = self._dim_word(j - 1) if j > 0 else []
        self.play(*old, *ring, *read, Transform(ghost, new_x.frame.copy()), caption_in(new_x),
                  run_time=0.9 * pace)
        self.remove(ghost)
        self.x_col, self.focus = new_x, self.focus if self.focus is not None else focus

    def step_cell(self, j: int, pace: float) -> None:
        """x_t and h_{t-1} go into the cell; h_t comes out (h_1 with its numbers, later ones chips)."""
        theme, view, work_y, cell = self.theme, self.view, self.work_y, self.cell
        label = f"h{subscript(j + 1)}"
        if j == 0:
            new_state = self._state_column(view.hidden[j], view.hidden_keys[j], label, work_y, NEW_X)
        else:
            new_state = self._chip(view.hidden[j], label, theme.encoder, 1.0, self.slots["new"])
        grow = []
        if not self.arrows:
            self.arrows = self._arrows(self.x_col, self.prev, new_state)
            self.play(Create(self.arrows[0]), GrowArrow(self.arrows[1]), run_time=0.5)
            grow = [GrowArrow(self.arrows[2])]
        self.play(Indicate(cell.box, color=theme.encoder, scale_factor=1.05), *grow,
                  fade_in(new_state, shift=RIGHT * 0.3), run_time=0.9 * pace)
        self.new = new_state
        if j == 0:
            self.pause_on_result("state")
        elif pace == 1.0:
            self.wait(0.3)  # step 2's h_t read before it is filed

    def collapse_digits(self) -> None:
        """Read once, x_1, h_0 and h_1 become chips where they stand: from here on a vector is its
        colours (one band per number) and its name."""
        theme, view = self.theme, self.view
        x_chip = self._chip(view.inputs[0], "x\u2081", theme.embedding, self.x_scale,
                            self.x_col.frame.get_x())
        prev_chip = self._chip(view.states[0], "h\u2080 = 0", theme.encoder, 1.0,
                               self.prev.frame.get_right()[0] - CHIP_W / 2 - 0.04)
        new_chip = self._chip(view.hidden[0], "h\u2081", theme.encoder, 1.0,
                              self.new.frame.get_left()[0] + CHIP_W / 2 + 0.04)
        self.slots = {"x": x_chip.frame.get_x(), "prev": prev_chip.frame.get_x(), "new": new_chip.frame.get_x()}
        arrows = self._arrows(x_chip, prev_chip, new_chip)
        moves = [m for old, chip in ((self.x_col, x_chip), (self.prev, prev_chip), (self.new, new_chip))
                 for m in become_chip(old, chip)]
        moves += [Transform(a, b) for a, b in zip(self.arrows, arrows)]
        self.pacer.swap("Read once, each vector is now its colours: one band per number", *moves, run_time=1.0)
        self.remove(self.x_col, self.prev, self.new)
        self.add(x_chip, prev_chip, new_chip)
        self.x_col, self.prev, self.new = x_chip, prev_chip, new_chip

    def hand_off_state(self, j: int, pace: float) -> None:
        """h_t becomes the next step's h_{t-1}: its chip over the cell into the previous-state slot."""
        top = self.cell.box.get_top()[1] + 0.45  # over the cell, under the sentence
        slot = np.array([self.slots["prev"], self.new.frame.get_y(), 0.0]) + \
            (self.new.get_center() - self.new.frame.get_center())
        move = hand_off(self.new, slot, leaving=[self.prev], shrink=0.5,
                        via=[(self.new.get_x(), top, 0), (slot[0], top, 0)],
                        what="h", src=("h", j), dst=("h_prev", j + 1))
        if j == 2:  # the loop from here on, said as it speeds up
            self.pacer.swap("The same cell at every step: each new state goes back in with the next word",
                            move, run_time=1.2 * pace)
        else:
            self.play(move, run_time=1.2 * pace)
        self.prev = self.new

    def file_state(self, j: int, pace: float) -> None:
        """h_t's chip goes down into its place in the row of states, under the cell (never across
        its name)."""
        self.play(*self._chip_in(self.history[j], self.new), run_time=0.7 * pace)
        self.add(self.history[j])

    def name_the_context(self) -> None:
        """The last state is all the decoder will get: the context vector."""
        theme, T = self.theme, len(self.view.tokens)
        ring = self.history.context_ring(theme)
        said = (f"h{subscript(T)} is computed from h{subscript(T - 1)}, which needs h{subscript(T - 2)} \u2026: "
                f"it summarises all {T} words" if T > 2
                else f"h{subscript(T)} summarises all {T} word" + ("s" if T > 1 else ""))
        # The last step stays: x_T and h_{T-1} into the cell, h_T out (the poster).
        self.pacer.swap(said, Create(ring), fade_in(self.context_name), fade_out(self.focus),
                        *self._dim_word(T - 1),
                        Indicate(self.new.frame, color=theme.highlight))
        shown = self.time
        self.pause_on_result("context")
        # The ending held END_HOLD in all, the caption's reading time included (4-8 s).
        due = max(0.0, self.pacer.since + self.pacer.needed(said) - self.time)
        self.pacer.finish(hold=max(0.5, END_HOLD - (self.time - shown) - due))

    # -- builders ---------------------------------------------------------------

    def _dim_word(self, j: int) -> list:
        """A word already read: its frame and letters dimmed (its box stays unfilled)."""
        box = self.tokens.boxes[j]
        return [box[0].animate.set_stroke(opacity=DIM), box[1].animate.set_opacity(DIM)]

    def _arrows(self, x_col, prev, new) -> list:
        """x_t's arrow (curving in under h_{t-1}, never crossing a column), h_{t-1}'s and h_t's."""
        theme, cell, work_y = self.theme, self.cell, self.work_y
        in_x = CurvedArrow(x_col.frame.get_bottom() + DOWN * 0.1,
                           cell.box.get_bottom() + DOWN * 0.08 + LEFT * 0.4,
                           angle=TAU / 9, color=theme.embedding, stroke_width=3, tip_length=0.2)
        in_h = Arrow([prev.frame.get_right()[0] + 0.08, work_y, 0], [cell.box.get_left()[0] - 0.08, work_y, 0],
                     buff=0, color=theme.encoder, stroke_width=3, max_tip_length_to_length_ratio=0.2)
        out = Arrow([cell.box.get_right()[0] + 0.08, work_y, 0], [new.frame.get_left()[0] - 0.1, work_y, 0],
                    buff=0, color=theme.encoder, stroke_width=3, max_tip_length_to_length_ratio=0.2)
        return [in_x, in_h, out]

    def _chip(self, values, label: str, colour, scale: float, x: float) -> VectorColumn:
        """A vector as a chip as tall as the digit columns were, its frame centred at ``x``."""
        rows = min(max(self.view.states.shape[1], self.view.inputs.shape[1]), 8)
        chip = chip_column(values, self.theme, label, colour, scale, self.cell_h * rows)
        chip.shift(RIGHT * (x - chip.frame.get_x()))
        return chip.shift(UP * (self.work_y - chip.frame.get_y()))

    def _column(self, values, key: str, label: str, colour, scale: float, work_y: float,
                x: float) -> VectorColumn:
        """A vector's numbers in sign-and-size coloured cells, bars beside them, its name above."""
        col = VectorColumn(values, self.theme, key=key, colour=colour, cell_width=self.cell_w,
                           cell_height=self.cell_h, scale=scale)
        readable_dots(col)
        cells, vals = column_values(values, col)
        col.bars = signed_bars(cells, vals, self.theme, scale, width=BAR_W)
        col.add(col.bars)
        col.set_x(x - (col.get_x() - col.frame.get_x()))
        return _centred_on_cells(_named(col, label, self.theme, colour), work_y)

    def _state_column(self, values, key: str, label: str, work_y: float, x: float) -> VectorColumn:
        # States of a tanh RNN or a GRU lie in (-1, 1): bars and tints on that scale.
        return self._column(values, key, label, self.theme.encoder, 1.0, work_y, x)

    def _chip_in(self, chip: VGroup, state: VectorColumn) -> list:
        """A copy of the state's frame and cell colours shrinks into its history chip (no numbers
        in flight; the cells' colours are the chip's bands); its name appears.

        The copy goes straight down first, to the band above the history row, then along
        it: it never crosses the cell and its name. It travels behind every other mobject, so
        it slides out from under its own column and passes under the columns it meets, never
        hiding their numbers."""
        ghost = VGroup(VGroup(*(cell.box.copy() for cell in state.cell_by_index.values())), state.frame.copy())
        ghost.set_z_index(-1)
        corner = np.array([ghost.get_x(), self.history.get_top()[1] + 0.45, 0.0])
        return [ReplacementTransform(ghost, chip[0], path_func=_via_corner(ghost.get_center(), corner,
                                                                            chip[0].get_center())),
                fade_in(chip[1], rate_func=window(0.6, 1.0))]


def _via_corner(start, corner, end):
    """A Transform path on which the shape's centre goes from ``start`` to ``corner``, then to
    ``end`` (an L instead of a diagonal), while its shape morphs as usual."""
    start, corner, end = (np.asarray(p, dtype=float) for p in (start, corner, end))
    first = np.linalg.norm(corner - start)
    split = first / (first + np.linalg.norm(end - corner) or 1.0)

    def path(a_pts, b_pts, alpha):
        straight = start + (end - start) * alpha
        centre = (start + (corner - start) * (alpha / split) if alpha < split
                  else corner + (end - corner) * ((alpha - split) / (1 - split)))
        return a_pts + (b_pts - a_pts) * alpha + (centre - straight)
    return path


def _named(column: VectorColumn, name: str, theme, colour) -> VectorColumn:
    """Name the column above it (Pango with Unicode subscripts: a LaTeX run
    per step would be slow)."""
    column.label = caption(name, theme, 24, colour).next_to(column.frame, UP, buff=0.12)
    column.add(column.label)
    return column


def _centred_on_cells(column: VectorColumn, work_y: float, x: float | None = None) -> VectorColumn:
    """Put the column's cells (not its label) level with the RNN cell."""
    if x is not None:
        column.set_x(x)
    return column.shift(UP * (work_y - column.frame.get_y()))
