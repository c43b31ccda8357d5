"""The attention_process scene, built headless for the default and varied numbers.

With a sentence of the translator's grammar the scene shows the trained
model (Trace section ``model``); outside it, the untrained tanh RNN
fallback, in the same section with the same keys, with its "untrained"
caption.
"""

from __future__ import annotations

import pytest
from manim import Text

from scenes import SCENES

from .helpers import build_scene, check_numbers, load_default_trace, shown_keys, strip_geometry, trace_from, varied

TWELVE = ("extraordinarily complicated international negotiations unexpectedly collapsed "
          "yesterday afternoon despite considerable diplomatic encouragement")
TWELVE_TARGET = ("la négociation internationale extraordinairement compliquée "
                 "a échoué hier après midi malgré beaucoup")
# The longest sentences the translator's grammar writes have twelve words.
LONGEST = "the white mouse has eaten the big white house in recent years"


def _rows(n: int) -> list[int]:
    """Vector rows on screen: up to 4, else the first two, dots, the last (short columns
    leave the links from s_{t-1} room to fan out)."""
    return list(range(n)) if n <= 4 else [0, 1, n - 1]


def _model(trace) -> dict:
    return trace.to_dict()["model"]


def _expected_keys(trace, named_cells=()) -> set[tuple]:
    """Issue 31, digits once: the numbers read are the first step's, in the close-up (its
    scores, weights, context c_1 and the first word's probability), and the alignment cells
    the ending's why-lines name (``named_cells``); every vector (h_j, s, op, c) and every other
    row is a chip or heat cells without digits. From section ``model`` (the network with
    attention: the translator, or the untrained fallback, same keys)."""
    m = _model(trace)
    T = len(m["tokens"])
    rows = _rows(len(m["initial_state"]))
    k = "model.steps.0"
    keys = {(f"{k}.attention_scores", i) for i in range(T)}
    keys |= {(f"{k}.attention_weights", i) for i in range(T)}
    keys |= {(f"{k}.context", r) for r in rows}
    keys.add((f"{k}.chosen_probability",))
    keys |= {("model.attention", i, j) for i, j in named_cells}
    return keys


def _has_untrained_note(scene) -> bool:
    return any(isinstance(m, Text) and "untrained" in m.text
               for top in scene.mobjects for m in top.get_family())


def _chosen_words(scene) -> set[str]:
    return {m.text for top in scene.mobjects for m in top.get_family() if isinstance(m, Text)}


def test_default_numbers_every_frame():
    trace = load_default_trace()
    assert _model(trace)["weights"] == "trained" and _model(trace)["network"] == "gru"
    scene = build_scene("attention_process", trace, skip=False)
    assert scene.audit.faults == []
    # Worked by hand from the default alignment (rows: la croissance économique s'est ralentie ces
    # dernières années <END>; the grammar aligns ralentie to "slowed" (3), années to "years" (7)):
    # ralentie peaks on "years" (4, 7), four words later, années on "growth" (7, 1), before its word.
    assert shown_keys(scene) == _expected_keys(trace, named_cells=[(4, 7), (7, 1)])
    assert all(k[0].startswith("model.") for k in shown_keys(scene))
    assert check_numbers(scene, load_default_trace()) > 0
    # Trained weights: no "untrained" caption, and the alignment matrix's rows
    # (still on screen at the end) are the translator's words.
    assert not _has_untrained_note(scene)
    assert {st["chosen"] for st in _model(trace)["steps"]} <= _chosen_words(scene)
    # Every key lies in a section the scene declares (the render cache hashes them).
    sections = SCENES["attention_process"].trace_sections
    for key in shown_keys(scene):
        assert any(key[0] == s or key[0].startswith(s + ".") for s in sections), key


def _always_la(H: int, score: str) -> dict:
    """Weights that make "la" win every step, so the decode runs all 13 steps.

    W_o = W_s = W_c = 0 and b = 3 give s_t = tanh(3) ~ 0.995 in every
    coordinate; "la" = (3, ..., 3) then scores about 3 H, far above any seeded word.
    """
    zeros = [[0.0] * H for _ in range(H)]
    return dict(attention={"score": score, "W_o": zeros, "W_s": zeros, "W_c": zeros, "b": [3.0] * H},
                embeddings={"target": {"la": [3.0] * H}})


# Each case keeps the decode short where it can: a step costs seconds of CPU.
@pytest.mark.parametrize(
    "changes,steps",
    [
        # one word, the smallest sizes, a 2-wide additive scoring network
        (dict(sentences={"source": "Hello", "target": "bonjour"}, sizes={"embedding": 2, "hidden": 2},
              attention={"score": "additive", "size": 2}), None),
        # twelve long words, the largest sizes, dot scores
        (dict(sentences={"source": TWELVE, "target": "la"}, sizes={"embedding": 8, "hidden": 8},
              seed=7, attention={"score": "dot"}), None),
        # the longest decode (13 steps), uneven sizes, scaled dot scores
        # ("hello world": outside the translator's grammar, so the seeded section)
        (dict(sentences={"source": "hello world", "target": TWELVE_TARGET},
              sizes={"embedding": 8, "hidden": 3}, seed=1, **_always_la(3, "scaled_dot")), 13),
    ],
    ids=["one-word-size-2-additive", "twelve-words-size-8-dot", "13-steps-uneven-sizes-scaled-dot"],
)
def test_varied_numbers(changes, steps):
    data = varied(**changes)
    trace = trace_from(data)
    # Words outside the translator's grammar: the untrained fallback, in section ``model``.
    assert _model(trace)["network"] == "tanh_rnn"
    if steps is not None:
        assert len(_model(trace)["steps"]) == steps
    scene = build_scene("attention_process", trace)
    assert scene.audit.faults == []
    independent = trace_from(data)
    assert shown_keys(scene) == _expected_keys(independent)
    assert all(k[0].startswith("model.") for k in shown_keys(scene))
    assert check_numbers(scene, independent) > 0
    assert _has_untrained_note(scene)


def test_trained_twelve_words():
    # The grammar's longest sentence: twelve source columns, thirteen steps.
    data = varied(sentences={"source": LONGEST})
    trace = trace_from(data)
    assert _model(trace)["network"] == "gru" and len(_model(trace)["tokens"]) == 12
    scene = build_scene("attention_process", trace)
    assert scene.audit.faults == []
    independent = trace_from(data)
    shown = shown_keys(scene)
    named = {(k[1], k[2]) for k in shown if k[0] == "model.attention"}
    assert shown == _expected_keys(independent, named)
    # The ending names at most two cells, each its row's strongest weight, off the grammar's word.
    m = _model(independent)
    assert len(named) <= 2
    for i, j in named:
        assert max(range(len(m["tokens"])), key=lambda c: m["attention"][i][c]) == j != m["reference_alignment"][i]
    assert check_numbers(scene, independent) > 0
    assert not _has_untrained_note(scene)


def test_weighted_sum_flies_only_the_weighted_copies():
    # Issue 13: each h_j's copy is scaled and faded by a_tj; copies under 0.02 stay.
    from scenes.attention_process import MIN_FLYING_WEIGHT, AttentionProcessScene

    trace = load_default_trace()
    scene = AttentionProcessScene(trace, audit=False)
    scene._layout()
    states = scene._encoder_states()
    for t, step in enumerate(scene.view.steps):
        c_col = scene._panel_column(step.context, step.context_key, "c", scene.theme.encoder, 0.0)
        sources, ghosts = scene._weighted_ghosts(states, t, c_col)
        flying = [j for j, a in enumerate(step.weights) if a >= MIN_FLYING_WEIGHT]
        assert len(ghosts) == len(flying)
        target_w = c_col.cells[0].box.width
        for g, j in zip(ghosts, flying):
            a = float(step.weights[j])
            assert g[0].get_fill_opacity() == pytest.approx(a, abs=1e-6) or g[0].get_stroke_opacity() == pytest.approx(a, abs=1e-6)
            assert g[0].width == pytest.approx(max(a, 0.05) * target_w, rel=0.05)


# -- pacing and the pictures of attention (issue 13) ---------------------------------------

def _rows_on_screen(scene) -> None:
    """Record at each look whether this step's score row and weight row are on screen."""
    st = getattr(scene, "stage", None)
    if st is None:
        return
    family = scene.get_mobject_family_members()

    def shown(*rows) -> bool:  # every box of the row on screen (a look inside a play sees the
        # row being replaced, or the boxes of its successor before the row itself is added)
        return any(r is not None and all(c.box in family for c in r) for r in rows)

    scene.__dict__.setdefault("rows_log", []).append(
        (float(scene.renderer.time), shown(st.scores, st.new_scores), shown(st.weights, st.new_weights)))


def _first_strip(scene) -> None:
    """Record, at the scene's first look, where its strip of encoder states stands and what it holds."""
    _rows_on_screen(scene)
    if not hasattr(scene, "first_strip"):
        scene.first_strip = strip_geometry(scene, scene.strip)
        scene.first_values = [[cell.value for _, cell in sorted(chip.cell_by_index.items())]
                              for chip in scene.strip.chips]
        scene.first_texts = " ".join(m.original_text for top in scene.mobjects for m in top.get_family()
                                     if isinstance(m, Text) and m.get_fill_opacity() > 0.5)


@pytest.fixture(scope="module")
def default_scene():
    return build_scene("attention_process", load_default_trace(), timeline=True, observe=_first_strip)


def test_the_states_open_as_the_encoders_strip_then_rise_into_their_columns(default_scene):
    # h_1 .. h_T open as the same kind of strip, in the same place, as the encoder leaves (issue 22),
    # then each chip unfolds into its column under its word. They are this network's own states
    # (the translator trained with attention), and the screen says so: never the other network's.
    import numpy as np

    from scenes.process_view import process_view
    from scenes.seq2seq_view import encoder_view

    trace = load_default_trace()
    encoder = build_scene("encoder", trace)
    assert np.allclose(default_scene.first_strip, strip_geometry(encoder, encoder.history), atol=0.01)
    view = process_view(trace)
    assert np.allclose(default_scene.first_values, view.encoder_states)
    assert not np.allclose(view.encoder_states, encoder_view(trace).hidden, atol=0.05)
    assert "from the network with attention (its own encoder)" in default_scene.first_texts
    assert [m for m in default_scene.moves if m[0] == "unfold_strip"] == \
        [("unfold_strip", ("strip", j), view.encoder_keys[j]) for j in range(len(view.source_tokens))]
    # The opening beat adds a few seconds, no more (the clip was about 81 s; issue 31's ending
    # adds two lines on why rows leave their word, read before the final hold).
    assert default_scene.renderer.time < 89


def test_later_steps_are_quicker_than_the_first(default_scene):
    scene = default_scene
    n = len(scene.view.steps)
    durations = [end - start for start, end in scene.step_times]
    assert len(durations) == n >= 3
    first = durations[0]
    # The first step is explained phase by phase; every later one takes less time,
    # the quick ones (third on) at most 40 % of it (issue 31, Deliver 4).
    assert all(d < first for d in durations[1:]), durations
    assert all(d <= 0.4 * first for d in durations[2:]), durations
    # ... and still each chosen word is held still for a second.
    assert [w for w, _ in scene.result_marks].count("word") == n
    assert scene.pacing_faults() == []


def test_the_strip_grows_by_the_chosen_words(default_scene):
    scene = default_scene
    chosen = [s.chosen for s in scene.view.steps]
    start = scene.view.steps[0].input_word
    for t, shown in enumerate(scene.strip_log):
        written = [start, *chosen[:t + 1]]
        # The strip ends with every word written so far (the oldest may give way to an ellipsis).
        assert shown and tuple(written[-len(shown):]) == shown, (t, shown)
    assert len(scene.strip_log[0]) == 2  # "<START>" and the first word: nothing hidden yet


def test_links_and_bars_follow_the_weights():
    from scenes.attention_process import BAR_MAX_H, AttentionProcessScene

    scene = AttentionProcessScene(load_default_trace(), audit=False)
    scene._layout()
    step = scene.view.steps[0]
    s_prev = scene._panel_column(step.previous_state, step.previous_state_key, "s", scene.theme.decoder, -5.3)
    a = step.weights
    links = scene._links(s_prev, a)
    bars = scene._weight_bars(0)
    widths = [l.get_stroke_width() for l in links]
    opacities = [l.get_stroke_opacity() for l in links]
    order = sorted(range(scene.T), key=lambda j: a[j])
    # Heavier weight, thicker and more opaque link, taller bar.
    for lo, hi in zip(order, order[1:]):
        if a[hi] > a[lo] + 1e-9:
            assert widths[hi] > widths[lo] and opacities[hi] > opacities[lo]
            # (a weight too small for the eye keeps a hairline, so the slot still shows)
            if a[hi] * BAR_MAX_H > 0.01:
                assert bars[hi].height > bars[lo].height
    top = order[-1]
    assert widths[top] >= 5 * max(widths[j] for j in range(scene.T) if a[j] < 0.02)
    for j in range(scene.T):
        assert bars[j].height == pytest.approx(max(a[j] * BAR_MAX_H, 0.01), abs=1e-6)
        # Each link runs from s_{t-1} to the foot of h_j's bar.
        assert links[j].get_end()[0] == pytest.approx(bars[j].get_x(), abs=1e-6)
        assert links[j].get_start()[0] == pytest.approx(s_prev.get_x(), abs=0.05)
    # Before the softmax every link is alike.
    even = scene._links(s_prev)
    assert len({round(l.get_stroke_width(), 6) for l in even}) == 1


# -- motion and precision (issue 22) ----------------------------------------------------

def test_every_score_row_shows_one_precision(default_scene):
    # Scores at mixed precision (-2.22, -2.3, -12.5) read as different kinds of number.
    rows: dict[str, set[int]] = {}
    for shown in default_scene.audit.numbers:
        if shown.key[0].endswith(".attention_scores"):
            rows.setdefault(shown.key[0], set()).add(shown.decimals)
    assert rows and all(len(d) == 1 for d in rows.values()), rows


def test_states_words_and_weight_rows_travel_to_where_they_are_used(default_scene):
    scene = default_scene
    n = len(scene.view.steps)
    assert [m for m in scene.moves if m[0] == "s"] == [("s", ("s", t), ("s_prev", t + 1)) for t in range(1, n)]
    assert [m for m in scene.moves if m[0] == "op"] == [("op", ("strip", t), ("op", t)) for t in range(1, n)]
    # The alignment grows row by row from the steps' weight rows, and the source words become its columns.
    assert [m for m in scene.moves if m[0] == "drop_row"] == [("drop_row", ("row", i), ("matrix", i))
                                                              for i in range(min(n, 13))]
    assert len([m for m in scene.moves if m[0] == "source_word"]) == min(scene.T, 12)


def test_each_step_files_its_own_weight_row_before_the_next_step(default_scene):
    # Issue 22: the matrix was built at the end from fresh rows; each row must leave its step
    # (before s_t moves on) and the end must enlarge those same rows, never new ones.
    scene = default_scene
    n = len(scene.view.steps)
    order = [m for m in scene.moves if m[0] in ("drop_row", "s", "enlarge")]
    expected = []
    for t in range(n):
        expected.append(("drop_row", ("row", t), ("matrix", t)))
        if t + 1 < n:
            expected.append(("s", ("s", t + 1), ("s_prev", t + 2)))
    expected.append(("enlarge", "alignment so far", ("matrix", tuple(range(n)))))
    assert order == expected
    # The rows filed are the steps' weights, as heat: one box per h_j, coloured by a_tj.
    for t, row in enumerate(scene.stage.align_rows):
        a = scene.view.steps[t].weights
        assert len(row) == scene.T
        assert [c.value for c in row] == pytest.approx([float(x) for x in a])


def test_the_strip_words_travel_to_the_row_names(default_scene):
    # The words written are the rows' names: each one still in the strip flies up to its row.
    scene = default_scene
    n = len(scene.view.steps)
    shown = [w for w in scene.strip_log[-1] if w != scene.view.steps[0].input_word]
    assert shown and tuple(shown) == tuple(s.chosen for s in scene.view.steps[n - len(shown):])
    assert [m for m in scene.moves if m[0] == "row_name"] == [
        ("row_name", ("strip", i + 1), ("row_name", i)) for i in range(n - len(shown), n)]


def test_the_links_fan_out():
    # The links from s_{t-1} were squeezed into a thin band (0.3 units high, neighbours 0.2
    # degrees apart): the reader must see which h_j each one reaches.
    import math

    from scenes.attention_process import AttentionProcessScene

    scene = AttentionProcessScene(load_default_trace(), audit=False)
    scene._layout()
    step = scene.view.steps[0]
    s_prev = scene._panel_column(step.previous_state, step.previous_state_key, "s", scene.theme.decoder,
                                 scene.x_s)
    from scenes.attention_process import PANEL_TOP

    assert s_prev.frame.get_top()[1] == pytest.approx(PANEL_TOP)
    links = scene._links(s_prev, step.weights)
    angles = [math.degrees(math.atan2(l.get_end()[1] - l.get_start()[1], l.get_end()[0] - l.get_start()[0]))
              for l in links]
    rise = min(l.get_end()[1] - l.get_start()[1] for l in links)
    assert rise >= 1.2, rise
    assert min(abs(a - b) for a, b in zip(angles, angles[1:])) >= 1.0, angles


def test_the_score_and_weight_rows_stay_from_step_to_step(default_scene):
    # Issue 31: the rows went blank for 1-2 s between steps; now each changes in place, from the
    # first step's weights to the end of the last step.
    scene = default_scene
    first_weights = min(t for t, _, w in scene.rows_log if w)
    last_end = scene.step_times[-1][1]
    during = [(t, e, w) for t, e, w in scene.rows_log if first_weights <= t <= last_end]
    assert len(during) > 50
    assert all(e and w for _, e, w in during), [x for x in during if not (x[1] and x[2])][:3]


def test_the_ending_says_why_rows_leave_their_word(default_scene):
    # Issue 31, Deliver 5, checked on the numbers: ralentie's row peaks on "years" (0.79), a later
    # word than its "slowed": the encoder reads left to right, so h_8 has read "slowed". années'
    # row peaks on "growth" (0.73), an EARLIER word, which h_2 has not read: no such excuse, and the
    # screen says only that nothing told attention where to look (unguided training).
    texts = " ".join(m.original_text for top in default_scene.mobjects for m in top.get_family()
                     if isinstance(m, Text) and m.get_fill_opacity() > 0.5)
    assert "ralentie→years:readinglefttoright,h₈hasread“slowed”too" in texts.replace(" ", "")
    assert "années→growth:h₂neverread“years”;nothingtoldattentionwheretolook" in texts.replace(" ", "")
    shown = {n.key: n.shown for n in default_scene.audit.numbers if n.key and n.key[0] == "model.attention"}
    assert shown == {("model.attention", 4, 7): "0.79", ("model.attention", 7, 1): "0.73"}


def test_the_picture_never_goes_blank(default_scene):
    # At 59.7-61.7 s the whole picture used to fade to black before the alignment was rebuilt.
    assert default_scene.audit.blank_at == [] and default_scene.audit.blinks == []


def test_an_explanation_never_breaks_an_equation_at_its_equals_sign():
    """The panel's prose wraps at the column's width; "s₀ = 0." was cut after "=" (seen at 480p:
    a line ending "s₀ =" over a line "0.")."""
    from types import SimpleNamespace

    from scenes import DARK
    from scenes.attention_process import AttentionProcessScene
    from scenes.components import unbreakable_words

    assert unbreakable_words("starts from s\u2080 = 0.") == ["starts", "from", "s\u2080 = 0."]
    assert unbreakable_words("a = b c = d") == ["a = b", "c = d"]
    said = "One encoder state h\u2c7c per source word. The decoder starts from s\u2080 = 0."
    panel = AttentionProcessScene._explain(SimpleNamespace(theme=DARK), [], said)
    lines = [line.original_text for line in panel[-1]]
    assert len(lines) > 1 and any("s\u2080 = 0." in line for line in lines)
    assert not any(line.rstrip().endswith("=") for line in lines), lines
    assert panel.text == said  # the captions file reads it as written
