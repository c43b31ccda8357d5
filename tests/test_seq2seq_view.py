"""The Part 1 adapters: which network they pick, and that every key they
hand to a scene names the value they pair it with."""

from __future__ import annotations

import numpy as np
import pytest

from scenes.seq2seq_view import decoder_view, encoder_view, output_view, uses_translator

from .helpers import load_default_trace, resolve, trace_from, varied

# A sentence with a word the grammar lacks ("inflation"): the tanh RNN is shown.
UNKNOWN_WORD = {"sentences": {"source": "Inflation has slowed down in recent years"}}
# The small RNN's values set by hand: the reader's own numbers win.
BY_HAND = {"encoder": {"b": [0.1, -0.2, 0.3, 0.0]}}


@pytest.fixture(scope="module")
def traces():
    return {
        "default": load_default_trace(),
        "unknown": trace_from(varied(**UNKNOWN_WORD)),
        "by_hand": trace_from(varied(**BY_HAND)),
        "seeded_model": trace_from(varied(model={"weights": "seeded"})),
    }


def test_which_network(traces):
    assert uses_translator(traces["default"])
    assert not uses_translator(traces["unknown"])
    assert not uses_translator(traces["by_hand"])
    assert uses_translator(traces["seeded_model"])
    assert encoder_view(traces["default"]).trained
    assert not encoder_view(traces["seeded_model"]).trained
    assert decoder_view(traces["unknown"]).network == "tanh"


def _check(data, value, key):
    got = np.asarray(resolve(data, (key,)), dtype=float)
    assert got == pytest.approx(np.asarray(value, dtype=float)), key


@pytest.mark.parametrize("name", ["default", "unknown", "by_hand", "seeded_model"])
def test_every_key_names_its_value(traces, name):
    tr = traces[name]
    data = tr.to_dict()
    e = encoder_view(tr)
    for vals, keys in ((e.inputs, e.input_keys), (e.forward, e.forward_keys),
                       (e.annotations, e.annotation_keys)):
        assert len(vals) == len(keys) == len(e.tokens)
        for v, k in zip(vals, keys):
            _check(data, v, k)
    if e.backward is not None:
        for v, k in zip(e.backward, e.backward_keys):
            _check(data, v, k)
    _check(data, e.context, e.context_key)
    _check(data, e.embedding_matrix, e.embedding_matrix_key)
    # Each token's input is its row of the embedding matrix.
    for t, row in enumerate(e.token_ids):
        assert e.vocabulary[row] == e.tokens[t]
        assert e.inputs[t] == pytest.approx(e.embedding_matrix[row])

    d = decoder_view(tr)
    _check(data, d.context, d.context_key)
    _check(data, d.initial_state, d.initial_state_key)
    for vals, keys in ((d.input_embeddings, d.input_embedding_keys), (d.states, d.state_keys)):
        assert len(vals) == len(keys) == d.steps
        for v, k in zip(vals, keys):
            _check(data, v, k)
    for p, key in zip(d.chosen_probabilities, d.chosen_probability_keys):
        assert resolve(data, key) == pytest.approx(p)
    assert d.input_words[0] == "<START>" and d.input_words[1:] == d.chosen[:-1]
    assert d.ended == (d.chosen[-1] == "<END>")
    # Without attention the decoder's context is the encoder's summary.
    assert d.context == pytest.approx(e.context)

    o = output_view(tr)
    _check(data, o.compared, o.compared_key)
    assert o.mapping.chosen_word == d.chosen[o.mapping.step - 1]


def test_translator_output_mapping_adds_up(traces):
    # score = o_t . e_w + bias_w for every word, and softmax of the scores.
    m = output_view(traces["default"]).mapping
    assert m.products.sum(axis=1) == pytest.approx(m.dot_products)
    assert m.dot_products + m.bias == pytest.approx(m.scores)
    e = np.exp(m.scores - m.scores.max())
    assert e / e.sum() == pytest.approx(m.probabilities)
    assert m.vocabulary[m.ranked[0]] == m.chosen_word


def test_translator_context_is_last_forward_and_first_backward(traces):
    e = encoder_view(traces["default"])
    k = e.forward.shape[1]
    assert e.context[:k] == pytest.approx(e.forward[-1])
    assert e.context[k:] == pytest.approx(e.backward[0])
    assert e.annotations == pytest.approx(np.concatenate([e.forward, e.backward], axis=1))
