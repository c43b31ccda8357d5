"""scenes/clarity_moves.py: digits dimmed to chips and back, the ending's hold.

Each builder is checked on small objects made here (no scene render): opacities read off the
glyphs as the audit reads them. (The transpose in order is motion's: tests/test_motion.py.)
"""

from __future__ import annotations

import pytest
from manim import DOWN, VGroup

from scenes.base import LEGIBLE_OPACITY
from scenes.clarity_moves import (
    LABEL_DIM,
    QUIET,
    dim_labels,
    end_on_poster,
    quiet,
    set_quiet,
    voice,
)
from scenes.components import ValueCell, caption
from scenes.theme import DARK


def _opacity(text) -> float:
    """A text's opacity as the audit reads it: the most opaque of its glyphs' fill and stroke."""
    return max(max(float(g.get_fill_opacity()), float(g.get_stroke_opacity()))
               for g in text.family_members_with_points())


def _cells(values, key="t") -> VGroup:
    return VGroup(*(ValueCell(v, DARK, (key, k)) for k, v in enumerate(values))).arrange(DOWN, buff=0)


def _run(anim, alpha: float) -> None:
    anim.interpolate(alpha)


def test_quiet_dims_digits_under_the_audits_legibility_and_voice_brings_them_back():
    cells = _cells([0.5, -1.25, 2.0])
    numbers = [c.number for c in cells]
    assert all(_opacity(n) == pytest.approx(1.0) for n in numbers)  # glyph strokes are at 1 too
    anim = quiet(cells, run_time=1)
    anim.begin()
    _run(anim, 0.5)
    # Halfway: between 1 and QUIET (smooth at one half is one half).
    assert _opacity(numbers[0]) == pytest.approx((1.0 + QUIET) / 2, abs=1e-6)
    anim.finish()
    assert all(_opacity(n) == pytest.approx(QUIET) for n in numbers)
    assert QUIET < LEGIBLE_OPACITY  # a chip: not counted as a legible number
    assert QUIET > 0.02  # still on screen for the tests that read the numbers shown
    # The boxes keep their tint: only the digits dim.
    assert cells[0].box.get_fill_opacity() > 0.3
    back = voice(cells[1])
    back.begin()
    back.finish()
    assert _opacity(numbers[1]) == pytest.approx(1.0)
    assert _opacity(numbers[0]) == pytest.approx(QUIET)  # the others stay chips


def test_set_quiet_and_dim_labels_reach_their_opacities():
    cells = _cells([0.1, 0.2])
    set_quiet(cells)
    assert all(_opacity(c.number) == pytest.approx(QUIET) for c in cells)
    label = caption("2\u00d74: raw scores", DARK, 24)
    anim = dim_labels(label)
    anim.begin()
    anim.finish()
    assert _opacity(label) == pytest.approx(LABEL_DIM)
    assert LABEL_DIM < LEGIBLE_OPACITY


def test_quiet_adds_nothing_to_the_scene():
    # A handle on cells already on screen as parts of their matrix: never added as a new group.
    anim = quiet(_cells([1.0]))
    assert anim.is_introducer()

    class Recorder:
        added: list = []

        def add(self, *mobs):
            self.added.extend(mobs)

        def get_mobject_family_members(self):
            return []

    anim._setup_scene(Recorder())
    assert Recorder.added == []


class _Pacer:
    """A caption pacer's state (base.CaptionPacer): its caption, up since ``since``, read at 3 words a second."""

    def __init__(self, scene: "_Scene", text: str, since: float) -> None:
        self.scene = scene
        self.current = VGroup()
        self.current.text = text
        self.since = since
        self.log = [(text, since, None)]

    @staticmethod
    def needed(text: str) -> float:
        return max(1.5, len(text.split()) / 3)

    def reading_due(self) -> float:
        return self.since + self.needed(self.current.text) - self.scene.time


class _Scene:
    def __init__(self) -> None:
        self.time = 10.0

    def wait(self, s: float) -> None:
        self.time += s


def test_end_on_poster_holds_at_least_four_seconds_and_the_caption_read():
    scene = _Scene()
    end_on_poster(scene, _Pacer(scene, "one two three", since=10.0))  # read in 1.5 s: the 4 s hold rules
    assert scene.time - 10.0 == pytest.approx(4.0)
    scene = _Scene()
    pacer = _Pacer(scene, " ".join(["word"] * 18), since=10.0)  # 6 s to read
    end_on_poster(scene, pacer)
    assert 6.0 < scene.time - 10.0 < 6.2
    assert pacer.log[-1][2] == scene.time


def test_end_on_poster_refuses_a_caption_that_would_freeze_the_ending():
    with pytest.raises(ValueError, match="over"):
        scene = _Scene()
        end_on_poster(scene, _Pacer(scene, " ".join(["word"] * 30), since=10.0))  # 10 s to read
