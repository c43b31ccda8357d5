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

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    GrowArrow,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from .base import WalkthroughScene
from .components import (
    TokenStrip,
    ValueCell,
    arrow_between,
    caption,
    fade_in,
    fade_out,
    fit_within,
    subscript,
)
from .picked_rows import PickedRowsMatrix, elided_cell, pick_cols, pick_rows
from .seq2seq_view import encoder_view, network_note

__all__ = ["WordEmbeddingsScene"]

TITLE_Y = 3.55
TOKENS_Y = 2.85
TOP_ROW_Y = 1.75  # centre of the first matrix row
FOOT_Y = -3.6
MAX_ROWS = 14
MAX_COLS = 6  # wider embeddings show their first 4 numbers, dots and the last


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

    def construct(self) -> None:
        theme, view = self.theme, encoder_view(self.trace)
        vocab, table = view.vocabulary, view.embedding_matrix
        V, E = table.shape
        T = len(view.tokens)
        # 6-8 dimensions: narrower cells (numbers stay >= 15 pt) so the
        # matrix and the looked-up vectors both fit side by side.
        # Wide embeddings: the first columns, dots, the last, in the matrix and in every x_t alike.
        cols = pick_cols(E, MAX_COLS)
        slots = len(cols)
        cell_w, font = (0.88, 18) if slots <= 5 else (0.78, 17)

        title = VGroup(
            caption("Word embeddings", theme, 30),
            caption("each word of the sentence is looked up in the embedding matrix", theme, 20, theme.muted),
        ).arrange(RIGHT, buff=0.4, aligned_edge=UP)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=22).move_to([0, TOKENS_Y, 0])

        rows, only_looked_up = _rows(V, view.token_ids)
        # Rows as tall as the space allows (short vocabularies breathe).
        cell_h = min(0.44, (TOP_ROW_Y - FOOT_Y - 0.35) / len(rows))
        gap = 1.1
        right_w = 0.65 + slots * cell_w
        # Word labels get the width the rest leaves (up to a point).
        label_w = min(max(13.5 - (0.25 + slots * cell_w + gap + right_w), 1.5), 2.8)
        matrix = PickedRowsMatrix(table, theme, view.embedding_matrix_key, rows,
                                  vocab, theme.embedding, cell_w, cell_h, font, label_size=20,
                                  label_width=label_w, cols=cols)
        # Left block: labels + matrix; right block: x_t labels + vectors.
        left_w = matrix.width
        x0 = -(left_w + gap + right_w) / 2
        matrix.move_to([x0 + left_w / 2, 0, 0])
        matrix.shift(UP * (TOP_ROW_Y - matrix.grid[0].get_y()))
        shape_note = caption(f"embedding matrix: {V} words \u00d7 {E} dimensions", theme, 18, theme.muted)
        fit_within(shape_note, max_width=6.4)
        shape_note.next_to(matrix.frame, UP, buff=0.12).align_to(matrix.frame, RIGHT)
        # Whose matrix, and what the elision left out, under it.
        below = [network_note(self.trace)]
        if only_looked_up:
            below.append("only the rows looked up are shown")
        if below:
            under = caption("\n".join(below), theme, 18, theme.muted)
            fit_within(under, max_width=max(matrix.frame.width, 4.0), max_height=0.8)
            under.next_to(matrix.frame, DOWN, buff=0.12).align_to(matrix.frame, RIGHT)
            shape_note = VGroup(shape_note, under)

        self.play(fade_in(title), FadeIn(tokens, lag_ratio=0.1))
        self.play(fade_in(matrix), fade_in(shape_note))

        # One slot per token, stacked top-down on the right.
        step = (TOP_ROW_Y - FOOT_Y - 0.4) / max(T, 1)
        pitch = min(cell_h + 0.08, step)
        vec_x = x0 + left_w + gap + 0.65
        looked_up = VGroup()
        marks: list = []
        for t in range(T):
            i = view.token_ids[t]
            y = TOP_ROW_Y - t * pitch
            cells = VGroup(*[
                ValueCell(view.inputs[t][j], theme, (view.input_keys[t], j), cell_w,
                          min(cell_h, pitch - 0.04), _scale(table), True, font) if j is not None
                else elided_cell(theme, cell_w, min(cell_h, pitch - 0.04), font)
                for j in cols
            ]).arrange(RIGHT, buff=0).move_to([vec_x + slots * cell_w / 2, y, 0])
            # Pango with Unicode subscripts: a LaTeX run per word would be slow.
            name = caption(f"x{subscript(t + 1)}", theme, 26, theme.embedding)
            fit_within(name, max_height=min(cell_h, pitch) * 0.85)
            name.next_to(cells, LEFT, buff=0.15)
            focus_tok = SurroundingRectangle(tokens.boxes[t], color=theme.highlight, buff=0.04)
            focus_row = SurroundingRectangle(VGroup(matrix.row(i), matrix.label(i)),
                                             color=theme.highlight, buff=0.04)
            arrow = arrow_between(matrix.frame, cells, theme.embedding)
            arrow.put_start_and_end_on([matrix.frame.get_right()[0] + 0.1, matrix.row(i).get_y(), 0],
                                       [name.get_left()[0] - 0.1, y, 0])
            lift = [GrowArrow(arrow), TransformFromCopy(matrix.row(i), cells), fade_in(name)]
            if t < 2:
                # The first two lookups step by step: find the row, then lift it out.
                self.play(Create(focus_tok), Create(focus_row), run_time=0.8)
                self.play(*lift, run_time=1.0)
            else:
                # The rest briskly: the previous marks go as the next ones come.
                self.play(Create(focus_tok), Create(focus_row), *lift, *[fade_out(m) for m in marks],
                          run_time=0.8)
            if t < 1:
                self.play(*[fade_out(m) for m in (focus_tok, focus_row, arrow)], run_time=0.3)
                marks = []
            else:
                marks = [focus_tok, focus_row, arrow]
            looked_up.add(VGroup(name, cells))

        done = caption(f"x\u2081 \u2026 x{subscript(T)}: the vectors the encoder reads", theme, 20,
                       theme.embedding) if T > 1 else caption("x\u2081: the vector the encoder reads",
                                                               theme, 20, theme.embedding)
        fit_within(done, max_width=6.6)
        done.next_to(looked_up, DOWN, buff=0.2).align_to(looked_up, LEFT)
        self.play(fade_in(done), *[fade_out(m) for m in marks])
        self.wait(1.5)


def _rows(V: int, ids) -> tuple[list[int | None], bool]:
    """The matrix rows to show (``None`` = dots), and whether only the looked-up ones are.

    Normally every looked-up row with dots for each gap; when the sentence's
    words are too scattered for that (a long sentence in a big vocabulary),
    only the looked-up rows, with dots for the rows before and after.
    """
    rows = pick_rows(V, ids, MAX_ROWS)
    if set(ids) <= set(rows):
        return rows, False
    kept = sorted(set(ids))
    return ([None] if kept[0] > 0 else []) + kept + ([None] if kept[-1] < V - 1 else []), True


def _scale(matrix) -> float:
    """Colour scale shared with the matrix, so a row keeps its colours when lifted."""
    return max(float(abs(matrix).max()), 1e-9)



