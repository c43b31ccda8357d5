"""Core maths against cases worked by hand, and against properties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core import (
    Vocabulary,
    context_vector,
    dot_scores,
    encoder_unroll,
    rnn_step,
    scaled_dot_scores,
    softmax,
    tokenize,
)


def test_softmax_by_hand():
    # softmax([0, ln 3]) = [1, 3] / 4
    assert softmax(np.array([0.0, math.log(3.0)])) == pytest.approx([0.25, 0.75])
    # softmax([ln 1, ln 2, ln 5]) = [1, 2, 5] / 8
    z = np.log([1.0, 2.0, 5.0])
    assert softmax(z) == pytest.approx([0.125, 0.25, 0.625])


def test_softmax_along_chosen_axis():
    # Columns [0, ln 3] and [ln 3, 0]: along axis 0 each column is [1/4, 3/4] or [3/4, 1/4].
    z = np.array([[0.0, math.log(3.0)], [math.log(3.0), 0.0]])
    assert softmax(z, axis=0) == pytest.approx(np.array([[0.25, 0.75], [0.75, 0.25]]))
    assert softmax(z, axis=1) == pytest.approx(np.array([[0.25, 0.75], [0.75, 0.25]]))
    z2 = np.array([[0.0, 0.0], [math.log(3.0), math.log(3.0)]])
    assert softmax(z2, axis=0) == pytest.approx(np.array([[0.25, 0.25], [0.75, 0.75]]))
    assert softmax(z2, axis=1) == pytest.approx(np.full((2, 2), 0.5))


@pytest.mark.parametrize("seed", range(5))
def test_softmax_properties(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 3, size=(4, 6))
    for axis in (0, 1):
        p = softmax(z, axis=axis)
        assert np.all(p >= 0)
        assert np.sum(p, axis=axis) == pytest.approx(np.ones(z.shape[1 - axis]))
        # Adding a constant along the softmax axis changes nothing.
        assert softmax(z + 17.5, axis=axis) == pytest.approx(p)
        # Order is kept: the largest score gets the largest weight.
        assert np.array_equal(np.argmax(p, axis=axis), np.argmax(z, axis=axis))


def test_softmax_is_stable_for_huge_scores():
    p = softmax(np.array([1000.0, 1000.0, -1000.0]))
    assert np.all(np.isfinite(p))
    assert p == pytest.approx([0.5, 0.5, 0.0])


def test_dot_scores_by_hand():
    keys = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 0.5]])
    # q = (2, 1): 1*2+2*1 = 4, 3*2-1*1 = 5, 0*2+0.5*1 = 0.5
    assert dot_scores(np.array([2.0, 1.0]), keys) == pytest.approx([4.0, 5.0, 0.5])
    # two queries stacked give one row each: E = Q X^T
    q = np.array([[2.0, 1.0], [0.0, 2.0]])
    assert dot_scores(q, keys) == pytest.approx(np.array([[4.0, 5.0, 0.5], [4.0, -2.0, 1.0]]))
    # scaled by sqrt(2)
    assert scaled_dot_scores(np.array([2.0, 1.0]), keys) == pytest.approx(
        np.array([4.0, 5.0, 0.5]) / math.sqrt(2)
    )


def test_context_vector_by_hand():
    values = np.array([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    # 0.5*(1,0) + 0.25*(0,2) + 0.25*(4,4) = (0.5+1, 0.5+1) = (1.5, 1.5)
    assert context_vector(np.array([0.5, 0.25, 0.25]), values) == pytest.approx([1.5, 1.5])


@pytest.mark.parametrize("seed", range(5))
def test_context_lies_in_convex_hull(seed):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(5, 3))
    c = context_vector(softmax(rng.normal(size=5)), values)
    assert np.all(c >= values.min(axis=0) - 1e-12)
    assert np.all(c <= values.max(axis=0) + 1e-12)


def test_rnn_step_by_hand():
    # W_x x = [1*1 + 0*2, 0*1 + 1*2] = [1, 2]; W_h h = [0.5*(-1), 0] ... see below
    x = np.array([1.0, 2.0])
    h = np.array([-1.0, 0.0])
    W_x = np.eye(2)
    W_h = np.array([[0.5, 0.0], [0.0, 0.5]])
    b = np.array([0.0, -2.0])
    # pre-activation: [1 - 0.5 + 0, 2 + 0 - 2] = [0.5, 0]
    assert rnn_step(x, h, W_x, W_h, b) == pytest.approx([math.tanh(0.5), 0.0])


def test_encoder_unroll_by_hand():
    # One-dimensional RNN, W_x = 1, W_h = 1, b = 0: h_t = tanh(x_t + h_{t-1}).
    xs = np.array([[0.5], [-0.5]])
    hidden = encoder_unroll(xs, np.eye(1), np.eye(1), np.zeros(1))
    h1 = math.tanh(0.5)
    h2 = math.tanh(-0.5 + h1)
    assert hidden[:, 0] == pytest.approx([0.0, h1, h2])


def test_tokenize_and_vocabulary():
    assert tokenize("Economic growth has slowed down in recent years.") == (
        "economic", "growth", "has", "slowed", "down", "in", "recent", "years",
    )
    assert tokenize("La croissance s'est ralentie, ces années!") == (
        "la", "croissance", "s'est", "ralentie", "ces", "années",
    )
    assert tokenize(" ... ") == ()
    vocab = Vocabulary.from_tokens(("the", "cat", "the"), ("dog", "cat"))
    assert vocab.words == ("the", "cat", "dog")
    assert vocab.indices(("dog", "the")) == (2, 0)
    with pytest.raises(KeyError):
        vocab.index("bird")
