"""The audit itself must catch what it claims to catch, or the scene tests prove nothing."""

from __future__ import annotations

import tempfile

import pytest
import numpy as np
from manim import LEFT, RIGHT, FadeIn, VGroup, tempconfig

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
        elif self.mode in ("read-apart", "read-whole"):
            h = float(self.trace.encoder.hidden[1][0])
            line = VGroup(caption("the first state is", self.theme),
                          NumberLabel(h, self.theme, key=("encoder.hidden.1", 0))).arrange(RIGHT)
            if self.mode == "read-whole":
                line.text = f"the first state is {line[1].shown}"  # says how the line reads
            self.play(FadeIn(VGroup(line)))
        elif self.mode == "hidden-outside":
            # What cannot be seen is not checked, even beyond the edge (a glyph at opacity 0).
            hidden = caption("hidden", self.theme).move_to(RIGHT * 8).set_opacity(0)
            self.play(FadeIn(VGroup(caption("seen", self.theme), hidden)))
        elif self.mode == "handles-outside":
            # Only the curve's anchors count for its box (as Manim's get_corner): handles beyond the
            # edge, anchors inside, is no fault.
            from manim import VMobject

            curve = VMobject(stroke_color=self.theme.text).set_points(
                np.array([[6.5, 0, 0], [9.5, 0.2, 0], [9.5, 0.8, 0], [6.5, 1, 0]]))
            self.play(FadeIn(curve))
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


def test_a_hidden_text_beyond_the_edge_is_no_fault_and_a_seen_one_is():
    assert _run("hidden-outside").audit.faults == []
    assert any("outside the frame" in f for f in _run("outside").audit.faults)


def test_handles_beyond_the_edge_with_anchors_inside_are_no_fault():
    assert _run("handles-outside").audit.faults == []


def test_overlapping_texts_are_a_fault():
    assert any("texts overlap" in f for f in _run("overlap").audit.faults)


def test_clean_layout_has_no_fault():
    assert _run("clean").audit.faults == []


def test_a_wrong_number_on_screen_is_caught():
    scene = _run("wrong-number")
    with pytest.raises(AssertionError, match="encoder.hidden.1"):
        check_numbers(scene, load_default_trace())


# --- the legibility floor ------------------------------------------------------


class _Sized(WalkthroughScene):
    """Three texts of known size: a caption at 24, a number at 18 scaled by
    0.5 (so 9 points), a formula at 30."""

    def construct(self):
        from scenes.components import math_label

        big = caption("big words", self.theme, font_size=24).shift(LEFT * 3)
        small = NumberLabel(float(self.trace.encoder.hidden[1][0]), self.theme,
                            key=("encoder.hidden.1", 0), font_size=18).scale(0.5)
        formula = math_label("h_{3}", self.theme, font_size=30).shift(RIGHT * 3)
        self.play(FadeIn(big), FadeIn(small), FadeIn(formula))


def _run_sized(floor, quality="low_quality"):
    with tempfile.TemporaryDirectory() as media, tempconfig(
        {"dry_run": True, "verbosity": "ERROR", "progress_bar": "none", "media_dir": media,
         "quality": quality}
    ):
        scene = _Sized(load_default_trace(), DARK, audit=True, skip_animations=True)
        scene.audit.min_text_px = floor
        scene.render()
    return scene


def test_the_legibility_floor_is_off_by_default():
    assert _run_sized(None).audit.faults == []


def test_text_below_the_floor_is_a_fault_naming_its_size():
    # At 480p the 8-unit frame is 480 px: 60 px per unit. A capital of
    # DejaVu at 9 points is 9 * 0.0101 units = 0.547 * 60 = 5.5 px; at 24
    # points 14.6 px; the formula's capital at 30 points 30 * 0.00709 * 60 = 12.8 px.
    faults = _run_sized(10).audit.faults
    assert len(faults) == 1, faults
    assert faults[0].startswith("text too small: NumberLabel(")
    assert faults[0].endswith("is 5.5 px tall (floor 10 px)")
    assert len(_run_sized(13).audit.faults) == 2  # the formula's 12.8 px too
    assert len(_run_sized(14.5).audit.faults) == 2  # the caption's 14.6 px passes
    assert len(_run_sized(14.7).audit.faults) == 3


def test_the_floor_is_in_pixels_of_the_render():
    # At 1080p the same 9-point number is 1080 / 8 * 0.0911 = 12.3 px.
    assert _run_sized(12, "high_quality").audit.faults == []


def test_measured_text_height_matches_the_pixels_of_a_capital():
    from manim import Text

    from scenes.base import text_height_px

    with tempconfig({"quality": "low_quality"}):
        h = Text("H", font=DARK.font, font_size=40)
        assert text_height_px(h) == pytest.approx(h.height * 60, rel=1e-3)
        h.scale(0.25)
        assert text_height_px(h) == pytest.approx(h.height * 60, rel=1e-3)
        assert text_height_px(Text("", font=DARK.font)) is None


# --- the shared builders keep text above the floor ----------------------------


def test_a_long_word_keeps_the_smallest_size_and_loses_its_end():
    from scenes.components import MIN_FONT_SIZE, readable_text, word_box

    word = "pneumonoultramicroscopicsilicovolcanoconiosis"  # 45 letters
    boxed = word_box(word, DARK, DARK.text, font_size=24)
    text = boxed[1]
    assert MIN_FONT_SIZE - 1e-6 <= text.font_size <= 1.05 * MIN_FONT_SIZE
    assert text.text.endswith("\u2026") and word.startswith(text.text[:-1])
    assert len(text.text) >= 15  # as much of the word as 3.2 units hold at the floor (18 letters)
    assert text.width <= 3.2 + 1e-6
    assert text.full_text == word
    # 20 letters fit the box at 24 points: neither shrunk nor cut.
    whole = word_box("internationalisation", DARK, DARK.text, font_size=24)[1]
    assert whole.text == "internationalisation" and whole.font_size == pytest.approx(24)
    # A word that fits by shrinking a little is shrunk, not cut.
    at_24 = readable_text("dernières", DARK, 24, max_width=100.0).width
    mid = readable_text("dernières", DARK, 24, max_width=0.99 * at_24)  # fits at 23.76 points, over the 23.5 floor
    assert mid.text == "dernières" and MIN_FONT_SIZE < mid.font_size < 24
    assert mid.width == pytest.approx(0.99 * at_24, rel=1e-3)


def test_a_number_too_wide_for_its_cell_drops_decimals_not_size():
    from scenes.components import MIN_FONT_SIZE, ValueCell

    # 0.9 wide: "-634" fits at the floor (23.5 points: 0.76 of the cell's 0.81), "-634.45" does not.
    narrow = ValueCell(-634.45, DARK, ("x", 0), width=0.9)
    assert narrow.number.font_size >= MIN_FONT_SIZE - 1e-6
    assert narrow.number.shown in ("\u2212634.5", "\u2212634")
    assert narrow.number.width <= 0.9 * 0.9 + 1e-6
    wide = ValueCell(-634.45, DARK, ("x", 0), width=1.6)
    assert wide.number.shown == "\u2212634.45" and wide.number.decimals == 2


def test_twelve_long_words_wrap_to_three_rows_at_a_readable_size():
    from scenes.components import TokenStrip

    words = ["characteristically", "incomprehensibility", "disproportionately"] * 4  # 18-19 letters
    strip = TokenStrip(words, DARK, max_width=13.0)
    rows = sorted({round(b.get_y(), 2) for b in strip.boxes})
    assert len(rows) == 3
    assert strip.width <= 13.0 + 1e-6
    assert min(w.font_size for w in strip.words) >= 0.8 * 12 - 1e-6


# -- blank moments and blinks (issue 22) -------------------------------------------------

class _Continuity(WalkthroughScene):
    def __init__(self, trace, theme, mode, **kw):
        self.mode = mode
        super().__init__(trace, theme, audit=True, **kw)

    def construct(self):
        from manim import Square, VGroup

        from scenes.components import fade_in, fade_out
        title = caption("A title on top", self.theme).to_edge(np.array([0, 1, 0]))
        shapes = VGroup(*(Square(0.5).shift(RIGHT * k) for k in range(4)))
        numbers = VGroup(NumberLabel(0.25, self.theme, ("x", 0)), NumberLabel(0.5, self.theme, ("x", 1)).shift(RIGHT))
        self.add(title, shapes, numbers)
        self.wait(0.5)
        if self.mode == "blank":
            self.play(fade_out(shapes), fade_out(numbers))
            self.wait(1.0)
        elif self.mode == "blink":
            self.play(fade_out(numbers), run_time=0.5)
            self.play(fade_in(numbers), run_time=0.5)
        elif self.mode == "changed":
            other = VGroup(NumberLabel(0.75, self.theme, ("x", 0)), NumberLabel(0.5, self.theme, ("x", 1)).shift(RIGHT))
            self.play(fade_out(numbers), run_time=0.5)
            self.play(fade_in(other), run_time=0.5)
        elif self.mode == "slow":
            self.play(fade_out(numbers), run_time=0.5)
            self.wait(2.0)
            self.play(fade_in(numbers), run_time=0.5)
        self.wait(1.0)


def _continuity(mode):
    with tempfile.TemporaryDirectory() as media, tempconfig(
        {"dry_run": True, "verbosity": "ERROR", "progress_bar": "none", "media_dir": media}
    ):
        scene = _Continuity(load_default_trace(), DARK, mode, skip_animations=True)
        scene.audit.sample_transitions = True
        scene.render()
    return scene.audit


def test_a_blank_picture_is_caught():
    audit = _continuity("blank")
    assert audit.blank_at and any("blank" in f for f in audit.motion_faults())


def test_a_group_that_goes_and_comes_back_unchanged_blinks():
    audit = _continuity("blink")
    assert len(audit.blinks) == 1 and "0.25" in audit.blinks[0][0]
    assert not audit.blank_at


@pytest.mark.parametrize("mode", ["changed", "slow", "none"])
def test_a_changed_or_slow_return_is_no_blink(mode):
    audit = _continuity(mode)
    assert audit.motion_faults() == []


def test_the_audits_box_is_manims_box():
    """The audit's bounding box (scenes.base._bounds, a fast path) equals Manim's own
    get_corner / get_center on every kind of mobject the scenes show: texts, formulas,
    shapes with and without children, a lone point, groups, a mobject with no point."""
    from manim import (DL, UR, Arc, Circle, Dot, Group, Line, MathTex, Mobject, Rectangle, Text,
                       VGroup, VMobject)

    from scenes.base import _box, _centre

    single = VMobject()
    single.set_points(np.array([[0.3, -0.2, 0.0]]))
    shape_with_children = Rectangle(width=2, height=1).shift(LEFT)
    shape_with_children.add(Dot().shift(RIGHT * 3 + np.array([0, 2.5, 0])))
    plain = Mobject()
    plain.points = np.array([[1.0, 2.0, 0.0], [-4.0, 0.5, 0.0]])
    cases = [
        Text("growth years", font_size=30).shift(RIGHT * 1.3),
        MathTex(r"s_{t-1} = \sum_j a_{tj} h_j").rotate(0.3),
        Arc(start_angle=0.4, angle=2.0),  # handles bulge past the anchors: corners read anchors only
        Circle().scale(0.7).shift(np.array([2, -1, 0])),
        Line(LEFT * 2, RIGHT + np.array([0, 3, 0])),
        VGroup(Text("a"), VGroup(Dot().shift(LEFT * 5), VGroup())),
        shape_with_children,
        single,
        Group(plain, Dot().shift(np.array([0, -3, 0]))),
    ]
    for mob in cases:
        lo, hi = mob.get_corner(DL), mob.get_corner(UR)
        assert _box(mob) == (lo[0], lo[1], hi[0], hi[1]), type(mob).__name__
        assert np.array_equal(_centre(mob), mob.get_center()), type(mob).__name__
    assert _box(VGroup()) == (0.0, 0.0, 0.0, 0.0) and np.array_equal(_centre(VGroup()), VGroup().get_center())


def test_overlapping_pairs_worked_by_hand():
    """Boxes (x0, y0, x1, y1): a and b share a 0.5 x 0.5 corner, c touches a only along an
    edge (no overlap), d sits inside b, e is far away; pairs come in double-loop order."""
    from scenes.base import OVERLAP_TOLERANCE, _overlapping_pairs

    a, b, c = (0, 0, 1, 1), (0.5, 0.5, 2, 2), (1, 0, 2, 0.4)
    d, e = (1.2, 1.2, 1.5, 1.5), (5, 5, 6, 6)
    assert _overlapping_pairs([a, b, c, d, e]) == [(0, 1), (1, 3)]
    assert _overlapping_pairs([a]) == [] and _overlapping_pairs([]) == []
    sliver = (1 - OVERLAP_TOLERANCE / 2, 0, 3, 1)  # overlaps a by less than the tolerance
    assert _overlapping_pairs([a, sliver]) == []


def test_a_number_beside_a_sentence_is_read_apart_unless_the_line_says_how_it_reads():
    apart = [f for f in _run("read-apart").audit.faults if "read apart" in f]
    assert len(apart) == 1 and "'the first state is'" in apart[0]
    assert _run("read-whole").audit.faults == []
