"""The small functions of the attention walkthrough, named for the maths.

Everything here is plain numpy on float64 arrays. Vectors are 1-D, matrices
are 2-D with one row per item (a token, an input feature, a query), as in
the drafts: ``X`` is ``N_X x D`` and ``E = Q X^T``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "softmax",
    "dot_scores",
    "scaled_dot_scores",
    "additive_score",
    "context_vector",
    "rnn_step",
    "encoder_unroll",
]


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    Subtracting the maximum first changes nothing mathematically
    (softmax is invariant to adding a constant) but keeps ``exp`` from
    overflowing for large scores.

    Parameters
    ----------
    z
        Scores of any shape.
    axis
        The axis whose entries are turned into a probability distribution.

    Returns
    -------
    numpy.ndarray
        Same shape as ``z``; non-negative, summing to 1 along ``axis``.
    """
    z = np.asarray(z, dtype=float)
    shifted = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def dot_scores(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Dot-product similarity of each query with each key.

    Parameters
    ----------
    queries
        A query vector ``(D,)`` or a matrix of queries ``(N_Q, D)``.
    keys
        Input features ``(N_X, D)``, one per row.

    Returns
    -------
    numpy.ndarray
        ``(N_X,)`` for one query, ``(N_Q, N_X)`` for several: ``E = Q X^T``.
    """
    return np.asarray(queries, dtype=float) @ np.asarray(keys, dtype=float).T


def scaled_dot_scores(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Dot-product scores divided by ``sqrt(D)``, as in "Attention is all you need"."""
    keys = np.asarray(keys, dtype=float)
    return dot_scores(queries, keys) / np.sqrt(keys.shape[-1])


def additive_score(
    query: np.ndarray,
    key: np.ndarray,
    W_a: np.ndarray,
    U_a: np.ndarray,
    v_a: np.ndarray,
) -> float:
    """Bahdanau's score ``v_a^T tanh(W_a q + U_a k)`` of one query and one key."""
    return float(v_a @ np.tanh(W_a @ query + U_a @ key))


def context_vector(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Weighted average of the rows of ``values``: ``c = sum_i a_i v_i``.

    ``weights`` may be a vector ``(N_X,)`` or a matrix ``(N_Q, N_X)``
    (one distribution per row), giving ``(D,)`` or ``(N_Q, D)``.
    """
    return np.asarray(weights, dtype=float) @ np.asarray(values, dtype=float)


def rnn_step(
    x: np.ndarray, h_prev: np.ndarray, W_x: np.ndarray, W_h: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """One step of a plain (Elman) RNN: ``h_t = tanh(W_x x_t + W_h h_{t-1} + b)``."""
    return np.tanh(W_x @ x + W_h @ h_prev + b)


def encoder_unroll(
    inputs: np.ndarray, W_x: np.ndarray, W_h: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """Run the encoder RNN over ``inputs`` (``T x E``) from ``h_0 = 0``.

    Returns
    -------
    numpy.ndarray
        ``(T + 1) x H``: row 0 is ``h_0`` (zeros), row ``t`` is ``h_t``.
    """
    inputs = np.asarray(inputs, dtype=float)
    hidden = np.zeros((inputs.shape[0] + 1, W_h.shape[0]))
    for t, x in enumerate(inputs, start=1):
        hidden[t] = rnn_step(x, hidden[t - 1], W_x, W_h, b)
    return hidden
