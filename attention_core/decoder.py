"""The plain (no-attention) decoder and the mapping of its state to a word.

Draft 000, "4. Decoder stack of NNs" and "5. Mapping of hidden state -> output
word": the decoder starts from ``s_0 = 0`` and ``op_0`` = the embedding of
``<START>``; at each step

    s_t = tanh(W_o op_{t-1} + W_s s_{t-1} + W_c h_T + b)

and ``s_t`` is compared (dot product) with every target-word embedding; the
softmax of those scores is a probability per word, and the most probable
word is ``op_t``, whose embedding feeds the next step (greedy decoding).

The numbers file may give any of ``W_o``, ``W_s``, ``W_c``, ``b`` in a
``[decoder]`` table; the others are seeded. Nothing here knows whether the
weights are trained: drop trained ones in and the same code decodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import maths
from .numbers_parsing import as_int, as_matrix, as_table, as_vector, check_keys
from .params import seeded_normal
from .records import record_to_dict
from .text import END, START, Vocabulary

__all__ = [
    "DecoderWeights",
    "DecoderTrace",
    "OutputMappingTrace",
    "DEFAULT_OUTPUT_STEP",
    "parse_decoder_table",
    "parse_output_mapping_table",
    "decoder_weights",
    "decoder_step",
    "output_distribution",
    "greedy_decode",
    "output_mapping",
]

DEFAULT_OUTPUT_STEP = 2  # the draft shows the mapping s_2 -> op_2
_WEIGHT_NAMES = ("W_o", "W_s", "W_c", "b")


def _frozen(array: Any) -> np.ndarray:
    out = np.array(array, dtype=float)
    out.flags.writeable = False
    return out


# --------------------------------------------------------------------------
# The numbers file: [decoder] and [output_mapping]
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class DecoderWeights:
    """Explicit decoder weights; ``None`` where the seeded ones are used."""

    W_o: np.ndarray | None = None
    W_s: np.ndarray | None = None
    W_c: np.ndarray | None = None
    b: np.ndarray | None = None


def parse_decoder_table(value: Any, hidden: int) -> DecoderWeights:
    """Validate ``[decoder]``: every matrix is ``hidden x hidden``.

    ``op_{t-1}`` is a target embedding (hidden size, so that the output
    mapping can take its dot product with ``s_t``), ``s_{t-1}`` and ``h_T``
    are states: all three have the hidden size.
    """
    table = as_table(value, "decoder")
    check_keys(table, set(_WEIGHT_NAMES), "decoder")
    H = hidden
    return DecoderWeights(
        W_o=as_matrix(table["W_o"], "decoder.W_o", H, H) if "W_o" in table else None,
        W_s=as_matrix(table["W_s"], "decoder.W_s", H, H) if "W_s" in table else None,
        W_c=as_matrix(table["W_c"], "decoder.W_c", H, H) if "W_c" in table else None,
        b=as_vector(table["b"], "decoder.b", H) if "b" in table else None,
    )


def parse_output_mapping_table(value: Any, max_steps: int) -> int | None:
    """Validate ``[output_mapping]``; ``None`` when no step is given.

    The step is checked here against the most steps a decode can take
    (target words + 1) and again, once decoded, against the steps taken.
    """
    table = as_table(value, "output_mapping")
    check_keys(table, {"step"}, "output_mapping")
    if "step" not in table:
        return None
    return as_int(table["step"], "output_mapping.step", 1, max_steps)


def decoder_weights(seed: int, hidden: int, given: DecoderWeights) -> dict[str, np.ndarray]:
    """The weights used: the given ones, seeded ones for the rest.

    Each matrix sees three inputs summed, so the seeded scale is
    ``1/sqrt(3 H)``: tanh then stays away from saturation and the states
    stay varied enough to be worth showing.
    """
    H = hidden
    scale = (3 * H) ** -0.5
    shapes = {"W_o": (H, H), "W_s": (H, H), "W_c": (H, H), "b": (H,)}
    out = {}
    for name in _WEIGHT_NAMES:
        explicit = getattr(given, name)
        if explicit is not None:
            out[name] = _frozen(explicit)
        else:
            out[name] = _frozen(seeded_normal(seed, f"decoder.{name}", shapes[name],
                                              0.1 if name == "b" else scale))
    return out


# --------------------------------------------------------------------------
# The maths
# --------------------------------------------------------------------------


def decoder_step(
    op_prev: np.ndarray,
    s_prev: np.ndarray,
    context: np.ndarray,
    W_o: np.ndarray,
    W_s: np.ndarray,
    W_c: np.ndarray,
    b: np.ndarray,
) -> np.ndarray:
    """One plain decoder step: ``s_t = tanh(W_o op_{t-1} + W_s s_{t-1} + W_c h_T + b)``."""
    return np.tanh(W_o @ op_prev + W_s @ s_prev + W_c @ context + b)


def output_distribution(
    state: np.ndarray, target_embeddings: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Scores and probabilities of every target word for the state ``s_t``.

    Parameters
    ----------
    state
        ``s_t``, shape ``(H,)``.
    target_embeddings
        One row per target word, ``V x H``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(logits, probabilities)``, both ``(V,)``: the dot product of
        ``s_t`` with each word's embedding, and their softmax.
    """
    logits = maths.dot_scores(state, target_embeddings)
    return logits, maths.softmax(logits)


@dataclass(frozen=True)
class DecoderTrace:
    """The plain decoder run greedily from ``<START>``.

    ``steps`` is the number of decode steps taken (at most the target's
    length + 1; fewer when ``<END>`` is chosen earlier).
    """

    steps: int
    max_steps: int
    context: np.ndarray  # h_T, H
    input_words: tuple[str, ...]  # op_0 ... op_{n-1}
    input_ids: tuple[int, ...]
    input_embeddings: np.ndarray  # n x H: the embeddings of op_0 ... op_{n-1}
    states: np.ndarray  # (n+1) x H: s_0 = 0, s_1 ... s_n
    logits: np.ndarray  # n x V: row t-1 holds the scores of step t
    probabilities: np.ndarray  # n x V
    chosen_words: tuple[str, ...]  # op_1 ... op_n
    chosen_ids: tuple[int, ...]
    chosen_probabilities: np.ndarray  # n
    chosen_percents: np.ndarray  # n, the same as percentages
    ended: bool  # True when <END> was chosen
    seeded: tuple[str, ...]  # names of the weights that are seeded (untrained)
    weights: Mapping[str, np.ndarray]

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "max_steps": self.max_steps,
            "context": self.context.tolist(),
            "input_words": list(self.input_words),
            "input_ids": list(self.input_ids),
            "input_embeddings": self.input_embeddings.tolist(),
            "states": self.states.tolist(),
            "logits": self.logits.tolist(),
            "probabilities": self.probabilities.tolist(),
            "chosen_words": list(self.chosen_words),
            "chosen_ids": list(self.chosen_ids),
            "chosen_probabilities": self.chosen_probabilities.tolist(),
            "chosen_percents": self.chosen_percents.tolist(),
            "ended": self.ended,
            "seeded_weights": list(self.seeded),
            "weights": {k: v.tolist() for k, v in self.weights.items()},
        }


def greedy_decode(
    context: np.ndarray,
    target_vocab: Vocabulary,
    target_embeddings: np.ndarray,
    weights: Mapping[str, np.ndarray],
    max_steps: int,
    seeded: tuple[str, ...] = (),
) -> DecoderTrace:
    """Decode greedily: each step's most probable word is the next input.

    Runs ``max_steps`` steps, or stops after the step that chooses ``<END>``.
    """
    H = target_embeddings.shape[1]
    W_o, W_s, W_c, b = (weights[n] for n in _WEIGHT_NAMES)
    word, s = START, np.zeros(H)
    states, inputs, input_ids, logits, probs, chosen, chosen_ids = [s], [], [], [], [], [], []
    for _ in range(max_steps):
        idx = target_vocab.index(word)
        op_prev = target_embeddings[idx]
        s = decoder_step(op_prev, s, context, W_o, W_s, W_c, b)
        z, p = output_distribution(s, target_embeddings)
        best = int(np.argmax(p))
        inputs.append(op_prev)
        input_ids.append(idx)
        states.append(s)
        logits.append(z)
        probs.append(p)
        chosen_ids.append(best)
        chosen.append(target_vocab.words[best])
        word = target_vocab.words[best]
        if word == END:
            break
    inputs_words = (START, *chosen[:-1])
    n = len(chosen)
    chosen_p = np.array([probs[t][chosen_ids[t]] for t in range(n)])
    return DecoderTrace(
        steps=n,
        max_steps=max_steps,
        context=_frozen(context),
        input_words=tuple(inputs_words),
        input_ids=tuple(input_ids),
        input_embeddings=_frozen(inputs),
        states=_frozen(states),
        logits=_frozen(logits),
        probabilities=_frozen(probs),
        chosen_words=tuple(chosen),
        chosen_ids=tuple(chosen_ids),
        chosen_probabilities=_frozen(chosen_p),
        chosen_percents=_frozen(100.0 * chosen_p),
        ended=chosen[-1] == END,
        seeded=seeded,
        weights=dict(weights),
    )


@dataclass(frozen=True)
class OutputMappingTrace:
    """One step's mapping ``s_t -> op_t``, laid out for the output_mapping scene."""

    step: int
    state: np.ndarray  # s_t
    vocabulary: tuple[str, ...]
    embeddings: np.ndarray  # V x H
    products: np.ndarray  # V x H: s_t[i] * e_w[i], the terms of each dot product
    scores: np.ndarray  # V: s_t . e_w
    probabilities: np.ndarray  # V: softmax(scores)
    probability_sum: float
    ranked: tuple[int, ...]  # word indices, most probable first
    chosen_id: int
    chosen_word: str
    chosen_probability: float
    chosen_percent: float

    def to_dict(self) -> dict[str, Any]:
        return record_to_dict(self)


def output_mapping(
    decoded: DecoderTrace, step: int, target_vocab: Vocabulary, target_embeddings: np.ndarray
) -> OutputMappingTrace:
    """The mapping of decode step ``step`` (1-based), every term spelled out."""
    state = decoded.states[step]
    scores, probs = output_distribution(state, target_embeddings)
    chosen = int(np.argmax(probs))
    # Stable sort so equal probabilities keep vocabulary order.
    ranked = tuple(int(i) for i in np.argsort(-probs, kind="stable"))
    return OutputMappingTrace(
        step=step,
        state=_frozen(state),
        vocabulary=target_vocab.words,
        embeddings=_frozen(target_embeddings),
        products=_frozen(target_embeddings * state[None, :]),
        scores=_frozen(scores),
        probabilities=_frozen(probs),
        probability_sum=float(np.sum(probs)),
        ranked=ranked,
        chosen_id=chosen,
        chosen_word=target_vocab.words[chosen],
        chosen_probability=float(probs[chosen]),
        chosen_percent=float(100.0 * probs[chosen]),
    )
