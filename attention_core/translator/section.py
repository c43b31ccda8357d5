"""The Trace sections of the translator: ``model`` (one sentence through
the trained network) and ``length_experiment`` (the measured curves).

``model_trace`` runs the same forward code as training (one sentence, a
batch of one) and keeps every value a scene shows.
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
    source_vocabulary,
    target_vocabulary,
)

__all__ = ["ModelTrace", "ModelOutputMapping", "LengthCurves", "model_trace", "model_output_mapping",
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
    """One source sentence through the translator, every value kept.

    Step t (0-based) writes output word t: it reads ``inputs[t]`` (``<START>``
    or the word it wrote before) and ``previous_states[t]`` (s_{t-1}),
    scores every source word, weighs the annotations into ``contexts[t]``,
    and gives ``states[t]`` (s_t), the output vector, logits and
    probabilities over ``target_vocabulary``, and the chosen word.
    """

    weights: str  # "trained" or "seeded"
    config: TrainConfig
    key: str
    source_tokens: tuple[str, ...]
    source_ids: tuple[int, ...]
    target_vocabulary: tuple[str, ...]
    source_vocabulary: tuple[str, ...]
    source_embedding_matrix: np.ndarray  # |source vocabulary| x E
    target_embedding_matrix: np.ndarray  # |target vocabulary| x E
    output_bias: np.ndarray  # |target vocabulary|: added to each word's dot product
    embeddings: np.ndarray  # T x E
    forward_states: np.ndarray  # T x H/2: f_1 ... f_T
    backward_states: np.ndarray  # T x H/2: b_1 ... b_T
    annotations: np.ndarray  # T x H: h_j = [f_j ; b_j]
    summary: np.ndarray  # H: [f_T ; b_1]
    initial_state: np.ndarray  # H: s_0
    inputs: tuple[str, ...]  # T' words fed in: <START>, then the chosen words
    input_embeddings: np.ndarray  # T' x E
    previous_states: np.ndarray  # T' x H
    scores: np.ndarray | None  # T' x T (None without attention)
    attention: np.ndarray | None  # T' x T weights
    contexts: np.ndarray  # T' x H
    states: np.ndarray  # T' x H
    outputs: np.ndarray  # T' x E: o_t = W_o [s_t ; c_t] + b_o
    logits: np.ndarray  # T' x V
    probabilities: np.ndarray  # T' x V
    chosen_ids: tuple[int, ...]
    chosen: tuple[str, ...]  # the words written, <END> last if it was reached
    reference: tuple[str, ...] | None  # the grammar's translation, if the sentence is a known pair
    reference_alignment: tuple[int, ...] | None
    held_out: dict[str, float] | None  # accuracy of the trained weights

    @property
    def translation(self) -> tuple[str, ...]:
        return tuple(w for w in self.chosen if w != END)

    def to_dict(self) -> dict[str, Any]:
        att = self.attention is not None
        steps = []
        for t in range(len(self.chosen)):
            steps.append({
                "input": self.inputs[t],
                "input_embedding": _l(self.input_embeddings[t]),
                "previous_state": _l(self.previous_states[t]),
                "scores": _l(self.scores[t]) if att else None,
                "weights": _l(self.attention[t]) if att else None,
                "context": _l(self.contexts[t]),
                "state": _l(self.states[t]),
                "output": _l(self.outputs[t]),
                "logits": _l(self.logits[t]),
                "probabilities": _l(self.probabilities[t]),
                "chosen": self.chosen[t],
                "chosen_id": self.chosen_ids[t],
                "chosen_probability": float(self.probabilities[t, self.chosen_ids[t]]),
            })
        return {
            "weights": self.weights,
            "config": self.config.to_dict(),
            "key": self.key,
            "tokens": list(self.source_tokens),
            "token_ids": list(self.source_ids),
            "target_vocabulary": list(self.target_vocabulary),
            "source_vocabulary": list(self.source_vocabulary),
            "source_embedding_matrix": _l(self.source_embedding_matrix),
            "target_embedding_matrix": _l(self.target_embedding_matrix),
            "output_bias": _l(self.output_bias),
            "embeddings": _l(self.embeddings),
            "encoder_forward": _l(self.forward_states),
            "encoder_backward": _l(self.backward_states),
            "annotations": _l(self.annotations),
            "summary": _l(self.summary),
            "initial_state": _l(self.initial_state),
            "steps": steps,
            "attention": _l(self.attention) if att else None,
            "translation": list(self.translation),
            "reference": list(self.reference) if self.reference is not None else None,
            "reference_alignment": list(self.reference_alignment) if self.reference_alignment is not None else None,
            "held_out": self.held_out,
        }


def seeded_weights(seed: int, config: TrainConfig, extra_source_words: tuple[str, ...] = ()) -> Weights:
    """Untrained weights from the numbers file's seed, one generator per
    parameter name (``model.<name>``), rounded like every seeded value."""
    sv = (*source_vocabulary(), *[w for w in extra_source_words if w not in source_vocabulary()])
    tv = target_vocabulary()
    E, H = config.embedding, config.hidden
    params = {}
    for name, shape in model.param_shapes(len(sv), len(tv), E, H).items():
        if name == "src_emb":
            params[name] = seeded_embeddings(seed, "model.src_emb", sv, E)
        elif name == "tgt_emb":
            params[name] = seeded_embeddings(seed, "model.tgt_emb", tv, E)
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
    """``[f_T ; b_1]`` of each sentence: the vector the translator's decoder
    starts from (the only one it sees without attention). N x H."""
    words = tuple(dict.fromkeys(w for toks in sentences for w in toks))
    w = _weights_for(settings, seed, words)
    sv = {word: i for i, word in enumerate(w.source_vocab)}
    out = []
    for toks in sentences:
        ids = np.array([[sv[t] for t in toks]])
        *_, summary, _ = model.encode(w.params, ids, np.ones(ids.shape))
        out.append(summary[0])
    return _ro(out)


def model_trace(source_tokens: tuple[str, ...], settings: ModelSettings, seed: int) -> ModelTrace:
    """Translate one sentence and keep every value on the way."""
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
    return ModelTrace(
        weights=settings.weights,
        config=cfg,
        key=w.key,
        source_tokens=tuple(source_tokens),
        source_ids=tuple(ids),
        target_vocabulary=tv,
        source_vocabulary=tuple(w.source_vocab),
        source_embedding_matrix=_ro(w.params["src_emb"]),
        target_embedding_matrix=_ro(w.params["tgt_emb"]),
        output_bias=_ro(w.params["out_bias"]),
        embeddings=_ro(enc["x"][0]),
        forward_states=_ro(enc["f"][0]),
        backward_states=_ro(enc["bw"][0]),
        annotations=_ro(enc["ann"][0]),
        summary=_ro(enc["summary"][0]),
        initial_state=_ro(enc["s0"][0]),
        inputs=tuple([START, *[tv[j] for j in chosen_ids[:-1]]]),
        input_embeddings=_ro([st["y"][0] for st in steps]),
        previous_states=_ro([st["s_prev"][0] for st in steps]),
        scores=_ro([st["scores"][0] for st in steps]) if att else None,
        attention=_ro([st["alpha"][0] for st in steps]) if att else None,
        contexts=_ro([st["context"][0] for st in steps]),
        states=_ro([st["state"][0] for st in steps]),
        outputs=_ro([st["o"][0] for st in steps]),
        logits=_ro([st["logits"][0] for st in steps]),
        probabilities=_ro([st["probs"][0] for st in steps]),
        chosen_ids=chosen_ids,
        chosen=tuple(tv[j] for j in chosen_ids),
        reference=ref.target if ref else None,
        reference_alignment=ref.alignment if ref else None,
        held_out=_json_safe(w.evaluation) if settings.weights == "trained" else None,
    )


@dataclass(frozen=True)
class ModelOutputMapping:
    """Step ``step`` (1-based) of a translator's decode, the output mapping
    spelled out: ``o_t = W_o [s_t ; c_t] + b_o``, then for every target word
    ``o_t . e_w`` (the terms in ``products``) plus the word's bias gives the
    logit, and softmax the probability."""

    step: int
    state: np.ndarray  # s_t, H
    context: np.ndarray  # c_t, H
    output: np.ndarray  # o_t, E
    vocabulary: tuple[str, ...]
    embeddings: np.ndarray  # V x E
    products: np.ndarray  # V x E: o_t[i] * e_w[i]
    dot_products: np.ndarray  # V: o_t . e_w
    bias: np.ndarray  # V
    scores: np.ndarray  # V: dot product + bias, the logits
    probabilities: np.ndarray  # V
    ranked: tuple[int, ...]  # word indices, most probable first
    chosen_id: int
    chosen_word: str
    chosen_probability: float
    chosen_percent: float

    def to_dict(self) -> dict[str, Any]:
        return record_to_dict(self)


def model_output_mapping(m: ModelTrace, step: int) -> ModelOutputMapping:
    """The output mapping of decode step ``step`` (1-based) of ``m``."""
    t = step - 1
    o = m.outputs[t]
    emb = m.target_embedding_matrix
    products = emb * o[None, :]
    dots = products.sum(axis=1)
    probs = m.probabilities[t]
    chosen = m.chosen_ids[t]
    return ModelOutputMapping(
        step=step,
        state=m.states[t],
        context=m.contexts[t],
        output=o,
        vocabulary=m.target_vocabulary,
        embeddings=emb,
        products=_ro(products),
        dot_products=_ro(dots),
        bias=m.output_bias,
        scores=m.logits[t],
        probabilities=probs,
        # Stable sort so equal probabilities keep vocabulary order.
        ranked=tuple(int(i) for i in np.argsort(-probs, kind="stable")),
        chosen_id=chosen,
        chosen_word=m.chosen[t],
        chosen_probability=float(probs[chosen]),
        chosen_percent=float(100.0 * probs[chosen]),
    )


@dataclass(frozen=True)
class LengthCurves:
    """Accuracy by source length, with and without attention (measured by
    ``scripts/length_experiment.py``, shipped as ``length_curves.json``)."""

    data: dict[str, Any]

    @property
    def lengths(self) -> list[int]:
        return list(self.data["lengths"])

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.data))


@lru_cache(maxsize=1)
def _curves_text() -> str | None:
    try:
        return resources.files(__package__).joinpath(LENGTH_CURVES).read_text("utf-8")
    except FileNotFoundError:
        return None


def load_length_curves() -> LengthCurves | None:
    text = _curves_text()
    return LengthCurves(json.loads(text)) if text is not None else None
