"""The encoder scene over the seeded tanh RNN (the untrained fallback) at its
extremes, keyed under ``plain_model`` like the translator (the translator's
cases are in test_scenes_part1_encoder.py)."""

from __future__ import annotations

import numpy as np
import pytest
from manim import Text

from scenes import LIGHT
from scenes.components import subscript
from scenes.seq2seq_view import encoder_view

from .helpers import (build_scene, check_numbers, load_default_trace, observed_default, shown_keys, strip_geometry,
                      trace_from, varied)


def _expected_keys(trace) -> set[tuple]:
    """Digits once (issue 31): x_1, h_0 and h_1 are read in step 1; later vectors are chips."""
    m = trace.to_dict()["plain_model"]
    E, H = len(m["embeddings"][0]), len(m["encoder_states"][0])
    keys = {("plain_model.embeddings.0", i) for i in range(E)}
    keys |= {(f"plain_model.encoder_states.{t}", i) for t in (0, 1) for i in range(H)}
    return keys


def chip_values(scene, label: str) -> list[float] | None:
    """The values of the chip named ``label`` on screen at the end (its bands), or None."""
    from scenes.components import VectorColumn

    for top in scene.mobjects:
        for m in top.get_family():
            if isinstance(m, VectorColumn) and isinstance(getattr(m, "label", None), Text) \
                    and m.label.original_text == label:
                return [c.value for c in m.cells]
    return None


CASES = {
    # one word, the smallest sizes
    "one-word": dict(sentences={"source": "Hello"}, sizes={"embedding": 2, "hidden": 2}),
    # twelve long words, the largest sizes
    "twelve-words-size-8": dict(sentences={"source": "extraordinarily complicated international negotiations "
                                                     "unexpectedly collapsed yesterday afternoon despite "
                                                     "considerable diplomatic encouragement"},
                                sizes={"embedding": 8, "hidden": 8}, seed=7),
    # uneven sizes, another seed ("pizza" is not in the translator's grammar)
    "uneven-sizes": dict(sentences={"source": "the cat eats pizza"}, sizes={"embedding": 8, "hidden": 3}, seed=1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_varied_numbers(case):
    data = varied(**CASES[case])
    trace = trace_from(data)
    assert encoder_view(trace).network == "tanh"
    scene = build_scene("encoder", trace)
    assert scene.audit.faults == []
    independent = trace_from(data)
    # x_1, h_0 and h_1 are read as digits, each as the core has it; nothing else is.
    assert shown_keys(scene) == _expected_keys(independent)
    assert check_numbers(scene, independent) > 0
    # The last step stays as chips whose bands are the core's x_T, h_{T-1} and h_T.
    T = len(encoder_view(independent).tokens)
    hidden = independent.to_dict()["plain_model"]["encoder_states"]
    assert chip_values(scene, f"h{subscript(T)}") == pytest.approx(hidden[T])
    if T > 1:
        assert chip_values(scene, f"h{subscript(T - 1)}") == pytest.approx(hidden[T - 1])
        x_T = independent.to_dict()["plain_model"]["embeddings"][T - 1]
        assert chip_values(scene, f"x{subscript(T)}") == pytest.approx(x_T)
    # The same values as the fallback's own RNN section: one network, two names for nothing.
    assert encoder_view(independent).states == pytest.approx(independent.encoder.hidden)


def test_light_theme_builds_cleanly():
    scene = build_scene("encoder", trace_from(varied(**CASES["one-word"])), theme=LIGHT)
    assert scene.audit.faults == []


# -- motion (issue 22) ---------------------------------------------------------------

def _boxes_along(anim, steps=41):
    """Bounding boxes of a Transform's shape along its path (its own path_func)."""
    start = anim.mobject.get_all_points()
    end = anim.target_mobject.get_all_points()
    n = min(len(start), len(end))
    for a in np.linspace(0, 1, steps):
        pts = anim.path_func(start[:n], end[:n], a)
        yield pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()


@pytest.mark.default_build("encoder")
def test_the_filed_state_never_crosses_the_cell_name():
    # At 13.5 s a state's frame flew diagonally into its history chip over "encoder GRU".
    from scenes.encoder import EncoderScene  # noqa: F401 (the scene under test)
    scene = observed_default("encoder", "dark").scene
    cell = scene.cell.text
    cx0, cy0, cx1, cy1 = (*cell.get_corner([-1, -1, 0])[:2], *cell.get_corner([1, 1, 0])[:2])
    texts = [m for top in scene.mobjects for m in top.get_family() if isinstance(m, Text)]
    for j in range(len(scene.view.tokens)):
        anim = scene._chip_in(scene.history[j], scene.new)[0]
        for x0, y0, x1, y1 in _boxes_along(anim):
            assert x1 <= cx0 or x0 >= cx1 or y1 <= cy0 or y0 >= cy1, j
        # The copy (the frame and the cells' colours) travels under every number and name it meets.
        assert anim.mobject.z_index < min(t.z_index for t in texts)


def step_times(scene_id: str, trace, starts: tuple[str, ...], end: str, monkeypatch) -> list[float]:
    """Seconds each repeated step of ``scene_id`` takes: from one call of a ``starts`` beat
    (the first that begins a step) to the next step's, the last to the ``end`` beat."""
    from scenes import SCENES

    cls, marks = SCENES[scene_id], []
    for name in (*starts, end):
        beat = getattr(cls, name)

        def timed(self, *a, _beat=beat, _name=name, **k):
            marks.append((_name, self.time, a[0] if a else None))
            return _beat(self, *a, **k)
        monkeypatch.setattr(cls, name, timed)
    build_scene(scene_id, trace)
    begins, seen = [], set()
    for name, t, step in marks:
        if name == end:
            begins.append(t)
        elif step not in seen:  # a step begins with the first of its beats
            seen.add(step)
            begins.append(t)
    return [b - a for a, b in zip(begins, begins[1:])]


def test_every_state_is_handed_to_the_next_step_and_repeats_speed_up(monkeypatch):
    scene = build_scene("encoder", load_default_trace(), timeline=True)
    T = len(scene.view.tokens)
    assert [m for m in scene.moves if m[0] == "h"] == [("h", ("h", t), ("h_prev", t + 1)) for t in range(1, T)]
    # Issue 31: steps 1 and 2 told, every later one at most 40 % of the first, still its own hand-off.
    steps = step_times("encoder", load_default_trace(), ("hand_off_state", "read_word"), "name_the_context",
                       monkeypatch)
    assert len(steps) == T == 8
    assert steps[1] > 0.4 * steps[0]
    assert all(0.5 < d <= 0.4 * steps[0] for d in steps[2:]), steps


# -- the strip of states carried over (issue 22) ----------------------------------------------

def _first_strip(scene) -> None:
    """Record, at the scene's first look, where its strip of encoder states stands."""
    if not hasattr(scene, "first_strip"):
        scene.first_strip = strip_geometry(scene, scene.strip)
        scene.first_texts = {m.original_text for top in scene.mobjects for m in top.get_family()
                             if isinstance(m, Text) and m.get_fill_opacity() > 0.5}


def test_the_strip_the_encoder_leaves_is_where_bottleneck_picks_it_up():
    # The encoder ends on h_1 .. h_T as a row of chips; bottleneck opens on that same row,
    # in the same place and look (ring and name on h_T included), then unfolds it into
    # its columns: each chip's move is recorded, to the column holding that h_j's numbers.
    trace = load_default_trace()
    encoder = build_scene("encoder", trace)
    left = strip_geometry(encoder, encoder.history)
    bottleneck = build_scene("bottleneck", trace, observe=_first_strip)
    assert len(bottleneck.first_strip) == len(left) == 2 * len(encoder.view.tokens)
    assert np.allclose(bottleneck.first_strip, left, atol=0.01)
    assert f"h{subscript(len(encoder.view.tokens))}: the context vector" in bottleneck.first_texts
    view = encoder_view(trace)
    # Every chip unfolds into its column; only h_T's column shows digits (issue 31: digits once),
    # so only its move names a key.
    last = len(view.tokens) - 1
    assert [m for m in bottleneck.moves if m[0] == "unfold_strip"] == \
        [("unfold_strip", ("strip", j), view.hidden_keys[j] if j == last else None) for j in range(len(view.tokens))]
    # The picture is never nearly empty at rest (20.3-22.3 s: a dimmed frame, then a lone row of words).
    assert bottleneck.audit.sparse_at == []
