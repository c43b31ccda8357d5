"""The Part 1 view: which network it picks, that it is the drafts' model
(h_0 = 0, context h_T, s_0 = 0, scores = s_t . e_w), and that every key it
hands to a scene names the value it pairs it with."""

from __future__ import annotations

import numpy as np
import pytest

from scenes.process_view import process_view
from scenes.seq2seq_view import decoder_view, encoder_view, network_note, output_view, uses_translator

from .helpers import load_default_trace, resolve, trace_from, varied

# A sentence with a word the grammar lacks ("inflation"): the tanh RNN is shown.
UNKNOWN_WORD = {"sentences": {"source": "Inflation has slowed down in recent years"}}
# Issue 15's repro of the fallback: an unknown word at the smallest default-like sizes.
ZEBRA = dict(seed=2024, sentences={"source": "the zebra eats fish", "target": "le zèbre mange du poisson"},
             sizes={"embedding": 4, "hidden": 4})
# The small RNN's values set by hand: the reader's own numbers win.
BY_HAND = {"encoder": {"b": [0.1, -0.2, 0.3, 0.0]}}


@pytest.fixture(scope="module")
def traces():
    return {
        "default": load_default_trace(),
        "unknown": trace_from(varied(**UNKNOWN_WORD)),
        "zebra": trace_from(varied(**ZEBRA)),
        "by_hand": trace_from(varied(**BY_HAND)),
        "seeded_model": trace_from(varied(model={"weights": "seeded"})),
    }


def test_which_network(traces):
    assert uses_translator(traces["default"])
    assert not uses_translator(traces["unknown"])
    assert not uses_translator(traces["zebra"])
    assert not uses_translator(traces["by_hand"])
    assert uses_translator(traces["seeded_model"])
    assert encoder_view(traces["default"]).trained
    assert not encoder_view(traces["seeded_model"]).trained
    assert decoder_view(traces["unknown"]).network == "tanh"
    assert not decoder_view(traces["zebra"]).trained
    # What the screen says about it.
    assert network_note(traces["default"]).startswith("the translator trained without attention")
    assert "\u201czebra\u201d" in network_note(traces["zebra"]) and "untrained" in network_note(traces["zebra"])
    assert "untrained" in network_note(traces["by_hand"])
    assert "untrained" in network_note(traces["seeded_model"])


def _check(data, value, key):
    got = np.asarray(resolve(data, (key,)), dtype=float)
    assert got == pytest.approx(np.asarray(value, dtype=float)), key


@pytest.mark.parametrize("name", ["default", "unknown", "zebra", "by_hand", "seeded_model"])
def test_every_key_names_its_value(traces, name):
    tr = traces[name]
    data = tr.to_dict()
    e = encoder_view(tr)
    T = len(e.tokens)
    assert len(e.inputs) == len(e.input_keys) == T
    assert len(e.states) == len(e.state_keys) == T + 1
    for vals, keys in ((e.inputs, e.input_keys), (e.states, e.state_keys)):
        for v, k in zip(vals, keys):
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

    o = output_view(tr)
    _check(data, o.mapping.state, o.key("state"))
    assert o.mapping.chosen_word == d.chosen[o.mapping.step - 1]
    assert o.mapping.state == pytest.approx(d.states[o.mapping.step - 1])


@pytest.mark.parametrize("name", ["default", "zebra", "seeded_model"])
def test_it_is_the_drafts_model(traces, name):
    tr = traces[name]
    e, d = encoder_view(tr), decoder_view(tr)
    H = e.states.shape[1]
    # h_0 = 0 and s_0 = 0, exactly.
    assert np.array_equal(e.states[0], np.zeros(H))
    assert np.array_equal(d.initial_state, np.zeros(H))
    # Without attention the decoder's context is h_T, the encoder's last state.
    assert d.context == pytest.approx(e.states[-1])
    assert e.context_key.endswith(f".{len(e.tokens)}")
    # op_0 is the embedding of <START>: a row of the French embedding matrix.
    m = tr.to_dict()["plain_model"]
    V = m["target_vocabulary"]
    French = np.array(m["target_embedding_matrix"])
    assert d.input_embeddings[0] == pytest.approx(French[V.index("<START>")])
    for word, emb in zip(d.input_words, d.input_embeddings):
        assert emb == pytest.approx(French[V.index(word)])


@pytest.mark.parametrize("name", ["default", "zebra"])
def test_output_scores_are_exactly_the_dot_products(traces, name):
    # scores_w = s_t . e_w, nothing added; the terms are s_t[i] e_w[i]; softmax gives p.
    m = output_view(traces[name]).mapping
    state, emb = np.asarray(m.state), np.asarray(m.embeddings)
    by_hand = np.array([sum(state[i] * row[i] for i in range(len(state))) for row in emb])
    assert np.asarray(m.scores) == pytest.approx(by_hand, abs=1e-12)
    assert np.asarray(m.products) == pytest.approx(emb * state[None, :], abs=1e-12)
    e = np.exp(by_hand - by_hand.max())
    assert np.asarray(m.probabilities) == pytest.approx(e / e.sum())
    assert m.vocabulary[m.ranked[0]] == m.chosen_word
    # Every step of the decode too: scores = French embedding matrix @ s_t.
    plain = traces[name].to_dict()["plain_model"]
    French = np.array(plain["target_embedding_matrix"])
    for step in plain["steps"]:
        assert np.array(step["scores"]) == pytest.approx(French @ np.array(step["state"]), abs=1e-12)


def test_attention_network_reads_the_same_kind_of_h_j(traces):
    # The attention scenes' h_1..h_T are the network-with-attention's encoder states,
    # keyed and valued as the core has them; its weights sum to one.
    tr = traces["default"]
    data = tr.to_dict()
    pv = process_view(tr)
    assert len(pv.encoder_states) == len(pv.encoder_keys) == len(pv.source_tokens)
    for v, k in zip(pv.encoder_states, pv.encoder_keys):
        _check(data, v, k)
    assert np.array_equal(pv.initial_state, np.zeros(len(pv.initial_state)))
    for step in pv.steps:
        assert step.weights.sum() == pytest.approx(1.0)
        # c_t = sum_j a_tj h_j, recomputed here.
        assert step.context == pytest.approx(step.weights @ pv.encoder_states)
        for value, key in ((step.scores, step.scores_key), (step.weights, step.weights_key),
                           (step.context, step.context_key), (step.state, step.state_key),
                           (step.previous_state, step.previous_state_key)):
            _check(data, value, key)


def test_the_overview_decoder_emits_its_words_one_step_at_a_time(monkeypatch):
    # The caption promises every step; the decoder used to emit all but three words at once.
    from scenes.base import WalkthroughScene

    from .helpers import build_scene, load_default_trace

    arrivals: list[int] = []
    snapshot = WalkthroughScene._snapshot

    def counting(self):
        snapshot(self)
        words = getattr(self, "out_words", None)
        if words is not None:
            shown = sum(1 for w in words if w in self.mobjects and w.get_fill_opacity() > 0.5)
            arrivals.append(shown)

    monkeypatch.setattr(WalkthroughScene, "_snapshot", counting)
    scene = build_scene("seq2seq_overview", load_default_trace())
    n = len(scene.out_words)
    assert n >= 5 and arrivals[-1] == n
    assert all(b - a <= 1 for a, b in zip(arrivals, arrivals[1:]))


def test_the_overview_feeds_each_written_word_back_as_the_decoders_next_input():
    # Issue 22: the written word travels back to be the next step's input
    # (Alammar's walkthrough), right after it is written, before the next word.
    from .helpers import build_scene, load_default_trace

    trace = load_default_trace()
    written = list(decoder_view(trace).written)
    seen: list[tuple[int, int]] = []  # (words shown, feed-backs played) at each look

    def observe(scene) -> None:
        words = getattr(scene, "out_words", None)
        shown = 0 if words is None else sum(1 for w in words if w in scene.mobjects and w.get_fill_opacity() > 0.5)
        seen.append((shown, sum(1 for what, *_ in scene.moves if what == "feed_back")))

    scene = build_scene("seq2seq_overview", trace, observe=observe)
    assert len(written) >= 5
    assert [src for what, src, _ in scene.moves if what == "feed_back"] == written[:-1]
    # Feed-back k lands while exactly k + 1 words are written.
    for k in range(len(written) - 1):
        assert next(shown for shown, fed in seen if fed == k + 1) == k + 1
    # At the end the decoder's input, under its box, is the last word fed back.
    from manim import Text

    box_bottom = min(m.get_bottom()[1] for m in scene.out_words)
    under = [m for top in scene.mobjects for m in top.get_family()
             if isinstance(m, Text) and m.get_y() < box_bottom - 0.2 and m.original_text == written[-2]]
    assert len(under) == 1
