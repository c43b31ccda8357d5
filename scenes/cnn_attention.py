"""``cnn_attention``: image captioning with attention over a CNN feature grid.

Draft 000, Part 2, "Abstraction 1: the input features": a CNN turns an
image into a grid of feature vectors, as the encoder RNN turned a sentence
into a set of them; the trained captioner writes the caption word by word,
and for each word its attention over the grid is drawn as a spotlight on
the image (the image darkened where the weight is low, upsampled smoothly as
in Xu et al.'s figures), moving to each object as it is named.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Create,
    DashedLine,
    LaggedStart,
    MathTex,
    Mobject,
    Transform,
    GrowArrow,
    ManimColor,
    Line,
    Rectangle,
    SurroundingRectangle,
    Text,
    VGroup,
    VMobject,
    Write,
)

from attention_core.cnn import spotlight

from .base import FINAL_HOLD, FINAL_HOLD_MAX, RESULT_PAUSE, WalkthroughScene, reading_time
from .motion import MovesGroup, digits_of, ring_to, window
from .components import (
    CellBox,
    caption_in,
    caption_out,
    NumberLabel,
    TokenStrip,
    ValueCell,
    VectorColumn,
    arrow_between,
    baseline_of,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    on_baseline,
    read_as_line,
    subscript,
)

__all__ = ["CnnAttentionScene", "SLOW_WORDS"]

# Layout (frame is 14.2 x 8 units; at 480p a unit is 60 pixels, so text of
# font size 20 or more stands at least 12 pixels tall).
TITLE_Y = 3.5
CAPTION_Y = 2.7
MAIN_Y = -0.2
SIDE = 4.2  # the image, a square of this side
IMAGE_X = -4.5
CNN_X = 0.2
GRID_SIDE_CNN = 3.2  # the feature grid beside the CNN
GRID_X_CNN = 4.9
WEIGHTS_SIDE = 3.6  # the attention-weight grid while decoding
WEIGHTS_X = 0.95
WEIGHTS_Y = -0.55
CONTEXT_X = 4.75
CONTEXT_TOP = 1.55  # top of c_t's label (its formula), under the formulas' line
CONTEXT_LABEL_H = 0.92  # its formula (the sum is tall) and the gap under it
FORMULA_Y = 2.0
FORMULA_X = 2.3
FORMULA_WIDTH = 9.0  # from the image's right edge to the frame's
NOTE_Y = -2.85
STATUS_BOTTOM = -3.86  # the status line(s), under the word's note, off the frame's edge
NOTE_TOP = -2.4  # a two-line note starts just under the picture
SMALL = 23.5  # the smallest font size used (14.3 px capitals at 480p)
SPOT_LEVELS = 24  # shades of the spotlight (runs of equal shade merge)
SPOT_DARK = 0.82  # opacity of the dark where the weight is lowest
MIN_NUMBER_CELL = 0.75
FEATURES_UNDER = 0.5  # the feature stripes' opacity under the weights (still seen, not read)
NOTE_LEFT = IMAGE_X - SIDE / 2  # the word's note: under the picture, from its left edge,
NOTE_WIDTH = 13.4  # on under the weights and c_t (whose bottoms are above it)
TEX_SIZE = 34  # formulas: the TeX floor (part1_layout.MIN_TEX_SIZE)
ANALOGY_X, ANALOGY_WIDTH = 4.45, 4.7
FROZEN_READ = 6.5  # the poster's labels are read before its last line (under the 8 s still rule)  # Part 1's parallel, right of the feature grid  # a weight cell must be this wide to hold its number
ZOOM_GRID_X = 0.2  # the feature grid moves here while one cell is shown up close
ZOOM_X = 3.6  # the column of that cell's numbers (filter names to its right)
ZOOM_CELL_W, ZOOM_CELL_H = 0.95, 0.42
ZOOM_HEIGHT = 3.6  # the column's cells fit this height
SLOW_WORDS = 2  # the first words pause on the weights before the word; the later ones go faster
THUMB_MAX = 2.4  # the poster's thumbnails, one per caption word
THUMB_GAP = 0.3
THUMBS_Y = 0.35
THUMB_TWO_ROWS = 1.3  # the thumbnails' side when a long caption takes two rows
THUMBS_TOP = CAPTION_Y - 0.5  # clear of the caption strip's boxes
POSTER_WIDTH = 13.4  # the row of thumbnails fits this width


def _row_width(labels: list, per_row: int) -> float:
    """Width of one row of all ``labels``' thumbnails at ``per_row`` a row: each
    slot is as wide as its thumbnail or its label, whichever is wider."""
    side = min(THUMB_MAX, (POSTER_WIDTH - (per_row - 1) * THUMB_GAP) / per_row)
    return sum(max(side, label.width) for label in labels) + (len(labels) - 1) * THUMB_GAP


def _patch(rects: list[tuple[float, float, float, float]], colour: ManimColor) -> VMobject:
    """Rectangles (centre x, centre y, width, height) of one colour as one filled shape, each a
    closed subpath of four straight edges, all wound the same way (their overlaps stay filled)."""
    r = np.asarray(rects, dtype=float)
    x0, x1 = r[:, 0] - r[:, 2] / 2, r[:, 0] + r[:, 2] / 2
    y0, y1 = r[:, 1] - r[:, 3] / 2, r[:, 1] + r[:, 3] / 2
    corners = np.stack([np.stack([x0, y1], 1), np.stack([x1, y1], 1), np.stack([x1, y0], 1),
                        np.stack([x0, y0], 1), np.stack([x0, y1], 1)], axis=1)  # (m, 5, 2)
    a, b = corners[:, :4], corners[:, 1:]
    edges = np.stack([a, a + (b - a) / 3, a + 2 * (b - a) / 3, b], axis=2)  # each edge a straight cubic
    points = np.zeros((len(r) * 16, 3))
    points[:, :2] = edges.reshape(-1, 2)
    shape = VMobject(fill_color=colour, fill_opacity=1, stroke_width=0)
    shape.set_points(points)
    return shape


def _cell_centre(i: int, j: int, g: int, side: float) -> list[float]:
    step = side / g
    return [(j - (g - 1) / 2) * step, -(i - (g - 1) / 2) * step, 0]


def _first_text(mob: Mobject) -> Text | None:
    return next((m for m in mob.get_family() if isinstance(m, Text) and m.original_text.strip()), None)


def _labels_on_shared_baselines(labels: list[VGroup]) -> None:
    """The thumbnails' labels of one row read as two lines: every word on one baseline, and
    every line under it (its first text) on another. ``next_to`` centres each label, so a word
    with tall letters ("ball") sat lower than "a". Labels only move down, away from their
    thumbnails, each part by the least that lines it up with the lowest."""
    for part in (0, 1):
        texts = [(label, _first_text(label[part])) for label in labels if len(label) > part]
        texts = [(label, t) for label, t in texts if t is not None]
        if len(texts) < 2:
            continue
        low = min(baseline_of(t) for _, t in texts)
        for label, t in texts:
            VGroup(*label[part:]).shift(DOWN * (baseline_of(t) - low))


class CnnAttentionScene(WalkthroughScene):
    scene_id = "cnn_attention"
    trace_sections = ("cnn", "encoder")
    description = ("Image captioning: a CNN turns a drawn scene into a grid of features (one cell up "
                   "close, its numbers named by their filters); a trained captioner writes the caption "
                   "and, for each word, its attention lights up the object it names.")
    shown_results = ("features", "weights", "word")

    def construct(self) -> None:
        self.set_stage()                     # title, the picture
        self.extract_features()              # CNN, grid lines on the picture, the feature grid
        self.read_one_cell()                 # one cell's D numbers, named by their filters
        self.compare_with_sentences()        # the cell folds back; Part 1's h_j beside the grid
        self.turn_features_into_weights()    # the same grid moves under the weights; strip, formulas
        for t in range(len(self.trace.cnn.tokens)):
            if t == 0:
                with self.close_up("the first word's weights and its context"):
                    self.attend_and_write(t)
                    self.collapse_the_numbers()
            else:
                self.attend_and_write(t)
        self.show_every_words_attention()    # the poster: one thumbnail per word

    # -- beats -----------------------------------------------------------------

    def set_stage(self) -> None:
        """The first frame says what this is; the picture fades in with its reader's name."""
        theme, cnn = self.theme, self.trace.cnn
        title = caption("Image captioning: attention over a grid of CNN features", theme, 30)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        self.add(title)  # the first frame already says what this is
        self.title = title
        self.image = self._image().move_to([IMAGE_X, MAIN_Y, 0])
        size = f"{cnn.input_size}\u00d7{cnn.input_size} pixels"
        where = f"a drawn picture, {size}" if cnn.scene is not None else f"your picture, read at {size}"
        self.image_note = caption(where, theme, 24, theme.muted)
        fit_within(self.image_note, max_width=SIDE + 0.8).move_to([IMAGE_X, NOTE_Y, 0])
        self.play(fade_in(self.image), fade_in(self.image_note), run_time=0.8)

    def extract_features(self) -> None:
        """The CNN (filters, ReLU, pooling) turns the picture into a G x G grid of vectors."""
        theme, cnn = self.theme, self.trace.cnn
        G, D = cnn.grid, cnn.features.shape[2]
        self.cnn_block = self._cnn_block().move_to([CNN_X, MAIN_Y + 0.2, 0])
        # The cells the features stand for: drawn on the picture from here to the poster
        # (above every spotlight: z-index).
        self.image_grid = self._grid_lines().move_to(self.image).set_z_index(2)
        self.features = self._feature_grid(GRID_SIDE_CNN).move_to([GRID_X_CNN, MAIN_Y, 0])
        self.feat_note = caption(f"{G}\u00d7{G} cells, {D} numbers each", theme, 24, theme.encoder)
        fit_within(self.feat_note, max_width=4.5).move_to([min(GRID_X_CNN, 7.0 - self.feat_note.width / 2),
                                                           NOTE_Y + 0.55, 0])
        self.arrows = VGroup(arrow_between(self.image, self.cnn_block[0], theme.muted),
                             arrow_between(self.cnn_block[0], self.features.frame, theme.muted))
        self.play(fade_in(self.cnn_block), GrowArrow(self.arrows[0]), run_time=0.9)
        self.play(Create(self.image_grid), run_time=0.8)
        self.play(GrowArrow(self.arrows[1]), fade_in(self.features), fade_in(self.feat_note), run_time=1.2)
        self.pause_on_result("features", 1.5)

    def read_one_cell(self) -> None:
        """One cell up close: its D numbers, one per filter (the CNN has done its part)."""
        i, j = self._zoomed_cell()
        self.play(fade_out(self.cnn_block), fade_out(self.arrows),
                  VGroup(self.features, self.feat_note).animate.shift([ZOOM_GRID_X - GRID_X_CNN, 0, 0]),
                  run_time=0.9)
        self.zoom = zoom = self._zoom(i, j, self.features)
        self.play(Create(zoom.marks), fade_in(zoom.column), fade_in(zoom.names), fade_in(zoom.label),
                  Create(zoom.links), run_time=1.2)
        self.pause_on_result("features", max(RESULT_PAUSE, reading_time(_texts_of(zoom.names)) / 2))

    def compare_with_sentences(self) -> None:
        """The cell's column folds back into its cell; beside the grid, Part 1's one h_j per
        word, and this grid's one vector per cell (the grid stays: it is what is attended)."""
        zoom = self.zoom
        cell = zoom.marks[1]
        self.play(fade_out(digits_of(zoom.column)), fade_out(zoom.names), fade_out(zoom.label),
                  fade_out(zoom.links), run_time=0.5)
        for c in zoom.column.cells:  # the digits are gone: the boxes fold back alone
            if getattr(c, "number", None) is not None:
                c.remove(c.number)
        self.play(zoom.column.animate.replace(cell, stretch=True).set_opacity(0), fade_out(zoom.marks),
                  run_time=0.7)
        self.remove(zoom)
        self.analogy = self._analogy()
        self.play(fade_in(self.analogy[0], shift=UP * 0.2), run_time=0.8)
        self.wait(reading_time(_texts_of(self.analogy[0])))
        self.play(fade_in(self.analogy[1]), run_time=0.8)
        self.wait(reading_time(_texts_of(self.analogy[1])))

    def turn_features_into_weights(self) -> None:
        """The feature grid slides into the weights' place and dims under them; the caption
        strip, the formulas and the status line come in."""
        theme = self.theme
        cap_label = caption("caption:", theme, 26, theme.muted)
        self.words = words = TokenStrip(self.trace.cnn.tokens, theme, colour=theme.target_embedding,
                                        font_size=28, max_width=9.5)
        VGroup(cap_label, words).arrange(RIGHT, buff=0.3).move_to([0, CAPTION_Y, 0])
        # c_t's formula labels the context column itself (see _context).
        formulas = math_label(r"e_{ij} = v \cdot \tanh(W_f f_{ij} + W_s s_{t-1})", theme, TEX_SIZE)
        fit_within(formulas, max_width=FORMULA_WIDTH).move_to([FORMULA_X, FORMULA_Y, 0])
        # Over the grid: what its tints now are (the weights, over the feature cells).
        weights_title = math_label(r"a_{ij} = \mathrm{softmax}(e)_{ij}", theme, TEX_SIZE, theme.weight)
        weights_title.move_to([WEIGHTS_X, WEIGHTS_Y + WEIGHTS_SIDE / 2 + 0.32, 0])
        status = self._status_note()
        status.move_to([0, STATUS_BOTTOM + status.height / 2, 0])  # one line or two, off the edge
        grid = self.features
        target = grid.copy().scale(WEIGHTS_SIDE / GRID_SIDE_CNN).move_to([WEIGHTS_X, WEIGHTS_Y, 0])
        for col in target[:-1]:  # the stripes stay, faint, under the weights
            col.set_opacity(FEATURES_UNDER)
        self.play(fade_out(self.analogy), fade_out(self.feat_note), fade_out(self.image_note),
                  Transform(grid, target), run_time=1.0)
        self.decoding = VGroup(cap_label, formulas, weights_title, status)
        self.play(fade_in(cap_label), Write(formulas), fade_in(weights_title), fade_in(status), run_time=1.2)
        self.spot = self.weights = self.context = self.focus = self.note = self.outline = None

    def attend_and_write(self, t: int) -> None:
        """Word t: the spotlight moves, the weights over the feature cells and c_t change in
        place, the note changes in place, the ring moves to the word's slot, the word is written."""
        theme = self.theme
        new_spot = self._spotlight(t).move_to(self.image)
        new_outline = self._object_outline(t)
        if new_outline is not None:
            new_outline.shift(self.image.get_center())
        digits = t == 0
        new_weights = self._weight_grid(t, digits).move_to([WEIGHTS_X, WEIGHTS_Y, 0])
        new_context = self._context(t, digits)
        new_context.shift([CONTEXT_X, CONTEXT_TOP - CONTEXT_LABEL_H, 0] - new_context.get_top())
        new_note = self._word_note(t)
        fit_within(new_note, max_width=NOTE_WIDTH)
        new_note.move_to([NOTE_LEFT, NOTE_Y + 0.05, 0], aligned_edge=LEFT)
        if len(new_note) > 1 and isinstance(new_note[0], VGroup):  # two lines: just under the picture
            new_note.shift(UP * (NOTE_TOP - new_note.get_top()[1]))
        slot = self.words.boxes[t]
        if self.weights is None:
            self.focus = SurroundingRectangle(slot, color=theme.highlight, buff=0.06)
            self.context_label = self._context_label().next_to(new_context, UP, buff=0.12)
            self.decoding.add(self.context_label)
            self.play(fade_in(new_spot), fade_in(new_weights), fade_in(new_context), fade_in(new_note),
                      fade_in(self.context_label),
                      Create(self.focus), run_time=1.0)
        else:
            changes = [caption_out(self.note), caption_in(new_note)]
            if self.outline is not None:
                changes.append(fade_out(self.outline, rate_func=window(0.0, 0.5)))
            self.play(fade_in(new_spot), fade_out(self.spot), *changes,
                      *self._in_place(self.weights, new_weights),
                      *self._in_place(self.context, new_context),
                      ring_to(self.focus, slot, buff=0.06), run_time=1.0 if t < SLOW_WORDS else 0.7)
        shown = [fade_in(slot, shift=UP * 0.15)]
        if new_outline is not None:
            shown.append(Create(new_outline))
        if t < SLOW_WORDS:  # the first words: a still second on the weights, then on the word
            self.pause_on_result("weights")
            self.play(*shown, run_time=0.8)
        else:  # the later ones: the word at once
            self.play(*shown, run_time=0.5)
        # The note has been up since the middle of the change: it stays until read.
        self.pause_on_result("word", max(RESULT_PAUSE, reading_time(_texts_of(new_note)) - 0.8))
        self.spot, self.weights, self.context, self.note, self.outline = (
            new_spot, new_weights, new_context, new_note, new_outline)

    def collapse_the_numbers(self) -> None:
        """After the first word, the weights are their heat and c_t its colours: the digits
        fade where they stand (the cells stay)."""
        digits = VGroup(*digits_of(self.weights), *digits_of(self.context.cells))
        if not len(digits):
            return
        self.play(fade_out(digits), run_time=0.6)
        bare_w = self._weight_grid(0, False).move_to(self.weights)
        bare_c = self._context(0, False)
        bare_c.shift(self.context.get_top() - bare_c.get_top())
        self.remove(self.weights, self.context)
        self.add(bare_w, bare_c)
        self.weights, self.context = bare_w, bare_c

    def _in_place(self, old: VGroup, new: VGroup) -> list:
        """``old`` becomes ``new`` where it stands: boxes and frames change colour (the same
        shapes, so nothing blinks), texts cross-fade (old out, then new in). ``new`` takes
        ``old``'s place in the scene once played (see :class:`_Swap`)."""
        def parts(group: VGroup) -> tuple[list, list]:
            shapes = [m for m in group.family_members_with_points()
                      if not any(isinstance(a, (Text, MathTex)) for a in _ancestors(m, group))]
            texts = [m for m in group.get_family() if isinstance(m, (Text, MathTex))]
            return shapes, texts
        old_shapes, old_texts = parts(old)
        new_shapes, new_texts = parts(new)
        anims = [Transform(a, b) for a, b in zip(old_shapes, new_shapes)]
        # Only the numbers that change cross-fade; an unchanged one stays put (no blink).
        changed = [(a, b) for a, b in zip(old_texts, new_texts)
                   if _said(a) != _said(b) or np.linalg.norm(a.get_center() - b.get_center()) > 1e-3]
        changed += [(a, None) for a in old_texts[len(new_texts):]]
        changed += [(None, b) for b in new_texts[len(old_texts):]]
        going = VGroup(*(a for a, _ in changed if a is not None))
        coming = VGroup(*(b for _, b in changed if b is not None))
        anims += [caption_out(going), caption_in(coming)]
        return [_Swap(old, new, *anims)]

    def show_every_words_attention(self) -> None:
        """The poster (Xu et al. 2015's figure): the lit picture shrinks into the last word's
        thumbnail while the others come in; under each, the word and its weight on its object;
        then why a word with no object already looks at the next one."""
        theme, cnn = self.theme, self.trace.cnn
        T = len(cnn.tokens)
        # Everything but the title, the caption strip and the lit picture leaves (the moves
        # above left pieces of the weights' cells on the scene as well as their groups).
        keep = {id(f) for m in (self.title, self.decoding[0], self.words, self.spot) for f in m.get_family()}
        leaving = [m for m in self.mobjects if id(m) not in keep]
        labels = [self._thumb_label(t) for t in range(T)]
        # One row while every label fits its slot; a long caption takes two rows
        # (labels keep their size, thumbnails get smaller) rather than run off the frame.
        per_row = T if _row_width(labels, T) <= POSTER_WIDTH else -(-T // 2)
        slot = (POSTER_WIDTH - (per_row - 1) * THUMB_GAP) / per_row
        side = min(THUMB_MAX, slot, THUMB_TWO_ROWS if per_row < T else THUMB_MAX)
        thumbs = VGroup()
        for t, label in enumerate(labels):
            fit_within(label, max_width=slot)  # a last resort for a very long word
            thumb = self._spotlight(t).scale(side / SIDE)
            thumbs.add(VGroup(thumb, label.next_to(thumb, DOWN, buff=0.15)))
        rows = VGroup(*[VGroup(*thumbs[k:k + per_row]).arrange(RIGHT, buff=THUMB_GAP, aligned_edge=UP)
                        for k in range(0, T, per_row)]).arrange(DOWN, buff=0.25)
        for k in range(0, T, per_row):
            _labels_on_shared_baselines(labels[k:k + per_row])
        rows.arrange(DOWN, buff=0.25)  # again: a label may have moved down
        rows.move_to([0, THUMBS_Y, 0])
        if rows.get_top()[1] > THUMBS_TOP:  # two rows: between the caption strip and the notes
            rows.shift(DOWN * (rows.get_top()[1] - THUMBS_TOP))
        self.poster_rows = [labels[k:k + per_row] for k in range(0, T, per_row)]
        why = caption("\u2192: the next word\u2019s object; weights are computed before the word is written",
                      theme, SMALL, theme.muted)
        fit_within(why, max_width=13.4)
        summary = self._summary()
        bottom = VGroup(*([summary] if summary is not None else []), why).arrange(DOWN, buff=0.12)
        bottom.move_to([0, NOTE_Y - 0.35, 0])
        last = thumbs[-1][0]  # the lit picture of the last word becomes its thumbnail
        self.play(*[fade_out(m) for m in leaving],
                  self.spot.animate.scale(last.width / self.spot.width).move_to(last), run_time=1.0)
        self.remove(self.spot)
        self.add(last)
        others = [th for th in thumbs[:-1]] + [thumbs[-1][1]]
        self.play(LaggedStart(*[fade_in(th) for th in others], lag_ratio=0.3), run_time=1.6)
        if summary is not None:
            self.play(fade_in(summary), run_time=0.6)
        said = _texts_of(VGroup(*labels, *([summary] if summary else [])))
        self.wait(max(RESULT_PAUSE, min(FROZEN_READ, reading_time(said) - 1.5)))
        self.play(fade_in(why), run_time=0.6)
        self.hold_final(min(FINAL_HOLD_MAX - 1.0, max(FINAL_HOLD, reading_time(why.original_text))))

    def _thumb_label(self, t: int) -> VGroup:
        """Under word t's thumbnail: the word, and its weight on its object (or on the next
        word's object, or "no object")."""
        theme, cnn = self.theme, self.trace.cnn
        word = caption(cnn.tokens[t], theme, 26, theme.target_embedding)
        if cnn.object_mass[t] is not None:
            lead, value, key = "on it", cnn.object_mass[t], ("cnn.object_mass", t)
        elif cnn.next_object[t] is not None:
            u = cnn.next_object[t]
            lead, value, key = f"\u2192 {cnn.tokens[u]}", cnn.next_object_mass[t], ("cnn.next_object_mass", t)
        else:
            if cnn.scene is None:  # a user image: no objects are known
                return VGroup(word)
            return VGroup(word, caption("no object", theme, SMALL, theme.muted)).arrange(DOWN, buff=0.08)
        line = read_as_line(on_baseline(VGroup(caption(lead, theme, SMALL, theme.muted),
                                               NumberLabel(value, theme, key, font_size=SMALL,
                                                           colour=theme.highlight)).arrange(RIGHT, buff=0.1)))
        return VGroup(word, line).arrange(DOWN, buff=0.08)

    # -- builders ------------------------------------------------------------

    def _pixel_runs(self, rgb: np.ndarray, side: float) -> VGroup:
        """The picture as rectangles: runs of equal pixels in a row, stacked
        over the rows below while they repeat (fewer mobjects, fewer seams)."""
        n = rgb.shape[0]
        px = side / n
        blocks: list[list[int]] = []  # [row0, rows, j, k] per rectangle
        open_runs: dict[tuple, list[int]] = {}
        for i in range(n):
            runs = {}
            j = 0
            while j < n:
                k = j + 1
                while k < n and np.array_equal(rgb[i, k], rgb[i, j]):
                    k += 1
                key = (j, k, *(int(c) for c in rgb[i, j]))
                block = open_runs.get(key)
                if block is not None and block[0] + block[1] == i:
                    block[1] += 1
                else:
                    block = [i, 1, j, k]
                    blocks.append(block)
                runs[key] = block
                j = k
            open_runs = runs
        # One shape per colour, its blocks as subpaths: a picture of a few hundred blocks is a few
        # dozen mobjects, not hundreds (each a Rectangle cost a build 1.6 ms and every snapshot,
        # copy and frame walked them all). A hair of overlap hides the anti-aliased seams.
        by_colour: dict[tuple[int, ...], list[tuple[float, float, float, float]]] = {}
        for (i, rows, j, k) in blocks:
            by_colour.setdefault(tuple(int(c) for c in rgb[i, j]), []).append(
                (((j + k - 1) / 2 - (n - 1) / 2) * px, -((i + i + rows - 1) / 2 - (n - 1) / 2) * px,
                 (k - j) * px + 0.01, rows * px + 0.01))
        return VGroup(*[_patch(rects, ManimColor.from_rgb(colour)) for colour, rects in by_colour.items()])

    def _image(self) -> VGroup:
        """The image as the CNN reads it, drawn pixel by pixel.

        Drawn as rectangles rather than an ImageMobject because manim 0.22's
        image rendering fails with Pillow 13 ("Invalid mode for data type").
        """
        rgb = np.round(np.asarray(self.trace.cnn.input_image) * 255).astype(int)
        mosaic = self._pixel_runs(rgb, SIDE)
        frame = Rectangle(width=SIDE, height=SIDE, stroke_color=self.theme.muted, stroke_width=2)
        return VGroup(mosaic, frame)

    def _spotlight(self, t: int) -> VGroup:
        """The image lit by word t's weights: upsampled smoothly, faded where they are low.

        Painted into the pixels (not a translucent layer on top), so the
        picture stays seamless.
        """
        rgb = np.asarray(self.trace.cnn.input_image)
        light = spotlight(self.trace.cnn.weights[t], rgb.shape[0])
        shade = (np.round((1 - light) * SPOT_LEVELS) / SPOT_LEVELS * SPOT_DARK)[:, :, None]
        # Faded towards the page where the weight is low: dark on the dark
        # theme, pale on the light one, so the lit object stands out on both.
        page = np.array(ManimColor(self.theme.background).to_rgb())
        lit = np.round((rgb * (1 - shade) + page * shade) * 255).astype(int)
        return VGroup(self._pixel_runs(lit, SIDE),
                      Rectangle(width=SIDE, height=SIDE, stroke_color=self.theme.muted, stroke_width=2))

    def _object_outline(self, t: int) -> VGroup | None:
        """A dashed outline around the cells of the object word t names (their
        outer edges only, so neighbouring cells read as one region)."""
        cnn = self.trace.cnn
        cells = set(cnn.object_cells[t])
        if not cells:
            return None
        G = cnn.grid
        step = SIDE / G
        group = VGroup()
        for i, j in sorted(cells):
            x, y = _cell_centre(i, j, G, SIDE)[:2]
            h = step / 2
            edges = {(i - 1, j): ([x - h, y + h, 0], [x + h, y + h, 0]),
                     (i + 1, j): ([x - h, y - h, 0], [x + h, y - h, 0]),
                     (i, j - 1): ([x - h, y - h, 0], [x - h, y + h, 0]),
                     (i, j + 1): ([x + h, y - h, 0], [x + h, y + h, 0])}
            for neighbour, (a, b) in edges.items():
                if neighbour not in cells:
                    group.add(DashedLine(a, b, dash_length=0.12))
        group.set_stroke(self.theme.highlight, width=3)
        return group

    def _zoomed_cell(self) -> tuple[int, int]:
        """The cell shown up close: the first cell of the first object named,
        else the cell whose features are largest (a lookup, nothing computed)."""
        cnn = self.trace.cnn
        for cells in cnn.object_cells:
            if cells:
                return tuple(sorted(cells)[0])
        norms = np.abs(cnn.features).sum(axis=2)
        return tuple(int(k) for k in np.unravel_index(int(np.argmax(norms)), norms.shape))

    def _zoom(self, i: int, j: int, features: VGroup) -> VGroup:
        """Cell (i, j) of the feature grid up close: its D numbers, each named by its filter.

        Returns a group with ``marks`` (the cell outlined on the image and on
        the grid), ``column``, ``names``, ``label`` and ``links`` (from the
        grid cell to the column).
        """
        theme, cnn = self.theme, self.trace.cnn
        G, D = cnn.grid, cnn.features.shape[2]
        scale = max(float(np.max(np.abs(cnn.features))), 1e-9)
        cell_h = min(ZOOM_CELL_H, ZOOM_HEIGHT / D)
        column = VectorColumn(cnn.features[i, j], theme, key=f"cnn.features.{i}.{j}", colour=theme.encoder,
                              cell_width=ZOOM_CELL_W, cell_height=cell_h, scale=scale, max_rows=D,
                              font_size=SMALL)
        column.move_to([ZOOM_X, MAIN_Y, 0])
        names = VGroup(*[
            caption(name, theme, SMALL, theme.muted).next_to(cell, RIGHT, buff=0.15)
            for name, cell in zip(cnn.filter_names, column.cells)
        ])
        label = math_label(f"f_{{{i + 1},{j + 1}}}", theme, 34, theme.encoder).next_to(column, UP, buff=0.15)
        grid_cell = Rectangle(width=GRID_SIDE_CNN / G, height=GRID_SIDE_CNN / G, stroke_color=theme.highlight,
                              stroke_width=4).move_to(features.get_center() + _cell_centre(i, j, G, GRID_SIDE_CNN))
        image_cell = Rectangle(width=SIDE / G, height=SIDE / G, stroke_color=theme.highlight, stroke_width=4)
        image_cell.move_to(np.array([IMAGE_X, MAIN_Y, 0]) + _cell_centre(i, j, G, SIDE))
        links = VGroup(*[
            DashedLine(grid_cell.get_corner(UP + RIGHT if k == 0 else DOWN + RIGHT),
                       column.frame.get_corner(UP + LEFT if k == 0 else DOWN + LEFT), dash_length=0.1)
            for k in range(2)
        ]).set_stroke(theme.highlight, width=2)
        zoom = VGroup(image_cell, grid_cell, column, names, label, links)
        zoom.marks, zoom.column, zoom.names, zoom.label, zoom.links = (
            VGroup(image_cell, grid_cell), column, names, label, links)
        return zoom

    def _grid_lines(self) -> VGroup:
        """The G x G cells over the image that the pooled features stand for."""
        G, step = self.trace.cnn.grid, SIDE / self.trace.cnn.grid
        lines = VGroup()
        for k in range(G + 1):
            off = -SIDE / 2 + k * step
            lines.add(Line([off, -SIDE / 2, 0], [off, SIDE / 2, 0]),
                      Line([-SIDE / 2, off, 0], [SIDE / 2, off, 0]))
        lines.set_stroke(self.theme.text, width=1.5, opacity=0.7)
        return lines

    def _cnn_block(self) -> VGroup:
        theme, cnn = self.theme, self.trace.cnn
        D = len(cnn.filter_names)
        box = CellBox("CNN", theme, theme.encoder, width=2.8, height=0.9, font_size=30)
        fixed = "fixed, hand-made" if cnn.filter_names[0] == "red" else "from the numbers file"
        lines = VGroup(
            caption(f"{D} filters 3\u00d73\u00d7RGB", theme, 24),
            caption(f"({fixed})", theme, SMALL, theme.muted),
            caption("then ReLU", theme, 24),
            caption("then average-pool", theme, 24),
            caption(f"to {cnn.grid}\u00d7{cnn.grid} cells", theme, 24),
        ).arrange(DOWN, buff=0.12)
        for line in lines:
            fit_within(line, max_width=3.2)
        return VGroup(box, lines.next_to(box, DOWN, buff=0.25))

    def _feature_grid(self, side: float) -> VGroup:
        """G x G cells, each its D-vector as stacked colour stripes."""
        theme, feats = self.theme, self.trace.cnn.features
        G, D = feats.shape[0], feats.shape[2]
        cell = side / G
        gutter = 0.04
        scale = max(float(np.max(np.abs(feats))), 1e-9)
        grid = VGroup()
        for i in range(G):
            for j in range(G):
                col = VGroup(*[
                    ValueCell(feats[i, j, d], theme, None, width=cell - 2 * gutter,
                              height=(cell - 2 * gutter) / D, scale=scale, show_number=False)
                    for d in range(D)
                ]).arrange(DOWN, buff=0)
                for c in col:
                    c.box.set_stroke(width=0)
                grid.add(col.move_to(_cell_centre(i, j, G, side)))
        grid.frame = Rectangle(width=side + 0.08, height=side + 0.08, stroke_color=theme.encoder,
                               stroke_width=3)
        grid.add(grid.frame)
        return grid

    def _weight_grid(self, t: int, digits: bool = True) -> VGroup:
        """Word t's G x G weights, laid over the feature cells: each cell tinted on the heat
        scale (0 to 1, as in every clip; ``key`` and ``value`` say which weight it is), and
        its number when ``digits`` and it fits."""
        theme, w = self.theme, self.trace.cnn.weights[t]
        G = w.shape[0]
        cell = WEIGHTS_SIDE / G
        group = VGroup()
        for i in range(G):
            for j in range(G):
                pos = _cell_centre(i, j, G, WEIGHTS_SIDE)
                tint = Rectangle(width=cell, height=cell, stroke_width=1.5, stroke_color=theme.muted,
                                 fill_color=theme.heat(w[i, j]), fill_opacity=0.2 + 0.75 * w[i, j]).move_to(pos)
                tint.key, tint.value = (f"cnn.weights.{t}.{i}", j), float(w[i, j])
                group.add(tint)
                if digits and cell >= MIN_NUMBER_CELL:
                    # On a hot cell the page's colour reads better than the text's.
                    ink = theme.background if w[i, j] > 0.5 else theme.text
                    group.add(NumberLabel(w[i, j], theme, (f"cnn.weights.{t}.{i}", j), font_size=SMALL,
                                          colour=ink).move_to(pos))
        return group

    def _context(self, t: int, digits: bool = True) -> VectorColumn:
        """c_t as a column (its digits only while ``digits``: the close-up), its formula over it."""
        cnn = self.trace.cnn
        return VectorColumn(cnn.contexts[t], self.theme, key=f"cnn.contexts.{t}", colour=self.theme.value,
                            cell_height=0.36, cell_width=0.95, font_size=SMALL, show_numbers=digits)

    def _context_label(self) -> MathTex:
        """c_t's formula, over its column (c_t, not c_1, c_2, ...: it stays while the column
        changes; the ring on the caption says which t)."""
        return math_label(r"c_t = \sum_{i,j} a_{ij}\, f_{ij}", self.theme, TEX_SIZE, self.theme.value)

    def _word_note(self, t: int) -> VGroup:
        """What word t names and how much of its weight lands there."""
        theme, cnn = self.theme, self.trace.cnn
        word = cnn.tokens[t]
        mass = cnn.object_mass[t]
        if mass is None and cnn.next_object[t] is not None:
            # Honest about the weights of a word with no object: measured on the next object.
            nxt = cnn.tokens[cnn.next_object[t]]
            lead = caption(f"\u201c{word}\u201d names no object; on the {nxt} (next):", theme, 24,
                           theme.highlight)
            num = NumberLabel(cnn.next_object_mass[t], theme, ("cnn.next_object_mass", t), font_size=26,
                              colour=theme.highlight)
            parts = [read_as_line(on_baseline(VGroup(lead, num).arrange(RIGHT, buff=0.15)))]
            if self._surprising(t):
                # The weights go against the story (not on the next object): say why, once.
                there = self._looked_at(t)
                parts.append(caption("no loss tells it where to look" + (f"; here: the {there}" if there else ""),
                                     theme, SMALL, theme.text))
            note = VGroup(*parts).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
            note.text = "\n".join(p.original_text if isinstance(p, Text) else p.text for p in parts)
            return note
        if mass is None:
            text = (f"\u201c{word}\u201d names no object" if cnn.scene is not None
                    else f"\u201c{word}\u201d: where it looks")
            return VGroup(caption(text, theme, 24, theme.highlight))
        lead = caption(f"\u201c{word}\u201d: weight on the {word}", theme, 24, theme.highlight)
        num = NumberLabel(mass, theme, ("cnn.object_mass", t), font_size=26, colour=theme.highlight)
        return read_as_line(VGroup(lead, num).arrange(RIGHT, buff=0.15))

    def _surprising(self, t: int) -> bool:
        """Word t names no object and puts under half its weight on the next word's object."""
        cnn = self.trace.cnn
        return (cnn.object_mass[t] is None and cnn.next_object[t] is not None
                and cnn.next_object_mass[t] < 0.5)

    def _looked_at(self, t: int) -> str | None:
        """The object whose cells hold word t's strongest weight (a lookup), or None."""
        cnn = self.trace.cnn
        top = tuple(int(k) for k in np.unravel_index(int(np.argmax(cnn.weights[t])), cnn.weights[t].shape))
        return next((cnn.tokens[u] for u, cells in enumerate(cnn.object_cells)
                     if top in {tuple(c) for c in cells}), None)

    def _status_note(self) -> VGroup:
        """Says which decoder this is and where the image comes from."""
        theme, cnn = self.theme, self.trace.cnn
        parts = []
        if not cnn.trained:
            parts.append("decoder weights seeded, not trained: [cnn] sizes or filters differ "
                         "from the trained captioner's")
        elif cnn.scene is None:
            parts.append("not a drawn scene: the captioner, trained on drawn scenes, captions what it can")
        else:
            parts.append("captioner trained on drawn scenes; dashed: the cells of the object named")
        if cnn.forced:
            parts.append("caption given in the numbers file (the decoder reads it)")
        note = VGroup(*[caption(p, theme, SMALL, theme.muted) for p in parts]).arrange(DOWN, buff=0.08)
        return fit_within(note, max_width=13.4)

    def _summary(self) -> VGroup | None:
        theme, cnn = self.theme, self.trace.cnn
        if not cnn.held_out:
            return None
        lead = caption("on unseen pictures, object words with their strongest weight on their object:",
                       theme, SMALL, theme.text)
        num = NumberLabel(cnn.held_out["attention_accuracy"], theme,
                          ("cnn.held_out.attention_accuracy",), font_size=24, colour=theme.highlight)
        return fit_within(read_as_line(on_baseline(VGroup(lead, num).arrange(RIGHT, buff=0.15))),
                          max_width=13.4)

    def _analogy(self) -> VGroup:
        """The draft's parallel, beside the feature grid (which stays): Part 1's encoder gave one
        vector h_j per word; this CNN gives one vector per cell, and attention will weigh them
        as it weighed the words. ``[0]``: the sentence's half, ``[1]``: the grid's."""
        theme, enc = self.theme, self.trace.encoder
        chips = VGroup(*[
            VectorColumn(h, theme, show_numbers=False, colour=theme.encoder, cell_width=0.28,
                         cell_height=0.9 / len(h))
            for h in enc.hidden[1:]
        ]).arrange(RIGHT, buff=0.1)
        fit_within(chips, max_width=ANALOGY_WIDTH)
        sentence = VGroup(
            caption("Part 1: a sentence", theme, 26, theme.muted),
            chips,
            caption("one vector per word", theme, 26, theme.encoder),
        ).arrange(DOWN, buff=0.2)
        here = VGroup(
            caption("here: a picture", theme, 26, theme.muted),
            caption("one vector per cell", theme, 26, theme.encoder),
            caption("attention weighs them alike", theme, 26, theme.weight),
        ).arrange(DOWN, buff=0.15)
        for part in (*sentence, *here):
            fit_within(part, max_width=ANALOGY_WIDTH)
        group = VGroup(sentence, here).arrange(DOWN, buff=0.5)
        group.move_to([ANALOGY_X, MAIN_Y + 0.3, 0])
        return group


def _texts_of(mob: VGroup) -> str:
    """The words of every text in ``mob``, for its reading time."""
    return " ".join(m.original_text for m in mob.get_family() if isinstance(m, Text))


def _said(mob: Mobject) -> str:
    """What a text or formula says (a number as shown)."""
    return str(getattr(mob, "shown", None) or getattr(mob, "original_text", None)
               or getattr(mob, "tex_string", ""))


def _ancestors(mob: Mobject, root: Mobject) -> list[Mobject]:
    """``mob`` and the groups above it inside ``root`` (to tell a text's glyphs from a box)."""
    chain = [mob]
    parents = {id(c): p for p in root.get_family() for c in p.submobjects}
    while id(chain[-1]) in parents and chain[-1] is not root:
        chain.append(parents[id(chain[-1])])
    return chain


class _Swap(MovesGroup):
    """Plays ``anims`` (``old`` turning into ``new`` in place), then puts ``new`` in the scene
    in place of ``old``: the next word's update starts from what is on screen. A
    :class:`~scenes.motion.MovesGroup`: it never puts its own Group on the scene (which
    would split ``old`` into pieces mid-play and read as a blink)."""

    def __init__(self, old: Mobject, new: Mobject, *anims: Animation, **kw) -> None:
        self.old, self.new = old, new
        super().__init__(*anims, **kw)

    def clean_up_from_scene(self, scene) -> None:
        super().clean_up_from_scene(scene)
        scene.remove(self.old, *self.old.get_family())
        for anim in self.animations:  # the cross-fades' wrappers
            scene.remove(anim.mobject)
        scene.add(self.new)
