"""Where a split render cuts a scene (publish.rendering.play_costs): hand-worked cuts, optimality, the record."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from publish.rendering import play_costs
from publish.rendering.play_costs import PlayCosts, plan_ranges


def _costs(build, draw) -> PlayCosts:
    return PlayCosts(tuple(float(x) for x in build), tuple(float(x) for x in draw))


def _makespan(costs: PlayCosts, ranges) -> float:
    return max(costs.part_seconds(s, e) for s, e in ranges)


def test_part_seconds_build_everything_before_the_end_and_draw_only_the_range():
    c = _costs([1, 2, 3, 4], [10, 20, 30, 40])
    assert c.part_seconds(0, 2) == 1 + 2 + 10 + 20
    assert c.part_seconds(2, None) == 1 + 2 + 3 + 4 + 30 + 40
    assert c.part_seconds(1, 3) == 1 + 2 + 3 + 20 + 30
    assert c.part_seconds(3, 99) == 10 + 40  # an end past the count is the last animation


def test_two_parts_cut_by_hand():
    # Each animation builds in 1 s and draws in 3 s. Part 0 drawing [0, e) costs 4e;
    # part 1 builds all four (4) and draws the rest, 3 (4 - e): e = 2 gives 8 and 10,
    # e = 3 gives 12 and 7, e = 1 gives 4 and 13. The best is e = 2, with 10.
    c = _costs([1, 1, 1, 1], [3, 3, 3, 3])
    assert plan_ranges(c, 2) == [(0, 2), (2, None)]
    assert _makespan(c, plan_ranges(c, 2)) == 10


def test_early_parts_draw_more_because_the_last_part_builds_everything():
    # Building and drawing take 2 s each per animation. Part 0 drawing [0, e)
    # costs 2e + 2e = 4e; part 1 builds all six (12) and draws 2 (6 - e).
    # e = 4 gives 16 and 16; the even count, e = 3, gives 12 and 18.
    c = _costs([2] * 6, [2] * 6)
    ranges = plan_ranges(c, 2)
    assert ranges == [(0, 4), (4, None)]
    assert [c.part_seconds(s, e) for s, e in ranges] == [16, 16]
    assert _makespan(c, [(0, 3), (3, None)]) == 18


def test_expensive_building_up_front_is_paid_by_both_parts():
    # The first three animations build in 5 s each: part 0 drawing [0, e) pays
    # built(e) + 4e, part 1 pays 15 + 4 (6 - e). e = 2: 18, 31; e = 3: 27, 27;
    # e = 4: 31, 23. The best is e = 3.
    c = _costs([5, 5, 5, 0, 0, 0], [4, 4, 4, 4, 4, 4])
    assert plan_ranges(c, 2) == [(0, 3), (3, None)]
    assert _makespan(c, plan_ranges(c, 2)) == 27


def test_three_equal_parts():
    c = _costs([0] * 6, [1] * 6)
    assert plan_ranges(c, 3) == [(0, 2), (2, 4), (4, None)]


def test_nothing_worth_sharing_gives_one_part():
    assert plan_ranges(_costs([1, 1, 1], [0, 0, 0]), 2) == [(0, None)]  # nothing to draw
    assert plan_ranges(_costs([], []), 4) == [(0, None)]  # no animation at all
    assert plan_ranges(_costs([1, 1], [1, 1]), 1) == [(0, None)]
    # Two animations, four parts asked: at most two parts draw something.
    ranges = plan_ranges(_costs([0, 0], [5, 5]), 4)
    assert ranges == [(0, 1), (1, None)]


def test_refuses_impossible_input():
    with pytest.raises(ValueError):
        plan_ranges(_costs([1], [1]), 0)
    with pytest.raises(ValueError):
        _costs([1, 2], [1])
    with pytest.raises(ValueError):
        _costs([1, -1], [1, 1])
    with pytest.raises(ValueError):
        _costs([float("nan")], [1])


@pytest.mark.parametrize("seed", range(40))
def test_the_cut_is_contiguous_covers_everything_and_is_optimal(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 9)
    parts = rng.randint(2, 4)
    c = _costs([rng.choice([0, rng.random()]) for _ in range(n)], [rng.random() * 3 for _ in range(n)])
    ranges = plan_ranges(c, parts)
    assert 1 <= len(ranges) <= parts
    assert ranges[0][0] == 0 and ranges[-1][1] is None
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))  # contiguous
    assert all(e is None or e > s for s, e in ranges)  # every part draws something
    assert all(s < n for s, _ in ranges)
    # No other cut in at most `parts` parts (every part drawing something) is faster.
    best = min(_makespan(c, list(zip((0, *cut), (*cut, None))))
               for k in range(parts) for cut in itertools.combinations(range(1, n), k))
    assert _makespan(c, ranges) == pytest.approx(best)


def test_the_record_round_trips_and_a_bad_one_is_no_record(tmp_path):
    assert play_costs.read_record(tmp_path, "encoder", "low") is None
    c = _costs([0.5, 0.25], [1.125, 0.0])
    play_costs.write_record(tmp_path, "encoder", "low", c)
    assert play_costs.read_record(tmp_path, "encoder", "low") == c
    assert play_costs.read_record(tmp_path, "encoder", "high") is None  # per quality
    path = play_costs.record_path(tmp_path, "encoder", "low")
    for bad in ("{", json.dumps({"build": [1]}), json.dumps({"build": [1], "draw": [-1]}),
                json.dumps({"build": ["x"], "draw": [1]}), json.dumps([1, 2])):
        path.write_text(bad)
        assert play_costs.read_record(tmp_path, "encoder", "low") is None, bad


def test_the_longest_recorded_scene_starts_first_and_unknown_ones_before_it(tmp_path):
    from publish.rendering.pipeline import Job, longest_first

    def job(scene_id, source=None):
        return Job(scene_id, f"x:{scene_id}", ("mp4",), {}, tmp_path, "low", "dark", None, source)

    play_costs.write_record(tmp_path, "short", "low", _costs([1, 1], [1, 1]))  # 4 s
    play_costs.write_record(tmp_path, "long", "low", _costs([5], [20]))  # 25 s
    play_costs.write_record(tmp_path, "middle", "low", _costs([2, 2], [3, 3]))  # 10 s
    play_costs.write_record(tmp_path, "derived", "low", _costs([50], [50]))  # long, but only derived now
    todo = [job("short"), job("derived", tmp_path / "derived.mp4"), job("new_a"), job("long"), job("middle"),
            job("new_b")]
    assert [j.scene_id for j in longest_first(todo, tmp_path)] == \
        ["new_a", "new_b", "long", "middle", "short", "derived"]
    # Another quality's record says nothing about this one.
    high = [Job("long", "x:long", ("mp4",), {}, tmp_path, "high", "dark", None), job("short")]
    assert [j.scene_id for j in longest_first(high, tmp_path)] == ["long", "short"]
