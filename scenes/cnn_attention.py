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
    Write,
)

from attention_core.cnn import spotlight

from .base import FINAL_HOLD, RESULT_PAUSE, WalkthroughScene, reading_time
from .motion import MovesGroup, ring_to
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
FORMULA_Y = 2.0
FORMULA_X = 2.3
FORMULA_WIDTH = 9.0  # from the image's right edge to the frame's
NOTE_Y = -2.85
SMALL = 23.5  # the smallest font size used (14.3 px capitals at 480p)
SPOT_LEVELS = 24  # shades of the spotlight (runs of equal shade merge)
SPOT_DARK = 0.82  # opacity of the dark where the weight is lowest
MIN_NUMBER_CELL = 0.75  # a weight cell must be this wide to hold its number
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
        theme, cnn = self.theme, self.trace.cnn
        G, D = cnn.grid, cnn.features.shape[2]

        title = caption("Image captioning: attention over a grid of CNN features", theme, 30)
        fit_within(title, max_width=13.4).move_to([0, TITLE_Y, 0])
        self.add(title)  # the first frame already says what this is
        image = self._image().move_to([IMAGE_X, MAIN_Y, 0])
        where = (f"drawn scene {cnn.scene}, read at {cnn.input_size}\u00d7{cnn.input_size} px"
                 if cnn.scene is not None else
                 f"your image, read at {cnn.input_size}\u00d7{cnn.input_size} px")
        image_note = caption(where, theme, 22, theme.muted)
        fit_within(image_note, max_width=SIDE + 0.8).move_to([IMAGE_X, NOTE_Y, 0])
        self.play(fade_in(image), fade_in(image_note), run_time=0.8)

        # -- the CNN: filters, ReLU, pooling to a G x G grid -----------------
        cnn_block = self._cnn_block().move_to([CNN_X, MAIN_Y + 0.2, 0])
        grid_lines = self._grid_lines().move_to(image)
        features = self._feature_grid(GRID_SIDE_CNN).move_to([GRID_X_CNN, MAIN_Y, 0])
        feat_note = caption(f"{G}\u00d7{G} cells f\u1d62\u2c7c, {D} numbers each", theme, 22,
                            theme.encoder)
        fit_within(feat_note, max_width=4.2).move_to([GRID_X_CNN, NOTE_Y + 0.55, 0])
        a1 = arrow_between(image, cnn_block[0], theme.muted)
        a2 = arrow_between(cnn_block[0], features.frame, theme.muted)
        self.play(fade_in(cnn_block), GrowArrow(a1), run_time=0.9)
        self.play(Create(grid_lines), run_time=0.8)
        self.play(GrowArrow(a2), fade_in(features), fade_in(feat_note), run_time=1.2)
        self.pause_on_result("features", 1.5)

        # -- one cell up close: its D numbers, one per filter ------------------
        i, j = self._zoomed_cell()
        self.play(fade_out(cnn_block), fade_out(a1), fade_out(a2),
                  VGroup(features, feat_note).animate.shift([ZOOM_GRID_X - GRID_X_CNN, 0, 0]), run_time=0.9)
        zoom = self._zoom(i, j, features)
        self.play(Create(zoom.marks), fade_in(zoom.column), fade_in(zoom.names), fade_in(zoom.label),
                  Create(zoom.links), run_time=1.2)
        self.pause_on_result("features", max(RESULT_PAUSE, reading_time(feat_note.original_text)))
        self.play(*[fade_out(m) for m in (features, feat_note, image_note, grid_lines, zoom)], run_time=0.6)

        # -- the analogy with the sentence case ------------------------------
        left, right = self._analogy()
        self.play(fade_in(left, shift=UP * 0.2), run_time=0.8)
        self.wait(1.2)
        self.play(fade_in(right, shift=UP * 0.2), run_time=0.8)
        self.wait(max(reading_time(_texts_of(left)) - 2.0, reading_time(_texts_of(right))) + 0.2)
        self.play(fade_out(left), fade_out(right), run_time=0.6)

        self._decode(image)

    def _decode(self, image: VGroup) -> None:
        """The decoder writes the caption: per word the spotlight, the weights, c_t and the
        object's share; then the poster, one thumbnail per word."""
        self.prepare_decoding(image)
        for t in range(len(self.trace.cnn.tokens)):
            self.attend_and_write(t)
        self.show_every_words_attention()

    def prepare_decoding(self, image: VGroup) -> None:
        """The caption strip, the formulas, the weights' title, and the grid over the image."""
        theme = self.theme
        self.image = image
        cap_label = caption("caption:", theme, 26, theme.muted)
        self.words = words = TokenStrip(self.trace.cnn.tokens, theme, colour=theme.decoder,
                                        font_size=28, max_width=9.5)
        VGroup(cap_label, words).arrange(RIGHT, buff=0.3).move_to([0, CAPTION_Y, 0])
        # c_t's formula labels the context column itself (see _context).
        formulas = math_label(r"e_{ij} = v \cdot \tanh(W_f f_{ij} + W_s s_{t-1}),\;\; "
                              r"a_t = \mathrm{softmax}(e)", theme, 32)
        fit_within(formulas, max_width=FORMULA_WIDTH).move_to([FORMULA_X, FORMULA_Y, 0])
        weights_title = caption("attention weights a\u1d62\u2c7c", theme, 24, theme.highlight)
        weights_title.move_to([WEIGHTS_X, WEIGHTS_Y + WEIGHTS_SIDE / 2 + 0.3, 0])
        status = self._status_note().move_to([0, NOTE_Y - 0.62, 0])
        # The cells the weights are over, drawn on the image for as long as attention is shown
        # (above every spotlight: z-index).
        self.image_grid = self._grid_lines().move_to(image).set_z_index(2)
        self.decoding = VGroup(cap_label, formulas, weights_title, status)
        self.play(fade_in(cap_label), Write(formulas), fade_in(weights_title), fade_in(status),
                  fade_in(self.image_grid), run_time=1.2)
        self.spot = self.weights = self.context = self.focus = self.note = self.outline = None

    def attend_and_write(self, t: int) -> None:
        """Word t: the spotlight moves, the weights and c_t change in place (their boxes and
        frames stay), the ring moves to the word's slot, the word is written."""
        theme = self.theme
        new_spot = self._spotlight(t).move_to(self.image)
        new_outline = self._object_outline(t)
        if new_outline is not None:
            new_outline.shift(self.image.get_center())
        new_weights = self._weight_grid(t).move_to([WEIGHTS_X, WEIGHTS_Y, 0])
        new_context = self._context(t)
        new_context.shift([CONTEXT_X, CONTEXT_TOP, 0] - new_context.get_top())
        new_note = self._word_note(t)
        fit_within(new_note, max_width=SIDE + 0.6).move_to([IMAGE_X, NOTE_Y + 0.1, 0])
        slot = self.words.boxes[t]
        if self.weights is None:
            self.focus = SurroundingRectangle(slot, color=theme.highlight, buff=0.06)
            self.play(fade_in(new_spot), fade_in(new_weights), fade_in(new_context),
                      Create(self.focus), run_time=1.0)
        else:
            gone = [m for m in (self.note, self.outline) if m is not None]
            self.play(*[fade_out(m) for m in gone], run_time=0.35)
            self.play(fade_in(new_spot), fade_out(self.spot),
                      *self._in_place(self.weights, new_weights),
                      *self._in_place(self.context, new_context),
                      ring_to(self.focus, slot, buff=0.06), run_time=1.0)
        shown = [fade_in(slot, shift=UP * 0.15), fade_in(new_note)]
        if new_outline is not None:
            shown.append(Create(new_outline))
        if t < SLOW_WORDS:  # the first words: a still second on the weights, then on the word
            self.pause_on_result("weights")
            self.play(*shown, run_time=0.8)
        else:  # the later ones: the word at once
            self.play(*shown, run_time=0.6)
        self.pause_on_result("word", max(RESULT_PAUSE, reading_time(_texts_of(new_note))))
        self.spot, self.weights, self.context, self.note, self.outline = (
            new_spot, new_weights, new_context, new_note, new_outline)

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
        """The poster (Xu et al. 2015's figure): one thumbnail per caption word, its weights
        over the image, the word and its weight on the object under it, and why a word
        with no object already looks at the next one."""
        theme, cnn = self.theme, self.trace.cnn
        T = len(cnn.tokens)
        leaving = [m for m in (self.spot, self.weights, self.context, self.focus, self.note,
                               self.outline) if m is not None]
        leaving += [self.image, self.image_grid, *self.decoding[1:]]
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
        why = caption("\u2192: weight on the next word\u2019s object. Weights come from s\u209c\u208b\u2081, "
                      "before the word is written.", theme, 20, theme.muted)
        summary = self._summary()
        bottom = VGroup(*([summary] if summary is not None else []), why).arrange(DOWN, buff=0.12)
        bottom.move_to([0, NOTE_Y - 0.35, 0])
        self.play(*[fade_out(m) for m in leaving], run_time=0.6)
        self.play(LaggedStart(*[fade_in(th) for th in thumbs], lag_ratio=0.3), run_time=1.6)
        self.play(fade_in(bottom), run_time=0.6)
        # The poster: the caption, every word's attention over the image, read and held.
        self.hold_final(max(FINAL_HOLD, reading_time(_texts_of(VGroup(thumbs, bottom)))))

    def _thumb_label(self, t: int) -> VGroup:
        """Under word t's thumbnail: the word, and its weight on its object (or on the next
        word's object, or "no object")."""
        theme, cnn = self.theme, self.trace.cnn
        word = caption(cnn.tokens[t], theme, 26, theme.decoder)
        if cnn.object_mass[t] is not None:
            lead, value, key = f"on the {cnn.tokens[t]}", cnn.object_mass[t], ("cnn.object_mass", t)
        elif cnn.next_object[t] is not None:
            u = cnn.next_object[t]
            lead, value, key = f"\u2192 {cnn.tokens[u]}", cnn.next_object_mass[t], ("cnn.next_object_mass", t)
        else:
            if cnn.scene is None:  # a user image: no objects are known
                return VGroup(word)
            return VGroup(word, caption("no object", theme, 20, theme.muted)).arrange(DOWN, buff=0.08)
        line = read_as_line(on_baseline(VGroup(caption(lead, theme, 20, theme.muted),
                                               NumberLabel(value, theme, key, font_size=20,
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
        group = VGroup()
        for (i, rows, j, k) in blocks:
            colour = ManimColor.from_rgb(tuple(int(c) for c in rgb[i, j]))
            # A hair of overlap hides the anti-aliased seams between blocks.
            group.add(Rectangle(width=(k - j) * px + 0.01, height=rows * px + 0.01, stroke_width=0,
                                fill_color=colour, fill_opacity=1)
                      .move_to([((j + k - 1) / 2 - (n - 1) / 2) * px,
                                -((i + i + rows - 1) / 2 - (n - 1) / 2) * px, 0]))
        return group

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
            caption(f"{D} filters 3\u00d73\u00d7RGB", theme, 22),
            caption(f"({fixed})", theme, 20, theme.muted),
            caption("then ReLU", theme, 22),
            caption("then average-pool", theme, 22),
            caption(f"to {cnn.grid}\u00d7{cnn.grid} cells", theme, 22),
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

    def _weight_grid(self, t: int) -> VGroup:
        """Word t's G x G weights: cells tinted by weight, the numbers when they fit."""
        theme, w = self.theme, self.trace.cnn.weights[t]
        G = w.shape[0]
        cell = WEIGHTS_SIDE / G
        top = max(float(w.max()), 1e-12)
        group = VGroup()
        for i in range(G):
            for j in range(G):
                pos = _cell_centre(i, j, G, WEIGHTS_SIDE)
                group.add(Rectangle(width=cell, height=cell, stroke_width=1.5, stroke_color=theme.muted,
                                    fill_color=theme.heat(w[i, j] / top), fill_opacity=0.25 + 0.6 * w[i, j] / top).move_to(pos))
                if cell >= MIN_NUMBER_CELL:
                    # On a hot cell the page's colour reads better than the text's.
                    ink = theme.background if w[i, j] / top > 0.5 else theme.text
                    group.add(NumberLabel(w[i, j], theme, (f"cnn.weights.{t}.{i}", j), font_size=SMALL,
                                          colour=ink).move_to(pos))
        return group

    def _context(self, t: int) -> VectorColumn:
        cnn = self.trace.cnn
        col = VectorColumn(cnn.contexts[t], self.theme, key=f"cnn.contexts.{t}", colour=self.theme.value,
                           cell_height=0.36, cell_width=0.95, font_size=SMALL)
        label = math_label(rf"c_{{{t + 1}}} = \sum_{{i,j}} a_{{ij}}\, f_{{ij}}", self.theme, 32, self.theme.value)
        col.add(label.next_to(col.frame, UP, buff=0.12))
        return col

    def _word_note(self, t: int) -> VGroup:
        """What word t names and how much of its weight lands there."""
        theme, cnn = self.theme, self.trace.cnn
        word = cnn.tokens[t]
        mass = cnn.object_mass[t]
        if mass is None and cnn.next_object[t] is not None:
            # Honest about the weights of a word with no object: measured on the next object.
            nxt = cnn.tokens[cnn.next_object[t]]
            first = caption(f"\u201c{word}\u201d names no object;", theme, 24, theme.highlight)
            lead = caption(f"on the {nxt} (next):", theme, 24, theme.highlight)
            num = NumberLabel(cnn.next_object_mass[t], theme, ("cnn.next_object_mass", t), font_size=26,
                              colour=theme.highlight)
            second = read_as_line(VGroup(lead, num).arrange(RIGHT, buff=0.15))
            note = VGroup(first, second).arrange(DOWN, buff=0.1)
            note.text = first.original_text + "\n" + second.text
            return note
        if mass is None:
            text = (f"\u201c{word}\u201d names no object" if cnn.scene is not None
                    else f"\u201c{word}\u201d: where it looks")
            return VGroup(caption(text, theme, 24, theme.highlight))
        lead = caption(f"\u201c{word}\u201d: weight on the {word}", theme, 24, theme.highlight)
        num = NumberLabel(mass, theme, ("cnn.object_mass", t), font_size=26, colour=theme.highlight)
        return read_as_line(VGroup(lead, num).arrange(RIGHT, buff=0.15))

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
        note = VGroup(*[caption(p, theme, 20, theme.muted) for p in parts]).arrange(DOWN, buff=0.08)
        return fit_within(note, max_width=13.4)

    def _summary(self) -> VGroup | None:
        theme, cnn = self.theme, self.trace.cnn
        if not cnn.held_out:
            return None
        lead = caption("held-out attention accuracy:", theme, 22, theme.text)
        num = NumberLabel(cnn.held_out["attention_accuracy"], theme,
                          ("cnn.held_out.attention_accuracy",), font_size=24, colour=theme.highlight)
        why = caption("(share of object words whose top cell is on the object)", theme, 20, theme.muted)
        return VGroup(read_as_line(VGroup(lead, num).arrange(RIGHT, buff=0.15)), why).arrange(DOWN, buff=0.08)

    def _analogy(self) -> tuple[VGroup, VGroup]:
        """The draft's parallel: a set of features over a sentence, a grid over an image
        (the two halves, shown one after the other; short labels, few words to read)."""
        theme, enc, cnn = self.theme, self.trace.encoder, self.trace.cnn
        G = cnn.grid
        chips = VGroup(*[
            VectorColumn(h, theme, show_numbers=False, colour=theme.encoder, cell_width=0.28,
                         cell_height=0.9 / len(h))
            for h in enc.hidden[1:]
        ]).arrange(RIGHT, buff=0.1)
        fit_within(chips, max_width=3.6)
        left = VGroup(
            caption("Part 1: a sentence", theme, 28),
            caption("encoder RNN", theme, 24, theme.muted),
            chips,
            caption("one vector h\u2c7c per word", theme, 26, theme.encoder),
            caption("weights over words", theme, 24, theme.highlight),
        ).arrange(DOWN, buff=0.28)
        mini = self._feature_grid(1.6)
        right = VGroup(
            caption("Here: an image", theme, 28),
            caption("encoder CNN", theme, 24, theme.muted),
            mini,
            caption(f"one vector f\u1d62\u2c7c per cell ({G}\u00d7{G})", theme, 26, theme.encoder),
            caption("weights over cells", theme, 24, theme.highlight),
        ).arrange(DOWN, buff=0.28)
        row = VGroup(left, right).arrange(RIGHT, buff=1.0, aligned_edge=UP)
        divider = Line(UP * 1.6, DOWN * 1.6, stroke_color=theme.muted, stroke_width=2)
        divider.move_to(row).set_x((left.get_right()[0] + right.get_left()[0]) / 2)
        right.add(divider)
        group = VGroup(left, right)
        fit_within(group, max_width=9.0, max_height=5.4)
        group.move_to([2.4, MAIN_Y + 0.2, 0])
        return left, right


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
