"""The Part 1 scenes word_embeddings, decoder, output_mapping and bottleneck,
built headless for the default numbers and for numbers at the extremes."""

from __future__ import annotations

import pytest

from scenes import LIGHT
from scenes.output_mapping import MAX_COLS as OM_MAX_COLS
from scenes.picked_rows import pick_cols
from scenes.word_embeddings import MAX_COLS as WE_MAX_COLS

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
    """What each scene must show, from the independent trace's JSON (the
    fallback is keyed under ``plain_model`` like the translator)."""
    d = trace.to_dict()
    m, om = d["plain_model"], d["plain_output_mapping"]
    T, E = len(m["embeddings"]), len(m["embeddings"][0])
    H = len(m["initial_state"])
    n = len(m["steps"])
    if scene_id == "word_embeddings":
        cols = [j for j in pick_cols(E, WE_MAX_COLS) if j is not None]
        keys = {(f"plain_model.embeddings.{t}", j) for t in range(T) for j in cols}
        keys |= {(f"plain_model.source_embedding_matrix.{i}", j) for i in set(m["token_ids"]) for j in cols}
        return keys
    if scene_id == "decoder":
        # Digits once (issue 31): s_0's zeros and s_1, then chips; every step's p.
        keys = {("plain_model.steps.0.state", j) for j in range(H)}
        keys |= {("plain_model.initial_state", j) for j in range(H)}
        keys |= {(f"plain_model.steps.{t}.chosen_probability",) for t in range(n)}
        return keys
    if scene_id == "output_mapping":
        top3 = om["ranked"][:3]
        cols = [j for j in pick_cols(H, OM_MAX_COLS) if j is not None]
        keys = {("plain_output_mapping.state", j) for j in cols}
        keys |= {(f"plain_output_mapping.embeddings.{i}", j) for i in top3 for j in cols}
        keys |= {("plain_output_mapping.scores", i) for i in top3}
        keys |= {("plain_output_mapping.probabilities", i) for i in top3}
        keys |= {("plain_output_mapping.probability_sum",)}
        return keys
    if scene_id == "bottleneck":
        # Digits once (issue 31): only h_T's, the one vector the decoder gets.
        return {(f"plain_model.encoder_states.{T}", j) for j in range(H)}
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
    m = trace_from(_thirteen_steps()).to_dict()["plain_model"]
    assert m["network"] == "tanh_rnn"
    chosen = [s["chosen"] for s in m["steps"]]
    assert len(chosen) == 13 and set(chosen) == {"les"}


def test_long_vocabulary_is_elided_but_keeps_the_rows_that_matter():
    data = _twelve_words_size_8()
    trace = trace_from(data)
    # 12 sentence words + 30 extra, then the hidden-state map's sentences' words.
    n_source = len(trace.params.source_vocab)
    assert len(trace.params.target_vocab) == 44 and n_source >= 42
    scene = build_scene("output_mapping", trace)
    rows = {k[0] for k in shown_keys(scene) if k[0].startswith("plain_output_mapping.embeddings.")}
    assert len(rows) < 44  # elided
    assert f"plain_output_mapping.embeddings.{trace.plain_output_mapping.chosen_id}" in rows
    scene = build_scene("word_embeddings", trace)
    prefix = "plain_model.source_embedding_matrix."
    rows = {k[0] for k in shown_keys(scene) if k[0].startswith(prefix)}
    assert len(rows) < n_source
    assert {f"{prefix}{i}" for i in trace.to_dict()["plain_model"]["token_ids"]} <= rows


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
