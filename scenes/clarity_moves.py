"""Moves for clear matrix clips (STYLE.md §4, issue 31): digits dimmed once read, the poster held.

Used by ``dot_product_attention``, ``multi_query_attention`` and ``worked_example``:

- :func:`quiet` / :func:`voice`: a cell's digits go to :data:`QUIET` opacity in place (the cell keeps
  its tint and its name: a heat chip) once the beat that computes with them is over, and come back
  to full opacity in the beat that reads them again. Nothing leaves the stage (the digits stay, dim),
  so a reader sees one matrix change its emphasis, not a matrix cleared and rebuilt.
- :func:`end_on_poster`: the last picture held between 4 and 8 s, the last caption read.

Every builder returns an animation; nothing is played here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import Animation, Mobject, VGroup

from .base import FINAL_HOLD, FINAL_HOLD_MAX
from .components import NumberLabel

__all__ = ["QUIET", "LABEL_DIM", "quiet", "voice", "set_quiet", "dim_labels", "shapes_of_legend",
           "end_on_poster", "DigitsTo"]

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


def end_on_poster(scene: Any, pacer: Any, least: float = FINAL_HOLD, most: float = FINAL_HOLD_MAX - 0.5) -> None:
    """Hold the last picture: long enough to read the last caption and at least ``least`` s,
    never more than ``most`` s (a caption that needs longer was swapped in too late: an error)."""
    from manim import config

    due = pacer.reading_due()
    hold = max(least, due + 1.0 / config.frame_rate)
    if hold > most + 1e-6:
        raise ValueError(f"end_on_poster: the last caption needs {due:.1f} s more, over {most:g} s")
    scene.wait(hold)
    if hasattr(scene, "close_step"):
        scene.close_step()
    if pacer.log:
        pacer.log[-1] = (pacer.log[-1][0], pacer.log[-1][1], scene.time)
