"""``encoder``: the encoder RNN reading the source sentence word by word.

Draft 000, "2. Encoder stack of NNs": each token enters as its embedding
x_t; the RNN cell takes x_t and h_{t-1} and gives h_t; h_0 is zeros; the
last state h_T is the context vector.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Create,
    CurvedArrow,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
    Write,
    TAU,
)

from .base import WalkthroughScene
from .components import (
    subscript,
    CellBox,
    TokenStrip,
    VectorColumn,
    arrow_between,
    caption,
    fit_within,
    math_label,
)

__all__ = ["EncoderScene"]

# Layout (frame is 14.2 x 8 units): title, tokens, working row, history.
TITLE_Y = 3.55
TOKENS_Y = 2.75
WORK_Y = 0.25
HISTORY_Y = -2.85
CHIP_W = 0.34


class EncoderScene(WalkthroughScene):
    scene_id = "encoder"
    trace_sections = ("source", "sizes", "encoder")
    description = "The encoder RNN reads the sentence one word at a time: h_t = tanh(W_x x_t + W_h h_{t-1} + b)."

    def construct(self) -> None:
        theme, enc = self.theme, self.trace.encoder
        T, H = len(enc.tokens), enc.hidden.shape[1]
        # Cells shrink a little for 7-8 dimensions so the working row fits
        # between the token strip and the history row.
        cell_h = 0.40 if H <= 6 else 0.34

        title = VGroup(
            caption("Encoder", theme, 30),
            math_label(r"h_t = \tanh(W_x\,x_t + W_h\,h_{t-1} + b)", theme, 32),
        ).arrange(RIGHT, buff=0.5).move_to([0, TITLE_Y, 0])
        tokens = TokenStrip(enc.tokens, theme, colour=theme.embedding).move_to([0, TOKENS_Y, 0])
        self.play(FadeIn(title), FadeIn(tokens, lag_ratio=0.1))

        cell = CellBox("encoder RNN", theme, theme.encoder, width=2.4, height=1.4).move_to([0.6, WORK_Y, 0])
        h_prev = _centred_on_cells(
            self._state_column(enc.hidden[0], 0, r"h_{0} = \mathbf{0}"), -2.4)
        self.play(Create(cell), FadeIn(h_prev))

        history = self._history_chips(enc.hidden[1:])
        x_col = None
        for t in range(1, T + 1):
            box = tokens.boxes[t - 1]
            focus = SurroundingRectangle(box, color=theme.highlight, buff=0.05)
            new_x = VectorColumn(enc.inputs[t - 1], theme, key=f"encoder.inputs.{t - 1}",
                                 label=f"x_{{{t}}}", colour=theme.embedding,
                                 cell_height=cell_h)
            _centred_on_cells(new_x, -5.2)
            step_anims = [Create(focus), FadeIn(new_x, target_position=box, scale=0.6)]
            if x_col is not None:
                step_anims.append(FadeOut(x_col))
            self.play(*step_anims, run_time=0.8)
            x_col = new_x

            # x_t comes in under h_{t-1}, so the two arrows never cross a column.
            in_x = CurvedArrow(x_col.frame.get_bottom() + DOWN * 0.1,
                               cell.box.get_bottom() + DOWN * 0.08 + LEFT * 0.4,
                               angle=TAU / 7, color=theme.embedding, stroke_width=3, tip_length=0.2)
            in_h = arrow_between(h_prev.frame, cell.box, theme.encoder)
            self.play(Create(in_x), GrowArrow(in_h), run_time=0.5)
            h_new = _centred_on_cells(self._state_column(enc.hidden[t], t, f"h_{{{t}}}"), 4.2)
            out = arrow_between(cell.box, h_new.frame, theme.encoder)
            self.play(Indicate(cell.box, color=theme.encoder, scale_factor=1.05),
                      GrowArrow(out), FadeIn(h_new, shift=RIGHT * 0.3), run_time=0.9)
            self.play(FadeIn(history[t - 1], target_position=h_new.frame.get_center(), scale=0.5),
                      run_time=0.6)

            if t < T:
                # h_t becomes the h_{t-1} of the next step.
                moved = self._state_column(enc.hidden[t], t, f"h_{{{t}}}").move_to(h_prev)
                self.play(FadeOut(h_prev), FadeOut(in_x), FadeOut(in_h), FadeOut(out), FadeOut(focus),
                          ReplacementTransform(h_new, moved), run_time=0.7)
                h_prev = moved
            else:
                self.play(FadeOut(in_x), FadeOut(in_h), FadeOut(focus), run_time=0.5)

        # The last state is all the decoder will get: the context vector.
        last_chip = history[T - 1]
        ring = SurroundingRectangle(last_chip, color=theme.highlight, buff=0.08)
        name = caption("context vector", theme, 22, theme.highlight).next_to(h_new, DOWN, buff=0.2)
        note = caption(f"h{subscript(T)} summarises all {T} words", theme, 20, theme.muted)
        note.next_to(history, UP, buff=0.2)
        fit_within(note, max_width=12)
        self.play(Create(ring), Write(name), FadeIn(note))
        self.wait(1.5)

    def _state_column(self, values, t: int, label: str) -> VectorColumn:
        cell_h = 0.40 if len(values) <= 6 else 0.34
        return _centred_on_cells(VectorColumn(values, self.theme, key=f"encoder.hidden.{t}", label=label,
                                              colour=self.theme.encoder, cell_height=cell_h))

    def _history_chips(self, states) -> VGroup:
        """Compact colour-only columns for h_1 ... h_T, with their names."""
        theme = self.theme
        chips = VGroup()
        for t, h in enumerate(states, start=1):
            chip = VectorColumn(h, theme, show_numbers=False, colour=theme.encoder,
                                cell_width=CHIP_W, cell_height=0.1)
            name = math_label(f"h_{{{t}}}", theme, 24, theme.encoder).next_to(chip, DOWN, buff=0.1)
            chips.add(VGroup(chip, name))
        chips.arrange(RIGHT, buff=0.42, aligned_edge=UP)
        fit_within(chips, max_width=12.5)
        chips.move_to([0, HISTORY_Y, 0])
        return chips


def _centred_on_cells(column: VectorColumn, x: float | None = None) -> VectorColumn:
    """Put the column's cells (not its label) level with the RNN cell."""
    if x is not None:
        column.set_x(x)
    return column.shift(UP * (WORK_Y - column.frame.get_y()))



