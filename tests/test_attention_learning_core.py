"""Training snapshots of the translator (issue 23): deterministic for a
seed, shipped small, their measures recomputable from their weights; the
Trace section ``attention_learning`` built from them; the training note."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from attention_core.text import END, START
from attention_core.translator import model
from attention_core.translator.corpus import make_corpus
from attention_core.translator.train import (
    DEFAULT_CONFIG,
    PLAIN_CONFIG,
    SNAPSHOT_STEPS,
    TrainConfig,
    Weights,
    evaluate,
    held_out_loss,
    load_snapshots,
    read_snapshots,
    save_snapshots,
    shipped_weights,
    snapshot_steps,
    source_vocabulary,
    target_vocabulary,
    train,
    training_note,
)

from .helpers import load_default_trace, trace_from, varied

TINY = TrainConfig(seed=3, embedding=4, hidden=4, steps=60, batch_size=16, train_size=200,
                   held_out_size=20, learning_rate=0.03, guide=0.0)


@pytest.fixture(scope="module")
def tiny():
    return train(TINY)


def test_snapshot_steps_keep_the_start_and_the_end():
    assert snapshot_steps(60) == (0, 50, 60)
    assert snapshot_steps(3000) == (*SNAPSHOT_STEPS, 3000)
    assert snapshot_steps(1) == (0, 1)


def test_snapshots_are_deterministic_for_a_seed(tiny):
    again = train(TINY)
    assert [s.step for s in tiny.snapshots] == [0, 50, 60]
    for a, b in zip(tiny.snapshots, again.snapshots):
        assert a.step == b.step and a.loss == b.loss and a.evaluation == b.evaluation
        for k in a.params:
            assert np.array_equal(a.params[k], b.params[k])
    # Step 0 is the initial draw (same generator as training), as a weight file keeps it (float32).
    rng = np.random.default_rng([TINY.seed, 7])
    init = model.init_params(rng, len(source_vocabulary()), len(target_vocabulary()), 4, 4, True)
    for k, v in init.items():
        assert np.array_equal(tiny.snapshots[0].params[k], v.astype(np.float32).astype(float))
    # The last snapshot is the trained weights, and its figures are theirs.
    for k, v in tiny.params.items():
        assert np.array_equal(tiny.snapshots[-1].params[k], v)
    assert tiny.snapshots[-1].evaluation == tiny.evaluation
    # Another seed, other weights from the first step on.
    other = train(replace(TINY, seed=4))
    assert not np.array_equal(other.snapshots[0].params["att_v"], tiny.snapshots[0].params["att_v"])


def test_snapshot_loss_is_the_held_out_cross_entropy_by_hand(tiny):
    # The mean of -log p(reference word) over every French word and <END> of the held-out
    # sentences, teacher forced, summed here one sentence at a time.
    snap = tiny.snapshots[1]
    w = replace(tiny, params=snap.params)
    pairs = make_corpus(TINY.seed, TINY.train_size, TINY.held_out_size).held_out
    sv, tv = {x: i for i, x in enumerate(w.source_vocab)}, {x: i for i, x in enumerate(w.target_vocab)}
    total = count = 0.0
    for p in pairs:
        batch = model.make_batch([[sv[x] for x in p.source]], [[tv[x] for x in p.target]], tv[START], tv[END])
        _, cache = model.forward(w.params, batch, True, 0.0)
        for t, word in enumerate([*p.target, END]):
            total -= np.log(cache["steps"][t]["probs"][0, tv[word]])
            count += 1
    assert snap.loss == pytest.approx(total / count, rel=1e-9)
    assert held_out_loss(w, pairs) == pytest.approx(snap.loss, rel=1e-12)


def test_a_saved_record_reads_back_for_its_weights_only(tmp_path, tiny):
    path = tmp_path / "snapshots_tiny.npz"
    save_snapshots(path, tiny)
    back = read_snapshots(path, tiny)
    assert [s.measures() for s in back] == [s.measures() for s in tiny.snapshots]
    for a, b in zip(back, tiny.snapshots):
        for k in a.params:
            assert np.array_equal(a.params[k], b.params[k])  # float32 values, kept exactly
    assert read_snapshots(path, replace(tiny, key="another")) == ()


@pytest.fixture(scope="module")
def shipped():
    w = shipped_weights()
    return w, load_snapshots(w)


def test_the_shipped_record_is_small_and_of_the_shipped_weights(shipped):
    from importlib import resources

    w, snaps = shipped
    assert [s.step for s in snaps] == list(snapshot_steps(DEFAULT_CONFIG.steps))
    for k, v in w.params.items():
        assert np.array_equal(snaps[-1].params[k], v)
    size = resources.files("attention_core.translator").joinpath("snapshots_default.npz").stat().st_size
    assert size < 200_000


def test_shipped_measures_are_recomputed_from_the_shipped_weights(shipped):
    w, snaps = shipped
    held_out = make_corpus(DEFAULT_CONFIG.seed, DEFAULT_CONFIG.train_size, DEFAULT_CONFIG.held_out_size).held_out
    for s in snaps:
        at = Weights(config=w.config, params=s.params, source_vocab=w.source_vocab, target_vocab=w.target_vocab)
        ev = evaluate(at, held_out)
        assert (ev.exact_match, ev.alignment) == (s.exact_match, s.alignment), s.step
        assert held_out_loss(at, held_out) == pytest.approx(s.loss, rel=1e-9)
    # Training did something: the loss falls and the last snapshot translates.
    losses = [s.loss for s in snaps]
    assert losses == sorted(losses, reverse=True)
    assert snaps[0].exact_match == 0.0 and snaps[-1].exact_match >= 0.95


def test_numbers_json_exposes_the_settings_and_the_record():
    data = json.loads(json.dumps(load_default_trace().to_dict(), allow_nan=False))
    assert data["model"]["config"]["guide"] == 0
    assert data["model"]["training_note"] == "trained unguided, 6000 steps"
    assert data["plain_model"]["training_note"] == "trained without attention, 3000 steps"
    learning = data["attention_learning"]
    w, snaps = shipped_weights(), load_snapshots(shipped_weights())
    assert learning["steps"] == [s.step for s in snaps]
    assert learning["losses"] == [s.loss for s in snaps]
    assert learning["exact_match"] == [s.exact_match for s in snaps]
    assert learning["alignment"] == [s.alignment for s in snaps]
    assert learning["config"] == w.config.to_dict() == data["model"]["config"]


def test_the_sentences_matrices_are_the_snapshots_attention():
    trace = load_default_trace()
    m, learning = trace.model, trace.attention_learning
    R, T = len(m.translation), len(m.source_tokens)
    assert learning.rows == m.translation and learning.source_tokens == m.source_tokens
    assert learning.matrices.shape == (len(learning.steps), R, T)
    assert np.allclose(learning.matrices.sum(axis=2), 1.0) and learning.matrices.min() >= 0.0
    # The finished network fed its own words attends as it did while writing them.
    assert np.allclose(learning.final_matrix, m.attention[:R])
    # Each snapshot recomputed: teacher forcing with that snapshot's weights.
    w = shipped_weights()
    snaps = load_snapshots(w)
    sv, tv = {x: i for i, x in enumerate(w.source_vocab)}, {x: i for i, x in enumerate(w.target_vocab)}
    batch = model.make_batch([[sv[x] for x in m.source_tokens]], [[tv[x] for x in m.translation]],
                             tv[START], tv[END])
    for k, s in enumerate(snaps):
        _, cache = model.forward(s.params, batch, True, 0.0)
        assert np.allclose(learning.matrices[k], [st["alpha"][0] for st in cache["steps"][:R]])
    # Untrained weights spread attention: no row of step 0 is near one-hot.
    assert learning.matrices[0].max() < 0.5
    # The agreement with the grammar, counted here from the matrices.
    ref = m.reference_alignment
    assert learning.rows == m.reference
    agree = [sum(int(np.argmax(row) == a) for row, a in zip(mat, ref)) for mat in learning.matrices]
    assert list(learning.reference_agreement) == agree
    later = sum(int(np.argmax(row) > a) for row, a in zip(learning.final_matrix, ref))
    assert learning.later_peaks == later
    d = learning.to_dict()
    assert d["exact_match_percent"] == [100 * x for x in d["exact_match"]]
    assert d["row_count"] == R


def test_no_record_for_seeded_weights_the_fallback_or_no_attention():
    assert trace_from(varied(model={"weights": "seeded"})).attention_learning is None
    assert trace_from(varied(sentences={"source": "hello brave new world"})).attention_learning is None
    # (learning rate 0.01 without attention: the shipped plain network, nothing trains)
    assert trace_from(varied(model={"attention": False, "learning_rate": 0.01})).attention_learning is None


def test_the_training_note_says_how():
    assert training_note(DEFAULT_CONFIG) == "trained unguided, 6000 steps"
    assert training_note(replace(DEFAULT_CONFIG, guide=1.0, steps=500)) == (
        "trained with guided alignment (guide 1), 500 steps")
    assert training_note(PLAIN_CONFIG) == "trained without attention, 3000 steps"
    assert training_note(DEFAULT_CONFIG, "seeded").startswith("untrained")
