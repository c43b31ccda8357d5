"""Vector stills: the scene's current picture drawn onto a cairo SVG surface.

Manim's Cairo renderer draws every frame with cairo onto an image surface;
:func:`write_svg` draws the same mobjects, in the same order, with the same
camera transform and the camera's own stroke and fill code, onto an SVG
surface instead. Text in Manim is already outlines (``Text`` and LaTeX
become paths), so the SVG needs no fonts and looks the same everywhere.
Image mobjects (the captioning scene's picture) are embedded as PNG data.
Imports manim: used by the render pipeline only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cairo
import numpy as np
from manim import VMobject
from manim.mobject.types.image_mobject import AbstractImageMobject
from PIL import Image

__all__ = ["write_svg", "hex_to_rgb"]


def hex_to_rgb(colour: str) -> tuple[float, float, float]:
    """``#rrggbb`` as three floats in 0..1."""
    value = colour.lstrip("#")
    return tuple(int(value[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def _camera_matrix(camera: Any) -> cairo.Matrix:
    # The transform Camera.get_cairo_context uses: frame units -> pixels, y up.
    pw, ph = camera.pixel_width, camera.pixel_height
    fw, fh, fc = camera.frame_width, camera.frame_height, camera.frame_center
    return cairo.Matrix(pw / fw, 0, 0, -(ph / fh), pw / 2 - fc[0] * pw / fw, ph / 2 + fc[1] * ph / fh)


def _draw_image(ctx: cairo.Context, camera: Any, mob: AbstractImageMobject) -> None:
    rgba = np.ascontiguousarray(mob.get_pixel_array(), dtype=np.uint8)
    if rgba.ndim != 3 or rgba.shape[2] != 4:
        rgba = np.asarray(Image.fromarray(rgba).convert("RGBA"))
    h, w = rgba.shape[:2]
    alpha = rgba[..., 3:4].astype(np.uint16)
    # cairo wants premultiplied BGRA (ARGB32, little-endian).
    bgra = np.empty((h, w, 4), dtype=np.uint8)
    bgra[..., :3] = (rgba[..., 2::-1].astype(np.uint16) * alpha // 255).astype(np.uint8)
    bgra[..., 3] = rgba[..., 3]
    stride = cairo.ImageSurface.format_stride_for_width(cairo.FORMAT_ARGB32, w)
    buf = np.zeros((h, stride), dtype=np.uint8)
    buf[:, : 4 * w] = bgra.reshape(h, 4 * w)
    image = cairo.ImageSurface.create_for_data(memoryview(buf), cairo.FORMAT_ARGB32, w, h, stride)
    # Corners as in Camera.display_image_mobject: points 0, 1, 2 are the
    # image's top-left, top-right and bottom-left.
    p0, p1, p2 = (np.asarray(mob.points[i][:2], dtype=float) for i in range(3))
    ex, ey = (p1 - p0) / w, (p2 - p0) / h
    placement = cairo.Matrix(ex[0], ex[1], ey[0], ey[1], p0[0], p0[1])
    ctx.save()
    ctx.set_matrix(placement.multiply(_camera_matrix(camera)))
    ctx.set_source_surface(image, 0, 0)
    nearest = "NEAREST" in str(getattr(mob, "resampling_algorithm", "")).upper()
    ctx.get_source().set_filter(cairo.FILTER_NEAREST if nearest else cairo.FILTER_GOOD)
    ctx.rectangle(0, 0, w, h)
    ctx.fill()
    ctx.restore()


def write_svg(scene: Any, dst: Path, background: str | None) -> None:
    """Draw what ``scene`` shows now into the SVG file ``dst``.

    ``background`` is the page colour (``#rrggbb``) or ``None`` for a
    transparent picture. The document is the frame's size in pixels, with
    a ``viewBox``, so it scales like the PNG still.
    """
    camera = scene.renderer.camera
    pw, ph = camera.pixel_width, camera.pixel_height
    surface = cairo.SVGSurface(str(dst), pw, ph)
    try:
        surface.set_document_unit(cairo.SVGUnit.PX)
        ctx = cairo.Context(surface)
        if background is not None:
            ctx.set_source_rgb(*hex_to_rgb(background))
            ctx.paint()
        ctx.set_matrix(_camera_matrix(camera))
        # The camera swaps red and blue for its BGRA image surface; an SVG
        # surface takes colours as they are: swap them first, so they cancel.
        original_colour = camera.set_cairo_context_color
        camera.set_cairo_context_color = lambda c, rgbas, vmob: original_colour(
            c, np.asarray(rgbas)[..., [2, 1, 0, 3]], vmob)
        try:
            _draw_mobjects(ctx, camera, scene)
        finally:
            del camera.set_cairo_context_color  # back to the class's method
        surface.flush()
    finally:
        surface.finish()


def _draw_mobjects(ctx: cairo.Context, camera: Any, scene: Any) -> None:
    # The order and the family walk of Camera.capture_mobjects.
    for mob in camera.get_mobjects_to_display(scene.mobjects):
        if isinstance(mob, VMobject):
            camera.display_vectorized(mob, ctx)
        elif isinstance(mob, AbstractImageMobject):
            _draw_image(ctx, camera, mob)
        # Point clouds (PMobject) are not used by any scene.
