"""The encoder scene, built headless for the default and varied numbers."""

from __future__ import annotations

import pytest

from scenes import LIGHT

from .helpers import build_scene, check_numbers, load_default_trace, shown_keys, trace_from, varied


def _expected_keys(trace) -> set[tuple]:
    T, E = trace.encoder.inputs.shape
    H = trace.encoder.hidden.shape[1]
    keys = {(f"encoder.inputs.{t}", i) for t in range(T) for i in range(E)}
    keys |= {(f"encoder.hidden.{t}", i) for t in range(T + 1) for i in range(H)}
    return keys


def test_default_numbers_every_frame():
    trace = load_default_trace()
    scene = build_scene("encoder", trace, skip=False)
    assert scene.audit.faults == []
    # Every x_t and every h_t (h_0 included) appears, each value as the core has it.
    assert shown_keys(scene) == _expected_keys(trace)
    assert check_numbers(scene, load_default_trace()) > 0


@pytest.mark.parametrize(
    "changes",
    [
        # one word, the smallest sizes
        dict(sentences={"source": "Hello"}, sizes={"embedding": 2, "hidden": 2}),
        # twelve long words, the largest sizes
        dict(sentences={"source": "extraordinarily complicated international negotiations "
                                  "unexpectedly collapsed yesterday afternoon despite "
                                  "considerable diplomatic encouragement"},
             sizes={"embedding": 8, "hidden": 8}, seed=7),
        # uneven sizes, another seed
        dict(sentences={"source": "the cat eats fish"}, sizes={"embedding": 8, "hidden": 3}, seed=1),
    ],
    ids=["one-word", "twelve-words-size-8", "uneven-sizes"],
)
def test_varied_numbers(changes):
    data = varied(**changes)
    scene = build_scene("encoder", trace_from(data))
    assert scene.audit.faults == []
    independent = trace_from(data)
    assert shown_keys(scene) == _expected_keys(independent)
    check_numbers(scene, independent)


def test_light_theme_builds_cleanly():
    scene = build_scene("encoder", load_default_trace(), theme=LIGHT)
    assert scene.audit.faults == []


def test_shown_numbers_lie_in_declared_sections():
    from scenes import SCENES

    scene = build_scene("encoder", load_default_trace())
    sections = SCENES["encoder"].trace_sections
    for key in shown_keys(scene):
        assert any(key[0] == s or key[0].startswith(s + ".") for s in sections), key
