"""The encoder scene over the seeded tanh RNN (the untrained fallback) at its
extremes, keyed under ``plain_model`` like the translator (the translator's
cases are in test_scenes_part1_encoder.py)."""

from __future__ import annotations

import pytest

from scenes import LIGHT
from scenes.seq2seq_view import encoder_view

from .helpers import build_scene, check_numbers, shown_keys, trace_from, varied


def _expected_keys(trace) -> set[tuple]:
    m = trace.to_dict()["plain_model"]
    T, E = len(m["embeddings"]), len(m["embeddings"][0])
    H = len(m["encoder_states"][0])
    keys = {(f"plain_model.embeddings.{t}", i) for t in range(T) for i in range(E)}
    keys |= {(f"plain_model.encoder_states.{t}", i) for t in range(T + 1) for i in range(H)}
    return keys


CASES = {
    # one word, the smallest sizes
    "one-word": dict(sentences={"source": "Hello"}, sizes={"embedding": 2, "hidden": 2}),
    # twelve long words, the largest sizes
    "twelve-words-size-8": dict(sentences={"source": "extraordinarily complicated international negotiations "
                                                     "unexpectedly collapsed yesterday afternoon despite "
                                                     "considerable diplomatic encouragement"},
                                sizes={"embedding": 8, "hidden": 8}, seed=7),
    # uneven sizes, another seed ("pizza" is not in the translator's grammar)
    "uneven-sizes": dict(sentences={"source": "the cat eats pizza"}, sizes={"embedding": 8, "hidden": 3}, seed=1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_varied_numbers(case):
    data = varied(**CASES[case])
    trace = trace_from(data)
    assert encoder_view(trace).network == "tanh"
    scene = build_scene("encoder", trace)
    assert scene.audit.faults == []
    independent = trace_from(data)
    # Every x_t and every h_t (h_0 included) appears, each value as the core has it.
    assert shown_keys(scene) == _expected_keys(independent)
    assert check_numbers(scene, independent) > 0
    # The same values as the fallback's own RNN section: one network, two names for nothing.
    assert encoder_view(independent).states == pytest.approx(independent.encoder.hidden)


def test_light_theme_builds_cleanly():
    scene = build_scene("encoder", trace_from(varied(**CASES["one-word"])), theme=LIGHT)
    assert scene.audit.faults == []
