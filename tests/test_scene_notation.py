"""The drafts' notation on screen (docs/notation.md), read back from every
frame the audit records: the Part 1 scenes and the attention scenes show the
one model in its symbols (x_t, h_t, h_T, s_t, op_t, e_w, e_tj, a_tj, c_t), never
the old bidirectional model's (f_t, b_t, [f_T ; b_1], W_init, o_t = W_o [...] + b_o,
y_{t-1}, y_w). And the untrained fallback (issue 15's repro sentence) goes
through the same scenes, saying on screen that it is untrained."""

from __future__ import annotations

import re

import pytest

from .helpers import build_scene, check_scene, load_default_trace, observed_default, trace_from, varied

PART1 = ("seq2seq_overview", "word_embeddings", "encoder", "hidden_state_map", "decoder", "output_mapping",
         "bottleneck", "length_curve", "attention_process", "attention_learning")
# Issue 15's repro: "zebra" is not in the grammar, so the untrained tanh RNN is shown.
ZEBRA = dict(seed=2024, sentences={"source": "the zebra eats fish", "target": "le zèbre mange du poisson"},
             sizes={"embedding": 4, "hidden": 4})

# The old model's symbols: f_t, b_t, y_t as LaTeX (f_{..}, b_1, y_w) or with Unicode
# subscripts (f₁, bⱼ, yₜ), and its output layer and initial-state layer.
# (f_att, the draft's own name of the scoring network, is allowed.)
_TEX_FORBIDDEN = re.compile(r"(?<![A-Za-z\\])[fby]_(?!\{att\})|W_o\b|W_\{?\\mathrm\{init|(?<![A-Za-z\\])o_t\b|b_o\b")
_TEXT_FORBIDDEN = re.compile(r"(?<![A-Za-z])[fby](_(?!\{?att)|[\u2080-\u2089\u209c\u2c7c\u1d62])|\[f|W_init|bidirectional")




def test_the_patterns_catch_the_old_symbols():
    # The checks below can fail: every old label is caught, no new one is.
    for tex in (r"f_t = \mathrm{GRU}(x_t, f_{t-1})", r"c = [f_T ; b_1]", r"y_{t-1}", r"o_t \cdot y_w + b_w",
                r"s_0 = \tanh(W_{\mathrm{init}}\,c + b_{\mathrm{init}})", r"o_t = W_o\,[s_t;\,c_t] + b_o"):
        assert _TEX_FORBIDDEN.search(tex), tex
    for text in ("f\u2081", "b\u2081", "[f\u2084 ; b\u2081]", "y\u209c", "f_T", "bidirectional GRU"):
        assert _TEXT_FORBIDDEN.search(text), text
    for tex in (r"h_t = \mathrm{GRU}(x_t,\ h_{t-1})", r"s_t = \mathrm{GRU}(op_{t-1},\ s_{t-1},\ h_{4})",
                r"p_w = \mathrm{softmax}_w(s_t \cdot e_w)", r"a_{tj} = \mathrm{softmax}_j\,(e_{tj})",
                r"c_t = \textstyle\sum_j a_{tj}\,h_j", r"op_t = \arg\max_w\ s_t \cdot e_w",
                r"e_{tj} = f_{att}(s_{t-1}, h_j)"):
        assert not _TEX_FORBIDDEN.search(tex), tex
    for text in ("h\u2084: the context vector", "s\u2080 = 0,  op\u2080 = <START>", "by", "the fish", "baby"):
        assert not _TEXT_FORBIDDEN.search(text), text


@pytest.mark.parametrize("scene_id", PART1)
@pytest.mark.default_build
def test_default_shows_only_the_drafts_symbols(scene_id):
    observed = observed_default(scene_id, "dark")  # the shared default build (every snapshot's texts recorded)
    scene, texts_seen = observed.scene, observed.texts
    check_scene(scene, load_default_trace())
    assert texts_seen
    bad = sorted(t for t in texts_seen if _TEX_FORBIDDEN.search(t) or _TEXT_FORBIDDEN.search(t))
    assert not bad, bad
    # Nothing on screen is keyed to the old sections or the old model's keys.
    old = ("encoder_forward", "encoder_backward", "annotations", "summary", "output_bias", ".output",
           ".bias", ".dot_products", ".logits")
    keys = {n.key[0] for n in scene.audit.numbers}
    assert not [k for k in keys if any(o in k for o in old)]
    assert not [k for k in keys if k.split(".")[0] in ("encoder", "decoder", "output_mapping", "attention")]


@pytest.mark.parametrize("scene_id", ("encoder", "word_embeddings", "bottleneck", "decoder", "output_mapping",
                                      "seq2seq_overview", "attention_process"))
def test_the_untrained_fallback_goes_through_the_same_scene(scene_id, texts_seen):
    # Issue 15's repro (it used to fail for encoder, word_embeddings and bottleneck).
    scene = build_scene(scene_id, trace_from(varied(**ZEBRA)))
    independent = trace_from(varied(**ZEBRA))
    section = "model" if scene_id == "attention_process" else "plain_model"
    assert independent.to_dict()[section]["network"] == "tanh_rnn"
    check_scene(scene, independent)
    # The same keys as the trained network's: one code path, one set of names.
    prefixes = {n.key[0].split(".")[0] for n in scene.audit.numbers}
    assert prefixes <= {"plain_model", "plain_output_mapping", "model", "length_experiment"}, prefixes
    assert any("untrained" in t.lower() or "not a translation" in t for t in texts_seen)
    bad = sorted(t for t in texts_seen if _TEXT_FORBIDDEN.search(t))
    assert not bad, bad
