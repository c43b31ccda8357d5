"""The CNN's feature extractor: hand-made filters, one convolution, ReLU, mean pooling.

Numpy only. :mod:`attention_core.cnn` runs it on the image the numbers file
names, and :mod:`attention_core.captioner.train` on the drawn scenes it
trains on: both sit above this module (it imports neither), so the captioner
and the ``[cnn]`` section share the same grid features without importing
each other.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "KERNEL",
    "HAND_FILTERS",
    "convolve",
    "relu",
    "pool_regions",
    "grid_features",
    "mean_pool_grid",
    "hand_filters",
]

KERNEL = 3  # the filters' side, in pixels


def convolve(image: np.ndarray, filters: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """One convolution layer without padding (cross-correlation, as in CNNs).

    ``out[y, x, d] = sum_{u, v, c} image[y + u, x + v, c] * filters[d, u, v, c] + bias[d]``

    Parameters
    ----------
    image
        ``H x W x C``.
    filters
        ``D x k x k x C``.
    bias
        ``D``.

    Returns
    -------
    numpy.ndarray
        ``(H - k + 1) x (W - k + 1) x D``.
    """
    image = np.asarray(image, dtype=float)
    filters = np.asarray(filters, dtype=float)
    k = filters.shape[1]
    h, w = image.shape[0] - k + 1, image.shape[1] - k + 1
    # Every k x k x C patch as a row, so the layer is one matrix product.
    patches = np.stack(
        [image[u:u + h, v:v + w, :] for u in range(k) for v in range(k)], axis=2
    )  # h x w x (k*k) x C, taps in row-major (u, v) order
    flat = patches.reshape(h, w, -1)
    return flat @ filters.reshape(filters.shape[0], -1).T + np.asarray(bias, dtype=float)


def relu(x: np.ndarray) -> np.ndarray:
    """``max(x, 0)`` elementwise."""
    return np.maximum(np.asarray(x, dtype=float), 0.0)


def pool_regions(n: int, g: int) -> list[tuple[int, int]]:
    """Split ``0 .. n-1`` into ``g`` near-equal, non-overlapping blocks ``[start, stop)``."""
    edges = [(i * n) // g for i in range(g + 1)]
    return [(edges[i], edges[i + 1]) for i in range(g)]


def grid_features(image: np.ndarray, filters: np.ndarray, bias: np.ndarray, g: int) -> np.ndarray:
    """The CNN: convolution, ReLU, then average pooling to a ``g x g x D`` grid."""
    return mean_pool_grid(relu(convolve(image, filters, bias)), g)


def mean_pool_grid(maps: np.ndarray, g: int) -> np.ndarray:
    """Mean of each of ``g x g`` blocks of ``H x W x D`` maps -> ``g x g x D``.

    The mean, not the max: a cell that holds only a sliver of an object gets
    a small value, so attention can tell it from the cell holding most of it.
    """
    maps = np.asarray(maps, dtype=float)
    rows, cols = pool_regions(maps.shape[0], g), pool_regions(maps.shape[1], g)
    out = np.empty((g, g, maps.shape[2]))
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            out[i, j] = maps[r0:r1, c0:c1].mean(axis=(0, 1))
    return out


def _centre_tap(rgb: tuple[float, float, float]) -> np.ndarray:
    f = np.zeros((KERNEL, KERNEL, 3))
    f[1, 1] = rgb
    return f


def _sobel(vertical: bool) -> np.ndarray:
    # A Sobel edge detector on all three channels, scaled by 0.1 so a
    # black-to-white edge gives about 1.2 (like the colour filters' range).
    k = np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) * 0.1
    k = k if vertical else k.T
    return np.repeat(k[:, :, None], 3, axis=2)


#: Hand-made filters, in the order used: name, weights (3 x 3 x RGB), bias.
#: Colour detectors look at the centre pixel only (one channel against the
#: mean of the other two, a small negative bias so that near-grey pixels
#: give 0 after ReLU); ReLU keeps the positive side, so the "edge" filters
#: see dark-to-bright edges in one direction.
HAND_FILTERS: tuple[tuple[str, np.ndarray, float], ...] = (
    ("red", _centre_tap((3.0, -1.5, -1.5)), -0.3),
    ("green", _centre_tap((-1.5, 3.0, -1.5)), -0.3),
    ("blue", _centre_tap((-1.5, -1.5, 3.0)), -0.3),
    ("yellow", _centre_tap((1.5, 1.5, -3.0)), -1.2),
    ("bright", _centre_tap((0.5, 0.5, 0.5)), -1.0),
    ("dark", _centre_tap((-1.0, -1.0, -1.0)), 0.7),
    ("vertical edge", _sobel(vertical=True), 0.0),
    ("horizontal edge", _sobel(vertical=False), 0.0),
)


def hand_filters(d: int) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The first ``d`` hand-made filters: names, filters ``d x 3 x 3 x 3``, biases ``d``."""
    chosen = HAND_FILTERS[:d]
    return (tuple(name for name, _, _ in chosen), np.array([f for _, f, _ in chosen]),
            np.array([b for _, _, b in chosen]))
