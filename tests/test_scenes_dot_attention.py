"""The four dot-product scenes, built headless for default and varied numbers.

What a reader relies on: every number on screen is the core's at the shown
precision, nothing leaves the frame or overlaps, the shapes written on screen
multiply (1xN times NxD is 1xD), the steps are the draft's (named sections),
each weight's bar is as long as the weight says, the input with the most
attention is never elided, text is at least 12 px tall at 480p (0.2 units),
and captions stay up long enough to be read.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from manim import Text

from scenes import SCENES
from scenes.glyphs import Bar

from .helpers import build_scene, check_numbers, load_default_trace, resolve, shown_keys, trace_from, varied

DRAFT_STEPS = ("step-1-variables", "step-2-scores", "step-3-softmax", "step-4-output", "close-up")
# 12 px at 480p (8 units = 480 px): 0.2 units, measured on a text with a digit,
# a capital or an ascender (x-height-only words are smaller by design of the font).
MIN_TEXT_HEIGHT = 0.2
TALL = re.compile(r"[0-9A-Zbdfhkl]")  # not t: its ascender is short


def _matrix(rows: int, cols: int, seed: int) -> list[list[float]]:
    """Test inputs with varied signs and sizes (two decimals, as a user would write)."""
    rng = np.random.default_rng(seed)
    return np.round(rng.normal(0, 1.2, (rows, cols)), 2).tolist()


def _winner_in_the_middle(rows: int, cols: int, winner: int) -> list[list[float]]:
    """Small inputs except row ``winner``, which a query of ones prefers by far."""
    X = np.full((rows, cols), 0.1)
    X[winner] = 2.0
    return X.tolist()


def _final_texts(scene) -> list[Text]:
    out = []
    for top in scene.mobjects:
        out.extend(m for m in top.get_family() if isinstance(m, Text))
    return out


def _visible(m) -> bool:
    return max(float(m.get_fill_opacity()), float(m.get_stroke_opacity())) > 0.02


def _check_common(scene, independent) -> set[tuple]:
    """Faults, numbers, declared sections, legibility of the final frame, bars, pacing."""
    assert scene.audit.faults == []
    assert check_numbers(scene, independent) > 0
    keys = shown_keys(scene)
    sections = SCENES[scene.scene_id].trace_sections
    assert all(any(k[0] == s or k[0].startswith(s + ".") for s in sections) for k in keys)
    # Legibility: no text of the final frame under 12 px at 480p.
    for t in _final_texts(scene):
        if _visible(t) and TALL.search(t.original_text or ""):
            assert t.height >= MIN_TEXT_HEIGHT - 1e-6, (t.original_text, round(t.height, 3))
    # Captions: at least 1 s per 3 words.
    for text, start, end in scene.pacer.log:
        assert end is not None and end - start >= len(text.split()) / 3 - 1e-6, (text, end - start)
    # The final figure is held for a loop / poster.
    assert scene.pacer.log[-1][2] - scene.pacer.log[-1][1] >= 4.0
    return keys


def _check_bars(scene, independent, expected_min: int) -> None:
    """Each bar's length is its weight times one common full length, weight from the core."""
    data = independent.to_dict()
    bars = [m for top in scene.mobjects for m in top.get_family() if isinstance(m, Bar)]
    assert len(bars) >= expected_min
    for bar in bars:
        assert bar.key is not None
        assert bar.value == pytest.approx(resolve(data, bar.key), abs=1e-12)
        assert bar.length == pytest.approx(bar.value * bar.full_length, abs=1e-9)
        drawn = bar.drawn_length
        assert drawn == pytest.approx(max(bar.length, 0.012), abs=1e-6)
        # Proportional: a bar of twice the weight is twice as long (one full length each group).
    fulls = {round(b.full_length, 9) for b in bars}
    assert len(fulls) <= 2  # the histogram's, and the in-cell bars'


def _all_text(scene) -> str:
    return " | ".join(t.original_text for t in _final_texts(scene) if _visible(t))


# -- dot_product_attention ----------------------------------------------------------


def _dpa_required(trace) -> set[tuple]:
    tr = trace.dot_product_attention
    N, D = tr.inputs.shape
    p = "dot_product_attention"
    win = int(np.argmax(tr.weights))
    keys = {(f"{p}.query", k) for k in range(D)} | {(f"{p}.output", k) for k in range(D)}
    for i in {0, N - 1, win}:
        keys |= {(f"{p}.scores", i), (f"{p}.weights", i), (f"{p}.weighted_inputs", i, 1)}
        keys |= {(f"{p}.inputs", i, k) for k in range(D)}
    keys |= {(f"{p}.terms", 0, k) for k in range(D)} | {(f"{p}.partial_sums", 0, k) for k in range(D)}
    return keys


@pytest.mark.parametrize("table", [
    None,
    dict(inputs=_matrix(2, 2, 1), query=[0.7, -1.3]),
    dict(inputs=_matrix(10, 6, 2), query=_matrix(1, 6, 3)[0]),
    dict(inputs=_winner_in_the_middle(10, 3, 7), query=[1.0, 1.0, 1.0]),
    # The longest numbers the documented range (-10 to 10) allows: scores of about +-300.
    dict(inputs=np.clip(np.array(_matrix(4, 3, 4)) * 9, -10, 10).round(2).tolist(), query=[10.0, -10.0, 10.0]),
], ids=["default", "2x2", "10x6", "winner-row-7-of-10", "long-numbers"])
def test_dot_product_attention(table):
    data = varied(dot_product_attention=table) if table else varied()
    scene = build_scene("dot_product_attention", trace_from(data), skip=table is not None)
    independent = trace_from(data)
    tr = independent.dot_product_attention
    N, D = tr.inputs.shape
    keys = _check_common(scene, independent)
    assert _dpa_required(independent) <= keys
    # The draft's steps, in order.
    assert [name for name, _ in scene.step_log] == list(DRAFT_STEPS)
    # Each step's last frame is that step's complete figure.
    ends = scene.step_end_keys
    p = "dot_product_attention"
    prefixes = lambda step: {k[0] for k in ends[step]}  # noqa: E731
    assert {f"{p}.query", f"{p}.inputs"} <= prefixes("step-1-variables")
    assert {f"{p}.query", f"{p}.inputs", f"{p}.scores"} <= prefixes("step-2-scores")
    assert {f"{p}.scores", f"{p}.weights"} <= prefixes("step-3-softmax")
    assert {f"{p}.weights", f"{p}.inputs", f"{p}.output"} <= prefixes("step-4-output")
    assert {f"{p}.weighted_inputs", f"{p}.output"} <= prefixes("close-up")
    assert f"{p}.terms" not in prefixes("step-2-scores")  # the working is cleared
    # Shapes that multiply: s_2 is 1xD, X^T DxN, E and A 1xN, o = A X is 1xD.
    text = _all_text(scene)
    assert f"1\u00d7{N}" in text and f"{N}\u00d7{D}" in text and f"1\u00d7{D}" in text
    if N != 1:
        assert f"{N}\u00d71" not in text
    _check_bars(scene, independent, expected_min=min(N, 3))


def test_dot_product_attention_never_hides_the_winner():
    data = varied(dot_product_attention=dict(inputs=_winner_in_the_middle(10, 3, 7),
                                             query=[1.0, 1.0, 1.0]))
    scene = build_scene("dot_product_attention", trace_from(data))
    keys = shown_keys(scene)
    assert ("dot_product_attention.weights", 7) in keys
    shown_weights = [n.shown for n in scene.audit.numbers if n.key[0] == "dot_product_attention.weights"]
    assert any(s != "0.00" for s in shown_weights)


# -- multi_query_attention ----------------------------------------------------------


@pytest.mark.parametrize("table", [
    None,
    dict(inputs=_matrix(2, 2, 4), queries=_matrix(1, 2, 5)),
    dict(inputs=_matrix(10, 6, 6), queries=_matrix(6, 6, 7)),
    dict(inputs=_matrix(10, 2, 8), queries=_matrix(6, 2, 9)),
    dict(inputs=_winner_in_the_middle(10, 3, 6), queries=[[1.0, 1.0, 1.0], [0.5, 0.2, 0.1]]),
], ids=["default", "2-inputs-1-query", "10x6-6-queries", "10x2-6-queries", "winner-row-6"])
def test_multi_query_attention(table):
    data = varied(multi_query_attention=table) if table else varied()
    scene = build_scene("multi_query_attention", trace_from(data), skip=table is not None)
    independent = trace_from(data)
    tr = independent.multi_query_attention
    N, D = tr.inputs.shape
    NQ = tr.queries.shape[0]
    keys = _check_common(scene, independent)
    p = "multi_query_attention"
    # The close-up shows query 1's weighted second feature of every input shown
    # (with many inputs and queries, input 1 may be elided in favour of the favourites).
    first_shown = min(k[1] for k in keys if k[0] == f"{p}.inputs")
    required = ({(f"{p}.queries", j, k) for j in range(NQ) for k in range(D)}
                | {(f"{p}.outputs", j, k) for j in range(NQ) for k in range(D)}
                | {(f"{p}.weighted_inputs", 0, first_shown, 1)})
    # The strongest attention of all queries is never elided.
    best = int(np.unravel_index(np.argmax(tr.weights), tr.weights.shape)[1])
    required |= {(f"{p}.weights", j, best) for j in range(NQ)}
    required |= {(f"{p}.scores", j, best) for j in range(NQ)}
    assert required <= keys
    assert [name for name, _ in scene.step_log] == list(DRAFT_STEPS)
    text = _all_text(scene)
    assert f"{NQ}\u00d7{N}" in text and f"{N}\u00d7{D}" in text and f"{NQ}\u00d7{D}" in text
    _check_bars(scene, independent, expected_min=NQ * 2)


def test_multi_query_keeps_E_visible_when_A_appears():
    trace = load_default_trace()
    scene = build_scene("multi_query_attention", trace)
    tr = trace.multi_query_attention
    # Step 3's still figure shows E and A together: every shown score next to its weight.
    end3 = scene.step_end_keys["step-3-softmax"]
    scores = {k[1:] for k in end3 if k[0] == "multi_query_attention.scores"}
    weights = {k[1:] for k in end3 if k[0] == "multi_query_attention.weights"}
    assert scores and scores == weights
    assert len(scores) == tr.scores.size  # default 2x4: nothing elided


# -- worked_example --------------------------------------------------------------------


@pytest.mark.parametrize("table", [
    None,
    dict(inputs=_matrix(2, 2, 10), queries=_matrix(1, 2, 11)),
    dict(inputs=_matrix(10, 6, 12), queries=_matrix(6, 6, 13)),
    dict(inputs=_matrix(10, 2, 14), queries=_matrix(1, 2, 15)),
], ids=["default", "2x2-1-query", "10x6-6-queries", "10x2-1-query"])
def test_worked_example(table):
    data = varied(worked_example=table) if table else varied()
    scene = build_scene("worked_example", trace_from(data), skip=table is not None)
    independent = trace_from(data)
    tr = independent.worked_example
    N, D = tr.inputs.shape
    M = tr.queries.shape[0]
    keys = _check_common(scene, independent)
    p = "worked_example"
    required = ({(f"{p}.queries", j, k) for j in range(M) for k in range(D)}
                | {(f"{p}.context", j, k) for j in range(M) for k in range(D)}
                | {(f"{p}.weight_sums", j) for j in range(M)})
    win = int(np.argmax(tr.weights[:, 0]))
    required |= {(f"{p}.weights", win, 0), (f"{p}.scores", win, 0)}
    assert required <= keys
    assert [name for name, _ in scene.step_log] == [
        "step-1-inputs", "step-2-scores", "step-3-softmax", "step-4-context", "draft-check"]
    _check_bars(scene, independent, expected_min=M)
    words = " ".join(t.original_text for top in scene.mobjects for t in top.get_family()
                     if isinstance(t, Text))
    if table is None:
        # The draft's words name the rows and columns; the scores are E, not s;
        # the draft's printed results are said to differ, with the core's numbers.
        for w in ("le", "chat", "mange", "du", "poisson", "the", "cat", "eats", "fish"):
            assert w in words
        # Issue 31: the draft's numbers in one beat, its row of C; no longer its alpha's sums.
        assert ("worked_example.draft_check.printed_context", 0, 0) in keys
        assert ("worked_example.draft_check.printed_weight_sums", 0) not in keys
        assert any(text.startswith("The draft's s, \u03b1 and C:") for text, _, _ in scene.pacer.log)
    else:
        assert not any(k[0].startswith("worked_example.draft_check") for k in keys)


def test_worked_example_weighted_average_sits_on_one_baseline():
    """Row "the" of C = 0.19 le + ... + 0.19 poisson: names with a descender ("mange",
    "poisson") sit on the same line as "le" and "du", and the weights on the heading's."""
    scene = build_scene("worked_example", load_default_trace(), skip=True)
    names = ["le", "chat", "mange", "du", "poisson"]
    line = scene._weighted_average(0, names, ["the", "cat", "eats", "fish"])[0]
    terms = {t.original_text[1:]: t for t in line if isinstance(t, Text) and t.original_text.startswith("\u00b7")}
    assert sorted(terms) == sorted(names)
    dots = [terms[n][0].get_center()[1] for n in names]
    tolerance = 0.02 * terms["le"].height  # far below a descender's depth
    assert max(dots) - min(dots) < tolerance
    # "le" has no descender: its bottom is the baseline, the heading's bottom too
    assert abs(terms["le"].get_bottom()[1] - line[0].get_bottom()[1]) < tolerance
    assert terms["mange"].get_bottom()[1] < terms["le"].get_bottom()[1] - 5 * tolerance  # the g hangs below


# -- dot_product ------------------------------------------------------------------------


def _boxes_overlap(a, b, pad: float = 0.0) -> bool:
    return (min(a.get_right()[0], b.get_right()[0]) - max(a.get_left()[0], b.get_left()[0]) > pad
            and min(a.get_top()[1], b.get_top()[1]) - max(a.get_bottom()[1], b.get_bottom()[1]) > pad)


@pytest.mark.parametrize("table", [
    None,
    dict(features=["a", "b", "c", "d", "e", "f"], movie=[10, -10, 10, -10, 10, -10],
         user=[-10, 10, -10, 10, -10, 9.5]),
    dict(features=["x", "y"], movie=[9.99, -9.99], user=[-9.99, 9.98]),
], ids=["default", "6-features-at-10", "2-features-opposed"])
def test_dot_product(table):
    data = varied(dot_product=table) if table else varied()
    scene = build_scene("dot_product", trace_from(data), skip=table is not None)
    independent = trace_from(data)
    assert scene.audit.faults == []
    assert check_numbers(scene, independent) > 0
    dp = independent.dot_product
    # The plane (and the whole half circle the turning u sweeps) is clear of the table.
    r = dp.norm_user * scene._plane_scale()
    o = scene.plane_origin
    for cell in scene.table_cells:
        box = (cell.get_left()[0], cell.get_bottom()[1], cell.get_right()[0], cell.get_top()[1])
        assert box[2] < o[0] - r or box[3] < o[1] or box[1] > o[1] + r or box[0] > o[0] + r, box
    # Shown operands give the shown result: cos = score / (|m| x |u|) from the
    # numbers on screen, to the shown precision, and theta = arccos of the shown
    # cosine in whole degrees ("approximately", as the screen says).
    shown = {n.key: n.shown for n in scene.audit.numbers}
    from scenes.theme import parse_number
    score = parse_number(shown[("dot_product.score",)])
    nm = parse_number(shown[("dot_product.norm_movie",)])
    nu = parse_number(shown[("dot_product.norm_user",)])
    cos = parse_number(shown[("dot_product.shown.cosine",)])
    assert abs(score / (nm * nu) - cos) <= 0.005 + 1e-9
    angle = parse_number(shown[("dot_product.shown.angle_deg",)])
    assert angle == round(np.degrees(np.arccos(np.clip(cos, -1, 1))))
    assert ("dot_product.norm_product",) not in shown  # a product of rounded norms, not shown
    assert "\u2248" in _all_text(scene)
    for t in _final_texts(scene):
        if _visible(t) and TALL.search(t.original_text or ""):
            assert t.height >= MIN_TEXT_HEIGHT - 1e-6, (t.original_text, round(t.height, 3))
