"""Dot-product attention core: hand-worked cases, properties, numbers-file errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from attention_core import NumbersError, compute_trace, load_numbers, parse_numbers
from attention_core.dot_attention import (
    multi_query_attention,
    single_query_attention,
    worked_example,
)

from .helpers import varied

LN3 = math.log(3.0)


# -- cases worked by hand -----------------------------------------------------


def test_single_query_by_hand():
    # X = I (2x2), s = [ln 3, 0]: E = s X^T = [ln 3, 0]; exp(E) = [3, 1], sum 4,
    # so A = [3/4, 1/4]; o = A X = A (X is the identity) = [0.75, 0.25].
    tr = single_query_attention(np.eye(2), np.array([LN3, 0.0]))
    np.testing.assert_allclose(tr.scores, [LN3, 0.0])
    np.testing.assert_allclose(tr.weights, [0.75, 0.25])
    np.testing.assert_allclose(tr.output, [0.75, 0.25])


def test_running_sums_by_hand():
    # s = [1, 2], X = [[1, 2], [3, 4]]: products s_k h_ik = [[1, 4], [3, 8]],
    # running sums [[1, 5], [3, 11]], so E = [5, 11];
    # A = [1, e^6] / (1 + e^6); o = A X = [1 + 3 e^6, 2 + 4 e^6] / (1 + e^6).
    tr = single_query_attention(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 2.0]))
    np.testing.assert_allclose(tr.terms, [[1, 4], [3, 8]])
    np.testing.assert_allclose(tr.partial_sums, [[1, 5], [3, 11]])
    np.testing.assert_allclose(tr.scores, [5, 11])
    e6 = math.exp(6)
    np.testing.assert_allclose(tr.weights, [1 / (1 + e6), e6 / (1 + e6)])
    np.testing.assert_allclose(tr.output, [(1 + 3 * e6) / (1 + e6), (2 + 4 * e6) / (1 + e6)])
    # the zoom's products a_i h_ik
    np.testing.assert_allclose(tr.weighted_inputs[:, 1], [2 / (1 + e6), 4 * e6 / (1 + e6)])


def test_equal_scores_give_the_plain_average():
    # s = 0: every score is 0, A = [1/2, 1/2], o = the mean of the rows = [2, 3].
    tr = single_query_attention(np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros(2))
    np.testing.assert_allclose(tr.weights, [0.5, 0.5])
    np.testing.assert_allclose(tr.output, [2.0, 3.0])


def test_multi_query_by_hand():
    # Q = [[ln 3, 0], [0, 0]], X = I: E = Q X^T = Q; row softmax gives
    # [[3/4, 1/4], [1/2, 1/2]]; O = A X = A.
    tr = multi_query_attention(np.eye(2), np.array([[LN3, 0.0], [0.0, 0.0]]))
    np.testing.assert_allclose(tr.scores, [[LN3, 0], [0, 0]])
    np.testing.assert_allclose(tr.weights, [[0.75, 0.25], [0.5, 0.5]])
    np.testing.assert_allclose(tr.outputs, [[0.75, 0.25], [0.5, 0.5]])


def test_worked_example_by_hand():
    # X = I (2 inputs), q = [[ln 3, 0], [0, ln 3]]: s = X q^T = [[ln 3, 0], [0, ln 3]]
    # (rows inputs, columns queries). Column softmax: column 1 is [ln 3, 0] -> [3/4, 1/4],
    # column 2 is [0, ln 3] -> [1/4, 3/4]. C = alpha^T X = alpha^T = [[3/4, 1/4], [1/4, 3/4]].
    tr = worked_example(np.eye(2), np.array([[LN3, 0.0], [0.0, LN3]]))
    np.testing.assert_allclose(tr.scores, [[LN3, 0], [0, LN3]])
    np.testing.assert_allclose(tr.weights, [[0.75, 0.25], [0.25, 0.75]])
    np.testing.assert_allclose(tr.weight_sums, [1.0, 1.0])
    np.testing.assert_allclose(tr.context, [[0.75, 0.25], [0.25, 0.75]])


def test_worked_example_is_oriented_inputs_by_queries():
    # 3 inputs, 1 query: s is 3x1 and alpha's single column is a distribution.
    # X = [[1,0],[0,1],[1,1]], q = [[ln 3, 0]]: s = [ln 3, 0, ln 3]; exp = [3, 1, 3],
    # sum 7: alpha = [3/7, 1/7, 3/7]; C = 3/7 [1,0] + 1/7 [0,1] + 3/7 [1,1] = [6/7, 4/7].
    tr = worked_example(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([[LN3, 0.0]]))
    assert tr.scores.shape == (3, 1)
    np.testing.assert_allclose(tr.weights[:, 0], [3 / 7, 1 / 7, 3 / 7])
    np.testing.assert_allclose(tr.context, [[6 / 7, 4 / 7]])


def test_default_worked_example_uses_draft_002_inputs():
    # Draft 002's X and q; two scores recomputed by hand:
    # s_11 = x_1.q_1 = (-0.2)(0.1) + (0.3)(0.2) + (0.5)(-0.3) = -0.02 + 0.06 - 0.15 = -0.11
    # (the draft prints +0.11); s_42 = x_4.q_2 = (0.2)(-0.4) + (0.5)(0.3) + (-0.1)(0.2)
    # = -0.08 + 0.15 - 0.02 = 0.05 (the draft prints 0.37).
    tr = compute_trace(load_numbers()).worked_example
    assert tr.inputs.shape == (5, 3) and tr.queries.shape == (4, 3)
    assert tr.scores[0, 0] == pytest.approx(-0.11)
    assert tr.scores[3, 1] == pytest.approx(0.05)


# -- properties -------------------------------------------------------------


def _cases():
    rng = np.random.default_rng(12)
    for n, d, m in [(2, 2, 1), (10, 6, 6), (4, 3, 2), (7, 5, 3)]:
        yield rng.normal(0, 1.5, (n, d)), rng.normal(0, 1.5, (m, d))


@pytest.mark.parametrize("X,Q", list(_cases()))
def test_properties(X, Q):
    for q in Q:
        tr = single_query_attention(X, q)
        assert np.all(tr.weights >= 0)
        assert tr.weights.sum() == pytest.approx(1.0)
        # E_i = s . h_i, computed here with an explicit loop
        np.testing.assert_allclose(tr.scores, [sum(q[k] * h[k] for k in range(len(q))) for h in X])
        np.testing.assert_allclose(tr.partial_sums[:, -1], tr.scores)
        # scaling all scores by a positive factor keeps the most attended input
        assert np.argmax(single_query_attention(X, 3.7 * q).weights) == np.argmax(tr.weights)
        assert np.argmax(single_query_attention(X, 0.2 * q).weights) == np.argmax(tr.weights)
        # o is a convex combination of the inputs: inside their bounding box
        assert np.all(tr.output >= X.min(axis=0) - 1e-12)
        assert np.all(tr.output <= X.max(axis=0) + 1e-12)
        np.testing.assert_allclose(tr.output, tr.weighted_inputs.sum(axis=0))

    multi = multi_query_attention(X, Q)
    np.testing.assert_allclose(multi.weights.sum(axis=1), 1.0)
    for j, q in enumerate(Q):
        single = single_query_attention(X, q)
        np.testing.assert_allclose(multi.scores[j], single.scores)
        np.testing.assert_allclose(multi.weights[j], single.weights)
        np.testing.assert_allclose(multi.outputs[j], single.output)

    we = worked_example(X, Q)
    assert we.scores.shape == (len(X), len(Q))
    np.testing.assert_allclose(we.weights.sum(axis=0), 1.0)
    np.testing.assert_allclose(we.weight_sums, 1.0)
    assert np.all(we.weights >= 0)
    # C = alpha^T X with explicit sums: c_j = sum_i alpha_ij x_i
    for j in range(len(Q)):
        np.testing.assert_allclose(we.context[j], sum(we.weights[i, j] * X[i] for i in range(len(X))))
        # the worked example's column j is the single-query weights of q_j
        np.testing.assert_allclose(we.weights[:, j], single_query_attention(X, Q[j]).weights)


def test_softmax_is_stable_for_large_scores():
    tr = single_query_attention(np.array([[100.0, 0.0], [0.0, 100.0]]), np.array([10.0, 9.0]))
    assert np.all(np.isfinite(tr.weights))
    assert tr.weights.sum() == pytest.approx(1.0)


# -- the numbers file ------------------------------------------------------------


def _trace(**tables):
    return compute_trace(parse_numbers(varied(**tables), "<test>"))


def test_numbers_file_values_are_used():
    tr = _trace(
        dot_product_attention={"inputs": [[1, 0], [0, 1], [1, 1]], "query": [2, -1]},
        multi_query_attention={"queries": [[1, 1]]},
        worked_example={"inputs": [[1, 2], [3, 4]], "queries": [[0, 1], [1, 0], [1, 1]]},
    )
    np.testing.assert_allclose(tr.dot_product_attention.scores, [2, -1, 1])
    # multi-query inputs default to the dot_product_attention inputs
    np.testing.assert_allclose(tr.multi_query_attention.inputs, [[1, 0], [0, 1], [1, 1]])
    np.testing.assert_allclose(tr.multi_query_attention.scores, [[1, 1, 2]])
    np.testing.assert_allclose(tr.worked_example.scores, [[2, 1, 3], [4, 3, 7]])


def test_seeded_defaults_have_the_drafts_shapes():
    data = varied()
    for table in ("dot_product_attention", "multi_query_attention", "worked_example"):
        data.pop(table, None)
    tr = compute_trace(parse_numbers(data, "<test>"))
    assert tr.dot_product_attention.inputs.shape == (4, 3)
    assert tr.dot_product_attention.query.shape == (3,)
    assert tr.multi_query_attention.queries.shape == (2, 3)
    assert tr.worked_example.inputs.shape == (5, 3)
    # seeded values are rounded to the two decimals shown
    np.testing.assert_allclose(tr.dot_product_attention.inputs,
                               np.round(tr.dot_product_attention.inputs, 2))


BAD = [
    # (table, contents, key named in the message)
    ("dot_product_attention", {"inputs": [[1, 2]]}, "dot_product_attention.inputs"),
    ("dot_product_attention", {"inputs": [[1, 2]] * 11}, "dot_product_attention.inputs"),
    ("dot_product_attention", {"inputs": [[1], [2]]}, "dot_product_attention.inputs"),
    ("dot_product_attention", {"inputs": [[1] * 7] * 3}, "dot_product_attention.inputs"),
    ("dot_product_attention", {"inputs": [[1, 2], [3]]}, "dot_product_attention.inputs"),
    ("dot_product_attention", {"inputs": [[1, 2], [3, "x"]]}, r"dot_product_attention.inputs\[1\]\[1\]"),
    ("dot_product_attention", {"inputs": [[1, 2], [3, float("nan")]]}, r"dot_product_attention.inputs\[1\]\[1\]"),
    ("dot_product_attention", {"inputs": [[1, 2], [3, 4]], "query": [1, 2, 3]}, "dot_product_attention.query"),
    ("dot_product_attention", {"query": [1]}, "dot_product_attention.query"),
    ("dot_product_attention", {"query": [1, float("inf")]}, r"dot_product_attention.query\[1\]"),
    ("dot_product_attention", {"querry": [1, 2, 3]}, "dot_product_attention.querry"),
    ("dot_product_attention", [1, 2], "dot_product_attention"),
    ("multi_query_attention", {"queries": []}, "multi_query_attention.queries"),
    ("multi_query_attention", {"queries": [[1, 2, 3]] * 7}, "multi_query_attention.queries"),
    ("multi_query_attention", {"queries": [[1, 2]]}, "multi_query_attention.queries"),
    ("multi_query_attention", {"inputs": [[1, 2], [3, 4]], "queries": [[1, 2, 3]]}, "multi_query_attention.queries"),
    ("multi_query_attention", {"inputs": [[1, 2]] * 12}, "multi_query_attention.inputs"),
    ("multi_query_attention", {"queries": [[1, 2, True]]}, r"multi_query_attention.queries\[0\]\[2\]"),
    ("multi_query_attention", {"keys": [[1, 2, 3]]}, "multi_query_attention.keys"),
    ("worked_example", {"inputs": [[1, 2, 3]]}, "worked_example.inputs"),
    ("worked_example", {"inputs": [[1, 2], [3, 4]]}, "worked_example.queries"),
    ("worked_example", {"queries": [[1, 2]]}, "worked_example.queries"),
    ("worked_example", {"queries": [[1, 2, 3]] * 7}, "worked_example.queries"),
    ("worked_example", {"queries": [[1, 2, float("-inf")]]}, r"worked_example.queries\[0\]\[2\]"),
    ("worked_example", {"inputs": "X"}, "worked_example.inputs"),
    ("worked_example", {"values": [[1, 2, 3]]}, "worked_example.values"),
]


@pytest.mark.parametrize("table,contents,where", BAD, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD)])
def test_bad_tables_name_the_key(table, contents, where):
    data = varied()
    data[table] = contents
    with pytest.raises(NumbersError, match=where):
        parse_numbers(data, "<test>")


def test_bad_toml_file_names_file_and_key(tmp_path):
    from attention_core.numbers_file import default_numbers_text

    path = tmp_path / "bad.toml"
    text = default_numbers_text().replace("[worked_example]", "[worked_example]\nspeed = 3", 1)
    path.write_text(text, "utf-8")
    with pytest.raises(NumbersError, match=r"bad\.toml: worked_example\.speed: unknown key"):
        load_numbers(path)
    text = default_numbers_text().replace(
        "[dot_product_attention]", "[dot_product_attention]\nquery = [nan, 1, 2]", 1)
    path.write_text(text, "utf-8")
    with pytest.raises(NumbersError, match=r"dot_product_attention\.query\[0\]: expected a finite"):
        load_numbers(path)


def test_numbers_command_exports_the_three_sections():
    from render import cli

    result = CliRunner().invoke(cli, ["numbers", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    we = data["worked_example"]
    n, d = len(we["inputs"]), len(we["inputs"][0])
    m = len(we["queries"])
    assert np.shape(we["scores"]) == (n, m) and np.shape(we["weights"]) == (n, m)
    assert np.shape(we["context"]) == (m, d)
    np.testing.assert_allclose(np.sum(we["weights"], axis=0), 1.0)
    np.testing.assert_allclose(we["scores"], np.array(we["inputs"]) @ np.array(we["queries"]).T)
    np.testing.assert_allclose(we["context"], np.array(we["weights"]).T @ np.array(we["inputs"]))
    for name, keys in (("dot_product_attention", ("scores", "weights", "output", "partial_sums")),
                       ("multi_query_attention", ("scores", "weights", "outputs"))):
        assert all(k in data[name] for k in keys)


# -- added for issues 11, 13, 15: multi-query close-up, the draft's printed results --


def test_multi_query_weighted_inputs_by_hand():
    # X = I (2x2), Q = [[ln 3, 0]]: A = [[3/4, 1/4]]; a_ji h_ik = [[[3/4, 0], [0, 1/4]]],
    # and summing over the inputs gives O = [[3/4, 1/4]].
    tr = multi_query_attention(np.eye(2), np.array([[LN3, 0.0]]))
    np.testing.assert_allclose(tr.weighted_inputs, [[[0.75, 0.0], [0.0, 0.25]]])
    np.testing.assert_allclose(tr.weighted_inputs.sum(axis=1), tr.outputs)
    assert "weighted_inputs" in tr.to_dict()


def test_draft_check_finds_the_drafts_printed_errors():
    from attention_core.dot_attention import WORKED_EXAMPLE_INPUTS, WORKED_EXAMPLE_QUERIES
    tr = worked_example(np.array(WORKED_EXAMPLE_INPUTS), np.array(WORKED_EXAMPLE_QUERIES))
    # Draft 002 prints alpha's first column as .3218 .2586 .2857 .2784 .3055: by hand
    # that sums to 1.4500, not 1; its fourth (.3057 .3319 .1809 .3422 .2193) to 1.38.
    assert tr.draft_weight_sums[0] == pytest.approx(1.45)
    assert tr.draft_weight_sums[3] == pytest.approx(1.38)
    # Its s[0][0] is printed as 0.11; x_1 . q_1 = -0.2*0.1 + 0.3*0.2 + 0.5*(-0.3) = -0.11.
    assert tr.scores[0, 0] == pytest.approx(-0.11)
    assert tr.draft_score_mismatches >= 1
    # The core's own alpha columns do sum to 1.
    np.testing.assert_allclose(tr.weight_sums, 1.0)
    check = tr.to_dict()["draft_check"]
    assert check["printed_weight_sums"][0] == pytest.approx(1.45)


def test_draft_check_is_absent_for_other_numbers():
    tr = worked_example(np.eye(3), np.eye(3)[:2])
    assert tr.draft_weight_sums is None and tr.draft_score_mismatches is None
    assert tr.to_dict()["draft_check"] is None


@pytest.mark.parametrize("n,max_shown,keep", [(10, 8, [7]), (10, 8, [8]), (10, 5, [6]), (10, 8, [3, 7]),
                                              (6, 8, [2]), (30, 6, [15])])
def test_elision_never_hides_a_kept_row(n, max_shown, keep):
    from scenes.components import kept_indices
    shown = kept_indices(n, max_shown, keep)
    assert len(shown) <= max_shown
    rows = [i for i in shown if i is not None]
    assert set(keep) <= set(rows) and rows == sorted(rows) and rows[-1] == n - 1
    # Dots stand exactly where rows are missing.
    for a, b in zip(shown, shown[1:]):
        assert not (a is None and b is None)
        if a is not None and b is not None:
            assert b == a + 1
    if n <= max_shown:
        assert shown == list(range(n))
