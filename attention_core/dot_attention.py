"""Dot-product attention without a learned scoring network (draft 000, Part 2).

Three computations, each with the values its scene shows:

- one query over the input features ("Abstraction 2"):
  ``E = s X^T``, ``A = softmax(E)``, ``o = A X``;
- a matrix of queries ("Abstraction 3"): ``E = Q X^T``, softmax along each
  row, ``O = A X``;
- the worked example of draft 002, in its own orientation:
  ``s = X q^T`` (inputs x queries), ``alpha`` = softmax of each *column* of
  ``s`` (over the inputs), ``C = alpha^T X``.

The numbers come from the ``[dot_product_attention]``,
``[multi_query_attention]`` and ``[worked_example]`` tables of the numbers
file; values not given there are seeded (``params.seeded_normal``), except
the worked example, whose default is the X and q printed in draft 002 (they
are inputs; its printed results are not used anywhere).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import maths
from .numbers_parsing import NumbersError, as_matrix, as_table, as_vector, check_keys
from .params import seeded_normal

__all__ = [
    "DRAFT_INPUT_WORDS",
    "DRAFT_QUERY_WORDS",
    "INPUTS_RANGE",
    "QUERIES_RANGE",
    "FEATURES_RANGE",
    "WORKED_EXAMPLE_INPUTS",
    "WORKED_EXAMPLE_QUERIES",
    "DRAFT_PRINTED_SCORES",
    "DRAFT_PRINTED_WEIGHTS",
    "DRAFT_PRINTED_CONTEXT",
    "DotAttentionNumbers",
    "DotProductAttentionTrace",
    "MultiQueryAttentionTrace",
    "WorkedExampleTrace",
    "parse_dot_attention",
    "single_query_attention",
    "multi_query_attention",
    "worked_example",
]

INPUTS_RANGE = (2, 10)
QUERIES_RANGE = (1, 6)
FEATURES_RANGE = (2, 6)

# Draft 000's example sizes: 4 input features of 3 dimensions, 2 queries.
DEFAULT_INPUTS = 4
DEFAULT_FEATURES = 3
DEFAULT_QUERIES = 2
# Seeded values of this scale give dot products of about +-1, so the
# softmax visibly prefers some inputs without saturating.
SEED_SCALE = 0.8

# Draft 002's inputs (the 5 French words as 3-d vectors) and its 4 queries.
WORKED_EXAMPLE_INPUTS = (
    (-0.2, 0.3, 0.5),
    (0.1, -0.4, 0.2),
    (0.4, -0.1, 0.6),
    (0.2, 0.5, -0.1),
    (0.3, -0.2, 0.4),
)
WORKED_EXAMPLE_QUERIES = (
    (0.1, 0.2, -0.3),
    (-0.4, 0.3, 0.2),
    (0.5, 0.1, -0.2),
    (-0.2, 0.4, 0.3),
)

# What draft 002 *prints* as its results (s and alpha), kept only to check
# them: the scene says on screen how they differ from what X and q give.
# Draft 002's sentence pair: the rows of its X and q are these words' vectors
# (the scene and the post's tables name rows and columns by them).
DRAFT_INPUT_WORDS = ("le", "chat", "mange", "du", "poisson")
DRAFT_QUERY_WORDS = ("the", "cat", "eats", "fish")

DRAFT_PRINTED_SCORES = (
    (0.11, 0.24, -0.26, 0.02),
    (-0.09, 0.22, 0.14, 0.16),
    (0.01, -0.34, 0.34, -0.26),
    (-0.01, 0.37, -0.12, 0.18),
    (0.07, 0.08, 0.22, -0.14),
)
DRAFT_PRINTED_WEIGHTS = (
    (0.3218, 0.2411, 0.1202, 0.3057),
    (0.2586, 0.2142, 0.2679, 0.3319),
    (0.2857, 0.1693, 0.3423, 0.1809),
    (0.2784, 0.2414, 0.1356, 0.3422),
    (0.3055, 0.1340, 0.1340, 0.2193),
)

# The draft's printed C (draft 002, "The resulting matrix C"): neither A^T X for
# the alpha that X and q give, nor alpha^T X for the alpha the draft prints.
DRAFT_PRINTED_CONTEXT = (
    (0.1866, -0.0502, 0.4296),
    (0.0815, 0.0269, 0.2632),
    (0.1333, 0.0125, 0.3869),
    (0.1621, 0.0738, 0.1943),
)
#: Decimals the draft prints its s, alpha and C with.
DRAFT_DECIMALS = {"scores": 2, "weights": 4, "context": 4}


def _frozen(array: Any) -> np.ndarray:
    out = np.array(array, dtype=float)
    out.flags.writeable = False
    return out


# --------------------------------------------------------------------------
# The numbers file
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class DotAttentionNumbers:
    """The validated inputs of the three computations (seeded where not given)."""

    inputs: np.ndarray  # N_X x D: the input features of Abstraction 2
    query: np.ndarray  # D: the query s_2
    mq_inputs: np.ndarray  # N_X x D: inputs of Abstraction 3
    mq_queries: np.ndarray  # N_Q x D
    we_inputs: np.ndarray  # N x D: X of draft 002
    we_queries: np.ndarray  # M x D: q of draft 002


def _check_shape(mat: np.ndarray, where: str, rows: tuple[int, int], what: str) -> None:
    lo, hi = rows
    if not lo <= mat.shape[0] <= hi:
        raise NumbersError(f"{where}: expected {lo} to {hi} {what}, got {mat.shape[0]}")
    flo, fhi = FEATURES_RANGE
    if not flo <= mat.shape[1] <= fhi:
        raise NumbersError(f"{where}: expected {flo} to {fhi} features per row, got {mat.shape[1]}")


def _matrix(table: Mapping[str, Any], key: str, where: str, rows: tuple[int, int], what: str,
            cols: int | None = None) -> np.ndarray | None:
    if key not in table:
        return None
    mat = as_matrix(table[key], f"{where}.{key}")
    _check_shape(mat, f"{where}.{key}", rows, what)
    if cols is not None and mat.shape[1] != cols:
        raise NumbersError(
            f"{where}.{key}: expected {cols} features per row (as many as the inputs), "
            f"got {mat.shape[1]}"
        )
    return mat


def parse_dot_attention(data: Mapping[str, Any], seed: int) -> DotAttentionNumbers:
    """Validate the three tables of ``data`` (a parsed TOML document).

    Raises
    ------
    NumbersError
        Naming the key: unknown keys, wrong shapes (2-10 inputs, 1-6
        queries, 2-6 features, matching feature counts), non-finite numbers.
    """
    where = "dot_product_attention"
    dpa = as_table(data.get(where, {}), where)
    check_keys(dpa, {"inputs", "query"}, where)
    inputs = _matrix(dpa, "inputs", where, INPUTS_RANGE, "input rows")
    query = None
    if "query" in dpa:
        query = as_vector(dpa["query"], f"{where}.query")
        flo, fhi = FEATURES_RANGE
        if inputs is not None and query.shape[0] != inputs.shape[1]:
            raise NumbersError(
                f"{where}.query: expected {inputs.shape[1]} numbers (one per input feature), "
                f"got {query.shape[0]}"
            )
        if not flo <= query.shape[0] <= fhi:
            raise NumbersError(f"{where}.query: expected {flo} to {fhi} numbers, got {query.shape[0]}")
    features = (inputs.shape[1] if inputs is not None
                else query.shape[0] if query is not None else DEFAULT_FEATURES)
    if inputs is None:
        inputs = seeded_normal(seed, f"{where}.inputs", (DEFAULT_INPUTS, features), SEED_SCALE)
    if query is None:
        query = seeded_normal(seed, f"{where}.query", (features,), SEED_SCALE)

    where = "multi_query_attention"
    mqa = as_table(data.get(where, {}), where)
    check_keys(mqa, {"inputs", "queries"}, where)
    mq_inputs = _matrix(mqa, "inputs", where, INPUTS_RANGE, "input rows")
    if mq_inputs is None:
        mq_inputs = inputs
    mq_queries = _matrix(mqa, "queries", where, QUERIES_RANGE, "query rows", mq_inputs.shape[1])
    if mq_queries is None:
        mq_queries = seeded_normal(seed, f"{where}.queries",
                                   (DEFAULT_QUERIES, mq_inputs.shape[1]), SEED_SCALE)

    where = "worked_example"
    we = as_table(data.get(where, {}), where)
    check_keys(we, {"inputs", "queries"}, where)
    we_inputs = _matrix(we, "inputs", where, INPUTS_RANGE, "input rows")
    if we_inputs is None:
        we_inputs = np.array(WORKED_EXAMPLE_INPUTS)
    default_queries = np.array(WORKED_EXAMPLE_QUERIES)
    we_queries = _matrix(we, "queries", where, QUERIES_RANGE, "query rows", we_inputs.shape[1])
    if we_queries is None:
        if we_inputs.shape[1] != default_queries.shape[1]:
            raise NumbersError(
                f"{where}.queries: missing; the default queries have {default_queries.shape[1]} "
                f"features but {where}.inputs has {we_inputs.shape[1]}"
            )
        we_queries = default_queries

    return DotAttentionNumbers(
        inputs=_frozen(inputs), query=_frozen(query),
        mq_inputs=_frozen(mq_inputs), mq_queries=_frozen(mq_queries),
        we_inputs=_frozen(we_inputs), we_queries=_frozen(we_queries),
    )


# --------------------------------------------------------------------------
# The computations
# --------------------------------------------------------------------------


def _tolist(a: np.ndarray) -> Any:
    return np.asarray(a).tolist()


@dataclass(frozen=True)
class DotProductAttentionTrace:
    """One query ``s`` over the inputs ``X`` (rows are input features)."""

    inputs: np.ndarray  # N x D: X, row i is h_i
    query: np.ndarray  # D: s_2
    terms: np.ndarray  # N x D: s_k * h_ik, the products summed into e_i
    partial_sums: np.ndarray  # N x D: running sums of terms; last column is E
    scores: np.ndarray  # N: E = s X^T
    weights: np.ndarray  # N: A = softmax(E)
    weighted_inputs: np.ndarray  # N x D: a_i * h_ik, summed down a column into o_k
    output: np.ndarray  # D: o = A X

    def to_dict(self) -> dict[str, Any]:
        return {name: _tolist(getattr(self, name)) for name in (
            "inputs", "query", "terms", "partial_sums", "scores", "weights",
            "weighted_inputs", "output")}


@dataclass(frozen=True)
class MultiQueryAttentionTrace:
    """Several queries at once: ``E = Q X^T``, row softmax, ``O = A X``."""

    inputs: np.ndarray  # N x D
    queries: np.ndarray  # N_Q x D
    scores: np.ndarray  # N_Q x N
    weights: np.ndarray  # N_Q x N, each row sums to 1
    weighted_inputs: np.ndarray  # N_Q x N x D: a_ji * h_ik, summed over i into O_jk
    outputs: np.ndarray  # N_Q x D

    def to_dict(self) -> dict[str, Any]:
        return {name: _tolist(getattr(self, name)) for name in (
            "inputs", "queries", "scores", "weights", "weighted_inputs", "outputs")}


@dataclass(frozen=True)
class WorkedExampleTrace:
    """Draft 002's example: ``s = X q^T``, column softmax, ``C = alpha^T X``."""

    inputs: np.ndarray  # N x D: X
    queries: np.ndarray  # M x D: q
    scores: np.ndarray  # N x M: s
    weights: np.ndarray  # N x M: alpha, each column sums to 1
    weight_sums: np.ndarray  # M: the column sums of alpha (all 1)
    context: np.ndarray  # M x D: C
    #: Only when X and q are the draft's: the column sums of the alpha draft
    #: 002 prints (not 1), and how many of its printed scores differ from
    #: X q^T at the 2 decimals it prints.
    draft_weight_sums: np.ndarray | None = None
    draft_score_mismatches: int | None = None
    #: The draft's printed values themselves (data, not results: shown as the
    #: wrong values they are), and how many entries of its alpha and C differ
    #: from the computed ones at the decimals it prints; and how many entries
    #: of its C differ from its *own* alpha^T X (is its C even consistent?).
    draft_scores: np.ndarray | None = None
    draft_weights: np.ndarray | None = None
    draft_context: np.ndarray | None = None
    draft_weight_mismatches: int | None = None
    draft_context_mismatches: int | None = None
    draft_context_own_mismatches: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {name: _tolist(getattr(self, name)) for name in (
            "inputs", "queries", "scores", "weights", "weight_sums", "context")}
        out["draft_check"] = None if self.draft_weight_sums is None else {
            "printed_weight_sums": _tolist(self.draft_weight_sums),
            "printed_score_mismatches": self.draft_score_mismatches,
            "printed_scores": _tolist(self.draft_scores),
            "printed_weights": _tolist(self.draft_weights),
            "printed_context": _tolist(self.draft_context),
            "printed_weight_mismatches": self.draft_weight_mismatches,
            "printed_context_mismatches": self.draft_context_mismatches,
            "printed_context_own_mismatches": self.draft_context_own_mismatches,
        }
        return out


def single_query_attention(inputs: np.ndarray, query: np.ndarray) -> DotProductAttentionTrace:
    """``E = s X^T``, ``A = softmax(E)``, ``o = A X``, with the running sums."""
    X = np.asarray(inputs, dtype=float)
    s = np.asarray(query, dtype=float)
    terms = X * s[None, :]
    scores = maths.dot_scores(s, X)
    weights = maths.softmax(scores)
    return DotProductAttentionTrace(
        inputs=_frozen(X), query=_frozen(s), terms=_frozen(terms),
        partial_sums=_frozen(np.cumsum(terms, axis=1)), scores=_frozen(scores),
        weights=_frozen(weights), weighted_inputs=_frozen(weights[:, None] * X),
        output=_frozen(maths.context_vector(weights, X)),
    )


def multi_query_attention(inputs: np.ndarray, queries: np.ndarray) -> MultiQueryAttentionTrace:
    """``E = Q X^T``, softmax along each row, ``O = A X``."""
    X = np.asarray(inputs, dtype=float)
    Q = np.asarray(queries, dtype=float)
    scores = maths.dot_scores(Q, X)
    weights = maths.softmax(scores, axis=1)
    return MultiQueryAttentionTrace(
        inputs=_frozen(X), queries=_frozen(Q), scores=_frozen(scores),
        weights=_frozen(weights), weighted_inputs=_frozen(weights[:, :, None] * X[None, :, :]),
        outputs=_frozen(maths.context_vector(weights, X)),
    )


def worked_example(inputs: np.ndarray, queries: np.ndarray) -> WorkedExampleTrace:
    """``s = X q^T``, ``alpha = softmax(s, axis=0)``, ``C = alpha^T X``."""
    X = np.asarray(inputs, dtype=float)
    q = np.asarray(queries, dtype=float)
    scores = maths.dot_scores(q, X).T  # (M x N)^T: one column per query
    weights = maths.softmax(scores, axis=0)
    context = maths.context_vector(weights.T, X)
    draft: dict[str, Any] = {}
    if (X.shape == np.shape(WORKED_EXAMPLE_INPUTS) and q.shape == np.shape(WORKED_EXAMPLE_QUERIES)
            and np.allclose(X, WORKED_EXAMPLE_INPUTS) and np.allclose(q, WORKED_EXAMPLE_QUERIES)):
        printed_w, printed_c = np.array(DRAFT_PRINTED_WEIGHTS), np.array(DRAFT_PRINTED_CONTEXT)

        def differ(computed: np.ndarray, printed: np.ndarray, decimals: int) -> int:
            """Entries where the computed value, rounded as the draft prints, is not the printed one."""
            return int(np.sum(np.abs(np.round(computed, decimals) - printed) > 10.0 ** -(decimals + 3)))

        draft = dict(
            draft_weight_sums=_frozen(np.sum(printed_w, axis=0)),
            draft_score_mismatches=differ(scores, np.array(DRAFT_PRINTED_SCORES), 2),
            draft_scores=_frozen(DRAFT_PRINTED_SCORES), draft_weights=_frozen(printed_w),
            draft_context=_frozen(printed_c),
            draft_weight_mismatches=differ(weights, printed_w, 4),
            draft_context_mismatches=differ(context, printed_c, 4),
            draft_context_own_mismatches=differ(printed_w.T @ X, printed_c, 4),
        )
    return WorkedExampleTrace(
        inputs=_frozen(X), queries=_frozen(q), scores=_frozen(scores), weights=_frozen(weights),
        weight_sums=_frozen(weights.sum(axis=0)),
        context=_frozen(context), **draft,
    )
