"""The trained_attention scene, built headless: the default sentence, short
and twelve-word sentences of the grammar, a one-word sentence with seeded
weights, and a sentence outside the trained model's vocabulary (the
untrained tanh RNN fallback, same keys)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.translator.corpus import DRAFT_PAIRS, MAX_PAIR_TOKENS
from attention_core.translator.train import MAX_STEPS_OUT
from scenes import LIGHT
from scenes.components import _kept_indices
from scenes.base import RESULT_PAUSE
from scenes.glyphs import Bar
from scenes.trained_attention import SLOW_STEPS, crossing_rows

from .helpers import build_scene, check_scene, load_default_trace, trace_from, varied

SCENE = "trained_attention"

# The longest sentences the grammar writes have twelve words: subject with
# two adjectives, perfect verb, object with two adjectives, a time phrase
# ("the young black horse has seen a black mouse in recent years" is one).
LONGEST = "the white mouse has eaten the big white house in recent years"


def _model(trace) -> dict:
    return trace.to_dict()["model"]


def _expected_keys(trace) -> set[tuple]:
    """Every attention weight of the matrix, every h_j (j = 1..T), every
    probability of a written word, and the held-out figures."""
    m = _model(trace)
    R, T = len(m["steps"]), len(m["tokens"])
    H = len(m["initial_state"])
    keys = {("model.attention", i, j) for i in range(R) for j in range(T)}
    # A column of more than 8 numbers shows its first ones, dots, and the last.
    rows = [i for i in _kept_indices(H, 8) if i is not None]
    keys |= {(f"model.encoder_states.{j}", i) for j in range(1, T + 1) for i in rows}
    keys |= {(f"model.steps.{t}.chosen_probability",) for t in range(R)}
    if m["held_out"] is not None:
        keys |= {("model.held_out.exact_match",), ("model.held_out.alignment",)}
    return keys


def _check(scene, data) -> None:
    independent = load_default_trace() if data is None else trace_from(data)
    assert check_scene(scene, independent) == _expected_keys(independent)


def test_default_numbers_every_frame():
    scene = build_scene(SCENE, load_default_trace(), skip=False)
    _check(scene, None)


@pytest.mark.parametrize(
    "changes, theme",
    [
        # the grammar's shortest kind of sentence: two words, light theme
        (dict(sentences={"source": "growth falls"}), LIGHT),
        # twelve words, twelve French words and <END>: thirteen decoding steps
        (dict(sentences={"source": LONGEST}), None),
        # one word outside the grammar with untrained weights of the smallest
        # sizes: the decoder never writes <END> and runs all thirteen steps
        (dict(sentences={"source": "hello"}, model={"weights": "seeded", "hidden": 2, "embedding": 2}),
         LIGHT),
    ],
    ids=["two-words-light", "twelve-words", "one-word-seeded-light"],
)
def test_varied_sentences(changes, theme):
    data = varied(**changes)
    trace = trace_from(data)
    scene = build_scene(SCENE, trace, **({"theme": theme} if theme else {}))
    _check(scene, data)


def test_longest_sentence_really_is_at_the_limits():
    # Guards the case above: twelve source words, thirteen decoding steps.
    m = _model(trace_from(varied(sentences={"source": LONGEST})))
    assert len(m["tokens"]) == MAX_PAIR_TOKENS
    assert np.array(m["attention"]).shape == (MAX_STEPS_OUT, MAX_PAIR_TOKENS)


def test_outside_the_grammar_shows_the_untrained_fallback():
    # Words the grammar lacks: the same scene over the untrained tanh RNN, said so on screen.
    data = varied(sentences={"source": "hello brave new world"})
    trace = trace_from(data)
    assert _model(trace)["network"] == "tanh_rnn" and _model(trace)["trained"] is False
    scene = build_scene(SCENE, trace)
    _check(scene, data)
    texts = [m.original_text for top in scene.mobjects for m in top.get_family() if hasattr(m, "original_text")]
    assert any("Untrained" in t and "not a translation" in t for t in texts)


@pytest.fixture(scope="module")
def default_scene():
    return build_scene(SCENE, load_default_trace(), timeline=True)


def test_repeated_steps_go_faster_than_the_first(default_scene):
    # One span per decoding step; the slow ones pause on the weights and on the word.
    m = _model(load_default_trace())
    spans = default_scene.step_spans
    assert len(spans) == len(m["steps"]) > SLOW_STEPS + 2
    lengths = [end - start for start, end in spans]
    first, repeated = lengths[:SLOW_STEPS], lengths[SLOW_STEPS:]
    assert max(repeated) < min(first), lengths
    # The repeated steps (after the one that says so) take well under half a first step.
    assert max(repeated[1:]) < min(first) / 2, lengths
    marks = [what for what, _ in default_scene.result_marks]
    assert marks.count("weights") == marks.count("word") == SLOW_STEPS
    # Each slow step holds 2 still seconds, so it cannot be shorter than that.
    assert min(first) >= 2 * RESULT_PAUSE


def test_the_strip_holds_the_french_written_so_far(default_scene):
    # Revealed one word per step, in the order written; one line, readable.
    m = _model(load_default_trace())
    strip = default_scene.strip
    shown = [" ".join(t.original_text for t in w.get_family() if hasattr(t, "original_text"))
             for w in strip.words]
    assert shown == [s["chosen"] for s in m["steps"]]
    assert strip.label.original_text == "French so far:"
    lefts = [w.get_left()[0] for w in strip.words]
    assert lefts == sorted(lefts) and strip.width <= 13.4
    assert len({round(w.get_y(), 3) for w in strip.words}) == 1


def test_a_twelve_word_translation_keeps_its_strip_in_the_frame():
    # Thirteen French words (twelve and <END>): the strip wraps rather than shrink or leave the frame.
    scene = build_scene(SCENE, trace_from(varied(sentences={"source": LONGEST})), min_text_px=12.0)
    assert scene.audit.faults == []
    strip = scene.strip
    assert len(strip.words) == MAX_STEPS_OUT
    assert strip.width <= 13.4 and strip.get_bottom()[1] > -4.0


def test_each_weight_is_also_a_bar_of_its_length(default_scene):
    # Every weight of the matrix has a bar whose length is the weight times a full bar.
    att = np.array(_model(load_default_trace())["attention"])
    bars = {b.key: b for top in default_scene.mobjects for b in top.get_family() if isinstance(b, Bar)}
    assert set(bars) == {("model.attention", i, j) for i in range(att.shape[0]) for j in range(att.shape[1])}
    for (_, i, j), bar in bars.items():
        assert bar.value == pytest.approx(att[i, j])
        assert bar.drawn_length == pytest.approx(max(att[i, j] * bar.full_length, 0.012), abs=1e-6)
    # The largest weight of a row has the longest bar of the row.
    for i in range(att.shape[0]):
        row = [bars[("model.attention", i, j)].drawn_length for j in range(att.shape[1])]
        assert int(np.argmax(row)) == int(np.argmax(att[i]))


def test_crossing_rows_finds_the_backward_steps():
    # Hand-made weights: rows peak at columns 0, 2, 1, 3 -> only row 2 steps
    # back (from column 2 to column 1), as in "le chat noir" / "the black cat".
    att = np.array([
        [0.9, 0.05, 0.05, 0.0],
        [0.1, 0.2, 0.7, 0.0],
        [0.0, 0.8, 0.1, 0.1],
        [0.0, 0.1, 0.1, 0.8],
    ])
    assert crossing_rows(att, 4) == [(2, 2, 1)]
    assert crossing_rows(att, 2) == []  # rows past the limit (e.g. <END>) are ignored


def test_default_sentence_shows_the_adjective_noun_crossing():
    # "la croissance économique" for "economic growth": the reference
    # alignment steps back from "growth" (1) to "economic" (0) at row 2, and
    # the trained weights must show the same step back.
    m = _model(load_default_trace())
    draft = DRAFT_PAIRS[0]
    assert tuple(m["reference"]) == tuple(draft.target)
    rows = len(m["translation"])
    assert (2, 1, 0) in crossing_rows(np.array(m["attention"]), rows)
