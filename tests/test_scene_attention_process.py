"""The attention_process scene, built headless for the default and varied numbers.

With a sentence of the translator's grammar the scene shows the trained
model (Trace section ``model``); outside it, the seeded ``attention``
section with its "untrained" caption.
"""

from __future__ import annotations

import pytest
from manim import Text

from scenes import SCENES

from .helpers import build_scene, check_numbers, load_default_trace, shown_keys, trace_from, varied

TWELVE = ("extraordinarily complicated international negotiations unexpectedly collapsed "
          "yesterday afternoon despite considerable diplomatic encouragement")
TWELVE_TARGET = ("la négociation internationale extraordinairement compliquée "
                 "a échoué hier après midi malgré beaucoup")
# The longest sentences the translator's grammar writes have twelve words.
LONGEST = "the white mouse has eaten the big white house in recent years"


def _rows(n: int) -> list[int]:
    """Vector rows on screen: up to 6, else the first four, dots, the last."""
    return list(range(n)) if n <= 6 else [0, 1, 2, 3, n - 1]


def _expected_keys(trace) -> set[tuple]:
    if trace.model is not None and trace.model.attention is not None:
        return _expected_model_keys(trace.model)
    return _expected_seeded_keys(trace)


def _expected_model_keys(m) -> set[tuple]:
    """Every h_j row shown, every step's scores, weights, inputs, states and
    context, every row of the alignment matrix, from section ``model``."""
    n, T = m.attention.shape
    rows = _rows(m.annotations.shape[1])
    keys = {(f"model.annotations.{j}", r) for j in range(T) for r in rows}
    for t in range(n):
        k = f"model.steps.{t}"
        keys |= {(f"{k}.scores", i) for i in range(T)}
        keys |= {(f"{k}.weights", i) for i in range(T)}
        keys |= {("model.attention", t, i) for i in range(T)}  # the alignment matrix
        keys |= {(f"{k}.{name}", r) for name in ("context", "input_embedding", "previous_state", "state")
                 for r in rows}
        keys.add((f"{k}.chosen_probability",))
    return keys


def _expected_seeded_keys(trace) -> set[tuple]:
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


def _chosen_words(scene) -> set[str]:
    return {m.text for top in scene.mobjects for m in top.get_family() if isinstance(m, Text)}


def test_default_numbers_every_frame():
    trace = load_default_trace()
    assert trace.model is not None and trace.model.weights == "trained"
    scene = build_scene("attention_process", trace, skip=False)
    assert scene.audit.faults == []
    assert shown_keys(scene) == _expected_keys(trace)
    assert all(k[0].startswith("model.") for k in shown_keys(scene))
    assert check_numbers(scene, load_default_trace()) > 0
    # Trained weights: no "untrained" caption, and the alignment matrix's rows
    # (still on screen at the end) are the translator's words.
    assert not _has_untrained_note(scene)
    assert set(trace.model.chosen) <= _chosen_words(scene)
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
        # ("hello world": outside the translator's grammar, so the seeded section)
        (dict(sentences={"source": "hello world", "target": TWELVE_TARGET},
              sizes={"embedding": 8, "hidden": 3}, seed=1, **_always_la(3, "scaled_dot")), 13),
    ],
    ids=["one-word-size-2-additive", "twelve-words-size-8-dot", "13-steps-uneven-sizes-scaled-dot"],
)
def test_varied_numbers(changes, steps):
    data = varied(**changes)
    trace = trace_from(data)
    # Words outside the translator's grammar: the seeded fallback.
    assert trace.model is None
    if steps is not None:
        assert trace.attention.steps == steps
    scene = build_scene("attention_process", trace)
    assert scene.audit.faults == []
    independent = trace_from(data)
    assert shown_keys(scene) == _expected_keys(independent)
    assert all(k[0].startswith(("attention.", "encoder.")) for k in shown_keys(scene))
    assert check_numbers(scene, independent) > 0
    assert _has_untrained_note(scene)


def test_trained_twelve_words():
    # The grammar's longest sentence: twelve source columns, thirteen steps.
    data = varied(sentences={"source": LONGEST})
    trace = trace_from(data)
    assert trace.model is not None and len(trace.model.source_tokens) == 12
    scene = build_scene("attention_process", trace)
    assert scene.audit.faults == []
    independent = trace_from(data)
    assert shown_keys(scene) == _expected_keys(independent)
    assert check_numbers(scene, independent) > 0
    assert not _has_untrained_note(scene)
