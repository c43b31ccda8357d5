"""manim_speedups/tex_format.py: formulas compiled with a dumped preamble give Manim's svg files."""

from __future__ import annotations

import subprocess

import pytest
from manim import MathTex, Tex, TexTemplate, tempconfig

from manim_speedups import tex_format

from .helpers import speedup_off

FORMULAS = [r"e_{tj} = f_{att}(s_{t-1}, h_j)", r"c_t = \sum_j a_{tj}\, h_j", r"\vdots",
            r"A = \mathrm{softmax}_{\text{rows}}(E)", r"\cos\theta = \frac{m \cdot u}{|m|\,|u|}"]


@pytest.fixture(autouse=True)
def restore():
    yield from speedup_off(tex_format)
    tex_format._failed.clear()  # a test's unusable format is not the next test's


def _svgs(folder, build) -> dict[str, bytes]:
    with tempconfig({"tex_dir": str(folder)}):
        for make in build:
            make()
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.svg"))}


def _build():
    return ([lambda f=f: MathTex(f) for f in FORMULAS]
            + [lambda: MathTex("E", "=", r"Q\,X^{T}"), lambda: Tex(r"a \textbf{learned} weight, 87.5\,\%")])


def test_the_svg_files_are_manims_byte_for_byte(tmp_path):
    manims = _svgs(tmp_path / "manim", _build())
    tex_format.install()
    before = tex_format.stats()
    ours = _svgs(tmp_path / "ours", _build())
    after = tex_format.stats()
    assert len(manims) == len(FORMULAS) + 2
    assert ours == manims  # same names (hashes of the same documents), same bytes
    assert after["with_format"] - before["with_format"] == len(manims)
    assert after["formats_built"] - before["formats_built"] == 1  # one preamble, one format
    assert len(list((tmp_path / "ours-formats").glob("format-*.fmt"))) == 1
    assert not list((tmp_path / "ours").glob("format-*"))  # Manim's folder holds only its own files


def test_another_preamble_gets_its_own_format(tmp_path):
    tex_format.install()
    template = TexTemplate()
    template.add_to_preamble(r"\usepackage{xcolor}")
    with tempconfig({"tex_dir": str(tmp_path)}):
        MathTex("x")
        MathTex("x", tex_template=template)
    assert len(list(tex_format.formats_folder(tmp_path).glob("format-*.fmt"))) == 2


def test_a_latex_error_is_reported_as_manim_reports_it(tmp_path):
    tex_format.install()
    with tempconfig({"tex_dir": str(tmp_path)}):
        with pytest.raises(ValueError, match="latex error converting to dvi"):
            MathTex(r"\undefinedcommandxyz")
    assert not list(tmp_path.glob("*.dvi"))


def test_without_a_usable_format_manim_compiles(tmp_path, monkeypatch):
    tex_format.install()
    real_run = subprocess.run

    def no_ini(command, *args, **kwargs):  # as if mylatexformat were missing
        if "-ini" in command:
            return subprocess.CompletedProcess(command, 1)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(tex_format.subprocess, "run", no_ini)
    before = tex_format.stats()
    with tempconfig({"tex_dir": str(tmp_path)}):
        formula = MathTex(r"h_t = \mathrm{GRU}(x_t,\ h_{t-1})")
    assert len(formula.submobjects) > 0
    assert tex_format.stats()["manims_way"] - before["manims_way"] == 1
    assert not list(tex_format.formats_folder(tmp_path).glob("format-*.fmt"))


def test_off_switch(monkeypatch):
    from manim.utils import tex_file_writing

    monkeypatch.setenv(tex_format.ENV, "0")
    tex_format.install()
    assert not tex_format.installed()
    assert tex_file_writing.compile_tex is not tex_format.compile_tex
