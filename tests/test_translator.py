"""The numpy translator: grammar, forward/backward, training, shipped
weights, the [model] table, the Trace sections and the length_curve scene."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from attention_core import NumbersError, tokenize
from attention_core.text import END, START
from attention_core.translator import model
from attention_core.translator.corpus import (
    DRAFT_PAIRS,
    MAX_PAIR_TOKENS,
    generate_pairs,
    make_corpus,
    source_words,
    target_words,
)
from attention_core.translator.section import LengthCurves, load_length_curves
from attention_core.translator.train import (
    DEFAULT_CONFIG,
    TrainConfig,
    config_key,
    evaluate,
    shipped_weights,
    train,
)

from .helpers import build_scene, check_numbers, load_default_trace, shown_keys, trace_from, varied

# --------------------------------------------------------------------------
# The grammar
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pairs():
    return generate_pairs(0, 3000)


def test_pairs_are_short_and_alignments_valid(pairs):
    sw, tw = set(source_words()), set(target_words())
    for p in [*pairs, *DRAFT_PAIRS]:
        assert 1 <= len(p.source) <= MAX_PAIR_TOKENS and 1 <= len(p.target) <= MAX_PAIR_TOKENS
        assert len(p.alignment) == len(p.target)
        assert all(0 <= a < len(p.source) for a in p.alignment)
        assert set(p.source) <= sw and set(p.target) <= tw
    assert len({p.source for p in pairs}) == len(pairs)  # distinct


def test_content_words_always_align_to_their_translation(pairs):
    # chat <- cat, noir(e) <- black, mange <- eats ... whatever the sentence.
    expected = {"chat": "cat", "noir": "black", "noire": "black", "mange": "eats",
                "croissance": "growth", "économique": "economic", "dernières": "recent",
                "poisson": "fish", "petit": "small", "petite": "small"}
    seen = set()
    for p in pairs:
        for fr, a in zip(p.target, p.alignment):
            if fr in expected:
                assert p.source[a] == expected[fr], (p, fr)
                seen.add(fr)
    assert seen == set(expected)


def test_post_nominal_adjectives_cross(pairs):
    # "the black cat" -> "le chat noir": the alignment lines cross. Every
    # crossing goes from a word aligned to a noun (the noun itself, or the
    # article English lacks: "small bread" -> "du petit pain") back to an
    # adjective; noun-then-post-adjective crossings are the common case.
    from attention_core.translator.corpus import _NOUNS, _POST_ADJECTIVES, _PRE_ADJECTIVES

    nouns = {n[0] for n in _NOUNS}
    adjectives = {a[0] for a in _PRE_ADJECTIVES + _POST_ADJECTIVES}
    post = {a[0] for a in _POST_ADJECTIVES}
    crossings = noun_adjective = 0
    for p in pairs:
        for i in range(len(p.target) - 1):
            if p.alignment[i] > p.alignment[i + 1]:
                crossings += 1
                assert p.source[p.alignment[i]] in nouns, p
                assert p.source[p.alignment[i + 1]] in adjectives, p
                noun_adjective += p.source[p.alignment[i + 1]] in post and p.target[i] not in ("du", "la", "le")
    assert noun_adjective > 100
    black_cat = next(p for p in DRAFT_PAIRS if p.source[:3] == ("the", "black", "cat"))
    assert black_cat.target[:3] == ("le", "chat", "noir") and black_cat.alignment[:3] == (0, 2, 1)


def test_generator_is_deterministic_and_seed_dependent():
    assert generate_pairs(5, 200) == generate_pairs(5, 200)
    assert generate_pairs(5, 200) != generate_pairs(6, 200)
    a, b = make_corpus(1, 300, 50), make_corpus(1, 300, 50)
    assert a == b and a.fingerprint() == b.fingerprint()
    assert not {p.source for p in a.held_out} & {p.source for p in a.train}


def test_drafts_sentences_are_covered():
    # Worked by hand from the grammar: article "la" goes with "growth" (English
    # has none), "s'est ralentie" (feminine: la croissance) translates
    # "slowed" (the reflexive auxiliary belongs to the verb se ralentir;
    # "has increased" is "a augmenté"), "has" and "down" get no word of
    # their own, "ces" translates "in".
    growth = next(p for p in DRAFT_PAIRS if p.source[0] == "economic")
    assert growth.source == tokenize("Economic growth has slowed down in recent years")
    assert growth.target == tokenize("la croissance économique s'est ralentie ces dernières années")
    assert [growth.source[a] for a in growth.alignment] == [
        "growth", "growth", "economic", "slowed", "slowed", "in", "recent", "years"]
    cat = next(p for p in DRAFT_PAIRS if p.source == ("the", "cat", "eats", "fish"))
    assert cat.target == ("le", "chat", "mange", "du", "poisson")
    # The grammar itself writes these sentences (not only the fixed list).
    made = {p.source: p for p in generate_pairs(1, 20000)}
    for p in DRAFT_PAIRS[:2]:
        assert made[p.source] == p
    corpus = make_corpus(0, 500, 50)
    assert {p.source for p in DRAFT_PAIRS} <= {p.source for p in corpus.train}


# --------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------


def test_gru_step_by_hand():
    # All weights zero: z = r = sigmoid(0) = 0.5, n = tanh(0) = 0,
    # h' = (1 - 0.5) h + 0.5 * 0 = h / 2. For h = [1, -2]: [0.5, -1].
    W, U, b = np.zeros((6, 3)), np.zeros((6, 2)), np.zeros(6)
    h_new, _ = model.gru_step(np.array([[3.0, 1.0, -1.0]]), np.array([[1.0, -2.0]]), W, U, b)
    assert np.allclose(h_new, [[0.5, -1.0]])
    # Now b_n = [1, 0] (the candidate's bias): n = [tanh 1, 0] = [0.7616, 0],
    # h' = 0.5 * [1, -2] + 0.5 * [0.7616, 0] = [0.8808, -1].
    b[4] = 1.0
    h_new, _ = model.gru_step(np.array([[3.0, 1.0, -1.0]]), np.array([[1.0, -2.0]]), W, U, b)
    assert np.allclose(h_new, [[0.8808, -1.0]], atol=1e-4)


def test_gru_candidate_applies_the_reset_gate_before_U():
    # The convention of docs/trained-models.md: n = tanh(W_n x + U_n (r * h) + b_n). Worked by
    # hand with h = [1, 2], U_n swapping the two units, b_r = [0, ln 1/3] so
    # r = [0.5, 0.25], z = 0.5:
    #   U_n (r * h) = swap([0.5, 0.5]) = [0.5, 0.5] -> n = [0.46212, 0.46212]
    #   (r * (U_n h) would be [1.0, 0.25]: a different candidate)
    #   h' = 0.5 [1, 2] + 0.5 n = [0.73106, 1.23106]
    W, U, b = np.zeros((6, 1)), np.zeros((6, 2)), np.zeros(6)
    U[4:6] = [[0.0, 1.0], [1.0, 0.0]]
    b[3] = np.log(1 / 3)
    h_new, cache = model.gru_step(np.zeros((1, 1)), np.array([[1.0, 2.0]]), W, U, b)
    _, _, z, r, _, n = cache
    assert np.allclose(r, [[0.5, 0.25]]) and np.allclose(z, 0.5)
    assert np.allclose(n, [[0.46212, 0.46212]], atol=1e-5)
    assert np.allclose(h_new, [[0.73106, 1.23106]], atol=1e-5)


def test_one_decoder_step_by_hand():
    # H = 1, E = 1, one English word, vocabulary of 3 French words. Every
    # GRU weight zero except the candidate biases b_n = 1 (encoder) and
    # b_n = 2 (decoder):
    #   h_1 = 0.5 * 0 + 0.5 * tanh(1) = 0.38080
    #   s_1 = 0.5 * 0 + 0.5 * tanh(2) = 0.48201 (s_0 = 0, the inputs have no weight)
    #   scores = e_w * s_1 for e = [1, -2, 3] = [0.48201, -0.96403, 1.44604]
    p = model.init_params(np.random.default_rng(0), 2, 3, 1, 1, attention=False)
    for k in p:
        p[k] = np.zeros_like(p[k])
    p["enc_b"][2] = 1.0
    p["dec_b"][2] = 2.0
    p["tgt_emb"] = np.array([[1.0], [-2.0], [3.0]])
    batch = model.make_batch([[1]], None, 0, 1)
    ids, _, enc, steps = model.greedy_decode(p, batch, 0, 1, 1, attention=False, keep_steps=True)
    assert np.allclose(enc["states"][0, 0], [0.38080], atol=1e-5)
    assert np.allclose(steps[0]["context"], enc["h_T"])
    assert np.allclose(steps[0]["s_prev"], 0.0)
    assert np.allclose(steps[0]["state"], [[0.48201]], atol=1e-5)
    assert np.allclose(steps[0]["scores"], [[0.48201, -0.96403, 1.44604]], atol=1e-5)
    assert ids[0, 0] == 2


def test_parameter_counts():
    # Worked by hand for V_en = 7, V_fr = 9, E = 3, H = 4:
    # src 21 + tgt 36 + encoder (12*3 + 12*4 + 12 = 96) + decoder (12*8 + 12*4 + 12 = 156)
    # = 309 without attention; attention adds 16 + 16 + 4 = 36.
    assert model.param_count(7, 9, 3, 4, attention=False) == 309
    assert model.param_count(7, 9, 3, 4, attention=True) == 345
    assert set(model.init_params(np.random.default_rng(0), 7, 9, 3, 4, attention=False)) == (
        set(model.PARAM_NAMES) - set(model.ATTENTION_PARAM_NAMES))


def test_attention_with_equal_scores_averages_the_annotations():
    # v = 0 makes every score 0: the weights are 1/3 each over the three real
    # words (the padded fourth gets 0), and the context is their mean.
    rng = np.random.default_rng(0)
    p = model.init_params(rng, 5, 5, 2, 2)
    p["att_v"] = np.zeros(2)
    ann = np.array([[[1.0, 2.0], [3.0, 0.0], [-1.0, 1.0], [9.0, 9.0]]])
    mask = np.array([[1.0, 1.0, 1.0, 0.0]])
    _, _, alpha, c = model.attend(p, np.zeros((1, 2)), ann, ann @ p["att_U"].T, mask)
    assert np.allclose(alpha, [[1 / 3, 1 / 3, 1 / 3, 0.0]])
    assert np.allclose(c, [[1.0, 1.0]])


def _numeric_grads(p, batch, attention, guide):
    out = {}
    for name, value in p.items():
        num = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            old = value[idx]
            value[idx] = old + 1e-5
            up, _ = model.forward(p, batch, attention, guide)
            value[idx] = old - 1e-5
            down, _ = model.forward(p, batch, attention, guide)
            value[idx] = old
            num[idx] = (up - down) / 2e-5
        out[name] = num
    return out


@pytest.mark.parametrize("attention,guide", [(True, 0.0), (True, 0.5), (False, 0.0)],
                         ids=["attention", "guided", "no-attention"])
def test_gradients_match_finite_differences(attention, guide):
    rng = np.random.default_rng(3)
    p = model.init_params(rng, 7, 9, 3, 4, attention)
    for k in p:  # move off the zero biases so every path carries gradient
        p[k] = p[k] + rng.normal(0, 0.3, p[k].shape)
    # Uneven lengths exercise the padding masks (h_T carried through padding).
    batch = model.make_batch([[1, 2, 3], [4, 5], [6]], [[2, 3, 4], [5], [6, 7, 8, 2]], 0, 1,
                             [(0, 2, 1), (1,), (0, 0, 0, 0)])
    _, grads = model.loss_and_grads(p, batch, attention, guide)
    numeric = _numeric_grads(p, batch, attention, guide)
    assert set(grads) == set(p)
    for name in p:
        scale = max(1e-6, np.abs(numeric[name]).max())
        assert np.abs(numeric[name]).max() > 0, name  # every weight is on the path
        assert np.abs(grads[name] - numeric[name]).max() / scale < 1e-5, name


def test_padding_does_not_change_a_sentence():
    rng = np.random.default_rng(1)
    p = model.init_params(rng, 7, 9, 3, 4)
    alone = model.make_batch([[1, 2]], [[3, 4]], 0, 1)
    padded = model.make_batch([[1, 2], [3, 4, 5, 6]], [[3, 4], [5, 6, 7]], 0, 1)
    _, c1 = model.forward(p, alone)
    _, c2 = model.forward(p, padded)
    assert np.allclose(c1["h_T"][0], c2["h_T"][0])
    for t in range(3):  # <START>, chat, ... <END>
        assert np.allclose(c1["steps"][t]["probs"][0], c2["steps"][t]["probs"][0])
        assert np.allclose(c1["steps"][t]["alpha"][0], c2["steps"][t]["alpha"][0][:2])
        assert c2["steps"][t]["alpha"][0][2:].max() == 0.0


def test_short_training_reduces_the_loss_and_is_deterministic():
    cfg = TrainConfig(seed=3, embedding=4, hidden=4, steps=200, batch_size=16, train_size=200,
                      held_out_size=20, learning_rate=0.03, guide=0.0)
    w = train(cfg)
    assert len(w.losses) == cfg.steps
    first, last = np.mean(w.losses[:10]), np.mean(w.losses[-10:])
    assert last < 0.8 * first
    again = train(cfg)
    for k in w.params:
        assert np.array_equal(w.params[k], again.params[k])
    assert w.key == again.key != config_key(replace(cfg, seed=4))


# --------------------------------------------------------------------------
# Shipped weights and the Trace
# --------------------------------------------------------------------------


def test_shipped_weights_meet_the_targets():
    w = shipped_weights()
    assert w.key == config_key(DEFAULT_CONFIG)
    # The drafts' sizes tied: French embeddings have the state's size.
    assert w.params["tgt_emb"].shape[1] == w.params["dec_U"].shape[1] == DEFAULT_CONFIG.hidden
    assert set(w.params) == set(model.PARAM_NAMES)
    corpus = make_corpus(DEFAULT_CONFIG.seed, DEFAULT_CONFIG.train_size, DEFAULT_CONFIG.held_out_size)
    ev = evaluate(w, corpus.held_out)  # measured again, not read from the file
    assert ev.sentences == DEFAULT_CONFIG.held_out_size
    # Trained on the translation loss alone: nothing pulls attention to the grammar's words.
    assert w.config.guide == 0.0 == DEFAULT_CONFIG.guide
    assert ev.exact_match >= 0.95
    # Issue 23 asks >= 0.90 alignment; unguided, this model reaches about 0.8 (docs/trained-models.md
    # reports the gap and why). The figure shipped is the one measured here.
    assert ev.alignment == w.evaluation["alignment"] and ev.exact_match == w.evaluation["exact_match"]
    assert ev.alignment > 0.7


def test_shipped_plain_weights_are_the_translator_without_attention():
    # The Part 1 scenes' network: same corpus and sizes, attention off, no
    # guide; found by its key, so rendering never trains.
    from attention_core.translator.train import PLAIN_CONFIG, SHIPPED_WEIGHTS, load_or_train

    from attention_core.translator.train import plain_config

    # Kept as it was trained before the unguided search: its own learning rate.
    assert PLAIN_CONFIG == replace(DEFAULT_CONFIG, attention=False, guide=0.0, learning_rate=0.01, steps=3000,
                                   train_size=4000)
    assert plain_config(DEFAULT_CONFIG) is PLAIN_CONFIG
    other = replace(DEFAULT_CONFIG, steps=10)  # any other settings: the same values, no attention
    assert plain_config(other) == replace(other, attention=False, guide=0.0)
    w = shipped_weights(SHIPPED_WEIGHTS[1])
    assert w.key == config_key(PLAIN_CONFIG) and w.config == PLAIN_CONFIG
    assert set(w.params) == set(model.PARAM_NAMES) - set(model.ATTENTION_PARAM_NAMES)
    assert load_or_train(PLAIN_CONFIG) is w
    corpus = make_corpus(DEFAULT_CONFIG.seed, DEFAULT_CONFIG.train_size, DEFAULT_CONFIG.held_out_size)
    ev = evaluate(w, corpus.held_out)
    with_attention = evaluate(shipped_weights(), corpus.held_out)
    # Measured again: it learnt something, and attention does much better.
    assert 0.05 < ev.exact_match < with_attention.exact_match - 0.3
    assert ev.exact_match == pytest.approx(w.evaluation["exact_match"])


def _check_network_json(net: dict, has_attention: bool) -> None:
    """Properties every exported network has, trained or the fallback."""
    E_fr = np.array(net["target_embedding_matrix"])
    H = E_fr.shape[1]
    h = np.array(net["encoder_states"])
    assert h.shape == (len(net["tokens"]) + 1, H)
    assert np.array_equal(h[0], np.zeros(H))  # h_0 = 0
    assert net["initial_state"] == [0.0] * H  # s_0 = 0
    assert np.array_equal(np.array(net["decoder_states"])[0], np.zeros(H))
    assert net["last_encoder_state"] == net["encoder_states"][-1]
    assert net["has_attention"] is has_attention
    x = np.array(net["embeddings"])
    assert np.array_equal(x, np.array(net["source_embedding_matrix"])[net["token_ids"]])
    for t, st in enumerate(net["steps"]):
        s = np.array(st["state"])
        # The output mapping is the dot product with every French embedding, nothing added.
        assert st["scores"] == (E_fr @ s).tolist()
        assert st["input_embedding"] == net["target_embedding_matrix"][
            net["target_vocabulary"].index(st["input"])]
        assert st["previous_state"] == net["decoder_states"][t]
        assert st["state"] == net["decoder_states"][t + 1]
        p = np.array(st["probabilities"])
        assert p.sum() == pytest.approx(1.0) and st["chosen_id"] == int(p.argmax())
        if has_attention:
            a = np.array(st["attention_weights"])
            assert a.sum() == pytest.approx(1.0) and a.min() >= 0
            assert np.allclose(st["context"], a @ h[1:])
        else:
            assert st["attention_weights"] is None and st["attention_scores"] is None
            assert st["context"] == net["last_encoder_state"]  # c_t = h_T
    assert net["steps"][0]["input"] == START
    assert net["parameter_count"] == sum(np.array(v).size for v in net["parameters"].values())
    assert net["parameters"]["tgt_emb"] == net["target_embedding_matrix"]
    assert net["parameters"]["src_emb"] == net["source_embedding_matrix"]
    for bidirectional_only in ("encoder_forward", "encoder_backward", "annotations", "summary",
                               "output_bias"):
        assert bidirectional_only not in net


def test_default_trace_exports_both_networks_in_the_drafts_notation():
    trace = load_default_trace()
    data = json.loads(json.dumps(trace.to_dict(), allow_nan=False))  # strict JSON
    from attention_core.translator.train import PLAIN_CONFIG, load_or_train

    for name, has_att, weights in (("model", True, shipped_weights()),
                                   ("plain_model", False, load_or_train(PLAIN_CONFIG))):
        net = data[name]
        assert net["network"] == "gru" and net["trained"] is True and net["weights"] == "trained"
        _check_network_json(net, has_att)
        # Every weight of the network, equal to the weight file's.
        assert set(net["parameters"]) == set(weights.params)
        for k, v in weights.params.items():
            assert np.array_equal(np.array(net["parameters"][k]), v), k
        n_src, n_tgt = len(weights.source_vocab), len(weights.target_vocab)
        E, H = weights.config.embedding, weights.config.hidden
        assert net["parameter_count"] == model.param_count(n_src, n_tgt, E, H, has_att)
        assert net["sizes"] == {"embedding": E, "hidden": H}
        assert net["tokens"] == list(trace.source_tokens)
        # The GRU's gates, recomputed here from the exported weights and inputs.
        st = net["steps"][0]
        P = {k: np.array(v) for k, v in net["parameters"].items()}
        inp = np.concatenate([st["input_embedding"], st["context"]])
        z = 1 / (1 + np.exp(-(P["dec_W"][:H] @ inp + P["dec_b"][:H])))  # s_0 = 0: no U term
        n = np.tanh(P["dec_W"][2 * H:] @ inp + P["dec_b"][2 * H:])
        assert np.allclose(st["gates"]["update"], z) and np.allclose(st["gates"]["candidate"], n)
        assert np.allclose(st["state"], z * n)  # (1 - z) * 0 + z * n
    assert data["plain_model"]["held_out"]["alignment"] is None
    assert data["plain_output_mapping"]["step"] == 2  # the draft's s_2 -> op_2
    assert data["plain_output_mapping"]["chosen_word"] == data["plain_model"]["steps"][1]["chosen"]
    assert data["plain_output_mapping"]["scores"] == data["plain_model"]["steps"][1]["scores"]
    assert data["encoder"] == json.loads(json.dumps(trace.encoder.to_dict()))  # untouched


def test_bottleneck_example_is_decoded_by_both_networks():
    from attention_core.translator.settings import ModelSettings
    from attention_core.translator.section import model_trace

    trace = load_default_trace()
    ex = trace.bottleneck_example
    assert ex is not None and len(ex.source) >= 8
    # Decoded again through the Trace's own path, one sentence at a time.
    settings = ModelSettings()
    with_att = model_trace(ex.source, settings, 0)
    plain = model_trace(ex.source, settings.plain, 0)
    assert with_att.translation == ex.attention_translation == ex.reference
    assert plain.translation == ex.plain_translation != ex.reference
    data = trace.to_dict()["bottleneck_example"]
    assert data["plain_exact"] is False and data["attention_exact"] is True
    assert trace.to_dict()["plain_output_mapping"]["probability_sum"] == pytest.approx(1.0)
    # No example for the untrained fallback.
    assert trace_from(_fallback_numbers("zebra")).bottleneck_example is None


def test_default_trace_has_the_model_section():
    trace = load_default_trace()
    m = trace.model
    assert m.weights == "trained" and m.source_tokens == trace.source_tokens
    assert m.chosen[-1] == END and m.inputs[0] == START
    assert list(m.chosen_ids) == list(m.probabilities.argmax(axis=1))
    assert np.allclose(m.contexts, m.attention @ m.encoder_states[1:])
    # Teacher-forced training forward on the chosen words gives the same values.
    w = shipped_weights()
    src = [w.source_vocab.index(t) for t in m.source_tokens]
    words = [w.target_vocab.index(t) for t in m.translation]
    batch = model.make_batch([src], [words], w.target_vocab.index(START), w.target_vocab.index(END))
    _, cache = model.forward(w.params, batch)
    for t, st in enumerate(cache["steps"]):
        assert np.allclose(st["probs"][0], m.probabilities[t])
    # The plain network reads the same sentence into the same kind of h_j.
    assert trace.plain_model.encoder_states.shape == m.encoder_states.shape


def test_plain_model_follows_the_model_table():
    # "seeded" applies to both networks; sizes too (seeded: nothing trains).
    t = trace_from(varied(model={"weights": "seeded", "embedding": 2, "hidden": 3}))
    assert t.plain_model.weights == "seeded" and t.plain_model.encoder_states.shape[1] == 3
    assert not t.plain_model.has_attention and t.model.has_attention
    assert t.plain_model.network == t.model.network == "gru"
    # Values of the small RNN set by hand: the scenes show that RNN, both networks.
    t = trace_from(varied(decoder={"b": [0.1, 0.0, 0.0, 0.0]}))
    assert t.plain_model.network == t.model.network == "tanh_rnn"
    assert t.plain_model.parameters["dec_b"].tolist() == [0.1, 0.0, 0.0, 0.0]


ZEBRA = {"seed": 2024, "sentences": {"source": "the zebra eats fish", "target": "le zèbre mange du poisson"},
         "sizes": {"embedding": 4, "hidden": 4}}


def _fallback_numbers(which: str) -> dict:
    if which == "zebra":  # issue 15's repro: a word the grammar lacks
        return varied(**ZEBRA)
    return varied(encoder={"b": [0.1, -0.2, 0.3, 0.0]})  # the default sentence, one tanh table by hand


@pytest.mark.parametrize("which", ["zebra", "encoder-b"])
def test_fallback_tanh_rnn_has_the_same_keys(which):
    trace = trace_from(_fallback_numbers(which))
    data = json.loads(json.dumps(trace.to_dict(), allow_nan=False))
    default = json.loads(json.dumps(load_default_trace().to_dict(), allow_nan=False))
    for name, has_att in (("model", True), ("plain_model", False)):
        net = data[name]
        assert net["network"] == "tanh_rnn" and net["trained"] is False
        _check_network_json(net, has_att)
        # Same keys as the trained network's, at every level a scene reads.
        assert set(net) == set(default[name])
        assert set(net["steps"][0]) == set(default[name]["steps"][0])
        # The same encoder as the legacy `encoder` section, h_0 = 0 first.
        assert net["encoder_states"] == data["encoder"]["hidden"]
    assert set(data["plain_output_mapping"]) == set(default["plain_output_mapping"])
    # s_1 worked from the exported weights: tanh(W_o op_0 + W_s s_0 + W_c h_T + b).
    net = data["plain_model"]
    P = {k: np.array(v) for k, v in net["parameters"].items()}
    op0 = np.array(net["steps"][0]["input_embedding"])
    s1 = np.tanh(P["dec_W_o"] @ op0 + P["dec_W_c"] @ np.array(net["last_encoder_state"]) + P["dec_b"])
    assert np.allclose(net["steps"][0]["state"], s1)
    # and h_1 = tanh(W_x x_1 + W_h h_0 + b)
    h1 = np.tanh(P["enc_W_x"] @ np.array(net["embeddings"][0]) + P["enc_b"])
    assert np.allclose(net["encoder_states"][1], h1)
    if which == "encoder-b":
        assert net["parameters"]["enc_b"] == [0.1, -0.2, 0.3, 0.0]


@pytest.mark.parametrize("which", ["zebra", "encoder-b"])
def test_fallback_gives_every_key_a_scene_reads_from_the_trained_network(which):
    # Issue 15: the Part 1 scenes failed with "no 'weights' in the computed
    # numbers" on the fallback. Every trace section a scene declares that the
    # trained network's numbers have, the fallback's numbers have too.
    from publish.tables import section
    from scenes import SCENES

    default = load_default_trace().to_dict()
    data = trace_from(_fallback_numbers(which)).to_dict()
    checked = 0
    for cls in SCENES.values():
        for path in cls.trace_sections:
            try:
                section(default, path)
            except (KeyError, IndexError):
                continue
            section(data, path)
            checked += 1
    assert checked > 20


_FALLBACK_FILES = {
    # Issue 15's repro, as a user writes it.
    "zebra": 'seed = 2024\n[sentences]\nsource = "the zebra eats fish"\n'
             'target = "le zèbre mange du poisson"\n[sizes]\nembedding = 4\nhidden = 4\n',
    # The default sentence plus one table of the tanh RNN by hand.
    "encoder-b": "[encoder]\nb = [0.1, -0.2, 0.3, 0.0]\n",
}


@pytest.mark.parametrize("which", ["zebra", "encoder-b"])
def test_fallback_numbers_cli(tmp_path, which):
    from click.testing import CliRunner

    from attention_core.numbers_file import default_numbers_text
    from render import cli

    numbers = tmp_path / "n.toml"
    text = _FALLBACK_FILES[which]
    if which == "encoder-b":
        text = default_numbers_text() + "\n" + text
    numbers.write_text(text, "utf-8")
    result = CliRunner().invoke(cli, ["numbers", "--numbers", str(numbers), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for name in ("model", "plain_model"):
        net = data[name]
        assert net["network"] == "tanh_rnn" and net["trained"] is False
        _check_network_json(net, name == "model")


def test_sentence_outside_the_grammar():
    # No [model] table: the fallback tanh RNN, marked untrained.
    t = trace_from(varied(sentences={"source": "Hello world"}))
    assert t.model.network == "tanh_rnn" and not t.model.trained and t.model.held_out is None
    with pytest.raises(NumbersError, match=r"'hello', 'world'"):
        trace_from(varied(sentences={"source": "Hello the world"}, model={"weights": "trained"}))
    seeded = trace_from(varied(sentences={"source": "Hello the world"}, model={"weights": "seeded"}))
    assert seeded.model.weights == "seeded" and seeded.model.source_tokens == ("hello", "the", "world")
    assert seeded.model.network == "gru" and seeded.model.held_out is None


@pytest.mark.parametrize(
    "table,message",
    [
        ({"weight": "trained"}, "model.weight: unknown key"),
        ({"weights": "pretrained"}, "model.weights: expected"),
        ({"weights": 1}, "model.weights: expected a string"),
        ({"hidden": 17}, "model.hidden: expected a whole number from 2 to 16"),
        ({"embedding": 1}, "model.embedding: expected a whole number from 2 to 16"),
        ({"steps": 0}, "model.steps: expected a whole number"),
        ({"seed": -1}, "model.seed: expected a whole number"),
        ({"batch_size": 2.5}, "model.batch_size: expected a whole number"),
        ({"learning_rate": 0}, "model.learning_rate: expected a number above 0"),
        ({"learning_rate": float("nan")}, "model.learning_rate: expected a finite number"),
        ({"attention": "yes"}, "model.attention: expected true or false"),
        ({"guide": -1}, "model.guide: expected a number from 0 to 10"),
        ([1, 2], "model: expected a table"),
    ],
)
def test_model_table_validation(table, message):
    with pytest.raises(NumbersError, match=message.replace("(", r"\(")):
        trace_from(varied(model=table))


def test_seeded_weights_follow_the_numbers_file_seed():
    a = trace_from(varied(model={"weights": "seeded", "hidden": 4, "embedding": 2}))
    b = trace_from(varied(model={"weights": "seeded", "hidden": 4, "embedding": 2}, seed=9))
    assert a.model.embeddings.shape == (8, 2) and a.model.encoder_states.shape == (9, 4)
    assert not np.allclose(a.model.embeddings, b.model.embeddings)
    # seeded values are rounded to the two decimals shown
    assert np.allclose(a.model.embeddings, np.round(a.model.embeddings, 2))


def test_train_command(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from render import cli

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    numbers = tmp_path / "n.toml"
    numbers.write_text('seed = 1\n[sentences]\nsource = "the cat eats fish"\ntarget = "le chat"\n'
                       '[sizes]\nembedding = 2\nhidden = 2\n'
                       '[model]\nsteps = 3\nhidden = 4\nembedding = 4\n', "utf-8")
    result = CliRunner().invoke(cli, ["train", "--numbers", str(numbers)])
    assert result.exit_code == 0, result.output
    assert "exact-match translation accuracy:" in result.output
    assert "alignment accuracy:" in result.output
    # Both networks the scenes use: with attention, and the plain twin.
    assert "with attention: trained" in result.output
    assert "without attention: trained" in result.output
    # Each network's weights and its training record (snapshots).
    assert len(list((tmp_path / "cache").rglob("*.snapshots.npz"))) == 2
    assert len(list((tmp_path / "cache").rglob("*.npz"))) == 4
    assert "(trained unguided, 3 steps)" in result.output
    assert "  step 0: held-out loss" in result.output and "  step 3: held-out loss" in result.output
    # Then the Trace finds both in the cache instead of training again.
    from attention_core import compute_trace, load_numbers

    cached = sorted((tmp_path / "cache").rglob("*.npz"))
    stamps = [f.stat().st_mtime_ns for f in cached]
    trace = compute_trace(load_numbers(str(numbers)))
    assert trace.model.config.attention and not trace.plain_model.config.attention
    assert [f.stat().st_mtime_ns for f in sorted((tmp_path / "cache").rglob("*.npz"))] == stamps
    result = CliRunner().invoke(cli, ["train", "--numbers", str(numbers), "--network", "plain"])
    assert result.exit_code == 0 and "alignment accuracy" not in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text(numbers.read_text("utf-8").replace("steps = 3", "steps = -3"), "utf-8")
    result = CliRunner().invoke(cli, ["train", "--numbers", str(bad)])
    assert result.exit_code == 2 and "model.steps" in result.output


# --------------------------------------------------------------------------
# The length experiment and its scene
# --------------------------------------------------------------------------


def test_shipped_length_curves():
    curves = load_length_curves()
    d = curves.to_dict()
    n = len(d["lengths"])
    assert d["lengths"] == sorted(d["lengths"]) and n >= 5 and d["lengths"][-1] == MAX_PAIR_TOKENS
    for name in ("with_attention", "without_attention"):
        for metric in ("exact_match", "word_accuracy"):
            values = d[name][metric]
            assert len(values) == n and all(0.0 <= v <= 1.0 for v in values)
    assert d["without_attention"]["config"]["attention"] is False
    assert load_default_trace().to_dict()["length_experiment"] == d


def _curve_keys(data) -> set[tuple]:
    last = len(data["lengths"]) - 1
    return {(f"length_experiment.{name}.exact_match", last) for name in ("with_attention", "without_attention")}


def test_length_curve_scene_every_frame():
    trace = load_default_trace()
    scene = build_scene("length_curve", trace, skip=False)
    assert scene.audit.faults == []
    assert shown_keys(scene) == _curve_keys(trace.to_dict()["length_experiment"])
    assert check_numbers(scene, load_default_trace()) > 0


def _with_curves(trace, lengths, with_att, without_att):
    data = {"lengths": lengths, "sentences": [10] * len(lengths),
            "with_attention": {"exact_match": with_att, "word_accuracy": with_att},
            "without_attention": {"exact_match": without_att, "word_accuracy": without_att}}
    return replace(trace, length_experiment=LengthCurves(data))


@pytest.mark.parametrize(
    "lengths,with_att,without_att",
    [
        ([2, 3], [1.0, 0.0], [0.0, 1.0]),  # two points, extreme values
        (list(range(1, 13)), [1.0] * 12, [0.0] * 12),  # every length, flat at the edges
    ],
    ids=["two-lengths", "twelve-lengths-extremes"],
)
def test_length_curve_scene_varied(lengths, with_att, without_att):
    trace = _with_curves(load_default_trace(), lengths, with_att, without_att)
    scene = build_scene("length_curve", trace)
    assert scene.audit.faults == []
    assert shown_keys(scene) == _curve_keys(trace.to_dict()["length_experiment"])
    assert check_numbers(scene, _with_curves(load_default_trace(), lengths, with_att, without_att)) > 0


def test_length_curve_light_theme_and_sections():
    from scenes import LIGHT, SCENES

    scene = build_scene("length_curve", load_default_trace(), theme=LIGHT)
    assert scene.audit.faults == []
    for key in shown_keys(scene):
        assert any(key[0] == s or key[0].startswith(s + ".") for s in SCENES["length_curve"].trace_sections)
