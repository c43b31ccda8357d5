"""The part 1b scenes (seq2seq_overview, dot_product, hidden_state_map),
built headless for the default numbers and for numbers at the extremes."""

from __future__ import annotations

import numpy as np
import pytest

from scenes import SCENES
from scenes.components import _kept_indices
from scenes.hidden_state_map import place_labels, shorten

from .helpers import build_scene, check_numbers, default_data, load_default_trace, shown_keys, trace_from

TWELVE = ("extraordinarily complicated international negotiations unexpectedly collapsed "
          "yesterday afternoon despite considerable diplomatic encouragement")
TWELVE_FR = ("les négociations internationales extraordinairement compliquées ont échoué "
             "hier soir malgré beaucoup d'encouragements")


def _numbers(**tables) -> dict:
    """The default numbers with whole tables replaced (``seed`` too)."""
    data = default_data()
    data.update(tables)
    return data


def _expected_keys(scene_id: str, trace) -> set[tuple]:
    if scene_id == "seq2seq_overview":
        T, H = len(trace.encoder.tokens), trace.encoder.hidden.shape[1]
        return {(f"encoder.hidden.{T}", i) for i in range(H)}
    if scene_id == "dot_product":
        dp = trace.dot_product
        keys = {(f"dot_product.{name}", i) for name in ("movie", "user", "products", "running_sum")
                for i in range(len(dp.features))}
        keys |= {(f"dot_product.{name}",) for name in
                 ("score", "norm_movie", "norm_user", "norm_product", "cosine", "angle_deg")}
        keys |= {(f"dot_product.sweep.{name}", k) for name in ("angles_deg", "scores")
                 for k in range(len(dp.sweep_angles_deg))}
        return keys
    hm = trace.hidden_state_map
    N, H = hm.states.shape
    keys = {("hidden_state_map.states", i, j) for i in _kept_indices(N, 8) if i is not None
            for j in range(H)}
    return keys | {("hidden_state_map.explained_variance_percent", k) for k in range(2)}


def _check(scene_id: str, data: dict | None, skip: bool = True) -> None:
    trace = load_default_trace() if data is None else trace_from(data)
    scene = build_scene(scene_id, trace, skip=skip)
    assert scene.audit.faults == []
    independent = load_default_trace() if data is None else trace_from(data)
    assert check_numbers(scene, independent) > 0
    keys = shown_keys(scene)
    assert keys == _expected_keys(scene_id, independent)
    sections = SCENES[scene_id].trace_sections
    assert all(any(k[0] == s or k[0].startswith(s + ".") for s in sections) for k in keys)


@pytest.mark.parametrize("scene_id", ["seq2seq_overview", "dot_product", "hidden_state_map"])
def test_default_numbers_every_frame(scene_id):
    _check(scene_id, None, skip=False)


@pytest.mark.parametrize(
    "tables",
    [
        dict(sentences={"source": "Hello", "target": "Bonjour"}, sizes={"embedding": 2, "hidden": 2}),
        dict(sentences={"source": TWELVE, "target": TWELVE_FR},
             sizes={"embedding": 8, "hidden": 8}, seed=7),
    ],
    ids=["one-word-size-2", "twelve-words-size-8"],
)
def test_seq2seq_overview_varied(tables):
    _check("seq2seq_overview", _numbers(**tables))


@pytest.mark.parametrize(
    "table",
    [
        # two features, the user opposite to the movie
        {"features": ["romance", "action"], "movie": [0.9, 0.1], "user": [-0.8, -0.3]},
        # six long feature names, large values, nearly parallel vectors
        {"features": ["romanticcomedy", "action", "documentary", "horror", "animation", "musical"],
         "movie": [9.5, -10, 3.2, 0.01, -7.7, 10],
         "user": [9, -9.5, 3, 0, -7, 9.9]},
        # only positive products: nothing pulls the score down
        {"features": ["a", "b", "c"], "movie": [1, 2, 3], "user": [3, 2, 1]},
    ],
    ids=["two-features-opposed", "six-features-aligned", "all-positive"],
)
def test_dot_product_varied(table):
    _check("dot_product", _numbers(dot_product=table))


@pytest.mark.parametrize(
    "tables",
    [
        dict(hidden_state_map={"sentences": ["rain", "sun", "snow"]},
             sizes={"embedding": 2, "hidden": 2}),
        dict(hidden_state_map={"sentences": [f"{TWELVE.split()[i]} {TWELVE}".rsplit(" ", 1)[0]
                                             for i in range(12)]},
             sizes={"embedding": 8, "hidden": 8}, seed=11),
    ],
    ids=["three-one-word-sentences-size-2", "twelve-twelve-word-sentences-size-8"],
)
def test_hidden_state_map_varied(tables):
    _check("hidden_state_map", _numbers(**tables))


def test_shorten_keeps_short_and_cuts_long_at_a_word():
    assert shorten("The cat eats fish", 20) == "The cat eats fish"
    cut = shorten("extraordinarily complicated international negotiations", 30)
    assert cut.endswith("\u2026") and len(cut) <= 30
    assert "extraordinarily complicated".startswith(cut[:-1].strip())


def test_place_labels_avoids_overlaps_and_stays_inside():
    # Twelve points bunched near the middle, labels 2.5 x 0.25: all must fit apart.
    rng = np.random.default_rng(5)
    pts = np.column_stack([rng.normal(0, 0.6, 12), rng.normal(0, 0.6, 12), np.zeros(12)])
    sizes = [(2.5, 0.25)] * 12
    bounds = (-6.0, -3.0, 6.0, 3.0)
    placements, clean = place_labels(pts, sizes, bounds)
    assert clean
    boxes = [(c[0] - 1.25, c[1] - 0.125, c[0] + 1.25, c[1] + 0.125) for c, _ in placements]
    for i, a in enumerate(boxes):
        assert bounds[0] <= a[0] and a[2] <= bounds[2] and bounds[1] <= a[1] and a[3] <= bounds[3]
        for b in boxes[i + 1:]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1])
