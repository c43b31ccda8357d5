"""publish/fast_render.py: replayed Cairo paths draw exactly the pixels Manim draws."""

from __future__ import annotations

import av
import numpy as np
import pytest
from manim import Annulus, Camera, Square, Text, tempconfig

from publish import fast_render
from publish.pipeline import render_scene

from . import render_scenes
from .helpers import trace_from, varied


@pytest.fixture(autouse=True)
def restore():
    was_on = fast_render._original is not None
    yield
    fast_render.uninstall()
    if was_on:
        fast_render.install()


def _draw(mobjects) -> np.ndarray:
    with tempconfig({"quality": "low_quality"}):
        camera = Camera()
        camera.capture_mobjects(mobjects)
        return camera.pixel_array.copy()


def _shapes():
    # Several subpaths, a hole (closed and open subpaths), glyphs with many curves.
    return [Annulus(0.5, 1.2).shift([-3, 0, 0]), Text("-0.84 attention", font_size=40),
            Square(1.0).shift([3, 1, 0]).set_fill(opacity=0.5)]


def test_replayed_paths_draw_the_same_pixels_as_manim():
    fast_render.uninstall()
    shapes = _shapes()
    plain = _draw(shapes)
    fast_render.install()
    first = _draw(shapes)  # recorded
    again = _draw(shapes)  # replayed
    stats = fast_render.stats()
    assert stats["replayed"] > 0 and stats["recorded"] > 0, stats
    assert plain.any() and np.array_equal(plain, first) and np.array_equal(plain, again)


def test_points_changed_in_place_are_drawn_where_they_now_are():
    fast_render.install()
    square = Square(1.0).set_fill(opacity=1.0)
    before = _draw([square])
    square.points[:, 0] += 2.0  # same array object, other values: the key is the content
    after = _draw([square])
    fast_render.uninstall()
    expected = _draw([square])
    assert not np.array_equal(before, after)
    assert np.array_equal(after, expected)


def test_a_render_is_the_same_video_with_and_without_replayed_paths(tmp_path):
    trace = trace_from(varied())
    cls = render_scenes.StepsScene
    fast_render.uninstall()
    off = tmp_path / "off"
    off.mkdir()
    render_scene(cls, trace, off, "low", ("mp4", "png"), "dark")
    on = tmp_path / "on"
    on.mkdir()
    render_scene(cls, trace, on, "low", ("mp4", "png"), "dark")  # installs it
    assert fast_render.stats()["replayed"] > 0

    def frames(path):
        with av.open(str(path)) as c:
            return [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]

    a, b = frames(off / "tiny_steps.mp4"), frames(on / "tiny_steps.mp4")
    assert len(a) == len(b) > 30
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert (off / "tiny_steps.png").read_bytes() == (on / "tiny_steps.png").read_bytes()


def test_off_switch(monkeypatch):
    fast_render.uninstall()
    monkeypatch.setenv(fast_render.ENV, "0")
    fast_render.install()
    assert fast_render._original is None
    assert Camera.set_cairo_context_path is not fast_render._cached_path
