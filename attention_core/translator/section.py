"""The Trace sections of the translator: ``model`` / ``plain_model`` (one
sentence through the network with / without attention) and
``length_experiment`` (the measured curves).

``model_trace`` runs the same forward code as training (one sentence, a
batch of one) and keeps every value a scene shows. The seeded tanh RNN
fallback (attention_core.trace) fills the same :class:`ModelTrace`, so the
scenes read one set of keys whichever network they show.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..params import seeded_embeddings, seeded_normal
from ..records import record_to_dict
from ..text import END, START
from . import model
from .corpus import DRAFT_PAIRS
from .settings import ModelSettings
from .train import (
    MAX_STEPS_OUT,
    TrainConfig,
    Weights,
    corpus_for,
    load_or_train,
    load_snapshots,
    source_vocabulary,
    target_vocabulary,
    training_note,
)

__all__ = ["ModelTrace", "ModelOutputMapping", "AttentionLearning", "attention_learning", "LengthCurves", "BottleneckExample", "bottleneck_example",
           "model_trace", "model_output_mapping",
           "seeded_weights", "load_length_curves", "LENGTH_CURVES", "encoder_summaries"]

LENGTH_CURVES = "length_curves.json"


def _ro(a) -> np.ndarray:
    out = np.array(a, dtype=float)
    out.flags.writeable = False
    return out


def _l(a) -> Any:
    return np.asarray(a).tolist()


@dataclass(frozen=True)
class ModelTrace:
    """One source sentence through a translator network, every value kept.

    The same record serves the trained GRU (``network = "gru"``) and the
    seeded tanh RNN fallback (``network = "tanh_rnn"``), with or without
    attention, so scenes read one set of keys (``docs/notation.md``).

    Decoder step t (1-based; row t-1 here) reads ``inputs[t-1]`` (op_{t-1},
    ``<START>`` first) and ``previous_states[t-1]`` (s_{t-1}), uses the
    context ``contexts[t-1]`` (c_t; h_T without attention), gives
    ``states[t-1]`` (s_t), the scores ``E_fr @ s_t`` over
    ``target_vocabulary``, their softmax, and the chosen word op_t.
    """

    network: str  # "gru" or "tanh_rnn"
    weights: str  # "trained" or "seeded"
    has_attention: bool
    config: TrainConfig | None  # None for the tanh RNN
    key: str
    source_tokens: tuple[str, ...]
    source_ids: tuple[int, ...]
    target_vocabulary: tuple[str, ...]
    source_vocabulary: tuple[str, ...]
    source_embedding_matrix: np.ndarray  # |source vocabulary| x E
    target_embedding_matrix: np.ndarray  # V x H: e_w rows
    embeddings: np.ndarray  # T x E: x_1 ... x_T
    encoder_states: np.ndarray  # (T+1) x H: h_0 = 0, h_1 ... h_T
    inputs: tuple[str, ...]  # n words fed in: <START>, then the chosen words
    input_embeddings: np.ndarray  # n x H: op_0 ... op_{n-1}
    attention_scores: np.ndarray | None  # n x T: e_tj (None without attention)
    attention: np.ndarray | None  # n x T: a_tj
    contexts: np.ndarray  # n x H: c_t (h_T at every step without attention)
    states: np.ndarray  # n x H: s_1 ... s_n
    gates: dict[str, np.ndarray] | None  # GRU decoder's update/reset/candidate, n x H each
    chosen_ids: tuple[int, ...]
    reference: tuple[str, ...] | None  # the grammar's translation, if the sentence is a known pair
    reference_alignment: tuple[int, ...] | None
    held_out: dict[str, float] | None  # accuracy of the trained weights
    parameters: dict[str, np.ndarray]  # every weight of the network

    # Derived values: computed here, once, so every reader agrees.
    @property
    def trained(self) -> bool:
        return self.weights == "trained"

    @property
    def training_note(self) -> str:
        """How this network was trained, in one short note for the screen
        (e.g. "trained unguided (translation loss only), 3000 steps")."""
        if self.config is None:
            return "untrained: a small tanh RNN with seeded random weights"
        return training_note(self.config, self.weights)

    @property
    def sizes(self) -> tuple[int, int]:
        """(E, H): English embedding size, state (= French embedding) size."""
        return self.source_embedding_matrix.shape[1], self.target_embedding_matrix.shape[1]

    @property
    def initial_state(self) -> np.ndarray:
        """s_0: zeros."""
        return _ro(np.zeros(self.target_embedding_matrix.shape[1]))

    @property
    def last_encoder_state(self) -> np.ndarray:
        """h_T: the plain network's context."""
        return self.encoder_states[-1]

    @property
    def decoder_states(self) -> np.ndarray:
        """(n+1) x H: s_0 = 0, s_1 ... s_n."""
        return _ro(np.vstack([self.initial_state[None, :], self.states]))

    @property
    def previous_states(self) -> np.ndarray:
        """n x H: s_0 ... s_{n-1}."""
        return self.decoder_states[:-1]

    @property
    def scores(self) -> np.ndarray:
        """n x V: row t-1 is ``target_embedding_matrix @ s_t``, nothing added."""
        return _ro([self.target_embedding_matrix @ s for s in self.states])

    @property
    def probabilities(self) -> np.ndarray:
        return _ro([_softmax(z) for z in self.scores])

    @property
    def chosen(self) -> tuple[str, ...]:
        """op_1 ... op_n as words, <END> last if it was reached."""
        return tuple(self.target_vocabulary[j] for j in self.chosen_ids)

    @property
    def translation(self) -> tuple[str, ...]:
        return tuple(w for w in self.chosen if w != END)

    @property
    def parameter_count(self) -> int:
        return int(sum(v.size for v in self.parameters.values()))

    def to_dict(self) -> dict[str, Any]:
        att = self.attention is not None
        scores, probs = self.scores, self.probabilities
        steps = []
        for t in range(len(self.chosen_ids)):
            steps.append({
                "input": self.inputs[t],
                "input_embedding": _l(self.input_embeddings[t]),
                "previous_state": _l(self.previous_states[t]),
                "attention_scores": _l(self.attention_scores[t]) if att else None,
                "attention_weights": _l(self.attention[t]) if att else None,
                "context": _l(self.contexts[t]),
                "gates": ({k: _l(v[t]) for k, v in self.gates.items()} if self.gates is not None else None),
                "state": _l(self.states[t]),
                "scores": _l(scores[t]),
                "probabilities": _l(probs[t]),
                "chosen": self.chosen[t],
                "chosen_id": self.chosen_ids[t],
                "chosen_probability": float(probs[t, self.chosen_ids[t]]),
            })
        E, H = self.sizes
        return {
            "network": self.network,
            "weights": self.weights,
            "trained": self.trained,
            "training_note": self.training_note,
            "has_attention": self.has_attention,
            "config": self.config.to_dict() if self.config is not None else None,
            "key": self.key,
            "sizes": {"embedding": E, "hidden": H},
            "tokens": list(self.source_tokens),
            "token_ids": list(self.source_ids),
            "target_vocabulary": list(self.target_vocabulary),
            "source_vocabulary": list(self.source_vocabulary),
            "source_embedding_matrix": _l(self.source_embedding_matrix),
            "target_embedding_matrix": _l(self.target_embedding_matrix),
            "embeddings": _l(self.embeddings),
            "encoder_states": _l(self.encoder_states),
            "last_encoder_state": _l(self.last_encoder_state),
            "initial_state": _l(self.initial_state),
            "decoder_states": _l(self.decoder_states),
            "attention": _l(self.attention) if att else None,
            "steps": steps,
            "translation": list(self.translation),
            "reference": list(self.reference) if self.reference is not None else None,
            "reference_alignment": list(self.reference_alignment) if self.reference_alignment is not None else None,
            "held_out": self.held_out,
            "parameters": {k: _l(v) for k, v in self.parameters.items()},
            "parameter_count": self.parameter_count,
        }


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def seeded_weights(seed: int, config: TrainConfig, extra_source_words: tuple[str, ...] = ()) -> Weights:
    """Untrained weights from the numbers file's seed, one generator per
    parameter name (``model.<name>``), rounded like every seeded value."""
    sv = (*source_vocabulary(), *[w for w in extra_source_words if w not in source_vocabulary()])
    tv = target_vocabulary()
    E, H = config.embedding, config.hidden
    params = {}
    for name, shape in model.param_shapes(len(sv), len(tv), E, H, config.attention).items():
        if name == "src_emb":
            params[name] = seeded_embeddings(seed, "model.src_emb", sv, E)
        elif name == "tgt_emb":
            params[name] = seeded_embeddings(seed, "model.tgt_emb", tv, H)
        elif len(shape) == 1:
            params[name] = seeded_normal(seed, f"model.{name}", shape, 0.1 if name != "att_v" else 0.5)
        else:
            params[name] = seeded_normal(seed, f"model.{name}", shape, shape[1] ** -0.5)
    return Weights(config=config, params=params, source_vocab=sv, target_vocab=tv, key="seeded")


@lru_cache(maxsize=8)
def _trained(config: TrainConfig) -> Weights:
    return load_or_train(config)


@lru_cache(maxsize=8)
def _reference_pairs(config: TrainConfig) -> dict:
    c = corpus_for(config)
    return {p.source: p for p in (*DRAFT_PAIRS, *c.train, *c.held_out)}


def _json_safe(evaluation: dict | None) -> dict | None:
    """The held-out figures with NaN (no alignment without attention) as None."""
    if evaluation is None:
        return None
    return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in evaluation.items()}


def _weights_for(settings: ModelSettings, seed: int, extra_words: tuple[str, ...] = ()) -> Weights:
    if settings.weights == "seeded":
        return seeded_weights(seed, settings.config, extra_words)
    return _trained(settings.config)


def encoder_summaries(sentences: tuple[tuple[str, ...], ...], settings: ModelSettings,
                      seed: int) -> np.ndarray:
    """``h_T`` of each sentence: the plain network's context (the only
    vector its decoder sees of the sentence). N x H."""
    words = tuple(dict.fromkeys(w for toks in sentences for w in toks))
    w = _weights_for(settings, seed, words)
    sv = {word: i for i, word in enumerate(w.source_vocab)}
    out = []
    for toks in sentences:
        ids = np.array([[sv[t] for t in toks]])
        _, _, h_T, _ = model.encode(w.params, ids, np.ones(ids.shape))
        out.append(h_T[0])
    return _ro(out)


def model_trace(source_tokens: tuple[str, ...], settings: ModelSettings, seed: int) -> ModelTrace:
    """Translate one sentence with the GRU translator and keep every value."""
    cfg = settings.config
    w = _weights_for(settings, seed, source_tokens)
    sv = {word: i for i, word in enumerate(w.source_vocab)}
    tv = w.target_vocab
    start, end = tv.index(START), tv.index(END)
    ids = [sv[t] for t in source_tokens]
    batch = model.make_batch([ids], None, start, end)
    out_ids, _, enc, steps = model.greedy_decode(w.params, batch, start, end, MAX_STEPS_OUT,
                                                 cfg.attention, keep_steps=True)
    n = len(out_ids[0])
    for i, j in enumerate(out_ids[0]):
        if j == end:
            n = i + 1
            break
    steps = steps[:n]
    chosen_ids = tuple(int(j) for j in out_ids[0, :n])
    ref = _reference_pairs(cfg).get(tuple(source_tokens))
    att = cfg.attention
    H = enc["states"].shape[2]
    # gru_step's cache: (x, h, z, r, r*h, n)
    gates = {name: _ro([st["gcache"][i][0] for st in steps])
             for name, i in (("update", 2), ("reset", 3), ("candidate", 5))}
    return ModelTrace(
        network="gru",
        weights=settings.weights,
        has_attention=att,
        config=cfg,
        key=w.key,
        source_tokens=tuple(source_tokens),
        source_ids=tuple(ids),
        target_vocabulary=tv,
        source_vocabulary=tuple(w.source_vocab),
        source_embedding_matrix=_ro(w.params["src_emb"]),
        target_embedding_matrix=_ro(w.params["tgt_emb"]),
        embeddings=_ro(enc["x"][0]),
        encoder_states=_ro(np.vstack([np.zeros((1, H)), enc["states"][0]])),
        inputs=tuple([START, *[tv[j] for j in chosen_ids[:-1]]]),
        input_embeddings=_ro([st["op"][0] for st in steps]),
        attention_scores=_ro([st["att_scores"][0] for st in steps]) if att else None,
        attention=_ro([st["alpha"][0] for st in steps]) if att else None,
        contexts=_ro([st["context"][0] for st in steps]),
        states=_ro([st["state"][0] for st in steps]),
        gates=gates,
        chosen_ids=chosen_ids,
        reference=ref.target if ref else None,
        reference_alignment=ref.alignment if ref else None,
        held_out=_json_safe(w.evaluation) if settings.weights == "trained" else None,
        parameters={k: _ro(v) for k, v in w.params.items()},
    )


@dataclass(frozen=True)
class ModelOutputMapping:
    """Step ``step`` (1-based) of a network's decode, the output mapping
    spelled out: for every French word ``s_t . e_w`` (the terms in
    ``products``) is the score, and softmax gives the probability."""

    step: int
    state: np.ndarray  # s_t, H
    context: np.ndarray  # c_t, H
    vocabulary: tuple[str, ...]
    embeddings: np.ndarray  # V x H
    products: np.ndarray  # V x H: s_t[i] * e_w[i]
    scores: np.ndarray  # V: s_t . e_w
    probabilities: np.ndarray  # V
    ranked: tuple[int, ...]  # word indices, most probable first
    chosen_id: int
    chosen_word: str
    chosen_probability: float
    chosen_percent: float
    probability_sum: float  # softmax: 1 up to rounding

    def to_dict(self) -> dict[str, Any]:
        return record_to_dict(self)


def model_output_mapping(m: ModelTrace, step: int) -> ModelOutputMapping:
    """The output mapping of decode step ``step`` (1-based) of ``m``."""
    t = step - 1
    s = m.states[t]
    emb = m.target_embedding_matrix
    probs = m.probabilities[t]
    chosen = m.chosen_ids[t]
    return ModelOutputMapping(
        step=step,
        state=s,
        context=m.contexts[t],
        vocabulary=m.target_vocabulary,
        embeddings=emb,
        products=_ro(emb * s[None, :]),
        scores=m.scores[t],
        probabilities=probs,
        # Stable sort so equal probabilities keep vocabulary order.
        ranked=tuple(int(i) for i in np.argsort(-probs, kind="stable")),
        chosen_id=chosen,
        chosen_word=m.chosen[t],
        chosen_probability=float(probs[chosen]),
        chosen_percent=float(100.0 * probs[chosen]),
        probability_sum=float(np.sum(probs)),
    )


@dataclass(frozen=True)
class BottleneckExample:
    """A held-out sentence the network without attention gets wrong and the
    one with attention gets right: the longest such (first in corpus order
    among equals), both decoded here."""

    source: tuple[str, ...]
    plain_translation: tuple[str, ...]
    attention_translation: tuple[str, ...]
    reference: tuple[str, ...]
    plain_exact: bool
    attention_exact: bool

    def to_dict(self) -> dict[str, Any]:
        return record_to_dict(self)


@lru_cache(maxsize=4)
def bottleneck_example(config: TrainConfig) -> BottleneckExample | None:
    """The example for the trained networks of ``config`` (with attention)
    and its plain twin; None when no held-out sentence fits."""
    from .train import plain_config, translate_ids

    pairs = corpus_for(config).held_out
    with_att, _ = translate_ids(_trained(config), pairs)
    plain, _ = translate_ids(_trained(plain_config(config)), pairs)
    best = None
    for p, a, b in zip(pairs, with_att, plain):
        if a == p.target and b != p.target and (best is None or len(p.source) > len(best[0].source)):
            best = (p, a, b)
    if best is None:
        return None
    p, a, b = best
    return BottleneckExample(source=p.source, plain_translation=tuple(b), attention_translation=tuple(a),
                             reference=p.target, plain_exact=False, attention_exact=True)


@dataclass(frozen=True)
class LengthCurves:
    """Accuracy by source length, with and without attention (measured by
    ``scripts/length_experiment.py``, shipped as ``length_curves.json``)."""

    data: dict[str, Any]

    @property
    def lengths(self) -> list[int]:
        return list(self.data["lengths"])

    @property
    def training_note(self) -> str | None:
        """How the two networks were trained, in one line (None when the
        curves do not carry their settings)."""
        try:
            with_att, without = (TrainConfig(**self.data[k]["config"])
                                 for k in ("with_attention", "without_attention"))
        except (KeyError, TypeError):
            return None
        return f"{training_note(with_att)}; without attention: {without.steps} steps"

    def to_dict(self) -> dict[str, Any]:
        return {**json.loads(json.dumps(self.data)), "training_note": self.training_note}


@lru_cache(maxsize=1)
def _curves_text() -> str | None:
    try:
        return resources.files(__package__).joinpath(LENGTH_CURVES).read_text("utf-8")
    except FileNotFoundError:
        return None


def load_length_curves() -> LengthCurves | None:
    text = _curves_text()
    return LengthCurves(json.loads(text)) if text is not None else None


@dataclass(frozen=True)
class AttentionLearning:
    """The alignment of one sentence at each snapshot of training.

    ``rows`` are the French words the finished network writes for the
    sentence; at every snapshot the decoder is fed those same words
    (teacher forcing), so ``matrices[k]`` (rows x source words, each row
    summing to 1) is where snapshot ``k``'s attention looks while writing
    them. ``translations[k]`` is what snapshot ``k`` itself writes. Loss,
    exact match and alignment are measured on the held-out sentences.
    """

    source_tokens: tuple[str, ...]
    rows: tuple[str, ...]
    reference: tuple[str, ...] | None
    reference_alignment: tuple[int, ...] | None
    steps: tuple[int, ...]
    losses: tuple[float, ...]
    exact_match: tuple[float, ...]
    alignment: tuple[float, ...]
    held_out_sentences: int
    matrices: np.ndarray  # snapshots x rows x T
    translations: tuple[tuple[str, ...], ...]
    config: TrainConfig
    training_note: str

    @property
    def final_matrix(self) -> np.ndarray:
        return self.matrices[-1]

    @property
    def peaks(self) -> tuple[tuple[int, ...], ...]:
        """Each snapshot's strongest English word per row (its argmax)."""
        return tuple(tuple(int(j) for j in np.argmax(m, axis=1)) for m in self.matrices)

    @property
    def reference_agreement(self) -> tuple[int, ...] | None:
        """Per snapshot, how many rows peak on the grammar's aligned word
        (None when the rows are not the reference translation)."""
        if self.reference_alignment is None or self.rows != self.reference:
            return None
        return tuple(sum(int(p == a) for p, a in zip(peaks, self.reference_alignment)) for peaks in self.peaks)

    @property
    def exact_match_percent(self) -> tuple[float, ...]:
        return tuple(100.0 * x for x in self.exact_match)

    @property
    def alignment_percent(self) -> tuple[float, ...]:
        return tuple(100.0 * x for x in self.alignment)

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def later_peaks(self) -> int | None:
        """Rows of the final matrix that peak on a word after the grammar's
        (None without reference rows): a state h_k with k > j has read word
        j too, so attending to it still reads word j."""
        if self.reference_agreement is None:
            return None
        return sum(int(p > a) for p, a in zip(self.peaks[-1], self.reference_alignment))

    def to_dict(self) -> dict[str, Any]:
        out = {f: _l(getattr(self, f)) for f in (
            "source_tokens", "rows", "steps", "losses", "exact_match", "alignment", "matrices")}
        out.update(reference=list(self.reference) if self.reference is not None else None,
                   reference_alignment=(list(self.reference_alignment)
                                        if self.reference_alignment is not None else None),
                   held_out_sentences=self.held_out_sentences,
                   translations=[list(t) for t in self.translations],
                   config=self.config.to_dict(), training_note=self.training_note)
        out.update(exact_match_percent=list(self.exact_match_percent),
                   alignment_percent=list(self.alignment_percent), row_count=self.row_count,
                   peaks=[list(p) for p in self.peaks], later_peaks=self.later_peaks)
        out["reference_agreement"] = (list(self.reference_agreement)
                                      if self.reference_agreement is not None else None)
        return out


def attention_learning(m: ModelTrace | None, settings: ModelSettings | None) -> AttentionLearning | None:
    """The training record of the network of ``m`` on its sentence: None
    for seeded weights, the tanh RNN, a network without attention, a
    translation of no words, or settings with no record yet."""
    if (m is None or settings is None or m.network != "gru" or not m.trained or not m.has_attention
            or not m.translation):
        return None
    weights = _trained(settings.config)
    snapshots = load_snapshots(weights)
    if not snapshots:
        return None
    tv = weights.target_vocab
    sv = {w: i for i, w in enumerate(weights.source_vocab)}
    ti = {w: i for i, w in enumerate(tv)}
    rows = m.translation
    batch = model.make_batch([[sv[w] for w in m.source_tokens]], [[ti[w] for w in rows]],
                             ti[START], ti[END])
    matrices, translations = [], []
    for snap in snapshots:
        _, cache = model.forward(snap.params, batch, True, 0.0)
        matrices.append([st["alpha"][0] for st in cache["steps"][: len(rows)]])
        ids, _, _, _ = model.greedy_decode(snap.params, model.make_batch(batch.src.tolist(), None, ti[START],
                                                                         ti[END]),
                                           ti[START], ti[END], MAX_STEPS_OUT, True)
        words = []
        for j in ids[0]:
            if j == ti[END]:
                break
            words.append(tv[j])
        translations.append(tuple(words))
    return AttentionLearning(
        source_tokens=m.source_tokens, rows=rows, reference=m.reference,
        reference_alignment=m.reference_alignment,
        steps=tuple(s.step for s in snapshots), losses=tuple(s.loss for s in snapshots),
        exact_match=tuple(s.exact_match for s in snapshots),
        alignment=tuple(float(s.alignment) for s in snapshots),
        held_out_sentences=int(snapshots[-1].evaluation["sentences"]),
        matrices=_ro(matrices), translations=tuple(translations),
        config=settings.config, training_note=m.training_note,
    )
