"""The audit itself must catch what it claims to catch, or the scene tests prove nothing."""

from __future__ import annotations

import tempfile

import pytest
from manim import LEFT, RIGHT, FadeIn, tempconfig

from scenes import DARK
from scenes.base import WalkthroughScene
from scenes.components import NumberLabel, caption

from .helpers import check_numbers, load_default_trace


class _Faulty(WalkthroughScene):
    def __init__(self, trace, theme, mode, **kw):
        self.mode = mode
        super().__init__(trace, theme, audit=True, **kw)

    def construct(self):
        if self.mode == "outside":
            self.play(FadeIn(caption("far right", self.theme).move_to(RIGHT * 7.5)))
        elif self.mode == "overlap":
            a = caption("first", self.theme)
            b = caption("second", self.theme).move_to(a.get_center() + RIGHT * 0.2)
            self.play(FadeIn(a), FadeIn(b))
        elif self.mode == "clean":
            self.play(FadeIn(caption("left", self.theme).shift(LEFT * 3)),
                      FadeIn(caption("right", self.theme).shift(RIGHT * 3)))
        elif self.mode == "wrong-number":
            h = float(self.trace.encoder.hidden[1][0])
            self.play(FadeIn(NumberLabel(h + 0.5, self.theme, key=("encoder.hidden.1", 0))))


def _run(mode):
    with tempfile.TemporaryDirectory() as media, tempconfig(
        {"dry_run": True, "verbosity": "ERROR", "progress_bar": "none", "media_dir": media}
    ):
        scene = _Faulty(load_default_trace(), DARK, mode, skip_animations=True)
        scene.render()
    return scene


def test_text_outside_the_frame_is_a_fault():
    assert any("outside the frame" in f for f in _run("outside").audit.faults)


def test_overlapping_texts_are_a_fault():
    assert any("texts overlap" in f for f in _run("overlap").audit.faults)


def test_clean_layout_has_no_fault():
    assert _run("clean").audit.faults == []


def test_a_wrong_number_on_screen_is_caught():
    scene = _run("wrong-number")
    with pytest.raises(AssertionError, match="encoder.hidden.1"):
        check_numbers(scene, load_default_trace())
