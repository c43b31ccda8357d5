"""The three dot-product attention scenes, built headless for default and varied numbers."""

from __future__ import annotations

import numpy as np
import pytest

from scenes import SCENES

from .helpers import build_scene, check_numbers, load_default_trace, shown_keys, trace_from, varied


def _matrix(rows: int, cols: int, seed: int) -> list[list[float]]:
    """Test inputs with varied signs and sizes (two decimals, as a user would write)."""
    rng = np.random.default_rng(seed)
    return np.round(rng.normal(0, 1.2, (rows, cols)), 2).tolist()


def _kept(n: int, max_shown: int = 8) -> list[int]:
    """Rows a ValueMatrix shows: all, or the first max_shown - 2 and the last."""
    return list(range(n)) if n <= max_shown else [*range(max_shown - 2), n - 1]


def _all(path: str, *shape: int) -> set[tuple]:
    return {(path, *idx) for idx in np.ndindex(*shape)}


# -- expected keys ---------------------------------------------------------------


def _dpa_keys(trace) -> set[tuple]:
    tr = trace.dot_product_attention
    N, D = tr.inputs.shape
    rows = _kept(N)
    p = "dot_product_attention"
    keys = _all(f"{p}.query", D) | _all(f"{p}.output", D)
    for i in rows:
        keys |= {(f"{p}.scores", i), (f"{p}.weights", i), (f"{p}.weighted_inputs", i, 1)}
        keys |= {(f"{p}.{name}", i, k) for name in ("inputs", "terms", "partial_sums")
                 for k in range(D)}
    return keys


def _mqa_keys(trace) -> set[tuple]:
    tr = trace.multi_query_attention
    N, D = tr.inputs.shape
    NQ = tr.queries.shape[0]
    p = "multi_query_attention"
    keys = _all(f"{p}.queries", NQ, D) | _all(f"{p}.outputs", NQ, D)
    for i in _kept(N):
        keys |= {(f"{p}.inputs", i, k) for k in range(D)}
        keys |= {(f"{p}.{name}", j, i) for name in ("scores", "weights") for j in range(NQ)}
    return keys


def _we_required(trace) -> set[tuple]:
    """What the worked example must show whatever its elision: every query, every
    context value and column sum, and the first and last input of each input matrix."""
    tr = trace.worked_example
    N, D = tr.inputs.shape
    M = tr.queries.shape[0]
    p = "worked_example"
    keys = _all(f"{p}.queries", M, D) | _all(f"{p}.context", M, D) | _all(f"{p}.weight_sums", M)
    for i in (0, N - 1):
        keys |= {(f"{p}.inputs", i, k) for k in range(D)}
        keys |= {(f"{p}.{name}", i, j) for name in ("scores", "weights") for j in range(M)}
    return keys


def _we_possible(trace) -> set[tuple]:
    tr = trace.worked_example
    N, D = tr.inputs.shape
    M = tr.queries.shape[0]
    p = "worked_example"
    return (_all(f"{p}.inputs", N, D) | _all(f"{p}.queries", M, D) | _all(f"{p}.scores", N, M)
            | _all(f"{p}.weights", N, M) | _all(f"{p}.weight_sums", M) | _all(f"{p}.context", M, D))


def _in_declared_sections(scene) -> bool:
    """Every key shown starts with one of the scene's trace_sections."""
    sections = SCENES[scene.scene_id].trace_sections
    return all(any(key[0] == s or key[0].startswith(s + ".") for s in sections)
               for key in shown_keys(scene))


# -- default numbers, every frame -------------------------------------------------


@pytest.mark.parametrize("scene_id,expected", [
    ("dot_product_attention", _dpa_keys),
    ("multi_query_attention", _mqa_keys),
])
def test_default_numbers_every_frame(scene_id, expected):
    trace = load_default_trace()
    scene = build_scene(scene_id, trace, skip=False)
    assert scene.audit.faults == []
    assert shown_keys(scene) == expected(trace)
    assert check_numbers(scene, load_default_trace()) > 0


def test_worked_example_default_every_frame():
    trace = load_default_trace()
    scene = build_scene("worked_example", trace, skip=False)
    assert scene.audit.faults == []
    # 5 inputs, 4 queries: nothing is elided, every value appears.
    assert shown_keys(scene) == _we_possible(trace)
    assert check_numbers(scene, load_default_trace()) > 0


# -- varied numbers at the extremes -----------------------------------------------

SMALL = dict(inputs=_matrix(2, 2, 1), query=[0.7, -1.3])
LARGE = dict(inputs=_matrix(10, 6, 2), query=_matrix(1, 6, 3)[0])


@pytest.mark.parametrize("table", [SMALL, LARGE], ids=["2-inputs-2-features", "10-inputs-6-features"])
def test_dot_product_attention_varied(table):
    data = varied(dot_product_attention=table)
    scene = build_scene("dot_product_attention", trace_from(data))
    assert scene.audit.faults == []
    assert _in_declared_sections(scene)
    independent = trace_from(data)
    assert shown_keys(scene) == _dpa_keys(independent)
    assert check_numbers(scene, independent) > 0


@pytest.mark.parametrize("table", [
    dict(inputs=_matrix(2, 2, 4), queries=_matrix(1, 2, 5)),
    dict(inputs=_matrix(10, 6, 6), queries=_matrix(6, 6, 7)),
    dict(inputs=_matrix(10, 2, 8), queries=_matrix(6, 2, 9)),
], ids=["2-inputs-1-query-2-features", "10-inputs-6-queries-6-features", "10x2-6-queries"])
def test_multi_query_attention_varied(table):
    data = varied(multi_query_attention=table)
    scene = build_scene("multi_query_attention", trace_from(data))
    assert scene.audit.faults == []
    assert _in_declared_sections(scene)
    independent = trace_from(data)
    assert shown_keys(scene) == _mqa_keys(independent)
    assert check_numbers(scene, independent) > 0


@pytest.mark.parametrize("table", [
    dict(inputs=_matrix(2, 2, 10), queries=_matrix(1, 2, 11)),
    dict(inputs=_matrix(10, 6, 12), queries=_matrix(6, 6, 13)),
    dict(inputs=_matrix(10, 2, 14), queries=_matrix(1, 2, 15)),
], ids=["2-inputs-1-query-2-features", "10-inputs-6-queries-6-features", "10x2-1-query"])
def test_worked_example_varied(table):
    data = varied(worked_example=table)
    scene = build_scene("worked_example", trace_from(data))
    assert scene.audit.faults == []
    assert _in_declared_sections(scene)
    independent = trace_from(data)
    keys = shown_keys(scene)
    assert _we_required(independent) <= keys <= _we_possible(independent)
    assert check_numbers(scene, independent) > 0
