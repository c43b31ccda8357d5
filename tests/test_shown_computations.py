"""A computation written on screen never contradicts the true one (issue 25).

The rule: every number shown is the core's value rounded to the decimals
shown; a computation written out from shown numbers (``a x b = c``, a
running sum, ``score / (|m| x |u|) = cos``, ``arccos(cos) = theta``), redone
by the reader from the numbers *as shown*, gives the shown result; and a value
that is not zero never shows as zero when it is an operand or a result.

These tests redo the arithmetic from the screen's own text (format_number,
the function that writes every number), never from the code that chose the
decimals; the inputs are drawn at random in the documented ranges.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from attention_core.formatting import format_number, parse_number
from attention_core.similarity import DotProductInputs, compute_dot_product

from .helpers import MIN_TEXT_PX, build_scene, check_scene, trace_from, varied


def _shown(value: float, decimals: int) -> str:
    return format_number(value, decimals)


def _redo(text: str) -> float:
    return parse_number(text)


def _reader(x: float, decimals: int) -> str | None:
    """The reader's exact result rounded as shown; None at a tie (0.0075 at
    three decimals), which a reader may round either way: a contradiction too."""
    x = round(x, 12)
    scaled = abs(x) * 10**decimals
    if abs(scaled - math.floor(scaled) - 0.5) < 1e-6:
        return None
    return _shown(x, decimals)


def _contradictions(m: np.ndarray, u: np.ndarray) -> list[str]:
    """Every computation the dot_product scene writes, redone from its text."""
    dp = compute_dot_product(DotProductInputs(tuple("abcdef"[:len(m)]), m, u))
    d, c = dp.shown_decimals, dp.cosine_decimals
    faults = []
    previous = 0.0
    for i in range(len(m)):
        mi, ui = _shown(m[i], d), _shown(u[i], d)
        p, s = _shown(dp.products[i], d), _shown(dp.running_sum[i], d)
        if _reader(_redo(mi) * _redo(ui), d) != p:
            faults.append(f"{mi} x {ui} = {p}")
        if _reader(previous + _redo(p), d) != s:
            faults.append(f"running sum {previous} + {p} = {s}")
        previous = _redo(s)
        for value, text in ((m[i], mi), (u[i], ui), (dp.products[i], p), (dp.running_sum[i], s)):
            if abs(value) > 1e-12 and _redo(text) == 0:
                faults.append(f"{value!r} shows as {text}")
    score, nm, nu = _shown(dp.score, d), _shown(dp.norm_movie, d), _shown(dp.norm_user, d)
    cos = _shown(dp.shown_cosine, c)
    if cos != _shown(dp.cosine, c):
        faults.append(f"cos {cos} is not the true {dp.cosine}")
    redone = _redo(score) / (_redo(nm) * _redo(nu))
    if _shown(max(-1.0, min(1.0, redone)), c) != cos:
        faults.append(f"{score} / ({nm} x {nu}) = {cos}")
    angle = round(math.degrees(math.acos(max(-1.0, min(1.0, _redo(cos))))))
    if angle != round(dp.angle_deg):
        faults.append(f"arccos({cos}) = {angle} deg, the arrow {dp.angle_deg:.1f} deg")
    if angle != round(dp.shown_angle_deg):
        faults.append(f"the screen's angle {dp.shown_angle_deg} is not arccos({cos})")
    return faults


def _random_vector(rng: random.Random, n: int) -> np.ndarray:
    # As a user writes them: 1 to 3 decimals, anywhere in -10..10, often small.
    scale = rng.choice([10.0, 1.0, 0.05])
    places = rng.choice([1, 2, 3] if scale > 0.05 else [2, 3])  # 0.05 at one decimal is all zeros
    while True:
        v = np.array([round(rng.uniform(-scale, scale), places) for _ in range(n)])
        if np.max(np.abs(v)) >= 0.005:  # the file's own floor (not all zeros)
            return v


def test_the_issue_case_by_hand():
    # A small movie vector: at two decimals the screen read "0.01 x -0.80 = 0.00"
    # and "theta = arccos(0.00) = 90" while the arrow showed 107 degrees.
    m, u = np.array([0.006, -0.005, 0.002]), np.array([-0.8, -0.3, 0.5])
    dp = compute_dot_product(DotProductInputs(("romance", "action", "comedy"), m, u))
    # At four decimals every product is exact: -0.0048, 0.0015, 0.0010, sums
    # -0.0048, -0.0033, -0.0023; |m| = sqrt(0.000065) = 0.0081, |u| = sqrt(0.98) =
    # 0.9899; -0.0023 / (0.0081 x 0.9899) = -0.2869 -> -0.29; arccos(-0.29) = 107.
    assert dp.shown_decimals == 4
    assert [_shown(p, 4) for p in dp.products] == ["\u22120.0048", "0.0015", "0.0010"]
    assert _shown(dp.score, 4) == "\u22120.0023"
    assert (_shown(dp.norm_movie, 4), _shown(dp.norm_user, 4)) == ("0.0081", "0.9899")
    assert _shown(dp.shown_cosine, dp.cosine_decimals) == "\u22120.29"
    assert round(dp.shown_angle_deg) == round(dp.angle_deg) == 107
    assert _contradictions(m, u) == []


def test_near_parallel_vectors_show_the_cosine_to_more_decimals():
    # cos = 0.9996 -> "1.00" would read arccos(1.00) = 0 deg for an arrow at 1.6 deg.
    m, u = np.array([1.0, 0.0]), np.array([1.0, 0.028])
    dp = compute_dot_product(DotProductInputs(("a", "b"), m, u))
    assert dp.cosine_decimals >= 4
    assert _contradictions(m, u) == []


def test_no_shown_computation_contradicts_the_true_one_over_random_inputs():
    rng = random.Random(25)
    faults = {}
    for case in range(400):
        n = rng.randint(2, 6)
        m, u = _random_vector(rng, n), _random_vector(rng, n)
        found = _contradictions(m, u)
        if found:
            faults[(tuple(m), tuple(u))] = found
    assert not faults, list(faults.items())[:3]


def test_the_issue_case_on_screen_agrees_with_itself_and_the_arrow():
    data = varied(dot_product={"features": ["romance", "action", "comedy"],
                               "movie": [0.006, -0.005, 0.002], "user": [-0.8, -0.3, 0.5]})
    trace = trace_from(data)
    scene = build_scene("dot_product", trace, min_text_px=MIN_TEXT_PX)
    check_scene(scene, trace_from(data))  # in frame, no overlap, every number the core's
    shown = {}
    for n in scene.audit.numbers:
        shown.setdefault(n.key, n.shown)
    dp = trace.dot_product
    for i in range(3):
        m, u = _redo(shown[("dot_product.movie", i)]), _redo(shown[("dot_product.user", i)])
        product = shown[("dot_product.products", i)]
        assert _shown(round(m * u, 12), 4) == product != "0.0000"
    cos = shown[("dot_product.shown.cosine",)]
    redone = _redo(shown[("dot_product.score",)]) / (_redo(shown[("dot_product.norm_movie",)])
                                                       * _redo(shown[("dot_product.norm_user",)]))
    assert _shown(redone, len(cos.split(".")[1])) == cos
    assert int(shown[("dot_product.shown.angle_deg",)]) == round(dp.angle_deg)


# -- sums written term by term (output_mapping, dot_product_attention, worked_example) ------------
#
# Rounded terms often miss the rounded total by a digit, and no number of
# decimals prevents it for long sums: such a line says "≈", not "=".


def _adds_up(terms, total, decimals: int = 2) -> bool:
    added = sum(_redo(_shown(t, decimals)) for t in terms)
    return _shown(round(added, 9), decimals) == _shown(total, decimals)


def test_sum_sign_by_hand():
    from attention_core.formatting import sum_sign

    assert sum_sign([1 / 3, 1 / 3, 1 / 3], 1.0) == "\u2248"  # 0.33 + 0.33 + 0.33 = 0.99, not 1.00
    assert sum_sign([0.25, 0.75], 1.0) == "="
    assert sum_sign([0.004, 0.004], 0.008) == "\u2248"  # 0.00 + 0.00 is not 0.01
    assert sum_sign([-0.48, 0.81, 0.06], 0.39) == "="


def test_sum_sign_over_random_sums():
    from attention_core.formatting import sum_sign

    rng = random.Random(22)
    for _ in range(2000):
        terms = [rng.uniform(-10, 10) * rng.choice([1, 0.01]) for _ in range(rng.randint(2, 10))]
        total = sum(terms)
        assert (sum_sign(terms, total) == "=") == _adds_up(terms, total), (terms, total)


# Inputs (found by a seeded search) where the close-up's products and a worked-example
# column of weights do not add up as shown.
UNEVEN_X = [[-1.19, -2.81, 2.19], [-0.16, 1.31, 2.27], [1.28, 2.53, -0.63], [1.81, -0.33, 2.61]]
UNEVEN_Q = [2.27, -2.42, -2.18]
UNEVEN_QUERIES = [[-1.7, 2.79, -0.38], [0.76, -1.19, 0.04], [-0.68, -0.89, 0.51]]


def test_output_mapping_term_line_says_approx_when_the_terms_miss(monkeypatch):
    from scenes.components import NumberLabel
    from scenes.output_mapping import OutputMappingScene

    lines = []
    original = OutputMappingScene._dot_terms

    def spy(self, i, font):
        line = original(self, i, font)
        lines.append(line)
        return line

    monkeypatch.setattr(OutputMappingScene, "_dot_terms", spy)
    # The small RNN of 4 numbers: every term on the line (12 would be elided: "\u2026").
    trace = trace_from(varied(seed=1, sentences={"source": "the zebra eats fish",
                                                 "target": "le zebre mange du poisson"},
                              sizes={"embedding": 4, "hidden": 4}))
    m = trace.plain_output_mapping
    assert not _adds_up(m.products[m.chosen_id], m.scores[m.chosen_id])
    build_scene("output_mapping", trace)
    line = next(x for x in lines if x is not None)
    family = [x for x in line.get_family()]
    numbers = [x for x in family if isinstance(x, NumberLabel)]
    signs = [x.original_text for x in family if getattr(x, "original_text", None) in ("=", "\u2248")]
    terms, total = [_redo(n.shown) for n in numbers[:-1]], numbers[-1].value
    assert len(terms) == 4
    assert signs[-1] == "\u2248"


def test_close_up_and_column_sums_say_so_when_the_shown_terms_miss(monkeypatch):
    import scenes.worked_example as we

    data = varied(dot_product_attention={"inputs": UNEVEN_X, "query": UNEVEN_Q},
                  worked_example={"inputs": UNEVEN_X, "queries": UNEVEN_QUERIES})
    trace = trace_from(data)
    d = trace.dot_product_attention
    assert not _adds_up(d.weighted_inputs[:, 1], d.output[1])
    scene = build_scene("dot_product_attention", trace)
    sigma = [m for top in scene.mobjects for m in top.get_family()
             if "\\Sigma" in (getattr(m, "tex_string", "") or "")]
    assert sigma and all("\\approx" in m.tex_string for m in sigma), [m.tex_string for m in sigma]

    made = []
    original = we.caption

    def spy(text, *args, **kwargs):
        made.append(text)
        return original(text, *args, **kwargs)

    monkeypatch.setattr(we, "caption", spy)
    w = trace.worked_example
    assert any(not _adds_up(w.weights[:, j], w.weight_sums[j]) for j in range(w.weights.shape[1]))
    build_scene("worked_example", trace)
    assert "column sums (before rounding)" in made and "column sums" not in made
