"""manim_speedups/fast_render.py: replayed Cairo paths draw exactly the pixels Manim draws."""

from __future__ import annotations

import av
import numpy as np
import pytest
from manim import (BLUE, GREEN, LEFT, RED, RIGHT, UP, DOWN, WHITE, YELLOW, Animation, Annulus, Camera, Circle,
                   FadeIn, Line, Rectangle, Square, Text, linear, tempconfig)

from manim_speedups import fast_render
from publish.rendering.pipeline import render_scene
from scenes.base import WalkthroughScene

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


def test_the_same_points_under_another_camera_are_drawn_for_that_camera():
    # A kept path is in the context's device space: drawn first at 480p, the same
    # shapes at 1080p (other matrix) must be Manim's 1080p pixels, not a scaled 480p path.
    def draw(quality):
        with tempconfig({"quality": quality}):
            camera = Camera()
            camera.capture_mobjects(_shapes())
            return camera.pixel_array.copy()

    fast_render.uninstall()
    plain = {q: draw(q) for q in ("low_quality", "high_quality")}
    fast_render.install()
    fast_render.clear()
    low, high, low_again = draw("low_quality"), draw("high_quality"), draw("low_quality")
    assert fast_render.stats()["replayed"] > 0
    assert np.array_equal(low, plain["low_quality"]) and np.array_equal(low_again, plain["low_quality"])
    assert np.array_equal(high, plain["high_quality"])


def test_a_shape_without_points_leaves_the_path_as_manim_does():
    # Manim returns early for a shape with no points: whatever path the context holds
    # stays, and the empty shape strokes it (white) again. After the circle that is the
    # circle's path, not the square's it followed first.
    fast_render.uninstall()
    empty = Rectangle().set_points(np.zeros((0, 3)))
    shapes = [Square(1.0).set_fill(RED, opacity=1.0), empty, Circle().shift(RIGHT * 2), empty]

    def draw():
        with tempconfig({"quality": "low_quality"}):
            camera = Camera()
            ctx = camera.get_cairo_context(camera.pixel_array)
            for shape in shapes:
                camera.display_vectorized(shape, ctx)
            return camera.pixel_array.copy()

    plain = draw()
    fast_render.install()
    assert np.array_equal(draw(), plain) and np.array_equal(draw(), plain)


def test_a_three_d_camera_draws_its_own_projection_not_a_kept_path():
    # A ThreeDCamera projects the points by its orientation before it draws them: the same
    # points seen from two angles are two paths. The cache keys on the points and the
    # context's matrix only, so such a camera is left to Manim (a kept path from the first
    # angle would be drawn at the second).
    from manim import DEGREES, ThreeDCamera

    def draw(phi):
        with tempconfig({"quality": "low_quality"}):
            camera = ThreeDCamera(phi=phi * DEGREES, theta=-60 * DEGREES)
            camera.capture_mobjects([Square(2.0).set_fill(RED, opacity=1.0), Text("3D", font_size=60)])
            return camera.pixel_array.copy()

    fast_render.uninstall()
    plain = {phi: draw(phi) for phi in (0, 60)}
    assert not np.array_equal(plain[0], plain[60])  # the angle shows
    fast_render.install()
    fast_render.clear()
    assert np.array_equal(draw(0), plain[0]) and np.array_equal(draw(60), plain[60])
    assert fast_render.stats()["recorded"] == fast_render.stats()["replayed"] == 0


def test_a_moving_camera_keeps_paths_under_its_frames_matrix():
    # MovingCamera is known: it makes a context per frame with the frame's matrix (in the key).
    from manim import MovingCamera

    def draw(shift):
        with tempconfig({"quality": "low_quality"}):
            camera = MovingCamera()
            camera.frame.shift(RIGHT * shift)
            camera.capture_mobjects(_shapes())
            return camera.pixel_array.copy()

    fast_render.uninstall()
    plain = {s: draw(s) for s in (0, 1)}
    fast_render.install()
    fast_render.clear()
    drawn = {s: draw(s) for s in (0, 1, 0)}
    assert fast_render.stats()["replayed"] > 0
    assert all(np.array_equal(drawn[s], plain[s]) for s in (0, 1))


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
    fast_render.install()  # as an entry point does (render_scene itself installs nothing)
    render_scene(cls, trace, on, "low", ("mp4", "png"), "dark")
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


# Backdrops: still shapes drawn once per animation -------------------------------------------


class _Meddle(Animation):
    """Moves its own mobject and, against Manim's rules, fades another one."""

    def __init__(self, mobject, victim, **kw):
        self.victim = victim
        super().__init__(mobject, **kw)

    def interpolate_mobject(self, alpha):
        self.mobject.move_to([-3 + 2 * alpha, -1, 0])
        self.victim.set_fill(opacity=0.2 + 0.6 * alpha)


class BackdropScene(WalkthroughScene):
    """A disc added early (first in the stacking order) moves right, under and
    past still shapes stacked above it: a half-transparent bar across its
    path, a label and a thick line beside it, a square far away; then a text
    fades in; then the square below everything is recoloured between two
    plays (no animation: the next static image must show it); then an
    animation changes a shape it does not own."""

    scene_id = "tiny_backdrop"
    description = "Test scene: still shapes above moving ones."
    trace_sections = ("sizes",)

    def construct(self) -> None:
        below = Square(2.0).set_fill(BLUE, 0.5).shift(LEFT * 4)
        disc = Circle(0.5).set_fill(RED, 0.8).set_stroke(WHITE, 6).shift(LEFT * 5)
        far = Square(1.0).set_fill(GREEN, 0.6).shift(RIGHT * 4 + UP * 2)
        bar = Rectangle(width=0.6, height=3.0).set_fill(YELLOW, 0.5).set_stroke(width=0)
        label = Text("0.84", font_size=30).shift(DOWN * 0.9 + LEFT * 2)
        thick = Line(LEFT * 6 + DOWN * 0.75, RIGHT * 6 + DOWN * 0.75, stroke_width=12)
        self.add(below, disc, far, bar, label, thick)
        self.play(disc.animate.shift(RIGHT * 10), run_time=2.0, rate_func=linear)
        self.play(FadeIn(Text("new", font_size=30).shift(UP * 3)), run_time=0.6)
        below.set_fill(GREEN, 0.9)
        self.play(FadeIn(Text("more", font_size=30).shift(UP * 2 + LEFT * 3)), run_time=0.6)
        self.play(_Meddle(disc, far), run_time=0.6)


def _frames(path):
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]


def _render_backdrop_scene(out, monkeypatch, backdrops: bool):
    fast_render.uninstall()
    if backdrops:
        monkeypatch.delenv(fast_render.BACKDROPS_ENV, raising=False)
    else:
        monkeypatch.setenv(fast_render.BACKDROPS_ENV, "0")
    out.mkdir()
    fast_render.install()  # as an entry point does (render_scene itself installs nothing)
    render_scene(BackdropScene, trace_from(varied()), out, "low", ("mp4",), "dark")
    return _frames(out / "tiny_backdrop.mp4"), fast_render.stats()


def test_backdrops_draw_the_frames_manim_draws(tmp_path, monkeypatch):
    manim_way, off = _render_backdrop_scene(tmp_path / "off", monkeypatch, backdrops=False)
    backdrops, on = _render_backdrop_scene(tmp_path / "on", monkeypatch, backdrops=True)
    assert off["backdrop_frames"] == 0
    # Most frames were drawn over a backdrop; the bar crossing the disc's path needed a second one
    # (without the bar) while they meet; the meddled square was found changed and drawn as moving.
    assert on["backdrop_frames"] > len(backdrops) // 2, on
    assert on["backdrops_drawn"] >= 3 and on["still_shapes_changed"] >= 1, on
    # The second play's static image grew from the first's; the third's was drawn again (recoloured).
    assert on["static_images_grown"] >= 1 and on["static_images_drawn"] >= 2, on
    assert len(backdrops) == len(manim_way) > 40
    different = [i for i, (a, b) in enumerate(zip(manim_way, backdrops)) if not np.array_equal(a, b)]
    assert different == []


def test_without_the_overlap_rule_the_frames_differ(tmp_path, monkeypatch):
    # The equality above is not luck: drawing every still shape into the backdrop,
    # even the bar the disc passes under, puts the bar under the disc.
    manim_way, _ = _render_backdrop_scene(tmp_path / "off", monkeypatch, backdrops=False)
    split = fast_render._split
    monkeypatch.setattr(fast_render, "_split", lambda plan, order: (
        [m for m in order if id(m) not in plan.still], [m for m in order if id(m) in plan.still]))
    careless, _ = _render_backdrop_scene(tmp_path / "on", monkeypatch, backdrops=True)
    monkeypatch.setattr(fast_render, "_split", split)
    assert len(careless) == len(manim_way)
    assert sum(not np.array_equal(a, b) for a, b in zip(manim_way, careless)) >= 5


def test_a_shape_changed_between_plays_is_drawn_again_in_the_static_image(tmp_path, monkeypatch):
    # If the static image were grown without comparing the shapes' looks, the square
    # recoloured between two plays would keep its old colour.
    manim_way, _ = _render_backdrop_scene(tmp_path / "off", monkeypatch, backdrops=False)
    monkeypatch.setattr(fast_render, "_look", lambda m: m.points.tobytes())
    careless, _ = _render_backdrop_scene(tmp_path / "on", monkeypatch, backdrops=True)
    assert sum(not np.array_equal(a, b) for a, b in zip(manim_way, careless)) >= 5
