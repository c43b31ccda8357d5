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

import re

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
)

from .motion import window
from .base import CaptionPacer, FINAL_HOLD, WalkthroughScene
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
from .decoder import legible_dots
from .seq2seq_view import encoder_view, mismatches, network_note

__all__ = ["BottleneckScene"]

TITLE_Y = 3.6
NOTE_Y = 3.1
TOKENS_Y = 2.5
STATES_TOP = 1.95
DECODER_Y = -2.1
FOOT_Y = -3.35  # the captions
TEXT_FONT = 20  # the legibility floor: 12 px capitals at 480p
CELL_W = 0.92  # "\u22121.00" at 20 pt needs 0.81 of the cell's 0.9 of its width
LENGTHS = "length_experiment"
EXAMPLE = "bottleneck_example"


class BottleneckScene(WalkthroughScene):
    scene_id = "bottleneck"
    trace_sections = ("source", "sizes", "plain_model.network", "plain_model.weights", "plain_model.trained",
                      "plain_model.tokens", "plain_model.encoder_states", LENGTHS, EXAMPLE)
    description = ("Only h_T reaches the plain decoder: h_1 ... h_{T-1} are discarded. Ends on a long "
                   "sentence the plain network gets wrong, beside what attention writes.")
    shown_results = ("context", "translations")

    def construct(self) -> None:
        view = encoder_view(self.trace)
        theme = self.theme
        T, H = view.hidden.shape
        pacer = self.pacer = CaptionPacer(self, y=FOOT_Y)

        title = VGroup(
            caption("The bottleneck", theme, 30),
            caption("one fixed-size vector for the whole sentence", theme, 22, theme.muted),
        ).arrange(RIGHT, buff=0.4, aligned_edge=DOWN)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        colour = theme.highlight if view.untrained else theme.muted
        note = caption(network_note(self.trace), theme, TEXT_FONT, colour)
        if note.width > 13.8:
            # Long unknown words: the note keeps its one line at the floor size, without their list.
            note = caption(re.sub(r" \([^)]*\)", "", network_note(self.trace)), theme, TEXT_FONT, colour)
        fit_within(note, max_width=13.8).move_to([0, NOTE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=22,
                            max_width=13.6).move_to([0, TOKENS_Y, 0])
        if tokens.get_top()[1] > note.get_bottom()[1] - 0.1:
            # A long sentence wraps onto two rows: keep it clear of the note.
            tokens.next_to(note, DOWN, buff=0.1)
        # The first frame: the title and the sentence, never black.
        self.add(title, note, tokens)

        # h_1 ... h_T with their real values, one column per word.
        states = self._columns(view.hidden, view.hidden_keys, "h", H, tokens)
        gaps = [states[t + 1][0].get_left()[0] - states[t][0].get_right()[0] for t in range(T - 1)]
        links = VGroup(*[arrow_between(states[t][0], states[t + 1][0], theme.encoder, buff=0.03)
                         for t in range(T - 1)]) if T > 1 and min(gaps) > 0.25 else VGroup()
        pacer.swap(f"the encoder computes a state for every word: h\u2081 \u2026 h{subscript(T)}",
                   LaggedStart(*[fade_in(s, shift=RIGHT * 0.2) for s in states], lag_ratio=0.2),
                   fade_in(links), run_time=1.5)

        last = states[T - 1]
        decoder = CellBox("decoder", theme, theme.decoder, width=2.0, height=0.9, font_size=24)
        # Under the row of states, clear of their names (a long sentence pushes them down).
        decoder.move_to([min(last.get_x() + 2.6, 5.95) if T > 1 else 3.0,
                         min(DECODER_Y, states.get_bottom()[1] - 0.2 - decoder.height / 2), 0])
        gone = None
        if T > 1:
            earlier = VGroup(*states[: T - 1])
            crosses = VGroup(*[_struck(s[0], theme) for s in earlier])
            gone = caption("discarded", theme, 22, theme.negative).next_to(earlier, DOWN, buff=0.2)
            pacer.swap(f"h\u2081 \u2026 h{subscript(T - 1)} are discarded: they never reach the decoder",
                       earlier.animate.set_opacity(0.25), links.animate.set_opacity(0.25),
                       Create(crosses), fade_in(gone))
        else:
            pacer.swap("one word: its single state is all there is")
        ring = SurroundingRectangle(last, color=theme.highlight, buff=0.08)
        context = caption(f"h{subscript(T)}: context vector", theme, TEXT_FONT, theme.highlight)
        # Beside the decoder, on the way from h_T (round the ring sit the tokens, the names, the frame's edge).
        context.next_to(decoder, LEFT, buff=0.2)
        to_decoder = arrow_between(ring, decoder.box, theme.highlight)
        self.play(Create(ring), Indicate(last[0], color=theme.highlight, scale_factor=1.05))
        self.play(Create(decoder.box), fade_in(decoder.text), GrowArrow(to_decoder), fade_in(context))
        self.pause_on_result("context")
        pacer.swap(f"all {T} word{'s' if T > 1 else ''} must pass through these {H} numbers, "
                   "however long the sentence")
        cost = self._measured_cost()
        if cost is not None:
            pacer.swap(cost)
        self._long_sentence(VGroup(note, tokens, states, links, decoder, ring, context, to_decoder,
                                   *([crosses, gone] if gone is not None else [])))

    def _long_sentence(self, shown) -> None:
        """A long sentence the plain network gets wrong, beside what the attention network writes.

        Both translations come from the core (``bottleneck_example``: the
        longest held-out sentence the network without attention gets wrong
        and the one with attention gets right); the scene only sets them
        against the reference, word by word.
        """
        ex = getattr(self.trace, EXAMPLE, None)
        pacer = self.pacer
        if ex is None:
            pacer.finish()
            return
        theme = self.theme
        T = len(ex.source)
        source = TokenStrip(ex.source, theme, colour=theme.embedding, font_size=22, max_width=13.6)
        rows = _word_rows((("without attention:", ex.plain_translation),
                           ("with attention:", ex.attention_translation),
                           ("reference:", ex.reference)), ex.reference, theme)
        block = VGroup(source, rows).arrange(DOWN, buff=0.45)
        rows.set_x(0)
        source.set_x(0)
        wrong = len(mismatches(tuple(ex.plain_translation), tuple(ex.reference)))
        verdict = caption(f"without attention {wrong} word{'s' if wrong != 1 else ''} differ (framed); "
                          "with attention it is the reference", theme, 22, theme.text)
        block.add(verdict)
        verdict.next_to(rows, DOWN, buff=0.4)
        block.move_to([0, 0.15, 0])
        # The new sentence comes in as the old figure goes (the old one is gone before the new one
        # shows enough to cross it): the picture is never empty while its caption is read.
        pacer.swap(f"A longer sentence ({T} words), held out from training",
                   fade_out(shown, rate_func=window(0.0, 0.5)), fade_in(source, rate_func=window(0.35, 0.9)))
        self.play(fade_in(rows[0]), fade_in(rows[2]))
        self.wait(1.0)
        self.play(fade_in(rows[1]), fade_in(verdict))
        self.pause_on_result("translations")
        pacer.swap(f"without attention the decoder saw only h{subscript(T)}; "
                   "with attention, every h\u2c7c at every step")
        # The poster: the sentence, the three translations, why they differ.
        pacer.finish(FINAL_HOLD)

    def _measured_cost(self):
        """Exact match without attention at the shortest and longest test lengths, keyed."""
        data = self.trace.to_dict().get(LENGTHS)
        if not data:
            return None
        theme, lengths = self.theme, data["lengths"]
        key = f"{LENGTHS}.without_attention.exact_match"
        last = len(lengths) - 1
        how = data["without_attention"].get("training_note", "trained without attention")  # the core's note
        first = caption(f"measured on the translator {how}:", theme, TEXT_FONT, theme.muted)
        second = VGroup(
            caption("exact match", theme, TEXT_FONT, theme.muted),
            NumberLabel(data["without_attention"]["exact_match"][0], theme, (key, 0), TEXT_FONT, theme.text),
            caption(f"at {lengths[0]} words,", theme, TEXT_FONT, theme.muted),
            NumberLabel(data["without_attention"]["exact_match"][last], theme, (key, last), TEXT_FONT, theme.text),
            caption(f"at {lengths[-1]} words", theme, TEXT_FONT, theme.muted),
        ).arrange(RIGHT, buff=0.15, aligned_edge=DOWN)
        line = VGroup(first, second).arrange(DOWN, buff=0.12).move_to([0, FOOT_Y, 0])
        # What the caption pacer reads (and times) as one caption.
        line.text = " ".join([first.original_text, "exact match", second[1].shown, second[2].original_text,
                              second[3].shown, second[4].original_text])
        return line

    def _columns(self, values, keys, letter: str, H: int, tokens) -> VGroup:
        """One state column per word, named below, in a row under the tokens."""
        theme = self.theme
        T = len(keys)
        slot = min(1.25, 13.5 / T)
        cell_h = 0.36 if H <= 6 else 0.34
        states = VGroup()
        for t in range(T):
            col = legible_dots(VectorColumn(values[t], theme, key=keys[t], colour=theme.encoder,
                                            cell_width=CELL_W, cell_height=cell_h))
            name = caption(f"{letter}{subscript(t + 1)}", theme, 22, theme.encoder).next_to(col, DOWN, buff=0.1)
            states.add(VGroup(col, name))
        states.arrange(RIGHT, buff=max(slot - CELL_W - 0.08, 0.1), aligned_edge=UP)
        states.move_to([0, 0, 0]).align_to([0, STATES_TOP, 0], UP)
        if states.get_top()[1] > tokens.get_bottom()[1] - 0.25:
            states.next_to(tokens, DOWN, buff=0.25)
        return states


def _word_rows(rows, reference, theme, font_size: float = TEXT_FONT, max_width: float = 13.6) -> VGroup:
    """Rows of words, position under position; a word that differs from the
    reference at its position is framed in the negative colour. Too wide for
    one block at ``font_size``, the positions wrap onto a second block of the
    same rows (never a smaller font). ``out[r]`` is row ``r``, its parts in
    both blocks."""
    n = max(len(words) for _, words in rows)
    boxes = [[word_box(w, theme, theme.muted if name == "reference:" else theme.decoder, font_size)
              for w in words] for name, words in rows]
    widths = [max(b[i].width for b in boxes if i < len(b)) for i in range(n)]
    name_w = max(caption(name, theme, TEXT_FONT).width for name, _ in rows) + 0.3
    blocks = [list(range(n))]
    if name_w + sum(widths) + 0.15 * (n - 1) > max_width and n > 1:
        half = (n + 1) // 2
        blocks = [list(range(half)), list(range(half, n))]
    pitch = 0.62 * font_size / 20
    out = VGroup(*[VGroup() for _ in rows])
    for k, block in enumerate(blocks):
        top = -k * (len(rows) * pitch + 0.3)
        for r, ((name, words), row) in enumerate(zip(rows, boxes)):
            y = top - r * pitch
            label = caption(name, theme, TEXT_FONT, theme.muted).move_to([0, y, 0]).align_to([-0.3, 0, 0], RIGHT)
            out[r].add(label)
            x = 0.0
            for i in block:
                if i < len(row):
                    row[i].move_to([x + widths[i] / 2, y, 0])
                    out[r].add(row[i])
                    if name != "reference:" and (i >= len(reference) or words[i] != reference[i]):
                        out[r].add(SurroundingRectangle(row[i], color=theme.negative, buff=0.04,
                                                        stroke_width=3))
                x += widths[i] + 0.15
    return out


def _struck(column, theme) -> Cross:
    """A light cross over a discarded state: marked, but its numbers still read."""
    return Cross(column, stroke_color=theme.negative, stroke_width=3).set_stroke(opacity=0.5)
