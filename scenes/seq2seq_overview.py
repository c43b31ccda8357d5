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
    Arrow,
    Circle,
    Create,
    FadeIn,
    GrowArrow,
    Indicate,
    Mobject,
    Rectangle,
    RoundedRectangle,
    ReplacementTransform,
    VGroup,
)

from .base import WalkthroughScene
from attention_core.text import END

from .components import (
    ValueCell,
    VectorColumn,
    caption,
    fade_in,
    fade_out,
    fit_within,
    subscript,
)
from .seq2seq_view import decoder_view, encoder_view, mismatches, network_note

__all__ = ["Seq2SeqOverviewScene"]

TITLE_Y = 3.62
SUBTITLE_Y = 3.22
HEADER_Y = 2.85
ROWS_TOP, ROWS_BOTTOM = 2.3, -2.95
CAPTION_Y = -3.6
MAX_PITCH = 0.5
# Column centres (x) of the five parts.
X_WORDS_RIGHT = -4.95  # source words are right-aligned here
X_CHIPS_LEFT = -4.8
X_ENCODER = -2.55
X_CONTEXT = -0.45
X_DECODER = 1.55
X_MAP = 3.35
X_OUT_LEFT = 4.35
BOX_W = 1.3
CHIP_W, CHIP_H = 0.13, 0.24
CHIPS_MAX_W = 0.9  # a chip of 8 dimensions keeps room for its arrow
WORD_SIZE = 20



def _rows_y(n: int) -> tuple[list[float], float]:
    """Centres of ``n`` rows around the diagram's middle, and the row pitch."""
    pitch = min(MAX_PITCH, (ROWS_TOP - ROWS_BOTTOM) / max(n, 1))
    mid = (ROWS_TOP + ROWS_BOTTOM) / 2
    top = mid + pitch * (n - 1) / 2
    return [top - i * pitch for i in range(n)], pitch


def _arrow(start: np.ndarray, end: np.ndarray, colour: Any, width: float = 2.5) -> Arrow:
    return Arrow(start, end, buff=0, color=colour, stroke_width=width, tip_length=0.14,
                 max_tip_length_to_length_ratio=0.4, max_stroke_width_to_length_ratio=10)




class Seq2SeqOverviewScene(WalkthroughScene):
    scene_id = "seq2seq_overview"
    trace_sections = ("source", "target", "sizes", "plain_model")
    description = ("The encoder-decoder in five parts (the translator trained without attention): "
                   "input words as embeddings, encoder, context vector, decoder, output words.")

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
        subtitle = caption(network_note(self.trace), theme, 18,
                           theme.highlight if enc.untrained else theme.muted)
        fit_within(subtitle, max_width=13.4).move_to([0, SUBTITLE_Y, 0])
        self.play(fade_in(title), fade_in(subtitle))
        note = None

        # 1. the input sequence: words, each looked up as an embedding ----------
        in_y, in_pitch = _rows_y(T)
        words, chips = VGroup(), VGroup()
        scale = max(float(np.max(np.abs(enc.inputs))), 1e-9)
        cell_w = min(CHIP_W, CHIPS_MAX_W / enc.inputs.shape[1])
        for t, (tok, y) in enumerate(zip(enc.tokens, in_y)):
            word = caption(tok, theme, WORD_SIZE)
            fit_within(word, max_width=1.9, max_height=in_pitch * 0.8)
            word.move_to([0, y, 0]).align_to([X_WORDS_RIGHT, 0, 0], RIGHT)
            words.add(word)
            chips.add(self._chip(enc.inputs[t], scale, y, cell_w, min(CHIP_H, in_pitch * 0.7)))
        note = self._step(1, "input sequence", X_WORDS_RIGHT + 0.35,
                          f"1. The sentence's words, each looked up as a vector of "
                          f"{enc.inputs.shape[1]} numbers (its embedding)", note)
        self.play(FadeIn(words, lag_ratio=0.1))
        self.play(*(ReplacementTransform(w.copy(), c) for w, c in zip(words, chips)), run_time=0.8)

        # 2. the encoder reads them in order -------------------------------------
        enc_label = "encoder\nGRU" if enc.network == "gru" else "encoder\nRNN"
        enc_box = self._tall_box(enc_label, theme.encoder, in_y, in_pitch).move_to(
            [X_ENCODER, float(np.mean(in_y)), 0])
        in_arrows = VGroup(*(
            _arrow([c.get_right()[0] + 0.08, y, 0], [enc_box.get_left()[0] - 0.04, y, 0], theme.embedding)
            for c, y in zip(chips, in_y)))
        step2 = "2. The encoder RNN reads them one by one from h\u2080 = 0: h\u2081, h\u2082, ..."
        note = self._step(2, "encoder", X_ENCODER, step2, note)
        self.play(Create(enc_box))
        self.play(*(GrowArrow(a) for a in in_arrows), lag_ratio=0.15, run_time=1.0)

        # 3. its last states, the context vector ----------------------------------
        H = len(enc.context)
        cell_h = 0.4 if H <= 6 else 0.34
        context = VectorColumn(enc.context, theme, key=enc.context_key, label=ctx_tex,
                               colour=theme.encoder, cell_height=cell_h, label_size=30)
        context.move_to([X_CONTEXT, float(np.mean(in_y)) - 0.2, 0])
        context.set_y(min(max(context.get_y(), ROWS_BOTTOM + context.height / 2),
                          ROWS_TOP - context.height / 2))
        # Horizontal: the context column's middle always lies within the box's height.
        to_ctx = _arrow(np.array([enc_box.get_right()[0] + 0.05, context.frame.get_y(), 0]),
                        np.array([context.frame.get_left()[0] - 0.08, context.frame.get_y(), 0]),
                        theme.encoder, 3)
        step3 = f"3. Its last state {ctx_text} is the context vector: the whole sentence in {H} numbers"
        note = self._step(3, "context vector", X_CONTEXT, step3, note)
        self.play(GrowArrow(to_ctx), fade_in(context, shift=RIGHT * 0.3))

        # 4. the decoder unrolls from the context -----------------------------------
        out_y, out_pitch = _rows_y(len(outputs))
        dec_box = self._tall_box("decoder\nGRU" if dec.network == "gru" else "decoder\nRNN", theme.decoder,
                                 out_y, out_pitch).move_to([X_DECODER, float(np.mean(out_y)), 0])
        to_dec = _arrow(np.array([context.frame.get_right()[0] + 0.08, context.frame.get_y(), 0]),
                        np.array([dec_box.get_left()[0] - 0.05, context.frame.get_y(), 0]),
                        theme.encoder, 3)
        note = self._step(4, "decoder", X_DECODER,
                          f"4. The decoder, from s\u2080 = 0, reads {ctx_text} at every step: "
                          "one state s\u209c per output word", note)
        self.play(Create(dec_box), GrowArrow(to_dec))

        # 5. each decoder state is mapped to a word ---------------------------------
        map_box = self._tall_box("map\nto\nwords", theme.decoder, out_y, out_pitch, width=1.0).move_to(
            [X_MAP, float(np.mean(out_y)), 0])
        s_arrows = VGroup(*(
            _arrow([dec_box.get_right()[0] + 0.04, y, 0], [map_box.get_left()[0] - 0.04, y, 0],
                   theme.decoder) for y in out_y))
        wrong = set(mismatches(outputs, dec.reference))
        differs = [t in wrong for t in range(len(outputs))]
        out_words, out_arrows = VGroup(), VGroup()
        for word_text, y in zip(outputs, out_y):
            word = caption(word_text, theme, WORD_SIZE,
                           theme.muted if word_text.startswith("<") else theme.text)
            fit_within(word, max_width=2.55, max_height=out_pitch * 0.8)
            word.move_to([0, y, 0]).align_to([X_OUT_LEFT, 0, 0], LEFT)
            out_words.add(word)
            out_arrows.add(_arrow([map_box.get_right()[0] + 0.04, y, 0],
                                  [X_OUT_LEFT - 0.1, y, 0], theme.decoder))
        step5 = "5. Each s\u209c is mapped to the French word op\u209c whose embedding is most similar"
        note = self._step(5, "output words", (X_MAP + X_OUT_LEFT + 1.0) / 2, step5, note)
        self.play(Create(map_box))
        for k in range(len(outputs)):
            self.play(GrowArrow(s_arrows[k]), GrowArrow(out_arrows[k]), fade_in(out_words[k]),
                      run_time=0.35)

        # What it wrote, against the reference translation when there is one.
        verdict = self._note(self._verdict(dec, outputs, differs),
                             theme.highlight if any(differs) else theme.text)
        marks = [w.animate.set_color(theme.highlight) for w, d in zip(out_words, differs) if d]
        self.play(fade_out(note), run_time=0.3)
        self.play(fade_in(verdict), *marks)
        self.wait(1.2)

        # The still: everything the decoder knows comes through the context.
        final = self._note(f"Everything the decoder knows about the sentence passes through {ctx_text}",
                           theme.highlight)
        self.play(fade_out(verdict), fade_in(final), Indicate(context.frame, color=theme.highlight))
        self.wait(1.5)

    def _verdict(self, dec, outputs: tuple[str, ...], differs: list[bool]) -> str:
        """One line: the written words against the reference, honestly."""
        if dec.reference is None:
            body = "the words it chose; this sentence has no reference translation to compare with"
        else:
            reference = f"\u201c{' '.join(dec.reference)}\u201d"
            if any(differs):
                body = f"the words in yellow differ from the reference {reference}"
            elif len(outputs) < len(dec.reference):
                body = f"it stops before the end of the reference {reference}"
            else:
                body = f"it writes the reference translation {reference}"
        return f"Not trained: {body}" if dec.untrained else body[0].upper() + body[1:]

    def _note(self, text: str, colour) -> Mobject:
        note = caption(text, self.theme, 20, colour)
        fit_within(note, max_width=13.4)
        return note.move_to([0, CAPTION_Y, 0])

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
        lines = VGroup(*(caption(line, self.theme, 22) for line in label.split("\n")))
        lines.arrange(DOWN, buff=0.08)
        fit_within(lines, width * 0.85, height * 0.8)
        lines.move_to(box)
        return VGroup(box, lines)

    def _step(self, number: int, name: str, x: float, text: str, old_note: Mobject | None) -> Mobject:
        """Show part ``number``'s header above its column and its one-line note below."""
        theme = self.theme
        badge = VGroup(Circle(radius=0.17, color=theme.highlight, stroke_width=2),
                       caption(str(number), theme, 18, theme.highlight))
        badge[1].move_to(badge[0])
        header = VGroup(badge, caption(name, theme, 18)).arrange(RIGHT, buff=0.1)
        header.move_to([x, HEADER_Y, 0])
        # Keep headers in the frame (the first column sits near the left edge).
        if header.get_left()[0] < -6.95:
            header.shift(RIGHT * (-6.95 - header.get_left()[0]))
        if header.get_right()[0] > 6.95:
            header.shift(LEFT * (header.get_right()[0] - 6.95))
        note = caption(text, theme, 20, theme.muted)
        fit_within(note, max_width=13.4)
        note.move_to([0, CAPTION_Y, 0])
        if old_note is not None:
            self.play(fade_out(old_note), run_time=0.3)
        self.play(fade_in(header), fade_in(note), run_time=0.5)
        return note
