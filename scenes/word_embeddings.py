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

from dataclasses import dataclass, field

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    GrowArrow,
    MathTex,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
)

from .base import SAFE_EDGE_TEXT, WalkthroughScene
from .components import (
    ELIDED_DOTS_SIZE,
    NUMBER_SIZE,
    NumberLabel,
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
from .glyphs import cell_width_for
from .part1_layout import wrapped_note
from .picked_rows import PickedRowsMatrix, elided_cell, pick_cols, pick_rows
from .part1_words import reader_note
from .seq2seq_view import encoder_view

__all__ = ["WordEmbeddingsScene", "Stage"]

TITLE_Y = 3.6
STRIP_TOP = 3.2  # the sentence's words, under the title
FOOT_Y = -3.62  # centre of the note naming the network
MAX_COLS = 4  # wider embeddings show their first 2 numbers, dots and the last (14 px numbers fit)
MIN_CELL_H = 0.36  # numbers at 23.5 pt (14 px at 480p) need this much height
NUMBER_FONT = NUMBER_SIZE  # the 14 px floor
TEXT_FONT = 24  # labels, notes, heads: over the floor
#: Digits not being read (the matrix's, the vectors already looked up) at this opacity: there,
#: but not read (issue 31: at most 16 numbers legible at once). The cells keep their tints.
DIGITS_DIM = 0.22
MAX_CELL_H = 0.44
LABEL_W = 1.9  # words wider than this end in an ellipsis (at the readable size)
GAP = 0.6  # between the matrix and the looked-up vectors (the arrows' room)
SLOW_LOOKUPS = 2  # the first lookups step by step: find the row, lift it out, read it


@dataclass
class Stage:
    """What is on screen across the beats (STYLE.md \u00a73.2): the slots a beat reads and writes."""

    tokens: TokenStrip
    note: VGroup
    heads_y: float
    top: float  # top edge of the first row
    bottom: float
    cols: list  # the embedding's columns shown (None: dots)
    cell_w: float
    scale: float
    matrix: PickedRowsMatrix | None = None
    shape_note: Mobject | None = None
    vec_head: Mobject | None = None
    vec_x: float = 0.0  # left edge of the looked-up vectors
    pitch: float = 0.0  # between two looked-up vectors
    row_h: float = 0.0
    marks: list = field(default_factory=list)  # the last lookup's focus boxes and arrow
    looked_up: VGroup = field(default_factory=VGroup)  # (x_t name, cells) per word so far
    read_rows: list = field(default_factory=list)  # the matrix row whose digits are being read


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
        self.set_stage()
        self.show_the_matrix()
        for t in range(len(self.view.tokens)):
            self.look_up_embedding(t, slow=t < SLOW_LOOKUPS)
        self.clear_the_marks()
        self.hold_final()

    # -- beats -------------------------------------------------------------------

    def set_stage(self) -> None:
        """Title and the sentence (the first frame); the matrix and the vectors' slots laid out."""
        theme, view = self.theme, encoder_view(self.trace)
        self.view = view
        title = title_bar(
            caption("Word embeddings", theme, 30),
            caption("each word's row of the matrix becomes its vector x\u209c", theme, TEXT_FONT, theme.muted),
            y=TITLE_Y, buff=0.4, aligned_edge=DOWN)
        # The frame's whole width (14.2) but 0.1 a side: twelve 25-letter words in three
        # rows of four then keep the 12 px floor (at 13.4 they were shrunk to 11.6 px).
        tokens = TokenStrip(view.tokens, theme, colour=theme.embedding, font_size=TEXT_FONT, max_width=14.0)
        tokens.move_to([0, STRIP_TOP - tokens.height / 2, 0])
        note = wrapped_note(reader_note(self.trace), theme, TEXT_FONT,
                            theme.highlight if view.untrained else theme.muted)
        note.move_to([0, FOOT_Y, 0]).align_to([0, FOOT_Y - 0.2, 0], DOWN)
        self.add(title, tokens)
        heads_y = tokens.get_bottom()[1] - 0.32
        # Wide embeddings: the first columns, dots, the last, in the matrix and in every x_t alike.
        cols = pick_cols(view.embedding_matrix.shape[1], MAX_COLS)
        table = view.embedding_matrix
        self.stage = Stage(tokens=tokens, note=note, heads_y=heads_y, top=heads_y - 0.32,
                           bottom=note.get_top()[1] + 0.2, cols=cols,
                           # Cells as wide as the longest number needs at the readable size.
                           cell_w=cell_width_for(table[:, [j for j in cols if j is not None]].ravel(), theme,
                                                 font_size=NUMBER_FONT),
                           scale=_scale(table))
        self._lay_out_matrix()
        self._lay_out_vectors()

    def show_the_matrix(self) -> None:
        """The embedding matrix (rows not looked up elided), its shape, the network's note."""
        st = self.stage
        self.play(fade_in(st.matrix), fade_in(st.shape_note), fade_in(st.note))

    def look_up_embedding(self, t: int, slow: bool) -> None:
        """Word t's row is found, its colours lifted out to x_t's slot, its numbers read there.

        The first lookups step by step; the rest briskly, the previous marks going as the
        next come."""
        st, theme = self.stage, self.theme
        i = self.view.token_ids[t]
        name, cells = self._vector(t)
        focus_tok = SurroundingRectangle(st.tokens.boxes[t], color=theme.highlight, buff=0.04)
        focus_row = SurroundingRectangle(VGroup(st.matrix.row(i), st.matrix.label(i)),
                                         color=theme.highlight, buff=0.04)
        arrow = Arrow([st.matrix.frame.get_right()[0] + 0.08, st.matrix.row(i).get_y(), 0],
                      [name.get_left()[0] - 0.08, cells.get_y(), 0], buff=0, color=theme.embedding,
                      stroke_width=3, max_tip_length_to_length_ratio=0.2)
        # The row being read shows its digits; the last row and the last x_t go back to tints.
        before = VGroup(*(_digits(st.matrix.row(j)) for j in st.read_rows),
                        *(_digits(c) for _, c in st.looked_up[-1:]))
        find = [Create(focus_tok), Create(focus_row), *[fade_out(m) for m in st.marks],
                *_to_opacity(before, DIGITS_DIM), *_to_opacity(_digits(st.matrix.row(i)), 1.0)]
        st.read_rows = [i]
        lift = [GrowArrow(arrow), self._lift_row(i, cells)]
        read = [fade_in(VGroup(*(c[1:] for c in cells))), fade_in(name)]
        if slow:
            self.play(*find, run_time=0.8)
            self.play(*lift, run_time=1.0)
            self.play(*read, run_time=0.5)
        else:
            self.play(*find, *lift, run_time=0.7)
            self.play(*read, run_time=0.3)
        self.add(cells)
        if t == 0:
            self.play(fade_in(st.vec_head), run_time=0.5)
            self.pause_on_result("embedding")
        st.marks = [focus_tok, focus_row, arrow]
        st.looked_up.add(VGroup(name, cells))

    def clear_the_marks(self) -> None:
        """The last lookup's marks go: the matrix and every x_t, the poster."""
        st = self.stage
        # The poster: the matrix and x_1 .. x_T as tints, every digit back among the others.
        read = VGroup(*(_digits(st.matrix.row(j)) for j in st.read_rows), *(_digits(c) for _, c in st.looked_up))
        self.play(*[fade_out(m) for m in st.marks], *_to_opacity(read, DIGITS_DIM), run_time=0.5)
        self.pause_on_result("embedding")

    # -- builders ----------------------------------------------------------------

    def _lay_out_matrix(self) -> None:
        """The matrix at the left (labels and cells), its shape named above it."""
        st, theme, view = self.stage, self.theme, self.view
        V, E = view.embedding_matrix.shape
        T = len(view.tokens)
        max_rows = max(4, int((st.top - st.bottom) // MIN_CELL_H))
        rows, only_looked_up = _rows(V, view.token_ids, max_rows)
        cell_h = min(MAX_CELL_H, (st.top - st.bottom) / len(rows))
        st.matrix = matrix = PickedRowsMatrix(
            view.embedding_matrix, theme, view.embedding_matrix_key, rows, view.vocabulary, theme.embedding,
            st.cell_w, cell_h, NUMBER_FONT, label_size=TEXT_FONT, label_width=LABEL_W, cols=st.cols)
        # Elision dots over the floor (the shared matrix draws them at the formula floor exactly).
        _dots_over_floor(matrix)
        # The matrix's digits are there but not read: only the row being looked up is.
        _digits(matrix).set_opacity(DIGITS_DIM)
        # Left block: labels + matrix; right block: x_t names + vectors; centred together.
        self.name_w = 0.55 if T < 10 else 0.7
        right_w = self.name_w + len(st.cols) * st.cell_w
        x0 = -(matrix.width + GAP + right_w) / 2
        matrix.shift([x0 + matrix.width / 2 - matrix.get_x(), st.top - cell_h / 2 - matrix.grid[0].get_y(), 0])
        # Each word on its row's line of numbers ("growth", "years" rode high, centred in the row).
        for i in matrix.shown_rows:
            digits = [m for m in matrix.row(i).get_family() if isinstance(m, NumberLabel)]
            if digits:
                matrix.label(i).shift(UP * (baseline_of(digits[0]) - baseline_of(matrix.label(i))))
        shape = f"matrix: {V} words \u00d7 {E} numbers" + (" (rows looked up)" if only_looked_up else "")
        st.shape_note = readable_text(shape, theme, TEXT_FONT, max_width=max(matrix.width, 6.0), colour=theme.muted)
        st.shape_note.move_to([0, st.heads_y, 0]).align_to(matrix.frame, RIGHT)
        if st.shape_note.get_left()[0] < -SAFE_EDGE_TEXT:
            st.shape_note.shift(RIGHT * (-SAFE_EDGE_TEXT - st.shape_note.get_left()[0]))
        self.cell_h = cell_h

    def _lay_out_vectors(self) -> None:
        """One slot per word, stacked top-down right of the matrix, under their heading."""
        st, theme = self.stage, self.theme
        T = len(self.view.tokens)
        st.pitch = min(self.cell_h + 0.06, (st.top - st.bottom) / max(T, 1))
        st.row_h = max(min(self.cell_h, st.pitch - 0.04), MIN_CELL_H - 0.02)
        st.vec_x = vec_x = st.matrix.frame.get_right()[0] + GAP + self.name_w
        head = (f"x\u2081 \u2026 x{subscript(T)}: what the encoder reads" if T > 1
                else "x\u2081: what the encoder reads")
        st.vec_head = readable_text(head, theme, TEXT_FONT, max_width=SAFE_EDGE_TEXT - vec_x + self.name_w,
                                    colour=theme.embedding)
        st.vec_head.move_to([0, st.heads_y, 0]).align_to([vec_x - self.name_w, 0, 0], LEFT)
        if st.vec_head.get_right()[0] > SAFE_EDGE_TEXT:
            st.vec_head.shift(LEFT * (st.vec_head.get_right()[0] - SAFE_EDGE_TEXT))
        if st.vec_head.get_left()[0] < st.shape_note.get_right()[0] + 0.3:
            # Both heads on one line do not fit: the matrix's goes.
            st.shape_note.set_opacity(0)

    def _vector(self, t: int) -> tuple[Mobject, VGroup]:
        """x_t's name and cells in its slot (built, not shown)."""
        st, theme, view = self.stage, self.theme, self.view
        y = st.top - st.row_h / 2 - t * st.pitch
        cells = VGroup(*[
            ValueCell(view.inputs[t][j], theme, (view.input_keys[t], j), st.cell_w, st.row_h, st.scale, True,
                      NUMBER_FONT) if j is not None
            else elided_cell(theme, st.cell_w, st.row_h, NUMBER_FONT)
            for j in st.cols
        ]).arrange(RIGHT, buff=0).move_to([st.vec_x + len(st.cols) * st.cell_w / 2, y, 0])
        _dots_over_floor(cells)
        # Pango with Unicode subscripts: a LaTeX run per word would be slow.
        name = caption(f"x{subscript(t + 1)}", theme, TEXT_FONT, theme.embedding)
        name.next_to(cells, LEFT, buff=0.12)
        return name, cells

    def _lift_row(self, i: int, cells: VGroup) -> ReplacementTransform:
        """Row i's coloured boxes travel to the slot's cells (no numbers in flight: they
        would cross the matrix's); the numbers then appear in place."""
        ghost = VGroup(*(c[0].copy() for c in self.stage.matrix.row(i)))
        return ReplacementTransform(ghost, VGroup(*(c[0] for c in cells)))


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


def _digits(mob: Mobject) -> VGroup:
    """The numbers inside ``mob`` (a matrix, a row, a vector's cells)."""
    return VGroup(*(m for m in mob.get_family() if isinstance(m, NumberLabel)))


def _dots_over_floor(mob: Mobject) -> Mobject:
    """Elision dots over the 14 px floor (the shared cells draw them at the formula floor exactly,
    which the audit reads a hair under it)."""
    for part in mob.get_family():
        if isinstance(part, MathTex) and part.font_size < ELIDED_DOTS_SIZE:
            part.scale(ELIDED_DOTS_SIZE / part.font_size)
    return mob


def _to_opacity(numbers: VGroup, opacity: float) -> list:
    """Each number to ``opacity``, where it stands (one animation per number: a group made for
    the move would join the stage as a group of its own)."""
    return [m.animate.set_opacity(opacity) for m in numbers]


def _scale(matrix) -> float:
    """Colour scale shared with the matrix, so a row keeps its colours when lifted."""
    return max(float(abs(matrix).max()), 1e-9)



