"""No input a user can write ends in a traceback (issue 15).

Each bad input below goes through the real command line (click's runner,
in process): it must end with exactly one line on stderr that names what
is wrong, a non-zero exit code, no "Traceback", and must leave the output
folder untouched. A full disk during a render is simulated by patching the
render and must be reported as such, naming where it was writing.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree.ElementTree import ParseError

import pytest
from click.testing import CliRunner

import render
from attention_core.numbers_file import default_numbers_text
from publish.rendering import pipeline

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = default_numbers_text()
SMALL = ('seed = 1\n[sentences]\nsource = "the cat eats fish"\ntarget = "le chat mange du poisson"\n'
         "[sizes]\nembedding = 4\nhidden = 4\n")


def _png(path: Path, width: int, height: int) -> Path:
    from PIL import Image

    Image.new("RGB", (width, height), (200, 30, 30)).save(path)
    return path


# name -> (file bytes or text, words the one line must contain). "{dir}" is the test's folder.
BAD_FILES: dict[str, tuple[str | bytes, list[str]]] = {
    # An empty file is not an error: a numbers file holds only what it changes.
    "bad-toml": ("seed = = 3\n", ["not valid TOML"]),
    "unclosed-table": ("[sentences\n", ["not valid TOML"]),
    "unclosed-string": ('seed = 1\n[sentences]\nsource = "the cat\n', ["not valid TOML"]),
    "duplicate-key": ("seed = 1\nseed = 2\n", ["not valid TOML"]),
    "latin-1": (SMALL.replace("the cat", "the café").encode("latin-1"), ["not UTF-8 text", "byte 0xe9"]),
    "utf-16": (SMALL.encode("utf-16"), ["UTF-16"]),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["not UTF-8 text", "position 0"]),
    "nul-bytes": ("seed = 1\x00\n", ["not valid TOML"]),
    "seed-text": (SMALL.replace("seed = 1", 'seed = "many"'), ["seed", "whole number"]),
    "seed-float": (SMALL.replace("seed = 1", "seed = 1.5"), ["seed", "whole number"]),
    "seed-bool": (SMALL.replace("seed = 1", "seed = true"), ["seed", "whole number"]),
    "seed-negative": (SMALL.replace("seed = 1", "seed = -4"), ["seed", "whole number"]),
    "sizes-not-table": ("sizes = 3\n" + SMALL.replace("[sizes]\nembedding = 4\nhidden = 4\n", ""),
                        ["sizes", "a table"]),
    "size-too-big": (SMALL.replace("embedding = 4", "embedding = 100"), ["sizes.embedding", "2 to 8"]),
    "size-zero": (SMALL.replace("hidden = 4", "hidden = 0"), ["sizes.hidden", "2 to 8"]),
    "sentence-number": (SMALL.replace('"the cat eats fish"', "5"), ["sentences.source", "a string"]),
    "sentence-punctuation": (SMALL.replace('"the cat eats fish"', '"?!..."'), ["sentences.source"]),
    "sentence-13-words": (SMALL.replace('"the cat eats fish"', '"' + "cat " * 13 + '"'),
                          ["sentences.source", "at most 12"]),
    "sentence-cjk": (SMALL.replace("the cat", "the 猫"), ["sentences.source", "U+732B", "cannot draw"]),
    "sentence-emoji": (SMALL.replace("le chat", "le 🐱"), ["sentences.target", "U+1F431", "cannot draw"]),
    "unknown-top-key": (SMALL + "colour = 'red'\n", ["colour", "unknown key"]),
    "unknown-nested-key": (SMALL + "[encoder]\nbias = [0.1]\n", ["encoder.bias", "unknown key"]),
    "extra-words-string": (SMALL + "[vocabulary]\nsource_extra = \"cat\"\n",
                           ["vocabulary.source_extra", "list of words"]),
    "embedding-not-table": (SMALL + "[embeddings]\nsource = [1]\n", ["embeddings.source", "a table"]),
    "matrix-string": (SMALL + '[encoder]\nW_x = "m"\n', ["encoder.W_x"]),
    "matrix-ragged": (SMALL + "[encoder]\nW_x = [[1, 2, 3, 4], [1], [1, 2, 3, 4], [1, 2, 3, 4]]\n",
                      ["encoder.W_x", "row 1"]),
    "matrix-empty": (SMALL + "[encoder]\nW_x = []\n", ["encoder.W_x"]),
    "vector-nested": (SMALL + "[encoder]\nb = [[1], [2], [3], [4]]\n", ["encoder.b[0]", "a number"]),
    "nan": (SMALL + "[encoder]\nb = [0.1, nan, 0.3, 0.4]\n", ["encoder.b[1]", "finite"]),
    "huge-worked-example": (SMALL + "[worked_example]\ninputs = [[1e308, 0, 0], [0, 1, 0]]\n",
                            ["worked_example.inputs[0][0]", "from -10 to 10"]),
    "huge-dot-attention": (SMALL + "[dot_product_attention]\nquery = [1e300, 0, 0]\n",
                           ["dot_product_attention.query[0]", "from -10 to 10"]),
    "huge-int": (SMALL + "[decoder]\nb = [9223372036854775807, 0, 0, 0]\n", ["decoder.b[0]", "from -10 to 10"]),
    "tiny-dot-product": (SMALL + '[dot_product]\nfeatures = ["a", "b"]\nmovie = [1e-300, 0]\nuser = [1, 1]\n',
                         ["dot_product.movie", "not all zeros"]),
    "dot-product-7-features": (SMALL + "[dot_product]\nfeatures = ['a','b','c','d','e','f','g']\n"
                               "movie = [1,1,1,1,1,1,1]\nuser = [1,1,1,1,1,1,1]\n", ["dot_product.features"]),
    "attention-score": (SMALL + '[attention]\nscore = "cosine"\n', ["attention.score"]),
    "model-weights": (SMALL + '[model]\nweights = "best"\n', ["model.weights"]),
    "model-hidden-too-big": (SMALL + "[model]\nhidden = 40\n", ["model.hidden"]),
    "map-two-sentences": (SMALL + '[hidden_state_map]\nsentences = ["a b", "c d"]\n',
                          ["hidden_state_map.sentences"]),
    "output-step": (SMALL + "[output_mapping]\nstep = 99\n", ["output_mapping.step"]),
    "queries-width": (SMALL + "[multi_query_attention]\ninputs = [[1, 0], [0, 1]]\nqueries = [[1, 0, 0]]\n",
                      ["multi_query_attention.queries"]),
    "inputs-11-rows": (SMALL + "[dot_product_attention]\ninputs = [" + "[1, 0], " * 11 + "]\n",
                       ["dot_product_attention.inputs", "2 to 10"]),
    "cnn-image-missing": (SMALL + '[cnn]\nimage = "nope.png"\n', ["cnn.image"]),
    "cnn-image-folder": (SMALL + '[cnn]\nimage = "."\n', ["cnn.image"]),
    "cnn-image-text": (SMALL + '[cnn]\nimage = "numbers.toml"\n', ["cnn.image"]),
    "cnn-image-empty": (SMALL + '[cnn]\nimage = ""\n', ["cnn.image"]),
    "cnn-image-tiny": (SMALL + '[cnn]\nimage = "tiny.png"\n', ["cnn.image", "at least"]),
    "cnn-bias-huge": (SMALL + "[cnn]\nfeatures = 2\nbias = [0, 1e200]\n", ["cnn.bias[1]", "-100 to 100"]),
    # Issue 25: passed validation, then failed in Pango, shrank a notice to 4 px,
    # or switched networks silently.
    "sentence-nul": (SMALL.replace("the cat", "the c\\u0000at"), ["sentences.source", "U+0000", "control"]),
    "sentence-bell": (SMALL.replace("le chat", "le ch\\u0007at"), ["sentences.target", "U+0007"]),
    "word-26-letters": (SMALL + '[vocabulary]\nsource_extra = ["' + "a" * 26 + '"]\n',
                        ["vocabulary.source_extra[0]", "26 characters", "at most 25"]),
    "word-300-letters-in-sentence": (SMALL.replace("the cat", "the " + "b" * 300),
                                     ["sentences.source", "300 characters", "at most 25"]),
    "map-word-too-long": (SMALL + '[hidden_state_map]\nsentences = ["a b", "c d", "e ' + "f" * 30 + '"]\n',
                          ["hidden_state_map.sentences[2]", "at most 25"]),
    "embedding-unused-word": (SMALL + "[embeddings.source]\nteh = [0.1, 0.2, 0.3, 0.4]\n",
                              ["embeddings.source.teh", "'teh' is in no source sentence", "did you mean 'the'"]),
    "embedding-unused-target": (SMALL + "[embeddings.target]\nchien = [0.1, 0.2, 0.3, 0.4]\n",
                                ["embeddings.target.chien", "is in no target sentence"]),
    "dot-product-4-decimals": (SMALL + '[dot_product]\nfeatures = ["a", "b"]\nmovie = [0.1234, 1]\n'
                               "user = [1, 1]\n", ["dot_product.movie[0]", "at most 3 decimals"]),
}


def _invoke(*args: str):
    return CliRunner().invoke(render.cli, list(args))


def _one_line_error(result, *needles: str) -> str:
    assert result.exception is not None and isinstance(result.exception, SystemExit), (
        f"not handled: {result.exception!r}\n{result.output}")
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _write(folder: Path, content: str | bytes) -> Path:
    _png(folder / "tiny.png", 8, 8)
    path = folder / "numbers.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, "utf-8")
    return path


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_numbers_files_give_one_line(name, tmp_path):
    content, needles = BAD_FILES[name]
    path = _write(tmp_path, content)
    out = tmp_path / "out"
    for args in (["numbers", "--numbers", str(path)],
                 ["render", "worked_example", "--numbers", str(path), "--out", str(out)]):
        line = _one_line_error(_invoke(*args), *needles)
        assert "numbers.toml" in line
    assert not out.exists()  # rejected before the output folder is touched


BAD_ARGUMENTS = {
    "scene-id": (["render", "nope"], ["unknown scene id 'nope'"]),
    "scene-id-empty": (["render", ""], ["unknown scene id ''"]),
    "numbers-scene": (["numbers", "--scene", "nope"], ["unknown scene id 'nope'"]),
    "format": (["render", "worked_example", "--format", "avi"], ["unknown format 'avi'"]),
    "quality": (["render", "worked_example", "--quality", "8k"], ["unknown quality '8k'"]),
    "theme": (["render", "worked_example", "--theme", "sepia"], ["unknown theme 'sepia'"]),
    "jobs": (["render", "worked_example", "--jobs", "-3"], ["--jobs"]),
    "numbers-missing": (["render", "worked_example", "--numbers", "{dir}/absent.toml"], ["no such file"]),
    "numbers-folder": (["render", "worked_example", "--numbers", "{dir}"], ["is a folder"]),
    "out-empty": (["render", "worked_example", "--out", ""], ["--out", "empty"]),
    "out-blank": (["render", "worked_example", "--out", "  "], ["--out", "empty"]),
    "out-is-file": (["render", "worked_example", "--out", "{dir}/file.txt"], ["not a folder"]),
    "out-under-file": (["render", "worked_example", "--out", "{dir}/file.txt/sub"], ["cannot write there"]),
    "out-in-proc": (["render", "worked_example", "--out", "/proc/attention-out"], ["cannot write"]),
    "out-cache-file": (["render", "worked_example", "--out", "{dir}/site"], [".cache"]),
}


@pytest.mark.parametrize("name", sorted(BAD_ARGUMENTS))
def test_bad_arguments_give_one_line(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an empty --out must not write here
    (tmp_path / "file.txt").write_text("keep me")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / ".cache").write_text("not a folder")
    args, needles = BAD_ARGUMENTS[name]
    _one_line_error(_invoke(*(a.replace("{dir}", str(tmp_path)) for a in args)), *needles)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "site"]
    assert (tmp_path / "file.txt").read_text() == "keep me"


def test_a_file_with_a_byte_order_mark_renders_like_one_without(tmp_path):
    plain, bom = tmp_path / "plain.toml", tmp_path / "bom.toml"
    plain.write_text(SMALL, "utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + SMALL.encode("utf-8"))
    a = _invoke("numbers", "--numbers", str(plain), "--scene", "worked_example")
    b = _invoke("numbers", "--numbers", str(bom), "--scene", "worked_example")
    assert a.exit_code == 0 and b.exit_code == 0, b.output
    assert a.stdout == b.stdout


# --- a full disk during a render ----------------------------------------------


def _render_failing_with(exc: BaseException, tmp_path: Path, monkeypatch):
    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(pipeline, "render_scene", fail)
    out = tmp_path / "out"
    return out, _invoke("render", "worked_example", "--out", str(out), "--jobs", "1")


def test_no_space_left_is_named_with_the_path(tmp_path, monkeypatch):
    target = str(tmp_path / "out" / ".rendering-1-worked_example" / "final.mp4")
    out, result = _render_failing_with(OSError(errno.ENOSPC, "No space left on device", target),
                                       tmp_path, monkeypatch)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"worked_example: FAILED after" in result.stderr
    assert f"(no space left on device writing {target})" in result.stderr
    assert "1 of 1 scenes failed: worked_example" in result.stderr


def test_a_truncated_svg_on_a_full_disk_is_put_down_to_the_disk(tmp_path, monkeypatch):
    # Manim writes each text as an SVG file; on a full disk it is cut short
    # and the render fails with "no element found" from the XML parser.
    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**9, 10**9, 0))
    out, result = _render_failing_with(ParseError("no element found: line 1, column 0"),
                                       tmp_path, monkeypatch)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"(no space left on device writing {out} (ParseError: no element found" in result.stderr


def test_the_same_parse_error_with_space_left_is_reported_as_it_is(tmp_path, monkeypatch):
    out, result = _render_failing_with(ParseError("no element found: line 1, column 0"),
                                       tmp_path, monkeypatch)
    assert "no space left" not in result.stderr
    assert "ParseError: no element found" in result.stderr


def test_console_script_on_an_empty_out_and_a_latin1_file(tmp_path):
    # The real entry point, as a shell runs it: one line each, no traceback.
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(SMALL.replace("chat", "chât").encode("latin-1"))
    for args, start in ((["render", "worked_example", "--out", ""], "error: --out: expected a folder name"),
                        (["numbers", "--numbers", str(latin1)], f"error: numbers file {latin1}: not UTF-8")):
        proc = subprocess.run([sys.executable, str(ROOT / "render.py"), *args],
                              capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(start) and proc.stderr.count("\n") == 1, proc.stderr
        assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == [latin1]
