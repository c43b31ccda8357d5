"""``encoder``: the encoder reading the source sentence word by word.

Draft 000, "2. Encoder stack of NNs": each token enters as its embedding
x_t; the RNN cell takes x_t and the previous state and gives the next; the
first state is zeros; what the decoder gets at the end is the context
vector.

By default (:func:`scenes.seq2seq_view.encoder_view`) this is the
translator trained without attention, whose encoder is a bidirectional GRU:
a forward GRU reads left to right (f_1 ... f_T), a backward GRU right to
left (b_T ... b_1), and the decoder gets ``c = [f_T ; b_1]``. With the
seeded tanh RNN it is one direction, h_1 ... h_T, and the context is h_T.
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
    Restore,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
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
from .seq2seq_view import EncoderView, encoder_view

__all__ = ["EncoderScene"]

# Layout (frame is 14.2 x 8 units): title, tokens, working row, history.
TITLE_Y = 3.55
TOKENS_Y = 2.75
WORK_Y = 0.25
HISTORY_Y = -2.85
CHIP_W = 0.34
# The bidirectional GRU needs a note line and two history rows.
GRU_NOTE_Y = 3.08
GRU_TOKENS_Y = 2.5
GRU_WORK_Y = 0.3
GRU_ROWS_Y = (-2.0, -2.95)  # forward chips, backward chips
FOOT_Y = -3.72
X_X, PREV_X, CELL_X, NEW_X = -5.2, -2.4, 0.6, 4.2


@dataclass(frozen=True)
class _Direction:
    """One pass of an RNN over the sentence, as the scene shows it."""

    letter: str  # the state's name: "h", "f" or "b"
    order: tuple[int, ...]  # 0-based positions in reading order
    states: object  # T x k, position j's state in row j
    keys: tuple[str, ...]


class EncoderScene(WalkthroughScene):
    scene_id = "encoder"
    trace_sections = ("source", "sizes", "encoder", "plain_model.weights", "plain_model.tokens",
                      "plain_model.embeddings", "plain_model.encoder_forward", "plain_model.encoder_backward",
                      "plain_model.summary")
    description = ("The encoder reads the sentence one word at a time: a bidirectional GRU "
                   "(the translator) or h_t = tanh(W_x x_t + W_h h_{t-1} + b).")

    def construct(self) -> None:
        view = encoder_view(self.trace)
        if view.network == "gru":
            self._bidirectional(view)
        else:
            self._tanh(view)

    # -- the seeded tanh RNN: one direction, h_0 = 0 shown as numbers ---------

    def _tanh(self, view: EncoderView) -> None:
        theme = self.theme
        T = len(view.tokens)
        title = VGroup(
            caption("Encoder", theme, 30),
            math_label(r"h_t = \tanh(W_x\,x_t + W_h\,h_{t-1} + b)", theme, 32),
        ).arrange(RIGHT, buff=0.5).move_to([0, TITLE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding).move_to([0, TOKENS_Y, 0])
        self.play(fade_in(title), FadeIn(tokens, lag_ratio=0.1))

        cell = CellBox("encoder RNN", theme, theme.encoder, width=2.4, height=1.4).move_to([CELL_X, WORK_Y, 0])
        # The tanh RNN's Trace keeps h_0 (zeros): shown as numbers.
        h0 = VectorColumn(self.trace.encoder.hidden[0], theme, key="encoder.hidden.0", colour=theme.encoder,
                          cell_height=0.40 if len(view.forward[0]) <= 6 else 0.34, label=r"h_{0} = \mathbf{0}")
        prev = _centred_on_cells(h0, WORK_Y, PREV_X)
        self.play(Create(cell), fade_in(prev))

        history = self._chips(view.forward, "h", HISTORY_Y)
        direction = _Direction("h", tuple(range(T)), view.forward, view.forward_keys)
        new = self._read(view, direction, tokens, cell, prev, history, WORK_Y, slow=3)

        # The last state is all the decoder will get: the context vector.
        ring = SurroundingRectangle(history[T - 1], color=theme.highlight, buff=0.08)
        name = caption("context vector", theme, 22, theme.highlight).next_to(new, DOWN, buff=0.2)
        note = caption(f"h{subscript(T)} summarises all {T} words", theme, 20, theme.muted)
        note.next_to(history, UP, buff=0.2)
        fit_within(note, max_width=12)
        self.play(Create(ring), Write(name), fade_in(note))
        self.wait(1.5)

    # -- the translator: a bidirectional GRU ----------------------------------

    def _bidirectional(self, view: EncoderView) -> None:
        theme = self.theme
        T = len(view.tokens)
        title = VGroup(
            caption("Encoder", theme, 30),
            math_label(r"f_t = \mathrm{GRU}(x_t,\, f_{t-1}) \qquad b_t = \mathrm{GRU}(x_t,\, b_{t+1})",
                       theme, 30),
        ).arrange(RIGHT, buff=0.5)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        which = ("the translator trained without attention: a bidirectional GRU encoder"
                 if view.trained else
                 "an untrained translator (seeded random weights): its states mean nothing yet")
        note = fit_within(caption(which, theme, 20, theme.muted), max_width=13.4).move_to([0, GRU_NOTE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding).move_to([0, GRU_TOKENS_Y, 0])
        if tokens.get_top()[1] > note.get_bottom()[1] - 0.1:
            tokens.next_to(note, DOWN, buff=0.1)
        foot = self._foot("GRU: a gated RNN cell. Its gates decide how much of the previous state "
                          "to keep and how much to replace with what x\u209c brings.")
        self.play(fade_in(title), fade_in(note), FadeIn(tokens, lag_ratio=0.1), fade_in(foot))

        # Two rows of chips, position j of both in one column: h_j = [f_j ; b_j].
        rows = self._chip_rows(view)
        forward, backward = rows
        # Which pass each row is, left of its chips.
        f_tag, b_tag = (caption(text, theme, 18, theme.muted).next_to(chips[0][0], LEFT, buff=0.35)
                        for chips, text in ((forward, "forward \u2192"), (backward, "\u2190 backward")))
        cell = CellBox("forward GRU", theme, theme.encoder, width=2.4, height=1.4).move_to([CELL_X, GRU_WORK_Y, 0])
        start = self._formula_state(r"f_{0} = \mathbf{0}", GRU_WORK_Y)
        self.play(Create(cell), fade_in(start), fade_in(f_tag))
        ahead = _Direction("f", tuple(range(T)), view.forward, view.forward_keys)
        last_f = self._read(view, ahead, tokens, cell, start, forward, GRU_WORK_Y, slow=3)

        # The backward GRU: the same words, right to left, starting from zeros.
        foot = self._say(foot, "a second GRU, with its own weights, reads the same words from right to left")
        begin = self._formula_state(r"b_{" + str(T + 1) + r"} = \mathbf{0}", GRU_WORK_Y)
        relabel = CellBox("backward GRU", theme, theme.encoder, width=2.4, height=1.4).move_to(cell)
        forward.save_state()
        self.play(fade_out(last_f), fade_in(begin), fade_in(b_tag), Transform(cell.text, relabel.text),
                  forward.animate.fade(0.55))
        back = _Direction("b", tuple(range(T - 1, -1, -1)), view.backward, view.backward_keys)
        last_b = self._read(view, back, tokens, cell, begin, backward, GRU_WORK_Y, slow=1)

        # What the decoder gets: the last forward state and the last backward one.
        f_T, b_1 = forward[T - 1], backward[0]
        self.play(fade_out(last_b), fade_out(cell), Restore(forward))
        rings = VGroup(SurroundingRectangle(f_T, color=theme.highlight, buff=0.06),
                       SurroundingRectangle(b_1, color=theme.highlight, buff=0.06))
        k = view.forward.shape[1]
        cell_h = 0.30 if 2 * k > 6 else 0.4
        context = VectorColumn(view.context, theme, key=view.context_key, colour=theme.highlight,
                               cell_height=cell_h, label=rf"c = {view.context_tex}", label_size=30)
        context.shift(UP * (GRU_WORK_Y - context.frame.get_y()) + RIGHT * (CELL_X - context.get_x()))
        top = VGroup(*context.cells[:k])
        bottom = VGroup(*context.cells[k:])
        why = caption(f"f{subscript(T)} has read every word, left to right;\n"
                      f"b\u2081 has read every word, right to left", theme, 20, theme.muted)
        fit_within(why, max_width=5.4).next_to(context.frame, RIGHT, buff=0.4)
        foot = self._say(foot, f"the plain decoder gets only c = [f{subscript(T)} ; b\u2081]: "
                               f"{2 * k} numbers for the whole sentence")
        halves = VGroup(
            caption(f"f{subscript(T)}", theme, 22, theme.encoder).next_to(top, LEFT, buff=0.2),
            caption("b\u2081", theme, 22, theme.encoder).next_to(bottom, LEFT, buff=0.2),
        )
        self.play(Create(rings), TransformFromCopy(f_T[0], top), TransformFromCopy(b_1[0], bottom),
                  fade_in(context.frame), fade_in(context.label), fade_in(halves), run_time=1.2)
        self.play(fade_in(why))
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

    def _formula_state(self, tex: str, work_y: float):
        """The first state, zeros, as a formula: the Trace does not keep it."""
        return math_label(tex, self.theme, 30, self.theme.encoder).move_to([PREV_X, work_y, 0])

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

    def _chip_rows(self, view: EncoderView) -> tuple[VGroup, VGroup]:
        """The forward and backward chips, position j of both in one column."""
        forward = self._chips(view.forward, "f", GRU_ROWS_Y[0])
        backward = self._chips(view.backward, "b", GRU_ROWS_Y[1])
        for f, b in zip(forward, backward):
            b.set_x(f.get_x())
        return forward, backward

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
