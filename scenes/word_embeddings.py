"""``word_embeddings``: each source word looked up in the embedding matrix.

Draft 000, "1. The input sequence": a big matrix with one row per vocabulary
word and one column per dimension; each word of the sentence is looked up
and its row becomes that word's vector x_t, the input the encoder reads.

The matrix is the one :func:`scenes.seq2seq_view.encoder_view` gives: by
default the translator's (trained without attention; its size is the
smallest that reaches the accuracy the README states, and wide rows are
elided to their first numbers and the last), else the seeded tanh RNN's,
said to be untrained. Rows not looked up are elided.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    Arrow,
    Create,
    GrowArrow,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    VGroup,
)

from .base import WalkthroughScene
from .components import (
    TokenStrip,
    baseline_of,
    ValueCell,
    caption,
    fade_in,
    fade_out,
    readable_text,
    subscript,
    title_bar,
)
from .glyphs import NUMBER_FONT, cell_width_for
from .part1_layout import wrapped_note
from .picked_rows import PickedRowsMatrix, elided_cell, pick_cols, pick_rows
from .seq2seq_view import encoder_view, network_note

__all__ = ["WordEmbeddingsScene"]

TITLE_Y = 3.6
STRIP_TOP = 3.2  # the sentence's words, under the title
FOOT_Y = -3.62  # centre of the note naming the network
MAX_COLS = 5  # wider embeddings show their first 3 numbers, dots and the last
MIN_CELL_H = 0.3  # numbers at 20 pt (12 px at 480p) need this much height
MAX_CELL_H = 0.44
LABEL_W = 1.9  # words wider than this end in an ellipsis (at the readable size)
GAP = 0.8  # between the matrix and the looked-up vectors (the arrows' room)


class WordEmbeddingsScene(WalkthroughScene):
    scene_id = "word_embeddings"
    trace_sections = (
        "source",
        "sizes",
        "plain_model.network",
        "plain_model.weights",
        "plain_model.trained",
        "plain_model.tokens",
        "plain_model.token_ids",
        "plain_model.source_vocabulary",
        "plain_model.source_embedding_matrix",
        "plain_model.embeddings",
    )
    description = "Each source word is looked up in the embedding matrix: its row becomes its vector x_t."
    shown_results = ("embedding",)

    def construct(self) -> None:
        theme, view = self.theme, encoder_view(self.trace)
        vocab, table = view.vocabulary, view.embedding_matrix
        V, E = table.shape
        T = len(view.tokens)
        # Wide embeddings: the first columns, dots, the last, in the matrix and in every x_t alike.
        cols = pick_cols(E, MAX_COLS)
        slots = len(cols)
        # Cells as wide as the longest number needs at the readable size.
        cell_w = cell_width_for(table[:, [j for j in cols if j is not None]].ravel(), theme)
        scale = _scale(table)

        title = title_bar(
            caption("Word embeddings", theme, 30),
            caption("each word's row of the matrix becomes its vector xₜ", theme, 20, theme.muted),
            y=TITLE_Y, buff=0.4, aligned_edge=DOWN)
        # The frame's whole width (14.2) but 0.1 a side: twelve 25-letter words in three
        # rows of four then keep the 12 px floor (at 13.4 they were shrunk to 11.6 px).
        tokens = on_one_baseline(TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=22,
                                            max_width=14.0))
        tokens.move_to([0, STRIP_TOP - tokens.height / 2, 0])
        note = wrapped_note(network_note(self.trace), theme, 20,
                            theme.highlight if view.untrained else theme.muted)
        note.move_to([0, FOOT_Y, 0]).align_to([0, FOOT_Y - 0.2, 0], DOWN)
        # The first frame already shows the title and the sentence.
        self.add(title, tokens)

        heads_y = tokens.get_bottom()[1] - 0.32
        top = heads_y - 0.32  # top edge of the first row
        bottom = note.get_top()[1] + 0.2
        max_rows = max(4, int((top - bottom) // MIN_CELL_H))
        rows, only_looked_up = _rows(V, view.token_ids, max_rows)
        cell_h = min(MAX_CELL_H, (top - bottom) / len(rows))
        matrix = PickedRowsMatrix(table, theme, view.embedding_matrix_key, rows, vocab, theme.embedding,
                                  cell_w, cell_h, NUMBER_FONT, label_size=20, label_width=LABEL_W,
                                  cols=cols)
        # Left block: labels + matrix; right block: x_t names + vectors; centred together.
        name_w = 0.55 if T < 10 else 0.7
        right_w = name_w + slots * cell_w
        left_w = matrix.width
        x0 = -(left_w + GAP + right_w) / 2
        matrix.shift([x0 + left_w / 2 - matrix.get_x(), top - cell_h / 2 - matrix.grid[0].get_y(), 0])
        shape = f"embedding matrix: {V} words \u00d7 {E} numbers"
        if only_looked_up:
            shape += " (rows looked up)"
        shape_note = readable_text(shape, theme, 20, max_width=max(matrix.width, 6.0), colour=theme.muted)
        shape_note.move_to([0, heads_y, 0]).align_to(matrix.frame, RIGHT)
        if shape_note.get_left()[0] < -6.95:
            shape_note.shift(RIGHT * (-6.95 - shape_note.get_left()[0]))

        self.play(fade_in(matrix), fade_in(shape_note), fade_in(note))

        # One slot per token, stacked top-down on the right.
        pitch = min(cell_h + 0.06, (top - bottom) / max(T, 1))
        row_h = max(min(cell_h, pitch - 0.04), MIN_CELL_H - 0.02)
        vec_x = matrix.frame.get_right()[0] + GAP + name_w
        head_text = (f"looked up: x\u2081 \u2026 x{subscript(T)}, what the encoder reads" if T > 1
                     else "looked up: x\u2081, what the encoder reads")
        vec_head = readable_text(head_text, theme, 20, max_width=6.95 - vec_x + name_w, colour=theme.embedding)
        vec_head.move_to([0, heads_y, 0]).align_to([vec_x - name_w, 0, 0], LEFT)
        if vec_head.get_right()[0] > 6.95:
            vec_head.shift(LEFT * (vec_head.get_right()[0] - 6.95))
        if vec_head.get_left()[0] < shape_note.get_right()[0] + 0.3:
            # Both heads on one line do not fit: the matrix's goes.
            shape_note.set_opacity(0)
        looked_up = VGroup()
        marks: list = []
        for t in range(T):
            i = view.token_ids[t]
            y = top - row_h / 2 - t * pitch
            cells = VGroup(*[
                ValueCell(view.inputs[t][j], theme, (view.input_keys[t], j), cell_w, row_h, scale, True,
                          NUMBER_FONT) if j is not None
                else elided_cell(theme, cell_w, row_h, NUMBER_FONT)
                for j in cols
            ]).arrange(RIGHT, buff=0).move_to([vec_x + slots * cell_w / 2, y, 0])
            # Pango with Unicode subscripts: a LaTeX run per word would be slow.
            name = caption(f"x{subscript(t + 1)}", theme, 22, theme.embedding)
            name.next_to(cells, LEFT, buff=0.12)
            focus_tok = SurroundingRectangle(tokens.boxes[t], color=theme.highlight, buff=0.04)
            focus_row = SurroundingRectangle(VGroup(matrix.row(i), matrix.label(i)),
                                             color=theme.highlight, buff=0.04)
            arrow = Arrow([matrix.frame.get_right()[0] + 0.08, matrix.row(i).get_y(), 0],
                          [name.get_left()[0] - 0.08, y, 0], buff=0, color=theme.embedding,
                          stroke_width=3, max_tip_length_to_length_ratio=0.2)
            # The row's coloured cells travel to the slot (no numbers in flight:
            # they would cross the matrix's); the numbers then appear in place.
            boxes = VGroup(*(c[0] for c in cells))
            numbers = VGroup(*(c[1:] for c in cells))
            ghost = VGroup(*(c[0].copy() for c in matrix.row(i)))
            lift = [GrowArrow(arrow), ReplacementTransform(ghost, boxes)]
            if t < 2:
                # The first two lookups step by step: find the row, lift it out, read it.
                self.play(Create(focus_tok), Create(focus_row), *[fade_out(m) for m in marks], run_time=0.8)
                self.play(*lift, run_time=1.0)
                self.play(fade_in(numbers), fade_in(name), run_time=0.5)
                if t == 0:
                    self.play(fade_in(vec_head), run_time=0.5)
                    self.pause_on_result("embedding")
            else:
                # The rest briskly: the previous marks go as the next ones come.
                self.play(Create(focus_tok), Create(focus_row), *lift, *[fade_out(m) for m in marks],
                          run_time=0.7)
                self.play(fade_in(numbers), fade_in(name), run_time=0.3)
            self.add(cells)
            marks = [focus_tok, focus_row, arrow]
            looked_up.add(VGroup(name, cells))

        self.play(*[fade_out(m) for m in marks], run_time=0.5)
        self.pause_on_result("embedding")
        self.hold_final()


def on_one_baseline(strip: TokenStrip) -> TokenStrip:
    """The strip's words on one baseline per row, in boxes of one height.

    A word box centres its word, so a word with a descender ("growth",
    "years") rode higher than its neighbours, in a taller box (issue 22).
    Here each row's boxes take the tallest ascent and deepest descent of its
    words, and every word sits on the baseline those leave."""
    rows: dict[float, list[int]] = {}
    for k, boxed in enumerate(strip.boxes):
        rows.setdefault(round(float(boxed.get_y()), 2), []).append(k)
    for members in rows.values():
        words = [strip.boxes[k][1] for k in members]
        baselines = [baseline_of(w) for w in words]
        ascent = max(w.get_top()[1] - b for w, b in zip(words, baselines))
        depth = max(b - w.get_bottom()[1] for w, b in zip(words, baselines))
        y0 = float(np.mean([strip.boxes[k].get_y() for k in members]))
        height = max(ascent + depth, 0.32) + 0.2
        baseline = y0 - height / 2 + 0.1 + depth + max(0.0, 0.32 - ascent - depth) / 2
        for k, word, b in zip(members, words, baselines):
            word.shift([0, baseline - b, 0])
            box = strip.boxes[k][0]
            box.become(RoundedRectangle(corner_radius=0.08, width=box.width, height=height,
                                        stroke_color=box.get_stroke_color(), stroke_width=2)
                       .move_to([box.get_x(), y0, 0]))
    return strip


def _rows(V: int, ids, max_rows: int) -> tuple[list[int | None], bool]:
    """The matrix rows to show (``None`` = dots), and whether only the looked-up ones are.

    Normally every looked-up row with dots for each gap; when the sentence's
    words are too scattered for that (a long sentence in a big vocabulary),
    only the looked-up rows, with dots for the rows before and after.
    """
    rows = pick_rows(V, ids, max_rows)
    if set(ids) <= set(rows):
        return rows, False
    kept = sorted(set(ids))
    return ([None] if kept[0] > 0 else []) + kept + ([None] if kept[-1] < V - 1 else []), True


def _scale(matrix) -> float:
    """Colour scale shared with the matrix, so a row keeps its colours when lifted."""
    return max(float(abs(matrix).max()), 1e-9)



