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
read the sentence. Its last frame is the draft's static figure
``seq2seq_basic``.
"""

from __future__ import annotations

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
    Rectangle,
    RoundedRectangle,
    VGroup,
)

from attention_core.text import END

from .base import CaptionPacer, WalkthroughScene
from .components import (
    ValueCell,
    VectorColumn,
    caption,
    fade_in,
    readable_text,
    subscript,
)
from .part1_layout import column_values, readable_dots, signed_bars, wrapped_note
from .seq2seq_view import decoder_view, encoder_view, mismatches, network_note

__all__ = ["Seq2SeqOverviewScene"]

TITLE_Y = 3.62
CAPTION_Y = -3.58  # the step captions (one or two lines)
ROWS_BOTTOM = -3.05
MAX_PITCH = 0.5
# Column centres (x) of the five parts.
X_WORDS_RIGHT = -4.95  # source words are right-aligned here
X_CHIPS_LEFT = -4.8
X_ENCODER = -2.6
X_CONTEXT = -0.8
X_DECODER = 1.75
X_MAP = 3.4
X_OUT_LEFT = 4.4
BOX_W = 1.3
MAP_W = 1.15
CHIP_W, CHIP_H = 0.13, 0.24
CHIPS_MAX_W = 0.9  # a chip of 8 dimensions keeps room for its arrow
WORD_SIZE = 20
BAR_W = 0.44  # the context's magnitude bars
#: The reference translation is quoted in the verdict when it is this short.
MAX_QUOTED_CHARS = 48


def _rows_y(n: int, top: float) -> tuple[list[float], float]:
    """Centres of ``n`` rows around the diagram's middle, and the row pitch."""
    pitch = min(MAX_PITCH, (top - ROWS_BOTTOM) / max(n, 1))
    mid = (top + ROWS_BOTTOM) / 2
    first = mid + pitch * (n - 1) / 2
    return [first - i * pitch for i in range(n)], pitch


def _arrow(start: np.ndarray, end: np.ndarray, colour: Any, width: float = 2.5) -> Arrow:
    return Arrow(start, end, buff=0, color=colour, stroke_width=width, tip_length=0.14,
                 max_tip_length_to_length_ratio=0.4, max_stroke_width_to_length_ratio=10)


def _draw(box: VGroup) -> list:
    """A block drawn, its name faded in (a half-drawn name would read as tiny text)."""
    return [Create(box[0]), fade_in(box[1])]


class Seq2SeqOverviewScene(WalkthroughScene):
    scene_id = "seq2seq_overview"
    trace_sections = ("source", "target", "sizes", "plain_model")
    description = ("The encoder-decoder in five parts (the translator trained without attention): "
                   "input words as embeddings, encoder, context vector, decoder, output words.")
    shown_results = ("context", "words")

    def construct(self) -> None:
        theme = self.theme
        enc, dec = encoder_view(self.trace), decoder_view(self.trace)
        T = len(enc.tokens)
        # Just <END> when it stops at once: the diagram still shows what it chose.
        outputs = dec.written or (END,)
        sub_T = subscript(T)
        # The context's name, on screen (LaTeX) and in captions (plain text).
        ctx_tex = f"h_{{{T}}}"
        ctx_text = f"h{sub_T}"

        title = caption("The encoder-decoder in five parts", theme, 30).move_to([0, TITLE_Y, 0])
        subtitle = wrapped_note(network_note(self.trace), theme, 20,
                                theme.highlight if enc.untrained else theme.muted)
        subtitle.next_to(title, DOWN, buff=0.1)
        # The first frame already shows the title and whose network this is.
        self.add(title, subtitle)
        pacer = self.pacer = CaptionPacer(self, CAPTION_Y, 20)
        self.header_y = subtitle.get_bottom()[1] - 0.3
        rows_top = self.header_y - 0.35

        # 1. the input sequence: words, each looked up as an embedding ----------
        in_y, in_pitch = _rows_y(T, rows_top)
        words, chips = VGroup(), VGroup()
        scale = max(float(np.max(np.abs(enc.inputs))), 1e-9)
        cell_w = min(CHIP_W, CHIPS_MAX_W / enc.inputs.shape[1])
        for t, (tok, y) in enumerate(zip(enc.tokens, in_y)):
            word = readable_text(tok, theme, WORD_SIZE, max_width=1.9, max_height=in_pitch * 0.9)
            word.move_to([0, y, 0]).align_to([X_WORDS_RIGHT, 0, 0], RIGHT)
            words.add(word)
            chips.add(self._chip(enc.inputs[t], scale, y, cell_w, min(CHIP_H, in_pitch * 0.7)))
        header = self._header(1, "input words", X_WORDS_RIGHT - 0.3)
        pacer.swap(f"1. Each word becomes a vector of {enc.inputs.shape[1]} numbers: its embedding",
                   fade_in(header), FadeIn(words, lag_ratio=0.1))
        # Colour chips, no numbers (the encoder scene shows them): nothing textual in flight.
        self.play(*(fade_in(c, shift=RIGHT * 0.25) for c in chips), run_time=0.8)

        # 2. the encoder reads them in order -------------------------------------
        enc_label = "encoder\nGRU" if enc.network == "gru" else "encoder\nRNN"
        enc_box = self._tall_box(enc_label, theme.encoder, in_y, in_pitch).move_to(
            [X_ENCODER, float(np.mean(in_y)), 0])
        in_arrows = VGroup(*(
            _arrow([c.get_right()[0] + 0.08, y, 0], [enc_box.get_left()[0] - 0.04, y, 0], theme.embedding)
            for c, y in zip(chips, in_y)))
        pacer.swap("2. The encoder reads them in order, from h\u2080 = 0: h\u2081, h\u2082, \u2026",
                   fade_in(self._header(2, "encoder", X_ENCODER)), *_draw(enc_box))
        self.play(*(GrowArrow(a) for a in in_arrows), lag_ratio=0.15, run_time=1.0)

        # 3. its last states, the context vector ----------------------------------
        H = len(enc.context)
        cell_h = 0.4 if H <= 6 else 0.34
        context = VectorColumn(enc.context, theme, key=enc.context_key, label=ctx_tex,
                               colour=theme.encoder, cell_height=cell_h, label_size=32)
        readable_dots(context)
        cells, values = column_values(enc.context, context)
        # Magnitude as glyphs: a bar per number, right for positive, left for negative.
        context.bars = signed_bars(cells, values, theme, 1.0, width=BAR_W)
        context.add(context.bars)
        context.shift([X_CONTEXT - context.frame.get_x(), float(np.mean(in_y)) - 0.2 - context.frame.get_y(), 0])
        low = ROWS_BOTTOM + context.frame.height / 2
        high = rows_top - context.frame.height / 2 - (context.get_top()[1] - context.frame.get_top()[1])
        context.shift(UP * (min(max(context.frame.get_y(), low), high) - context.frame.get_y()))
        # Horizontal: the context column's middle always lies within the box's height.
        to_ctx = _arrow(np.array([enc_box.get_right()[0] + 0.05, context.frame.get_y(), 0]),
                        np.array([context.frame.get_left()[0] - 0.08, context.frame.get_y(), 0]),
                        theme.encoder, 3)
        pacer.swap(f"3. Its last state {ctx_text} is the context vector: the whole sentence in {H} numbers",
                   fade_in(self._header(3, "context", X_CONTEXT)), GrowArrow(to_ctx),
                   fade_in(context, shift=RIGHT * 0.3))
        self.pause_on_result("context")

        # 4. the decoder unrolls from the context -----------------------------------
        out_y, out_pitch = _rows_y(len(outputs), rows_top)
        dec_box = self._tall_box("decoder\nGRU" if dec.network == "gru" else "decoder\nRNN", theme.decoder,
                                 out_y, out_pitch).move_to([X_DECODER, float(np.mean(out_y)), 0])
        to_dec = _arrow(np.array([context.bars.get_right()[0] + 0.06, context.frame.get_y(), 0]),
                        np.array([dec_box.get_left()[0] - 0.05, context.frame.get_y(), 0]),
                        theme.encoder, 3)
        pacer.swap(f"4. The decoder starts from s\u2080 = 0 and reads {ctx_text} at every step",
                   fade_in(self._header(4, "decoder", X_DECODER)), *_draw(dec_box), GrowArrow(to_dec))

        # 5. each decoder state is mapped to a word ---------------------------------
        map_box = self._tall_box("map to\nwords", theme.decoder, out_y, out_pitch, width=MAP_W).move_to(
            [X_MAP, float(np.mean(out_y)), 0])
        s_arrows = VGroup(*(
            _arrow([dec_box.get_right()[0] + 0.04, y, 0], [map_box.get_left()[0] - 0.04, y, 0],
                   theme.decoder) for y in out_y))
        wrong = set(mismatches(outputs, dec.reference))
        differs = [t in wrong for t in range(len(outputs))]
        out_words, out_arrows = VGroup(), VGroup()
        for word_text, y in zip(outputs, out_y):
            word = readable_text(word_text, theme, WORD_SIZE, max_width=6.95 - X_OUT_LEFT,
                                 max_height=out_pitch * 0.9,
                                 colour=theme.muted if word_text.startswith("<") else theme.text)
            word.move_to([0, y, 0]).align_to([X_OUT_LEFT, 0, 0], LEFT)
            out_words.add(word)
            out_arrows.add(_arrow([map_box.get_right()[0] + 0.04, y, 0],
                                  [X_OUT_LEFT - 0.1, y, 0], theme.decoder))
        pacer.swap("5. Each decoder state s\u209c picks the French word op\u209c whose embedding is most similar",
                   fade_in(self._header(5, "output words", (X_MAP + X_OUT_LEFT + 1.0) / 2)),
                   *_draw(map_box))
        # Step by step, as the caption says: every word after the one before (the later ones
        # faster: the reader has seen how it goes).
        self.out_words = out_words
        for k in range(len(outputs)):
            self.play(GrowArrow(s_arrows[k]), GrowArrow(out_arrows[k]), fade_in(out_words[k]),
                      run_time=0.5 if k < 3 else 0.3)

        # What it wrote, against the reference translation when there is one.
        marks = [w.animate.set_color(theme.highlight) for w, d in zip(out_words, differs) if d]
        pacer.swap(self._verdict(dec, outputs, differs), *marks)
        self.pause_on_result("words")

        # The still: everything the decoder knows comes through the context.
        pacer.swap(f"Everything the decoder knows about the sentence passes through {ctx_text}",
                   Indicate(context.frame, color=theme.highlight))
        pacer.finish()

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

    # -- builders --------------------------------------------------------------

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
        lines = VGroup(*(readable_text(line, self.theme, 20, max_width=width * 0.86)
                         for line in label.split("\n")))
        lines.arrange(DOWN, buff=0.08)
        lines.move_to(box)
        return VGroup(box, lines)

    def _header(self, number: int, name: str, x: float) -> VGroup:
        """Part ``number``'s badge and name above its column, kept in the frame."""
        theme = self.theme
        badge = VGroup(Circle(radius=0.19, color=theme.highlight, stroke_width=2),
                       caption(str(number), theme, 20, theme.highlight))
        badge[1].move_to(badge[0])
        header = VGroup(badge, caption(name, theme, 20)).arrange(RIGHT, buff=0.1)
        header.move_to([x, self.header_y, 0])
        # Keep headers in the frame (the first column sits near the left edge).
        if header.get_left()[0] < -6.95:
            header.shift(RIGHT * (-6.95 - header.get_left()[0]))
        if header.get_right()[0] > 6.95:
            header.shift(LEFT * (header.get_right()[0] - 6.95))
        return header
