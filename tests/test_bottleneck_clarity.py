"""bottleneck under issue 31: digits once (h_T's only), the struck strip kept above the long
sentence's table, its rows aligned word under word, and a verdict that counts what is framed."""

from __future__ import annotations

import pytest
from manim import DashedVMobject, ManimColor, SurroundingRectangle, Text

from scenes.bottleneck import aligned_columns
from scenes.components import NumberLabel

from .helpers import load_default_trace, observed_default


def test_aligned_columns_by_hand():
    # An inserted word stands over a gap; equal words stand over their twins.
    assert aligned_columns([("a", "b", "c")], ("a", "c")) == [("a", "a"), ("b", None), ("c", "c")]
    # A missing word: a gap over the reference's word.
    assert aligned_columns([("a", "c")], ("a", "b", "c")) == [("a", "a"), (None, "b"), ("c", "c")]
    # A substitution stays in its column.
    assert aligned_columns([("x", "b")], ("a", "b")) == [("x", "a"), ("b", "b")]


@pytest.mark.default_build("bottleneck")
def test_the_default_long_sentence_aligned_and_counted():
    trace = load_default_trace()
    ex = trace.bottleneck_example
    cols = aligned_columns([ex.plain_translation], ex.reference)
    # Every word of both sentences once, in order.
    assert [a for a, _ in cols if a is not None] == list(ex.plain_translation)
    assert [b for _, b in cols if b is not None] == list(ex.reference)
    # Worked by hand: "la … a vu … petite" line up with the reference's; 7 words differ from the
    # word under them; 3 reference words ("ces dernières années") have nothing over them.
    assert ex.plain_translation[:6] == ("la", "jeune", "souris", "blanche", "a", "vu")
    same = [a for a, b in cols if a is not None and a == b]
    assert same == ["la", "a", "vu", "petite"]
    assert sum(1 for a, b in cols if a is not None and a != b) == 7
    assert [b for a, b in cols if a is None] == ["ces", "dernières", "années"]

    scene = observed_default("bottleneck", "dark").scene
    assert scene.framed == (7, 3)
    final = [m for top in scene.mobjects for m in top.get_family()]
    negative = ManimColor(scene.theme.negative).to_hex().upper()
    frames = [m for m in final if isinstance(m, SurroundingRectangle)
              and m.get_stroke_color().to_hex().upper() == negative and m.get_stroke_opacity() > 0.5]
    gaps = [m for m in final if isinstance(m, DashedVMobject)]
    texts = [m.original_text for m in final if isinstance(m, Text) and m.get_fill_opacity() > 0.5]
    # The verdict counts exactly what is drawn: 7 frames, 3 dashed gaps.
    assert len(frames) == 7 and len(gaps) == 3
    assert any(t.startswith("without attention: 7 wrong (framed), 3 missing (dashed)") for t in texts), texts


@pytest.mark.default_build("bottleneck")
def test_digits_once_and_the_strip_kept_above_the_table():
    trace = load_default_trace()
    scene = observed_default("bottleneck", "dark").scene
    T = len(scene.view.tokens)
    keys = {n.key[0] for n in scene.audit.numbers}
    # Only h_T's digits were ever on screen (and the measured exact match of count_the_cost).
    states = {k for k in keys if k.startswith("plain_model.encoder_states.")}
    assert states == {f"plain_model.encoder_states.{T}"}
    # The struck states stay to the end, shrunk, above the table (not cleared for it).
    final = {id(m) for top in scene.mobjects for m in top.get_family()}
    assert all(id(col[0].frame) in final for col in scene.states)
    table_top = max(m.get_top()[1] for top in scene.mobjects for m in top.get_family()
                    if isinstance(m, Text) and m.original_text == "reference:")
    assert scene.states.get_bottom()[1] > table_top
    assert all(id(c) in final for c in scene.struck[0])
    # No digits left on the shrunk strip.
    assert not any(isinstance(m, NumberLabel) and m.get_fill_opacity() > 0 for m in scene.states.get_family())
