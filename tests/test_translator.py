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
    # has none), "s'est" translates "has", "ralentie" (feminine: la croissance)
    # translates "slowed", "down" gets no word, "ces" translates "in".
    growth = next(p for p in DRAFT_PAIRS if p.source[0] == "economic")
    assert growth.source == tokenize("Economic growth has slowed down in recent years")
    assert growth.target == tokenize("la croissance économique s'est ralentie ces dernières années")
    assert [growth.source[a] for a in growth.alignment] == [
        "growth", "growth", "economic", "has", "slowed", "in", "recent", "years"]
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
    p = model.init_params(rng, 7, 9, 3, 4)
    for k in p:  # move off the zero biases so every path carries gradient
        p[k] = p[k] + rng.normal(0, 0.3, p[k].shape)
    # Uneven lengths exercise the padding masks of both directions.
    batch = model.make_batch([[1, 2, 3], [4, 5], [6]], [[2, 3, 4], [5], [6, 7, 8, 2]], 0, 1,
                             [(0, 2, 1), (1,), (0, 0, 0, 0)])
    _, grads = model.loss_and_grads(p, batch, attention, guide)
    numeric = _numeric_grads(p, batch, attention, guide)
    for name in p:
        scale = max(1e-6, np.abs(numeric[name]).max())
        assert np.abs(grads[name] - numeric[name]).max() / scale < 1e-5, name


def test_padding_does_not_change_a_sentence():
    rng = np.random.default_rng(1)
    p = model.init_params(rng, 7, 9, 3, 4)
    alone = model.make_batch([[1, 2]], [[3, 4]], 0, 1)
    padded = model.make_batch([[1, 2], [3, 4, 5, 6]], [[3, 4], [5, 6, 7]], 0, 1)
    _, c1 = model.forward(p, alone)
    _, c2 = model.forward(p, padded)
    for t in range(3):  # <START>, chat, ... <END>
        assert np.allclose(c1["steps"][t]["probs"][0], c2["steps"][t]["probs"][0])
        assert np.allclose(c1["steps"][t]["alpha"][0], c2["steps"][t]["alpha"][0][:2])
        assert c2["steps"][t]["alpha"][0][2:].max() == 0.0


def test_short_training_reduces_the_loss_and_is_deterministic():
    cfg = TrainConfig(seed=3, embedding=4, hidden=4, steps=100, batch_size=16, train_size=200,
                      held_out_size=20)
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
    corpus = make_corpus(DEFAULT_CONFIG.seed, DEFAULT_CONFIG.train_size, DEFAULT_CONFIG.held_out_size)
    ev = evaluate(w, corpus.held_out)  # measured again, not read from the file
    assert ev.sentences == DEFAULT_CONFIG.held_out_size
    assert ev.exact_match >= 0.90
    assert ev.alignment >= 0.80


def test_shipped_plain_weights_are_the_translator_without_attention():
    # The Part 1 scenes' network: same corpus and sizes, attention off, no
    # guide; found by its key, so rendering never trains.
    from attention_core.translator.train import PLAIN_CONFIG, SHIPPED_WEIGHTS, load_or_train

    assert PLAIN_CONFIG == replace(DEFAULT_CONFIG, attention=False, guide=0.0)
    w = shipped_weights(SHIPPED_WEIGHTS[1])
    assert w.key == config_key(PLAIN_CONFIG) and w.config == PLAIN_CONFIG
    assert load_or_train(PLAIN_CONFIG) is w
    corpus = make_corpus(DEFAULT_CONFIG.seed, DEFAULT_CONFIG.train_size, DEFAULT_CONFIG.held_out_size)
    ev = evaluate(w, corpus.held_out)
    with_attention = evaluate(shipped_weights(), corpus.held_out)
    # Measured again: it learnt something, and attention does much better.
    assert 0.05 < ev.exact_match < with_attention.exact_match - 0.3
    assert ev.exact_match == pytest.approx(w.evaluation["exact_match"])


def test_default_trace_has_the_plain_model_section():
    trace = load_default_trace()
    p = trace.plain_model
    assert p is not None and p.weights == "trained" and not p.config.attention
    assert p.attention is None and p.scores is None
    assert p.source_tokens == trace.source_tokens
    # Without attention the context is [f_T ; b_1] at every step.
    k = p.forward_states.shape[1]
    assert np.allclose(p.summary, np.concatenate([p.forward_states[-1], p.backward_states[0]]))
    assert np.allclose(p.contexts, p.summary[None, :])
    # The decoder starts from tanh(W_init c + b_init), computed here from the weights.
    from attention_core.translator.train import PLAIN_CONFIG, load_or_train

    w = load_or_train(PLAIN_CONFIG)
    assert np.allclose(p.initial_state, np.tanh(w.params["init_W"] @ p.summary + w.params["init_b"]))
    assert np.allclose(p.previous_states[0], p.initial_state)
    assert np.allclose(p.previous_states[1:], p.states[:-1])
    assert list(p.chosen_ids) == list(p.probabilities.argmax(axis=1))
    # Its own vocabulary tables, exported for word_embeddings and output_mapping.
    assert np.allclose(p.embeddings, p.source_embedding_matrix[list(p.source_ids)])
    assert p.source_embedding_matrix.shape == (len(source_words()), k * 2)
    # Strict JSON: no NaN (the plain network has no alignment accuracy).
    data = json.loads(json.dumps(trace.to_dict(), allow_nan=False))
    assert data["plain_model"]["attention"] is None
    assert data["plain_model"]["held_out"]["alignment"] is None
    assert data["plain_output_mapping"]["step"] == 2  # the draft's s_2 -> op_2
    assert data["plain_output_mapping"]["chosen_word"] == p.chosen[1]


def test_plain_model_follows_the_model_table():
    # "seeded" applies to both networks; sizes too (seeded: nothing trains).
    t = trace_from(varied(model={"weights": "seeded", "embedding": 2, "hidden": 2}))
    assert t.plain_model.weights == "seeded" and t.plain_model.annotations.shape[1] == 2
    assert not t.plain_model.config.attention and t.model.config.attention
    # A word outside the grammar without a [model] table: no translator.
    t = trace_from(varied(sentences={"source": "Hello world"}))
    assert t.plain_model is None and t.plain_output_mapping is None
    # Values of the small RNN set by hand: the scenes show that RNN.
    t = trace_from(varied(decoder={"b": [0.1, 0.0, 0.0, 0.0]}))
    assert t.plain_model is None and t.model is not None


def test_default_trace_has_the_model_section():
    trace = load_default_trace()
    m = trace.model
    assert m is not None and m.weights == "trained"
    assert m.source_tokens == trace.source_tokens
    assert m.chosen[-1] == END and m.inputs[0] == START
    assert np.allclose(m.attention.sum(axis=1), 1.0)
    assert np.allclose(m.probabilities.sum(axis=1), 1.0)
    # The chosen word is the most probable one at every step.
    assert list(m.chosen_ids) == list(m.probabilities.argmax(axis=1))
    # The context is the weighted sum of the annotations.
    assert np.allclose(m.contexts, m.attention @ m.annotations)
    # Teacher-forced training forward on the chosen words gives the same values.
    w = shipped_weights()
    src = [w.source_vocab.index(t) for t in m.source_tokens]
    words = [w.target_vocab.index(t) for t in m.translation]
    batch = model.make_batch([src], [words], w.target_vocab.index(START), w.target_vocab.index(END))
    _, cache = model.forward(w.params, batch)
    for t, st in enumerate(cache["steps"]):
        assert np.allclose(st["probs"][0], m.probabilities[t])
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["model"]["steps"][0]["weights"] == list(m.attention[0])
    assert data["encoder"] == json.loads(json.dumps(trace.encoder.to_dict()))  # untouched


def test_sentence_outside_the_grammar():
    # No [model] table: other scenes still work, the section is simply absent.
    assert trace_from(varied(sentences={"source": "Hello world"})).model is None
    with pytest.raises(NumbersError, match=r"'hello', 'world'"):
        trace_from(varied(sentences={"source": "Hello the world"}, model={"weights": "trained"}))
    seeded = trace_from(varied(sentences={"source": "Hello the world"}, model={"weights": "seeded"}))
    assert seeded.model.weights == "seeded" and seeded.model.source_tokens == ("hello", "the", "world")
    assert seeded.model.held_out is None


@pytest.mark.parametrize(
    "table,message",
    [
        ({"weight": "trained"}, "model.weight: unknown key"),
        ({"weights": "pretrained"}, "model.weights: expected"),
        ({"weights": 1}, "model.weights: expected a string"),
        ({"hidden": 5}, "model.hidden: expected an even number"),
        ({"hidden": 10}, "model.hidden: expected a whole number from 2 to 8"),
        ({"embedding": 1}, "model.embedding: expected a whole number from 2 to 8"),
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
    assert a.model.embeddings.shape == (8, 2) and a.model.annotations.shape == (8, 4)
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
    assert len(list((tmp_path / "cache").rglob("*.npz"))) == 2
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
