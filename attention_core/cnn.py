"""Image captioning: attention over the feature grid of a small CNN.

Draft 000, Part 2, "Abstraction 1": the input features need not come from
an RNN over a sentence. Here a convolutional network turns an image into a
``G x G`` grid of ``D``-dimensional feature vectors, and a caption decoder
attends over that grid, one weight per cell, for every word it writes.

The pipeline, all numpy:

1. the image is read (Pillow, only to decode the file), centre-cropped to a
   square and averaged down to ``input_size x input_size`` RGB in [0, 1]
   (the default image is a drawn scene of :mod:`attention_core.captioner`,
   drawn at that size);
2. one convolution layer of ``D`` fixed, hand-made filters ``3 x 3 x 3``
   (colour, brightness and edge detectors; cross-correlation, no padding,
   as CNN libraries do), plus a bias, then ReLU;
3. average pooling over ``G x G`` near-equal blocks gives the feature grid;
4. the captioner's GRU decoder (trained on the drawn scenes, shipped) writes
   the caption: for word t its state ``s_{t-1}`` scores every cell, a softmax
   over all ``G * G`` cells gives the attention weights, and the context
   ``c_t`` is the weighted average of the cells' vectors (Xu et al. 2015).

When the sizes or filters differ from the trained captioner's, the decoder's
weights are seeded instead (``trained`` is false): the mechanism is the same,
but the weights show nothing learnt.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .cnn_features import (  # the feature extractor's names stay importable from here
    HAND_FILTERS,
    KERNEL,
    convolve,
    grid_features,
    hand_filters,
    mean_pool_grid,
    pool_regions,
    relu,
)
from .numbers_parsing import NumbersError, as_int, as_str, as_table, as_vector, check_keys
from .text import END, START, tokenize

__all__ = [
    "GRID_RANGE",
    "FEATURE_RANGE",
    "INPUT_RANGE",
    "MAX_CAPTION_WORDS",
    "MAX_IMAGE_SIDE",
    "DEFAULT_SCENE",
    "KERNEL",
    "HAND_FILTERS",
    "CnnConfig",
    "CnnTrace",
    "load_image",
    "square_resize",
    "convolve",
    "relu",
    "pool_regions",
    "mean_pool_grid",
    "grid_features",
    "hand_filters",
    "spotlight",
    "parse_cnn",
    "compute_cnn",
]

GRID_RANGE = (3, 8)
FEATURE_RANGE = (2, 8)
INPUT_RANGE = (16, 64)
BIAS_RANGE = (-100.0, 100.0)
MAX_CAPTION_WORDS = 8
MAX_IMAGE_SIDE = 4096  # larger files are refused rather than decoded
IMAGE_FORMATS = {"PNG", "JPEG"}
#: The default image: this held-out drawn scene (two objects, so the
#: attention has somewhere to move).
DEFAULT_SCENE = 5
SCENE_RANGE = (0, 499)  # the held-out scenes

_KEYS = {"image", "scene", "grid", "features", "caption", "input_size", "filters", "bias"}


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
    too_big = (f"{where}: {shown!r} is too large to read "
               f"(expected at most {MAX_IMAGE_SIDE} pixels on each side)")
    try:
        # Pillow warns (then refuses) on images of tens of millions of pixels
        # before our own size check can run: both become the one-line error.
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(path)
        with img:
            fmt = img.format
            if fmt not in IMAGE_FORMATS:
                raise NumbersError(f"{where}: {shown!r} is a {fmt} image, expected PNG or JPEG")
            if max(img.size) > MAX_IMAGE_SIDE:
                raise NumbersError(
                    f"{where}: {shown!r} is {img.size[0]}x{img.size[1]} pixels, "
                    f"expected at most {MAX_IMAGE_SIDE} on each side"
                )
            pixels = np.array(img.convert("RGB"), dtype=np.uint8)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise NumbersError(too_big) from None
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
# The weights shown over the image (the feature extractor: cnn_features.py)
# --------------------------------------------------------------------------


def spotlight(weights: np.ndarray, size: int) -> np.ndarray:
    """A ``G x G`` weight grid upsampled smoothly to ``size x size``, scaled to max 1.

    Each cell's weight fills its own block of pixels (the region its feature
    vector was pooled from), then a Gaussian blur of a third of a cell
    smooths the edges, as Xu et al. upsample and smooth their attention maps
    for display. Outside the image counts as dark, so the glow of one
    attended cell is centred on that cell, even at the border (a bilinear
    interpolation clamped at the border put it on the cell's outer corner).
    """
    w = np.asarray(weights, dtype=float)
    g = w.shape[0]
    cell_of = np.minimum((np.arange(size) * g) // size, g - 1)
    up = w[cell_of][:, cell_of]
    sigma = size / g / 3
    radius = int(np.ceil(2 * sigma))
    taps = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    taps /= taps.sum()
    padded = np.pad(up, radius, mode="constant")
    up = np.apply_along_axis(lambda r: np.convolve(r, taps, mode="valid"), 1, padded)
    up = np.apply_along_axis(lambda c: np.convolve(c, taps, mode="valid"), 0, up)
    top = float(up.max())
    return up / top if top > 0 else np.ones_like(up)


# --------------------------------------------------------------------------
# The numbers file: [cnn]
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CnnConfig:
    """The ``[cnn]`` table, validated; the image is already read (or drawn)."""

    image_source: str  # the path as given, or "drawn scene N"
    pixels: np.ndarray  # H x W x 3 uint8, read-only
    scene: int | None = DEFAULT_SCENE  # the drawn scene shown, None for a user image
    grid: int = 4
    features: int = 8
    input_size: int = 48
    caption: str | None = None  # given: the decoder is fed these words (teacher forcing)
    filters: np.ndarray | None = None  # D x 3 x 3 x 3 from the numbers file
    bias: np.ndarray | None = None  # D from the numbers file

    @property
    def caption_tokens(self) -> tuple[str, ...] | None:
        return tokenize(self.caption) if self.caption is not None else None


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


def _drawn(index: int, size: int):
    from .captioner.drawing import draw_scene
    from .captioner.train import held_out_scene

    recipe = held_out_scene(index)
    return draw_scene(recipe.background, recipe.things, size)


def _as_uint8(pixels: np.ndarray) -> np.ndarray:
    out = np.round(np.clip(pixels, 0, 1) * 255).astype(np.uint8)
    out.flags.writeable = False
    return out


def parse_cnn(value: Any, base_dir: Path | None = None) -> CnnConfig:
    """Validate the ``[cnn]`` table (absent keys take the defaults).

    A relative ``image`` path is resolved against ``base_dir`` (the numbers
    file's folder), or the current folder when there is none.
    """
    from .captioner.drawing import vocabulary

    table: Mapping[str, Any] = as_table(value, "cnn")
    check_keys(table, _KEYS, "cnn")
    grid = as_int(table.get("grid", 4), "cnn.grid", *GRID_RANGE)
    d = as_int(table.get("features", 8), "cnn.features", *FEATURE_RANGE)
    size = as_int(table.get("input_size", 48), "cnn.input_size", *INPUT_RANGE)
    if size - KERNEL + 1 < grid:
        raise NumbersError(f"cnn.input_size: {size} is too small for a {grid}x{grid} grid")
    caption = None
    if "caption" in table:
        caption = as_str(table["caption"], "cnn.caption")
        words = tokenize(caption)
        if not 1 <= len(words) <= MAX_CAPTION_WORDS:
            raise NumbersError(f"cnn.caption: expected 1 to {MAX_CAPTION_WORDS} words, got {len(words)}")
        unknown = [w for w in words if w not in vocabulary()]
        if unknown:
            raise NumbersError(f"cnn.caption: the captioner does not know {unknown[0]!r} "
                               f"(it knows: {', '.join(vocabulary())})")
    filters = _as_filters(table["filters"], "cnn.filters", d) if "filters" in table else None
    # A filter sums 27 weighted pixels, so a bias that switches a feature off may need +-100.
    bias = (as_vector(table["bias"], "cnn.bias", d, value_range=BIAS_RANGE)
            if "bias" in table else None)

    if "image" in table and "scene" in table:
        raise NumbersError("cnn: give either image (a file) or scene (a drawn scene), not both")
    if "image" in table:
        given = as_str(table["image"], "cnn.image")
        if not given.strip():
            raise NumbersError("cnn.image: expected a path to a PNG or JPEG file, got ''")
        path = Path(given).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        pixels, source, scene = load_image(path), given, None
        if min(pixels.shape[:2]) < size:
            raise NumbersError(
                f"cnn.image: {source!r} is {pixels.shape[1]}x{pixels.shape[0]} pixels, "
                f"expected at least {size} on each side (cnn.input_size)"
            )
    else:
        scene = as_int(table.get("scene", DEFAULT_SCENE), "cnn.scene", *SCENE_RANGE)
        pixels, source = _as_uint8(_drawn(scene, size).pixels), f"drawn scene {scene}"
    return CnnConfig(image_source=source, pixels=pixels, scene=scene, grid=grid, features=d,
                     input_size=size, caption=caption, filters=filters, bias=bias)


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
    scene: int | None  # the drawn scene, None for a user image
    pixels: np.ndarray  # the square crop of the image, uint8 (not exported)
    input_image: np.ndarray  # input_size x input_size x RGB in [0, 1]: what the CNN reads
    image_size: tuple[int, int]  # width, height of the file
    input_size: int
    filter_names: tuple[str, ...]
    filters: np.ndarray  # D x 3 x 3 x 3
    bias: np.ndarray  # D
    conv_size: int  # side of the convolution output
    features: np.ndarray  # G x G x D
    trained: bool  # the shipped captioner (else seeded decoder weights)
    forced: bool  # the caption was given (teacher forcing), not written by the decoder
    tokens: tuple[str, ...]  # caption words y_1 ... y_T
    reference: tuple[str, ...] | None  # the drawn scene's own caption
    decoder_inputs: tuple[str, ...]  # <START>, y_1 ... y_{T-1}
    queries: np.ndarray  # T x H: s_{t-1}, the query for word t
    scores: np.ndarray  # T x G x G
    weights: np.ndarray  # T x G x G, each sums to 1
    contexts: np.ndarray  # T x D
    probabilities: np.ndarray  # T: the probability the decoder gave each word
    object_cells: tuple[tuple[tuple[int, int], ...], ...]  # per word; empty without an object
    object_mass: tuple[float | None, ...]  # per word: its weight on its object's cells
    #: Per word without an object of its own ("a", "and"): the index of the next
    #: word that names one, and this word's weight on that object's cells (the
    #: weights come from s_{t-1}, before the word is written, so a word can
    #: already look at what comes next). None where there is no such word.
    next_object: tuple[int | None, ...]
    next_object_mass: tuple[float | None, ...]
    held_out: dict | None  # the captioner's held-out figures (trained only)
    decoder: dict[str, np.ndarray]  # the decoder's parameters

    @property
    def grid(self) -> int:
        return self.features.shape[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            # Not the pixels, but a digest of them, so a changed file at the
            # same path still changes this section (the render cache hashes it).
            "image": {"source": self.image_source, "drawn_scene": self.scene,
                      "width": self.image_size[0], "height": self.image_size[1],
                      "input_size": self.input_size,
                      "sha256": hashlib.sha256(np.ascontiguousarray(self.pixels).tobytes()).hexdigest()},
            "trained": self.trained,
            "held_out": self.held_out,
            "filter_names": list(self.filter_names),
            "filters": self.filters.tolist(),
            "bias": self.bias.tolist(),
            "conv_size": self.conv_size,
            "grid": self.grid,
            "features": self.features.tolist(),
            "caption": list(self.tokens),
            "caption_given": self.forced,
            "reference": list(self.reference) if self.reference is not None else None,
            "decoder_inputs": list(self.decoder_inputs),
            "queries": self.queries.tolist(),
            "scores": self.scores.tolist(),
            "weights": self.weights.tolist(),
            "contexts": self.contexts.tolist(),
            "probabilities": self.probabilities.tolist(),
            "object_cells": [[list(c) for c in cells] for cells in self.object_cells],
            "object_mass": list(self.object_mass),
            "next_object": list(self.next_object),
            "next_object_mass": list(self.next_object_mass),
            # The decoder's ~8,000 parameters are not listed (they would swamp
            # the tables): they are the shipped file's, or seeded from `seed`;
            # the digest ties this section (and the render cache) to them.
            "decoder": {
                "weights": "attention_core/captioner/weights_captioner.npz" if self.trained else "seeded",
                "sizes": {k: list(v.shape) for k, v in self.decoder.items()},
                "sha256": hashlib.sha256(b"".join(
                    np.ascontiguousarray(self.decoder[k]).tobytes() for k in sorted(self.decoder))).hexdigest(),
            },
        }


def compute_cnn(cfg: CnnConfig, seed: int) -> CnnTrace:
    """Run the CNN over the image and the captioner's decoder over the grid."""
    from .captioner import model
    from .captioner.drawing import IMAGE_SIZE
    from .captioner.train import DEFAULT_CONFIG, full_vocabulary, shipped_captioner

    d, g = cfg.features, cfg.grid
    names, filters, bias = hand_filters(d)
    if cfg.filters is not None:
        filters, names = np.asarray(cfg.filters), tuple(f"filter {i + 1}" for i in range(d))
    if cfg.bias is not None:
        bias = np.asarray(cfg.bias)
    h, w = cfg.pixels.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    crop = np.ascontiguousarray(cfg.pixels[top:top + side, left:left + side])
    crop.flags.writeable = False
    if cfg.scene is not None:
        drawn = _drawn(cfg.scene, cfg.input_size)
        image = drawn.pixels  # drawn at the size the CNN reads
    else:
        drawn, image = None, square_resize(cfg.pixels, cfg.input_size)
    maps = relu(convolve(image, filters, bias))
    features = mean_pool_grid(maps, g)
    cells = features.reshape(g * g, d)

    # The shipped captioner read drawn scenes of IMAGE_SIZE pixels through
    # the hand-made filters; any other CNN gives features it never saw.
    base = DEFAULT_CONFIG
    trained = ((g, d, cfg.input_size) == (base.grid, base.features, IMAGE_SIZE)
               and cfg.filters is None and cfg.bias is None)
    if trained:
        captioner = shipped_captioner()
        params, vocab, held_out = captioner.params, captioner.vocab, captioner.evaluation
    else:
        vocab = full_vocabulary()
        rng = np.random.default_rng([seed, 12])
        params = model.init_params(rng, len(vocab), d, base.embedding, base.hidden, base.attention_size)
        held_out = None
    start, end = vocab.index(START), vocab.index(END)
    forced_words = cfg.caption_tokens
    forced = [vocab.index(wd) for wd in forced_words] if forced_words is not None else None
    records = model.decode(params, cells, start, end, MAX_CAPTION_WORDS, forced=forced)
    if not records:  # the decoder said <END> first: show that one step
        records = model.decode(params, cells, start, end, 1, forced=[end])
    tokens = tuple(vocab[r["word"]] for r in records)
    T = len(tokens)
    weights = np.array([r["weights"] for r in records]).reshape(T, g, g)

    owned = {}
    if drawn is not None:
        from .captioner.drawing import word_cells

        owned = word_cells(drawn, g)
    object_cells = tuple(owned.get(wd, ()) for wd in tokens)
    object_mass = tuple(float(sum(weights[t][i, j] for i, j in cells_t)) if cells_t else None
                        for t, cells_t in enumerate(object_cells))
    next_object = tuple(
        None if object_cells[t] else next((u for u in range(t + 1, T) if object_cells[u]), None)
        for t in range(T))
    next_object_mass = tuple(
        None if u is None else float(sum(weights[t][i, j] for i, j in object_cells[u]))
        for t, u in enumerate(next_object))
    return CnnTrace(
        image_source=cfg.image_source, scene=cfg.scene, pixels=crop, input_image=_frozen(image),
        image_size=(w, h), input_size=cfg.input_size, filter_names=names, filters=_frozen(filters),
        bias=_frozen(bias), conv_size=maps.shape[0], features=_frozen(features), trained=trained,
        forced=forced is not None, tokens=tokens,
        reference=drawn.caption if drawn is not None else None,
        decoder_inputs=(START, *tokens[:-1]),
        queries=_frozen([r["query"] for r in records]),
        scores=_frozen(np.array([r["scores"] for r in records]).reshape(T, g, g)),
        weights=_frozen(weights), contexts=_frozen([r["context"] for r in records]),
        probabilities=_frozen([r["probs"][r["word"]] for r in records]),
        object_cells=object_cells, object_mass=object_mass, next_object=next_object,
        next_object_mass=next_object_mass, held_out=held_out,
        decoder={k: _frozen(v) for k, v in params.items()},
    )
