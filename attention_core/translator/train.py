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
    "Snapshot",
    "SNAPSHOT_STEPS",
    "SHIPPED_SNAPSHOTS",
    "snapshot_steps",
    "measure_snapshot",
    "held_out_loss",
    "load_snapshots",
    "save_snapshots",
    "read_snapshots",
    "training_note",
    "snapshots_path",
]

# The default translator (with attention) and its plain twin (without), the
# one the Part 1 scenes show; both ship so that rendering never trains.
SHIPPED_WEIGHTS = ("weights_default.npz", "weights_plain.npz")
MAX_STEPS_OUT = MAX_PAIR_TOKENS + 1  # 12 words and <END>
# The training record of the translator with attention (attention_learning).
SHIPPED_SNAPSHOTS = "snapshots_default.npz"
#: Steps at which training keeps a copy of the weights (the last step is
#: always added): before any update, then while attention forms.
SNAPSHOT_STEPS = (0, 50, 200, 1000)


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained weights."""

    seed: int = 0
    embedding: int = 12  # x_t: the smallest size found to reach the accuracy targets (README)
    hidden: int = 12  # h_t, s_t and e_w (French embeddings have the state's size)
    attention: bool = True
    steps: int = 6000  # unguided search (README): more steps, a larger corpus and
    batch_size: int = 64
    learning_rate: float = 0.02  # a higher rate than the guided network's (3000, 4000, 0.01) align better
    train_size: int = 8000
    held_out_size: int = 500
    guide: float = 0.0  # weight of the guided-alignment term (0: attention learns from translation alone)

    def to_dict(self) -> dict:
        return asdict(self)


DEFAULT_CONFIG = TrainConfig()


#: The shipped network without attention, trained before the attention
#: network's unguided search (issue 23) and kept as it was: the Part 1 scenes
#: and the length curves show it: 3000 steps at learning rate 0.01 on 4000
#: sentences; the attention network's defaults are 6000 steps at 0.02 on
#: 8000 (README, "The trained translator").
PLAIN_CONFIG = replace(DEFAULT_CONFIG, attention=False, guide=0.0, learning_rate=0.01, steps=3000,
                       train_size=4000)


def plain_config(config: TrainConfig) -> TrainConfig:
    """The same translator without attention: the decoder sees only
    ``h_T``, and there are no weights to guide. The default settings' twin
    is the shipped :data:`PLAIN_CONFIG` (its own learning rate); any other
    settings train their twin with the same values."""
    if config == DEFAULT_CONFIG:
        return PLAIN_CONFIG
    return replace(config, attention=False, guide=0.0)


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
    snapshots: tuple[Snapshot, ...] = ()  # the training record (not in the weight file)

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


def _as_float32(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The values a weight file keeps (float32), as float64 arrays: every
    figure is measured on these, so it can be recomputed from the file."""
    return {k: v.astype(np.float32).astype(float) for k, v in params.items()}


def snapshot_steps(steps: int) -> tuple[int, ...]:
    """The steps a run of ``steps`` steps keeps weights at (ascending)."""
    return tuple(sorted({s for s in SNAPSHOT_STEPS if s < steps} | {steps}))


def train(config: TrainConfig = DEFAULT_CONFIG, corpus: Corpus | None = None,
          progress: Callable[[int, int, float], None] | None = None) -> Weights:
    """Train from scratch; the same config always gives the same weights.

    ``progress(step, steps, loss)`` is called now and then (for a bar).
    The result's ``snapshots`` are the weights after the steps of
    :func:`snapshot_steps` (0: before any update) with their held-out
    measures; the final weights are the last snapshot's.
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
    keep_at = snapshot_steps(config.steps)
    kept: dict[int, dict[str, np.ndarray]] = {}
    start, cpu_start = time.perf_counter(), time.process_time()
    order = rng.permutation(n)
    pos = 0
    for step in range(config.steps):
        if step in keep_at:
            kept[step] = {k: v.copy() for k, v in params.items()}
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
    kept[config.steps] = params
    weights = Weights(config=config, params=_as_float32(params), source_vocab=sv, target_vocab=tv,
                      key=config_key(config, corpus), losses=tuple(float(x) for x in losses),
                      seconds=seconds, cpu_seconds=cpu_seconds)
    snapshots = tuple(measure_snapshot(replace(weights, params=_as_float32(kept[s])), s, corpus.held_out)
                      for s in keep_at)
    last = snapshots[-1]
    return replace(weights, evaluation=last.evaluation, snapshots=snapshots)


@dataclass(frozen=True)
class Snapshot:
    """The weights after ``step`` training steps and their held-out figures."""

    step: int
    params: dict[str, np.ndarray]
    loss: float  # held-out cross-entropy per French word (and <END>), teacher forced
    evaluation: dict  # Evaluation.to_dict() of these weights

    @property
    def exact_match(self) -> float:
        return float(self.evaluation["exact_match"])

    @property
    def alignment(self) -> float | None:
        return self.evaluation["alignment"]

    def measures(self) -> dict:
        """What the training record ships as JSON (no weights)."""
        return dict(step=self.step, loss=self.loss, exact_match=self.exact_match,
                    alignment=self.alignment, sentences=self.evaluation["sentences"])


def held_out_loss(weights: Weights, pairs, batch_size: int = 250) -> float:
    """Mean cross-entropy per target token over ``pairs`` (the words and
    <END>), teacher forced, translation loss only."""
    si = {w: i for i, w in enumerate(weights.source_vocab)}
    ti = {w: i for i, w in enumerate(weights.target_vocab)}
    total = tokens = 0.0
    for b0 in range(0, len(pairs), batch_size):
        chunk = pairs[b0: b0 + batch_size]
        src, tgt = _ids(chunk, si, ti)
        batch = model.make_batch(src, tgt, ti[START], ti[END])
        loss, _ = model.forward(weights.params, batch, weights.config.attention, 0.0)
        n_tok = float(batch.tgt_mask.sum())
        total += loss * n_tok
        tokens += n_tok
    return total / tokens


def measure_snapshot(weights: Weights, step: int, pairs) -> Snapshot:
    """``weights`` as the snapshot of ``step``, measured on ``pairs``."""
    return Snapshot(step=step, params=weights.params, loss=float(held_out_loss(weights, pairs)),
                    evaluation=evaluate(weights, pairs).to_dict())


def training_note(config: TrainConfig, weights: str = "trained") -> str:
    """How the network shown was trained, in one short note for the screen."""
    if weights != "trained":
        return "untrained: seeded random weights"
    if not config.attention:
        how = "trained without attention"
    elif config.guide:
        how = f"trained with guided alignment (guide {config.guide:g})"
    else:
        how = "trained unguided"  # translation loss only: no term pulls attention anywhere
    return f"{how}, {config.steps} steps"


def save_snapshots(path: Path, weights: Weights) -> None:
    """Write ``weights``' training record: each snapshot's weights (float32)
    and, as JSON, the configuration, key and measures."""
    meta = dict(config=weights.config.to_dict(), key=weights.key,
                snapshots=[s.measures() | {"by_length": s.evaluation["by_length"]} for s in weights.snapshots])
    arrays = {f"step{s.step}.{k}": v.astype(np.float32) for s in weights.snapshots for k, v in s.params.items()}
    tmp = Path(str(path) + ".tmp.npz")
    np.savez_compressed(tmp, meta=np.array(json.dumps(meta)), **arrays)
    os.replace(tmp, path)


def read_snapshots(source, weights: Weights) -> tuple[Snapshot, ...]:
    """The training record saved by :func:`save_snapshots` for ``weights``
    (their vocabularies and configuration); empty if its key differs."""
    with np.load(source) as data:
        meta = json.loads(str(data["meta"]))
        if meta["key"] != weights.key:
            return ()
        out = []
        for m in meta["snapshots"]:
            params = {k: data[f"step{m['step']}.{k}"].astype(float) for k in weights.params}
            evaluation = dict(sentences=m["sentences"], exact_match=m["exact_match"],
                              alignment=m["alignment"], by_length=m["by_length"])
            out.append(Snapshot(step=m["step"], params=params, loss=m["loss"], evaluation=evaluation))
    return tuple(out)


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
        save_snapshots(snapshots_path(weights.key), weights)
    except OSError:
        pass
    return weights


def snapshots_path(key: str) -> Path:
    """Where the cache keeps the training record of the weights ``key``."""
    return cache_dir() / f"{key}.snapshots.npz"


def load_snapshots(weights: Weights) -> tuple[Snapshot, ...]:
    """The training record of ``weights``: their own if they carry one, else
    the shipped record or the cached one with their key; empty when there is
    none (``render.py train`` makes it)."""
    if weights.snapshots:
        return weights.snapshots
    try:
        with resources.files(__package__).joinpath(SHIPPED_SNAPSHOTS).open("rb") as fh:
            found = read_snapshots(fh, weights)
        if found:
            return found
    except FileNotFoundError:
        pass
    path = snapshots_path(weights.key)
    if path.is_file():
        try:
            return read_snapshots(path, weights)
        except Exception:  # a broken cache file means no record, not a crash
            return ()
    return ()
