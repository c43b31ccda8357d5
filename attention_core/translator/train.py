"""Training the translator: deterministic for a seed, Adam, cached weights.

``train(config)`` draws the corpus, trains and returns :class:`Weights`;
``load_or_train(config)`` first looks for the weights shipped with the
package, then in the user's cache, both keyed by a hash of the corpus and
the configuration, and trains only when neither matches.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ..text import END, START
from ..training import Adam, read_weights, save_weights
from . import model
from .corpus import MAX_PAIR_TOKENS, Corpus, Pair, make_corpus, source_words, target_words

__all__ = [
    "TrainConfig",
    "DEFAULT_CONFIG",
    "Weights",
    "Evaluation",
    "train",
    "evaluate",
    "load_or_train",
    "config_key",
    "SHIPPED_WEIGHTS",
    "PLAIN_CONFIG",
    "plain_config",
    "cache_dir",
    "reporting",
    "corpus_for",
]

# The default translator (with attention) and its plain twin (without), the
# one the Part 1 scenes show; both ship so that rendering never trains.
SHIPPED_WEIGHTS = ("weights_default.npz", "weights_plain.npz")
MAX_STEPS_OUT = MAX_PAIR_TOKENS + 1  # 12 words and <END>


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained weights."""

    seed: int = 0
    embedding: int = 12  # x_t: the smallest size found to reach the accuracy targets (README)
    hidden: int = 12  # h_t, s_t and e_w (French embeddings have the state's size)
    attention: bool = True
    steps: int = 3000
    batch_size: int = 64
    learning_rate: float = 0.01
    train_size: int = 4000
    held_out_size: int = 500
    guide: float = 1.0  # weight of the guided-alignment term (0: attention learns alone)

    def to_dict(self) -> dict:
        return asdict(self)


DEFAULT_CONFIG = TrainConfig()


def plain_config(config: TrainConfig) -> TrainConfig:
    """The same translator without attention: the decoder sees only
    ``h_T``, and there are no weights to guide."""
    return replace(config, attention=False, guide=0.0)


PLAIN_CONFIG = plain_config(DEFAULT_CONFIG)


def source_vocabulary() -> tuple[str, ...]:
    return source_words()


def target_vocabulary() -> tuple[str, ...]:
    return (START, END, *target_words())


@lru_cache(maxsize=4)
def corpus_for(config: TrainConfig) -> Corpus:
    """The corpus a configuration trains on (drawn once per process)."""
    return make_corpus(config.seed, config.train_size, config.held_out_size)


def config_key(config: TrainConfig, corpus: Corpus | None = None) -> str:
    """Hash of the corpus and the configuration: the cache's file name."""
    corpus = corpus or corpus_for(config)
    h = hashlib.sha256()
    h.update(corpus.fingerprint().encode())
    h.update(json.dumps(config.to_dict(), sort_keys=True).encode())
    h.update(model.ARCHITECTURE.encode())  # weights of another architecture never match
    h.update(" ".join(source_vocabulary()).encode() + b"|" + " ".join(target_vocabulary()).encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Weights:
    """Trained (or seeded) parameters with their vocabularies."""

    config: TrainConfig
    params: dict[str, np.ndarray]
    source_vocab: tuple[str, ...]
    target_vocab: tuple[str, ...]
    key: str = ""
    losses: tuple[float, ...] = ()
    seconds: float = 0.0  # wall-clock training time
    evaluation: dict | None = None  # held-out figures (Evaluation.to_dict())
    cpu_seconds: float = 0.0  # processor time (the machine may be shared)

    def save(self, path: Path) -> None:
        meta = dict(config=self.config.to_dict(), source_vocab=list(self.source_vocab),
                    target_vocab=list(self.target_vocab), key=self.key, seconds=self.seconds,
                    losses=list(self.losses), evaluation=self.evaluation, cpu_seconds=self.cpu_seconds)
        save_weights(path, meta, self.params)

    @classmethod
    def load(cls, source) -> Weights:
        meta, params = read_weights(source, model.PARAM_NAMES)
        return cls(config=TrainConfig(**meta["config"]), params=params,
                   source_vocab=tuple(meta["source_vocab"]), target_vocab=tuple(meta["target_vocab"]),
                   key=meta["key"], losses=tuple(meta.get("losses", ())), seconds=meta.get("seconds", 0.0),
                   evaluation=meta.get("evaluation"), cpu_seconds=meta.get("cpu_seconds", 0.0))


def _ids(pairs: list[Pair] | tuple[Pair, ...], src_index: dict, tgt_index: dict):
    return ([[src_index[w] for w in p.source] for p in pairs],
            [[tgt_index[w] for w in p.target] for p in pairs])


def train(config: TrainConfig = DEFAULT_CONFIG, corpus: Corpus | None = None,
          progress: Callable[[int, int, float], None] | None = None) -> Weights:
    """Train from scratch; the same config always gives the same weights.

    ``progress(step, steps, loss)`` is called now and then (for a bar).
    """
    corpus = corpus or corpus_for(config)
    sv, tv = source_vocabulary(), target_vocabulary()
    si, ti = {w: i for i, w in enumerate(sv)}, {w: i for i, w in enumerate(tv)}
    rng = np.random.default_rng([config.seed, 7])
    params = model.init_params(rng, len(sv), len(tv), config.embedding, config.hidden, config.attention)
    src, tgt = _ids(corpus.train, si, ti)
    aligns = [p.alignment for p in corpus.train]
    n = len(src)
    adam = Adam(params, config.learning_rate)
    losses = []
    start, cpu_start = time.perf_counter(), time.process_time()
    order = rng.permutation(n)
    pos = 0
    for step in range(config.steps):
        if pos + config.batch_size > n:
            order, pos = rng.permutation(n), 0
        idx = order[pos: pos + config.batch_size]
        pos += config.batch_size
        batch = model.make_batch([src[i] for i in idx], [tgt[i] for i in idx], ti[START], ti[END],
                                 [aligns[i] for i in idx] if config.guide else None)
        loss, grads = model.loss_and_grads(params, batch, config.attention, config.guide)
        # Clip the gradient's norm: rare long sentences give big steps early on.
        norm = np.sqrt(sum(float((g * g).sum()) for g in grads.values()))
        if norm > 5.0:
            for g in grads.values():
                g *= 5.0 / norm
        # Linear decay to a tenth of the rate over the run.
        lr = config.learning_rate * (1.0 - 0.9 * step / max(1, config.steps - 1))
        adam.step(params, grads, lr)
        losses.append(loss)
        if progress is not None and (step % 25 == 0 or step == config.steps - 1):
            progress(step + 1, config.steps, float(np.mean(losses[-25:])))
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    weights = Weights(config=config, params=params, source_vocab=sv, target_vocab=tv,
                      key=config_key(config, corpus), losses=tuple(float(x) for x in losses),
                      seconds=seconds, cpu_seconds=cpu_seconds)
    return replace(weights, evaluation=evaluate(weights, corpus.held_out).to_dict())


@dataclass(frozen=True)
class Evaluation:
    """Held-out figures: exact-match translation and alignment accuracy."""

    sentences: int
    exact_match: float  # share of sentences translated exactly
    alignment: float  # share of target words whose top weight is on the aligned source word
    by_length: dict[int, tuple[int, float]]  # source length -> (sentences, exact-match share)

    def to_dict(self) -> dict:
        # No alignment without attention: None, since JSON has no NaN.
        alignment = None if np.isnan(self.alignment) else self.alignment
        return dict(sentences=self.sentences, exact_match=self.exact_match, alignment=alignment,
                    by_length={str(k): {"sentences": v[0], "exact_match": v[1]}
                               for k, v in sorted(self.by_length.items())})


def translate_ids(weights: Weights, pairs, batch_size: int = 256):
    """Greedy translations (token tuples) and attention rows for each pair,
    with teacher-free decoding."""
    sv = {w: i for i, w in enumerate(weights.source_vocab)}
    tv = weights.target_vocab
    start, end = tv.index(START), tv.index(END)
    out, alphas = [], []
    for b0 in range(0, len(pairs), batch_size):
        chunk = pairs[b0: b0 + batch_size]
        batch = model.make_batch([[sv[w] for w in p.source] for p in chunk], None, start, end)
        ids, al, _, _ = model.greedy_decode(weights.params, batch, start, end, MAX_STEPS_OUT,
                                            weights.config.attention)
        for i in range(len(chunk)):
            words = []
            for j in ids[i]:
                if j == end:
                    break
                words.append(tv[j])
            out.append(tuple(words))
            alphas.append(None if al is None else al[i, :, : len(chunk[i].source)])
    return out, alphas


def evaluate(weights: Weights, pairs) -> Evaluation:
    """Exact match over ``pairs`` and, with attention, alignment accuracy
    (measured where the translation is right up to that word, so the
    weights are those the model used to write the reference word)."""
    got, alphas = translate_ids(weights, pairs)
    exact = 0
    hit = total = 0
    by_len: dict[int, list[int]] = {}
    for p, g, al in zip(pairs, got, alphas):
        ok = g == p.target
        exact += ok
        by_len.setdefault(len(p.source), []).append(int(ok))
        if al is not None:
            for i, a in enumerate(p.alignment):
                if i >= len(g) or g[i] != p.target[i]:
                    break
                hit += int(np.argmax(al[i]) == a)
            total += len(p.target)
    n = len(pairs)
    return Evaluation(
        sentences=n,
        exact_match=exact / n,
        alignment=(hit / total) if total else float("nan"),
        by_length={k: (len(v), float(np.mean(v))) for k, v in by_len.items()},
    )


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "attention-animations" / "translator"


@lru_cache(maxsize=len(SHIPPED_WEIGHTS))
def shipped_weights(name: str = SHIPPED_WEIGHTS[0]) -> Weights:
    """One of the weight files shipped with the package (default: the
    translator with attention)."""
    ref = resources.files(__package__).joinpath(name)
    with ref.open("rb") as fh:
        return Weights.load(fh)


_reporters: list[Callable[[int, int, float], None]] = []


@contextmanager
def reporting(progress: Callable[[int, int, float], None]):
    """Within this block, a training that :func:`load_or_train` must do (no
    shipped or cached weights) reports its steps to ``progress``: the CLI
    shows it rather than train silently for minutes."""
    _reporters.append(progress)
    try:
        yield
    finally:
        _reporters.remove(progress)


def load_or_train(config: TrainConfig = DEFAULT_CONFIG,
                  progress: Callable[[int, int, float], None] | None = None) -> Weights:
    """Shipped weights if they match, else cached ones, else train and cache."""
    if progress is None and _reporters:
        progress = _reporters[-1]
    key = config_key(config)
    for name in SHIPPED_WEIGHTS:
        try:
            shipped = shipped_weights(name)
        except FileNotFoundError:
            continue
        if shipped.key == key:
            return shipped
    path = cache_dir() / f"{key}.npz"
    if path.is_file():
        try:
            return Weights.load(path)
        except Exception:  # a broken cache file is retrained, not fatal
            pass
    weights = train(config, progress=progress)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        weights.save(path)
    except OSError:
        pass
    return weights
