"""The shared moves (scenes/motion.py) and the palette of roles (scenes/theme.py).

The moves are played in a tiny scene headless, frame by frame, and asked
where things are at their start, quarters and end; the palette is checked
with CIEDE2000 against Sharma, Wu and Dalal's published test pairs first.
"""

from __future__ import annotations

import itertools
import math
import tempfile

import numpy as np
import pytest
from manim import DOWN, LEFT, RIGHT, UP, Rectangle, VGroup, tempconfig
from manim.utils.rate_functions import linear

from scenes.base import WalkthroughScene, _sample_points
from scenes.components import NumberLabel, ValueCell, VectorColumn, caption
from scenes.motion import MAX_ARC, _Turn, drop_row, feed_back, fly, gather, hand_off, slide, transpose
from scenes.theme import DARK, LIGHT, ROLES, delta_e_2000, hex_to_lab

from .helpers import load_default_trace


# -- the colour difference ------------------------------------------------------------

@pytest.mark.parametrize("lab1, lab2, expected", [
    # Sharma, Wu, Dalal (2005), "The CIEDE2000 colour-difference formula", Table 1, pairs 1, 7, 17, 25.
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
])
def test_delta_e_matches_the_published_pairs(lab1, lab2, expected):
    assert delta_e_2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert delta_e_2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_lab_of_known_colours():
    # White is L=100, a=b=0; black L=0; pure sRGB red is about (53.24, 80.09, 67.20).
    assert hex_to_lab("#FFFFFF") == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert hex_to_lab("#000000") == pytest.approx((0.0, 0.0, 0.0), abs=0.01)
    assert hex_to_lab("#FF0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


# -- the palette ----------------------------------------------------------------------

#: The distinct roles: x, h, s, op / e_w, e_tj / E, a_tj / A, c_t / o / O (query = s, keys = h).
DISTINCT = ("x", "h", "s", "op", "E", "A", "c_t")


@pytest.mark.parametrize("theme", [DARK, LIGHT], ids=["dark", "light"])
def test_every_two_roles_differ_at_a_glance(theme):
    close = []
    for a, b in itertools.combinations(DISTINCT, 2):
        d = delta_e_2000(hex_to_lab(theme.role(a)), hex_to_lab(theme.role(b)))
        if d < 20:
            close.append(f"{a} {theme.role(a)} / {b} {theme.role(b)}: {d:.1f}")
    assert not close, close


@pytest.mark.parametrize("theme", [DARK, LIGHT], ids=["dark", "light"])
def test_roles_stand_out_from_the_background_and_highlight_is_neutral(theme):
    bg = hex_to_lab(theme.background)
    for r in DISTINCT:
        assert delta_e_2000(hex_to_lab(theme.role(r)), bg) >= 30, r
    _, a, b = hex_to_lab(theme.highlight)
    assert math.hypot(a, b) < 8  # no hue: a ring points, it claims no role
    for r in DISTINCT:
        assert delta_e_2000(hex_to_lab(theme.highlight), hex_to_lab(theme.role(r))) >= 20, r


@pytest.mark.parametrize("theme", [DARK, LIGHT], ids=["dark", "light"])
def test_one_colour_per_role_across_the_parts(theme):
    # s_2 is the query and the h_i are the keys: Part 2 keeps Part 1's colours.
    assert theme.query == theme.decoder == theme.role("s") == theme.role("Q")
    assert theme.key == theme.encoder == theme.role("keys") == theme.role("X")
    assert theme.role("op") == theme.role("e_w") and theme.role("E") == theme.role("e_tj")
    assert theme.role("A") == theme.role("a_tj") == theme.weight == theme.heat_high
    assert theme.role("c_t") == theme.role("o") == theme.role("O") == theme.value
    assert set(ROLES.values()) <= set(theme.__dataclass_fields__)


# -- the moves ------------------------------------------------------------------------

class _Stage(WalkthroughScene):
    """Plays one built move; ``probe`` records where things are at each frame."""

    def __init__(self, build, probe=None, **kw):
        self.build, self.probe, self.frames = build, probe, []
        super().__init__(load_default_trace(), DARK, audit=True, **kw)

    def construct(self):
        anim, shown = self.build(self)
        self.add(*shown)
        if self.probe is not None:
            self.add_updater(lambda dt: self.frames.append(self.probe()))
        self.play(anim)


def _play(build, probe=None, skip=False):
    with tempfile.TemporaryDirectory() as media, tempconfig({
        "dry_run": True, "quality": "low_quality", "verbosity": "ERROR",
        "progress_bar": "none", "media_dir": media, "disable_caching": True,
    }):
        scene = _Stage(build, probe, skip_animations=skip)
        scene.audit.sample_transitions = True
        scene.render()
    return scene


def _column(values=(0.5, -0.25, 1.0)):
    return VectorColumn(list(values), DARK, key="model.decoder_states.1")


def test_slide_moves_rigidly_and_lands_exactly():
    col = _column().move_to(LEFT * 3)
    goal = np.array([2.0, 1.0, 0.0])
    sizes = []

    def probe():
        sizes.append((col.width, col.height))
        return col.get_center().copy()

    scene = _play(lambda s: (slide(col, goal, run_time=1.0, src="a", dst="b"), [col]), probe)
    assert np.allclose(col.get_center(), goal)
    w, h = sizes[0]
    assert all(abs(a - w) < 1e-6 and abs(b - h) < 1e-6 for a, b in sizes)  # rigid: never scaled
    # Straight: every sampled centre lies on the segment.
    start, d = np.array([-3.0, 0, 0]), goal - np.array([-3.0, 0, 0])
    for c in scene.frames:
        cross = (c - start)[0] * d[1] - (c - start)[1] * d[0]
        assert abs(cross) < 1e-6
    assert scene.moves == [("slide", "a", "b")]


def test_an_arc_leaves_the_straight_line_and_a_wider_one_is_refused():
    col = _column().move_to(LEFT * 3)
    scene = _play(lambda s: (slide(col, RIGHT * 3, path_arc=MAX_ARC), [col]), lambda: col.get_center().copy())
    assert max(abs(c[1]) for c in scene.frames) > 0.5
    assert np.allclose(col.get_center(), RIGHT * 3)
    with pytest.raises(ValueError, match="pi/3"):
        slide(col, LEFT, path_arc=math.pi / 2)


def test_slide_through_waypoints_passes_them():
    col = _column().move_to(LEFT * 3)
    via = [(-3.0, -2.0, 0.0), (3.0, -2.0, 0.0)]
    scene = _play(lambda s: (slide(col, RIGHT * 3, via=via, run_time=2), [col]), lambda: col.get_center().copy())
    assert min(c[1] for c in scene.frames) == pytest.approx(-2.0, abs=0.15)
    assert np.allclose(col.get_center(), RIGHT * 3)


def test_hand_off_moves_the_state_itself_into_the_slot():
    col = _column().move_to(RIGHT * 2)
    old = _column((0.0, 0.0, 0.0)).move_to(LEFT * 3)
    label = caption("s1", DARK).next_to(col, UP)
    slot_label = caption("s0 slot", DARK).next_to(old, UP)
    digit = [m for m in col.get_family() if isinstance(m, NumberLabel)][0]
    seen = []

    def probe():
        return float(digit.get_fill_opacity()), col.get_center().copy(), col.width

    def build(s):
        return hand_off(col, old.get_center(), leaving=[old, label], label=None, slot_label=slot_label,
                        what="s", src=("s", 1), dst=("s_prev", 2)), [col, old, label]

    width = col.width
    scene = _play(build, probe)
    assert np.allclose(col.get_center(), LEFT * 3)  # the same mobject is now the slot's occupant
    assert col.width == pytest.approx(width)
    assert digit.get_fill_opacity() == pytest.approx(1.0)
    opac = [o for o, _, _ in scene.frames]
    assert min(opac) < 0.02  # no digits in flight ...
    mid = [(o, w) for o, c, w in scene.frames if -2.5 < c[0] < 1.5]
    assert mid and all(o < 0.05 for o, _ in mid)
    assert min(w for _, w in mid) < 0.7 * width  # ... the cells travel as a chip
    assert old not in scene.mobjects and slot_label in scene.mobjects
    assert scene.moves == [("s", ("s", 1), ("s_prev", 2))]


def test_feed_back_carries_a_word_along_its_lane():
    word = caption("le", DARK, 40).move_to(RIGHT * 3 + UP)
    target = caption("le", DARK, 24).move_to(LEFT * 3 + UP)
    ys = []

    def build(s):
        anim = feed_back(word, target, lane_y=-2.5, run_time=2)
        ghost = anim.animations[0].mobject
        s.ghost = ghost
        return anim, [word]

    scene = _play(build, lambda: None)
    assert target in scene.mobjects and word in scene.mobjects
    assert scene.ghost not in scene.mobjects
    assert scene.moves == [("feed_back", "le", None)]


def test_drop_row_and_fly_and_gather_record_their_moves():
    row = _column().move_to(LEFT * 3)
    cells = _column().move_to(RIGHT * 3)
    total = _column().move_to(UP * 2)
    parts = [_column().move_to(DOWN * 2 + LEFT * 2), _column().move_to(DOWN * 2 + RIGHT * 2)]

    def build(s):
        from manim import Succession
        return Succession(drop_row([row], [cells], 2), fly(row, total, what="x"),
                          gather(parts, total, [0.2, 0.8])), [row, *parts]

    scene = _play(build, skip=True)
    assert [m[0] for m in scene.moves] == ["drop_row", "x", "gather"]
    assert scene.moves[0] == ("drop_row", ("row", 2), ("matrix", 2))
    assert scene.moves[2][2] == "model.decoder_states.1"


def test_the_audit_looks_at_a_slide_at_its_quarters():
    col = _column()
    assert _sample_points([slide(col, RIGHT, run_time=2)]) == [0.25, 0.5, 0.75]
    assert _sample_points([fly(col, col.copy(), run_time=2)]) == [0.5]


def test_a_slide_across_a_text_is_caught_by_the_audit():
    # At its middle the moving word sits on "obstacle"; the quarter samples see it too.
    word = caption("moving", DARK).move_to(LEFT * 4)
    block = caption("obstacle", DARK)
    scene = _play(lambda s: (slide(word, RIGHT * 4, run_time=1), [word, block]), skip=True)
    assert any("texts overlap" in f for f in scene.audit.faults)


def test_file_row_leaves_along_its_line_then_turns_into_the_matrix_row():
    # A weight row files into its matrix row (attention_process): the boxes first slide along
    # the row's own line (so they cross nothing above or below it), then turn up into the row.
    from manim import VGroup

    from scenes.components import ValueCell
    from scenes.motion import _elbow, file_row

    row = VGroup(*[ValueCell(v, DARK, ("w", j), 0.9, 0.28).move_to([-3 + j, -1, 0])
                   for j, v in enumerate((0.1, 0.7, 0.2))])
    target = VGroup(*[ValueCell(v, DARK, None, 0.2, 0.15, show_number=False).move_to([5 + 0.2 * j, 2, 0])
                      for j, v in enumerate((0.1, 0.7, 0.2))])
    start = np.array([[-3.0, -1.0, 0.0], [-1.0, -1.0, 0.0]])
    end = np.array([[5.0, 2.0, 0.0], [5.4, 1.5, 0.0]])
    corner = _elbow(start, end, 0.5)
    assert np.allclose(corner[:, 0], end[:, 0]) and np.allclose(corner[:, 1], start[:, 1])
    assert np.allclose(_elbow(start, end, 0.25)[:, 1], start[:, 1])  # along its own line
    assert np.allclose(_elbow(start, end, 0.75)[:, 0], end[:, 0])  # then straight up
    assert np.allclose(_elbow(start, end, 1.0), end)

    scene = _play(lambda s: (file_row(row, target, 4, run_time=1.0), [row]), skip=True)
    assert scene.moves == [("drop_row", ("row", 4), ("matrix", 4))]
    assert all(c in scene.get_mobject_family_members() for c in target)
    on_screen = scene.get_mobject_family_members()
    digits = [m for c in row for m in c.get_family() if isinstance(m, NumberLabel)]
    assert len(digits) == 3
    assert not any(d in on_screen and d.get_fill_opacity() > 0 for d in digits)  # the row left its digits


def test_unfold_strip_grows_each_chip_into_its_column_and_records_it():
    # The strip of encoder states (issue 22): chip j becomes column j, no digits in flight,
    # the strip gone after it and the columns standing in its place.
    from manim import VGroup

    from scenes.components import StateStrip
    from scenes.motion import unfold_strip

    states = np.array([[0.5, -0.25, 1.0], [-0.9, 0.1, 0.3]])
    strip = StateStrip(states, DARK)
    cols = [VGroup(VectorColumn(list(h), DARK, key=f"model.encoder_states.{j + 1}"),
                   caption(f"h{j + 1}", DARK)).move_to([-2 + 4 * j, 1.5, 0]) for j, h in enumerate(states)]
    for col in cols:
        col[1].next_to(col[0], DOWN)
    chip_boxes, digit = [], [m for m in cols[0].get_family() if isinstance(m, NumberLabel)][0]

    def probe():
        chip_boxes.append((strip[0][0].get_center().copy(), strip[0][0].height, float(digit.get_fill_opacity())))

    start, h0 = strip[0][0].get_center().copy(), strip[0][0].height
    scene = _play(lambda s: (unfold_strip(strip, cols, run_time=2.0), [strip]), probe)
    assert scene.moves == [("unfold_strip", ("strip", 0), "model.encoder_states.1"),
                           ("unfold_strip", ("strip", 1), "model.encoder_states.2")]
    on_screen = scene.get_mobject_family_members()
    assert all(c in on_screen for c in cols) and not any(part[0] in on_screen for part in strip)
    # The chip itself travels from the strip up to its column and stretches to its size ...
    assert start[1] < -2.5 and h0 < 1.0  # where the strip rests (components.STATE_STRIP_BOTTOM)
    near = [(c, h) for c, h, _ in chip_boxes if abs(c[1] - cols[0][0].get_y()) < 0.3]
    assert near and max(h for _, h in near) > 0.8 * cols[0][0].frame.height
    # ... with no digits shown while it moves (they fade in as it lands).
    moving = [o for c, _, o in chip_boxes if start[1] + 0.5 < c[1] < cols[0][0].get_y() - 0.5]
    assert moving and max(moving) < 0.05
    with pytest.raises(ValueError, match="2 chips for 1 columns"):
        unfold_strip(StateStrip(states, DARK), cols[:1])


# -- the transpose: column k turns into row k ------------------------------------------

def _cells(values, key="t") -> VGroup:
    return VGroup(*(ValueCell(v, DARK, (key, k)) for k, v in enumerate(values))).arrange(DOWN, buff=0)


def _flight_starts(group, n_probe: int = 2001) -> list[float]:
    """When each column's copy starts to move: the first alpha its rate function leaves 0."""
    turns = [a for a in group.animations if isinstance(a, _Turn)]
    alphas = np.linspace(0, 1, n_probe)
    return [float(next(x for x in alphas if t.rate_func(x) > 1e-9)) for t in turns]


def test_transpose_by_column_moves_one_column_after_another():
    cols = [_cells([1, 2, 3], f"c{k}").shift(RIGHT * k) for k in range(4)]
    rows = [_cells([1, 2, 3], f"r{k}").arrange(RIGHT, buff=0).shift(DOWN * (3 + k)) for k in range(4)]
    group = transpose(cols, rows, turn="column", lag_ratio=0.6)
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


def test_transpose_refuses_a_jumble_a_mismatch_and_an_unknown_turn():
    cols = [_cells([1, 2]) for _ in range(2)]
    with pytest.raises(ValueError, match="lag_ratio"):
        transpose(cols, cols, lag_ratio=0.1)
    with pytest.raises(ValueError, match="2 columns for 1 rows"):
        transpose(cols, cols[:1])
    with pytest.raises(ValueError, match="turn 'rows' is not one of column, all"):
        transpose(cols, cols, turn="rows")
    transpose(cols, cols, turn="all", lag_ratio=0.0)  # no order to keep: every column at once


def test_a_column_turns_a_quarter_turn_and_lands_on_its_row():
    column = VGroup(*(c.box.copy() for c in _cells([1, 2, 3])))  # 3 boxes stacked: 0.9 wide, 1.26 tall
    row = VGroup(*(c.box.copy() for c in _cells([1, 2, 3]))).arrange(RIGHT, buff=0).shift(RIGHT * 4 + DOWN * 2)
    w, h = column.width, column.height
    turn = _Turn(column, row, rate_func=linear)
    turn.begin()
    turn.interpolate(0.72)  # turned (smooth(0.954) ~ 0.99), barely settling (smooth(0.067) ~ 0.01)
    assert column.width == pytest.approx(h, rel=0.06) and column.height == pytest.approx(w, rel=0.06)
    turn.interpolate(1.0)
    # Landed: the same box as the row (each rectangle's outline starts one side later, same corners).
    assert column.get_center() == pytest.approx(row.get_center(), abs=1e-6)
    assert column.width == pytest.approx(row.width, abs=1e-6)
    assert column.height == pytest.approx(row.height, abs=1e-6)
    # Anticlockwise: the column's top box ends on the row's left.
    first = column.submobjects[0]
    assert first.get_center() == pytest.approx(row.submobjects[0].get_center(), abs=1e-6)


def test_transpose_all_at_once_turns_every_column_together():
    cols = [_cells([1, 2, 3], f"c{k}").shift(RIGHT * k) for k in range(4)]
    rows = [_cells([1, 2, 3], f"r{k}").arrange(RIGHT, buff=0).shift(DOWN * (3 + k)) for k in range(4)]
    group = transpose(cols, rows, turn="all", lag_ratio=0.6)  # the lag is a column-by-column option
    # Every flight spans the whole 0.1 .. 0.9 stretch between the digits' fades.
    assert _flight_starts(group) == pytest.approx([0.1] * 4, abs=1e-3)
    ends = [float(next(x for x in np.linspace(0, 1, 2001) if t.rate_func(x) >= 1 - 1e-9))
            for t in group.animations if isinstance(t, _Turn)]
    assert ends == pytest.approx([0.9] * 4, abs=1e-3)
    assert group.move_records == [("transpose", ("column", k), ("row", k)) for k in range(4)]
