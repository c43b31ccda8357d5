"""The scenes ``decoder`` and ``output_mapping`` over the translator trained
without attention (the default) and over the small seeded tanh RNN (the
untrained fallback), built headless. Both networks live in the same Trace
sections (``plain_model``, ``plain_output_mapping``), with the same keys.

Expected keys come from the independent trace's JSON (its documented keys),
not from :mod:`scenes.seq2seq_view`, so a view that paired a value with the
wrong key would fail here. No [model] setting other than ``weights =
"seeded"`` is used: any other would train.
"""

from __future__ import annotations

import pytest
from manim import Rectangle, Text

from attention_core.text import tokenize
from attention_core.translator.corpus import source_words
from scenes.base import WalkthroughScene
from scenes.components import NumberLabel, kept_indices, subscript
from scenes.part1_words import PLAIN_TRAINED_NOTE
from scenes.output_mapping import MAX_COLS as OM_MAX_COLS
from scenes.picked_rows import pick_cols

from .helpers import build_scene, check_scene, load_default_trace, observed_default, shown_keys, trace_from, varied
from .test_scene_encoder import chip_values, step_times

MIN_NUMBER_FONT = 14
# A sentence with a word the grammar lacks: the scenes show the tanh RNN.
UNKNOWN_WORD = {"sentences": {"source": "Inflation has slowed down in recent years"}}
# 12 grammar words with a reference in the corpus: 12 words and <END> = 13 steps.
TWELVE_KNOWN = "the white mouse has eaten the big white house in recent years"
# 12 grammar words that are not a corpus pair: no reference to compare with.
TWELVE_NEW = "the big black goat has eaten the small red apple this year"
SHORT = "trade increases"
# Untrained, 2 numbers a vector: no training, and the decoder may never say <END>.
SEEDED = {"model": {"weights": "seeded", "embedding": 2, "hidden": 2}}


@pytest.fixture(autouse=True)
def number_fonts(monkeypatch):
    """Record the font size of every number on screen at every audit snapshot."""
    sizes: list[float] = []
    snapshot = WalkthroughScene._snapshot

    def recording(self):
        snapshot(self)
        sizes.extend(m.font_size for top in self.mobjects for m in top.get_family()
                     if isinstance(m, NumberLabel) and m.get_fill_opacity() > 0.5)

    monkeypatch.setattr(WalkthroughScene, "_snapshot", recording)
    return sizes


def _texts(scene) -> list[str]:
    return [m.original_text for top in scene.mobjects for m in top.get_family() if isinstance(m, Text)
            and not isinstance(m, NumberLabel)]


def _check(scene_id, scene, independent, expected, fonts):
    assert type(scene).scene_id == scene_id
    check_scene(scene, independent, expected)
    assert fonts and min(fonts) >= MIN_NUMBER_FONT - 0.05, min(fonts)


def _final_keys(scene) -> set[str]:
    """The arrays whose numbers are on screen in the last frame."""
    return {m.key[0] for top in scene.mobjects for m in top.get_family()
            if isinstance(m, NumberLabel) and m.key is not None}


def _plain(trace) -> dict:
    return trace.to_dict()["plain_model"]


def _translation(m: dict) -> list[str]:
    return [s["chosen"] for s in m["steps"] if s["chosen"] != "<END>"]


def test_the_sentences_are_what_the_tests_say():
    known = set(source_words())
    for sentence in (TWELVE_KNOWN, TWELVE_NEW, SHORT):
        tokens = tokenize(sentence)
        assert all(w in known for w in tokens), sentence
    assert len(tokenize(TWELVE_KNOWN)) == len(tokenize(TWELVE_NEW)) == 12
    m = _plain(trace_from(varied(sentences={"source": TWELVE_KNOWN})))
    assert m["reference"] is not None and m["steps"][-1]["chosen"] == "<END>"
    assert _translation(m) != m["reference"]  # the plain model gets some words wrong
    assert _plain(trace_from(varied(sentences={"source": TWELVE_NEW})))["reference"] is None
    fallback = _plain(trace_from(varied(**UNKNOWN_WORD)))
    assert fallback["network"] == "tanh_rnn" and fallback["trained"] is False


# -- decoder ------------------------------------------------------------------

def decoder_keys(trace) -> set[tuple]:
    """Digits once (issue 31): s_0's zeros and s_1 in step 1, every step's p; from the trace's JSON."""
    m = _plain(trace)
    # Columns of more than 8 numbers show their first ones, dots, and the last.
    rows = [j for j in kept_indices(len(m["initial_state"]), 8) if j is not None]
    keys = {(name, j) for name in ("plain_model.initial_state", "plain_model.steps.0.state") for j in rows}
    keys |= {(f"plain_model.steps.{t}.chosen_probability",) for t in range(len(m["steps"]))}
    return keys


def _decoder(data, fonts, skip=True):
    trace = load_default_trace() if data is None else trace_from(data)
    scene = build_scene("decoder", trace, skip=skip)
    independent = load_default_trace() if data is None else trace_from(data)
    _check("decoder", scene, independent, decoder_keys(independent), fonts)
    # Nothing but those: h_T, op_t and the later s_t are chips.
    assert shown_keys(scene) == decoder_keys(independent)
    return scene, independent


def test_decoder_default_is_the_translator_every_frame(number_fonts):
    scene, trace = _decoder(None, number_fonts, skip=False)
    m = _plain(trace)
    assert m["weights"] == "trained" and m["steps"][-1]["chosen"] == "<END>"
    texts = _texts(scene)
    T = len(m["tokens"])
    # The network in the reader's words (no training recipe), and why h_T matters.
    assert any(f"all the decoder sees of the sentence is h{subscript(T)}" in t for t in texts)
    assert not any("steps" in t or "trained" in t for t in texts)
    assert not any("not a translation" in t for t in texts)
    # The shipped sentence is translated as its reference: said so, nothing marked.
    assert _translation(m) == m["reference"]
    assert any("equal the reference" in t for t in texts)
    assert not any("differs" in t for t in texts)
    # The last frame shows the words written and the reference, in order.
    for word in (*[s["chosen"] for s in m["steps"]], *m["reference"]):
        assert word in texts
    # The poster (last frame) is the whole decoder, not only the comparison: the
    # context h_T, the last step's input and state as chips whose bands are the core's
    # values, the cell and the output mapping, and the last p (the one number left).
    n = len(m["steps"])
    assert _final_keys(scene) == {f"plain_model.steps.{n - 1}.chosen_probability"}
    assert chip_values(scene, f"h{subscript(T)}") == pytest.approx(m["encoder_states"][T])
    assert chip_values(scene, f"s{subscript(n)}") == pytest.approx(m["steps"][n - 1]["state"])
    assert chip_values(scene, f"op{subscript(n - 1)}") == pytest.approx(m["steps"][n - 1]["input_embedding"])
    assert {"decoder\nGRU", "output\nmapping", "written:", "reference:"} <= set(texts)
    # s_0 starts as zeros, and is shown as zeros.
    shown = scene.audit.by_key()
    H = len(m["initial_state"])
    assert m["initial_state"] == [0.0] * H
    assert all(shown[("plain_model.initial_state", j)].shown == "0.00"
               for j in kept_indices(H, 8) if j is not None)


def test_decoder_tanh_fallback(number_fonts):
    scene, trace = _decoder(varied(**UNKNOWN_WORD), number_fonts)
    assert _plain(trace)["network"] == "tanh_rnn"
    texts = _texts(scene)
    assert any("not a translation" in t for t in texts)
    assert any("untrained" in t for t in texts)
    assert not any("trained without attention" in t for t in texts)


def test_decoder_twelve_words_thirteen_steps_against_the_reference(number_fonts):
    scene, trace = _decoder(varied(sentences={"source": TWELVE_KNOWN}), number_fonts)
    m = _plain(trace)
    texts = _texts(scene)
    assert any("differs from the reference" in t for t in texts)
    assert not any("equal the reference" in t for t in texts)
    for step in m["steps"]:
        assert step["chosen"] in texts


def test_decoder_short_sentence(number_fonts):
    scene, trace = _decoder(varied(sentences={"source": SHORT}), number_fonts)
    assert len(_plain(trace)["steps"]) <= 4


def test_decoder_seeded_runs_to_the_step_cap_and_fits(number_fonts):
    # Seeded (untrained) weights on a sentence the corpus lacks: no reference,
    # and the decoder may never choose <END>, so it runs every allowed step.
    scene, trace = _decoder(varied(sentences={"source": TWELVE_NEW}, **SEEDED), number_fonts)
    m = _plain(trace)
    assert m["weights"] == "seeded" and len(m["initial_state"]) == 2
    texts = _texts(scene)
    assert any("not a translation" in t for t in texts)
    assert any("no reference translation" in t for t in texts)
    if m["steps"][-1]["chosen"] != "<END>":
        assert any("without choosing <END>" in t for t in texts)


# -- output_mapping -------------------------------------------------------------

def mapping_keys(trace, top: int = 3) -> set[tuple]:
    m = trace.to_dict()["plain_output_mapping"]
    s = "plain_output_mapping"
    H = len(m["state"])
    # Wide states show their first numbers, dots, and the last one.
    cols = [j for j in pick_cols(H, OM_MAX_COLS) if j is not None]
    words = [int(i) for i in m["ranked"][:top]]
    keys = {(f"{s}.state", j) for j in cols}
    keys |= {(f"{s}.embeddings.{i}", j) for i in words for j in cols}
    keys |= {(f"{s}.{name}", i) for name in ("scores", "probabilities") for i in words}
    keys |= {(f"{s}.products.{m['chosen_id']}", j) for j in cols}
    # One rounding (issue 31): op_t's p is its probability's cell value, no separate percent.
    keys |= {(f"{s}.probability_sum",)}
    return keys


def _mapping(data, fonts, skip=True):
    trace = load_default_trace() if data is None else trace_from(data)
    scene = build_scene("output_mapping", trace, skip=skip)
    independent = load_default_trace() if data is None else trace_from(data)
    _check("output_mapping", scene, independent, mapping_keys(independent), fonts)
    return scene, independent


def _rows_shown(scene) -> set[int]:
    prefix = "plain_output_mapping.embeddings."
    return {int(k[0][len(prefix):]) for k in shown_keys(scene) if k[0].startswith(prefix)}


def test_output_mapping_default_every_frame(number_fonts):
    scene, trace = _mapping(None, number_fonts, skip=False)
    m = trace.plain_output_mapping
    V = len(m.vocabulary)
    # A big vocabulary: a few shown (the most probable, the chosen one first), dots for the rest.
    rows = _rows_shown(scene)
    assert m.chosen_id in rows and len(rows) < V // 4
    assert rows == set(m.ranked[:len(rows)])
    texts = _texts(scene)
    assert any(f"of {V} French words" in t for t in texts)
    assert m.chosen_word in texts
    assert any(t.startswith(PLAIN_TRAINED_NOTE) for t in texts)
    assert not any("%" in t or "steps" in t for t in texts)  # one rounding; no training recipe
    # Each probability shown has its bar beside it, p times the bar's full length.
    from scenes.output_mapping import BAR_W

    bars = sorted(r.width for top in scene.mobjects for r in top.get_family()
                  if isinstance(r, Rectangle) and r.get_fill_opacity() > 0.5
                  and r.get_fill_color().to_hex().lower() == scene.theme.weight.lower())
    assert len(bars) == len(rows)
    assert bars == pytest.approx(sorted(max(BAR_W * m.probabilities[i], 0.01) for i in rows))


def test_output_mapping_tanh_fallback(number_fonts):
    scene, trace = _mapping(varied(**UNKNOWN_WORD), number_fonts)
    assert _plain(trace)["network"] == "tanh_rnn"
    assert any("untrained" in t for t in _texts(scene))


def test_output_mapping_twelve_words(number_fonts):
    scene, trace = _mapping(varied(sentences={"source": TWELVE_NEW}), number_fonts)
    assert trace.plain_output_mapping.chosen_word in _texts(scene)


@pytest.mark.parametrize("which", ["first", "last"])
def test_output_mapping_first_and_last_step(which, number_fonts):
    # The first step on the short sentence, the last (<END>) on the default one.
    if which == "first":
        data = varied(sentences={"source": SHORT}, output_mapping={"step": 1})
        step = 1
    else:
        step = len(_plain(load_default_trace())["steps"])
        data = varied(output_mapping={"step": step})
    scene, trace = _mapping(data, number_fonts)
    m = trace.plain_output_mapping
    assert m.step == step and m.chosen_word == _plain(trace)["steps"][step - 1]["chosen"]
    assert m.chosen_word in _texts(scene)
    if which == "last":
        assert m.chosen_word == "<END>"


def test_output_mapping_seeded_small(number_fonts):
    scene, trace = _mapping(varied(**SEEDED), number_fonts)
    assert len(trace.plain_output_mapping.state) == 2
    assert any("not a translation" in t for t in _texts(scene))


# -- motion and layout (issue 22) -------------------------------------------------

def _box_of(m):
    lo, hi = m.get_corner([-1, -1, 0]), m.get_corner([1, 1, 0])
    return lo[0], lo[1], hi[0], hi[1]


def _apart(a, b, gap=0.0):
    ax0, ay0, ax1, ay1 = _box_of(a)
    bx0, by0, bx1, by1 = _box_of(b)
    return ax1 + gap <= bx0 or bx1 + gap <= ax0 or ay1 + gap <= by0 or by1 + gap <= ay0


@pytest.mark.default_build("decoder")
def test_decoder_carries_each_state_and_word_to_where_it_is_used():
    scene = observed_default("decoder", "dark").scene
    n = scene.view.steps
    # Every s_t (t < n) moved into the s_{t-1} slot of step t + 1; every chosen word went
    # down into the words written, and from there back into the op slot as op_t.
    assert [m for m in scene.moves if m[0] == "s"] == [("s", ("s", t), ("s_prev", t + 1)) for t in range(1, n)]
    assert [m for m in scene.moves if m[0] == "written"] == [("written", ("word", t), ("written", t - 1))
                                                              for t in range(1, n + 1)]
    assert [m for m in scene.moves if m[0] == "op"] == [("op", ("written", t - 1), ("op", t)) for t in range(1, n)]


def test_decoder_repeated_steps_speed_up(monkeypatch):
    # Issue 31: steps 1 and 2 told, every later one at most 40 % of the first (they ran at one pace).
    steps = step_times("decoder", load_default_trace(), ("compute_state",), "mark_the_end", monkeypatch)
    assert len(steps) == len(_plain(load_default_trace())["steps"]) >= 4
    assert steps[1] > 0.4 * steps[0]
    assert all(0.5 < d <= 0.4 * steps[0] for d in steps[2:]), steps


@pytest.mark.default_build("decoder")
def test_decoder_labels_keep_apart_and_off_the_columns():
    scene = observed_default("decoder", "dark").scene
    lines = [line for group in scene.meanings for line in group.submobjects] or list(scene.meanings)
    # "previous word / whole sentence / generated so far": a visible gap between neighbours,
    # each line against each line of the next column (they used to run together: "generatedwhole").
    meanings = sorted(scene.meanings, key=lambda m: m.get_x())
    for a, b in zip(meanings, meanings[1:]):
        assert b.get_left()[0] - a.get_right()[0] >= 0.15, (a.original_text, b.original_text)
    # "s₀ = 0, op₀ = <START>" sits on no column and no box of the inputs.
    for col in (scene.s_col, scene.op_col):
        assert _apart(scene.start, col)
    assert _apart(scene.start, scene.cell.box) and lines
