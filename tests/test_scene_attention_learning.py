"""The attention_learning scene, built headless: the default sentence, a
short and a twelve-word sentence of the grammar (light theme for one), and
the cases with no training to show (seeded weights, a sentence outside the
grammar)."""

from __future__ import annotations

import numpy as np
import pytest

from scenes import LIGHT, SCENES
from scenes.attention_learning import HeatCell

from .helpers import MIN_TEXT_PX, build_scene, check_scene, load_default_trace, trace_from, varied

SCENE = "attention_learning"
LONGEST = "the white mouse has eaten the big white house in recent years"


def _expected_keys(trace) -> set[tuple]:
    """The four measures of every snapshot, and under the final figure the
    agreement counts and the last snapshot's held-out figures."""
    d = trace.to_dict()["attention_learning"]
    K = len(d["steps"])
    keys = {(f"attention_learning.{f}", k) for k in range(K)
            for f in ("steps", "losses", "exact_match_percent", "alignment_percent")}
    if d["reference_agreement"] is not None:
        keys |= {("attention_learning.reference_agreement", K - 1), ("attention_learning.row_count",)}
    return keys


def _matrix_cells(scene) -> list[HeatCell]:
    return [m for top in scene.mobjects for m in top.get_family() if isinstance(m, HeatCell)]


def test_registry_lists_it_in_place_of_trained_attention():
    assert SCENE in SCENES and "trained_attention" not in SCENES
    order = list(SCENES)
    assert order.index(SCENE) == order.index("attention_process") + 1


@pytest.fixture(scope="module")
def default_scene():
    return build_scene(SCENE, load_default_trace(), timeline=True)


def test_default_numbers_on_screen_equal_the_core(default_scene):
    trace = load_default_trace()
    assert check_scene(default_scene, trace) >= _expected_keys(trace)


def test_every_snapshot_is_drawn_from_its_own_matrix(default_scene):
    # One matrix per snapshot, in order, each cell the core's weight and filled by the heat scale.
    learning = load_default_trace().attention_learning
    shown = default_scene.shown_matrices
    assert len(shown) == len(learning.steps)
    for k, values in enumerate(shown):
        assert np.array_equal(values, learning.matrices[k]), k
    # The matrix left on the poster is the learned one, cell by cell.
    cells = _matrix_cells(default_scene)
    K = len(learning.steps) - 1
    assert {c.key[1] for c in cells} == {K}
    assert len(cells) == learning.matrices[K].size
    for c in cells:
        _, k, i, j = c.key
        assert c.value == learning.matrices[k][i][j]
        assert c.get_fill_color().to_hex() == default_scene.theme.heat(c.value).to_hex()


def test_the_matrix_changes_from_step_0_to_the_end(default_scene):
    # What the reader watches: the rows sharpen (the largest weight of a row grows).
    shown = default_scene.shown_matrices
    assert shown[-1].max(axis=1).mean() > 2 * shown[0].max(axis=1).mean()


def test_the_posters_measure_lines_sit_on_one_baseline(default_scene):
    # "rows;" and "%, alignment" rode above their neighbours (arrange centres each part; a
    # descender lifts a word): every word of a line of the poster's measures on one baseline.
    from manim import Text

    from scenes.components import baseline_of

    words = [m for top in default_scene.mobjects for m in top.get_family()
             if isinstance(m, Text) and m.original_text.strip() and m.get_y() < -2.0]
    lines: dict[float, list[float]] = {}
    for w in words:
        lines.setdefault(round(w.get_y() * 4) / 4, []).append(baseline_of(w))
    measured = [b for b in lines.values() if len(b) >= 3]
    assert measured  # the agreement line and the held-out line
    for baselines in measured:
        assert max(baselines) - min(baselines) < 0.01, baselines


def test_the_poster_is_not_attention_process_s():
    # Issue 22: no two scenes end on the same figure. This one ends on two matrices side by side
    # (learned and the grammar's) and says how the network was trained.
    from scenes.attention_learning import readers_note
    from tests.helpers import build_scene as build

    trace = load_default_trace()
    ours = build(SCENE, trace)
    theirs = build("attention_process", trace)

    def texts(scene) -> set[str]:
        return {m.original_text for top in scene.mobjects for m in top.get_family()
                if hasattr(m, "original_text") and m.original_text.strip()}

    note = trace.to_dict()["model"]["training_note"]
    # In the reader's words (issue 31): the core's "trained unguided, 6000 steps" is a working label.
    assert note.startswith("trained unguided") and readers_note(note) == "learned from translation alone"
    assert readers_note(note) in texts(ours) and note not in texts(ours)
    assert any("grammar's alignment" in t for t in texts(ours))
    assert texts(ours) != texts(theirs)


@pytest.mark.parametrize(
    "changes, theme",
    [
        (dict(sentences={"source": "growth falls"}), LIGHT),
        (dict(sentences={"source": LONGEST}), None),
    ],
    ids=["two-words-light", "twelve-words"],
)
def test_varied_sentences(changes, theme):
    data = varied(**changes)
    trace = trace_from(data)
    scene = build_scene(SCENE, trace, min_text_px=MIN_TEXT_PX, **({"theme": theme} if theme else {}))
    independent = trace_from(data)
    assert check_scene(scene, independent) >= _expected_keys(independent)
    assert len(scene.shown_matrices) == len(trace.attention_learning.steps)


@pytest.mark.parametrize(
    "changes, says",
    [
        (dict(model={"weights": "seeded"}), "seeded (untrained) weights"),
        (dict(sentences={"source": "hello brave new world"}), "does not know"),
    ],
    ids=["seeded", "outside-the-grammar"],
)
def test_no_training_to_show_is_said(changes, says):
    scene = build_scene(SCENE, trace_from(varied(**changes)), min_text_px=MIN_TEXT_PX)
    assert scene.audit.faults == []
    texts = [m.original_text for top in scene.mobjects for m in top.get_family() if hasattr(m, "original_text")]
    assert any("No training to show" in t and says in t for t in texts)
