"""Cheaper frames from Manim's Cairo camera, drawing exactly the same pixels.

A profile of ``attention_process`` at low quality (``render_scene``, 973
frames, ~205 vectorised mobjects redrawn per frame) put half of the time in
``Camera.capture_mobjects``, and two thirds of that in
``Camera.set_cairo_context_path``: for every mobject in every frame it
splits the points into subpaths (a dozen small numpy operations, ~35 % of
the drawing) and then walks them in Python, emitting ``move_to``,
``curve_to`` and ``close_path`` on the Cairo context. Most mobjects drawn in
a frame have the same points as in the frame before (Manim redraws every
mobject that comes after the first moving one, for the stacking order).

:func:`install` wraps ``set_cairo_context_path``: the sequence of Cairo
calls it makes for given points is recorded once, keyed by the points'
bytes (and everything else it reads: the mobject's class, its points per
curve and point-equality tolerance, the camera's class), and replayed for
later mobjects with the same points. The replay makes the same calls with
the same float arguments in the same order, so Cairo draws the same pixels
(the tests compare frames rendered with and without it). Mobjects whose
points change every frame (a ``Transform`` in progress) miss the cache and
cost one extra ``tobytes`` each.

``ATTENTION_FAST_RENDER=0`` turns it off (for before/after comparisons).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["install", "uninstall", "clear", "stats", "ENV"]

ENV = "ATTENTION_FAST_RENDER"
MAX_ENTRIES = 8192  # ~a few kB each (the key holds the points' bytes)

_original: Any = None
_paths: dict[tuple, tuple] = {}
_hits = 0
_misses = 0

# Cairo context calls set_cairo_context_path makes, by index in a recording.
_OPS = ("new_path", "new_sub_path", "move_to", "curve_to", "close_path")


class _Recorder:
    """Stands in for a ``cairo.Context``: notes each path call."""

    __slots__ = ("ops",)

    def __init__(self) -> None:
        self.ops: list[tuple[int, tuple]] = []

    def new_path(self) -> None:
        self.ops.append((0, ()))

    def new_sub_path(self) -> None:
        self.ops.append((1, ()))

    def move_to(self, x: float, y: float) -> None:
        self.ops.append((2, (x, y)))

    def curve_to(self, *xy: float) -> None:
        self.ops.append((3, xy))

    def close_path(self) -> None:
        self.ops.append((4, ()))


def _cached_path(camera: Any, ctx: Any, vmobject: Any) -> Any:
    global _hits, _misses
    points = vmobject.points
    key = (points.tobytes(), points.shape, points.dtype.str, type(vmobject), type(camera),
           vmobject.n_points_per_cubic_curve, vmobject.tolerance_for_point_equality)
    ops = _paths.get(key)
    if ops is None:
        _misses += 1
        recorder = _Recorder()
        _original(camera, recorder, vmobject)
        ops = tuple(recorder.ops)
        if len(_paths) >= MAX_ENTRIES:
            _paths.pop(next(iter(_paths)))  # the least recently used
        _paths[key] = ops
    else:
        _hits += 1
        _paths[key] = _paths.pop(key)  # recently used: evicted last
    calls = (ctx.new_path, ctx.new_sub_path, ctx.move_to, ctx.curve_to, ctx.close_path)
    for op, args in ops:
        calls[op](*args)
    return camera


def install() -> None:
    """Replay recorded paths from now on (idempotent; off when ``ATTENTION_FAST_RENDER=0``)."""
    global _original
    if _original is not None or os.environ.get(ENV, "1") == "0":
        return
    from manim.camera.camera import Camera

    _original = Camera.set_cairo_context_path
    Camera.set_cairo_context_path = _cached_path  # type: ignore[method-assign]


def uninstall() -> None:
    global _original
    from manim.camera.camera import Camera

    if _original is not None:
        Camera.set_cairo_context_path = _original  # type: ignore[method-assign]
        _original = None
    clear()


def clear() -> None:
    global _hits, _misses
    _paths.clear()
    _hits = _misses = 0


def stats() -> dict[str, int]:
    """Paths recorded (misses) and replayed (hits) since the last :func:`clear`."""
    return {"recorded": _misses, "replayed": _hits, "entries": len(_paths)}
