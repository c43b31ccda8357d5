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

:func:`install` wraps ``set_cairo_context_path``: the path it builds for
given points is taken from the Cairo context once (``copy_path``), keyed by
the points' bytes, everything else it reads (the mobject's class, its points
per curve and point-equality tolerance, the camera's class) and the
context's matrix, and later mobjects with the same points get it back in
one call (``append_path``) instead of a Python loop of ``move_to``,
``curve_to`` and ``close_path`` calls. Cairo holds a path in device space
on a grid of 1/256 pixel, and the copy is that path: appended under the same
matrix it lands on the same grid points, so Cairo fills the same pixels (the
tests compare frames rendered with and without it, at two qualities in one
process). Mobjects whose points change every frame (a ``Transform`` in
progress) miss the cache and cost one extra ``tobytes`` and ``copy_path``
each.

**Backdrops.** Manim draws the shapes in front of the first moving one
again in every frame, for the stacking order: in ``encoder`` 150 shapes
a frame, of which 63 move. :func:`install` also wraps the Cairo
renderer's frame: a shape that no animation of this ``play`` touches is
drawn once into the animation's backdrop (Manim's static image plus those
shapes), and only the moving ones are drawn over it each frame, in their
order. That is the same picture as long as no still shape drawn into the
backdrop covers a pixel of a moving shape drawn before it in the stacking
order: so each frame, every still shape whose box (grown by its stroke's
reach and 2 pixels) meets the box of a moving shape before it is drawn
over the backdrop too, in its place in the order, and the backdrop
without them is kept for the frames that need it (a few per animation at
most; then Manim's own way). Nothing changes for scenes with updaters,
for other cameras or for mobjects that are not ``VMobject``s. The shapes
taken as still are compared with their state at the start before each
frame (~3 us each): one that an animation changed anyway (Manim itself
would draw such a shape wrongly if it were behind the first moving one)
is drawn as a moving one from that frame on.

``ATTENTION_FAST_RENDER=0`` turns both off (for before/after comparisons);
``ATTENTION_BACKDROPS=0`` only the backdrops.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["install", "uninstall", "clear", "stats", "ENV", "BACKDROPS_ENV"]

ENV = "ATTENTION_FAST_RENDER"
BACKDROPS_ENV = "ATTENTION_BACKDROPS"
MAX_ENTRIES = 8192  # ~a few kB each (the key holds the points' bytes)

_original: Any = None
_originals: dict[str, Any] = {}  # the backdrop patches: name -> the method it replaced
_paths: dict[tuple, tuple] = {}
#: Cameras whose path for given points depends only on the points and the context's matrix
#: (both in the key): Manim's Camera and MovingCamera (set at install: their classes).
_KNOWN_CAMERAS: tuple[type, ...] = ()
_hits = 0
_misses = 0
_frames = {"backdrop": 0, "manim": 0, "shapes_lifted": 0, "backdrops_drawn": 0, "changed": 0,
           "static_grown": 0, "static_drawn": 0}
MAX_BACKDROPS = 4  # per animation; then frames are drawn Manim's way
PAD_PIXELS = 2.0



def _cached_path(camera: Any, ctx: Any, vmobject: Any, matrix: tuple | None = None) -> Any:
    """Manim's ``set_cairo_context_path`` (``matrix``: the context's, if the caller has it)."""
    global _hits, _misses
    points = vmobject.points
    if not len(points):
        return _original(camera, ctx, vmobject)  # Manim leaves the context's path as it was
    if type(camera) not in _KNOWN_CAMERAS:
        # A camera that moves points before drawing them (ThreeDCamera projects them by its
        # orientation) draws other paths from the same points: Manim's way, uncached.
        return _original(camera, ctx, vmobject)
    # The path is kept as Cairo holds it (device space, 1/256 pixel), so the key names the
    # context's matrix too: the same points under another matrix are another path.
    key = (points.tobytes(), points.shape, points.dtype.str, type(vmobject), type(camera),
           vmobject.n_points_per_cubic_curve, vmobject.tolerance_for_point_equality,
           matrix or tuple(ctx.get_matrix()))
    path = _paths.get(key)
    if path is None:
        _misses += 1
        _original(camera, ctx, vmobject)
        path = ctx.copy_path()
        if len(_paths) >= MAX_ENTRIES:
            _paths.pop(next(iter(_paths)))  # the least recently used
        _paths[key] = path
        return camera
    _hits += 1
    _paths[key] = _paths.pop(key)  # recently used: evicted last
    ctx.new_path()
    ctx.append_path(path)
    return camera


# Drawing a list of plain shapes -------------------------------------------------------

_PLAIN_METHODS = ("get_stroke_width", "get_stroke_rgbas", "get_fill_rgbas", "get_background_image")
_plain_classes: dict[type, bool] = {}
_STYLE_MAPS: tuple = ()  # Manim's line join and cap maps, read on first use


def _is_plain(cls: type) -> bool:
    """Whether ``cls`` draws with VMobject's own getters (no override to honour)."""
    plain = _plain_classes.get(cls)
    if plain is None:
        from manim.mobject.types.vectorized_mobject import VMobject

        plain = _plain_classes[cls] = issubclass(cls, VMobject) and all(
            getattr(cls, name) is getattr(VMobject, name) for name in _PLAIN_METHODS)
    return plain


def _set_colour(camera: Any, ctx: Any, rgbas: Any, vmobject: Any) -> None:
    if len(rgbas) == 1:  # Manim's set_cairo_context_color: Cairo's surface holds b, g, r
        rgba = rgbas[0]
        ctx.set_source_rgba(*rgba[2::-1], rgba[3])
    else:
        camera.set_cairo_context_color(ctx, rgbas, vmobject)  # a gradient


def _stroke(camera: Any, ctx: Any, vmobject: Any, width: float, rgbas: Any) -> None:
    joins, caps = _STYLE_MAPS
    _set_colour(camera, ctx, rgbas, vmobject)
    ctx.set_line_width(width * camera.cairo_line_width_multiple * (camera.frame_width / camera.frame_width))
    ctx.set_line_join(joins[vmobject.joint_type])
    ctx.set_line_cap(caps[vmobject.cap_style])
    ctx.stroke_preserve()


def _draw(camera: Any, shapes: list[Any]) -> None:
    """``camera.capture_mobjects(shapes, include_submobjects=False)`` for a plain ``Camera``
    and ``VMobject``s without a background image (what a plan holds): the same Cairo calls
    in the same order (``display_vectorized``: path, background stroke, fill, stroke),
    without Manim's grouping of the list by type and by background image and its layers
    of getters. A shape whose class overrides a getter is drawn by Manim's own method."""
    global _STYLE_MAPS
    if not _STYLE_MAPS:
        from manim.camera.camera import CAP_STYLE_MAP, LINE_JOIN_MAP

        _STYLE_MAPS = (LINE_JOIN_MAP, CAP_STYLE_MAP)
    ctx = camera.get_cairo_context(camera.pixel_array)
    matrix = tuple(ctx.get_matrix())  # drawing changes no matrix
    for m in shapes:
        if not _is_plain(type(m)):
            camera.display_vectorized(m, ctx)
            continue
        _cached_path(camera, ctx, m, matrix)
        width = max(0.0, m.background_stroke_width)
        if width != 0:
            _stroke(camera, ctx, m, width, m.get_stroke_rgbas(True))
        _set_colour(camera, ctx, m.get_fill_rgbas(), m)
        ctx.fill_preserve()
        width = m.stroke_width
        width = max(0.0, int(width) if isinstance(width, str) else width)
        if width != 0:
            _stroke(camera, ctx, m, width, m.get_stroke_rgbas(False))


def install() -> None:
    """Replay recorded paths and draw still shapes into backdrops from now on.

    Idempotent; off when ``ATTENTION_FAST_RENDER=0``, backdrops alone off
    when ``ATTENTION_BACKDROPS=0``.
    """
    global _original
    if os.environ.get(ENV, "1") == "0":
        return
    from manim.camera.camera import Camera
    from manim.renderer.cairo_renderer import CairoRenderer
    from manim.scene.scene import Scene

    global _KNOWN_CAMERAS
    from manim.camera.moving_camera import MovingCamera

    # Checked, not assumed: a release that moves points in either camera drops it from the cache.
    _KNOWN_CAMERAS = tuple(c for c in (Camera, MovingCamera)
                           if c.transform_points_pre_display is Camera.transform_points_pre_display)
    if _original is None:
        _original = Camera.set_cairo_context_path
        Camera.set_cairo_context_path = _cached_path  # type: ignore[method-assign]
    if not _originals and os.environ.get(BACKDROPS_ENV, "1") != "0":
        _originals["begin_animations"] = Scene.begin_animations
        _originals["render"] = CairoRenderer.render
        _originals["save_static_frame_data"] = CairoRenderer.save_static_frame_data
        CairoRenderer.save_static_frame_data = _save_static_frame_data  # type: ignore[method-assign]
        Scene.begin_animations = _begin_animations  # type: ignore[method-assign]
        CairoRenderer.render = _render  # type: ignore[method-assign]


def uninstall() -> None:
    global _original
    from manim.camera.camera import Camera
    from manim.renderer.cairo_renderer import CairoRenderer
    from manim.scene.scene import Scene

    if _original is not None:
        Camera.set_cairo_context_path = _original  # type: ignore[method-assign]
        _original = None
    if _originals:
        Scene.begin_animations = _originals.pop("begin_animations")  # type: ignore[method-assign]
        CairoRenderer.render = _originals.pop("render")  # type: ignore[method-assign]
        CairoRenderer.save_static_frame_data = _originals.pop("save_static_frame_data")  # type: ignore[method-assign]
    clear()


def clear() -> None:
    global _hits, _misses
    _paths.clear()
    _hits = _misses = 0
    for key in _frames:
        _frames[key] = 0


def stats() -> dict[str, int]:
    """Since the last :func:`clear`: paths recorded (misses) and replayed (hits);
    frames drawn over a backdrop and Manim's way, shapes taken into backdrops
    (summed over the frames), backdrops drawn."""
    return {"recorded": _misses, "replayed": _hits, "entries": len(_paths),
            "backdrop_frames": _frames["backdrop"], "manim_frames": _frames["manim"],
            "shapes_lifted": _frames["shapes_lifted"], "backdrops_drawn": _frames["backdrops_drawn"],
            "still_shapes_changed": _frames["changed"], "static_images_grown": _frames["static_grown"],
            "static_images_drawn": _frames["static_drawn"]}


# Backdrops -------------------------------------------------------------------


class _Plan:
    """One ``play``: which shapes are still, their boxes, and the backdrops drawn so far."""

    __slots__ = ("still", "boxes", "snapshot", "backdrops", "line_unit", "pad", "order", "shape", "animations")

    def __init__(self, still: list[Any], line_unit: float, pad: float, order: list[Any], shape: list[tuple]) -> None:
        self.line_unit, self.pad = line_unit, pad
        self.order, self.shape = order, shape
        self.backdrops: dict[tuple[int, ...], np.ndarray] = {}
        self.animations: Any = None  # the play's list of animations (Manim makes one per play)
        self._take(still)

    def _take(self, still: list[Any]) -> None:
        self.still = {id(m): i for i, m in enumerate(still)}
        self.boxes = np.array([_box(m, self.line_unit, self.pad) for m in still]).reshape(-1, 4)
        self.snapshot = [(m, _look(m)) for m in still]

    def check(self) -> None:
        """Shapes that changed since the animation began are moving from now on.

        No animation of this play touches them, so this takes an animation
        that changes other mobjects than its own (which Manim itself would
        draw wrongly behind the first moving shape). Frames drawn before the
        change showed them as they were; a backdrop holding them is never
        used again (its key names them as still).
        """
        if any(_look(m) != look for m, look in self.snapshot):
            _frames["changed"] += 1
            self._take([m for m, look in self.snapshot if _look(m) == look])


def _look(m: Any) -> tuple:
    """Everything the camera reads to draw ``m``."""
    return (m.points.tobytes(), m.fill_rgbas.tobytes(), m.stroke_rgbas.tobytes(),
            m.background_stroke_rgbas.tobytes(), m.stroke_width, m.background_stroke_width,
            m.joint_type, m.cap_style, m.sheen_factor, tuple(np.asarray(m.sheen_direction).tolist()),
            m.get_background_image(), m.z_index)


def _box(m: Any, line_unit: float, pad: float) -> tuple[float, float, float, float]:
    """The frame area ``m`` can paint: its points' box grown by its stroke's reach
    (a miter join reaches at most 5 line widths out, Cairo's limit being 10) and ``pad``."""
    xy = m.points[:, :2]
    width = max(m.get_stroke_width(False), m.get_stroke_width(True))
    grow = 5.0 * width * line_unit + pad
    (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
    return (x0 - grow, y0 - grow, x1 + grow, y1 + grow)


def _shape(mobjects: list[Any]) -> list[tuple]:
    """What the stacking order of ``mobjects``' families depends on: each one's
    submobjects, whether it has points, its z_index. (``moving_mobjects`` holds
    every family member, so if none of these changed, neither did the order.)"""
    return [(tuple(map(id, m.submobjects)), len(m.points) > 0, m.z_index) for m in mobjects]


def _animated(animations: list[Any]) -> set[int]:
    from manim.animation.composition import AnimationGroup

    ids: set[int] = set()
    for animation in animations:
        ids.update(id(m) for m in animation.mobject.get_family())
        if isinstance(animation, AnimationGroup):
            ids |= _animated(list(animation.animations))
    return ids


def _make_plan(scene: Any) -> _Plan | None:
    from manim.camera.camera import Camera
    from manim.mobject.types.vectorized_mobject import VMobject
    from manim.renderer.cairo_renderer import CairoRenderer

    renderer = scene.renderer
    if type(renderer) is not CairoRenderer or type(renderer.camera) is not Camera:
        return None
    if not scene.moving_mobjects or scene.updaters or renderer.skip_animations:
        return None
    if any(m.updaters for m in scene.get_mobject_family_members()):
        return None  # an updater may change anything: Manim's way
    camera = renderer.camera
    order = camera.get_mobjects_to_display(scene.moving_mobjects)
    if not all(isinstance(m, VMobject) and not m.get_background_image() for m in order):
        return None
    moving = _animated(scene.animations or [])
    for m in scene.foreground_mobjects:
        moving.update(id(f) for f in m.get_family())
    still = [m for m in order if id(m) not in moving]  # may be none: the order is still kept
    pixel = camera.frame_width / camera.pixel_width
    plan = _Plan(still, camera.cairo_line_width_multiple, PAD_PIXELS * pixel, order, _shape(scene.moving_mobjects))
    plan.animations = scene.animations
    return plan


def _begin_animations(self: Any) -> None:
    # The last play's plan (and its backdrops) goes now, not when that play ended: Cairo's
    # renderer draws a frame only inside play_internal, and every play begins here, so no
    # frame meets a stale plan (``_render`` also checks the plan is this play's), without a
    # wrapper around play_internal.
    self._backdrop_plan = None
    _originals["begin_animations"](self)
    self._backdrop_plan = _make_plan(self)


def _split(plan: _Plan, order: list[Any]) -> tuple[list[Any], list[Any]]:
    """The shapes drawn each frame (moving, and still ones a moving one before them
    may touch) and the still ones drawn into the backdrop, both in stacking order."""
    still = plan.still
    if not still:
        return order, []
    where = [still.get(id(m), -1) for m in order]
    lifted_at = np.array([i for i, w in enumerate(where) if w >= 0], dtype=np.intp)
    if not len(lifted_at):
        return order, []
    # Only moving shapes before the last still one can be in a still one's way.
    last = int(lifted_at[-1])
    top_boxes = [_box(m, plan.line_unit, plan.pad) for m, w in zip(order[:last], where[:last]) if w < 0]
    top_at = [i for i, w in enumerate(where[:last]) if w < 0]
    lifted = plan.boxes[[where[i] for i in lifted_at]]
    on_top = np.zeros(len(lifted_at), dtype=bool)
    boxes = np.array(top_boxes).reshape(-1, 4)
    at = np.array(top_at, dtype=np.intp)
    while len(boxes):
        # still shape j must be drawn on top if a shape drawn on top before it meets its box
        meets = ((boxes[:, None, 0] <= lifted[None, :, 2]) & (lifted[None, :, 0] <= boxes[:, None, 2])
                 & (boxes[:, None, 1] <= lifted[None, :, 3]) & (lifted[None, :, 1] <= boxes[:, None, 3])
                 & (at[:, None] < lifted_at[None, :]))
        new = meets.any(axis=0) & ~on_top
        if not new.any():
            break
        on_top |= new
        boxes, at = lifted[new], lifted_at[new]  # the ones just added may reach further still shapes
    top_index = {i for i, w in enumerate(where) if w < 0} | set(lifted_at[on_top].tolist())
    top = [m for i, m in enumerate(order) if i in top_index]
    back = [m for i, m in enumerate(order) if i not in top_index]
    return top, back


def _start_from_static_image(renderer: Any) -> None:
    """The frame as Manim starts each one: the play's static image, or the background."""
    if renderer.static_image is not None:
        renderer.camera.set_frame_to_background(renderer.static_image)
    else:
        renderer.camera.reset()


def _render(self: Any, scene: Any, time: float, moving_mobjects: Any = None) -> None:
    plan = getattr(scene, "_backdrop_plan", None)
    if plan is None or moving_mobjects is not scene.moving_mobjects or plan.animations is not scene.animations:
        _originals["render"](self, scene, time, moving_mobjects)
        return
    camera = self.camera
    plan.check()
    # The order Manim's capture_mobjects would work out again this frame (a tenth of the frame's cost).
    shape = _shape(moving_mobjects)
    if shape != plan.shape:
        plan.order, plan.shape = camera.get_mobjects_to_display(moving_mobjects), shape
    top, back = _split(plan, plan.order)
    if not back:
        # Nothing still above the first moving shape: Manim's frame, with the order worked out once.
        _frames["manim"] += 1
        _start_from_static_image(self)
        _draw(camera, top)
        self.add_frame(self.get_frame())
        return
    key = tuple(id(m) for m in back)
    image = plan.backdrops.get(key)
    if image is None and len(plan.backdrops) < MAX_BACKDROPS:
        _start_from_static_image(self)
        _draw(camera, back)
        image = plan.backdrops[key] = camera.pixel_array.copy()
        _frames["backdrops_drawn"] += 1
    if image is None:
        _frames["manim"] += 1
        _originals["render"](self, scene, time, moving_mobjects)
        return
    _frames["backdrop"] += 1
    _frames["shapes_lifted"] += len(back)
    camera.set_frame_to_background(image)
    _draw(camera, top)
    self.add_frame(self.get_frame())


# Static images grown from the last one --------------------------------------------


def _save_static_frame_data(self: Any, scene: Any, static_mobjects: Any) -> Any:
    """Manim's static image of a play (the shapes before the first moving one),
    grown from the last play's when that one's shapes are the first of these,
    unchanged: drawing more shapes over it gives the same pixels as drawing all
    of them from the background."""
    from manim.camera.camera import Camera
    from manim.mobject.types.vectorized_mobject import VMobject

    camera = self.camera
    if self.skip_animations:
        # No frame of this play is drawn (a split part skips it through update_frame): Manim's
        # way, and the last drawn play's image stays the one to grow from.
        return _originals["save_static_frame_data"](self, scene, static_mobjects)
    if not static_mobjects or type(camera) is not Camera:
        self._static_memo = None
        return _originals["save_static_frame_data"](self, scene, static_mobjects)
    order = camera.get_mobjects_to_display(static_mobjects)
    if not all(isinstance(m, VMobject) and not m.get_background_image() for m in order):
        self._static_memo = None
        return _originals["save_static_frame_data"](self, scene, static_mobjects)
    looks = [(id(m), _look(m)) for m in order]
    memo = getattr(self, "_static_memo", None)
    self.static_image = None
    if memo is not None and memo[0] == looks[:len(memo[0])] and memo[1].shape == camera.pixel_array.shape:
        camera.set_frame_to_background(memo[1])
        _draw(camera, order[len(memo[0]):])
        _frames["static_grown"] += 1
    else:
        camera.reset()
        _draw(camera, order)
        _frames["static_drawn"] += 1
    self.static_image = self.get_frame()
    self._static_memo = (looks, self.static_image)
    return self.static_image
