"""Three of Manim's mobject methods computed faster, with the same results.

- ``VMobject.get_points_defining_boundary`` (behind every ``get_center``,
  ``next_to``, ``get_corner``: ``get_critical_point``) builds the anchors of
  every family member as a Python list of rows (``zip`` of start and end
  anchors) and then an array from a tuple of all those rows. Here each
  member's anchors are interleaved with numpy slicing and the members'
  arrays are joined once: the same array, row for row (a member whose class
  has its own ``get_anchors`` is asked for it, and a member whose start and
  end anchors differ in number goes to Manim's code, which raises).
- ``Mobject.update`` recurses into every submobject of every mobject in the
  scene, every frame, to run updaters that almost none of them have (in
  ``attention_process`` ~3 million calls for the glyphs alone). Here a
  submobject that has no updaters and no submobjects of its own, and whose
  class does not override ``update``, is passed over: Manim's call would do
  nothing for it.

- ``Mobject.length_over_dim`` (``height``, ``width``, and through them
  ``Text.font_size``) asks ``reduce_across_dimension`` for the largest and
  the smallest coordinate, which recurses through every submobject and
  reduces each one's column with Python's ``max`` and ``min``, number by
  number (in a headless build of ``attention_process`` the audit's text
  sizes spent 12 % of the time there). Here the family's columns are joined
  and reduced by numpy once: the same two numbers (a maximum and a minimum
  are exact), so the same length; a column holding NaN, whose maximum
  Python's ``max`` takes by order, and a class with its own reduction go to
  Manim's code.

``ATTENTION_FAST_MOBJECT=0`` turns all three off. ``tests/test_fast_mobject.py``
compares them with Manim's on texts, formulas, groups, lone points and
empty shapes, and the order in which updaters run.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

import numpy as np

__all__ = ["install", "uninstall", "installed", "ENV", "get_points_defining_boundary", "update", "length_over_dim"]

ENV = "ATTENTION_FAST_MOBJECT"

_originals: dict[str, Any] = {}


def get_points_defining_boundary(self: Any) -> Any:
    """Manim's ``VMobject.get_points_defining_boundary``: every family member's
    anchors (start, end, start, end, ...), one array."""
    plain = _originals["get_anchors"]
    parts = []
    for sm in self.get_family():
        if type(sm).get_anchors is not plain:
            parts.append(np.asarray(tuple(sm.get_anchors())).reshape(-1, 3))
            continue
        points = sm.points
        if points.shape[0] == 1:
            parts.append(points)
            continue
        n = sm.n_points_per_cubic_curve
        starts, ends = points[::n], points[n - 1::n]
        if len(starts) != len(ends):
            return _originals["get_points_defining_boundary"](self)  # Manim's zip(strict=True) raises
        anchors = np.empty((2 * len(starts), points.shape[1]), dtype=points.dtype)
        anchors[0::2], anchors[1::2] = starts, ends
        parts.append(anchors)
    parts = [p for p in parts if len(p)]
    if not parts:
        return np.array(())  # what np.array(tuple()) gives
    return parts[0].copy() if len(parts) == 1 else np.concatenate(parts)


def update(self: Any, dt: float = 0, recursive: bool = True) -> Any:
    """Manim's ``Mobject.update``, passing over submobjects it would do nothing for."""
    if self.updating_suspended:
        return self
    for updater in self.updaters:
        if "dt" in inspect.signature(updater).parameters:
            updater(self, dt)
        else:
            updater(self)
    if recursive:
        for submob in self.submobjects:
            if not submob.submobjects and not submob.updaters and type(submob).update is update:
                continue
            submob.update(dt, recursive=recursive)
    return self


def length_over_dim(self: Any, dim: int) -> Any:
    """Manim's ``Mobject.length_over_dim``: the family's largest coordinate along ``dim``
    less its smallest (0 when no member has points)."""
    if type(self).reduce_across_dimension is not _originals["reduce_across_dimension"] or dim not in (0, 1, 2):
        return _originals["length_over_dim"](self, dim)
    columns = [m.points[:, dim] for m in self.get_family() if len(m.points)]
    if not columns:
        return 0
    values = columns[0] if len(columns) == 1 else np.concatenate(columns)
    high, low = values.max(), values.min()
    if high != high or low != low:  # NaN: Python's max and min answer by the order of the numbers
        return _originals["length_over_dim"](self, dim)
    return high - low


def install() -> None:
    """Idempotent; off when ``ATTENTION_FAST_MOBJECT=0``."""
    if _originals or os.environ.get(ENV, "1") == "0":
        return
    from manim.mobject.mobject import Mobject
    from manim.mobject.types.vectorized_mobject import VMobject

    _originals["get_anchors"] = VMobject.get_anchors
    _originals["get_points_defining_boundary"] = VMobject.get_points_defining_boundary
    _originals["update"] = Mobject.update
    _originals["length_over_dim"] = Mobject.length_over_dim
    _originals["reduce_across_dimension"] = Mobject.reduce_across_dimension
    VMobject.get_points_defining_boundary = get_points_defining_boundary  # type: ignore[method-assign]
    Mobject.update = update  # type: ignore[method-assign]
    Mobject.length_over_dim = length_over_dim  # type: ignore[method-assign]


def installed() -> bool:
    return bool(_originals)


def uninstall() -> None:
    if not _originals:
        return
    from manim.mobject.mobject import Mobject
    from manim.mobject.types.vectorized_mobject import VMobject

    VMobject.get_points_defining_boundary = _originals["get_points_defining_boundary"]  # type: ignore[method-assign]
    Mobject.update = _originals["update"]  # type: ignore[method-assign]
    Mobject.length_over_dim = _originals["length_over_dim"]  # type: ignore[method-assign]
    _originals.clear()
