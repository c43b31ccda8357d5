"""Moves of the ``attention_learning`` clip that other clips may want: a number that counts
from its old value to its new one where it stands (STYLE §4.3: a changing value changes in
place, never fades out and back)."""

from __future__ import annotations

from typing import Any, Callable

from manim import RIGHT, Animation, VGroup

from .components import NumberLabel

__all__ = ["CountTo", "count_to"]


class CountTo(Animation):
    """``old`` (a :class:`NumberLabel` on screen) counts to ``new`` (built, not on screen) in place.

    The animated mobject is a holder group that shows ``old`` at the start, plain glyphs of
    the passing values in between (not NumberLabels: no value of the trace is claimed for
    them) and ``new`` at the end; each is aligned on ``new``'s right edge, so the digits keep
    their columns. ``new`` is what stays on the scene.
    """

    def __init__(self, old: NumberLabel, new: NumberLabel, make: Callable[[float], NumberLabel],
                 **kw: Any) -> None:
        self.old, self.new, self.make = old, new, make
        self.anchor = new.get_right()
        self.holder = VGroup(old)
        super().__init__(self.holder, **kw)

    def _setup_scene(self, scene: Any) -> None:
        # ``old`` is on the scene by itself: from now on the holder shows it (and what follows).
        if scene is not None:
            scene.remove(self.old)
            for top in scene.mobjects:  # and out of any group it was shown in
                for m in top.get_family():
                    if self.old in m.submobjects:
                        m.remove(self.old)
            scene.add(self.holder)
        super()._setup_scene(scene)

    def begin(self) -> None:
        # No starting copy of the family is needed (nothing interpolates points).
        self.interpolate(0)

    def interpolate_mobject(self, alpha: float) -> None:
        a = self.rate_func(alpha)
        if a <= 0:
            shown = self.old
        elif a >= 1:
            shown = self.new
        else:
            value = self.old.value + (self.new.value - self.old.value) * a
            label = self.make(value)
            shown = VGroup(*label.submobjects)  # the glyphs only: a passing value, not a number of the trace
            shown.move_to(self.anchor, aligned_edge=RIGHT)
        self.holder.submobjects = [shown]

    def clean_up_from_scene(self, scene: Any) -> None:
        super().clean_up_from_scene(scene)
        scene.remove(self.holder, self.old)
        scene.add(self.new)


def count_to(old: NumberLabel, new: NumberLabel, make: Callable[[float], NumberLabel], **kw: Any) -> CountTo:
    """``old`` counts to ``new`` where it stands (see :class:`CountTo`); ``make(v)`` builds the
    label of a passing value ``v`` with ``new``'s style."""
    return CountTo(old, new, make, **kw)
