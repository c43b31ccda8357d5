"""The hidden-state map read by the translator trained without attention
(its h_T per sentence), and the fallbacks: the seeded tanh RNN when
a map word is unknown or the file sets that RNN by hand, the seeded
translator when the [model] table asks for seeded weights."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import maths
from attention_core.text import tokenize
from attention_core.translator.corpus import source_words
from attention_core.translator.section import model_trace
from attention_core.translator.settings import ModelSettings, parse_model_table

from .helpers import load_default_trace, trace_from, varied

# Only seeded weights with sizes: any other [model] setting trains.
SEEDED_SMALL = {"weights": "seeded", "embedding": 2, "hidden": 2}


def _summary(sentence: str, settings: ModelSettings, seed: int) -> np.ndarray:
    """h_T of one sentence, from a translation of it alone."""
    return model_trace(tokenize(sentence), settings.plain, seed).last_encoder_state


def _check_projection(hm) -> None:
    assert hm.projected == pytest.approx((hm.states - hm.mean) @ hm.components.T)
    assert hm.mean == pytest.approx(hm.states.mean(axis=0))


def test_default_map_is_read_by_the_trained_translator():
    trace = load_default_trace()
    hm = trace.hidden_state_map
    assert hm.network == "translator" and hm.trained and hm.unknown_words == ()
    # Every default sentence is one the grammar can say.
    known = set(source_words())
    assert all(set(toks) <= known for toks in hm.tokens)
    settings = ModelSettings()
    for sentence, state in zip(hm.sentences, hm.states):
        assert state == pytest.approx(_summary(sentence, settings, trace.scenario.seed), abs=1e-12)
    # One number per unit of the translator's decoder state (both directions).
    assert hm.states.shape == (len(hm.sentences), len(trace.plain_model.last_encoder_state))
    _check_projection(hm)
    exported = trace.to_dict()["hidden_state_map"]
    assert exported["network"] == "translator" and exported["trained"] is True
    assert exported["unknown_words"] == []


def test_source_sentence_in_the_map_lands_on_the_plain_models_summary():
    # The map reads the sentence with the same network as the encoder scenes.
    source = "Economic growth has slowed down in recent years"
    trace = trace_from(varied(hidden_state_map={"sentences": [
        "the cat eats fish", source, "the market has fallen"]}))
    assert trace.hidden_state_map.states[1] == pytest.approx(trace.plain_model.last_encoder_state, abs=1e-12)


def test_an_unknown_map_word_falls_back_to_the_tanh_rnn_and_is_named():
    sentences = ["the cat eats fish", "inflation rises", "a dog runs", "inflation has fallen"]
    trace = trace_from(varied(hidden_state_map={"sentences": sentences}))
    hm = trace.hidden_state_map
    assert hm.network == "tanh" and not hm.trained
    # Each unknown word once, in the order they first appear.
    assert hm.unknown_words == ("inflation", "rises")
    assert trace.to_dict()["hidden_state_map"]["unknown_words"] == ["inflation", "rises"]
    # The states are the tanh RNN's h_T: recomputed here from its parameters.
    p = trace.params
    for toks, state in zip(hm.tokens, hm.states):
        x = p.source_embeddings[list(p.source_vocab.indices(toks))]
        assert state == pytest.approx(maths.encoder_unroll(x, p.encoder_W_x, p.encoder_W_h, p.encoder_b)[-1])
    assert hm.states.shape[1] == trace.scenario.sizes.hidden
    _check_projection(hm)
    # The rest of the Part 1 scenes still show the translator.
    assert trace.plain_model is not None


def test_small_rnn_set_by_hand_reads_the_map_without_unknown_words():
    trace = trace_from(varied(encoder={"b": [0.1, -0.2, 0.3, 0.0]}))
    hm = trace.hidden_state_map
    assert hm.network == "tanh" and not hm.trained and hm.unknown_words == ()


def test_seeded_model_reads_the_map_untrained():
    data = varied(model=SEEDED_SMALL)
    trace = trace_from(data)
    hm = trace.hidden_state_map
    assert hm.network == "translator" and not hm.trained and hm.unknown_words == ()
    settings = parse_model_table(SEEDED_SMALL, trace.scenario.source_tokens)
    assert hm.states.shape == (len(hm.sentences), 2)
    for sentence, state in zip(hm.sentences, hm.states):
        assert state == pytest.approx(_summary(sentence, settings, trace.scenario.seed), abs=1e-12)
    _check_projection(hm)


def test_seeded_model_reads_words_the_grammar_lacks():
    # Seeded weights have an embedding for any word: no fallback needed.
    sentences = ["the cat eats fish", "inflation rises", "a dog runs"]
    trace = trace_from(varied(model=SEEDED_SMALL, hidden_state_map={"sentences": sentences}))
    hm = trace.hidden_state_map
    assert hm.network == "translator" and not hm.trained and hm.unknown_words == ()
    settings = parse_model_table(SEEDED_SMALL, trace.scenario.source_tokens)
    # A word's seeded embedding does not depend on which other words exist.
    assert hm.states[1] == pytest.approx(_summary("inflation rises", settings, trace.scenario.seed),
                                         abs=1e-12)


def test_two_sentences_shortened_alike_each_keep_their_label():
    # Issue 15 item 7: both sentences are cut to the same label text; the
    # label cache once handed both the same mobject, so one point lost its label.
    from manim import Text

    from scenes.hidden_state_map import shorten

    from .helpers import build_scene

    long_a = "the big black goat has eaten the small red apple this year"
    long_b = "the big black goat has eaten the small red apple last year"
    sentences = [long_a, long_b, "the cat eats fish", "a dog runs"]
    assert shorten(long_a, 40) == shorten(long_b, 40)
    scene = build_scene("hidden_state_map", trace_from(varied(hidden_state_map={"sentences": sentences})))
    assert scene.audit.faults == []
    shown = [m for top in scene.mobjects for m in top.get_family()
             if isinstance(m, Text) and m.text.replace(" ", "").startswith("thebigblackgoat")]
    # Two distinct label mobjects on screen, at two different places.
    assert len({id(m) for m in shown}) == 2
    a, b = shown
    assert not np.allclose(a.get_center(), b.get_center())


def test_labels_keep_the_word_that_tells_sentences_apart():
    # Twelve sentences differing in their fourth word once all read "a small…".
    from scenes.hidden_state_map import LABEL_CHARS, _distinct_cuts

    sentences = [f"a small black {noun} has seen a black cat in recent years"
                 for noun in ("horse", "cat", "dog")]
    # Cut at 18 and 14 characters all three read "a small black…" / "a small…": left out.
    assert _distinct_cuts(sentences, 0, LABEL_CHARS) == [
        "a small black horse has seen a black\u2026", "a small black horse has seen\u2026",
        "a small black horse\u2026"]
    # With no distinct cut at all, the whole sentence (a label is never dropped, and
    # never the same as another's: the longest cut read alike for both, issue 25).
    same_start = ["the big black goat has eaten the small red apple this year",
                  "the big black goat has eaten the small red apple last year", "a dog"]
    assert _distinct_cuts(same_start, 0, (40, 14)) == [same_start[0]]
    assert _distinct_cuts(same_start, 1, (40, 14)) == [same_start[1]]


def test_the_map_is_coloured_by_topic_and_joins_word_order_pairs():
    from manim import DashedLine, Dot, Text

    from .helpers import build_scene, load_default_trace

    trace = load_default_trace()
    hm = trace.hidden_state_map
    scene = build_scene("hidden_state_map", trace)
    family = [m for top in scene.mobjects for m in top.get_family()]
    texts = {m.text.replace(" ", "") for m in family if isinstance(m, Text)}
    # The legend names every topic.
    assert all(topic.replace(" ", "") in texts for topic in hm.topic_order)
    # Each sentence's dot sits by its label; dots of one topic share a colour, topics differ.
    dots = [m for m in family if isinstance(m, Dot) and m.radius < 0.1]
    colour_of = {}
    for topic in hm.topic_order:
        members = [i for i, t in enumerate(hm.topics) if t == topic]
        colours = {dots_colour for dots_colour in
                   (_colour_at(dots, scene, i) for i in members)}
        assert len(colours) == 1, (topic, colours)
        colour_of[topic] = colours.pop()
    assert len(set(colour_of.values())) == len(hm.topic_order)
    # One dashed line per word-order pair, from one point of the pair to the other.
    lines = [m for m in scene.mobjects for m in m.get_family() if isinstance(m, DashedLine)]
    ends = {tuple(np.round(sorted([tuple(line.get_start()[:2]), tuple(line.get_end()[:2])]), 3).ravel())
            for line in lines}
    points = scene._point_positions()
    want = {tuple(np.round(sorted([tuple(points[i][:2]), tuple(points[j][:2])]), 3).ravel())
            for i, j in hm.word_order_pairs}
    assert want and want <= ends


def _colour_at(dots, scene, i):
    """The colour of the dot drawn at sentence ``i``'s point."""
    point = scene._point_positions()[i]
    dot = min(dots, key=lambda d: np.linalg.norm(d.get_center() - point))
    assert np.linalg.norm(dot.get_center() - point) < 1e-6
    return dot.get_color().to_hex()
