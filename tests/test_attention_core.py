"""The attention core: score functions, softmax weights, context, decoder step, decode, [attention]."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core import NumbersError, maths
from attention_core.attention import (
    AttentionParams,
    additive_scores,
    attention_decode,
    attention_decoder_step,
    attention_scores,
    attention_weights,
    output_distribution,
)

from .helpers import trace_from, varied

# --------------------------------------------------------------------------
# Small cases worked by hand
# --------------------------------------------------------------------------


def test_additive_score_by_hand():
    # s = (1, 0); h_1 = (0, 1), h_2 = (1, 1); W_a = U_a = I; v_a = (1, 1).
    # h_1: W_a s + U_a h_1 = (1, 1)  -> tanh -> (tanh 1, tanh 1) -> e_1 = 2 tanh 1
    # h_2: W_a s + U_a h_2 = (2, 1)  -> e_2 = tanh 2 + tanh 1
    s = np.array([1.0, 0.0])
    h = np.array([[0.0, 1.0], [1.0, 1.0]])
    eye = np.eye(2)
    v = np.array([1.0, 1.0])
    got = additive_scores(s, h, eye, eye, v)
    assert got == pytest.approx([2 * math.tanh(1), math.tanh(2) + math.tanh(1)])


def test_additive_with_a_narrower_scoring_network_by_hand():
    # A = 1, H = 2: W_a = [[1, -1]], U_a = [[0, 2]], v_a = [3].
    # s = (0.5, 0.5): W_a s = 0. h_1 = (7, 0.25): U_a h_1 = 0.5 -> e_1 = 3 tanh 0.5
    s = np.array([0.5, 0.5])
    h = np.array([[7.0, 0.25]])
    got = additive_scores(s, h, np.array([[1.0, -1.0]]), np.array([[0.0, 2.0]]), np.array([3.0]))
    assert got == pytest.approx([3 * math.tanh(0.5)])


def test_dot_and_scaled_dot_by_hand():
    # s = (1, 2); h_1 = (3, 4): 3 + 8 = 11; h_2 = (-1, 0.5): -1 + 1 = 0.
    # Scaled: divide by sqrt(2).
    s = np.array([1.0, 2.0])
    h = np.array([[3.0, 4.0], [-1.0, 0.5]])
    assert attention_scores("dot", s, h) == pytest.approx([11.0, 0.0])
    assert attention_scores("scaled_dot", s, h) == pytest.approx([11.0 / math.sqrt(2), 0.0])


def test_softmax_weights_and_context_by_hand():
    # Scores (0, ln 3): exp -> (1, 3), sum 4 -> weights (1/4, 3/4).
    # h_1 = (4, 0), h_2 = (0, 8): c = (1/4)(4, 0) + (3/4)(0, 8) = (1, 6).
    a = attention_weights(np.array([0.0, math.log(3)]))
    assert a == pytest.approx([0.25, 0.75])
    c = maths.context_vector(a, np.array([[4.0, 0.0], [0.0, 8.0]]))
    assert c == pytest.approx([1.0, 6.0])


def test_decoder_step_by_hand():
    # W_o = I, W_s = 2I, W_c swaps the two coordinates, b = (0.5, -0.5).
    # op = (0.1, 0.2), s = (0.2, -0.1), c = (1, 6):
    # W_o op = (0.1, 0.2); W_s s = (0.4, -0.2); W_c c = (6, 1)
    # sum + b = (0.1 + 0.4 + 6 + 0.5, 0.2 - 0.2 + 1 - 0.5) = (7.0, 0.5)
    got = attention_decoder_step(
        np.array([0.1, 0.2]), np.array([0.2, -0.1]), np.array([1.0, 6.0]),
        np.eye(2), 2 * np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0.5, -0.5]),
    )
    assert got == pytest.approx([math.tanh(7.0), math.tanh(0.5)])


def test_output_distribution_by_hand():
    # s = (1, 0); word rows (0, 3) and (ln 3, 0): logits (0, ln 3) -> probs (1/4, 3/4).
    logits, probs = output_distribution(np.array([1.0, 0.0]), np.array([[0.0, 3.0], [math.log(3), 0.0]]))
    assert logits == pytest.approx([0.0, math.log(3)])
    assert probs == pytest.approx([0.25, 0.75])


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

RNG = np.random.default_rng(12345)
CASES = [(RNG.normal(size=d), RNG.normal(size=(n, d))) for d, n in ((2, 1), (3, 5), (8, 12), (5, 7))]


def _additive_params(d: int, a: int = 3) -> AttentionParams:
    g = np.random.default_rng(d)
    return AttentionParams(score="additive", W_o=np.eye(d), W_s=np.eye(d), W_c=np.eye(d), b=np.zeros(d),
                           W_a=g.normal(size=(a, d)), U_a=g.normal(size=(a, d)), v_a=g.normal(size=a))


@pytest.mark.parametrize("kind", ["additive", "dot", "scaled_dot"])
@pytest.mark.parametrize("query,keys", CASES)
def test_weights_are_a_distribution_and_context_in_the_hull(kind, query, keys):
    e = attention_scores(kind, query, keys, _additive_params(keys.shape[1]))
    a = attention_weights(e)
    assert a.shape == (keys.shape[0],)
    assert np.all(a >= 0)
    assert a.sum() == pytest.approx(1.0)
    c = maths.context_vector(a, keys)
    # A convex combination: each coordinate between the smallest and largest h_i coordinate.
    assert np.all(c >= keys.min(axis=0) - 1e-12)
    assert np.all(c <= keys.max(axis=0) + 1e-12)


@pytest.mark.parametrize("query,keys", CASES)
def test_positive_scaling_of_scores_keeps_the_argmax(query, keys):
    e = attention_scores("dot", query, keys)
    best = int(np.argmax(attention_weights(e)))
    for factor in (0.01, 0.5, 3.0, 40.0):
        assert int(np.argmax(attention_weights(factor * e))) == best


@pytest.mark.parametrize("query,keys", CASES)
def test_dot_and_scaled_dot_differ_by_sqrt_d(query, keys):
    d = keys.shape[1]
    dot = attention_scores("dot", query, keys)
    scaled = attention_scores("scaled_dot", query, keys)
    assert dot == pytest.approx(scaled * math.sqrt(d))


@pytest.mark.parametrize("query,keys", CASES)
def test_vectorised_additive_agrees_with_the_one_key_formula(query, keys):
    p = _additive_params(keys.shape[1])
    want = [maths.additive_score(query, k, p.W_a, p.U_a, p.v_a) for k in keys]
    assert additive_scores(query, keys, p.W_a, p.U_a, p.v_a) == pytest.approx(want)


def test_unknown_score_kind_is_refused():
    with pytest.raises(ValueError, match="unknown score kind"):
        attention_scores("cosine", np.ones(2), np.ones((3, 2)))


# --------------------------------------------------------------------------
# The greedy decode
# --------------------------------------------------------------------------


def _zero_decoder(bias, score="dot") -> AttentionParams:
    z = np.zeros((2, 2))
    return AttentionParams(score=score, W_o=z, W_s=z, W_c=z, b=np.array(bias, dtype=float))


def test_decode_stops_when_end_is_chosen():
    # All weights zero, b = (1, 0): s_1 = (tanh 1, 0). <END> = (5, 0) scores 5 tanh 1 > 0 = "a".
    words = ("<START>", "<END>", "a")
    table = np.array([[0.0, 1.0], [5.0, 0.0], [0.0, 0.0]])
    out = attention_decode(np.array([[1.0, 2.0], [3.0, 4.0]]), _zero_decoder([1, 0]), words, table,
                           "<START>", "<END>", max_steps=5)
    assert out.chosen == ("<END>",)
    assert out.inputs == ("<START>",)
    # <START> can never be emitted, so it is not in the output vocabulary.
    assert out.output_vocabulary == ("<END>", "a")
    # s_0 = 0, so every dot score is 0 and the weights are uniform: c_1 is the mean of h.
    assert out.scores[0] == pytest.approx([0.0, 0.0])
    assert out.weights[0] == pytest.approx([0.5, 0.5])
    assert out.contexts[0] == pytest.approx([2.0, 3.0])
    assert out.states[0] == pytest.approx([0.0, 0.0])
    assert out.states[1] == pytest.approx([math.tanh(1), 0.0])


def test_decode_runs_max_steps_feeding_back_its_own_words():
    # <END> = (-5, 0) always loses to "a" = (0, 0) since s = (tanh 1, 0) at every step.
    words = ("<START>", "<END>", "a")
    table = np.array([[0.0, 1.0], [-5.0, 0.0], [0.0, 0.0]])
    out = attention_decode(np.array([[1.0, 2.0]]), _zero_decoder([1, 0]), words, table,
                           "<START>", "<END>", max_steps=4)
    assert out.chosen == ("a", "a", "a", "a")
    assert out.inputs == ("<START>", "a", "a", "a")
    assert out.input_embeddings[0] == pytest.approx([0.0, 1.0])
    assert out.states.shape == (5, 2)
    # One key: the only weight is 1 whatever the score.
    assert out.weights == pytest.approx(np.ones((4, 1)))


# --------------------------------------------------------------------------
# Through the numbers file and the trace
# --------------------------------------------------------------------------


def test_default_trace_has_a_consistent_attention_section():
    trace = trace_from(varied())
    att = trace.attention
    T = len(trace.source_tokens)
    assert att.params.score == "additive"
    assert 1 <= att.steps <= len(trace.target_tokens) + 1
    assert att.weights.shape == (att.steps, T)
    assert att.keys == pytest.approx(trace.encoder.hidden[1:])
    assert att.untrained
    # Each row recomputed from the exported parameters (JSON) gives the exported values.
    d = trace.to_dict()["attention"]
    p = {k: np.array(v) for k, v in d["parameters"].items() if k not in ("score", "size", "seeded")}
    for t in range(att.steps):
        s_prev = np.array(d["states"][t])
        e = additive_scores(s_prev, np.array(d["keys"]), p["W_a"], p["U_a"], p["v_a"])
        assert e == pytest.approx(d["scores"][t])
        s = attention_decoder_step(np.array(d["input_embeddings"][t]), s_prev, np.array(d["contexts"][t]),
                                   p["W_o"], p["W_s"], p["W_c"], p["b"])
        assert s == pytest.approx(d["states"][t + 1])
    if att.chosen[-1] != "<END>":
        assert att.steps == len(trace.target_tokens) + 1


@pytest.mark.parametrize("kind", ["dot", "scaled_dot"])
def test_score_kind_from_the_numbers_file(kind):
    trace = trace_from(varied(attention={"score": kind}))
    d = trace.to_dict()["attention"]
    assert d["score"] == kind
    assert "W_a" not in d["parameters"]
    e = attention_scores(kind, trace.attention.states[1], trace.attention.keys)
    if trace.attention.steps > 1:
        assert e == pytest.approx(d["scores"][1])


def test_explicit_weights_replace_seeded_ones():
    H = 4
    eye = np.eye(H).tolist()
    trace = trace_from(varied(attention={"size": 2, "W_a": [[1, 0, 0, 0], [0, 1, 0, 0]],
                                         "U_a": [[0, 0, 1, 0], [0, 0, 0, 1]], "v_a": [1, -1],
                                         "W_o": eye, "W_s": eye, "W_c": eye, "b": [0, 0, 0, 0]}))
    p = trace.attention.params
    assert p.size == 2 and p.seeded == ()
    assert p.v_a == pytest.approx([1, -1])
    # The encoder is still seeded, so the decode is still called untrained.
    assert trace.attention.untrained


@pytest.mark.parametrize(
    "table,key",
    [
        ({"score": "cosine"}, "attention.score"),
        ({"score": 3}, "attention.score"),
        ({"size": 9}, "attention.size"),
        ({"size": 1.5}, "attention.size"),
        ({"W_a": [[1, 2], [3, 4]]}, "attention.W_a"),  # hidden is 4: 4x4 expected
        ({"size": 2, "U_a": [[1, 2, 3, 4]]}, "attention.U_a"),
        ({"v_a": [1, 2, 3]}, "attention.v_a"),
        ({"W_o": [[1, 2, 3, 4]] * 3}, "attention.W_o"),
        ({"W_s": [[1, 2, 3, float("nan")]] * 4}, "attention.W_s"),
        ({"W_c": "identity"}, "attention.W_c"),
        ({"b": [0, 0, True, 0]}, "attention.b"),
        ({"score": "dot", "W_a": [[1, 0, 0, 0]] * 4}, "attention.W_a"),
        ({"score": "scaled_dot", "size": 3}, "attention.size"),
        ({"Wa": [[1]]}, "attention.Wa"),
    ],
    ids=["bad-kind", "kind-not-text", "size-too-big", "size-not-whole", "W_a-shape", "U_a-rows",
         "v_a-length", "W_o-rows", "W_s-nan", "W_c-not-matrix", "b-bool", "W_a-with-dot",
         "size-with-scaled", "unknown-key"],
)
def test_bad_attention_table_names_the_key(table, key):
    with pytest.raises(NumbersError) as err:
        trace_from(varied(attention=table))
    msg = str(err.value)
    assert msg.startswith(key + ":") or msg.startswith(key + "["), msg
    assert "\n" not in msg


def test_attention_must_be_a_table():
    with pytest.raises(NumbersError, match=r"^attention: expected a table"):
        trace_from(varied(attention=[1, 2]))
