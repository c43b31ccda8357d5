"""scenes/components.py's fades: a thing faded out stays out until it is brought back.

``fade_out`` removes its mobject from the scene, but a part of a group is still held by the
group: when the group is on screen again (slid, added, animated), the part must not flash back
at full opacity. Played headless in a tiny scene; what is drawn is what the scene holds, at the
opacity its glyphs and shapes have.
"""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
from manim import LEFT, RIGHT, Square, VGroup, tempconfig

from scenes.base import WalkthroughScene
from scenes.components import caption, fade_in, fade_out
from scenes.motion import slide
from scenes.theme import DARK

from .helpers import load_default_trace


class _Stage(WalkthroughScene):
    """Runs ``script(scene)`` as its construct; ``seen`` records what it asked the scene."""

    def __init__(self, script, **kw):
        self.script, self.seen = script, {}
        super().__init__(load_default_trace(), DARK, **kw)

    def construct(self):
        self.script(self)


def _run(script):
    with tempfile.TemporaryDirectory() as media, tempconfig({
        "dry_run": True, "quality": "low_quality", "verbosity": "ERROR",
        "progress_bar": "none", "media_dir": media, "disable_caching": True,
    }):
        scene = _Stage(script)
        scene.render()
    return scene


def _drawn_opacity(scene, mob) -> float:
    """How opaque ``mob`` is drawn now: 0 if the scene does not hold it (alone or in a group)."""
    if mob not in scene.get_mobject_family_members():
        return 0.0
    return max(max(float(np.max(m.fill_rgbas[:, 3])), float(np.max(m.stroke_rgbas[:, 3])))
               for m in mob.family_members_with_points())


def _pair():
    """A group of a half-opaque square and a word: the word is what fades."""
    box = Square(0.5, fill_opacity=0.5, stroke_opacity=0.75).move_to(LEFT)
    word = caption("gone", DARK, 24).move_to(RIGHT)
    return VGroup(box, word), box, word


def test_a_faded_out_part_stays_out_when_its_group_moves_again():
    group, box, word = _pair()

    def script(s):
        s.add(group)
        s.play(fade_out(word), run_time=0.5)
        s.seen["after fade"] = _drawn_opacity(s, word)
        s.play(slide(group, RIGHT * 2), run_time=0.5)  # the group comes back on screen whole
        s.seen["after slide"] = _drawn_opacity(s, word)
        s.seen["box"] = _drawn_opacity(s, box)

    scene = _run(script)
    assert scene.seen["after fade"] == 0.0
    assert scene.seen["after slide"] == pytest.approx(0.0, abs=1e-9)  # it flashed back at 1 before
    assert scene.seen["box"] == pytest.approx(0.75)  # the rest of the group keeps its own look


def test_fade_in_brings_back_the_look_it_had_before_the_fade_out():
    group, box, word = _pair()

    def script(s):
        s.add(group)
        s.play(fade_out(box), run_time=0.5)
        s.play(fade_in(box), run_time=0.5)
        s.seen["fill"] = float(box.fill_rgbas[0, 3])
        s.seen["stroke"] = float(box.stroke_rgbas[0, 3])

    scene = _run(script)
    assert scene.seen["fill"] == pytest.approx(0.5)
    assert scene.seen["stroke"] == pytest.approx(0.75)


def test_a_second_fade_out_does_not_forget_the_first_look():
    group, box, word = _pair()

    def script(s):
        s.add(group)
        s.play(fade_out(box), run_time=0.5)
        s.add(group)  # the group again (the box inside it, still faded out)
        s.play(fade_out(box), run_time=0.5)  # reused on what is already out
        s.seen["out"] = _drawn_opacity(s, box)
        s.play(fade_in(box), run_time=0.5)
        s.seen["back"] = float(box.fill_rgbas[0, 3])

    scene = _run(script)
    assert scene.seen["out"] == 0.0
    assert scene.seen["back"] == pytest.approx(0.5)


def test_adding_the_faded_thing_itself_shows_it_as_it_was():
    group, box, word = _pair()

    def script(s):
        s.add(group)
        s.play(fade_out(word), run_time=0.5)
        s.add(word)  # asked for by name: wanted on screen
        s.seen["word"] = _drawn_opacity(s, word)

    scene = _run(script)
    assert scene.seen["word"] == pytest.approx(1.0)


def test_a_fade_with_a_shift_puts_the_thing_back_in_its_place():
    _, box, _ = _pair()
    where = box.get_center().copy()

    def script(s):
        s.add(box)
        s.play(fade_in(box, shift=RIGHT), run_time=0.5)
        s.play(fade_out(box), run_time=0.5)

    _run(script)
    assert np.allclose(box.get_center(), where)


def test_adding_a_group_back_keeps_out_a_part_faded_on_its_own():
    group, box, word = _pair()

    def script(s):
        s.add(group)
        s.play(fade_out(word), run_time=0.5)  # the word first
        s.play(fade_out(group), run_time=0.5)  # then the rest
        s.add(group)  # the group by name: as it was when its fade began, the word out
        s.seen["box"] = _drawn_opacity(s, box)
        s.seen["word"] = _drawn_opacity(s, word)
        s.play(fade_in(word), run_time=0.5)
        s.seen["word back"] = _drawn_opacity(s, word)

    scene = _run(script)
    assert scene.seen["box"] == pytest.approx(0.75)
    assert scene.seen["word"] == pytest.approx(0.0, abs=1e-9)
    assert scene.seen["word back"] == pytest.approx(1.0)
