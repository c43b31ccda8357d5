"""The part 1b scenes (seq2seq_overview, dot_product, hidden_state_map),
built headless for the default numbers and for numbers at the extremes."""

from __future__ import annotations

import numpy as np
import pytest
from manim import Text

from attention_core.translator.corpus import source_words
from scenes import SCENES
from scenes.components import kept_indices
from scenes.hidden_state_map import place_label_options, place_labels, shorten
from scenes.seq2seq_view import mismatches
from scenes.seq2seq_view import decoder_view, encoder_view

from .helpers import build_scene, check_numbers, default_data, load_default_trace, shown_keys, trace_from


def _numbers(**tables) -> dict:
    """The default numbers with whole tables replaced (``seed`` too)."""
    data = default_data()
    data.update(tables)
    return data


def _expected_keys(scene_id: str, trace) -> set[tuple]:
    if scene_id == "seq2seq_overview":
        # The context the plain decoder gets: h_T, whichever network.
        enc = encoder_view(trace)
        return {(enc.context_key, i) for i in kept_indices(len(enc.context), 8) if i is not None}
    if scene_id == "dot_product":
        dp = trace.dot_product
        keys = {(f"dot_product.{name}", i) for name in ("movie", "user", "products", "running_sum")
                for i in range(len(dp.features))}
        keys |= {(f"dot_product.{name}",) for name in ("score", "norm_movie", "norm_user")}
        # cos(theta) and theta, at decimals where redoing them from the shown
        # operands agrees (issues 13, 25); the sweep's true scores (no product
        # of rounded norms is written out), its ends also as the plot's axis values.
        keys |= {("dot_product.shown.cosine",), ("dot_product.shown.angle_deg",)}
        keys |= {(name, k) for name in ("dot_product.sweep.angles_deg", "dot_product.sweep.scores")
                 for k in range(len(dp.sweep_angles_deg))}
        return keys
    # The map shows no state numbers (each h_T is a row of tinted cells), the
    # axes' shares of variance and the measured statement at the end.
    hm = trace.hidden_state_map
    keys = {("hidden_state_map.explained_variance_percent", k) for k in range(2)}
    keys.add(("hidden_state_map.median_distance",))
    if hm.topic_sentences:
        keys |= {("hidden_state_map.same_topic_nearest",), ("hidden_state_map.topic_sentences",)}
    if len(hm.word_order_pairs) <= 3:
        keys |= {("hidden_state_map.pair_distances", k) for k in range(len(hm.word_order_pairs))}
    return keys


def _check(scene_id: str, data: dict | None, skip: bool = True):
    """Build the scene, check its audit and numbers; return it and an
    independently computed trace."""
    trace = load_default_trace() if data is None else trace_from(data)
    scene = build_scene(scene_id, trace, skip=skip)
    assert scene.audit.faults == []
    independent = load_default_trace() if data is None else trace_from(data)
    assert check_numbers(scene, independent) > 0
    keys = shown_keys(scene)
    assert keys == _expected_keys(scene_id, independent)
    sections = SCENES[scene_id].trace_sections
    assert all(any(k[0] == s or k[0].startswith(s + ".") for s in sections) for k in keys)
    return scene, independent


def _final_texts(scene) -> list[str]:
    """The texts on screen in the last frame, spaces dropped (as manim keeps them)."""
    out = []

    def walk(mob):
        if isinstance(mob, Text):
            out.append(mob.text.replace(" ", ""))
        for sub in mob.submobjects:
            walk(sub)

    for mob in scene.mobjects:
        walk(mob)
    return out


def _shows(scene, text: str) -> bool:
    return any(text.replace(" ", "") in t for t in _final_texts(scene))


def _check_overview_words(scene, trace) -> None:
    """The output column shows the words the decoder really wrote, in order."""
    # The choices without the final <END>; just <END> when it stops at once.
    written = decoder_view(trace).written or ("<END>",)
    texts = _final_texts(scene)
    # Each word found after the one before (words may repeat: "la ... la").
    at = -1
    for word in written:
        at = texts.index(word.replace(" ", ""), at + 1)


@pytest.mark.parametrize("scene_id", ["seq2seq_overview", "dot_product", "hidden_state_map"])
def test_default_numbers_every_frame(scene_id, texts_seen):
    scene, trace = _check(scene_id, None, skip=False)
    if scene_id == "seq2seq_overview":
        assert encoder_view(trace).network == "gru" and encoder_view(trace).trained
        # The network named in the reader's words (issue 31), not the training recipe.
        assert _shows(scene, "a GRU network that learned to translate from examples, without attention")
        assert not _shows(scene, "bidirectional") and not _shows(scene, "3000 steps")
        assert any("s\u2080 = 0" in t for t in texts_seen)  # said at step 4
        _check_overview_words(scene, trace)
    if scene_id == "hidden_state_map":
        assert trace.hidden_state_map.network == "translator" and trace.hidden_state_map.trained
        assert _shows(scene, "read by the encoder of the translator trained without attention")
        assert not _shows(scene, "not trained")


# A 12-word sentence the grammar can say (every word is one it knows).
GRAMMAR_TWELVE = "the big black goat has eaten the small red apple this year"
SEEDED_SMALL = {"weights": "seeded", "embedding": 2, "hidden": 2}


def test_grammar_twelve_uses_only_known_words():
    words = GRAMMAR_TWELVE.split()
    assert len(words) == 12 and set(words) <= set(source_words())


@pytest.mark.parametrize(
    "tables, network, trained",
    [
        # a word the grammar lacks: the seeded tanh RNN of [sizes]
        (dict(sentences={"source": "Inflation has slowed down in recent years",
                         "target": "L'inflation a ralenti ces dernières années"},
              sizes={"embedding": 8, "hidden": 8}, seed=7), "tanh", False),
        # twelve words the translator knows, no reference translation
        (dict(sentences={"source": GRAMMAR_TWELVE, "target": "la grande chèvre noire"}), "gru", True),
        # the translator's network with seeded weights: one word, two numbers per vector
        (dict(sentences={"source": "Cat", "target": "chat"}, model=SEEDED_SMALL), "gru", False),
    ],
    ids=["unknown-word-size-8", "grammar-twelve-words", "seeded-model-one-word-size-2"],
)
def test_seq2seq_overview_varied(tables, network, trained):
    scene, trace = _check("seq2seq_overview", _numbers(**tables))
    enc = encoder_view(trace)
    assert (enc.network, enc.trained) == (network, trained)
    assert len(enc.inputs) == len(trace.source_tokens)
    _check_overview_words(scene, trace)
    assert not _shows(scene, "bidirectional")
    assert _shows(scene, "untrained") == (not trained)
    if network == "gru" and not trained:
        assert _shows(scene, "untrained translator (seeded random weights)")


def _differs(words, reference):
    """Per written word: does it differ from the reference word at its place."""
    wrong = set(mismatches(words, reference))
    return [t in wrong for t in range(len(words))]


def test_overview_compares_with_the_reference_word_by_word():
    assert _differs(("le", "chat", "mange", "du", "fromage", "aujourd'hui"),
                    ("le", "chat", "mange", "du", "poisson")) == [False] * 4 + [True, True]
    assert _differs(("le", "chat"), ("le", "chat", "dort")) == [False, False]
    assert _differs(("le", "chat"), None) == [False, False]
    # The decoder scene also marks the reference words nothing was written for.
    assert mismatches(("le", "chat"), ("le", "chat", "dort")) == (2,)

@pytest.mark.parametrize(
    "table",
    [
        # two features, the user opposite to the movie
        {"features": ["romance", "action"], "movie": [0.9, 0.1], "user": [-0.8, -0.3]},
        # six long feature names, large values, nearly parallel vectors
        {"features": ["romanticcomedy", "action", "documentary", "horror", "animation", "musical"],
         "movie": [9.5, -10, 3.2, 0.01, -7.7, 10],
         "user": [9, -9.5, 3, 0, -7, 9.9]},
        # only positive products: nothing pulls the score down
        {"features": ["a", "b", "c"], "movie": [1, 2, 3], "user": [3, 2, 1]},
    ],
    ids=["two-features-opposed", "six-features-aligned", "all-positive"],
)
def test_dot_product_varied(table):
    _check("dot_product", _numbers(dot_product=table))


GRAMMAR_MAP_TWELVE = [
    GRAMMAR_TWELVE,
    "the small white mouse has seen the big red car yesterday",
    "a young cow eats bread every day",
    "the black dog likes the white house",
    "the horse sleeps in the morning",
    "a small cat runs today",
    "the young goat has slept yesterday",
    "economic growth has slowed down in recent years",
    "global trade increases every day",
    "the market has fallen yesterday",
    "strong production has increased this year",
    "economic growth slows down today",
]


@pytest.mark.parametrize(
    "tables, network, trained",
    [
        # words the translator does not know: the seeded tanh RNN, size 2
        (dict(hidden_state_map={"sentences": ["rain", "sun", "snow"]},
              sizes={"embedding": 2, "hidden": 2}), "tanh", False),
        # the trained translator: twelve sentences of twelve words or fewer
        (dict(hidden_state_map={"sentences": GRAMMAR_MAP_TWELVE}), "translator", True),
        # the translator's network with seeded weights: three sentences, two numbers each
        (dict(model=SEEDED_SMALL, hidden_state_map={"sentences": [
            "the cat eats fish", "the market falls", "a dog runs"]}), "translator", False),
    ],
    ids=["three-unknown-size-2", "twelve-translator", "seeded-model-three-size-2"],
)
def test_hidden_state_map_varied(tables, network, trained):
    scene, trace = _check("hidden_state_map", _numbers(**tables))
    hm = trace.hidden_state_map
    assert (hm.network, hm.trained) == (network, trained)
    if network == "tanh":
        assert hm.unknown_words and _shows(scene, "a small seeded tanh RNN (not trained)")
    elif trained:
        assert _shows(scene, "read by the encoder of the translator trained without attention")
    else:
        assert _shows(scene, "the translator's encoder with seeded, untrained weights")
    assert _shows(scene, "not trained") == (not trained)


def test_map_notes_name_the_unknown_words():
    from scenes.hidden_state_map import _first_note

    trace = trace_from(_numbers(hidden_state_map={"sentences": [
        "the cat eats fish", "inflation has slowed down", "a dog barked loudly", "zebras yawn"]}))
    hm = trace.hidden_state_map
    assert hm.unknown_words == ("inflation", "barked", "loudly", "zebras", "yawn")
    note = _first_note(hm, hm.states.shape[1])
    assert "\u201cinflation\u201d, \u201cbarked\u201d, \u201cloudly\u201d and 2 more" in note
    assert "tanh RNN" in note


def test_shorten_keeps_short_and_cuts_long_at_a_word():
    assert shorten("The cat eats fish", 20) == "The cat eats fish"
    cut = shorten("extraordinarily complicated international negotiations", 30)
    assert cut.endswith("\u2026") and len(cut) <= 30
    assert "extraordinarily complicated".startswith(cut[:-1].strip())


def test_place_labels_avoids_overlaps_and_stays_inside():
    # Twelve points bunched near the middle, labels 2.5 x 0.25: all must fit apart.
    rng = np.random.default_rng(5)
    pts = np.column_stack([rng.normal(0, 0.6, 12), rng.normal(0, 0.6, 12), np.zeros(12)])
    sizes = [(2.5, 0.25)] * 12
    bounds = (-6.0, -3.0, 6.0, 3.0)
    placements, clean = place_labels(pts, sizes, bounds)
    assert clean
    boxes = [(c[0] - 1.25, c[1] - 0.125, c[0] + 1.25, c[1] + 0.125) for c, _ in placements]
    for i, a in enumerate(boxes):
        assert bounds[0] <= a[0] and a[2] <= bounds[2] and bounds[1] <= a[1] and a[3] <= bounds[3]
        for b in boxes[i + 1:]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1])


def _inside(p, box, pad=0.0) -> bool:
    return box[0] - pad < p[0] < box[2] + pad and box[1] - pad < p[1] < box[3] + pad


def _label_boxes(placements, picks, options):
    boxes = []
    for i, ((c, _), k) in enumerate(zip(placements, picks)):
        w, h = options[i][k]
        boxes.append((c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2))
    return boxes


def test_leader_lines_cross_no_other_label():
    # Twelve points spread over a plot, labels of five possible widths. When
    # the placement reports no ambiguous label, every leader line (point ->
    # nearest point of its label), sampled densely, stays out of every other
    # label: each line names one sentence only.
    widths = (3.6, 2.7, 2.2, 1.6, 1.25)
    bounds = (-5.9, -2.95, 6.7, 2.6)
    leaders = unambiguous = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        pts = np.column_stack([rng.uniform(-4.7, 5.5, 12), rng.uniform(-2.5, 2.2, 12), np.zeros(12)])
        options = [[(w, 0.25) for w in widths]] * 12
        placements, picks, clean, ambiguous = place_label_options(pts, options, bounds)
        assert clean
        if ambiguous:
            continue
        unambiguous += 1
        boxes = _label_boxes(placements, picks, options)
        for i, ((_, leader), box) in enumerate(zip(placements, boxes)):
            if not leader:
                continue
            leaders += 1
            end = np.array([min(max(pts[i, 0], box[0]), box[2]), min(max(pts[i, 1], box[1]), box[3])])
            for s in np.linspace(0, 1, 200):
                p = pts[i, :2] + s * (end - pts[i, :2])
                assert not any(_inside(p, b) for j, b in enumerate(boxes) if j != i), (seed, i)
    # The check above did run, on lines that exist.
    assert unambiguous >= 8 and leaders > 0


def test_label_options_keep_the_longest_that_fits():
    # One point: nothing in the way, the first (longest) option is taken.
    placements, picks, clean, ambiguous = place_label_options(
        np.zeros((1, 3)), [[(3.0, 0.25), (1.0, 0.25)]], (-6.0, -3.0, 6.0, 3.0))
    assert clean and picks == [0] and ambiguous == 0 and not placements[0][1]
    # A point near the right edge of a plot 4 wide: the 4.5-wide label fits
    # nowhere, the 1.5-wide one does.
    placements, picks, clean, ambiguous = place_label_options(
        np.array([[1.5, 0.0, 0.0]]), [[(4.5, 0.25), (1.5, 0.25)]], (-2.0, -3.0, 2.0, 3.0))
    assert clean and picks == [1]
