"""manim_speedups/fast_mobject.py: the same boundaries and the same updater calls as Manim's."""

from __future__ import annotations

import numpy as np
import pytest
from manim import DOWN, LEFT, RIGHT, UP, Circle, Dot, MathTex, Square, Text, VGroup, VMobject

from manim_speedups import fast_mobject

from .helpers import speedup_off


@pytest.fixture(autouse=True)
def restore():
    yield from speedup_off(fast_mobject)


def _shapes():
    lone = VMobject().set_points(np.array([[0.5, -0.25, 0.0]]))  # one point: its own anchor
    empty = VMobject()
    nested = VGroup(VGroup(Square(), empty), Circle().shift(RIGHT * 3), lone)
    return {"text": Text("-0.84 attention"), "formula": MathTex(r"a_{tj} = \sum_j e_{tj}"),
            "nested": nested, "lone": lone, "empty": empty, "empty group": VGroup(VGroup()),
            "dot": Dot(UP + LEFT)}


def test_boundaries_and_critical_points_are_manims():
    shapes = _shapes()
    directions = [UP, DOWN, LEFT, RIGHT, UP + LEFT, DOWN + RIGHT, np.zeros(3)]
    manims = {k: (m.get_points_defining_boundary(), [m.get_critical_point(d) for d in directions])
              for k, m in shapes.items()}
    fast_mobject.install()
    for name, m in shapes.items():
        boundary, corners = manims[name]
        ours = m.get_points_defining_boundary()
        assert ours.shape == boundary.shape and ours.dtype == boundary.dtype, name
        assert np.array_equal(ours, boundary), name
        assert all(np.array_equal(m.get_critical_point(d), c) for d, c in zip(directions, corners)), name


def test_lengths_heights_widths_and_font_sizes_are_manims():
    from manim import Group, Mobject

    shapes = _shapes()
    shapes["scaled text"] = Text("h_j", font_size=30).scale(0.37).rotate(0.3)
    shapes["bare mobject"] = Mobject()
    shapes["group of a group with points"] = Group(Mobject(), VGroup(Dot(DOWN * 2)))
    manims = {k: [m.length_over_dim(d) for d in (0, 1, 2)] + [m.height, m.width] for k, m in shapes.items()}
    sizes = {k: shapes[k].font_size for k in ("text", "scaled text")}
    fast_mobject.install()
    for name, m in shapes.items():
        ours = [m.length_over_dim(d) for d in (0, 1, 2)] + [m.height, m.width]
        assert [type(v) for v in ours] == [type(v) for v in manims[name]], name
        assert ours == manims[name], name  # bit for bit
    assert {k: shapes[k].font_size for k in sizes} == sizes
    assert shapes["empty"].height == 0 and shapes["text"].height > 0


def test_a_length_over_nan_or_a_class_of_its_own_is_manims():
    from manim import Mobject

    calls = []

    class Own(VMobject):
        def reduce_across_dimension(self, reduce_func, dim):
            calls.append(dim)
            return 1.0 if reduce_func is max else -1.0

    nan = VMobject().set_points(np.array([[0.0, 1.0, 0.0], [np.nan, 2.0, 0.0], [3.0, 0.5, 0.0]]))
    manims = nan.length_over_dim(0)
    fast_mobject.install()
    assert Mobject.length_over_dim is fast_mobject.length_over_dim
    assert Own().length_over_dim(1) == 2.0 and calls == [1, 1]
    ours = nan.length_over_dim(0)
    assert (ours != ours and manims != manims) or ours == manims  # NaN as Manim gives it, or its number
    assert nan.length_over_dim(1) == 1.5


def test_the_boundary_is_a_copy():
    fast_mobject.install()
    square = Square()
    boundary = square.get_points_defining_boundary()
    boundary[:] = 99.0
    assert not (square.points == 99.0).any()
    lone = VMobject().set_points(np.array([[1.0, 2.0, 0.0]]))
    lone.get_points_defining_boundary()[0, 0] = 7.0
    assert lone.points[0, 0] == 1.0


def test_uneven_anchors_raise_as_manim_does():
    odd = VMobject()
    odd.points = np.zeros((6, 3))  # one curve and two stray points: starts 2, ends 1
    with pytest.raises(ValueError) as manims:
        odd.get_points_defining_boundary()
    fast_mobject.install()
    with pytest.raises(ValueError) as ours:
        odd.get_points_defining_boundary()
    assert str(ours.value) == str(manims.value)


def test_updaters_run_in_manims_order_with_the_same_arguments():
    def build(log):
        leaf_a, leaf_b = Square(), Circle()
        inner = VGroup(leaf_a, leaf_b)
        quiet = VGroup(*[Square() for _ in range(5)])  # no updaters anywhere: passed over
        top = VGroup(inner, quiet, Dot())
        top.add_updater(lambda m: log.append(("top",)))
        leaf_b.add_updater(lambda m, dt: log.append(("leaf_b", dt)))
        inner.add_updater(lambda m, dt: log.append(("inner", dt)))
        suspended = VGroup(Square())
        suspended[0].add_updater(lambda m: log.append(("never",)))
        suspended.suspend_updating(recursive=False)
        top.add(suspended)
        return top

    manims: list = []
    build(manims).update(0.25)
    fast_mobject.install()
    ours: list = []
    build(ours).update(0.25)
    assert ours == manims == [("top",), ("inner", 0.25), ("leaf_b", 0.25)]


def test_a_class_with_its_own_update_is_still_asked():
    calls = []

    class Counting(Square):
        def update(self, dt=0, recursive=True):
            calls.append(dt)
            return super().update(dt, recursive)

    fast_mobject.install()
    VGroup(Counting(), Square()).update(0.5)
    assert calls == [0.5]


def test_off_switch(monkeypatch):
    monkeypatch.setenv(fast_mobject.ENV, "0")
    fast_mobject.install()
    assert not fast_mobject.installed()
    assert VMobject.get_points_defining_boundary is not fast_mobject.get_points_defining_boundary
    from manim import Mobject

    assert Mobject.length_over_dim is not fast_mobject.length_over_dim
