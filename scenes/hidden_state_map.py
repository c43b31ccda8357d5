"""``hidden_state_map``: sentences as points, their final encoder states by PCA.

Draft 000, "3. Hidden state", borrows figure 2 of Sutskever et al. (2014):
the final states of an encoder for many sentences, drawn in 2-D by PCA,
where sentences of similar meaning cluster. Here the sentences of
``[hidden_state_map]`` are read by the same encoder, with the same
embeddings, as in the ``encoder`` scene; the core projects their ``h_T`` on
the first two principal components. The encoder is seeded, not trained, and
the caption says so: the picture shows the method, not learnt meaning.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    Mobject,
    VGroup,
)

from .base import WalkthroughScene
from .components import NumberLabel, ValueMatrix, caption, fit_within, math_label

__all__ = ["HiddenStateMapScene", "shorten", "place_labels"]

TITLE_Y = 3.55
CAPTION_Y = -3.62
# The plot's frame; points are mapped inside it with a margin for labels.
PLOT_LEFT, PLOT_RIGHT = -6.0, 6.8
PLOT_BOTTOM, PLOT_TOP = -3.05, 3.05
LABEL_SIZE = 16
# Labels are cut to the first of these lengths at which they all fit.
LABEL_CHARS = (40, 30, 24, 18, 14)
MAX_LABEL_CHARS = LABEL_CHARS[-1]
DOT_R = 0.08

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def shorten(text: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """``text`` cut at a word boundary with an ellipsis if it is too long."""
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    if " " in cut[max_chars // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.") + "\u2026"


def _overlaps(a: Box, b: Box, pad: float = 0.04) -> bool:
    return (min(a[2], b[2]) - max(a[0], b[0]) > -pad) and (min(a[3], b[3]) - max(a[1], b[1]) > -pad)


def _overlap_area(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def place_labels(points: np.ndarray, sizes: Sequence[tuple[float, float]], bounds: Box,
                 radii: Sequence[float] = (0.14, 0.4, 0.75, 1.1, 1.5),
                 ) -> tuple[list[tuple[np.ndarray, bool]], bool]:
    """Greedy, collision-avoiding placement of one label per point.

    Each label tries positions around its point (right, left, above, below,
    then the diagonals) at growing distances, and takes the first whose box
    stays inside ``bounds`` and touches neither an already placed label nor
    any point. Failing all, it takes the candidate with the least overlap.

    Returns
    -------
    placements, clean
        For each label its centre and whether it sits far enough from its
        point to need a leader line; ``clean`` is False if some label could
        not be placed without touching another or leaving ``bounds``.
    """
    clean = True
    pts = np.asarray(points, dtype=float)
    dots: list[Box] = [(x - DOT_R, y - DOT_R, x + DOT_R, y + DOT_R) for x, y in pts[:, :2]]
    placed: list[Box] = []
    out: list[tuple[np.ndarray, bool]] = []
    directions = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
    for idx, ((px, py), (w, h)) in enumerate(zip(pts[:, :2], sizes)):
        best: tuple[float, np.ndarray, bool] | None = None
        chosen = None
        for r_i, r in enumerate(radii):
            for dx, dy in directions:
                cx = px + dx * (r + w / 2)
                cy = py + dy * (r + h / 2)
                box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
                inside = (box[0] >= bounds[0] and box[2] <= bounds[2]
                          and box[1] >= bounds[1] and box[3] <= bounds[3])
                others = [d for j, d in enumerate(dots) if j != idx]
                clash = sum(_overlap_area(box, b) for b in placed + others)
                hits = any(_overlaps(box, b) for b in placed) or any(_overlaps(box, b, 0.02) for b in others)
                if inside and not hits:
                    chosen = (np.array([cx, cy, 0.0]), r_i > 0, box)
                    break
                penalty = clash + (0 if inside else 100) + 0.01 * r
                if best is None or penalty < best[0]:
                    best = (penalty, np.array([cx, cy, 0.0]), r_i > 0)
                    best_box = box
            if chosen is not None:
                break
        if chosen is None:
            assert best is not None
            chosen = (best[1], best[2], best_box)
            clean = False
        placed.append(chosen[2])
        out.append((chosen[0], chosen[1]))
    return out, clean


class HiddenStateMapScene(WalkthroughScene):
    scene_id = "hidden_state_map"
    trace_sections = ("hidden_state_map",)
    description = ("Final encoder states h_T of several sentences, projected to 2-D by PCA "
                   "(after Sutskever et al. 2014); the encoder is seeded, not trained.")

    def construct(self) -> None:
        theme, hm = self.theme, self.trace.hidden_state_map
        N, H = hm.states.shape

        title = caption("Sentences as points: each one's last encoder state, drawn by PCA",
                        theme, 28)
        fit_within(title, max_width=13.4)
        title.move_to([0, TITLE_Y, 0])
        self.play(FadeIn(title))

        # -- the states: one row h_T per sentence -----------------------------------
        rows = [shorten(s, 24) for s in hm.sentences]
        matrix = ValueMatrix(hm.states, theme, key="hidden_state_map.states", row_labels=rows,
                             colour=theme.encoder, max_rows=8, label_size=18)
        fit_within(matrix, max_width=13.0, max_height=5.2)
        matrix.move_to([0, 0.0, 0])
        heading = VGroup(math_label("h_T", theme, 30, theme.encoder),
                         caption("of each sentence, one row each", theme, 20, theme.muted)
                         ).arrange(RIGHT, buff=0.15).next_to(matrix.frame, UP, buff=0.2)
        matrix.add(heading)
        note = caption("each sentence read by the same encoder: its last state h_T is one row",
                       theme, 20, theme.muted)
        fit_within(note, max_width=13.4)
        note.move_to([0, CAPTION_Y, 0])
        self.play(FadeIn(matrix), FadeIn(note))
        self.wait(0.8)
        pca_note = caption(f"PCA: centre the {N} rows, keep the 2 directions of largest variance, "
                           "project", theme, 20, theme.muted)
        fit_within(pca_note, max_width=13.4)
        pca_note.move_to(note)
        self.play(FadeOut(note), run_time=0.3)
        self.play(FadeIn(pca_note), run_time=0.5)
        self.wait(0.5)

        # -- the map --------------------------------------------------------------------
        axes = self._axes()
        self.play(FadeOut(matrix), FadeIn(axes))
        points = self._point_positions()
        labels, placements = self._labels(points)
        for i in range(N):
            dot = Dot(points[i], radius=DOT_R, color=theme.encoder)
            centre, leader = placements[i]
            labels[i].move_to(centre)
            group = VGroup(dot, labels[i])
            if leader:
                end = self._nearest_edge_point(labels[i], points[i])
                group.add(Line(points[i], end, color=theme.muted, stroke_width=1.5))
            self.play(FadeIn(group), run_time=0.35)

        honest = caption("The encoder here is seeded, not trained: these positions do not group "
                         "sentences by meaning yet.", theme, 20, theme.highlight)
        fit_within(honest, max_width=13.4)
        honest.move_to([0, CAPTION_Y, 0])
        self.play(FadeOut(pca_note), run_time=0.3)
        self.play(FadeIn(honest))
        self.wait(1.5)

    # -- builders --------------------------------------------------------------

    def _labels(self, points: np.ndarray) -> tuple[list[Mobject], list[tuple[np.ndarray, bool]]]:
        """Sentence labels, cut shorter only as far as needed for all to fit."""
        bounds = (PLOT_LEFT + 0.1, PLOT_BOTTOM + 0.1, PLOT_RIGHT - 0.1, PLOT_TOP - 0.1)
        for chars in LABEL_CHARS:
            labels = [caption(shorten(s, chars), self.theme, LABEL_SIZE)
                      for s in self.trace.hidden_state_map.sentences]
            placements, clean = place_labels(points, [(lab.width, lab.height) for lab in labels],
                                             bounds)
            if clean:
                break
        return labels, placements

    def _point_positions(self) -> np.ndarray:
        """PC coordinates mapped into the plot, one scale for both axes."""
        proj = self.trace.hidden_state_map.projected
        margin_x, margin_y = 1.3, 0.5
        lo = proj.min(axis=0)
        hi = proj.max(axis=0)
        span = np.maximum(hi - lo, 1e-9)
        width = PLOT_RIGHT - PLOT_LEFT - 2 * margin_x
        height = PLOT_TOP - PLOT_BOTTOM - 2 * margin_y
        k = min(width / span[0], height / span[1])
        centre_data = (lo + hi) / 2
        centre_plot = np.array([(PLOT_LEFT + PLOT_RIGHT) / 2, (PLOT_BOTTOM + PLOT_TOP) / 2])
        xy = (proj - centre_data) * k + centre_plot
        return np.column_stack([xy, np.zeros(len(xy))])

    def _axes(self) -> VGroup:
        theme, hm = self.theme, self.trace.hidden_state_map
        x_axis = Line([PLOT_LEFT, PLOT_BOTTOM, 0], [PLOT_RIGHT, PLOT_BOTTOM, 0], color=theme.panel,
                      stroke_width=2)
        y_axis = Line([PLOT_LEFT, PLOT_BOTTOM, 0], [PLOT_LEFT, PLOT_TOP, 0], color=theme.panel,
                      stroke_width=2)
        pc1 = self._axis_label(1, hm.explained_variance_percent[0])
        pc1.next_to(x_axis, DOWN, buff=0.1).align_to(x_axis, RIGHT)
        pc2 = self._axis_label(2, hm.explained_variance_percent[1]).rotate(PI / 2)
        pc2.next_to(y_axis, LEFT, buff=0.1).align_to(y_axis, UP)
        return VGroup(x_axis, y_axis, pc1, pc2)

    def _axis_label(self, k: int, value: float) -> VGroup:
        theme = self.theme
        return VGroup(
            caption(f"PC{k} (", theme, 16, theme.muted),
            NumberLabel(value, theme, ("hidden_state_map.explained_variance_percent", k - 1),
                        font_size=16, colour=theme.muted),
            caption("% of variance)", theme, 16, theme.muted),
        ).arrange(RIGHT, buff=0.05)

    @staticmethod
    def _nearest_edge_point(label: Mobject, point: np.ndarray) -> np.ndarray:
        x = min(max(point[0], label.get_left()[0]), label.get_right()[0])
        y = min(max(point[1], label.get_bottom()[1]), label.get_top()[1])
        return np.array([x, y, 0.0])
