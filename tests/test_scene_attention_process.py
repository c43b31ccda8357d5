"""The attention_process scene, built headless for the default and varied numbers."""

from __future__ import annotations

import pytest
from manim import Text

from scenes import SCENES

from .helpers import build_scene, check_numbers, load_default_trace, shown_keys, trace_from, varied

TWELVE = ("extraordinarily complicated international negotiations unexpectedly collapsed "
          "yesterday afternoon despite considerable diplomatic encouragement")
TWELVE_TARGET = ("la négociation internationale extraordinairement compliquée "
                 "a échoué hier après midi malgré beaucoup")


def _rows(n: int) -> list[int]:
    """Vector rows on screen: up to 6, else the first four, dots, the last."""
    return list(range(n)) if n <= 6 else [0, 1, 2, 3, n - 1]


def _expected_keys(trace) -> set[tuple]:
    att = trace.attention
    n, T = att.weights.shape
    rows = _rows(att.keys.shape[1])
    keys = {(f"encoder.hidden.{i + 1}", j) for i in range(T) for j in rows}
    for t in range(n):
        keys |= {(f"attention.scores.{t}", i) for i in range(T)}
        keys |= {(f"attention.weights.{t}", i) for i in range(T)}
        keys |= {("attention.weights", t, i) for i in range(T)}  # the alignment matrix
        keys |= {(f"attention.contexts.{t}", j) for j in rows}
        keys |= {(f"attention.input_embeddings.{t}", j) for j in rows}
        keys.add(("attention.chosen_probabilities", t))
    keys |= {(f"attention.states.{t}", j) for t in range(n + 1) for j in rows}
    return keys


def _has_untrained_note(scene) -> bool:
    return any(isinstance(m, Text) and "untrained" in m.text
               for top in scene.mobjects for m in top.get_family())


def test_default_numbers_every_frame():
    trace = load_default_trace()
    scene = build_scene("attention_process", trace, skip=False)
    assert scene.audit.faults == []
    assert shown_keys(scene) == _expected_keys(trace)
    assert check_numbers(scene, load_default_trace()) > 0
    # Seeded weights: the scene says plainly that the words are not a translation.
    assert trace.attention.untrained and _has_untrained_note(scene)
    # Every key lies in a section the scene declares (the render cache hashes them).
    sections = SCENES["attention_process"].trace_sections
    for key in shown_keys(scene):
        assert any(key[0] == s or key[0].startswith(s + ".") for s in sections), key


def _always_la(H: int, score: str) -> dict:
    """Weights that make "la" win every step, so the decode runs all 13 steps.

    W_o = W_s = W_c = 0 and b = 3 give s_t = tanh(3) ~ 0.995 in every
    coordinate; "la" = (3, ..., 3) then scores about 3 H, far above any seeded word.
    """
    zeros = [[0.0] * H for _ in range(H)]
    return dict(attention={"score": score, "W_o": zeros, "W_s": zeros, "W_c": zeros, "b": [3.0] * H},
                embeddings={"target": {"la": [3.0] * H}})


# Each case keeps the decode short where it can: a step costs seconds of CPU.
@pytest.mark.parametrize(
    "changes,steps",
    [
        # one word, the smallest sizes, a 2-wide additive scoring network
        (dict(sentences={"source": "Hello", "target": "bonjour"}, sizes={"embedding": 2, "hidden": 2},
              attention={"score": "additive", "size": 2}), None),
        # twelve long words, the largest sizes, dot scores
        (dict(sentences={"source": TWELVE, "target": "la"}, sizes={"embedding": 8, "hidden": 8},
              seed=7, attention={"score": "dot"}), None),
        # the longest decode (13 steps), uneven sizes, scaled dot scores
        (dict(sentences={"source": "the cat", "target": TWELVE_TARGET},
              sizes={"embedding": 8, "hidden": 3}, seed=1, **_always_la(3, "scaled_dot")), 13),
    ],
    ids=["one-word-size-2-additive", "twelve-words-size-8-dot", "13-steps-uneven-sizes-scaled-dot"],
)
def test_varied_numbers(changes, steps):
    data = varied(**changes)
    trace = trace_from(data)
    if steps is not None:
        assert trace.attention.steps == steps
    scene = build_scene("attention_process", trace)
    assert scene.audit.faults == []
    independent = trace_from(data)
    assert shown_keys(scene) == _expected_keys(independent)
    assert check_numbers(scene, independent) > 0
