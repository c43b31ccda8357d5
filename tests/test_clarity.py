"""The clarity measures of the audit (STYLE.md §4, issue 31), on scenes made for the test.

A number is legible when its glyphs are at least half opaque and no background-coloured veil
is drawn over it; the count is time-weighted over the moments at rest, outside the one
close-up; the ending's hold, the longest still stretch and groups that leave and come back
are read off the timeline.
"""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
from manim import RIGHT, UP, MathTex, Square, Text, VGroup, tempconfig

from scenes import DARK
from scenes.base import FROZEN_MAX, RETURN_SECONDS, WalkthroughScene, numbers_in
from scenes.components import NumberLabel, caption, fade_in, fade_out
from scenes.motion import veil

from .helpers import load_default_trace


@pytest.mark.parametrize("text, expected", [
    (Text("0.27"), 1),
    (Text("score = 0.54 at θ ≈ 73°"), 2),          # two numbers read
    (Text("h₃ and s₂"), 0),                         # Unicode subscripts are indices, not numbers
    (Text("no digits here"), 0),
    (MathTex(r"h_{3} \cdot s_{2}"), 0),             # a formula's indices do not count
    (MathTex(r"e_{2,3} = 0.41"), 1),
    (MathTex(r"\frac{1}{2}"), 2),                   # a fraction is read as two numbers
])
def test_numbers_in_worked_by_hand(text, expected):
    assert numbers_in(text) == expected


def test_a_number_label_is_one_number():
    assert numbers_in(NumberLabel(-0.11, DARK, ("x", 0))) == 1


class _Grid(WalkthroughScene):
    """A title, a 4x5 grid of numbers; modes veil half of it, dim it, mark a close-up,
    hold long, or take the grid away and bring it back."""

    scene_id = "_grid"

    def __init__(self, trace, theme, mode, **kw):
        self.mode = mode
        super().__init__(trace, theme, audit=True, **kw)

    def construct(self):
        title = caption("A grid of numbers", self.theme).to_edge(np.array([0, 1, 0]))
        grid = VGroup(*(NumberLabel(0.1 * (r * 5 + c), self.theme, ("g", r, c)).move_to(RIGHT * c - UP * r)
                        for r in range(4) for c in range(5))).move_to([0, -0.5, 0])
        self.add(title, grid)
        self.play(fade_in(Square(0.3).to_corner(np.array([-1, -1, 0]))), run_time=0.5)
        if self.mode == "veiled":
            self.play(fade_in(veil(self.theme, VGroup(*grid[:10]))), run_time=0.5)
        elif self.mode == "dimmed":
            self.play(*(n.animate.set_opacity(0.3) for n in grid[:15]), run_time=0.5)
        elif self.mode == "close_up":
            with self.close_up("the grid"):
                self.wait(1.0)
            self.play(*(n.animate.set_opacity(0.3) for n in grid), run_time=0.5)
        elif self.mode == "frozen":
            self.wait(FROZEN_MAX + 2.0)
            self.play(fade_in(Square(0.3)), run_time=0.5)
        elif self.mode == "return":
            self.play(fade_out(grid), run_time=0.5)
            self.wait(3.0)
            self.play(fade_in(grid), run_time=0.5)
        self.wait(12.0 if self.mode == "long_end" else 5.0)


def _clarity(mode):
    with tempfile.TemporaryDirectory() as media, tempconfig(
        {"dry_run": True, "quality": "low_quality", "verbosity": "ERROR", "progress_bar": "none", "media_dir": media}
    ):
        scene = _Grid(load_default_trace(), DARK, mode, skip_animations=True)
        scene.render()
    return scene.clarity()


def test_every_number_of_a_plain_grid_counts():
    c = _clarity("plain")
    assert (c.median_numbers, c.max_numbers) == (20, 20)
    assert any("20 numbers legible at once in the median" in f for f in c.faults())


def test_numbers_under_a_veil_do_not_count():
    c = _clarity("veiled")
    assert c.median_numbers == 10   # 10 of 20 under the veil for the 5 s that end the clip
    assert not any("median" in f for f in c.faults())


def test_numbers_dimmed_below_half_opacity_do_not_count():
    assert _clarity("dimmed").median_numbers == 5


def test_the_close_up_is_measured_apart():
    c = _clarity("close_up")
    assert c.close_ups == 1 and c.close_up_max == 20 and c.close_up_seconds == pytest.approx(1.0, abs=0.07)
    assert c.median_numbers == 0    # outside the close-up every number is dimmed
    # 1 s of a clip of about 7 s: under the fifth the close-up may take
    assert not any("close-up takes" in f for f in c.faults())


def test_a_long_ending_and_a_frozen_stretch_are_faults():
    assert any("the ending is held 12.00 s" in f for f in _clarity("long_end").faults())
    frozen = _clarity("frozen")
    assert frozen.longest_still == pytest.approx(FROZEN_MAX + 2.0, abs=0.07)
    assert any("nothing moves for" in f for f in frozen.faults())
    assert not any("nothing moves" in f for f in _clarity("plain").faults())


def test_a_group_that_leaves_and_comes_back_is_a_fault():
    c = _clarity("return")
    assert 3.0 < RETURN_SECONDS and len(c.returns) == 1 and "0.00" in c.returns[0][0]
    assert any("comes back, unchanged" in f for f in c.faults())
    assert _clarity("plain").returns == ()


def test_the_smallest_text_is_named_in_pixels():
    c = _clarity("plain")
    px, what, _ = c.smallest_text
    assert "NumberLabel" in what and 14.0 < px < 14.5   # NUMBER_SIZE 23.5 pt: 14.3 px at 480p
