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

from dataclasses import dataclass

import numpy as np

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    CurvedArrow,
    FadeIn,
    GrowArrow,
    Indicate,
    SurroundingRectangle,
    ReplacementTransform,
    Transform,
    VGroup,
    Write,
    TAU,
)

from .base import CaptionPacer, WalkthroughScene
from .components import (
    CellBox,
    TokenStrip,
    VectorColumn,
    caption,
    fade_in,
    fade_out,
    math_label,
    subscript,
    title_bar,
)
from .glyphs import cell_width_for
from .part1_layout import column_values, readable_dots, signed_bars, wrapped_note
from .seq2seq_view import EncoderView, encoder_view, network_note

__all__ = ["EncoderScene"]

# Layout (frame is 14.2 x 8 units): title, note, tokens, working row, history, foot.
TITLE_Y = 3.6
FOOT_Y = -3.68
CHIP_W = 0.34
CHIPS_H = 0.7  # a history chip: every number of h_t as a thin colour band
X_X, PREV_X, CELL_X, NEW_X = -5.45, -2.75, 0.45, 3.75
BAR_W = 0.5  # the magnitude bars beside a column (half each side of zero)
MIN_CELL_H = 0.3  # a number at 20 pt (12 px at 480p) needs this much height


@dataclass(frozen=True)
class _Direction:
    """The RNN's pass over the sentence, as the scene shows it."""

    letter: str  # the state's name
    order: tuple[int, ...]  # 0-based positions in reading order
    states: object  # T x H, position j's state in row j
    keys: tuple[str, ...]


class EncoderScene(WalkthroughScene):
    scene_id = "encoder"
    trace_sections = ("source", "sizes", "plain_model.network", "plain_model.weights", "plain_model.trained",
                      "plain_model.tokens", "plain_model.embeddings", "plain_model.encoder_states")
    description = ("The encoder reads the sentence one word at a time from h_0 = 0: "
                   "h_t = RNN(x_t, h_{t-1}); the last state h_T is the context vector.")
    shown_results = ("state", "context")

    def construct(self) -> None:
        view = encoder_view(self.trace)
        theme = self.theme
        T = len(view.tokens)
        title = title_bar(caption("Encoder", theme, 30), math_label(view.formula, theme, 34), y=TITLE_Y)
        note = wrapped_note(network_note(self.trace), theme, 20,
                            theme.highlight if view.untrained else theme.muted)
        note.next_to(title, DOWN, buff=0.14)
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=22, max_width=13.4)
        tokens.next_to(note, DOWN, buff=0.16)
        # The first frame already shows the title, whose network it is and the sentence.
        self.add(title, note, tokens)
        pacer = self.pacer = CaptionPacer(self, FOOT_Y, 20)

        # The history row sits above the foot; the working row gets what is left between.
        H, E = view.states.shape[1], view.inputs.shape[1]
        history = self._chips(view.hidden, "h", FOOT_Y + 0.3)
        # The context's name goes to the right of the history row, at the end.
        name = caption(f"h{subscript(T)}: the context vector", theme, 22, theme.highlight)
        history.shift(LEFT * (name.width + 0.3) / 2)
        name.next_to(history, RIGHT, buff=0.3).set_y(history[0][0].get_y())
        space_top = tokens.get_bottom()[1] - 0.2
        space_bottom = history.get_top()[1] + 0.2
        rows = min(max(H, E), 8)
        # Label above the cells (0.45), the cells; as tall as fits, 0.4 at most.
        cell_h = max(MIN_CELL_H, min(0.4, (space_top - space_bottom - 0.55) / rows))
        work_y = (space_top - 0.45 + space_bottom) / 2
        self.cell_h = cell_h
        # Cells as wide as the longest number needs at 20 pt (no decimal dropped).
        self.cell_w = cell_width_for(np.concatenate([view.inputs.ravel(), view.states.ravel()]), theme)
        cell = CellBox("encoder RNN" if view.network == "tanh" else "encoder GRU", theme, theme.encoder,
                       width=2.4, height=1.3).move_to([CELL_X, work_y, 0])
        # h_0 = 0, shown as its numbers: the draft's "initial hidden state is all 0s".
        h0 = self._state_column(view.states[0], view.state_keys[0], "h\u2080 = 0", work_y, PREV_X)
        pacer.swap("A GRU cell: its gates choose how much of h\u209c\u208b\u2081 to keep and what x\u209c "
                   "replaces" if view.network == "gru" else "An RNN cell: the same weights at every step",
                   Create(cell.box), fade_in(cell.text), fade_in(h0))

        direction = _Direction("h", tuple(range(T)), view.hidden, view.hidden_keys)
        new = self._read(view, direction, tokens, cell, h0, history, work_y, slow=min(3, T))

        # The last state is all the decoder will get: the context vector.
        ring = SurroundingRectangle(history[T - 1], color=theme.highlight, buff=0.08)
        said = (f"h{subscript(T)} is computed from h{subscript(T - 1)}, which needs h{subscript(T - 2)} \u2026: "
                f"it summarises all {T} words" if T > 2
                else f"h{subscript(T)} summarises all {T} word" + ("s" if T > 1 else ""))
        pacer.swap(said, Create(ring), fade_in(name), Indicate(new.frame, color=theme.highlight))
        self.pause_on_result("context")
        pacer.finish()

    # -- one direction, word by word ------------------------------------------

    def _read(self, view: EncoderView, d: _Direction, tokens: TokenStrip, cell: CellBox, prev,
              history: VGroup, work_y: float, slow: int):
        """Read the words in ``d.order``; return the last state's column.

        The first ``slow`` steps are told with their arrows, one move at a
        time; after that the arrows stay put and each step is one move
        (the reader has seen how a step goes).
        """
        theme = self.theme
        x_scale = max(float(abs(view.inputs).max()), 1e-9)
        x_col = focus = new = None
        arrows: list = []
        for n, j in enumerate(d.order):
            t = j + 1  # names are 1-based
            box = tokens.boxes[j]
            new_focus = SurroundingRectangle(box, color=theme.highlight, buff=0.05)
            new_x = self._column(view.inputs[j], view.input_keys[j], f"x{subscript(t)}", theme.embedding,
                                 x_scale, work_y, X_X)
            name = f"{d.letter}{subscript(t)}"
            new_state = self._state_column(d.states[j], d.keys[j], name, work_y, NEW_X)
            chip_in = self._chip_in(history[j], new_state)
            if n < slow:
                if new is not None:
                    # The last new state becomes the previous one of this step: the old
                    # columns go first, then the new ones come (never crossing).
                    self.play(*[fade_out(m) for m in (x_col, focus, prev, new, *arrows)], run_time=0.4)
                    prev = new.copy().set_x(PREV_X + new.get_x() - new.frame.get_x())
                    self.play(fade_in(prev), run_time=0.4)
                # The word's box travels to x_t's frame (no text in flight), x_t's numbers appear.
                ghost = box[0].copy()
                self.play(Create(new_focus), Transform(ghost, new_x.frame.copy()), fade_in(new_x),
                          run_time=0.8)
                self.remove(ghost)
                # x_t comes in under the previous state, so the two arrows never cross a column.
                in_x = CurvedArrow(new_x.frame.get_bottom() + DOWN * 0.1,
                                   cell.box.get_bottom() + DOWN * 0.08 + LEFT * 0.4,
                                   angle=TAU / 7, color=theme.embedding, stroke_width=3, tip_length=0.2)
                in_h = Arrow([prev.get_right()[0] + 0.08, work_y, 0], [cell.box.get_left()[0] - 0.08, work_y, 0],
                             buff=0, color=theme.encoder, stroke_width=3, max_tip_length_to_length_ratio=0.2)
                self.play(Create(in_x), GrowArrow(in_h), run_time=0.5)
                out = Arrow([cell.box.get_right()[0] + 0.08, work_y, 0],
                            [new_state.frame.get_left()[0] - 0.1, work_y, 0], buff=0, color=theme.encoder,
                            stroke_width=3, max_tip_length_to_length_ratio=0.2)
                self.play(Indicate(cell.box, color=theme.encoder, scale_factor=1.05),
                          GrowArrow(out), fade_in(new_state, shift=RIGHT * 0.3), run_time=0.9)
                arrows = [in_x, in_h, out]
                self.play(*chip_in, run_time=0.6)
                if n == 0:
                    self.pause_on_result("state")
            else:
                # Arrows stay; the next word's x_t and the previous state take
                # their places at once (cheaper than fades, and it reads the
                # same) while the new state comes out of the cell.
                moved = new.copy().set_x(PREV_X + new.get_x() - new.frame.get_x())
                self.remove(x_col, prev, new)
                self.add(new_x, moved)
                self.play(Transform(focus, new_focus), fade_in(new_state, shift=RIGHT * 0.3), *chip_in,
                          run_time=0.9)
                prev, new_focus = moved, focus
            self.add(history[j])
            x_col, focus, new = new_x, new_focus, new_state
        # The last step stays: x_T and h_{T-1} into the cell, h_T out (the poster).
        self.play(fade_out(focus), run_time=0.4)
        return new

    # -- builders ---------------------------------------------------------------

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
        """The state's frame shrinks into its history chip (no numbers in flight); its name appears."""
        ghost = state.frame.copy()
        return [ReplacementTransform(ghost, chip[0]), fade_in(chip[1])]

    def _chips(self, states, letter: str, bottom: float) -> VGroup:
        """Compact colour-only columns for the states, with their names; bottom edge at ``bottom``."""
        theme = self.theme
        chips = VGroup()
        H = states.shape[1]
        for t, h in enumerate(states, start=1):
            chip = VectorColumn(h, theme, show_numbers=False, colour=theme.encoder,
                                cell_width=CHIP_W, cell_height=CHIPS_H / H, max_rows=H)
            name = caption(f"{letter}{subscript(t)}", theme, 20, theme.encoder).next_to(chip, DOWN, buff=0.08)
            chips.add(VGroup(chip, name))
        chips.arrange(RIGHT, buff=0.3 if len(states) > 9 else 0.42, aligned_edge=UP)
        chips.move_to([0, bottom + chips.height / 2, 0])
        return chips


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
