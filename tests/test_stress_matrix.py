"""The stress matrix (issue 15): numbers files at the documented limits,
built headless for every scene they affect.

Each case is the shipped numbers file with some tables pushed to a limit
docs/numbers-file.md documents (longest and shortest sentences, the largest sizes and
tables, values at the edges of their ranges, long and accented words). Each
(case, scene) pair is built headless with the audit on and must show: nothing
outside the frame, no two texts overlapping, every number equal to the core's
at the shown precision, no text whose capitals are under ``MIN_TEXT_PX``
pixels at 480p, and no numpy RuntimeWarning (overflow, 0/0) along the way.

Pairs that fail today in scenes other helpers are reworking are listed in
``KNOWN_FAILURES`` with the fault, not built and not counted: they are
missing coverage, not passes.
"""

from __future__ import annotations

import copy
import os
import warnings

import pytest

from .helpers import build_scene, check_scene, default_data, trace_from

#: The legibility floor the matrix enforces: pixels of a capital letter at
#: 480p, the same 12 px as for the default numbers (tests/test_pacing_legibility.py).
MIN_TEXT_PX = 12.0


def _grid(rows: int, cols: int, value: float) -> list[list[float]]:
    """Every entry +-``value``, signs alternating like a chequerboard."""
    return [[value if (i + j) % 2 == 0 else -value for j in range(cols)] for i in range(rows)]


# Twelve words the grammar knows, and the grammar's translation (12 words).
KNOWN_12 = ("a small black horse has seen a black cat in recent years",
            "un petit cheval noir a vu un chat noir ces dernières années")
# Twelve long accented words the grammar does not know (18-19 letters).
LONG_WORDS = ("extraordinairement", "caractéristiquement", "anticonstitutionnel",
              "disproportionnément", "incompréhensibilité", "institutionnalisées")


def _case(**tables) -> dict:
    data = copy.deepcopy(default_data())
    data.update(tables)
    return data


CASES: dict[str, dict] = {
    # The longest sentences the file accepts, all words known: the trained translator.
    "known-12-words": _case(sentences={"source": KNOWN_12[0], "target": KNOWN_12[1]}),
    # The shortest: one word each.
    "one-word": _case(sentences={"source": "cat", "target": "chat"}),
    # Long unknown, accented words at the largest sizes: the small tanh RNN.
    "unknown-long-words": _case(
        sentences={"source": " ".join(LONG_WORDS * 2), "target": " ".join(reversed(LONG_WORDS * 2))},
        sizes={"embedding": 8, "hidden": 8},
        encoder={"W_x": _grid(8, 8, 10.0), "W_h": _grid(8, 8, 10.0), "b": [10.0, -10.0] * 4},
        decoder={"W_o": _grid(8, 8, 10.0), "W_s": _grid(8, 8, -10.0), "W_c": _grid(8, 8, 10.0),
                 "b": [-10.0, 10.0] * 4},
    ),
    # Twelve unknown words of the longest length a file accepts (25 letters): the
    # small RNN, its "untrained" notice naming them, every text at 12 px (issue 25).
    "longest-words": _case(
        sentences={"source": " ".join(f"{w}{'x' * (25 - len(w))}" for w in LONG_WORDS * 2),
                   "target": " ".join(f"{w}{'y' * (25 - len(w))}" for w in LONG_WORDS * 2)},
    ),
    # [dot_product] at its limits: 6 features with 14-letter names, values at +-10.
    "dot-product-limits": _case(dot_product={
        "features": ["documentaries", "romanticcomedy", "science", "thrillersnoirs", "a", "épopées"],
        "movie": [10.0, -10.0, 10.0, -10.0, 10.0, -10.0],
        "user": [-10.0, -10.0, 10.0, 10.0, -10.0, 10.0],
    }),
    # The attention tables at their largest shapes, values at +-10.
    "attention-tables-limits": _case(
        dot_product_attention={"inputs": _grid(10, 6, 10.0), "query": [10.0, -10.0] * 3},
        multi_query_attention={"queries": _grid(6, 6, -10.0)},
        worked_example={"inputs": _grid(10, 6, -10.0), "queries": _grid(6, 6, 10.0)},
    ),
    # The smallest attention tables: 2 inputs of 2 features, 1 query, tiny values.
    "attention-tables-smallest": _case(
        dot_product_attention={"inputs": [[0.001, 0.0], [0.0, -0.001]], "query": [0.004, 0.0]},
        multi_query_attention={"queries": [[0.0, 0.004]]},
        worked_example={"inputs": [[0.004, 0.0], [0.0, 0.004]], "queries": [[0.001, -0.001]]},
    ),
    # [cnn] at its limits: an 8x8 grid of 8 features, the longest caption of the
    # captioner's words, filters at +-10 and biases at +-100.
    "cnn-limits": _case(cnn={
        "grid": 8, "features": 8, "input_size": 64,
        "caption": "a ball and a car over the grass",
        "filters": [[[[10.0, -10.0, 10.0]] * 3] * 3] * 8, "bias": [-100.0, 100.0] * 4,
    }),
    # [hidden_state_map]: 12 sentences of 12 words (the largest map).
    "map-12-sentences": _case(hidden_state_map={"sentences": [
        KNOWN_12[0].replace("horse", noun) for noun in
        ("horse", "cat", "dog", "mouse", "bird", "fish", "cow", "pig", "hen", "fox", "owl", "bee")
    ]}),
}

#: Which scenes each case can change (the ones that show its tables).
PART1 = ("seq2seq_overview", "word_embeddings", "encoder", "decoder", "output_mapping", "bottleneck")
AFFECTED: dict[str, tuple[str, ...]] = {
    "known-12-words": (*PART1, "attention_process", "attention_learning"),
    "one-word": (*PART1, "attention_process", "attention_learning"),
    "unknown-long-words": (*PART1, "attention_process"),
    "longest-words": (*PART1, "attention_process"),
    "dot-product-limits": ("dot_product",),
    "attention-tables-limits": ("dot_product_attention", "multi_query_attention", "worked_example"),
    "attention-tables-smallest": ("dot_product_attention", "multi_query_attention", "worked_example"),
    "cnn-limits": ("cnn_attention",),
    "map-12-sentences": ("hidden_state_map",),
}

#: Pairs that fail today, with the first fault, in scenes other helpers own
#: (not built: they are missing coverage, not passes).
KNOWN_FAILURES: dict[tuple[str, str], str] = {
}

#: The pairs the suite builds: one to three scenes per case, the heaviest
#: layouts, to keep the matrix under 4 min of CPU (measured: 241 s of CPU on
#: a 2-core machine shared with 12 other processes). ``STRESS_ALL=1`` builds
#: every other pair of AFFECTED too: each passed when measured, except
#: ("known-12-words", "attention_process"), not measured (its default build
#: alone takes 70 s of CPU).
CI_PAIRS = [
    ("known-12-words", "decoder"), ("known-12-words", "attention_learning"),
    ("one-word", "bottleneck"), ("one-word", "attention_process"),
    ("unknown-long-words", "output_mapping"),
    ("longest-words", "word_embeddings"),
    ("dot-product-limits", "dot_product"),
    ("attention-tables-limits", "worked_example"),
    ("attention-tables-smallest", "multi_query_attention"),
    ("cnn-limits", "cnn_attention"),
    ("map-12-sentences", "hidden_state_map"),
]

if os.environ.get("STRESS_ALL"):
    PAIRS = [(case, scene) for case, scenes in AFFECTED.items() for scene in scenes]
else:
    PAIRS = list(CI_PAIRS)
PAIRS = [pair for pair in PAIRS if pair not in KNOWN_FAILURES]


def build_audited(scene_id: str, trace):
    """A headless build with the legibility floor on and RuntimeWarnings as errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return build_scene(scene_id, trace, min_text_px=MIN_TEXT_PX)


@pytest.mark.parametrize("case,scene_id", PAIRS, ids=[f"{c}:{s}" for c, s in PAIRS])
def test_scene_holds_at_the_limit(case, scene_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        trace = trace_from(CASES[case])
    scene = build_audited(scene_id, trace)
    # The numbers are checked against a trace computed again, independently.
    check_scene(scene, trace_from(CASES[case]))


def test_the_matrix_names_only_real_cases_and_scenes():
    from scenes import SCENES

    for case, scene_id in [*CI_PAIRS, *KNOWN_FAILURES]:
        assert case in CASES and scene_id in AFFECTED[case] and scene_id in SCENES


def test_every_case_is_a_valid_numbers_file_at_a_documented_limit():
    from attention_core.dot_attention import FEATURES_RANGE, INPUTS_RANGE, QUERIES_RANGE
    from attention_core import parse_numbers
    from attention_core.numbers_file import MAX_TOKENS, SIZE_RANGE

    assert len(CASES["known-12-words"]["sentences"]["source"].split()) == MAX_TOKENS
    assert len(CASES["one-word"]["sentences"]["source"].split()) == 1
    assert CASES["unknown-long-words"]["sizes"] == {"embedding": SIZE_RANGE[1], "hidden": SIZE_RANGE[1]}
    from attention_core.numbers_file import MAX_WORD_CHARS

    assert {len(w) for w in CASES["longest-words"]["sentences"]["source"].split()} == {MAX_WORD_CHARS}
    dpa = CASES["attention-tables-limits"]["dot_product_attention"]["inputs"]
    assert (len(dpa), len(dpa[0])) == (INPUTS_RANGE[1], FEATURES_RANGE[1])
    assert len(CASES["attention-tables-limits"]["multi_query_attention"]["queries"]) == QUERIES_RANGE[1]
    for name, data in CASES.items():
        assert parse_numbers(data, name) is not None  # inside every documented range
