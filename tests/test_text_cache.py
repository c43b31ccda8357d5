"""manim_speedups/text_cache.py: a reused Text is the Text a fresh build gives, and independent of it."""

from __future__ import annotations

import numpy as np
import pytest
from manim import BLUE, RED, Text

from manim_speedups import text_cache
from scenes import DARK
from scenes.components import NumberLabel


def _fresh(text: str, **kw) -> Text:
    """A Text built without the cache."""
    text_cache.uninstall()
    try:
        return Text(text, **kw)
    finally:
        text_cache.install()


def _family_state(mob) -> list[tuple]:
    return [(type(m).__name__, m.points.round(9).tobytes(), m.fill_rgbas.tobytes(), m.stroke_rgbas.tobytes())
            for m in mob.get_family()]


@pytest.fixture(autouse=True)
def cache_on():
    text_cache.install()
    text_cache.clear()
    yield


def test_a_copied_text_equals_a_fresh_build():
    kw = dict(font=DARK.number_font, font_size=18, color=RED)
    first, second = Text("-0.84", **kw), Text("-0.84", **kw)
    assert text_cache.stats() == {"built": 1, "copied": 1, "entries": 1}
    fresh = _fresh("-0.84", **kw)
    assert _family_state(second) == _family_state(fresh) == _family_state(first)
    assert len(second.chars) == len(fresh.chars) == 5
    # chars points to the copy's own letters, as in a fresh build.
    assert all(a is b for a, b in zip(second.chars, second.submobjects))
    assert second.text == fresh.text and second.font_size == pytest.approx(fresh.font_size)


def test_copies_are_independent():
    a = Text("0.25", font_size=20)
    b = Text("0.25", font_size=20)
    a.shift([1, 2, 0]).set_color(BLUE)
    a[0].points[:] = 0
    c = Text("0.25", font_size=20)
    assert _family_state(b) == _family_state(c) == _family_state(_fresh("0.25", font_size=20))
    assert not np.array_equal(a.get_center(), b.get_center())


def test_other_arguments_build_other_texts():
    Text("0.25", font_size=20)
    Text("0.25", font_size=21)
    Text("0.25", font_size=20, color=RED)
    Text("0.26", font_size=20)
    assert text_cache.stats()["built"] == 4
    assert _family_state(Text("0.25", font_size=21)) == _family_state(_fresh("0.25", font_size=21))


def test_number_labels_keep_their_own_value():
    # Two values shown alike share the laid-out text, never the exact value or key.
    x = NumberLabel(-0.841, DARK, key=("a", 0))
    y = NumberLabel(-0.839, DARK, key=("b", 1))
    assert x.shown == y.shown == DARK.fmt(-0.84)
    assert (x.value, x.key) == (-0.841, ("a", 0)) and (y.value, y.key) == (-0.839, ("b", 1))
    assert isinstance(y, NumberLabel) and text_cache.stats()["copied"] >= 1
    assert _family_state(y) == _family_state(x)


def test_mobject_copies_share_the_parsed_glyph_paths_but_not_the_points():
    t = Text("h_T", font_size=24)
    c = t.copy()
    assert all(a.path_obj is b.path_obj for a, b in zip(t.submobjects, c.submobjects))
    c[0].points[:] += 1
    assert not np.array_equal(c[0].points, t[0].points)
    assert _family_state(t) == _family_state(_fresh("h_T", font_size=24))
