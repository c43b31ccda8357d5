"""The command line: list, numbers, render, and every bad-input case."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import render
from attention_core import compute_trace, load_numbers
from scenes import SCENES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def runner():
    return CliRunner()


def test_list_names_every_scene_with_a_description(runner):
    result = runner.invoke(render.cli, ["list"])
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(SCENES)
    for line in lines:
        assert len(line.split(maxsplit=1)) == 2


def test_numbers_json_matches_the_core(runner):
    result = runner.invoke(render.cli, ["numbers", "--format", "json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    trace = compute_trace(load_numbers())
    assert np.allclose(data["encoder"]["hidden"], trace.encoder.hidden, rtol=0, atol=1e-15)
    assert data["parameters"]["encoder"]["W_x"] == trace.params.encoder_W_x.tolist()
    assert data["source"]["tokens"] == list(trace.source_tokens)


def test_numbers_reads_another_file(runner, tmp_path):
    f = tmp_path / "n.toml"
    f.write_text('seed = 3\n[sentences]\nsource = "the cat eats fish"\ntarget = "le chat mange du poisson"\n'
                 "[sizes]\nembedding = 2\nhidden = 3\n")
    result = runner.invoke(render.cli, ["numbers", "--numbers", str(f)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["source"]["tokens"] == ["the", "cat", "eats", "fish"]
    assert len(data["encoder"]["hidden"][0]) == 3


def _one_line_error(result, *needles):
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]


BAD_FILES = {
    "wrong-shape": ("[encoder]\nW_x = [[1, 2], [3, 4]]\n", "encoder.W_x"),
    "non-numeric": ('[encoder]\nb = [0.1, "a", 0.3, 0.4]\n', "encoder.b[1]"),
    "nan": ("[encoder]\nb = [0.1, nan, 0.3, 0.4]\n", "encoder.b[1]"),
    "inf": ("[encoder]\nb = [0.1, inf, 0.3, 0.4]\n", "encoder.b[1]"),
    "unknown-key": ("[encoder]\nbias = [0.1]\n", "encoder.bias"),
}
BASE = ('seed = 1\n[sentences]\nsource = "the cat"\ntarget = "le chat"\n'
        "[sizes]\nembedding = 4\nhidden = 4\n")


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_numbers_file_is_one_line(runner, tmp_path, kind):
    extra, key = BAD_FILES[kind]
    f = tmp_path / "bad.toml"
    f.write_text(BASE + extra)
    for args in (["numbers", "--numbers", str(f)], ["render", "encoder", "--numbers", str(f),
                                                     "--out", str(tmp_path / "out")]):
        _one_line_error(runner.invoke(render.cli, args), "bad.toml", key)


def test_empty_sentence_and_unreadable_file(runner, tmp_path):
    f = tmp_path / "empty.toml"
    f.write_text(BASE.replace('source = "the cat"', 'source = ""'))
    _one_line_error(runner.invoke(render.cli, ["numbers", "--numbers", str(f)]), "sentences.source")
    _one_line_error(runner.invoke(render.cli, ["numbers", "--numbers", str(tmp_path / "nope.toml")]),
                    "nope.toml", "no such file")
    g = tmp_path / "syntax.toml"
    g.write_text("seed = [\n")
    _one_line_error(runner.invoke(render.cli, ["numbers", "--numbers", str(g)]), "not valid TOML")


def test_unknown_scene_lists_the_valid_ids(runner, tmp_path):
    result = runner.invoke(render.cli, ["render", "no_such_scene", "--out", str(tmp_path)])
    _one_line_error(result, "no_such_scene", *SCENES)


def test_render_needs_scenes_or_all(runner, tmp_path):
    _one_line_error(runner.invoke(render.cli, ["render", "--out", str(tmp_path)]), "--all")


def test_output_folder_that_is_a_file(runner, tmp_path):
    f = tmp_path / "taken"
    f.write_text("precious")
    _one_line_error(runner.invoke(render.cli, ["render", "encoder", "--out", str(f)]), "taken", "not a folder")
    assert f.read_text() == "precious"


def test_output_folder_not_writable(runner):
    # /proc refuses new folders even to root (CI runs as root, so chmod would not do).
    _one_line_error(runner.invoke(render.cli, ["render", "encoder", "--out", "/proc/attention-out"]),
                    "/proc/attention-out", "cannot write")


def test_output_folder_under_a_file(runner, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    _one_line_error(runner.invoke(render.cli, ["render", "encoder", "--out", str(f / "sub")]), "cannot write")


def test_console_entry_point_runs_without_traceback(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "render.py"), "render", "nope", "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: unknown scene id 'nope'")
    assert "Traceback" not in proc.stderr
