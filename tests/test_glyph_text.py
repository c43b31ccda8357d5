"""manim_speedups/glyph_text.py: a Text built from cached glyphs is, float for float, the Text Manim builds."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from manim import BLUE, RED, Text

from manim_speedups import glyph_text


def _state(text: Text) -> tuple:
    """Everything a frame is drawn from, and the SVG groups by member position."""
    family = [(type(m).__name__, m.points.tobytes(), m.fill_rgbas.tobytes(), m.stroke_rgbas.tobytes(),
               m.stroke_width, m.background_stroke_width) for m in text.get_family()]
    position = {id(m): i for i, m in enumerate(text.submobjects)}
    groups = {name: [position[id(m)] for m in group.submobjects]
              for name, group in text.id_to_vgroup_dict.items()}
    return family, groups, [id(c) for c in text.chars] == [id(m) for m in text.submobjects]


def _both(text: str, **kw) -> tuple[tuple, tuple, dict[str, int]]:
    """The usual build and the glyph build of the same Text."""
    glyph_text.uninstall()
    usual = _state(Text(text, **kw))
    glyph_text.install()
    glyph = _state(Text(text, **kw))
    return usual, glyph, glyph_text.stats()


@pytest.fixture(autouse=True)
def restore():
    was_on = glyph_text.installed()
    yield
    glyph_text.uninstall()
    if was_on:
        glyph_text.install()


CASES = [
    ("-0.84", dict(font="DejaVu Sans Mono", font_size=20)),
    ("0.00", dict(font="DejaVu Sans Mono", font_size=20)),  # one glyph used twice
    ("a b  c", dict(font="DejaVu Sans", font_size=24)),  # spaces: glyphs without points
    ("h_T = tanh(W x + b)", dict(font="DejaVu Sans", font_size=30, color=RED)),
    ("le chat mange du poisson", dict(font="DejaVu Sans", font_size=24, t2c={"chat": BLUE})),
    ("croissance économique…", dict(font="DejaVu Sans", font_size=20)),
    ("two\nlines", dict(font="DejaVu Sans", font_size=20)),
    ("Σ a_tj · h_j", dict(font="DejaVu Sans", font_size=28, weight="BOLD")),
    ("Attention", dict(font="DejaVu Sans", font_size=22, slant="ITALIC")),
]


@pytest.mark.parametrize("text,kw", CASES, ids=[c[0] for c in CASES])
def test_a_glyph_built_text_equals_the_usual_build(text, kw):
    usual, glyph, counts = _both(text, **kw)
    assert glyph == usual
    assert counts["fast"] == 1 and counts["usual"] == 0  # the glyph path was taken, not a fallback


def test_random_numbers_at_several_sizes_equal_the_usual_build():
    rng = random.Random(11)
    for _ in range(25):
        shown = f"{rng.uniform(-700, 700):.{rng.randint(0, 3)}f}"
        kw = dict(font="DejaVu Sans Mono", font_size=rng.choice([20, 22.5, 24, 36]))
        usual, glyph, _ = _both(shown, **kw)
        assert glyph == usual, shown


def test_each_glyph_outline_is_parsed_once():
    glyph_text.install()
    glyph_text.clear()
    Text("-0.84", font="DejaVu Sans Mono", font_size=20)
    made = glyph_text.stats()["templates"]
    assert made == 5  # '-', '0', '.', '8', '4'
    Text("-0.48", font="DejaVu Sans Mono", font_size=20)
    Text("0.840", font="DejaVu Sans Mono", font_size=20)
    assert glyph_text.stats()["templates"] == made
    Text("-0.84", font="DejaVu Sans Mono", font_size=20, color=RED)  # another fill, same outlines
    assert glyph_text.stats()["templates"] == made


def test_glyphs_of_a_text_are_independent_of_the_templates():
    glyph_text.install()
    a = Text("0.25", font_size=20)
    a[0].points[:] = 0
    a.set_color(BLUE)
    b = Text("0.25", font_size=20)
    glyph_text.uninstall()
    assert _state(b) == _state(Text("0.25", font_size=20))


def test_a_rebuilt_glyph_reads_its_moved_outline():
    # path_obj is what VMobjectFromSVGPath rebuilds its points from: the outline at the glyph's place.
    glyph_text.uninstall()
    usual = Text("-0.84", font="DejaVu Sans Mono", font_size=20)
    glyph_text.install()
    glyph = Text("-0.84", font="DejaVu Sans Mono", font_size=20)
    for a, b in zip(usual.submobjects, glyph.submobjects):
        a.generate_points()
        b.generate_points()
        assert np.array_equal(a.points, b.points)


@pytest.mark.parametrize("change", [
    lambda root: ET.SubElement(root, "{http://www.w3.org/2000/svg}rect", {"width": "1", "height": "1"}),
    lambda root: root.find("{http://www.w3.org/2000/svg}g").set("transform", "scale(2)"),
    lambda root: root.find(".//{http://www.w3.org/2000/svg}use").set("transform", "rotate(5)"),
], ids=["a rect", "a transformed surface", "a transformed use"])
def test_documents_of_another_shape_are_not_read(tmp_path, change):
    glyph_text.install()
    from manim import config
    from pathlib import Path

    Text("ab", font_size=20)
    svg = sorted(Path(config.get_dir("text_dir")).glob("*.svg"), key=lambda p: p.stat().st_mtime)[-1]
    root = ET.parse(svg).getroot()
    glyph_text._read(root)  # the unchanged document is read
    change(root)
    with pytest.raises(glyph_text._Unsupported):
        glyph_text._read(root)
