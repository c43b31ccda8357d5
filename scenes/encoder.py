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

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    CurvedArrow,
    FadeIn,
    GrowArrow,
    Indicate,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
    TAU,
)

from .base import WalkthroughScene
from .components import (
    CellBox,
    TokenStrip,
    VectorColumn,
    arrow_between,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
)
from .seq2seq_view import EncoderView, encoder_view, network_note

__all__ = ["EncoderScene"]

# Layout (frame is 14.2 x 8 units): title, note, tokens, working row, history, foot.
TITLE_Y = 3.55
NOTE_Y = 3.05
TOKENS_Y = 2.45
WORK_Y = 0.25
HISTORY_Y = -2.55
FOOT_Y = -3.72
CHIP_W = 0.34
X_X, PREV_X, CELL_X, NEW_X = -5.2, -2.4, 0.6, 4.2


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

    def construct(self) -> None:
        view = encoder_view(self.trace)
        theme = self.theme
        T = len(view.tokens)
        title = VGroup(caption("Encoder", theme, 30), math_label(view.formula, theme, 32),
                       ).arrange(RIGHT, buff=0.5)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        note = caption(network_note(self.trace), theme, 20,
                       theme.highlight if view.untrained else theme.muted)
        fit_within(note, max_width=13.4).move_to([0, NOTE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding).move_to([0, TOKENS_Y, 0])
        if tokens.get_top()[1] > note.get_bottom()[1] - 0.1:
            tokens.next_to(note, DOWN, buff=0.1)
        foot = self._foot("GRU: a gated RNN cell. Its gates decide how much of h\u209c\u208b\u2081 to keep "
                          "and how much to replace with what x\u209c brings." if view.network == "gru"
                          else "an RNN cell: the same weights at every step")
        self.play(fade_in(title), fade_in(note), FadeIn(tokens, lag_ratio=0.1), fade_in(foot))

        # A long sentence wraps onto two rows: the working row moves down to stay clear of it.
        H, E = view.states.shape[1], view.inputs.shape[1]
        col_h = max(min(H, 8) * (0.40 if H <= 6 else 0.34), min(E, 8) * (0.40 if E <= 6 else 0.30))
        work_y = min(WORK_Y, tokens.get_bottom()[1] - 0.6 - col_h / 2)
        cell = CellBox("encoder RNN" if view.network == "tanh" else "encoder GRU", theme, theme.encoder,
                       width=2.4, height=1.4).move_to([CELL_X, work_y, 0])
        # h_0 = 0, shown as its numbers: the draft's "initial hidden state is all 0s".
        h0 = VectorColumn(view.states[0], theme, key=view.state_keys[0], colour=theme.encoder,
                          cell_height=0.40 if len(view.states[0]) <= 6 else 0.34, label=r"h_{0} = \mathbf{0}")
        prev = _centred_on_cells(h0, work_y, PREV_X)
        self.play(Create(cell), fade_in(prev))

        history = self._chips(view.hidden, "h", HISTORY_Y)
        direction = _Direction("h", tuple(range(T)), view.hidden, view.hidden_keys)
        new = self._read(view, direction, tokens, cell, prev, history, work_y, slow=3)

        # The last state is all the decoder will get: the context vector.
        ring = SurroundingRectangle(history[T - 1], color=theme.highlight, buff=0.08)
        name = caption(f"h{subscript(T)}: the context vector", theme, 22, theme.highlight)
        name.next_to(new, DOWN, buff=0.2)
        said = f"h{subscript(T)} is computed from h{subscript(T - 1)}, which needs h{subscript(T - 2)} \u2026: " \
            f"it summarises all {T} words" if T > 2 else f"h{subscript(T)} summarises all {T} word" + ("s" if T > 1 else "")
        foot = self._say(foot, said)
        self.play(Create(ring), Write(name))
        self.wait(1.5)

    # -- one direction, word by word ------------------------------------------

    def _read(self, view: EncoderView, d: _Direction, tokens: TokenStrip, cell: CellBox, prev,
              history: VGroup, work_y: float, slow: int):
        """Read the words in ``d.order``; return the last state's column.

        The first ``slow`` steps are told with their arrows, one move at a
        time; after that the arrows stay put and each step is one move
        (the reader has seen how a step goes).
        """
        theme = self.theme
        E = view.inputs.shape[1]
        cell_h = 0.40 if E <= 6 else 0.30
        x_col = focus = new = None
        arrows: list = []
        for n, j in enumerate(d.order):
            t = j + 1  # names are 1-based
            box = tokens.boxes[j]
            new_focus = SurroundingRectangle(box, color=theme.highlight, buff=0.05)
            new_x = _named(VectorColumn(view.inputs[j], theme, key=view.input_keys[j],
                                        colour=theme.embedding, cell_height=cell_h),
                           f"x{subscript(t)}", theme, theme.embedding)
            _centred_on_cells(new_x, work_y, X_X)
            name = f"{d.letter}{subscript(t)}"
            new_state = self._state_column(d.states[j], d.keys[j], name, work_y, NEW_X)
            if n < slow:
                swap = [Create(new_focus), FadeIn(new_x, target_position=box, scale=0.6)]
                swap += [fade_out(m) for m in (x_col, focus, *arrows) if m is not None]
                if new is not None:
                    # The last new state becomes the previous one of this step
                    # (faded across rather than slid through the cell box).
                    moved = new.copy().set_x(PREV_X)
                    swap += [fade_out(prev), fade_out(new), fade_in(moved, shift=LEFT * 0.4)]
                    prev = moved
                self.play(*swap, run_time=0.8)
                # x_t comes in under the previous state, so the two arrows never cross a column.
                in_x = CurvedArrow(new_x.frame.get_bottom() + DOWN * 0.1,
                                   cell.box.get_bottom() + DOWN * 0.08 + LEFT * 0.4,
                                   angle=TAU / 7, color=theme.embedding, stroke_width=3, tip_length=0.2)
                in_h = arrow_between(prev.frame if hasattr(prev, "frame") else prev, cell.box, theme.encoder)
                self.play(Create(in_x), GrowArrow(in_h), run_time=0.5)
                out = arrow_between(cell.box, new_state.frame, theme.encoder)
                self.play(Indicate(cell.box, color=theme.encoder, scale_factor=1.05),
                          GrowArrow(out), fade_in(new_state, shift=RIGHT * 0.3), run_time=0.9)
                arrows = [in_x, in_h, out]
                self.play(FadeIn(history[j], target_position=new_state.frame.get_center(), scale=0.5),
                          run_time=0.6)
            else:
                # Arrows stay; the next word's x_t and the previous state take
                # their places at once (cheaper than fades, and it reads the
                # same) while the new state comes out of the cell.
                moved = new.copy().set_x(PREV_X)
                self.remove(x_col, prev, new)
                self.add(new_x, moved)
                self.play(Transform(focus, new_focus), fade_in(new_state, shift=RIGHT * 0.3),
                          FadeIn(history[j], target_position=new_state.frame.get_center(), scale=0.5),
                          run_time=0.9)
                prev, new_focus = moved, focus
            x_col, focus, new = new_x, new_focus, new_state
        self.play(*[fade_out(m) for m in (x_col, focus, prev, *arrows)], run_time=0.5)
        return new

    # -- builders ---------------------------------------------------------------

    def _state_column(self, values, key: str, label: str, work_y: float, x: float) -> VectorColumn:
        cell_h = 0.40 if len(values) <= 6 else 0.34
        col = VectorColumn(values, self.theme, key=key, colour=self.theme.encoder, cell_height=cell_h)
        return _centred_on_cells(_named(col, label, self.theme, self.theme.encoder), work_y, x)

    def _chips(self, states, letter: str, y: float) -> VGroup:
        """Compact colour-only columns for the states, with their names."""
        theme = self.theme
        chips = VGroup()
        for t, h in enumerate(states, start=1):
            chip = VectorColumn(h, theme, show_numbers=False, colour=theme.encoder,
                                cell_width=CHIP_W, cell_height=0.1)
            name = caption(f"{letter}{subscript(t)}", theme, 20, theme.encoder).next_to(chip, DOWN, buff=0.1)
            chips.add(VGroup(chip, name))
        chips.arrange(RIGHT, buff=0.42, aligned_edge=UP)
        fit_within(chips, max_width=12.5)
        chips.move_to([0, y, 0])
        return chips

    def _foot(self, text: str):
        line = caption(text, self.theme, 20, self.theme.text)
        return fit_within(line, max_width=13.2).move_to([0, FOOT_Y, 0])

    def _say(self, old, text: str):
        """Swap the foot line (a fade: morphing glyphs into others reads badly)."""
        new = self._foot(text)
        self.play(fade_out(old), fade_in(new))
        return new


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
