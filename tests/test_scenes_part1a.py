"""The Part 1 scenes word_embeddings, decoder, output_mapping and bottleneck,
built headless for the default numbers and for numbers at the extremes."""

from __future__ import annotations

import pytest

from scenes import LIGHT

from .helpers import build_scene, check_scene, load_default_trace, shown_keys, trace_from, varied

PART1A = ("word_embeddings", "decoder", "output_mapping", "bottleneck")

TWELVE_SOURCE = ("extraordinarily complicated international negotiations unexpectedly collapsed "
                 "yesterday afternoon despite considerable diplomatic encouragement")
TWELVE_TARGET = ("les négociations internationales extraordinairement compliquées ont "
                 "finalement échoué hier après midi malgré")
THIRTY_WORDS = [f"mot{i}" for i in range(30)]


def _twelve_words_size_8():
    # 12 source words, the largest sizes, 30 extra words in both vocabularies
    # (target vocabulary: <START>, <END>, 12 sentence words, 30 extra = 44).
    return varied(sentences={"source": TWELVE_SOURCE, "target": TWELVE_TARGET},
                  sizes={"embedding": 8, "hidden": 8}, seed=7,
                  vocabulary={"source_extra": [f"word{i}" for i in range(30)],
                              "target_extra": THIRTY_WORDS})


def _thirteen_steps():
    # With W_o = W_s = W_c = 0 and b = 3, every s_t = tanh(3) ~ 0.995 in each
    # entry; "les" has the embedding [2, 2]: score ~ 3.98, while the seeded
    # embeddings (about +-0.5 each) score far less, so "les" wins every step
    # and <END> never does: 12 target words + 1 = 13 decode steps.
    zero = [[0.0, 0.0], [0.0, 0.0]]
    return varied(sentences={"target": TWELVE_TARGET}, sizes={"embedding": 2, "hidden": 2},
                  decoder={"W_o": zero, "W_s": zero, "W_c": zero, "b": [3.0, 3.0]},
                  embeddings={"target": {"les": [2.0, 2.0]}},
                  vocabulary={"target_extra": THIRTY_WORDS})


CASES = {
    "one-word-size-2": lambda: varied(sentences={"source": "Hello", "target": "Bonjour"},
                                      sizes={"embedding": 2, "hidden": 2}, seed=3),
    "twelve-words-size-8-vocab-44": _twelve_words_size_8,
    "uneven-sizes-13-steps": _thirteen_steps,
}


def expected_keys(scene_id: str, trace) -> set[tuple]:
    """What each scene must show, from the independent trace."""
    enc, dec, m = trace.encoder, trace.decoder, trace.output_mapping
    T, E = enc.inputs.shape
    H = enc.hidden.shape[1]
    if scene_id == "word_embeddings":
        keys = {(f"encoder.inputs.{t}", j) for t in range(T) for j in range(E)}
        keys |= {(f"parameters.source_embeddings.{i}", j) for i in set(enc.token_ids) for j in range(E)}
        return keys
    if scene_id == "decoder":
        keys = {(f"decoder.states.{t}", j) for t in range(dec.steps + 1) for j in range(H)}
        keys |= {(f"decoder.input_embeddings.{t}", j) for t in range(dec.steps) for j in range(H)}
        keys |= {("decoder.context", j) for j in range(H)}
        keys |= {("decoder.chosen_probabilities", t) for t in range(dec.steps)}
        return keys
    if scene_id == "output_mapping":
        top3 = m.ranked[:3]
        keys = {("output_mapping.state", j) for j in range(H)}
        keys |= {(f"output_mapping.embeddings.{i}", j) for i in top3 for j in range(H)}
        keys |= {("output_mapping.scores", i) for i in top3}
        keys |= {("output_mapping.probabilities", i) for i in top3}
        keys |= {("output_mapping.chosen_percent",), ("output_mapping.probability_sum",)}
        return keys
    if scene_id == "bottleneck":
        return {(f"encoder.hidden.{t}", j) for t in range(1, T + 1) for j in range(H)}
    raise KeyError(scene_id)


def _check(scene_id, scene, independent):
    check_scene(scene, independent, expected_keys(scene_id, independent))


# All four show the translator by default: their default-numbers tests are
# in test_scenes_part1_encoder.py and test_scenes_part1_decoder.py. The CASES
# below give them the tanh RNN (words the grammar lacks, or values set by hand).
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("scene_id", PART1A)
def test_varied_numbers(scene_id, case):
    data = CASES[case]()
    scene = build_scene(scene_id, trace_from(data))
    _check(scene_id, scene, trace_from(data))


def test_thirteen_step_case_really_decodes_thirteen_steps():
    dec = trace_from(_thirteen_steps()).decoder
    assert dec.steps == 13 and not dec.ended
    assert set(dec.chosen_words) == {"les"}


def test_long_vocabulary_is_elided_but_keeps_the_rows_that_matter():
    data = _twelve_words_size_8()
    trace = trace_from(data)
    # 12 sentence words + 30 extra, then the hidden-state map's sentences' words.
    n_source = len(trace.params.source_vocab)
    assert len(trace.params.target_vocab) == 44 and n_source >= 42
    scene = build_scene("output_mapping", trace)
    rows = {k[0] for k in shown_keys(scene) if k[0].startswith("output_mapping.embeddings.")}
    assert len(rows) < 44  # elided
    assert f"output_mapping.embeddings.{trace.output_mapping.chosen_id}" in rows
    scene = build_scene("word_embeddings", trace)
    rows = {k[0] for k in shown_keys(scene) if k[0].startswith("parameters.source_embeddings.")}
    assert len(rows) < n_source
    assert {f"parameters.source_embeddings.{i}" for i in trace.encoder.token_ids} <= rows


def test_untrained_note_is_shown_for_seeded_weights():
    from manim import Text

    # (The seeded tanh decoder's note is checked in test_scenes_part1_decoder.py.)
    given = trace_from(varied(decoder={"b": [0.1, 0.2, 0.3, 0.4]}))
    assert given.decoder.seeded  # still partly seeded: still untrained
    eye = [[1.0, 0.0], [0.0, 1.0]]
    all_given = trace_from(varied(sizes={"embedding": 2, "hidden": 2},
                                  decoder={"W_o": eye, "W_s": eye, "W_c": eye, "b": [0.0, 0.0]}))
    scene = build_scene("decoder", all_given)
    texts = [m.original_text for top in scene.mobjects for m in top.get_family() if isinstance(m, Text)]
    assert not any("not a translation" in t for t in texts)


@pytest.mark.parametrize("scene_id", ["bottleneck", "output_mapping"])
def test_light_theme_builds_cleanly(scene_id):
    scene = build_scene(scene_id, load_default_trace(), theme=LIGHT)
    assert scene.audit.faults == []
