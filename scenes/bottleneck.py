"""``bottleneck``: why one fixed-size context is not enough.

Draft 000, "Limitations of this architecture" and "Building towards
Attention": the encoder computes a state for every word but the plain
decoder only gets one fixed-size vector; every other state is discarded,
and that vector must carry the whole sentence, however long.

By default (:func:`scenes.seq2seq_view.encoder_view`) this is the translator
trained without attention: its annotations h_j = [f_j ; b_j] are all
discarded and the decoder gets c = [f_T ; b_1]; the measured cost (the
``length_experiment`` section) closes the scene. With the seeded tanh RNN
the decoder gets h_T.
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
    GrowArrow,
    Indicate,
    LaggedStart,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    config,
)

from .base import WalkthroughScene
from .components import (
    CellBox,
    NumberLabel,
    TokenStrip,
    ValueCell,
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

__all__ = ["BottleneckScene"]

TITLE_Y = 3.55
TOKENS_Y = 2.8
STATES_Y = 0.75
FOOT_Y = -3.55
# The bidirectional GRU: a note line, the annotations, the context strip, two foot lines.
GRU_NOTE_Y = 3.08
GRU_TOKENS_Y = 2.5
GRU_STATES_Y = 0.6
STRIP_Y = -2.05
GRU_FOOT_Y = (-3.05, -3.62)
LENGTHS = "length_experiment"


class BottleneckScene(WalkthroughScene):
    scene_id = "bottleneck"
    trace_sections = ("source", "sizes", "encoder.tokens", "encoder.hidden", "plain_model.weights",
                      "plain_model.tokens", "plain_model.annotations", "plain_model.summary", LENGTHS)
    description = ("Only one fixed-size vector reaches the plain decoder ([f_T ; b_1], or h_T): "
                   "every other state is discarded.")

    def construct(self) -> None:
        view = encoder_view(self.trace)
        if view.network == "gru":
            self._bidirectional(view)
        else:
            self._tanh(view)

    # -- the translator: every annotation discarded, c = [f_T ; b_1] kept ------

    def _bidirectional(self, view: EncoderView) -> None:
        theme = self.theme
        T, H = view.annotations.shape
        k = H // 2
        title = VGroup(
            caption("The bottleneck", theme, 30),
            caption("one fixed-size vector for the whole sentence", theme, 20, theme.muted),
        ).arrange(RIGHT, buff=0.4, aligned_edge=DOWN)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        which = ("the translator trained without attention" if view.trained else
                 "an untrained translator (seeded random weights)")
        note = caption(which, theme, 20, theme.muted).move_to([0, GRU_NOTE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=22).move_to([0, GRU_TOKENS_Y, 0])
        if tokens.get_top()[1] > note.get_bottom()[1] - 0.1:
            tokens.next_to(note, DOWN, buff=0.1)
        self.play(fade_in(title), fade_in(note), FadeIn(tokens, lag_ratio=0.1))

        # h_1 ... h_T with their real values: the forward half on top.
        states = self._columns(view.annotations, view.annotation_keys, "h", H, tokens, GRU_STATES_Y)
        said = self._foot(f"the encoder computes an annotation for every word: "
                          f"hⱼ = [fⱼ ; bⱼ], {k} forward and {k} backward numbers",
                          GRU_FOOT_Y[0])
        self.play(LaggedStart(*[fade_in(s, shift=RIGHT * 0.2) for s in states], lag_ratio=0.15),
                  fade_in(said), run_time=1.5)
        self.wait(0.5)

        # What the decoder gets: the top half of h_T (f_T), the bottom half of h_1 (b_1).
        cell_w = 0.86
        strip = VGroup(*[ValueCell(view.context[i], theme, (view.context_key, i), cell_w, 0.42,
                                   font_size=18) for i in range(H)]).arrange(RIGHT, buff=0)
        frame = SurroundingRectangle(strip, color=theme.highlight, buff=0.04)
        name = math_label(rf"c = {view.context_tex}", theme, 30, theme.highlight)
        decoder = CellBox("decoder", theme, theme.decoder, width=2.0, height=0.9)
        row = VGroup(name, VGroup(strip, frame), decoder).arrange(RIGHT, buff=0.5)
        fit_within(row, max_width=13.2).move_to([0, STRIP_Y, 0])
        to_decoder = arrow_between(frame, decoder.box, theme.highlight, buff=0.08)
        halves = VGroup(
            caption(f"f{subscript(T)}", theme, 20, theme.encoder).next_to(VGroup(*strip[:k]), DOWN, buff=0.12),
            caption("b\u2081", theme, 20, theme.encoder).next_to(VGroup(*strip[k:]), DOWN, buff=0.12),
        )
        f_T = VGroup(*states[T - 1][0].cells[:k])
        b_1 = VGroup(*states[0][0].cells[k:])
        rings = VGroup(SurroundingRectangle(f_T, color=theme.highlight, buff=0.05),
                       SurroundingRectangle(b_1, color=theme.highlight, buff=0.05))
        said = self._say(said, f"the plain decoder gets only c = [f{subscript(T)} ; b₁]: "
                               f"the last forward state and the last backward one", GRU_FOOT_Y[0],
                         Create(rings))
        self.play(TransformFromCopy(f_T, VGroup(*strip[:k])), TransformFromCopy(b_1, VGroup(*strip[k:])),
                  fade_in(frame), fade_in(name), fade_in(halves), run_time=1.2)
        self.play(Create(decoder), GrowArrow(to_decoder))

        # Every annotation itself is left behind.
        crosses = VGroup(*[_struck(s[0], theme) for s in states])
        gone = caption("discarded", theme, 22, theme.negative)
        gone.next_to(states, DOWN, buff=0.12)
        if T > 1:
            text = f"h₁ … h{subscript(T)}: all {T} annotations are discarded"
        else:
            text = "one word: c is its whole annotation, and still all the decoder gets"
        said = self._say(said, text, GRU_FOOT_Y[0], states.animate.fade(0.6),
                         Create(crosses), fade_in(gone))
        self.wait(0.8)
        said = self._say(said, f"all {T} word{'s' if T > 1 else ''} must pass through these {H} numbers, "
                               f"however long the sentence", GRU_FOOT_Y[0])
        cost = self._measured_cost()
        if cost is not None:
            self.play(fade_in(cost))
        self.wait(1.5)

    def _measured_cost(self):
        """Exact match without attention at the shortest and longest test lengths, keyed."""
        data = self.trace.to_dict().get(LENGTHS)
        if not data:
            return None
        theme, lengths = self.theme, data["lengths"]
        key = f"{LENGTHS}.without_attention.exact_match"
        last = len(lengths) - 1
        parts = [
            caption("measured on the trained translator without attention: exact match", theme, 20, theme.muted),
            NumberLabel(data["without_attention"]["exact_match"][0], theme, (key, 0), 20, theme.text),
            caption(f"at {lengths[0]} words,", theme, 20, theme.muted),
            NumberLabel(data["without_attention"]["exact_match"][last], theme, (key, last), 20, theme.text),
            caption(f"at {lengths[-1]} words", theme, 20, theme.muted),
        ]
        line = VGroup(*parts).arrange(RIGHT, buff=0.15, aligned_edge=DOWN)
        return fit_within(line, max_width=13.2).move_to([0, GRU_FOOT_Y[1], 0])

    def _columns(self, values, keys, letter: str, H: int, tokens, y: float) -> VGroup:
        """One state column per word, named below, in a row under the tokens."""
        theme = self.theme
        T = len(keys)
        slot = min(1.05, 12.8 / T)
        cell_w = min(0.82, slot - 0.14)
        font = 18 if cell_w >= 0.78 else 15
        cell_h = 0.36 if H <= 6 else 0.3
        states = VGroup()
        for t in range(T):
            col = VectorColumn(values[t], theme, key=keys[t], colour=theme.encoder,
                               cell_width=cell_w, cell_height=cell_h, font_size=font)
            name = caption(f"{letter}{subscript(t + 1)}", theme, 22, theme.encoder).next_to(col, DOWN, buff=0.1)
            states.add(VGroup(col, name))
        states.arrange(RIGHT, buff=slot - cell_w - 0.08, aligned_edge=UP)
        states.move_to([0, y, 0])
        if states.get_top()[1] > tokens.get_bottom()[1] - 0.25:
            states.next_to(tokens, DOWN, buff=0.25)
        return states

    # -- the seeded tanh RNN: h_T kept, h_1 ... h_{T-1} discarded -------------

    def _tanh(self, view: EncoderView) -> None:
        theme = self.theme
        T, H = view.forward.shape

        title = VGroup(
            caption("The bottleneck", theme, 30),
            caption("one fixed-size vector for the whole sentence", theme, 20, theme.muted),
        ).arrange(RIGHT, buff=0.4, aligned_edge=DOWN)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=22).move_to([0, TOKENS_Y, 0])
        if tokens.get_top()[1] > title.get_bottom()[1] - 0.12:
            # A long sentence wraps onto two rows: keep it clear of the title.
            tokens.next_to(title, DOWN, buff=0.12)
        self.play(fade_in(title), FadeIn(tokens, lag_ratio=0.1))

        # h_1 ... h_T with their real values, one column per word.
        states = self._columns(view.forward, view.forward_keys, "h", H, tokens, STATES_Y)
        slot = min(1.05, 12.8 / T)
        cell_w = min(0.82, slot - 0.14)
        links = VGroup(*[arrow_between(states[t][0], states[t + 1][0], theme.encoder, buff=0.03)
                         for t in range(T - 1)]) if slot - cell_w > 0.25 else VGroup()
        said = caption("the encoder computes a state for every word", theme, 20, theme.text)
        fit_within(said, max_width=12.5).move_to([0, FOOT_Y, 0])
        self.play(LaggedStart(*[fade_in(s, shift=RIGHT * 0.2) for s in states], lag_ratio=0.2),
                  fade_in(links), fade_in(said), run_time=1.5)
        self.wait(0.5)

        last = states[T - 1]
        decoder = CellBox("decoder", theme, theme.decoder, width=2.2, height=1.0)
        decoder.move_to([min(last.get_x() + 2.6, 5.9) if T > 1 else 3.0, -2.2, 0])
        if T > 1:
            earlier = VGroup(*states[: T - 1])
            crosses = VGroup(*[_struck(s[0], theme) for s in earlier])
            gone = caption("discarded", theme, 22, theme.negative).next_to(earlier, DOWN, buff=0.3)
            said = self._say(said, f"h\u2081 \u2026 h{subscript(T - 1)} never reach the decoder", FOOT_Y,
                             earlier.animate.set_opacity(0.25), links.animate.set_opacity(0.25),
                             Create(crosses), fade_in(gone))
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
        self.play(Create(ring), fade_in(context), Indicate(last[0], color=theme.highlight, scale_factor=1.05))
        self.play(Create(decoder), GrowArrow(to_decoder))
        said = self._say(said, f"all {T} word{'s' if T > 1 else ''} must pass through these {H} numbers")
        self.wait(0.8)
        said = self._say(said, "a longer sentence gets no more room: the same fixed size, so more is lost")
        self.wait(1.5)

    def _say(self, old, text: str, y: float = FOOT_Y, *anims):
        """Swap the foot line (a fade: morphing glyphs into others reads badly)."""
        new = self._foot(text, y)
        self.play(fade_out(old), fade_in(new), *anims)
        return new

    def _foot(self, text: str, y: float = FOOT_Y):
        line = caption(text, self.theme, 20, self.theme.text)
        return fit_within(line, max_width=12.5).move_to([0, y, 0])


def _struck(column, theme) -> Cross:
    """A light cross over a discarded state: marked, but its numbers still read."""
    return Cross(column, stroke_color=theme.negative, stroke_width=3).set_stroke(opacity=0.5)


def _touch(a, b, gap: float = 0.05) -> bool:
    """Whether the bounding boxes of two mobjects come within ``gap``."""
    return (a.get_left()[0] < b.get_right()[0] + gap and b.get_left()[0] < a.get_right()[0] + gap
            and a.get_bottom()[1] < b.get_top()[1] + gap and b.get_bottom()[1] < a.get_top()[1] + gap)


def _inside_frame(mob, margin: float = 0.1) -> bool:
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    return (mob.get_left()[0] > -half_w + margin and mob.get_right()[0] < half_w - margin
            and mob.get_bottom()[1] > -half_h + margin and mob.get_top()[1] < half_h - margin)
