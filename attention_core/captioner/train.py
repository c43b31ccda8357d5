"""Training and measuring the captioner; the shipped weights.

The CNN's filters are fixed (the hand-made bank of :mod:`attention_core.cnn_features`:
colour, brightness and edge detectors); only the decoder and its attention
are trained, with Adam on the caption cross-entropy and a small penalty on
the attention's entropy (it should pick a few cells). No loss ever sees where
the objects are: attention that lands on them is learnt, not told.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ..cnn_features import grid_features, hand_filters
from ..text import END, START
from ..training import Adam, read_weights, save_weights
from . import model
from .drawing import DrawnScene, caption_cells, make_scenes, vocabulary

__all__ = [
    "CaptionerConfig",
    "DEFAULT_CONFIG",
    "Captioner",
    "scene_features",
    "train",
    "evaluate",
    "shipped_captioner",
    "SHIPPED_WEIGHTS",
    "HELD_OUT_SEED",
    "held_out_scene",
    "full_vocabulary",
]

SHIPPED_WEIGHTS = "weights_captioner.npz"
HELD_OUT_SEED = 7919  # the held-out scenes are drawn from another seed than the training ones
MAX_WORDS = 8


@dataclass(frozen=True)
class CaptionerConfig:
    """Everything that decides the trained weights."""

    seed: int = 0
    grid: int = 4
    features: int = 8  # the CNN's filters (the hand-made bank)
    embedding: int = 12
    hidden: int = 32
    attention_size: int = 24
    steps: int = 900
    batch_size: int = 48
    learning_rate: float = 0.01
    train_size: int = 3000
    held_out_size: int = 500
    sharpen: float = 0.02  # weight of the attention-entropy prior (model.forward)


DEFAULT_CONFIG = CaptionerConfig()


def scene_features(pixels: np.ndarray, grid: int, features: int) -> np.ndarray:
    """The fixed CNN over one picture (H x W x RGB in [0, 1]): ``grid x grid x features``."""
    _, filters, bias = hand_filters(features)
    return grid_features(pixels, filters, bias, grid)


@dataclass(frozen=True)
class Captioner:
    """Trained parameters, the vocabulary, and the held-out figures."""

    config: CaptionerConfig
    params: dict[str, np.ndarray]
    vocab: tuple[str, ...]  # <START>, <END>, then the words
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    losses: tuple[float, ...] = ()
    evaluation: dict | None = None

    def ids(self, words) -> list[int]:
        return [self.vocab.index(w) for w in words]

    def save(self, path: Path) -> None:
        meta = dict(config=asdict(self.config), vocab=list(self.vocab), seconds=self.seconds,
                    cpu_seconds=self.cpu_seconds, losses=[round(x, 4) for x in self.losses[::10]],
                    evaluation=self.evaluation)
        save_weights(path, meta, self.params)

    @classmethod
    def load(cls, source) -> Captioner:
        meta, params = read_weights(source, model.PARAM_NAMES)
        missing = sorted(set(model.PARAM_NAMES) - set(params))
        if missing:
            raise KeyError(f"the captioner's weight file lacks {', '.join(missing)}")
        return cls(config=CaptionerConfig(**meta["config"]), params=params, vocab=tuple(meta["vocab"]),
                   seconds=meta["seconds"], cpu_seconds=meta["cpu_seconds"],
                   losses=tuple(meta["losses"]), evaluation=meta["evaluation"])


def full_vocabulary() -> tuple[str, ...]:
    return (START, END, *vocabulary())


def _batch(captions: list[tuple[str, ...]], index: dict[str, int]):
    T = max(len(c) for c in captions) + 1
    B = len(captions)
    inputs = np.zeros((B, T), int)
    targets = np.zeros((B, T), int)
    mask = np.zeros((B, T))
    for b, words in enumerate(captions):
        ids = [index[w] for w in words]
        inputs[b, :len(ids) + 1] = [index[START], *ids]
        targets[b, :len(ids) + 1] = [*ids, index[END]]
        mask[b, :len(ids) + 1] = 1.0
    return inputs, targets, mask


def _features(scenes: list[DrawnScene], cfg: CaptionerConfig) -> np.ndarray:
    return np.stack([scene_features(s.pixels, cfg.grid, cfg.features)
                     .reshape(cfg.grid * cfg.grid, cfg.features) for s in scenes])


def train(cfg: CaptionerConfig = DEFAULT_CONFIG,
          progress: Callable[[int, int, float], None] | None = None) -> Captioner:
    """Draw the scenes, train the decoder, measure it on held-out scenes."""
    wall, cpu = time.perf_counter(), time.process_time()
    vocab = full_vocabulary()
    index = {w: i for i, w in enumerate(vocab)}
    scenes = make_scenes(cfg.seed, cfg.train_size)
    feats = _features(scenes, cfg)
    inputs, targets, mask = _batch([s.caption for s in scenes], index)
    rng = np.random.default_rng([cfg.seed, 12])
    params = model.init_params(rng, len(vocab), cfg.features, cfg.embedding, cfg.hidden, cfg.attention_size)
    adam = Adam(params, cfg.learning_rate)
    losses = []
    for it in range(cfg.steps):
        pick = rng.choice(cfg.train_size, cfg.batch_size, replace=False)
        loss, grads = model.loss_and_grads(params, feats[pick], inputs[pick], targets[pick], mask[pick],
                                            cfg.sharpen)
        # Decay the step size over the last third for a steadier finish.
        lr = cfg.learning_rate * (1.0 if it < 2 * cfg.steps // 3 else 0.3)
        adam.step(params, grads, lr)
        losses.append(loss)
        if progress is not None:
            progress(it + 1, cfg.steps, loss)
    captioner = Captioner(cfg, params, vocab, time.perf_counter() - wall, time.process_time() - cpu,
                          tuple(losses))
    held_out = make_scenes(HELD_OUT_SEED, cfg.held_out_size)
    evaluation = evaluate(captioner, held_out)
    return Captioner(cfg, params, vocab, captioner.seconds, captioner.cpu_seconds, tuple(losses), evaluation)


def evaluate(captioner: Captioner, scenes: list[DrawnScene]) -> dict:
    """Held-out figures.

    ``caption_exact``: share of scenes whose greedy caption equals the
    reference. ``attention_accuracy``: over the object words of the reference
    captions (teacher-forced), the share whose most-attended cell is one of
    the object's cells. ``object_mass``: the mean weight on those cells.
    """
    cfg = captioner.config
    start, end = captioner.vocab.index(START), captioner.vocab.index(END)
    exact = hits = words = 0
    mass = 0.0
    for scene in scenes:
        f = scene_features(scene.pixels, cfg.grid, cfg.features).reshape(-1, cfg.features)
        written = model.decode(captioner.params, f, start, end, MAX_WORDS)
        exact += [captioner.vocab[r["word"]] for r in written] == list(scene.caption)
        forced = model.decode(captioner.params, f, start, end, MAX_WORDS, forced=captioner.ids(scene.caption))
        for rec, cells in zip(forced, caption_cells(scene, cfg.grid)):
            if not cells:
                continue
            w = rec["weights"].reshape(cfg.grid, cfg.grid)
            top = np.unravel_index(int(np.argmax(w)), w.shape)
            hits += tuple(int(v) for v in top) in cells
            mass += float(sum(w[i, j] for i, j in cells))
            words += 1
    return {"scenes": len(scenes), "object_words": words, "caption_exact": exact / len(scenes),
            "attention_accuracy": hits / words, "object_mass": mass / words}


@lru_cache(maxsize=4)
def held_out_scene(index: int) -> DrawnScene:
    """The held-out drawn scene number ``index`` (as :func:`evaluate` sees it)."""
    return make_scenes(HELD_OUT_SEED, index + 1)[index]


@lru_cache(maxsize=1)
def shipped_captioner() -> Captioner:
    """The weights shipped with the package (made by ``render.py train``)."""
    with resources.files(__package__).joinpath(SHIPPED_WEIGHTS).open("rb") as fh:
        return Captioner.load(fh)


