"""``seq2seq_overview``: the five parts of the encoder-decoder in one diagram.

Draft 000, "A quick overview of the Encoder-Decoder architecture": 1 the
input sequence (words as embeddings), 2 the encoder, 3 its last hidden
state, the context vector, 4 the decoder, 5 the mapping of decoder states
to output words. The diagram is built up part by part with the network the
Part 1 scenes show (:mod:`scenes.seq2seq_view`): by default the translator
trained without attention, with its real embeddings as colour chips, its
GRU encoder, the context h_T, its GRU decoder and the words it really
writes, compared with the reference translation when there is one; or the
small seeded tanh RNN (said to be untrained) when the translator cannot
read the sentence. The decoder writes word by word, and each word it
writes travels back under the boxes to be its next input (Alammar's
walkthrough). Its last frame is the draft's static figure
``seq2seq_basic``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circle,
    Create,
    FadeIn,
    GrowArrow,
    Indicate,
    Mobject,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    Text,
    VGroup,
)

from attention_core.text import END, START

from .base import SAFE_EDGE_TEXT, CaptionPacer, WalkthroughScene
from .components import (
    NUMBER_SIZE,
    ValueCell,
    VectorColumn,
    baseline_of,
    caption,
    fade_in,
    fade_out,
    readable_text,
    subscript,
)
from .glyphs import cell_width_for
from .motion import feed_back, window
from .part1_layout import column_values, readable_dots, signed_bars, wrapped_note
from .part1_words import reader_note
from .seq2seq_view import decoder_view, encoder_view, mismatches

__all__ = ["Seq2SeqOverviewScene", "Stage"]

TITLE_Y = 3.62
CAPTION_Y = -3.58  # the step captions (one or two lines)
ROWS_BOTTOM = -2.4  # above the decoder's input word (under its box)
MAX_PITCH = 0.5
INPUT_BASELINE = -3.0  # the baseline of the decoder's input word
FULL_STEPS = 3  # the first steps at the reader's pace, the rest faster
# Column centres (x) of the five parts.
X_WORDS_RIGHT = -4.95  # source words are right-aligned here
X_CHIPS_LEFT = -4.8
X_ENCODER = -2.6
X_CONTEXT = -0.8
X_DECODER = 1.75
X_MAP = 3.4
X_OUT_LEFT = 4.4
MAX_OUT_W = SAFE_EDGE_TEXT - X_OUT_LEFT  # the widest written word (longer ones are shrunk, then cut)
BOX_W = 1.45  # "GRU" and the arrows' room; the part's name is its header above
HEADER_GAP = 0.3  # between two parts' headers
MAP_W = 1.3
CHIP_W, CHIP_H = 0.13, 0.24
CHIPS_MAX_W = 0.9  # a chip of 8 dimensions keeps room for its arrow
WORD_SIZE = 24  # the 14 px floor
BAR_W = 0.44  # the context's magnitude bars
#: The reference translation is quoted in the verdict when it is this short.
MAX_QUOTED_CHARS = 48


def _rows_y(n: int, top: float, bottom: float = ROWS_BOTTOM) -> tuple[list[float], float]:
    """Centres of ``n`` rows around the middle of ``top``..``bottom``, and the row pitch."""
    pitch = min(MAX_PITCH, (top - bottom) / max(n, 1))
    mid = (top + bottom) / 2
    first = mid + pitch * (n - 1) / 2
    return [first - i * pitch for i in range(n)], pitch


def _on_row(word: Text, y: float) -> Text:
    """``word`` moved up or down onto the baseline of a row centred at ``y``: where a
    letter without ascender or descender (an x) of its size would sit centred."""
    probe = Text("x", font=word.font, font_size=word.font_size)
    return word.shift(UP * (y - probe.height / 2 - baseline_of(word)))


def _arrow(start: np.ndarray, end: np.ndarray, colour: Any, width: float = 2.5) -> Arrow:
    return Arrow(start, end, buff=0, color=colour, stroke_width=width, tip_length=0.14,
                 max_tip_length_to_length_ratio=0.4, max_stroke_width_to_length_ratio=10)


def _draw(box: VGroup) -> list:
    """A block drawn, its name faded in (a half-drawn name would read as tiny text)."""
    return [Create(box[0]), fade_in(box[1])]


TEXT_FONT = 24  # labels, headers, notes: over the 14 px floor at 480p


@dataclass
class Stage:
    """What is on screen across the beats (STYLE.md \u00a73.2): the slots a beat reads and writes."""

    pacer: CaptionPacer
    header_y: float
    rows_top: float
    outputs: tuple[str, ...]
    ctx_text: str  # the context's name in captions (h\u2088)
    in_y: list[float] = field(default_factory=list)
    in_pitch: float = MAX_PITCH
    chips: VGroup | None = None
    enc_box: VGroup | None = None
    context: VectorColumn | None = None
    out_y: list[float] = field(default_factory=list)
    out_pitch: float = MAX_PITCH
    dec_box: VGroup | None = None
    map_box: VGroup | None = None
    s_arrows: VGroup | None = None
    out_arrows: VGroup | None = None
    header_right: float = float("-inf")  # where the last part's header ends (the next keeps clear)
    #: The word the decoder reads next (op_{t-1}), under its box: <START>, then each written word.
    fed: Mobject | None = None
    #: The encoder's state walking down the words (h_0 = 0, h_1, ...), until it becomes the context.
    walker: VGroup | None = None


class Seq2SeqOverviewScene(WalkthroughScene):
    scene_id = "seq2seq_overview"
    trace_sections = ("source", "target", "sizes", "plain_model")
    description = ("The encoder-decoder in five parts (the translator trained without attention): "
                   "input words as embeddings, encoder, context vector, decoder, output words.")
    shown_results = ("context", "words")

    def construct(self) -> None:
        self.set_stage()
        self.look_up_embeddings()
        self.read_with_the_encoder()
        self.hand_over_the_context()
        self.start_the_decoder()
        self.show_the_word_mapping()
        for k in range(len(self.stage.outputs)):
            self.write_word(k)
            if k < len(self.stage.outputs) - 1:
                self.feed_word_back(k)
        self.compare_with_the_reference()
        self.point_at_the_context()

    # -- beats -------------------------------------------------------------------

    def set_stage(self) -> None:
        """Title and whose network this is (the first frame); the slots the beats fill."""
        theme = self.theme
        self.enc, self.dec = encoder_view(self.trace), decoder_view(self.trace)
        title = caption("The encoder-decoder in five parts", theme, 30).move_to([0, TITLE_Y, 0])
        subtitle = wrapped_note(reader_note(self.trace), theme, TEXT_FONT,
                                theme.highlight if self.enc.untrained else theme.muted)
        subtitle.next_to(title, DOWN, buff=0.1)
        self.add(title, subtitle)
        header_y = subtitle.get_bottom()[1] - 0.3
        # Just <END> when it stops at once: the diagram still shows what it chose.
        self.stage = Stage(pacer=CaptionPacer(self, CAPTION_Y), header_y=header_y,
                           rows_top=header_y - 0.35, outputs=self.dec.written or (END,),
                           ctx_text=f"h{subscript(len(self.enc.tokens))}")
        self.pacer = self.stage.pacer  # the tests read the captions' log here

    def look_up_embeddings(self) -> None:
        """1. The source words, each with its embedding as a chip of colours."""
        st, enc = self.stage, self.enc
        st.in_y, st.in_pitch = _rows_y(len(enc.tokens), st.rows_top)
        words = VGroup(*(self._word(tok, y, st.in_pitch, 1.9, X_WORDS_RIGHT, RIGHT)
                         for tok, y in zip(enc.tokens, st.in_y)))
        scale = max(float(np.max(np.abs(enc.inputs))), 1e-9)
        cell_w = min(CHIP_W, CHIPS_MAX_W / enc.inputs.shape[1])
        st.chips = VGroup(*(self._chip(enc.inputs[t], scale, y, cell_w, min(CHIP_H, st.in_pitch * 0.7))
                            for t, y in enumerate(st.in_y)))
        st.pacer.swap(f"1. Each word becomes a vector of {enc.inputs.shape[1]} numbers: its embedding",
                      fade_in(self._header(1, "input words", X_WORDS_RIGHT - 0.3)), FadeIn(words, lag_ratio=0.1))
        # Colour chips, no numbers (the encoder scene shows them): nothing textual in flight.
        self.play(*(fade_in(c, shift=RIGHT * 0.25) for c in st.chips), run_time=0.8)

    def read_with_the_encoder(self) -> None:
        """2. The encoder box; each embedding's arrow into it."""
        st, theme = self.stage, self.theme
        label = self.enc.network.upper()  # GRU (its header says encoder; "encoder" did not fit at 24 pt)
        st.enc_box = self._tall_box(label, theme.encoder, st.in_y, st.in_pitch).move_to(
            [X_ENCODER, float(np.mean(st.in_y)), 0])
        arrows = VGroup(*(
            _arrow([c.get_right()[0] + 0.08, y, 0], [st.enc_box.get_left()[0] - 0.04, y, 0], theme.embedding)
            for c, y in zip(st.chips, st.in_y)))
        st.pacer.swap("2. The encoder reads them in order, from h\u2080 = 0: h\u2081, h\u2082, \u2026",
                      fade_in(self._header(2, "encoder", X_ENCODER)), *_draw(st.enc_box))
        self.play(*(GrowArrow(a) for a in arrows), lag_ratio=0.15, run_time=1.0)
        self._walk_the_states()

    def _walk_the_states(self) -> None:
        """The caption's promise drawn: the state, a chip at the encoder's edge, goes down the
        words from h_0 = 0, renamed h_1, h_2, ... as each word is read (quicker after two)."""
        st, theme = self.stage, self.theme
        T = len(self.enc.tokens)
        x = st.enc_box.get_right()[0]
        h = min(0.3, st.in_pitch * 0.75)
        y0 = st.in_y[0] + st.in_pitch * 0.9

        def named(t: int, y: float) -> VGroup:
            chip = Rectangle(width=0.3, height=h, stroke_color=theme.encoder, stroke_width=2,
                             fill_color=theme.encoder, fill_opacity=0.25 if t == 0 else 0.8).move_to([x, y, 0])
            name = caption(f"h{subscript(t)}" + (" = 0" if t == 0 else ""), theme, TEXT_FONT, theme.encoder)
            return VGroup(chip, name.next_to(chip, RIGHT, buff=0.08))

        st.walker = named(0, y0)
        self.play(fade_in(st.walker), run_time=0.4)
        self.wait(0.7)  # "h₀ = 0" is read as a caption: a second for its three words
        for t in range(1, T + 1):
            nxt = named(t, st.in_y[t - 1])
            self.play(ReplacementTransform(st.walker, nxt), run_time=0.5 if t <= 2 else 0.2)
            st.walker = nxt

    def hand_over_the_context(self) -> None:
        """3. Its last state h_T, the context vector, out of the encoder."""
        st, enc = self.stage, self.enc
        st.context = context = self._context_column()
        to_ctx = _arrow(np.array([st.enc_box.get_right()[0] + 0.05, context.frame.get_y(), 0]),
                        np.array([context.frame.get_left()[0] - 0.08, context.frame.get_y(), 0]),
                        self.theme.encoder, 3)
        st.pacer.swap(f"3. Its last state {st.ctx_text} is the context vector: the whole sentence in "
                      f"{len(enc.context)} numbers",
                      fade_in(self._header(3, "context", X_CONTEXT)), GrowArrow(to_ctx),
                      fade_in(context, shift=RIGHT * 0.3), fade_out(st.walker))
        self.pause_on_result("context")

    def start_the_decoder(self) -> None:
        """4. The decoder box, fed the context; under it the word it reads first, <START>."""
        st, theme = self.stage, self.theme
        st.out_y, st.out_pitch = _rows_y(len(st.outputs), st.rows_top)
        label = self.dec.network.upper()
        st.dec_box = self._tall_box(label, theme.decoder, st.out_y, st.out_pitch).move_to(
            [X_DECODER, float(np.mean(st.out_y)), 0])
        ctx = st.context
        to_dec = _arrow(np.array([ctx.bars.get_right()[0] + 0.06, ctx.frame.get_y(), 0]),
                        np.array([st.dec_box.get_left()[0] - 0.05, ctx.frame.get_y(), 0]),
                        theme.encoder, 3)
        # The written words are built now (shown later): the input line makes room for the widest.
        self.out_words = VGroup(*(
            self._word(w, y, st.out_pitch, MAX_OUT_W, X_OUT_LEFT, LEFT, theme.muted if w.startswith("<") else None)
            for w, y in zip(st.outputs, st.out_y)))
        st.fed = self._input_word(START)
        into = _arrow([X_DECODER, INPUT_BASELINE + 0.3, 0], [X_DECODER, st.dec_box.get_bottom()[1] - 0.03, 0],
                      theme.target_embedding, 2.5)
        name = caption("reads", theme, TEXT_FONT, theme.muted)
        # Left of the widest word it will read (each is centred under the box).
        widest = max(self._input_word(w.original_text).width for w in (st.fed, *self.out_words[:-1]))
        name.next_to([X_DECODER - widest / 2, 0, 0], LEFT, buff=0.15)
        name.shift(UP * (INPUT_BASELINE - baseline_of(name)))
        st.pacer.swap(f"4. The decoder starts from s\u2080 = 0 and {START}, and reads {st.ctx_text} at every step",
                      fade_in(self._header(4, "decoder", X_DECODER)), *_draw(st.dec_box), GrowArrow(to_dec),
                      fade_in(name), fade_in(st.fed), GrowArrow(into))

    def show_the_word_mapping(self) -> None:
        """5. The box that maps each decoder state to a word; its arrows are built, not yet drawn."""
        st, theme = self.stage, self.theme
        st.map_box = self._tall_box("map to\nwords", theme.decoder, st.out_y, st.out_pitch, width=MAP_W).move_to(
            [X_MAP, float(np.mean(st.out_y)), 0])
        st.s_arrows = VGroup(*(
            _arrow([st.dec_box.get_right()[0] + 0.04, y, 0], [st.map_box.get_left()[0] - 0.04, y, 0], theme.decoder)
            for y in st.out_y))
        st.out_arrows = VGroup(*(
            _arrow([st.map_box.get_right()[0] + 0.04, y, 0], [X_OUT_LEFT - 0.1, y, 0], theme.decoder)
            for y in st.out_y))
        st.pacer.swap("5. Each state s\u209c picks the most similar French word op\u209c, its next input",
                      fade_in(self._header(5, "output words", (X_MAP + X_OUT_LEFT + 1.0) / 2)),
                      *_draw(st.map_box))

    def write_word(self, k: int) -> None:
        """Step k: s_k goes through the mapping and op_k is written (the later steps faster:
        the reader has seen how it goes)."""
        st = self.stage
        self.play(GrowArrow(st.s_arrows[k]), GrowArrow(st.out_arrows[k]), fade_in(self.out_words[k]),
                  run_time=0.5 if k < FULL_STEPS else 0.35)

    def feed_word_back(self, k: int) -> None:
        """The word just written travels back, under the boxes, to be the decoder's next input
        (Alammar's walkthrough): the old input leaves as it comes."""
        st = self.stage
        word = self.out_words[k]
        fed = self._input_word(word.original_text)  # as written (cut short if it was)
        lane_y = fed.get_y()
        self.play(fade_out(st.fed, rate_func=window(0.0, 0.3)),
                  feed_back(word, fed, lane_y=lane_y, src=st.outputs[k], dst=("decoder_input", k + 2)),
                  run_time=0.9 if k < FULL_STEPS else 0.6)
        self.remove(st.fed)
        st.fed = fed

    def compare_with_the_reference(self) -> None:
        """What it wrote, against the reference translation when there is one."""
        st, dec, theme = self.stage, self.dec, self.theme
        differs = [k in set(mismatches(st.outputs, dec.reference)) for k in range(len(st.outputs))]
        marks = [w.animate.set_color(theme.highlight) for w, d in zip(self.out_words, differs) if d]
        st.pacer.swap(self._verdict(dec, st.outputs, differs), *marks)
        self.pause_on_result("words")

    def point_at_the_context(self) -> None:
        """The still: everything the decoder knows comes through the context."""
        st = self.stage
        st.pacer.swap(f"Everything the decoder knows about the sentence passes through {st.ctx_text}",
                      Indicate(st.context.frame, color=self.theme.highlight))
        st.pacer.finish()

    def _verdict(self, dec, outputs: tuple[str, ...], differs: list[bool]) -> str:
        """One line: the written words against the reference, honestly."""
        if dec.reference is None:
            body = "the words it chose; this sentence has no reference translation to compare with"
        else:
            quoted = " ".join(dec.reference)
            # A long reference is not quoted: the line must stay readable.
            reference = (f"the reference \u201c{quoted}\u201d" if len(quoted) <= MAX_QUOTED_CHARS
                         else "the reference translation")
            if any(differs):
                body = f"the words in yellow differ from {reference}"
            elif len(outputs) < len(dec.reference):
                body = f"it stops before the end of {reference}"
            else:
                body = f"it writes {reference}"
        return f"Not trained: {body}" if dec.untrained else body[0].upper() + body[1:]

    # -- builders ----------------------------------------------------------------

    def _word(self, text: str, y: float, pitch: float, max_width: float, x: float, edge: np.ndarray,
              colour: Any = None) -> Text:
        """A word of a row, its ``edge`` at ``x``, on the row's baseline (a word with a
        descender, or none, sits on the same line as the rest)."""
        word = readable_text(text, self.theme, WORD_SIZE, max_width=max_width, max_height=pitch * 0.9,
                             colour=colour)
        word.move_to([0, y, 0]).align_to([x, 0, 0], edge)
        return _on_row(word, y)

    def _input_word(self, text: str) -> Text:
        """The word the decoder reads next, under its box, on the input line."""
        word = readable_text(text, self.theme, WORD_SIZE, max_width=MAX_OUT_W,
                             colour=self.theme.muted if text.startswith("<") else self.theme.text)
        word.move_to([X_DECODER, INPUT_BASELINE, 0])
        word.shift(UP * (INPUT_BASELINE - baseline_of(word)))
        return word

    def _context_column(self) -> VectorColumn:
        """h_T as a column of numbers with a magnitude bar each, beside the encoder, in the rows' band."""
        st, enc, theme = self.stage, self.enc, self.theme
        cell_h = 0.4 if len(enc.context) <= 6 else 0.34
        # As wide as its longest number needs: at the default width "-0.84" lost a decimal, so
        # the column read 0.0, 0.49, -0.8, 0.86 (two precisions in one vector).
        context = VectorColumn(enc.context, theme, key=enc.context_key, label=f"h_{{{len(enc.tokens)}}}",
                               colour=theme.encoder, cell_height=cell_h, label_size=32,
                               cell_width=cell_width_for(enc.context, theme, font_size=NUMBER_SIZE))
        readable_dots(context)
        cells, values = column_values(enc.context, context)
        # Magnitude as glyphs: a bar per number, right for positive, left for negative.
        context.bars = signed_bars(cells, values, theme, 1.0, width=BAR_W)
        context.add(context.bars)
        context.shift([X_CONTEXT - context.frame.get_x(),
                       float(np.mean(st.in_y)) - 0.2 - context.frame.get_y(), 0])
        low = ROWS_BOTTOM + context.frame.height / 2
        high = st.rows_top - context.frame.height / 2 - (context.get_top()[1] - context.frame.get_top()[1])
        # Horizontal arrows: the column's middle always lies within the encoder box's height.
        context.shift(UP * (min(max(context.frame.get_y(), low), high) - context.frame.get_y()))
        return context

    def _chip(self, values: np.ndarray, scale: float, y: float, width: float, height: float) -> VGroup:
        """An embedding as a row of colour cells (no numbers: the encoder scene shows them)."""
        cells = VGroup(*(ValueCell(v, self.theme, None, width, height, scale, show_number=False)
                         for v in values)).arrange(RIGHT, buff=0)
        frame = Rectangle(width=cells.width + 0.05, height=cells.height + 0.05,
                          stroke_color=self.theme.embedding, stroke_width=2).move_to(cells)
        chip = VGroup(cells, frame)
        chip.move_to([0, y, 0]).align_to([X_CHIPS_LEFT, 0, 0], LEFT)
        return chip

    def _tall_box(self, label: str, colour: Any, ys: list[float], pitch: float,
                  width: float = BOX_W) -> VGroup:
        """A block as tall as its rows, its name centred line by line."""
        height = max(1.3, ys[0] - ys[-1] + pitch)
        box = RoundedRectangle(corner_radius=0.2, width=width, height=height, stroke_color=colour,
                               stroke_width=4, fill_color=colour, fill_opacity=0.12)
        lines = VGroup(*(readable_text(line, self.theme, TEXT_FONT, max_width=width * 0.86)
                         for line in label.split("\n")))
        lines.arrange(DOWN, buff=0.08)
        lines.move_to(box)
        return VGroup(box, lines)

    def _header(self, number: int, name: str, x: float) -> VGroup:
        """Part ``number``'s badge and name above its column, kept in the frame."""
        theme = self.theme
        badge = VGroup(Circle(radius=0.19, color=theme.highlight, stroke_width=2),
                       caption(str(number), theme, TEXT_FONT, theme.highlight))
        badge[1].move_to(badge[0])
        header = VGroup(badge, caption(name, theme, TEXT_FONT)).arrange(RIGHT, buff=0.1)
        header.move_to([x, self.stage.header_y, 0])
        # Keep headers in the frame (the first column sits near the left edge).
        if header.get_left()[0] < -SAFE_EDGE_TEXT:
            header.shift(RIGHT * (-SAFE_EDGE_TEXT - header.get_left()[0]))
        if header.get_right()[0] > SAFE_EDGE_TEXT:
            header.shift(LEFT * (header.get_right()[0] - SAFE_EDGE_TEXT))
        # A name wider than its column (② encoder, ③ context) keeps a gap to the one before.
        clear = self.stage.header_right + HEADER_GAP
        if header.get_left()[0] < clear:
            header.shift(RIGHT * (clear - header.get_left()[0]))
        self.stage.header_right = header.get_right()[0]
        return header
