"""Attention over the encoder states, and the decoder that uses it.

Draft 000, Part 1, "Building towards Attention": at every decoder step t a
score function f_att compares the previous decoder state s_{t-1} with each
encoder state h_i, a softmax turns the scores into weights a_{t,i}, and the
context c_t = sum_i a_{t,i} h_i feeds the decoder together with s_{t-1} and
the previous output word's embedding op_{t-1}.

Three score functions are offered:

- ``additive`` (Bahdanau): ``e_{t,i} = v_a^T tanh(W_a s_{t-1} + U_a h_i)``;
- ``dot``: ``e_{t,i} = s_{t-1} . h_i``;
- ``scaled_dot``: the dot score divided by ``sqrt(d)``.

Nothing here assumes the weights are seeded: trained weights (given in the
numbers file, or produced by a training run) go through exactly the same
functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import maths
from .decoder import output_distribution  # the same mapping as the plain decoder's
from .numbers_parsing import SIZE_RANGE, NumbersError, as_int, as_matrix, as_str, as_table, as_vector, check_keys
from .params import seeded_normal

__all__ = [
    "SCORE_KINDS",
    "AttentionSpec",
    "AttentionParams",
    "AttentionDecode",
    "additive_scores",
    "attention_scores",
    "attention_weights",
    "attention_decoder_step",
    "output_distribution",
    "attention_parameters",
    "attention_decode",
    "parse_attention",
]

SCORE_KINDS = ("additive", "dot", "scaled_dot")
_ADDITIVE_ONLY = ("size", "W_a", "U_a", "v_a")
_KEYS = {"score", "size", "W_a", "U_a", "v_a", "W_o", "W_s", "W_c", "b"}


# --------------------------------------------------------------------------
# The maths
# --------------------------------------------------------------------------


def additive_scores(
    query: np.ndarray, keys: np.ndarray, W_a: np.ndarray, U_a: np.ndarray, v_a: np.ndarray
) -> np.ndarray:
    """Bahdanau scores of one query against every key at once.

    ``e_i = v_a^T tanh(W_a q + U_a k_i)``, the vectorised form of
    :func:`attention_core.maths.additive_score`.

    Parameters
    ----------
    query
        ``s_{t-1}``, shape ``(H,)``.
    keys
        ``h_1 ... h_T`` as rows, shape ``(T, H)``.
    W_a, U_a
        ``(A, H)`` each; ``A`` is the size of the small scoring network.
    v_a
        ``(A,)``.

    Returns
    -------
    numpy.ndarray
        ``(T,)`` scores.
    """
    keys = np.asarray(keys, dtype=float)
    hidden = np.tanh(np.asarray(W_a) @ np.asarray(query, dtype=float) + keys @ np.asarray(U_a).T)
    return hidden @ np.asarray(v_a, dtype=float)


def attention_scores(kind: str, query: np.ndarray, keys: np.ndarray,
                     params: AttentionParams | None = None) -> np.ndarray:
    """Scores ``e_{t,i}`` of ``query`` against each row of ``keys``.

    ``params`` is needed only for ``kind == "additive"``.
    """
    if kind == "additive":
        if params is None or params.W_a is None:
            raise ValueError("additive scores need W_a, U_a and v_a")
        return additive_scores(query, keys, params.W_a, params.U_a, params.v_a)
    if kind == "dot":
        return maths.dot_scores(query, keys)
    if kind == "scaled_dot":
        return maths.scaled_dot_scores(query, keys)
    raise ValueError(f"unknown score kind {kind!r} (known: {', '.join(SCORE_KINDS)})")


def attention_weights(scores: np.ndarray) -> np.ndarray:
    """Softmax over the inputs: ``a_{t,i} = exp(e_{t,i}) / sum_j exp(e_{t,j})``."""
    return maths.softmax(scores, axis=-1)


def attention_decoder_step(
    op_prev: np.ndarray, s_prev: np.ndarray, context: np.ndarray,
    W_o: np.ndarray, W_s: np.ndarray, W_c: np.ndarray, b: np.ndarray,
) -> np.ndarray:
    """One attention-decoder step: ``s_t = tanh(W_o op_{t-1} + W_s s_{t-1} + W_c c_t + b)``."""
    return np.tanh(W_o @ op_prev + W_s @ s_prev + W_c @ context + b)


# --------------------------------------------------------------------------
# Parameters: from the numbers file, or seeded
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AttentionSpec:
    """The ``[attention]`` table, validated; ``None`` where seeded values are used."""

    score: str = "additive"
    size: int | None = None
    W_a: np.ndarray | None = None
    U_a: np.ndarray | None = None
    v_a: np.ndarray | None = None
    W_o: np.ndarray | None = None
    W_s: np.ndarray | None = None
    W_c: np.ndarray | None = None
    b: np.ndarray | None = None


@dataclass(frozen=True)
class AttentionParams:
    """Every weight the attention decoder uses (``W_a, U_a, v_a`` only for additive)."""

    score: str
    W_o: np.ndarray  # H x H, applied to op_{t-1}
    W_s: np.ndarray  # H x H, applied to s_{t-1}
    W_c: np.ndarray  # H x H, applied to c_t
    b: np.ndarray  # H
    W_a: np.ndarray | None = None  # A x H
    U_a: np.ndarray | None = None  # A x H
    v_a: np.ndarray | None = None  # A
    seeded: tuple[str, ...] = ()  # names of the weights drawn from the seed

    @property
    def size(self) -> int | None:
        """``A``, the width of the additive scoring network (None otherwise)."""
        return None if self.v_a is None else int(self.v_a.shape[0])

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": self.score}
        if self.score == "additive":
            out.update(size=self.size, W_a=self.W_a.tolist(), U_a=self.U_a.tolist(),
                       v_a=self.v_a.tolist())
        out.update(W_o=self.W_o.tolist(), W_s=self.W_s.tolist(), W_c=self.W_c.tolist(),
                   b=self.b.tolist(), seeded=list(self.seeded))
        return out


def _readonly(a: np.ndarray) -> np.ndarray:
    out = np.array(a, dtype=float)
    out.flags.writeable = False
    return out


def attention_parameters(spec: AttentionSpec, seed: int, hidden: int) -> AttentionParams:
    """Given weights where the numbers file has them, seeded ones elsewhere.

    Scales of ``1/sqrt(fan-in)`` keep ``tanh`` away from saturation.
    """
    H = hidden
    seeded: list[str] = []

    def pick(name: str, given: np.ndarray | None, shape: tuple[int, ...], scale: float) -> np.ndarray:
        if given is not None:
            return _readonly(given)
        seeded.append(name)
        return _readonly(seeded_normal(seed, f"attention.{name}", shape, scale))

    W_a = U_a = v_a = None
    if spec.score == "additive":
        A = spec.size or H
        W_a = pick("W_a", spec.W_a, (A, H), H**-0.5)
        U_a = pick("U_a", spec.U_a, (A, H), H**-0.5)
        v_a = pick("v_a", spec.v_a, (A,), A**-0.5)
    # Three inputs feed the decoder, so the fan-in is 3H.
    W_o = pick("W_o", spec.W_o, (H, H), (3 * H) ** -0.5)
    W_s = pick("W_s", spec.W_s, (H, H), (3 * H) ** -0.5)
    W_c = pick("W_c", spec.W_c, (H, H), (3 * H) ** -0.5)
    b = pick("b", spec.b, (H,), 0.1)
    return AttentionParams(score=spec.score, W_o=W_o, W_s=W_s, W_c=W_c, b=b,
                           W_a=W_a, U_a=U_a, v_a=v_a, seeded=tuple(seeded))


# --------------------------------------------------------------------------
# The full decode
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AttentionDecode:
    """Every value of a greedy attention decode, step by step.

    Step ``t`` (1-based in the maths, row ``t - 1`` here) compares
    ``s_{t-1}`` with ``h_1 ... h_T``. ``states`` has one more row than the
    others: row 0 is ``s_0``.
    """

    params: AttentionParams
    source_tokens: tuple[str, ...]
    keys: np.ndarray  # T x H: h_1 ... h_T
    output_vocabulary: tuple[str, ...]  # the words the decoder can emit
    inputs: tuple[str, ...]  # op_0 ... op_{n-1}
    input_embeddings: np.ndarray  # n x H
    scores: np.ndarray  # n x T
    weights: np.ndarray  # n x T
    contexts: np.ndarray  # n x H
    states: np.ndarray  # (n+1) x H
    logits: np.ndarray  # n x V
    probabilities: np.ndarray  # n x V
    chosen: tuple[str, ...]  # op_1 ... op_n
    chosen_ids: tuple[int, ...]  # indices into output_vocabulary
    untrained: bool = True

    @property
    def steps(self) -> int:
        return len(self.chosen)

    @property
    def chosen_probabilities(self) -> np.ndarray:
        return np.array([self.probabilities[t, i] for t, i in enumerate(self.chosen_ids)])

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.params.score,
            "untrained": self.untrained,
            "steps": self.steps,
            "source_tokens": list(self.source_tokens),
            "keys": self.keys.tolist(),
            "output_vocabulary": list(self.output_vocabulary),
            "inputs": list(self.inputs),
            "input_embeddings": self.input_embeddings.tolist(),
            "scores": self.scores.tolist(),
            "weights": self.weights.tolist(),
            "contexts": self.contexts.tolist(),
            "states": self.states.tolist(),
            "logits": self.logits.tolist(),
            "probabilities": self.probabilities.tolist(),
            "chosen": list(self.chosen),
            "chosen_ids": list(self.chosen_ids),
            "chosen_probabilities": self.chosen_probabilities.tolist(),
            "parameters": self.params.to_dict(),
        }


def attention_decode(
    keys: np.ndarray,
    params: AttentionParams,
    target_words: tuple[str, ...],
    target_embeddings: np.ndarray,
    start: str,
    end: str,
    max_steps: int,
    source_tokens: tuple[str, ...] = (),
    untrained: bool = True,
) -> AttentionDecode:
    """Greedy decoding with attention, keeping every intermediate value.

    Parameters
    ----------
    keys
        The encoder states ``h_1 ... h_T`` (``T x H``), without ``h_0``.
    params
        Score kind and weights.
    target_words, target_embeddings
        The target vocabulary and its ``V x H`` embedding table; it must hold
        ``start`` and ``end``.
    start, end
        ``op_0`` is ``start``'s embedding; decoding stops after ``end`` is chosen.
    max_steps
        Upper bound on the number of steps.

    Notes
    -----
    ``s_0`` is zeros. The decoder never emits ``start``, so it is left out of
    the output vocabulary; each step picks the most probable word (greedy).
    """
    keys = np.asarray(keys, dtype=float)
    table = np.asarray(target_embeddings, dtype=float)
    H = keys.shape[1]
    out_rows = [i for i, w in enumerate(target_words) if w != start]
    out_words = tuple(target_words[i] for i in out_rows)
    out_table = table[out_rows]

    s = np.zeros(H)
    op_word = start
    rows: dict[str, list] = {k: [] for k in
                             ("inputs", "emb", "scores", "weights", "contexts", "logits", "probs", "ids")}
    states = [s]
    for _ in range(max_steps):
        op = table[target_words.index(op_word)]
        e = attention_scores(params.score, s, keys, params)
        a = attention_weights(e)
        c = maths.context_vector(a, keys)
        s = attention_decoder_step(op, s, c, params.W_o, params.W_s, params.W_c, params.b)
        logits, probs = output_distribution(s, out_table)
        k = int(np.argmax(probs))
        for name, value in (("inputs", op_word), ("emb", op), ("scores", e), ("weights", a),
                            ("contexts", c), ("logits", logits), ("probs", probs), ("ids", k)):
            rows[name].append(value)
        states.append(s)
        op_word = out_words[k]
        if op_word == end:
            break
    return AttentionDecode(
        params=params,
        source_tokens=tuple(source_tokens),
        keys=_readonly(keys),
        output_vocabulary=out_words,
        inputs=tuple(rows["inputs"]),
        input_embeddings=_readonly(np.array(rows["emb"])),
        scores=_readonly(np.array(rows["scores"])),
        weights=_readonly(np.array(rows["weights"])),
        contexts=_readonly(np.array(rows["contexts"])),
        states=_readonly(np.array(states)),
        logits=_readonly(np.array(rows["logits"])),
        probabilities=_readonly(np.array(rows["probs"])),
        chosen=tuple(out_words[k] for k in rows["ids"]),
        chosen_ids=tuple(rows["ids"]),
        untrained=untrained,
    )


# --------------------------------------------------------------------------
# The [attention] table of the numbers file
# --------------------------------------------------------------------------


def parse_attention(value: Any, hidden: int) -> AttentionSpec:
    """Validate ``[attention]``; every key is optional.

    ``size`` (A, 2 to 8) defaults to the hidden size; ``W_a`` and ``U_a`` are
    ``A x hidden``, ``v_a`` has ``A`` numbers; ``W_o``, ``W_s``, ``W_c`` are
    ``hidden x hidden`` and ``b`` has ``hidden`` numbers. ``size``, ``W_a``,
    ``U_a`` and ``v_a`` belong to the additive score only.

    Raises
    ------
    NumbersError
        Naming the key and what was expected.
    """
    table: Mapping[str, Any] = as_table(value, "attention")
    check_keys(table, _KEYS, "attention")
    score = as_str(table.get("score", "additive"), "attention.score")
    if score not in SCORE_KINDS:
        raise NumbersError(
            f"attention.score: expected one of {', '.join(repr(k) for k in SCORE_KINDS)}, got {score!r}"
        )
    if score != "additive":
        for key in _ADDITIVE_ONLY:
            if key in table:
                raise NumbersError(
                    f"attention.{key}: only used with score = \"additive\" (score is {score!r})"
                )
    lo, hi = SIZE_RANGE
    size = as_int(table["size"], "attention.size", lo, hi) if "size" in table else None
    A, H = size or hidden, hidden

    def mat(key: str, rows: int, cols: int) -> np.ndarray | None:
        return as_matrix(table[key], f"attention.{key}", rows, cols) if key in table else None

    def vec(key: str, n: int) -> np.ndarray | None:
        return as_vector(table[key], f"attention.{key}", n) if key in table else None

    return AttentionSpec(
        score=score, size=size,
        W_a=mat("W_a", A, H), U_a=mat("U_a", A, H), v_a=vec("v_a", A),
        W_o=mat("W_o", H, H), W_s=mat("W_s", H, H), W_c=mat("W_c", H, H), b=vec("b", H),
    )
