"""scenes/clarity_moves.py: digits dimmed to chips and back, transposes in order, the ending's hold.

Each builder is checked on small objects made here (no scene render): opacities read off the
glyphs as the audit reads them, the transpose's flights probed along its run, a column's copy
measured as it turns.
"""

from __future__ import annotations

import numpy as np
import pytest
from manim import RIGHT, DOWN, VGroup
from manim.utils.rate_functions import linear

from scenes.base import LEGIBLE_OPACITY
from scenes.clarity_moves import (
    LABEL_DIM,
    QUIET,
    _Turn,
    dim_labels,
    end_on_poster,
    quiet,
    set_quiet,
    turn_columns,
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


def _flight_starts(group, n_probe: int = 2001) -> list[float]:
    """When each column's copy starts to move: the first alpha its rate function leaves 0."""
    turns = [a for a in group.animations if isinstance(a, _Turn)]
    alphas = np.linspace(0, 1, n_probe)
    return [float(next(x for x in alphas if t.rate_func(x) > 1e-9)) for t in turns]


def test_turn_columns_moves_one_column_after_another():
    cols = [_cells([1, 2, 3], f"c{k}").shift(RIGHT * k) for k in range(4)]
    rows = [_cells([1, 2, 3], f"r{k}").arrange(RIGHT, buff=0).shift(DOWN * (3 + k)) for k in range(4)]
    group = turn_columns(cols, rows, lag_ratio=0.6)
    starts = _flight_starts(group)
    assert len(starts) == 4
    # Worked by hand: flights of span 0.8 / (1 + 0.6 * 3) = 0.2857 each, starting 0.6 * span apart
    # after the digits' first tenth: 0.1, 0.2714, 0.4429, 0.6143.
    span = 0.8 / 2.8
    assert starts == pytest.approx([0.1 + k * 0.6 * span for k in range(4)], abs=1e-3)
    gaps = np.diff(starts)
    assert np.all(gaps >= 0.3 * span - 1e-3)  # never all twelve boxes at once
    # The moves are recorded column k -> row k, in order.
    assert group.move_records == [("transpose", ("column", k), ("row", k)) for k in range(4)]


def test_turn_columns_refuses_a_jumble_and_a_mismatch():
    cols = [_cells([1, 2]) for _ in range(2)]
    with pytest.raises(ValueError, match="lag_ratio"):
        turn_columns(cols, cols, lag_ratio=0.1)
    with pytest.raises(ValueError, match="2 columns for 1 rows"):
        turn_columns(cols, cols[:1])


def test_a_column_turns_a_quarter_turn_and_lands_on_its_row():
    column = VGroup(*(c.box.copy() for c in _cells([1, 2, 3])))  # 3 boxes stacked: 0.9 wide, 1.26 tall
    row = VGroup(*(c.box.copy() for c in _cells([1, 2, 3]))).arrange(RIGHT, buff=0).shift(RIGHT * 4 + DOWN * 2)
    w, h = column.width, column.height
    turn = _Turn(column, row, rate_func=linear)
    turn.begin()
    _run(turn, 0.72)  # turned (smooth(0.954) ~ 0.99), barely settling (smooth(0.067) ~ 0.01)
    assert column.width == pytest.approx(h, rel=0.06) and column.height == pytest.approx(w, rel=0.06)
    _run(turn, 1.0)
    # Landed: the same box as the row (each rectangle's outline starts one side later, same corners).
    assert column.get_center() == pytest.approx(row.get_center(), abs=1e-6)
    assert column.width == pytest.approx(row.width, abs=1e-6)
    assert column.height == pytest.approx(row.height, abs=1e-6)
    # Anticlockwise: the column's top box ends on the row's left.
    first = column.submobjects[0]
    assert first.get_center() == pytest.approx(row.submobjects[0].get_center(), abs=1e-6)


class _Pacer:
    def __init__(self, text: str, since: float) -> None:
        self.current = VGroup()
        self.current.text = text
        self.since = since
        self.log = [(text, since, None)]

    @staticmethod
    def needed(text: str) -> float:
        return max(1.5, len(text.split()) / 3)


class _Scene:
    def __init__(self) -> None:
        self.time = 10.0

    def wait(self, s: float) -> None:
        self.time += s


def test_end_on_poster_holds_at_least_four_seconds_and_the_caption_read():
    scene = _Scene()
    end_on_poster(scene, _Pacer("one two three", since=10.0))  # read in 1.5 s: the 4 s hold rules
    assert scene.time - 10.0 == pytest.approx(4.0)
    scene = _Scene()
    pacer = _Pacer(" ".join(["word"] * 18), since=10.0)  # 6 s to read
    end_on_poster(scene, pacer)
    assert 6.0 < scene.time - 10.0 < 6.2
    assert pacer.log[-1][2] == scene.time


def test_end_on_poster_refuses_a_caption_that_would_freeze_the_ending():
    with pytest.raises(ValueError, match="over"):
        end_on_poster(_Scene(), _Pacer(" ".join(["word"] * 30), since=10.0))  # 10 s to read
