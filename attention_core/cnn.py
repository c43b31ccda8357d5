"""Image captioning: attention over the feature grid of a small CNN.

Draft 000, Part 2, "Abstraction 1": the input features need not come from
an RNN over a sentence. Here a convolutional network turns an image into a
``G x G`` grid of ``D``-dimensional feature vectors, and a caption decoder
attends over that grid, one weight per cell, for every word it produces.

The pipeline, all numpy:

1. the image is read (Pillow, only to decode the file), centre-cropped to a
   square and averaged down to ``input_size x input_size`` RGB in [0, 1];
2. one convolution layer of ``D`` filters ``3 x 3 x 3`` (cross-correlation,
   no padding, as CNN libraries do), plus a bias, then ReLU;
3. max pooling over ``G x G`` near-equal blocks gives the feature grid;
4. a small seeded RNN decoder reads ``<START>`` and the caption words; its
   state ``s_{t-1}`` is the query for word ``t``: dot scores with every
   cell, softmax over all ``G * G`` cells, and the context vector ``c_t``
   as the weighted average of the cells' vectors; ``c_t`` feeds the next
   state, as in "Show, Attend and Tell".

The decoder weights are seeded, not trained: the weights show the
mechanism, not what a trained captioner would look at.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from . import maths
from .numbers_file import NumbersError, as_int, as_str, as_table, as_vector, check_keys
from .params import seeded_embeddings, seeded_normal
from .text import START, tokenize

__all__ = [
    "SAMPLE_IMAGE_NAME",
    "GRID_RANGE",
    "FEATURE_RANGE",
    "INPUT_RANGE",
    "MAX_CAPTION_WORDS",
    "KERNEL",
    "HAND_FILTERS",
    "CnnConfig",
    "CnnTrace",
    "load_image",
    "square_resize",
    "convolve",
    "relu",
    "pool_regions",
    "max_pool_grid",
    "hand_filters",
    "parse_cnn",
    "compute_cnn",
]

# The sample image is drawn by scripts/make_sample_image.py (made by this
# project, so it ships with the package).
SAMPLE_IMAGE_NAME = "sample_image.png"
GRID_RANGE = (3, 8)
FEATURE_RANGE = (2, 8)
INPUT_RANGE = (16, 64)
BIAS_RANGE = (-100.0, 100.0)
MAX_CAPTION_WORDS = 8
KERNEL = 3
MAX_IMAGE_SIDE = 4096  # larger files are refused rather than decoded
IMAGE_FORMATS = {"PNG", "JPEG"}
DEFAULT_CAPTION = "a red ball on the grass"

_KEYS = {"image", "grid", "features", "caption", "input_size", "filters", "bias"}


# --------------------------------------------------------------------------
# The image
# --------------------------------------------------------------------------


def load_image(path: str | Path, where: str = "cnn.image") -> np.ndarray:
    """Read a PNG or JPEG file as an ``H x W x 3`` uint8 RGB array.

    Pillow is used here only to decode the file; everything after is numpy.

    Raises
    ------
    NumbersError
        One line naming ``where`` and the path: missing file, a folder, not
        an image, an image of another format, or too large.
    """
    from PIL import Image, UnidentifiedImageError  # a manim dependency

    shown = str(path)
    try:
        with Image.open(path) as img:
            fmt = img.format
            if fmt not in IMAGE_FORMATS:
                raise NumbersError(f"{where}: {shown!r} is a {fmt} image, expected PNG or JPEG")
            if max(img.size) > MAX_IMAGE_SIDE:
                raise NumbersError(
                    f"{where}: {shown!r} is {img.size[0]}x{img.size[1]} pixels, "
                    f"expected at most {MAX_IMAGE_SIDE} on each side"
                )
            pixels = np.array(img.convert("RGB"), dtype=np.uint8)
    except FileNotFoundError:
        raise NumbersError(f"{where}: no such image file {shown!r}") from None
    except IsADirectoryError:
        raise NumbersError(f"{where}: {shown!r} is a folder, expected a PNG or JPEG file") from None
    except UnidentifiedImageError:
        raise NumbersError(f"{where}: {shown!r} is not a readable PNG or JPEG image") from None
    except (OSError, ValueError, SyntaxError) as exc:
        # Truncated or corrupt data shows up only when the pixels are decoded.
        if isinstance(exc, NumbersError):
            raise
        raise NumbersError(f"{where}: cannot read image {shown!r} ({exc})") from None
    pixels.flags.writeable = False
    return pixels


def square_resize(pixels: np.ndarray, size: int) -> np.ndarray:
    """Centre-crop to a square, then average blocks down to ``size x size``.

    Returns RGB values in [0, 1] (float). Each output pixel is the mean of
    the source pixels of its block (blocks differ by at most one pixel).
    """
    img = np.asarray(pixels, dtype=float) / 255.0
    h, w = img.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    img = img[top:top + side, left:left + side]
    if side < size:
        raise ValueError(f"image side {side} is smaller than {size}")
    starts = (np.arange(size) * side) // size
    counts = np.diff(np.append(starts, side))
    rows = np.add.reduceat(img, starts, axis=0) / counts[:, None, None]
    return np.add.reduceat(rows, starts, axis=1) / counts[None, :, None]


# --------------------------------------------------------------------------
# The convolutional feature extractor
# --------------------------------------------------------------------------


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


def max_pool_grid(maps: np.ndarray, g: int) -> np.ndarray:
    """Max of each of ``g x g`` blocks of ``H x W x D`` maps -> ``g x g x D``."""
    maps = np.asarray(maps, dtype=float)
    rows, cols = pool_regions(maps.shape[0], g), pool_regions(maps.shape[1], g)
    out = np.empty((g, g, maps.shape[2]))
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            out[i, j] = maps[r0:r1, c0:c1].max(axis=(0, 1))
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
    ("bright", _centre_tap((0.5, 0.5, 0.5)), -0.75),
    ("vertical edge", _sobel(vertical=True), 0.0),
    ("horizontal edge", _sobel(vertical=False), 0.0),
)


def hand_filters(seed: int, d: int) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The default filter bank: the hand-made filters, then seeded random ones.

    Returns names, filters ``d x 3 x 3 x 3`` and biases ``d``. Random filters
    (normal, scale ``1/sqrt(27)``, 2 decimals) fill places beyond the six
    hand-made ones.
    """
    names, filters, biases = [], [], []
    for i in range(d):
        if i < len(HAND_FILTERS):
            name, f, b = HAND_FILTERS[i]
        else:
            name = f"random {i - len(HAND_FILTERS) + 1}"
            f = seeded_normal(seed, f"cnn.filters.{i}", (KERNEL, KERNEL, 3), (KERNEL * KERNEL * 3) ** -0.5)
            b = float(seeded_normal(seed, f"cnn.bias.{i}", (1,), 0.1)[0])
        names.append(name)
        filters.append(f)
        biases.append(b)
    return tuple(names), np.array(filters), np.array(biases)


# --------------------------------------------------------------------------
# The numbers file: [cnn]
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CnnConfig:
    """The ``[cnn]`` table, validated; the image is already read."""

    image_source: str  # the path as given, or "sample" for the shipped image
    pixels: np.ndarray  # H x W x 3 uint8, read-only
    grid: int = 4
    features: int = 4
    input_size: int = 32
    caption: str = DEFAULT_CAPTION
    filters: np.ndarray | None = None  # D x 3 x 3 x 3 from the numbers file
    bias: np.ndarray | None = None  # D from the numbers file

    @property
    def caption_tokens(self) -> tuple[str, ...]:
        return tokenize(self.caption)


def _as_filters(value: Any, where: str, d: int) -> np.ndarray:
    """A list of ``d`` filters, each 3 rows x 3 columns x 3 numbers (RGB)."""
    want = f"{d} filters (one per feature), each a 3x3 list of [r, g, b] weights"
    if not isinstance(value, list) or len(value) != d:
        n = len(value) if isinstance(value, list) else value
        raise NumbersError(f"{where}: expected {want}, got {n!r}")
    out = np.zeros((d, KERNEL, KERNEL, 3))
    for i, f in enumerate(value):
        if not isinstance(f, list) or len(f) != KERNEL:
            raise NumbersError(f"{where}[{i}]: expected 3 rows of 3 [r, g, b] weights")
        for u, row in enumerate(f):
            if not isinstance(row, list) or len(row) != KERNEL:
                raise NumbersError(f"{where}[{i}][{u}]: expected 3 [r, g, b] weights")
            for v, px in enumerate(row):
                out[i, u, v] = as_vector(px, f"{where}[{i}][{u}][{v}]", 3)
    out.flags.writeable = False
    return out


def _sample_image() -> np.ndarray:
    with resources.as_file(resources.files(__package__).joinpath(SAMPLE_IMAGE_NAME)) as path:
        return load_image(path, "cnn.image (the shipped sample)")


def parse_cnn(value: Any, base_dir: Path | None = None) -> CnnConfig:
    """Validate the ``[cnn]`` table (absent keys take the defaults).

    A relative ``image`` path is resolved against ``base_dir`` (the numbers
    file's folder), or the current folder when there is none.
    """
    table: Mapping[str, Any] = as_table(value, "cnn")
    check_keys(table, _KEYS, "cnn")
    grid = as_int(table.get("grid", 4), "cnn.grid", *GRID_RANGE)
    d = as_int(table.get("features", 4), "cnn.features", *FEATURE_RANGE)
    size = as_int(table.get("input_size", 32), "cnn.input_size", *INPUT_RANGE)
    if size - KERNEL + 1 < grid:
        raise NumbersError(f"cnn.input_size: {size} is too small for a {grid}x{grid} grid")
    caption = as_str(table.get("caption", DEFAULT_CAPTION), "cnn.caption")
    n = len(tokenize(caption))
    if not 1 <= n <= MAX_CAPTION_WORDS:
        raise NumbersError(f"cnn.caption: expected 1 to {MAX_CAPTION_WORDS} words, got {n}")
    filters = _as_filters(table["filters"], "cnn.filters", d) if "filters" in table else None
    # A filter sums 27 weighted pixels, so a bias that switches a feature off may need +-100.
    bias = (as_vector(table["bias"], "cnn.bias", d, value_range=BIAS_RANGE)
            if "bias" in table else None)

    if "image" in table:
        given = as_str(table["image"], "cnn.image")
        if not given.strip():
            raise NumbersError("cnn.image: expected a path to a PNG or JPEG file, got ''")
        path = Path(given).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        pixels, source = load_image(path), given
    else:
        pixels, source = _sample_image(), "sample"
    if min(pixels.shape[:2]) < size:
        raise NumbersError(
            f"cnn.image: {source!r} is {pixels.shape[1]}x{pixels.shape[0]} pixels, "
            f"expected at least {size} on each side (cnn.input_size)"
        )
    return CnnConfig(image_source=source, pixels=pixels, grid=grid, features=d, input_size=size,
                     caption=caption, filters=filters, bias=bias)


# --------------------------------------------------------------------------
# Computing it
# --------------------------------------------------------------------------


def _frozen(a: np.ndarray) -> np.ndarray:
    out = np.array(a, dtype=float)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class CnnTrace:
    """Everything the ``cnn_attention`` scene shows."""

    image_source: str
    pixels: np.ndarray  # the square crop of the file, uint8 (not exported)
    input_image: np.ndarray  # input_size x input_size x RGB in [0, 1]: what the CNN reads
    image_size: tuple[int, int]  # width, height of the file
    input_size: int
    filter_names: tuple[str, ...]
    filters: np.ndarray  # D x 3 x 3 x 3
    bias: np.ndarray  # D
    conv_size: int  # side of the convolution output
    features: np.ndarray  # G x G x D
    tokens: tuple[str, ...]  # caption words y_1 ... y_T
    decoder_inputs: tuple[str, ...]  # <START>, y_1 ... y_{T-1}
    embeddings: np.ndarray  # T x D, of the decoder inputs
    W_init: np.ndarray  # D x D
    W_x: np.ndarray  # D x 2D: [embedding | context]
    W_s: np.ndarray  # D x D
    b: np.ndarray  # D
    states: np.ndarray  # (T+1) x D: s_0 ... s_T; s_{t-1} is word t's query
    scores: np.ndarray  # T x G x G
    weights: np.ndarray  # T x G x G, each sums to 1
    contexts: np.ndarray  # T x D

    @property
    def grid(self) -> int:
        return self.features.shape[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            # Not the pixels, but a digest of them, so a changed file at the
            # same path still changes this section (the render cache hashes it).
            "image": {"source": self.image_source, "width": self.image_size[0],
                      "height": self.image_size[1], "input_size": self.input_size,
                      "sha256": hashlib.sha256(np.ascontiguousarray(self.pixels).tobytes()).hexdigest()},
            "filter_names": list(self.filter_names),
            "filters": self.filters.tolist(),
            "bias": self.bias.tolist(),
            "conv_size": self.conv_size,
            "grid": self.grid,
            "features": self.features.tolist(),
            "caption": list(self.tokens),
            "decoder_inputs": list(self.decoder_inputs),
            "embeddings": self.embeddings.tolist(),
            "decoder": {"W_init": self.W_init.tolist(), "W_x": self.W_x.tolist(),
                        "W_s": self.W_s.tolist(), "b": self.b.tolist()},
            "states": self.states.tolist(),
            "scores": self.scores.tolist(),
            "weights": self.weights.tolist(),
            "contexts": self.contexts.tolist(),
        }


def compute_cnn(cfg: CnnConfig, seed: int) -> CnnTrace:
    """Run the CNN over the image and the attention decoder over the caption."""
    d, g = cfg.features, cfg.grid
    names, filters, bias = hand_filters(seed, d)
    if cfg.filters is not None:
        filters, names = np.asarray(cfg.filters), tuple(f"filter {i + 1}" for i in range(d))
    if cfg.bias is not None:
        bias = np.asarray(cfg.bias)
    h, w = cfg.pixels.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    crop = np.ascontiguousarray(cfg.pixels[top:top + side, left:left + side])
    crop.flags.writeable = False
    image = square_resize(cfg.pixels, cfg.input_size)
    maps = relu(convolve(image, filters, bias))
    features = max_pool_grid(maps, g)
    cells = features.reshape(g * g, d)  # row-major: cell (i, j) is row i*g + j

    tokens = cfg.caption_tokens
    inputs = (START, *tokens[:-1])
    vocab = tuple(dict.fromkeys(inputs))
    table = seeded_embeddings(seed, "cnn.embeddings", vocab, d)
    embeddings = table[[vocab.index(wd) for wd in inputs]]
    # Scales 1/sqrt(fan-in) keep tanh away from saturation (seeded, not trained).
    W_init = seeded_normal(seed, "cnn.W_init", (d, d), d**-0.5)
    W_x = seeded_normal(seed, "cnn.W_x", (d, 2 * d), (2 * d) ** -0.5)
    W_s = seeded_normal(seed, "cnn.W_s", (d, d), d**-0.5)
    b = seeded_normal(seed, "cnn.b", (d,), 0.1)

    T = len(tokens)
    states = np.zeros((T + 1, d))
    # s_0 from the mean feature, as "Show, Attend and Tell" initialises it.
    states[0] = np.tanh(W_init @ cells.mean(axis=0))
    scores = np.zeros((T, g * g))
    weights = np.zeros((T, g * g))
    contexts = np.zeros((T, d))
    for t in range(T):
        scores[t] = maths.dot_scores(states[t], cells)
        weights[t] = maths.softmax(scores[t])
        contexts[t] = maths.context_vector(weights[t], cells)
        x = np.concatenate([embeddings[t], contexts[t]])
        states[t + 1] = maths.rnn_step(x, states[t], W_x, W_s, b)

    return CnnTrace(
        image_source=cfg.image_source, pixels=crop, input_image=_frozen(image), image_size=(w, h), input_size=cfg.input_size,
        filter_names=names, filters=_frozen(filters), bias=_frozen(bias),
        conv_size=maps.shape[0], features=_frozen(features), tokens=tokens,
        decoder_inputs=inputs, embeddings=_frozen(embeddings), W_init=_frozen(W_init),
        W_x=_frozen(W_x), W_s=_frozen(W_s), b=_frozen(b), states=_frozen(states),
        scores=_frozen(scores.reshape(T, g, g)), weights=_frozen(weights.reshape(T, g, g)),
        contexts=_frozen(contexts),
    )
