"""Principal component analysis, as used to draw hidden states in 2-D.

Sutskever et al. (2014) project the LSTM's final states of many sentences
onto their first two principal components. Here: centre the data, take the
SVD of the centred matrix, keep the leading right singular vectors as the
components. Signs of singular vectors are arbitrary, so each component is
flipped to make its largest-magnitude loading positive: the same states
always give the same picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PCAResult", "pca"]


@dataclass(frozen=True)
class PCAResult:
    """The fitted projection and the projected data.

    Attributes
    ----------
    mean
        ``(D,)`` mean of the data, subtracted before projecting.
    components
        ``(K, D)`` orthonormal rows, the principal directions, by
        decreasing variance.
    explained_variance
        ``(K,)`` variance of the data along each component
        (``s_k^2 / (N - 1)``).
    explained_variance_ratio
        ``(K,)`` share of the total variance along each component
        (0 where the data has no variance at all).
    projected
        ``(N, K)`` coordinates of each row of the data on the components.
    """

    mean: np.ndarray
    components: np.ndarray
    explained_variance: np.ndarray
    explained_variance_ratio: np.ndarray
    projected: np.ndarray


def _sign_fixed(components: np.ndarray) -> np.ndarray:
    """Flip each row so its largest-magnitude entry (first on ties) is positive."""
    out = components.copy()
    for k, row in enumerate(out):
        if row[int(np.argmax(np.abs(row)))] < 0:
            out[k] = -row
    return out


def pca(data: np.ndarray, n_components: int = 2) -> PCAResult:
    """Project the rows of ``data`` (``N x D``) onto their first principal components.

    Parameters
    ----------
    data
        One observation per row; needs ``N >= 2``.
    n_components
        How many components to keep; at most ``min(N, D)``.

    Returns
    -------
    PCAResult
    """
    X = np.asarray(data, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError("pca needs a 2-D array with at least two rows")
    n, d = X.shape
    if not 1 <= n_components <= min(n, d):
        raise ValueError(f"n_components must be from 1 to {min(n, d)}")
    mean = X.mean(axis=0)
    centred = X - mean
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    components = _sign_fixed(vt[:n_components])
    variance = s**2 / (n - 1)
    total = float(np.sum(variance))
    ratio = variance / total if total > 0 else np.zeros_like(variance)
    projected = centred @ components.T
    return PCAResult(
        mean=mean,
        components=components,
        explained_variance=variance[:n_components],
        explained_variance_ratio=ratio[:n_components],
        projected=projected,
    )
