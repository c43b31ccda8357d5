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
    DashedVMobject,
    GrowArrow,
    Indicate,
    Mobject,
    Rectangle,
    SurroundingRectangle,
    MathTex,
    Text,
    Transform,
    VGroup,
)

from .motion import unfold_strip, window
from .base import FINAL_HOLD, SAFE_EDGE, CaptionPacer, WalkthroughScene
from .components import (
    CellBox,
    NumberLabel,
    OpacityScaling,
    StateStrip,
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
from .part1_words import reader_note
from .seq2seq_view import encoder_view

__all__ = ["BottleneckScene"]

TITLE_Y = 3.6
NOTE_Y = 3.1
TOKENS_Y = 2.5
STATES_TOP = 1.95
DECODER_Y = -2.55  # the decoder's centre: under the states' names, over the captions
FOOT_Y = -3.68  # the captions, as in ``encoder`` (under the strip of states it leaves)
TEXT_FONT = 23.5  # the legibility floor: 14 px at 480p (issue 31)
FIGURE_Y = 1.35  # the struck strip, shrunk, over the long sentence's table
FIGURE_H = 1.3
TABLE_TOP = 0.4
VERDICT_Y = -3.2
CELL_W = 0.92  # a colour-only column (h_1 .. h_{T-1})
DIGITS_W = 1.08  # h_T's column: "\u22121.00" at 23.5 pt needs 0.95 of the cell's 0.9 of its width
CELL_H_RANGE = (0.3, 0.42)  # a 20-pt number needs 0.3; no taller than 0.42
DECODER_W = 2.0
DECODER_ROOM = DECODER_W + 0.45 + 0.2  # the decoder right of the states: its width, the arrow, a margin
NAMES_AND_DISCARDED = 0.4 + 0.45  # under the states: their names, then "discarded"
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
        self.set_stage()                 # title, sentence, the strip of h_j as the encoder left it
        self.unfold_the_states()         # the chips unfold into h_1 .. h_T, their numbers shown
        self.discard_earlier_states()    # h_1 .. h_{T-1} dimmed and struck: they never reach the decoder
        self.give_h_T_to_the_decoder()   # a ring on h_T, the decoder, the arrow: the context vector
        self.count_the_cost()            # T words through H numbers; the measured exact match
        self.show_a_long_sentence()      # a long sentence: without attention, with it, the reference

    # -- beats ------------------------------------------------------------------

    def set_stage(self) -> None:
        """The first frame: title, network, the sentence, and h_1 .. h_T as the strip the
        encoder left at the bottom of the frame (same place, same look, its ring and name)."""
        view = self.view = encoder_view(self.trace)
        theme = self.theme
        title = VGroup(
            caption("The bottleneck", theme, 30),
            caption("one fixed-size vector for the whole sentence", theme, 24, theme.muted),
        ).arrange(RIGHT, buff=0.4, aligned_edge=DOWN)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        colour = theme.highlight if view.untrained else theme.muted
        # The network in the reader's words, as every Part 1 clip names it (not its training budget).
        note = caption(reader_note(self.trace), theme, TEXT_FONT, colour)
        if note.width > 2 * SAFE_EDGE:
            # Long unknown words: the note keeps its one line at the floor size, without their list.
            note = caption(re.sub(r" \([^)]*\)", "", reader_note(self.trace)), theme, TEXT_FONT, colour)
        fit_within(note, max_width=2 * SAFE_EDGE).move_to([0, NOTE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=24,
                            max_width=13.6).move_to([0, TOKENS_Y, 0])
        if tokens.get_top()[1] > note.get_bottom()[1] - 0.1:
            # A long sentence wraps onto two rows: keep it clear of the note.
            tokens.next_to(note, DOWN, buff=0.1)
        self.strip = StateStrip(view.hidden, theme)
        self.strip_ring, self.strip_name = self.strip.context_ring(theme), self.strip.context_name(theme)
        self.note, self.tokens = note, tokens
        self.pacer = CaptionPacer(self, FOOT_Y, TEXT_FONT)
        self.add(title, note, tokens, self.strip, self.strip_ring, self.strip_name)

    def unfold_the_states(self) -> None:
        """The strip unfolds: each chip grows into its column of numbers, h_1 .. h_T."""
        theme, T = self.theme, len(self.view.tokens)
        self.states = self._columns(self.view.hidden, self.view.hidden_keys, "h", self.tokens)
        states = self.states
        gaps = [states[t + 1][0].get_left()[0] - states[t][0].get_right()[0] for t in range(T - 1)]
        self.links = VGroup(*[arrow_between(states[t][0], states[t + 1][0], theme.encoder, buff=0.03)
                              for t in range(T - 1)]) if T > 1 and min(gaps) > 0.25 else VGroup()
        self.wait(1.0)  # the strip where the encoder left it, recognised before it moves
        self.pacer.swap(f"the encoder left a state for every word: h\u2081 \u2026 h{subscript(T)}",
                        unfold_strip(self.strip, [s for s in states], leaving=(self.strip_ring, self.strip_name)),
                        fade_in(self.links, rate_func=window(0.85, 1.0)), run_time=2.2)

    def discard_earlier_states(self) -> None:
        """h_1 .. h_{T-1} dim and are struck through, "discarded" under them."""
        theme, T, states = self.theme, len(self.view.tokens), self.states
        self.struck: list = []
        if T == 1:
            self.pacer.swap("one word: its single state is all there is")
            return
        earlier = VGroup(*states[: T - 1])
        crosses = VGroup(*[_struck(s[0], theme) for s in earlier])
        gone = caption("discarded", theme, 24, theme.negative).next_to(earlier, DOWN, buff=0.2)
        self.pacer.swap(f"h\u2081 \u2026 h{subscript(T - 1)} are discarded: they never reach the decoder",
                        _Dim(earlier, 0.25), _Dim(self.links, 0.25),
                        Create(crosses), fade_in(gone))
        self.struck = [crosses, gone]

    def give_h_T_to_the_decoder(self) -> None:
        """A ring on h_T, the decoder beside it (or under it), the arrow between: the context vector."""
        theme, T, states = self.theme, len(self.view.tokens), self.states
        last = states[T - 1]
        decoder = CellBox("decoder", theme, theme.decoder, width=DECODER_W, height=0.9, font_size=24)
        ring = SurroundingRectangle(last, color=theme.highlight, buff=0.08)
        context = caption(f"h{subscript(T)}: context vector", theme, TEXT_FONT, theme.highlight)
        if self.decoder_beside:
            # Right of h_T, level with its numbers; its name under it.
            decoder.move_to([ring.get_right()[0] + 0.45 + DECODER_W / 2, last[0].get_y(), 0])
            context.next_to(decoder, DOWN, buff=0.25)
        else:
            # Under the row of states, clear of their names (a long sentence pushes them down);
            # the name beside it, on the way from h_T.
            decoder.move_to([min(last.get_x() + 2.6, 5.95) if T > 1 else 3.0,
                             min(DECODER_Y, states.get_bottom()[1] - 0.2 - decoder.height / 2), 0])
            context.next_to(decoder, LEFT, buff=0.2)
        to_decoder = arrow_between(ring, decoder.box, theme.highlight)
        self.play(Create(ring), Indicate(last[0].frame, color=theme.highlight, scale_factor=1.05))
        self.play(Create(decoder.box), fade_in(decoder.text), GrowArrow(to_decoder), fade_in(context))
        self.pause_on_result("context")
        self.ring, self.decoder, self.to_decoder, self.context = ring, decoder, to_decoder, context

    def count_the_cost(self) -> None:
        """Every word must pass through h_T's H numbers; what that costs, measured."""
        T, H = self.view.hidden.shape
        self.pacer.swap(f"all {T} word{'s' if T > 1 else ''} must pass through these {H} numbers, "
                        "however long the sentence")
        cost = self._measured_cost()
        if cost is not None:
            self.pacer.swap(cost)

    def show_a_long_sentence(self) -> None:
        """A long sentence the plain network gets wrong, beside what the attention network writes.

        Both translations come from the core (``bottleneck_example``: the
        longest held-out sentence the network without attention gets wrong
        and the one with attention gets right); the scene only sets them
        against the reference, word under word (aligned, so that an equal word
        stands over its twin), and counts what it frames.
        """
        ex = getattr(self.trace, EXAMPLE, None)
        pacer = self.pacer
        if ex is None:
            pacer.finish()
            return
        source, rows, verdict = self._long_sentence_parts(ex)
        # The struck strip stays, smaller, above the table (the reason it fails); the new
        # sentence takes the old one's place; the rows come in under the strip.
        # The decoder's name is not shrunk with its box (too small to read): it moves out beside it.
        name = self.decoder.text
        figure = VGroup(self.states, self.links, *self.struck, self.ring, self.decoder.box, self.to_decoder)
        # Its other texts (names, digits, "discarded") would be too small to read once shrunk: they
        # go first (and stay gone), the shapes shrink: h_T is its colours now, still ringed.
        texts = VGroup(*(m for m in figure.get_family() if isinstance(m, (Text, MathTex))))
        pacer.wait_for_reader(extra=0.8)  # the cost is read before the figure makes way
        self.play(_Dim(texts, 0.0), fade_out(VGroup(self.tokens, self.context)), run_time=0.5)
        target = figure.copy()
        target.scale(min(FIGURE_H / figure.height, 12.0 / figure.width)).move_to([0, FIGURE_Y, 0])
        # The shrunk decoder keeps its name, at a size a reader can read, beside its box: an empty
        # orange box alone says nothing.
        decoder_at = target[figure.submobjects.index(self.decoder.box)]
        beside = caption("decoder", self.theme, TEXT_FONT, self.theme.decoder)
        beside.next_to(decoder_at, RIGHT, buff=0.15)
        pacer.swap(f"A longer sentence ({len(ex.source)} words), held out from training",
                   Transform(figure, target), Transform(name, beside),
                   fade_in(source, rate_func=window(0.3, 0.65)),
                   fade_in(rows[-1], rate_func=window(0.5, 0.9)), run_time=1.6)
        self.wait(1.0)
        self.play(fade_in(VGroup(*rows[:-1])), fade_in(verdict))
        self.pause_on_result("translations")
        # What the strip above says, for this sentence (h_T is the draft's h_8 for its 8 words).
        pacer.swap(f"without attention, its decoder saw only h{subscript(len(ex.source))}")
        # The poster: the strip, the sentence, the translations, why they differ.
        pacer.finish(FINAL_HOLD + 0.5)

    # -- builders ---------------------------------------------------------------

    def _long_sentence_parts(self, ex) -> tuple[TokenStrip, VGroup, Mobject]:
        """The long sentence, its translations (rows, reference last) and the verdict, laid out.
        The attention row is drawn only where it differs from the reference; when it is the
        reference, the verdict says so."""
        theme = self.theme
        source = TokenStrip(ex.source, theme, colour=theme.embedding, font_size=24, max_width=13.6)
        source.move_to([0, self.tokens.get_y(), 0])
        same = tuple(ex.attention_translation) == tuple(ex.reference)
        named = [("without attention:", ex.plain_translation)]
        if not same:
            named.append(("with attention:", ex.attention_translation))
        columns = aligned_columns([w for _, w in named], ex.reference)
        rows, wrong, missing = _word_rows([n for n, _ in named] + ["reference:"], columns, theme)
        rows.move_to([0, TABLE_TOP - rows.height / 2, 0])
        head = f"without attention: {wrong} wrong (framed)"
        if missing:
            head += f", {missing} missing (dashed)"
        tail = "with attention: all right" if same else "with attention: framed in its row"
        verdict = caption(f"{head}; {tail}", theme, 24, theme.text)
        fit_within(verdict, max_width=13.6).move_to([0, VERDICT_Y, 0])
        self.framed = (wrong, missing)
        return source, rows, verdict

    def _measured_cost(self):
        """Exact match without attention at the shortest and longest test lengths, keyed."""
        data = self.trace.to_dict().get(LENGTHS)
        if not data:
            return None
        theme, lengths = self.theme, data["lengths"]
        key = f"{LENGTHS}.without_attention.exact_match"
        last = len(lengths) - 1
        # The length experiment's own translators (length_curve tells how they were trained): the
        # clip's subtitle names the network shown, so its budget is not set against this one's.
        first = caption("measured without attention, on sentences it never saw:", theme, TEXT_FONT, theme.muted)
        second = VGroup(
            caption("exact match", theme, TEXT_FONT, theme.muted),
            NumberLabel(data["without_attention"]["exact_match"][0], theme, (key, 0), TEXT_FONT, theme.text),
            caption(f"at {lengths[0]} words,", theme, TEXT_FONT, theme.muted),
            NumberLabel(data["without_attention"]["exact_match"][last], theme, (key, last), TEXT_FONT, theme.text),
            caption(f"at {lengths[-1]} words", theme, TEXT_FONT, theme.muted),
        ).arrange(RIGHT, buff=0.15, aligned_edge=DOWN)
        # Two lines: their bottom where a one-line caption's is, clear of the frame's edge.
        line = VGroup(first, second).arrange(DOWN, buff=0.12)
        line.move_to([0, FOOT_Y - 0.12 + line.height / 2, 0])
        # What the caption pacer reads (and times) as one caption.
        line.text = " ".join([first.original_text, "exact match", second[1].shown, second[2].original_text,
                              second[3].shown, second[4].original_text])
        return line

    def _columns(self, values, keys, letter: str, tokens) -> VGroup:
        """One state column per word, named below, in a row under the tokens, as tall as the
        frame allows: every number when they fit at a readable height (the caption counts
        them), so the frame's lower half holds the states, not empty space. The decoder goes
        right of the row when there is room (``self.decoder_beside``), else under it."""
        theme = self.theme
        T, H = values.shape
        slot = min(1.25, 13.5 / T)
        buff = max(slot - CELL_W - 0.08, 0.1)
        width = (T - 1) * (CELL_W + 0.08) + DIGITS_W + 0.08 + (T - 1) * buff
        self.decoder_beside = width + DECODER_ROOM <= 2 * SAFE_EDGE
        top = min(STATES_TOP, tokens.get_bottom()[1] - 0.25)
        # Down to the captions (beside) or to the decoder (under), less the names and "discarded".
        floor = FOOT_Y + 0.6 if self.decoder_beside else DECODER_Y + 0.45
        room = top - floor - NAMES_AND_DISCARDED - 0.08
        rows = H if room / H >= CELL_H_RANGE[0] else max(3, int(room / CELL_H_RANGE[0]))
        cell_h = max(CELL_H_RANGE[0], min(CELL_H_RANGE[1], room / min(H, rows)))
        states = VGroup()
        for t in range(T):
            # Digits only on h_T, the one vector the decoder gets (12 numbers, not T x 12):
            # the others are read by their colours.
            col = VectorColumn(values[t], theme, key=keys[t], colour=theme.encoder,
                               cell_width=DIGITS_W if t == T - 1 else CELL_W,
                               cell_height=cell_h, max_rows=rows,
                               show_numbers=t == T - 1)
            name = caption(f"{letter}{subscript(t + 1)}", theme, 24, theme.encoder).next_to(col, DOWN, buff=0.1)
            states.add(VGroup(col, name))
        states.arrange(RIGHT, buff=buff, aligned_edge=UP)
        left = -SAFE_EDGE + (2 * SAFE_EDGE - DECODER_ROOM - width) / 2 if self.decoder_beside else -states.width / 2
        states.move_to([left + states.width / 2, 0, 0]).align_to([0, top, 0], UP)
        return states


def aligned_columns(rows: list, reference) -> list[tuple]:
    """The words of ``rows`` set against ``reference`` column by column, aligned (difflib's
    matching blocks, as a reader lines up two sentences) so that an equal word stands over its
    twin: each column is ``(word or None per row..., reference word or None)``. Only the
    first row is aligned; further rows (the attention's, when it differs) follow the reference."""
    from difflib import SequenceMatcher

    first, ref = list(rows[0]), list(reference)
    cols: list[list] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=first, b=ref, autojunk=False).get_opcodes():
        n = max(i2 - i1, j2 - j1)
        for k in range(n):
            a = first[i1 + k] if i1 + k < i2 else None
            b = ref[j1 + k] if j1 + k < j2 else None
            cols.append([a, b])
    out = []
    for a, b in cols:
        out.append((a,) + tuple(None for _ in rows[1:]) + (b,))
    # Further rows follow the reference's columns.
    ref_cols = [k for k, (_, b) in enumerate(cols) if b is not None]
    for r, words in enumerate(rows[1:], start=1):
        for w, k in zip(words, ref_cols):
            col = list(out[k]); col[r] = w; out[k] = tuple(col)
    return out


def _word_rows(names, columns, theme, font_size: float = TEXT_FONT, max_width: float = 13.6):
    """Rows of words, column under column (``columns`` from :func:`aligned_columns`); a word
    that differs from the reference in its column is framed in the negative colour, a
    reference word with nothing over it gets a dashed empty frame. Too wide for one block
    at ``font_size``, the columns wrap onto a second block of the same rows (never a smaller
    font). Returns the rows (``out[r]`` is row ``r``, both blocks), how many words are framed
    and how many are missing (the counts of what is drawn)."""
    R = len(names)
    boxes = [[word_box(w, theme, theme.muted if r == R - 1 else theme.target_embedding, font_size)
              if w is not None else None for r, w in enumerate(col)] for col in columns]
    widths = [max(b.width for b in col if b is not None) for col in boxes]
    name_w = max(caption(name, theme, TEXT_FONT).width for name in names) + 0.3
    n = len(columns)
    blocks = [list(range(n))]
    if name_w + sum(widths) + 0.15 * (n - 1) > max_width and n > 1:
        half = (n + 1) // 2
        blocks = [list(range(half)), list(range(half, n))]
    pitch = 0.62 * font_size / 20
    out = VGroup(*[VGroup() for _ in names])
    wrong = missing = 0
    for k, block in enumerate(blocks):
        top = -k * (R * pitch + 0.3)
        for r, name in enumerate(names):
            y = top - r * pitch
            out[r].add(caption(name, theme, TEXT_FONT, theme.muted).move_to([0, y, 0]).align_to([-0.3, 0, 0], RIGHT))
            x = 0.0
            for i in block:
                box, ref = boxes[i][r], columns[i][-1]
                centre = [x + widths[i] / 2, y, 0]
                if box is not None:
                    box.move_to(centre)
                    out[r].add(box)
                    if r < R - 1 and columns[i][r] != ref:
                        out[r].add(SurroundingRectangle(box, color=theme.negative, buff=0.04, stroke_width=3))
                        wrong += 1
                elif r < R - 1 and ref is not None:
                    gap = DashedVMobject(Rectangle(width=max(widths[i] - 0.1, 0.4), height=0.5,
                                                   stroke_color=theme.negative, stroke_width=2.5), num_dashes=14)
                    out[r].add(gap.move_to(centre))
                    missing += 1
                x += widths[i] + 0.15
    # Centred as a block, names included.
    return out, wrong, missing


class _Dim(OpacityScaling):
    """Everything in ``mobject`` down to ``level`` of its own opacity, kept there (no copy;
    ``set_opacity`` would also fill the elision dots' invisible boxes)."""

    def __init__(self, mobject, level: float, **kw) -> None:
        self.level = level
        super().__init__(mobject, **kw)

    def interpolate_mobject(self, alpha: float) -> None:
        self.scale_opacity(1.0 - (1.0 - self.level) * self.rate_func(alpha))


def _struck(column, theme) -> Cross:
    """A light cross over a discarded state: marked, but its numbers still read."""
    return Cross(column, stroke_color=theme.negative, stroke_width=3).set_stroke(opacity=0.5)
