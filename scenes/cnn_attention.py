"""``cnn_attention``: image captioning with attention over a CNN feature grid.

Draft 000, Part 2, "Abstraction 1: the input features": a CNN turns an
image into a grid of feature vectors; for every caption word the decoder
state scores every cell, a softmax over all cells gives a grid of attention
weights, and the context vector is the weighted average of the cells'
vectors. It is the sentence case with a grid instead of a sequence.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    GrowArrow,
    ManimColor,
    Indicate,
    Line,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    Write,
)

from .base import WalkthroughScene
from .components import (
    CellBox,
    NumberLabel,
    TokenStrip,
    ValueCell,
    VectorColumn,
    arrow_between,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    subscript,
)

__all__ = ["CnnAttentionScene"]

# Layout (frame is 14.2 x 8 units).
TITLE_Y = 3.55
CAPTION_Y = 2.75
MAIN_Y = -0.15
SIDE = 3.9  # image and feature grid are squares of this side
IMAGE_X = -4.6
GRID_X_CNN = 4.6  # where the feature grid appears, right of the CNN
GRID_X = -0.2  # where it sits while the decoder attends
CNN_X = 0.0
QUERY_X = 3.05
CONTEXT_X = 5.75
NOTE_Y = -2.4
PARALLEL_Y = -3.3
GUTTER = 0.05  # gap inside each feature cell's edge
MIN_STRIPE = 0.19  # a feature cell's row must be this tall to hold a number
MIN_WEIGHT_CELL = 0.76  # an image cell must be this wide to hold its weight (G <= 5)


class CnnAttentionScene(WalkthroughScene):
    scene_id = "cnn_attention"
    trace_sections = ("cnn", "encoder")
    description = ("Image captioning: a CNN turns an image into a grid of features; each caption "
                   "word attends over the grid (heat map) and gets a context vector.")

    def construct(self) -> None:
        theme, cnn = self.theme, self.trace.cnn
        G, D = cnn.grid, cnn.features.shape[2]
        T = len(cnn.tokens)

        title = caption("Image captioning: attention over a grid of CNN features", theme, 28)
        title.move_to([0, TITLE_Y, 0])
        image = self._image().move_to([IMAGE_X, MAIN_Y, 0])
        image_note = caption(
            f"the image (square crop, read at {cnn.input_size}\u00d7{cnn.input_size} pixels)",
            theme, 18, theme.muted)
        fit_within(image_note, max_width=SIDE).move_to([IMAGE_X, NOTE_Y, 0])
        self.play(fade_in(title), fade_in(image), fade_in(image_note))

        # -- the CNN: filters, ReLU, pooling to a G x G grid -----------------
        cnn_block = self._cnn_block().move_to([CNN_X, MAIN_Y, 0])
        grid_lines = self._grid_lines().move_to(image)
        features = self._feature_grid().move_to([GRID_X_CNN, MAIN_Y, 0])
        feat_note = caption(f"{G}\u00d7{G} feature vectors f\u1d62\u2c7c, {D} numbers each",
                            theme, 18, theme.encoder)
        fit_within(feat_note, max_width=SIDE).move_to([GRID_X_CNN, NOTE_Y, 0])
        a1 = arrow_between(image, cnn_block[0], theme.muted)
        a2 = arrow_between(cnn_block[0], features.frame, theme.muted)
        self.play(fade_in(cnn_block), GrowArrow(a1), run_time=0.9)
        self.play(Create(grid_lines), run_time=0.8)
        self.play(GrowArrow(a2), FadeIn(features, lag_ratio=0.05), fade_in(feat_note), run_time=1.4)
        self.wait(0.8)

        # -- the parallel with the sentence case -----------------------------
        parallel = self._parallel()
        self.play(fade_in(parallel, shift=UP * 0.2))
        self.wait(1.2)

        # -- make room for the decoder ---------------------------------------
        self.play(fade_out(cnn_block), fade_out(a1), fade_out(a2), fade_out(feat_note),
                  features.animate.move_to([GRID_X, MAIN_Y, 0]),
                  parallel.animate.set_opacity(0.35), run_time=1.0)
        feat_note.move_to([GRID_X, NOTE_Y, 0])
        seeded = caption("decoder weights are seeded, not trained", theme, 18, theme.muted)
        fit_within(seeded, max_width=4.3).move_to([(QUERY_X + CONTEXT_X) / 2, NOTE_Y, 0])
        cap_label = caption("caption:", theme, 22, theme.muted)
        words = TokenStrip(cnn.tokens, theme, colour=theme.decoder, font_size=24, max_width=10.5)
        # Lays the label and words out in one row (the group itself is not shown).
        VGroup(cap_label, words).arrange(RIGHT, buff=0.3).move_to([0, CAPTION_Y, 0])
        formulas = VGroup(
            math_label(r"e_{ij} = s_{t-1} \cdot f_{ij}", theme, 28),
            math_label(r"c_t = \sum_{i,j} a_{ij}\, f_{ij}", theme, 28),
        ).arrange(RIGHT, buff=0.5)
        fit_within(formulas, max_width=4.6).move_to([(QUERY_X + CONTEXT_X) / 2, 1.95, 0])
        self.play(fade_in(feat_note), fade_in(seeded), fade_in(cap_label), Write(formulas))

        query = context = heat = shade = heat_note = focus = None
        for t in range(T):
            new_query = self._column(cnn.states[t], f"cnn.states.{t}", f"s{subscript(t)}", theme.decoder)
            new_query.move_to([QUERY_X, MAIN_Y, 0])
            new_heat = self._heat_overlay(t).move_to(image)
            new_shade = self._shade(t).move_to(features)
            note = VGroup(
                caption(f"weights a\u1d62\u2c7c for \u201c{cnn.tokens[t]}\u201d", theme, 18,
                        theme.highlight),
                caption(f"softmax over {G * G} cells \u00b7 colour: least \u2192 most", theme, 16,
                        theme.muted),
            ).arrange(DOWN, buff=0.08)
            fit_within(note, max_width=SIDE).move_to([IMAGE_X, NOTE_Y - 0.05, 0])
            new_focus = SurroundingRectangle(words.boxes[t], color=theme.highlight, buff=0.06)

            out = [fade_out(m) for m in (context, heat, shade, heat_note, focus) if m is not None]
            if t == 0:
                out.append(fade_out(image_note))
            q_anim = (ReplacementTransform(query, new_query) if query is not None
                      else fade_in(new_query, shift=LEFT * 0.2))
            self.play(*out, q_anim, Create(new_focus), run_time=0.8)
            self.play(fade_in(new_heat), fade_in(new_shade), fade_in(note), run_time=1.0)

            new_context = self._column(cnn.contexts[t], f"cnn.contexts.{t}", f"c{subscript(t + 1)}",
                                       theme.value).move_to([CONTEXT_X, MAIN_Y, 0])
            # The grid's frame shrinks into c_t: one vector made of the whole grid.
            self.play(TransformFromCopy(features.frame, new_context.frame),
                      fade_in(new_context.cells, shift=RIGHT * 0.3), fade_in(new_context.label),
                      run_time=1.1)
            self.play(fade_in(words.boxes[t], shift=UP * 0.15),
                      Indicate(new_context.frame, color=theme.value, scale_factor=1.04), run_time=0.7)
            self.wait(0.4)
            query, context, heat, shade, heat_note, focus = (
                new_query, new_context, new_heat, new_shade, note, new_focus)
        self.play(fade_out(focus), run_time=0.4)
        self.wait(1.5)

    # -- builders ------------------------------------------------------------

    def _image(self) -> VGroup:
        """The image as the CNN reads it: one square per input pixel.

        Drawn as squares rather than an ImageMobject because manim 0.22's
        image rendering fails with Pillow 13 ("Invalid mode for data type").
        """
        rgb = np.round(np.asarray(self.trace.cnn.input_image) * 255).astype(int)
        n = rgb.shape[0]
        px = SIDE / n
        mosaic = VGroup()
        for i in range(n):
            j = 0
            while j < n:
                # One rectangle per run of equal pixels in a row: fewer
                # mobjects for flat regions, the same picture.
                k = j + 1
                while k < n and np.array_equal(rgb[i, k], rgb[i, j]):
                    k += 1
                colour = ManimColor.from_rgb(tuple(int(c) for c in rgb[i, j]))
                # A hair of overlap hides the anti-aliased seams between rows.
                mosaic.add(Rectangle(width=(k - j) * px + 0.01, height=px + 0.01, stroke_width=0,
                                     fill_color=colour, fill_opacity=1)
                           .move_to([((j + k - 1) / 2 - (n - 1) / 2) * px, -(i - (n - 1) / 2) * px, 0]))
                j = k
        return mosaic

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
        box = CellBox("CNN", theme, theme.encoder, width=3.0, height=0.9, font_size=28)
        # Names three to a line, so eight filters stay readable.
        names = [", ".join(cnn.filter_names[k:k + 3]) for k in range(0, D, 3)]
        lines = VGroup(
            caption(f"{D} filters 3\u00d73\u00d7RGB:", theme, 18),
            *[caption(n, theme, 16, theme.muted) for n in names],
            caption("then ReLU", theme, 18),
            caption(f"then max-pool to {cnn.grid}\u00d7{cnn.grid}", theme, 18),
        ).arrange(DOWN, buff=0.12)
        for line in lines:
            fit_within(line, max_width=3.2)
        return VGroup(box, lines.next_to(box, DOWN, buff=0.25))

    def _feature_grid(self) -> VGroup:
        """G x G cells, each its D-vector as stacked stripes (numbers when they fit)."""
        theme, feats = self.theme, self.trace.cnn.features
        G, D = feats.shape[0], feats.shape[2]
        cell = SIDE / G
        stripe = cell / D
        show = stripe >= MIN_STRIPE and cell >= 0.6
        font = 16 if stripe >= 0.24 else 14
        scale = max(float(np.max(np.abs(feats))), 1e-9)
        grid = VGroup()
        grid.cells = VGroup()
        for i in range(G):
            for j in range(G):
                # Each cell's stripes are inset, so the dark gutters show the grid.
                col = VGroup(*[
                    ValueCell(feats[i, j, d], theme, (f"cnn.features.{i}.{j}", d),
                              width=cell - 2 * GUTTER, height=stripe - 2 * GUTTER / D,
                              scale=scale, show_number=show, font_size=font)
                    for d in range(D)
                ]).arrange(DOWN, buff=0)
                for c in col:
                    c.box.set_stroke(width=0)
                col.move_to([(j - (G - 1) / 2) * cell, -(i - (G - 1) / 2) * cell, 0])
                grid.cells.add(col)
        lines = VGroup()
        for k in range(G + 1):
            off = -SIDE / 2 + k * cell
            lines.add(Line([off, -SIDE / 2, 0], [off, SIDE / 2, 0]),
                      Line([-SIDE / 2, off, 0], [SIDE / 2, off, 0]))
        lines.set_stroke(theme.muted, width=2)
        grid.frame = Rectangle(width=SIDE + 0.08, height=SIDE + 0.08, stroke_color=theme.encoder,
                               stroke_width=3)
        grid.add(grid.cells, lines, grid.frame)
        return grid

    def _relative(self, t: int) -> np.ndarray:
        # Colours run from the word's smallest weight to its largest (as an
        # auto-scaled heat map does), so a near-uniform grid still shows where
        # it leans; the numbers on the cells are the true weights.
        w = self.trace.cnn.weights[t]
        span = float(w.max() - w.min())
        return (w - w.min()) / span if span > 1e-12 else np.ones_like(w)

    def _heat_overlay(self, t: int) -> VGroup:
        """Word t's weights over the image: heat-coloured cells, numbers if they fit."""
        theme, w = self.theme, self.trace.cnn.weights[t]
        G = w.shape[0]
        cell = SIDE / G
        rel = self._relative(t)
        group = VGroup()
        for i in range(G):
            for j in range(G):
                pos = [(j - (G - 1) / 2) * cell, -(i - (G - 1) / 2) * cell, 0]
                group.add(Rectangle(width=cell, height=cell, stroke_width=1,
                                    stroke_color=theme.background, fill_color=theme.heat(rel[i, j]),
                                    fill_opacity=0.72 - 0.3 * rel[i, j]).move_to(pos))
                if cell >= MIN_WEIGHT_CELL:
                    num = NumberLabel(w[i, j], theme, (f"cnn.weights.{t}.{i}", j), font_size=16)
                    fit_within(num, max_width=cell * 0.8)
                    back = RoundedRectangle(corner_radius=0.05, width=num.width + 0.12,
                                            height=num.height + 0.1, stroke_width=0,
                                            fill_color=theme.background, fill_opacity=0.75)
                    group.add(VGroup(back, num).move_to(pos))
        return group

    def _shade(self, t: int) -> VGroup:
        """Dims each feature cell by how little weight it gets for word t."""
        G = self.trace.cnn.grid
        cell = SIDE / G
        rel = self._relative(t)
        group = VGroup()
        for i in range(G):
            for j in range(G):
                group.add(Rectangle(width=cell, height=cell, stroke_width=0,
                                    fill_color=self.theme.background,
                                    fill_opacity=0.7 * (1 - rel[i, j]))
                          .move_to([(j - (G - 1) / 2) * cell, -(i - (G - 1) / 2) * cell, 0]))
        return group

    def _column(self, values, key: str, label: str, colour) -> VectorColumn:
        """A vector with a plain-text name (Pango: no LaTeX run per word)."""
        D = len(values)
        col = VectorColumn(values, self.theme, key=key, colour=colour,
                           cell_height=0.40 if D <= 6 else 0.34)
        col.label = caption(label, self.theme, 28, colour).next_to(col.frame, UP, buff=0.12)
        col.add(col.label)
        return col

    def _parallel(self) -> VGroup:
        """A set of features over a sentence there, a grid over an image here."""
        theme, enc, cnn = self.theme, self.trace.encoder, self.trace.cnn
        chips = VGroup(*[
            VectorColumn(h, theme, show_numbers=False, colour=theme.encoder, cell_width=0.2,
                         cell_height=0.5 / len(h))
            for h in enc.hidden[1:]
        ]).arrange(RIGHT, buff=0.08)
        fit_within(chips, max_width=3.0)
        left = VGroup(caption("sentence \u2192 RNN \u2192 a set h\u2081 \u2026 h\u209c", theme, 18),
                      chips).arrange(RIGHT, buff=0.25)
        G = cnn.grid
        mini = VGroup(*[Rectangle(width=0.6 / G, height=0.6 / G, stroke_width=1.5,
                                  stroke_color=theme.encoder) for _ in range(G * G)])
        mini.arrange_in_grid(rows=G, cols=G, buff=0)
        right = VGroup(caption("image \u2192 CNN \u2192 a grid f\u1d62\u2c7c", theme, 18),
                       mini).arrange(RIGHT, buff=0.25)
        row = VGroup(left, right).arrange(RIGHT, buff=1.0)
        fit_within(row, max_width=13.4)
        return row.move_to([0, PARALLEL_Y, 0])



