"""``bottleneck``: why one fixed-size h_T is not enough.

Draft 000, "Limitations of this architecture" and "Building towards
Attention": the encoder computes h_1 ... h_T but the plain decoder only gets
h_T; every earlier state is discarded, and a vector of a fixed size must
carry the whole sentence, however long.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    Cross,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    SurroundingRectangle,
    VGroup,
    Write,
)

from .base import WalkthroughScene
from .components import CellBox, TokenStrip, VectorColumn, arrow_between, caption, fit_within, math_label, subscript

__all__ = ["BottleneckScene"]

TITLE_Y = 3.55
TOKENS_Y = 2.8
STATES_Y = 0.75
FOOT_Y = -3.55


class BottleneckScene(WalkthroughScene):
    scene_id = "bottleneck"
    trace_sections = ("source", "sizes", "encoder.tokens", "encoder.hidden")
    description = "Only h_T reaches the plain decoder: h_1..h_{T-1} are discarded, one fixed-size vector carries it all."

    def construct(self) -> None:
        theme, enc = self.theme, self.trace.encoder
        T, H = len(enc.tokens), enc.hidden.shape[1]

        title = VGroup(
            caption("The bottleneck", theme, 30),
            caption("one fixed-size vector for the whole sentence", theme, 20, theme.muted),
        ).arrange(RIGHT, buff=0.4, aligned_edge=DOWN)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        tokens = TokenStrip(enc.tokens, theme, colour=theme.embedding, font_size=22).move_to([0, TOKENS_Y, 0])
        if tokens.get_top()[1] > title.get_bottom()[1] - 0.12:
            # A long sentence wraps onto two rows: keep it clear of the title.
            tokens.next_to(title, DOWN, buff=0.12)
        self.play(FadeIn(title), FadeIn(tokens, lag_ratio=0.1))

        # h_1 ... h_T with their real values, one column per word.
        slot = min(1.05, 12.8 / T)
        cell_w = min(0.82, slot - 0.14)
        font = 18 if cell_w >= 0.78 else 15
        cell_h = 0.36 if H <= 6 else 0.3
        states = VGroup()
        for t in range(1, T + 1):
            col = VectorColumn(enc.hidden[t], theme, key=f"encoder.hidden.{t}", colour=theme.encoder,
                               cell_width=cell_w, cell_height=cell_h, font_size=font)
            name = math_label(f"h_{{{t}}}", theme, 26, theme.encoder).next_to(col, DOWN, buff=0.12)
            states.add(VGroup(col, name))
        states.arrange(RIGHT, buff=slot - cell_w - 0.08, aligned_edge=UP)
        states.move_to([0, STATES_Y, 0])
        if states.get_top()[1] > tokens.get_bottom()[1] - 0.25:
            states.next_to(tokens, DOWN, buff=0.25)
        links = VGroup(*[arrow_between(states[t][0], states[t + 1][0], theme.encoder, buff=0.03)
                         for t in range(T - 1)]) if slot - cell_w > 0.25 else VGroup()
        said = caption("the encoder computes a state for every word", theme, 20, theme.text)
        fit_within(said, max_width=12.5).move_to([0, FOOT_Y, 0])
        self.play(LaggedStart(*[FadeIn(s, shift=RIGHT * 0.2) for s in states], lag_ratio=0.2),
                  FadeIn(links), FadeIn(said), run_time=1.5)
        self.wait(0.5)

        last = states[T - 1]
        decoder = CellBox("decoder", theme, theme.decoder, width=2.2, height=1.0)
        decoder.move_to([min(last.get_x() + 2.6, 5.9) if T > 1 else 3.0, -2.2, 0])
        if T > 1:
            earlier = VGroup(*states[: T - 1])
            crosses = VGroup(*[Cross(s[0], stroke_color=theme.negative, stroke_width=4) for s in earlier])
            gone = caption("discarded", theme, 22, theme.negative).next_to(earlier, DOWN, buff=0.3)
            said = self._say(said, f"h\u2081 \u2026 h{subscript(T - 1)} never reach the decoder",
                             earlier.animate.set_opacity(0.25), links.animate.set_opacity(0.25),
                             Create(crosses), FadeIn(gone))
        else:
            said = self._say(said, "one word: its single state is all there is")
        ring = SurroundingRectangle(last, color=theme.highlight, buff=0.08)
        context = fit_within(caption("context vector", theme, 20, theme.highlight), max_width=2.4)
        # The first side of the ring where the label touches nothing else on
        # screen (long sentences wrap the token strip and crowd the top).
        others = [tokens, *states, decoder, said] + ([gone] if T > 1 else [])
        for side in (UP, RIGHT, DOWN, LEFT):
            context.next_to(ring, side, buff=0.1)
            if _inside_frame(context) and not any(_touch(context, o) for o in others if o is not last):
                break
        # Below the ring, the label sits on the way to the decoder: start there.
        to_decoder = arrow_between(context if side is DOWN else ring, decoder.box, theme.highlight)
        self.play(Create(ring), FadeIn(context), Indicate(last[0], color=theme.highlight, scale_factor=1.05))
        self.play(Create(decoder), GrowArrow(to_decoder))
        said = self._say(said, f"all {T} word{'s' if T > 1 else ''} must pass through these {H} numbers")
        self.wait(0.8)
        said = self._say(said, "a longer sentence gets no more room: the same fixed size, so more is lost")
        self.wait(1.5)

    def _say(self, old, text: str, *anims):
        """Swap the foot line (a fade: morphing glyphs into others reads badly)."""
        new = self._foot(text)
        self.play(FadeOut(old), FadeIn(new), *anims)
        return new

    def _foot(self, text: str):
        line = caption(text, self.theme, 20, self.theme.text)
        return fit_within(line, max_width=12.5).move_to([0, FOOT_Y, 0])


def _touch(a, b, gap: float = 0.05) -> bool:
    """Whether the bounding boxes of two mobjects come within ``gap``."""
    return (a.get_left()[0] < b.get_right()[0] + gap and b.get_left()[0] < a.get_right()[0] + gap
            and a.get_bottom()[1] < b.get_top()[1] + gap and b.get_bottom()[1] < a.get_top()[1] + gap)


def _inside_frame(mob, margin: float = 0.1) -> bool:
    return (mob.get_left()[0] > -7.1 + margin and mob.get_right()[0] < 7.1 - margin
            and mob.get_bottom()[1] > -4.0 + margin and mob.get_top()[1] < 4.0 - margin)



