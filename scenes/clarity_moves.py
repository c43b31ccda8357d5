"""Moves for clear matrix clips (STYLE.md §4, issue 31): digits dimmed once read, transposes in order.

Used by ``dot_product_attention``, ``multi_query_attention`` and ``worked_example``:

- :func:`quiet` / :func:`voice`: a cell's digits go to :data:`QUIET` opacity in place (the cell keeps
  its tint and its name: a heat chip) once the beat that computes with them is over, and come back
  to full opacity in the beat that reads them again. Nothing leaves the stage (the digits stay, dim),
  so a reader sees one matrix change its emphasis, not a matrix cleared and rebuilt.
- :func:`turn_columns`: the transpose as a move in order: column ``k`` lifts, turns a quarter turn
  and lands as row ``k``, one column after another (``lag_ratio`` >= 0.3, STYLE.md §4.6).
- :func:`end_on_poster`: the last picture held between 4 and 8 s, the last caption read.

Every builder returns an animation; nothing is played here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import Animation, Mobject, VGroup
from manim.utils.rate_functions import smooth

from .base import FINAL_HOLD, FINAL_HOLD_MAX
from .components import NumberLabel, fade_in, fade_out
from .motion import MovesGroup, cell_boxes, digits_of, record_move, shapes_of, window

__all__ = ["QUIET", "LABEL_DIM", "quiet", "voice", "set_quiet", "dim_labels", "shapes_of_legend",
           "turn_columns", "end_on_poster", "wait_for_reader", "DigitsTo"]

#: The opacity of digits already read: under the audit's legibility threshold (0.5), so a chip,
#: yet visible enough that the matrix is still seen to hold numbers.
QUIET = 0.18
#: The opacity of secondary labels once their beat is over (a matrix's shape "1×4" after the
#: step that introduced it): still there to be found, no longer competing with the beat's numbers.
LABEL_DIM = 0.38


def _glyphs(mob: Mobject, texts: bool = False) -> list[Mobject]:
    """Every part of every number in ``mob`` that has an opacity (the texts and their glyphs);
    with ``texts``, of every text and formula in it."""
    from manim import MathTex, Tex, Text

    kinds = (Text, MathTex, Tex) if texts else (NumberLabel,)
    return [g for label in mob.get_family() if isinstance(label, kinds)
            for g in label.get_family() if len(getattr(g, "fill_rgbas", ()))]


def set_quiet(mob: Mobject, opacity: float = QUIET, texts: bool = False) -> Mobject:
    """Set the digits of ``mob`` (with ``texts``, every text) to ``opacity`` now (for a matrix
    or a label not on screen yet)."""
    for g in _glyphs(mob, texts):
        g.fill_rgbas[:, 3] = opacity
        g.stroke_rgbas[:, 3] = np.minimum(g.stroke_rgbas[:, 3], opacity)
    return mob


class DigitsTo(Animation):
    """The digits inside ``mobject`` go from their opacity to ``to``, in place.

    It neither adds nor removes anything (the cells are on screen already, as parts
    of their matrix): its group is only a handle on them.
    """

    def __init__(self, mobject: Mobject, to: float, texts: bool = False, **kw: Any) -> None:
        self.to, self.texts = float(to), texts
        super().__init__(mobject, introducer=True, **kw)

    def _setup_scene(self, scene: Any) -> None:
        return  # the parts are on screen as parts of their matrices

    def create_starting_mobject(self) -> Mobject:
        return Mobject()  # unused: interpolation reads the saved opacities

    def begin(self) -> None:
        # The stroke too (a text's glyphs have an invisible stroke at opacity 1, which the
        # audit reads as visible): both end at ``to``.
        self.saved = [(g, g.fill_rgbas[:, 3].copy(), g.stroke_rgbas[:, 3].copy())
                      for g in _glyphs(self.mobject, self.texts) if len(getattr(g, "stroke_rgbas", ()))]
        super().begin()

    def interpolate_mobject(self, alpha: float) -> None:
        a = self.rate_func(alpha)
        for g, fill, stroke in self.saved:
            g.fill_rgbas[:, 3] = fill + (self.to - fill) * a
            g.stroke_rgbas[:, 3] = stroke + (self.to - stroke) * a

    def clean_up_from_scene(self, scene: Any) -> None:
        self.interpolate_mobject(1.0)
        super().clean_up_from_scene(scene)


def quiet(*mobs: Mobject, **kw: Any) -> DigitsTo:
    """The digits of ``mobs`` dim to :data:`QUIET`: read once, now chips."""
    return DigitsTo(VGroup(*mobs), QUIET, **kw)


def voice(*mobs: Mobject, **kw: Any) -> DigitsTo:
    """The digits of ``mobs`` come back to full opacity: this beat computes with them."""
    return DigitsTo(VGroup(*mobs), 1.0, **kw)


def dim_labels(*mobs: Mobject, to: float = LABEL_DIM, **kw: Any) -> DigitsTo:
    """Every text in ``mobs`` (labels, shapes, a heat key's ends) dims to ``to``: its beat is over."""
    return DigitsTo(VGroup(*mobs), to, texts=True, **kw)


def shapes_of_legend(row: Mobject) -> VGroup:
    """The shapes ("1×4: raw scores") of a names row (``legend_row``), not the names: what
    :func:`dim_labels` dims once the shapes have been read; and the heat key's ends."""
    out = VGroup()
    for item in row:
        parts = list(item.submobjects)
        out.add(*parts[1:])  # (name, shape) pairs; the heat key: its words, ends and strip
    return out


def wait_for_reader(scene: Any, pacer: Any, extra: float = 0.0) -> None:
    """Wait until the current caption has been up its reading time (less ``extra`` s),
    so the next beat starts with it read (e.g. inside a close-up before it collapses)."""
    from manim import config

    if pacer.current is None:
        return
    due = pacer.since + pacer.needed(pacer.current.text) - scene.time - extra
    if due > 0.01:
        scene.wait(due + 1.0 / config.frame_rate)


class _Turn(Animation):
    """Copies of a column's boxes lift, turn a quarter turn (anticlockwise: the top entry
    ends on the left) while travelling to the row, and settle on the row's boxes."""

    def __init__(self, boxes: VGroup, goal: VGroup, lift: float = 0.25, **kw: Any) -> None:
        self.goal_points = []
        for m in goal.family_members_with_points():
            pts = m.points.copy()
            # A rectangle turned a quarter turn starts its outline one side later.
            self.goal_points.append(np.roll(pts, -4, axis=0) if len(pts) == 16 else pts)
        self.lift = lift
        self.c0, self.c1 = boxes.get_center(), goal.get_center()
        super().__init__(boxes, remover=True, introducer=True, **kw)

    def begin(self) -> None:
        self.starts = [m.points.copy() for m in self.mobject.family_members_with_points()]
        super().begin()

    def interpolate_mobject(self, alpha: float) -> None:
        t = self.rate_func(alpha)
        turn = smooth(min(1.0, max(0.0, (t - 0.1) / 0.65)))
        settle = smooth(min(1.0, max(0.0, (t - 0.7) / 0.3)))
        angle = turn * math.pi / 2
        rot = np.array([[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0],
                        [0, 0, 1]])
        centre = self.c0 + (self.c1 - self.c0) * turn + np.array([0, self.lift * math.sin(math.pi * t), 0])
        for m, start, end in zip(self.mobject.family_members_with_points(), self.starts, self.goal_points):
            turned = (start - self.c0) @ rot.T + centre
            m.points = turned * (1 - settle) + end * settle if len(end) == len(turned) else turned


def turn_columns(columns: Sequence[Mobject], rows: Sequence[Mobject], lag_ratio: float = 0.6,
                 what: str = "transpose", **kw: Any) -> MovesGroup:
    """The transpose in order: column ``k`` becomes row ``k``, one after another.

    The columns' digits fade out first; then each column's boxes (copies) lift, turn a
    quarter turn and land on the row's cells, a new column starting ``lag_ratio`` of a
    flight after the last (>= 0.3: one at a time, never all twelve boxes at once); the
    column's own shapes fade as its copy leaves, the row's as it lands; the rows' digits
    come last, at the opacity they were given (:func:`set_quiet` for chips). The caller
    removes the source matrix after the play.
    """
    if len(columns) != len(rows):
        raise ValueError(f"turn_columns: {len(columns)} columns for {len(rows)} rows")
    if lag_ratio < 0.3:
        raise ValueError(f"turn_columns: lag_ratio {lag_ratio} < 0.3 is a jumble, not an order")
    n = len(columns)
    anims: list[Animation] = [fade_out(digits_of(VGroup(*columns)), rate_func=window(0.0, 0.1)),
                              fade_in(digits_of(VGroup(*rows)), rate_func=window(0.9, 1.0))]
    span = 0.8 / (1 + lag_ratio * (n - 1)) if n else 0.8
    for k, (col, row) in enumerate(zip(columns, rows)):
        a = 0.1 + k * lag_ratio * span
        b = a + span
        boxes = VGroup(*(m.copy() for m in cell_boxes(col)))
        goal = VGroup(*(m.copy() for m in cell_boxes(row)))
        anims += [_Turn(boxes, goal, rate_func=window(a, b)),
                  fade_out(shapes_of(col), rate_func=window(a, a + 0.3 * span)),
                  fade_in(shapes_of(row), rate_func=window(a + 0.7 * span, b))]
    group = MovesGroup(*anims, **kw)
    for k in range(n):
        record_move(group, what, ("column", k), ("row", k))
    return group


def end_on_poster(scene: Any, pacer: Any, least: float = FINAL_HOLD, most: float = FINAL_HOLD_MAX - 0.5) -> None:
    """Hold the last picture: long enough to read the last caption and at least ``least`` s,
    never more than ``most`` s (a caption that needs longer was swapped in too late: an error)."""
    from manim import config

    due = 0.0
    if pacer.current is not None:
        due = pacer.since + pacer.needed(pacer.current.text) - scene.time
    hold = max(least, due + 1.0 / config.frame_rate)
    if hold > most + 1e-6:
        raise ValueError(f"end_on_poster: the last caption needs {due:.1f} s more, over {most:g} s")
    scene.wait(hold)
    if hasattr(scene, "close_step"):
        scene.close_step()
    if pacer.log:
        pacer.log[-1] = (pacer.log[-1][0], pacer.log[-1][1], scene.time)
