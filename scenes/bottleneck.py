"""``bottleneck``: why one fixed-size context is not enough.

Draft 000, "Limitations of this architecture" and "Building towards
Attention": the encoder computes h_1 ... h_T, one state per word, but the
plain decoder only gets h_T (the draft's h_8); every other state is
discarded, and h_T must carry the whole sentence, however long.

One code path for whichever network :func:`scenes.seq2seq_view.encoder_view`
gives (the translator trained without attention by default, the seeded
tanh RNN as the untrained fallback). The scene ends on what the bottleneck
costs, from the core: the measured exact match at the shortest and longest
lengths, and a long sentence the plain network really gets wrong, beside
what the attention network (which reads every h_j) writes.
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
    VGroup,
    config,
)

from .base import WalkthroughScene
from .components import (
    CellBox,
    NumberLabel,
    TokenStrip,
    VectorColumn,
    arrow_between,
    caption,
    fade_in,
    fade_out,
    fit_within,
    subscript,
    word_box,
)
from .seq2seq_view import encoder_view, mismatches, network_note

__all__ = ["BottleneckScene"]

TITLE_Y = 3.55
NOTE_Y = 3.05
TOKENS_Y = 2.5
STATES_Y = 0.7
FOOT_Y = -3.55
LENGTHS = "length_experiment"
EXAMPLE = "bottleneck_example"


class BottleneckScene(WalkthroughScene):
    scene_id = "bottleneck"
    trace_sections = ("source", "sizes", "plain_model.network", "plain_model.weights", "plain_model.trained",
                      "plain_model.tokens", "plain_model.encoder_states", LENGTHS, EXAMPLE)
    description = ("Only h_T reaches the plain decoder: h_1 ... h_{T-1} are discarded. Ends on a long "
                   "sentence the plain network gets wrong, beside what attention writes.")

    def construct(self) -> None:
        view = encoder_view(self.trace)
        theme = self.theme
        T, H = view.hidden.shape

        title = VGroup(
            caption("The bottleneck", theme, 30),
            caption("one fixed-size vector for the whole sentence", theme, 20, theme.muted),
        ).arrange(RIGHT, buff=0.4, aligned_edge=DOWN)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        note = caption(network_note(self.trace), theme, 18, theme.highlight if view.untrained else theme.muted)
        fit_within(note, max_width=13.4).move_to([0, NOTE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=22).move_to([0, TOKENS_Y, 0])
        if tokens.get_top()[1] > note.get_bottom()[1] - 0.1:
            # A long sentence wraps onto two rows: keep it clear of the note.
            tokens.next_to(note, DOWN, buff=0.1)
        self.play(fade_in(title), fade_in(note), FadeIn(tokens, lag_ratio=0.1))

        # h_1 ... h_T with their real values, one column per word.
        states = self._columns(view.hidden, view.hidden_keys, "h", H, tokens, STATES_Y)
        slot = min(1.05, 12.8 / T)
        cell_w = min(0.82, slot - 0.14)
        links = VGroup(*[arrow_between(states[t][0], states[t + 1][0], theme.encoder, buff=0.03)
                         for t in range(T - 1)]) if slot - cell_w > 0.25 else VGroup()
        said = self._foot("the encoder computes a state for every word: h\u2081 \u2026 h" + subscript(T))
        self.play(LaggedStart(*[fade_in(s, shift=RIGHT * 0.2) for s in states], lag_ratio=0.2),
                  fade_in(links), fade_in(said), run_time=1.5)
        self.wait(0.5)

        last = states[T - 1]
        decoder = CellBox("decoder", theme, theme.decoder, width=2.2, height=1.0)
        decoder.move_to([min(last.get_x() + 2.6, 5.9) if T > 1 else 3.0, -2.0, 0])
        gone = None
        if T > 1:
            earlier = VGroup(*states[: T - 1])
            crosses = VGroup(*[_struck(s[0], theme) for s in earlier])
            gone = caption("discarded", theme, 22, theme.negative).next_to(earlier, DOWN, buff=0.3)
            said = self._say(said, f"h\u2081 \u2026 h{subscript(T - 1)} are discarded: they never reach "
                                   "the decoder", FOOT_Y,
                             earlier.animate.set_opacity(0.25), links.animate.set_opacity(0.25),
                             Create(crosses), fade_in(gone))
        else:
            said = self._say(said, "one word: its single state is all there is")
        ring = SurroundingRectangle(last, color=theme.highlight, buff=0.08)
        context = fit_within(caption(f"h{subscript(T)}: context vector", theme, 20, theme.highlight),
                             max_width=2.6)
        # The first side of the ring where the label touches nothing else on
        # screen (long sentences wrap the token strip and crowd the top).
        others = [tokens, note, *states, decoder, said] + ([gone] if gone is not None else [])
        for side in (UP, RIGHT, DOWN, LEFT):
            context.next_to(ring, side, buff=0.1)
            if _inside_frame(context) and not any(_touch(context, o) for o in others):
                break
        else:
            # No room round the ring (many words): the label waits under the decoder, where
            # h_T goes (above it sits the row of state labels h_1 ... h_T).
            side = None
            context.next_to(decoder, DOWN, buff=0.15)
            context.shift(LEFT * max(0.0, context.get_right()[0] - (config.frame_width / 2 - 0.15)))
        # Below the ring, the label sits on the way to the decoder: start there.
        to_decoder = arrow_between(context if side is DOWN else ring, decoder.box, theme.highlight)
        self.play(Create(ring), fade_in(context), Indicate(last[0], color=theme.highlight, scale_factor=1.05))
        self.play(Create(decoder), GrowArrow(to_decoder))
        said = self._say(said, f"all {T} word{'s' if T > 1 else ''} must pass through these {H} numbers, "
                               "however long the sentence")
        self.wait(0.8)
        cost = self._measured_cost()
        if cost is not None:
            self.play(fade_in(cost.move_to([0, FOOT_Y - 0.0, 0])), fade_out(said))
            self.wait(1.0)
        self._long_sentence(VGroup(title, note, tokens, states, links, decoder, ring, context, to_decoder,
                                   *([crosses, gone] if gone is not None else []), *([cost] if cost else [])))

    def _long_sentence(self, shown) -> None:
        """A long sentence the plain network gets wrong, beside what the attention network writes.

        Both translations come from the core (``bottleneck_example``: the
        longest held-out sentence the network without attention gets wrong
        and the one with attention gets right); the scene only sets them
        against the reference, word by word.
        """
        ex = getattr(self.trace, EXAMPLE, None)
        if ex is None:
            self.wait(1.5)
            return
        theme = self.theme
        T = len(ex.source)
        head = caption(f"A longer sentence ({T} words), held out from training:", theme, 22, theme.text)
        source = TokenStrip(ex.source, theme, colour=theme.embedding, font_size=20, max_width=13.0)
        rows = _word_rows((("without attention:", ex.plain_translation),
                           ("with attention:", ex.attention_translation),
                           ("reference:", ex.reference)), ex.reference, theme, font_size=24)
        fit_within(rows, max_width=13.3)
        source = fit_within(source, max_width=13.3)
        block = VGroup(head, source, rows).arrange(DOWN, buff=0.5).move_to([0, 0.4, 0])
        fit_within(block, max_width=13.3, max_height=6.0)
        why = caption(f"without attention the decoder saw only h{subscript(T)}; with attention, "
                      "every h\u2c7c at every step", theme, 20, theme.muted)
        fit_within(why, max_width=13.3).next_to(block, DOWN, buff=0.4)
        wrong = len(mismatches(tuple(ex.plain_translation), tuple(ex.reference)))
        verdict = self._foot(f"without attention {wrong} word{'s' if wrong != 1 else ''} differ (framed); "
                             "with attention it is the reference", FOOT_Y)
        self.play(fade_out(shown))
        self.play(fade_in(head), FadeIn(source, lag_ratio=0.05))
        self.play(fade_in(rows[0]), fade_in(rows[2]))
        self.wait(1.0)
        self.play(fade_in(rows[1]), fade_in(verdict), fade_in(why))
        self.wait(2.5)

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
        return fit_within(line, max_width=13.2)

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

    def _say(self, old, text: str, y: float = FOOT_Y, *anims):
        """Swap the foot line (a fade: morphing glyphs into others reads badly)."""
        new = self._foot(text, y)
        self.play(fade_out(old), fade_in(new), *anims)
        return new

    def _foot(self, text: str, y: float = FOOT_Y):
        line = caption(text, self.theme, 20, self.theme.text)
        return fit_within(line, max_width=12.5).move_to([0, y, 0])


def _word_rows(rows, reference, theme, font_size: float = 20) -> VGroup:
    """Rows of words, position under position; a word that differs from the
    reference at its position is framed in the negative colour."""
    n = max(len(words) for _, words in rows)
    boxes = [[word_box(w, theme, theme.muted if name == "reference:" else theme.decoder, font_size)
              for w in words] for name, words in rows]
    widths = [max(b[i].width for b in boxes if i < len(b)) for i in range(n)]
    names = VGroup(*[caption(name, theme, 20, theme.muted) for name, _ in rows])
    out = VGroup()
    for r, ((name, words), row) in enumerate(zip(rows, boxes)):
        y = -0.75 * r * font_size / 20
        names[r].move_to([0, y, 0]).align_to([-0.3, 0, 0], RIGHT)
        x = 0.0
        marks = VGroup()
        for i, box in enumerate(row):
            box.move_to([x + widths[i] / 2, y, 0])
            x += widths[i] + 0.15
            if name != "reference:" and (i >= len(reference) or words[i] != reference[i]):
                marks.add(SurroundingRectangle(box, color=theme.negative, buff=0.04, stroke_width=3))
        out.add(VGroup(names[r], *row, marks))
    return out


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
