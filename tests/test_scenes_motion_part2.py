"""Issue 22, part B: the faults a reader saw in the Part 2 scenes, each as a test that
fails on the code before the fix.

- ``dot_product_attention``, ``multi_query_attention``, ``worked_example``: the last
  frame is a complete figure (the query or queries, X, E, A and the output together);
  step 4 shows the transpose as motion (column k of Xᵀ / A flies into row k); the draft's
  notation (a_{2•}·h_{•2}, N_X, D_Q); level bars wide enough to read; weights coloured
  so that the ones compared look different; the draft's printed values shown beside
  the computed ones.
- ``output_mapping``: the scores arrive one row at a time; e_w typeset, never "e_w".
- ``cnn_attention``: the weights and c_t never fade out and back between words; the
  grid over the image while attention is shown; the poster has one thumbnail per word.
"""

from __future__ import annotations

import numpy as np
import pytest
from manim import MathTex, Rectangle, Text

from scenes.components import NumberLabel, ValueCell
from scenes.glyphs import Bar
from scenes.theme import delta_e_2000, hex_to_lab

from .helpers import build_scene, check_numbers, load_default_trace, trace_from, varied


def _final_keys(scene) -> set[str]:
    """The sections of the numbers visible in the last frame (``dot_product_attention.query``...)."""
    return {m.key[0] for top in scene.mobjects for m in top.get_family()
            if isinstance(m, NumberLabel) and m.key is not None
            and max(float(m.get_fill_opacity()), float(m.get_stroke_opacity())) > 0.02}


def _final_tex(scene) -> list[str]:
    return [m.tex_string for top in scene.mobjects for m in top.get_family() if isinstance(m, MathTex)]


@pytest.fixture(scope="module")
def dpa():
    return build_scene("dot_product_attention", load_default_trace())


@pytest.fixture(scope="module")
def mqa():
    return build_scene("multi_query_attention", load_default_trace())


@pytest.fixture(scope="module")
def we():
    return build_scene("worked_example", load_default_trace())


# -- posters: the whole argument in the last frame ----------------------------------------


def test_dot_product_attention_poster_holds_query_inputs_scores_weights_output(dpa):
    p = "dot_product_attention"
    # Before: the dimmed close-up only (s_2 and E gone).
    assert {f"{p}.query", f"{p}.inputs", f"{p}.scores", f"{p}.weights", f"{p}.output",
            f"{p}.weighted_inputs"} <= _final_keys(dpa)
    assert dpa.audit.faults == []


def test_multi_query_attention_poster_holds_queries_inputs_scores_weights_outputs(mqa):
    p = "multi_query_attention"
    assert {f"{p}.queries", f"{p}.inputs", f"{p}.scores", f"{p}.weights", f"{p}.outputs"} <= _final_keys(mqa)
    assert mqa.audit.faults == []


def test_worked_example_poster_holds_inputs_queries_scores_weights_and_context(we):
    p = "worked_example"
    # Issue 31: digits once, then symbols. q's numbers are read in steps 1-2; at the 14 px floor
    # q^T has no room beside X in step 4, so the queries stay as names: A^T's rows and E's columns
    # ("the", "cat", "eats", "fish"). The draft's numbers have one beat (the close-up), not the
    # poster: its row of C is shown there only.
    assert {f"{p}.inputs", f"{p}.scores", f"{p}.weights", f"{p}.context"} <= _final_keys(we)
    names = [t.original_text for top in we.mobjects for t in top.get_family()
             if isinstance(t, Text) and max(float(t.get_fill_opacity()), 0) > 0.5]
    for word in ("the", "cat", "eats", "fish"):
        assert names.count(word) >= 2  # A^T's row and E's column
    assert f"{p}.draft_check.printed_context" not in _final_keys(we)
    assert f"{p}.draft_check.printed_context" in {n.key[0] for n in we.audit.numbers}
    assert we.audit.faults == []


# -- step 4: the transpose as motion -----------------------------------------------------


@pytest.mark.parametrize("scene_id", ["dot_product_attention", "multi_query_attention"])
def test_step_4_turns_each_column_of_xt_into_a_row_of_x(scene_id, dpa, mqa):
    scene = dpa if scene_id == "dot_product_attention" else mqa
    tr = getattr(load_default_trace(), scene_id)
    flights = [(src, dst) for what, src, dst in scene.moves if what == "transpose"]
    # One flight per shown input (Xᵀ's columns -> X's rows), in order; before: a fade.
    assert flights == [(("column", k), ("row", k)) for k in range(tr.inputs.shape[0])]


def test_worked_example_turns_each_column_of_a_into_a_row_of_at(we):
    M = load_default_trace().worked_example.queries.shape[0]
    flights = [(src, dst) for what, src, dst in we.moves if what == "transpose"]
    assert flights == [(("column", k), ("row", k)) for k in range(M)]
    # X lifts before A moves, then slides over C: never both at once (the tangle of 33.6 s).
    slides = [dst for what, src, dst in we.moves if what == "slide" and src == "X"]
    assert slides == ["X above C", "X above C"]


def test_multi_query_moves_e_in_its_frame(mqa):
    # Before: E's cells flew as loose boxes and one poked out of E's border (20 s). Issue 31:
    # E no longer slides away from Q to stand beside A; A grows under E, and in step 4 E moves
    # in its frame together with A (left along their rows, then up under Q).
    slides = [(src, dst) for what, src, dst in mqa.moves if what == "slide"]
    assert ("E,A", "left column") in slides and ("E,A", "stack") in slides
    assert ("E", "E beside A") not in slides
    assert slides.index(("Q", "stack")) < slides.index(("E,A", "left column"))


def test_multi_query_keeps_q_and_xt_on_stage_until_xt_turns_into_x(mqa):
    """Issue 31: from 15 to 28 s Q and X^T faded out, E stood alone on a 70 %-empty frame,
    then Q and X^T faded back. Now no group leaves to come back, Q's and X^T's numbers are
    visible (dimmed, as chips) in step 3's last frame, and the scene never rebuilds them."""
    p = "multi_query_attention"
    end3 = {k[0] for k in mqa.step_end_keys["step-3-softmax"]}
    assert {f"{p}.queries", f"{p}.inputs", f"{p}.scores", f"{p}.weights"} <= end3
    assert mqa.audit.returns == []


# -- notation and legibility ------------------------------------------------------------------


def test_dot_product_attention_writes_the_drafts_notation(dpa):
    seen = " ".join(_final_tex(dpa))
    assert r"a_{2\bullet}\cdot h_{\bullet 2}" in seen
    assert "a_{2i}" not in seen
    said = " ".join(text for text, _, _ in dpa.pacer.log)
    assert "N_X" in said and "D_Q" in said
    assert "N = " not in said and "D = " not in said


def test_multi_query_level_bars_are_readable(mqa):
    bars = [m for top in mqa.mobjects for m in top.get_family() if isinstance(m, Bar)]
    assert bars
    # 8 px at 480p (60 px per unit): 0.13 units; before: 0.08 (5 px, drawn about 3 px).
    assert min(b.width for b in bars) >= 0.13


def test_worked_example_colours_weights_on_the_absolute_scale(we):
    """Issue 31: the weights were filled on a scale stretched from the smallest to the largest
    (0.16 to 0.26 looked sharply peaked); now on the 0-1 scale every clip uses, so weights that
    are nearly even look nearly alike, as they are."""
    from scenes.theme import DARK

    tr = load_default_trace().worked_example
    fills = {}
    for top in we.mobjects:
        for m in top.get_family():
            if isinstance(m, ValueCell) and m.number is not None and m.number.key is not None \
                    and m.number.key[0] == "worked_example.weights":
                fills[m.number.key[1:]] = m.box.get_fill_color().to_hex()
    lo = tuple(int(k) for k in np.unravel_index(int(np.argmin(tr.weights)), tr.weights.shape))
    hi = tuple(int(k) for k in np.unravel_index(int(np.argmax(tr.weights)), tr.weights.shape))
    assert tr.weights.min() < 0.17 and tr.weights.max() > 0.25
    for key, hexed in fills.items():
        assert hexed.upper() == DARK.heat(float(tr.weights[key])).to_hex().upper()
    # 0.16 and 0.26 on a 0-1 scale: a small step (on the stretched scale it was >= 20).
    assert delta_e_2000(hex_to_lab(fills[lo]), hex_to_lab(fills[hi])) < 20
    assert delta_e_2000(hex_to_lab(DARK.heat(0.0).to_hex()), hex_to_lab(DARK.heat(1.0).to_hex())) >= 20


def test_worked_example_says_what_the_draft_gets_wrong_in_one_beat(we):
    """Issue 31: about 40 s went to the draft's struck-through matrices; now one beat (the
    close-up, at most 10 s) counts what its s, alpha and C get wrong and sets its row "the"
    of C, struck through, beside ours."""
    tr = load_default_trace().worked_example
    keys = {n.key for n in we.audit.numbers}
    assert {("worked_example.draft_check.printed_context", 0, k) for k in range(3)} <= keys
    assert not any(k[0] in ("worked_example.draft_check.printed_scores",
                            "worked_example.draft_check.printed_weights") for k in keys)
    # Shown at the draft's own precision (4 decimals for C), equal to the data.
    assert check_numbers(we, load_default_trace()) > 0
    shown = {n.shown for n in we.audit.numbers if n.key[0] == "worked_example.draft_check.printed_context"}
    assert "0.1866" in shown  # the draft's C[0][0], as it prints it
    said = [(text, start, end) for text, start, end in we.pacer.log if text.startswith("The draft's s")]
    assert len(said) == 1
    text, start, end = said[0]
    assert (f"{tr.draft_score_mismatches} of {tr.scores.size}, {tr.draft_weight_mismatches} of "
            f"{tr.weights.size} and {tr.draft_context_mismatches} of {tr.context.size} differ") in text
    assert end - start <= 10.0 + 1e-6
    (what, a, b), = we.close_ups
    assert a <= start and end <= b + 1.0  # the draft's beat is the close-up


# -- output_mapping ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def om():
    return build_scene("output_mapping", load_default_trace())


def test_output_mapping_scores_arrive_one_row_at_a_time(om):
    rows = [dst for what, src, dst in om.moves if what == "ring_to"]
    sums = [m for m in om.moves if m[0] == "sum"]
    shown = {n.key for n in om.audit.numbers if n.key[0].endswith("scores")}
    # The chosen word's sum flies from its line; each other row gets the ring in turn
    # (before: 69 scores faded in together in 1.2 s).
    assert len(sums) == 1
    assert len(rows) == len(shown) - 1 >= 2


def test_output_mapping_carries_the_chosen_words_products_into_its_line(om):
    from scenes.seq2seq_view import output_view

    m = output_view(load_default_trace()).mapping
    carried = [dst for what, src, dst in om.moves if what == "product"]
    shown = {n.key for n in om.audit.numbers if n.key[0].endswith(f"products.{m.chosen_id}")}
    # Each product shown in the line arrives from s_t and e_w, in column order (before: the
    # whole line faded in at once, then 69 scores... then one sum flew).
    assert len(carried) == len(shown) >= 2
    assert carried == sorted(carried, key=lambda k: k[1])
    assert set(carried) == shown


def test_output_mapping_typesets_e_w(om):
    texts = [t.original_text for top in om.mobjects for t in top.get_family() if isinstance(t, Text)]
    assert not [t for t in texts if "e_w" in t]
    assert "e_w" in _final_tex(om)


# -- cnn_attention ---------------------------------------------------------------------------------


def test_cnn_weights_and_context_stay_while_the_caption_is_written(monkeypatch):
    """And the image's grid lines are on screen whenever the weights are."""
    from manim import Line

    from scenes.base import WalkthroughScene
    from scenes.cnn_attention import SIDE, WEIGHTS_SIDE

    trace = load_default_trace()
    G = trace.cnn.grid
    runs: list[bool] = []
    gridded: list[bool] = []
    snapshot = WalkthroughScene._snapshot

    def recording(self):
        snapshot(self)
        cells = [m for top in self.mobjects for m in top.get_family()
                 if isinstance(m, Rectangle) and abs(m.width - WEIGHTS_SIDE / G) < 1e-6
                 and float(m.get_stroke_opacity()) > 0.3]
        runs.append(len(cells) >= G * G)
        lines = [m for top in self.mobjects for m in top.get_family()
                 if isinstance(m, Line) and abs(m.get_length() - SIDE) < 1e-6
                 and float(m.get_stroke_opacity()) > 0.3]
        gridded.append(len(lines) >= 2 * (G + 1))

    monkeypatch.setattr(WalkthroughScene, "_snapshot", recording)
    scene = build_scene("cnn_attention", trace, sample_transitions=True)
    assert scene.audit.faults == []
    # Shown once, without a gap until the poster (before: out and back between words).
    shown_runs = sum(1 for a, b in zip([False, *runs], runs) if b and not a)
    assert any(runs) and shown_runs == 1
    # The cells the weights are over stay drawn on the image (before: only while the CNN pools).
    assert all(g for r, g in zip(runs, gridded) if r)


def test_cnn_poster_has_one_thumbnail_per_word_with_its_weight():
    trace = load_default_trace()
    cnn = trace.cnn
    scene = build_scene("cnn_attention", trace)
    final = {m.key for top in scene.mobjects for m in top.get_family()
             if isinstance(m, NumberLabel) and m.key is not None}
    for t in range(len(cnn.tokens)):
        if cnn.object_mass[t] is not None:
            assert ("cnn.object_mass", t) in final
        elif cnn.next_object[t] is not None:
            assert ("cnn.next_object_mass", t) in final
    # "a" has no object of its own: its weight is measured on the next word's object, the ball.
    assert cnn.tokens[0] == "a" and cnn.next_object[0] == 1 and cnn.next_object_mass[0] > 0.5
    assert check_numbers(scene, load_default_trace()) > 0


@pytest.mark.parametrize("caption_words", [None, "a ball and a car over the grass"], ids=["default", "two-rows"])
def test_cnn_poster_labels_read_as_two_lines(caption_words):
    """Under the thumbnails, every word of a row sits on one baseline and every line under
    the words ("on the ball 1.00", "-> car 0.00") on another, its number on its words' line
    ("ball" and "and" sat lower than "a": each label was centred under its thumbnail)."""
    from scenes.components import baseline_of

    data = varied()
    if caption_words is not None:
        data["cnn"]["caption"] = caption_words
    scene = build_scene("cnn_attention", trace_from(data))
    assert sum(len(row) for row in scene.poster_rows) == len(scene.trace.cnn.tokens)
    for row in scene.poster_rows:
        words = [baseline_of(label[0]) for label in row]
        assert max(words) - min(words) < 0.005, words
        lines = [label[1] for label in row if len(label) > 1]
        assert len(lines) >= 2
        firsts = [baseline_of(next(m for m in line.get_family() if isinstance(m, Text))) for line in lines]
        assert max(firsts) - min(firsts) < 0.005, firsts
        for line in lines:
            texts = [m for m in line.submobjects if isinstance(m, Text)] if not isinstance(line, Text) else [line]
            assert max(baseline_of(t) for t in texts) - min(baseline_of(t) for t in texts) < 0.005
    assert scene.audit.faults == []


def test_a_caption_line_writes_its_symbols_in_one_typeface():
    """Issue 31: "s₂" as text beside a typeset $D_Q$ gave two typefaces on one line. A line with a
    formula refuses a Unicode sub- or superscript in its text; a line without one may use them."""
    from scenes.dot_product_attention import formula_caption
    from scenes.theme import DARK

    with pytest.raises(ValueError, match="'the query s\u2082 has' writes a symbol in text"):
        formula_caption("the query s\u2082 has $D_Q$ numbers", DARK)
    with pytest.raises(ValueError, match="X\u1d40"):
        formula_caption("$N_X$ inputs\nas the columns of X\u1d40 and $h_i$", DARK)
    plain = formula_caption("the query s\u2082\nthe keys $h_i$ and $X^{T}$", DARK)  # one kind per line
    assert plain.text == "the query s\u2082\nthe keys h_i and X^T"


def test_dot_product_attention_typesets_every_symbol_of_a_formula_line(dpa):
    from scenes.dot_product_attention import UNICODE_SCRIPTS

    said = [text for text, _, _ in dpa.pacer.log]
    assert any("s_2" in t and "D_Q = " in t and "h_i" in t for t in said)  # step 1, typeset throughout
    for text in said:
        for line in text.split("\n"):
            if any(sym in line for sym in ("D_Q", "N_X", "h_\u2022")):  # a formula line
                assert not any(ch in UNICODE_SCRIPTS for ch in line), line
