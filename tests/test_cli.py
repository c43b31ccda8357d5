"""The command line: list, numbers in every format, and every bad input.

Bad input must end in one line on stderr, a non-zero exit code, no
traceback, and leave whatever is already in the output folder untouched.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import render
from attention_core.formatting import format_number
from scenes import SCENES

from .helpers import load_default_trace

ROOT = Path(__file__).resolve().parents[1]


def _invoke(*args: str):
    return CliRunner().invoke(render.cli, list(args))


def _one_line_error(result, *needles: str) -> None:
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)  # handled, not a crash
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_list_names_every_scene_with_its_description():
    result = _invoke("list")
    assert result.exit_code == 0
    for scene_id, cls in SCENES.items():
        assert any(line.startswith(scene_id) and cls.description in line for line in result.stdout.splitlines())


def test_numbers_json_is_the_whole_trace():
    result = _invoke("numbers", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(json.dumps(load_default_trace().to_dict()))


def test_numbers_json_for_a_scene_is_its_sections_rounded_as_shown():
    result = _invoke("numbers", "--format", "json", "--scene", "encoder")
    assert result.exit_code == 0
    got = json.loads(result.stdout)
    assert set(got) == set(SCENES["encoder"].trace_sections)
    hidden = load_default_trace().plain_model.encoder_states
    assert got["plain_model.encoder_states"][3][1] == float(format_number(hidden[3][1]).replace("\u2212", "-"))
    assert "parameters" not in got  # not shown by the encoder scene


def test_numbers_markdown_and_latex_write_values_as_on_screen():
    trace = load_default_trace()
    h = np.asarray(trace.plain_model.encoder_states)
    md = _invoke("numbers", "--format", "markdown", "--scene", "encoder")
    assert md.exit_code == 0
    # Row h_3 of the encoder states, labelled as on screen, every value as
    # format_number writes it but with an ASCII minus (pastes into code).
    want = "| h_3 | " + " | ".join(format_number(v).replace("\u2212", "-") for v in h[3]) + " |"
    assert want in md.stdout.splitlines()
    assert "\u2212" not in md.stdout
    # The inputs' rows are the words.
    first_word = trace.to_dict()["plain_model"]["tokens"][0]
    assert any(line.startswith(f"| {first_word} | ") for line in md.stdout.splitlines())
    tex = _invoke("numbers", "--format", "latex", "--scene", "encoder")
    assert tex.exit_code == 0
    assert r"\begin{bmatrix}" in tex.stdout and r"\begin{tabular}" not in tex.stdout
    negative = next(v for v in h.ravel() if format_number(v).startswith("\u2212"))
    assert "-" + format_number(negative)[1:] in tex.stdout
    # Without --scene: one heading per scene.
    every = _invoke("numbers", "--format", "markdown")
    assert every.exit_code == 0
    assert all(f"## {s}" in every.stdout.splitlines() for s in SCENES)
    assert "## encoder" not in md.stdout  # one scene asked for: no heading


def test_worked_example_tables_are_labelled_captioned_and_correct():
    md = _invoke("numbers", "--format", "markdown", "--scene", "worked_example")
    assert md.exit_code == 0
    lines = md.stdout.splitlines()
    # One captioned table per matrix on screen: X, q, s, alpha, C.
    captions = [line for line in lines if line.startswith("*") and line.endswith("*")]
    assert len(captions) == 5 and captions[2].startswith("*E = X q^T")
    # Headers as on screen: the scores' columns are the queries, rows the inputs,
    # named by the draft's words (its X and q are the default numbers).
    assert "|  | the | cat | eats | fish |" in lines
    # E_11 = x_1 . q_1 by hand from the draft's X and q (the default numbers):
    # (-0.2)(0.1) + (0.3)(0.2) + (0.5)(-0.3) = -0.02 + 0.06 - 0.15 = -0.11.
    row = next(line for line in lines[lines.index(captions[2]):] if line.startswith("| le |"))
    assert row.split("|")[2].strip() == "-0.11"


def _strict_bmatrix_check(block: str) -> None:
    """What KaTeX needs of our blocks: known commands only, balanced braces,
    one bmatrix with rows of equal length, every cell a number."""
    assert block.count("{") == block.count("}")
    for command in re.findall(r"\\([A-Za-z]+)", block):
        assert command in {"begin", "end", "mathrm", "alpha"}, command
    match = re.fullmatch(r"(.+?) = (?:\\begin\{bmatrix\} (.+) \\end\{bmatrix\}|(-?[0-9.]+))", block)
    assert match, block
    if match.group(2):
        rows = [[c.strip() for c in r.split("&")] for r in match.group(2).split(r" \\ ")]
        assert len({len(r) for r in rows}) == 1, block
        for cell in (c for r in rows for c in r):
            float(cell)


def _katex() -> Path | None:
    """A katex npm package to render with, if installed (setup or KATEX_DIR)."""
    import os
    import shutil

    if not shutil.which("node"):
        return None
    for base in filter(None, [os.environ.get("KATEX_DIR"), str(ROOT / ".venv" / "katex")]):
        if (Path(base) / "node_modules" / "katex").is_dir():
            return Path(base)
    return None


def test_latex_tables_are_katex_renderable_bmatrix():
    tex = _invoke("numbers", "--format", "latex")
    assert tex.exit_code == 0
    blocks = re.findall(r"\$\$ (.*?) \$\$", tex.stdout)
    assert len(blocks) > 100 and "\u2212" not in tex.stdout
    for block in blocks:
        _strict_bmatrix_check(block)
    katex = _katex()
    if katex is not None:  # the real renderer, when installed
        script = ("const k=require('katex');const b=JSON.parse(require('fs').readFileSync(0,'utf8'));"
                  "const bad=[];for(const x of b){try{k.renderToString(x,{displayMode:true,throwOnError:true,"
                  "strict:'error'})}catch(e){bad.push(x+': '+e.message)}}console.log(JSON.stringify(bad))")
        out = subprocess.run(["node", "-e", script], input=json.dumps(blocks), capture_output=True, text=True,
                             cwd=katex, env={"NODE_PATH": str(katex / "node_modules")}, timeout=120)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == []
    # The strict check itself rejects what KaTeX would.
    for broken in (r"X = \begin{bmatrix} 1 & 2 \\ 3 \end{bmatrix}", r"X = \frac{1", r"X = \begin{tabular} 1"):
        with pytest.raises(AssertionError):
            _strict_bmatrix_check(broken)


def test_numbers_file_holds_only_what_it_changes(tmp_path):
    part = tmp_path / "part.toml"
    part.write_text("[worked_example]\nqueries = [[1.0, 0.0, 0.0]]\n")
    got = json.loads(_invoke("numbers", "--numbers", str(part)).stdout)
    default = json.loads(json.dumps(load_default_trace().to_dict()))
    # The one change: with q = e_1, each input's score is its first number.
    assert got["worked_example"]["scores"] == [[row[0]] for row in default["worked_example"]["inputs"]]
    # Everything else is the default's.
    for key in ("source", "encoder", "dot_product", "dot_product_attention"):
        assert got[key] == default[key], key
    # --init writes a file that changes nothing, and refuses to overwrite.
    start = tmp_path / "start.toml"
    result = _invoke("numbers", "--init", str(start))
    assert result.exit_code == 0 and start.is_file()
    text = start.read_text()
    assert "# seed = 2024" in text and "[worked_example]" in text
    assert json.loads(_invoke("numbers", "--numbers", str(start)).stdout)["encoder"] == default["encoder"]
    edited = tmp_path / "edited.toml"
    edited.write_text(text.replace("# seed = 2024", "seed = 7"))
    assert json.loads(_invoke("numbers", "--numbers", str(edited)).stdout)["seed"] == 7
    _one_line_error(_invoke("numbers", "--init", str(start)), "exists")


def test_manim_style_options_and_draft_names():
    version = _invoke("--version")
    assert version.exit_code == 0 and "manim" in version.stdout
    listed = _invoke("list").stdout.splitlines()
    line = next(line for line in listed if line.startswith("cnn_attention "))
    assert "draft: CNN_attention" in line
    assert "draft:" not in next(line for line in listed if line.startswith("worked_example "))
    assert render.QUALITY_SHORT == {"l": "low", "m": "medium", "h": "high", "k": "4k"}
    assert render._output_formats(("mp4",), still=True, transparent=False) == ("mp4", "png", "vtt")
    assert render._output_formats(("png", "svg"), still=False, transparent=True) == ("png", "svg")
    # Choices complete in a shell.
    from click.shell_completion import ShellComplete

    complete = ShellComplete(render.cli, {}, "render.py", "_X").get_completions
    assert [c.value for c in complete(["render", "--theme"], "")] == ["dark", "light"]
    assert [c.value for c in complete(["render", "--format"], "mp4,s")] == ["mp4,svg"]


@pytest.mark.parametrize("args,needles", [
    (["numbers", "--scene", "nope"], ["unknown scene id 'nope'"]),
    (["numbers", "--format", "yaml"], ["unknown numbers format 'yaml'"]),
    (["render", "nope"], ["unknown scene id 'nope'"]),
    (["render", "encoder", "--format", "mp4,avi"], ["unknown format 'avi'"]),
    (["render", "encoder", "--format", ","], ["no format given"]),
    (["render", "encoder", "--theme", "sepia"], ["unknown theme 'sepia'"]),
    (["render", "encoder", "--quality", "8k"], ["unknown quality '8k'"]),
    (["render", "encoder", "--jobs", "0"], ["--jobs"]),
    (["render", "encoder", "--jobs", "many"], ["--jobs"]),
    (["render"], ["name at least one scene"]),
    (["render", "encoder", "--all"], ["not both"]),
    (["render", "encoder", "-q", "x"], ["unknown quality 'x'"]),
    (["render", "encoder", "--names", "nick"], ["unknown naming 'nick'"]),
    (["render", "encoder", "--transparent", "--format", "mp4,png"], ["mp4 cannot be transparent"]),
    (["render", "encoder", "--transparent", "--format", "gif"], ["gif cannot be transparent"]),
    # post checks --jobs and --port as render does ("\u00b2" passes str.isdigit, not int()).
    (["post", "draft.md", "--jobs", "\u00b2"], ["--jobs must be a whole number"]),
    (["post", "draft.md", "--port", "\u00b2"], ["--port must be a port number"]),
    (["post", "draft.md", "--port", "65536"], ["--port must be a port number"]),
], ids=["numbers-scene", "numbers-format", "render-scene", "format", "empty-format", "theme", "quality",
        "jobs", "jobs-text", "no-scene", "ids-and-all", "short-quality", "naming", "transparent-mp4",
        "transparent-gif", "post-jobs-digit", "post-port-digit", "post-port-range"])
def test_bad_arguments(args, needles, tmp_path):
    result = _invoke(*args, *(["--out", str(tmp_path / "out")] if args[0] in ("render", "post") else []))
    _one_line_error(result, *needles)
    assert not (tmp_path / "out").exists()  # rejected before touching the output folder


@pytest.mark.parametrize("kind", ["missing", "folder", "bad-toml", "unknown-key", "bad-value"])
@pytest.mark.parametrize("command", ["numbers", "render"])
def test_bad_numbers_files(kind, command, tmp_path):
    path = tmp_path / "numbers.toml"
    if kind == "folder":
        path.mkdir()
    elif kind == "bad-toml":
        path.write_text("seed = = 3\n")
    elif kind == "unknown-key":
        path.write_text((ROOT / "attention_core" / "default_numbers.toml").read_text() + "\nsurprise = 1\n")
    elif kind == "bad-value":
        text = (ROOT / "attention_core" / "default_numbers.toml").read_text()
        path.write_text(text.replace("seed = 2024", 'seed = "many"'))
    args = ["numbers", "--numbers", str(path)] if command == "numbers" else \
        ["render", "encoder", "--numbers", str(path), "--out", str(tmp_path / "out")]
    result = _invoke(*args)
    _one_line_error(result, "numbers file")
    assert not (tmp_path / "out").exists()


def _existing_output(tmp_path: Path) -> tuple[Path, bytes]:
    out = tmp_path / "site"
    out.mkdir()
    clip = out / "encoder.mp4"
    clip.write_bytes(b"an earlier good render")
    return out, clip.read_bytes()


def test_output_folder_that_is_a_file(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("keep me")
    _one_line_error(_invoke("render", "encoder", "--out", str(target)), "not a folder")
    _one_line_error(_invoke("render", "encoder", "--out", str(target / "sub")), "cannot write there")
    assert target.read_text() == "keep me"


def test_cache_folder_that_is_a_file(tmp_path):
    out, before = _existing_output(tmp_path)
    (out / ".cache").write_text("oops")
    _one_line_error(_invoke("render", "encoder", "--out", str(out)), ".cache")
    assert (out / "encoder.mp4").read_bytes() == before


def test_unwritable_output_folder(tmp_path, monkeypatch):
    out, before = _existing_output(tmp_path)

    # Root ignores permission bits, so make the write probe fail as a
    # read-only folder (or a full disk) would.
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(render.tempfile, "NamedTemporaryFile", refuse)
    _one_line_error(_invoke("render", "encoder", "--out", str(out)), "cannot write there", "Permission denied")
    assert (out / "encoder.mp4").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["encoder.mp4"]


def test_table_export_and_cache_never_import_manim():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "import publish.tables, publish.rendering.cache, publish.targets.gallery, publish.rendering.names, publish.rendering.captions, "
            "publish.rendering.progress, attention_core.formatting, attention_core; "
            "print('manim' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_numbers_reads_another_file(tmp_path):
    f = tmp_path / "n.toml"
    f.write_text('seed = 3\n[sentences]\nsource = "the cat eats fish"\ntarget = "le chat mange du poisson"\n'
                 "[sizes]\nembedding = 2\nhidden = 3\n")
    result = _invoke("numbers", "--numbers", str(f))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["source"]["tokens"] == ["the", "cat", "eats", "fish"]
    assert len(data["encoder"]["hidden"][0]) == 3


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
def test_bad_numbers_file_names_the_key(tmp_path, kind):
    extra, key = BAD_FILES[kind]
    f = tmp_path / "bad.toml"
    f.write_text(BASE + extra)
    for args in (["numbers", "--numbers", str(f)], ["render", "encoder", "--numbers", str(f),
                                                     "--out", str(tmp_path / "out")]):
        _one_line_error(_invoke(*args), "bad.toml", key)


def test_empty_sentence_and_unreadable_file(tmp_path):
    f = tmp_path / "empty.toml"
    f.write_text(BASE.replace('source = "the cat"', 'source = ""'))
    _one_line_error(_invoke("numbers", "--numbers", str(f)), "sentences.source")
    _one_line_error(_invoke("numbers", "--numbers", str(tmp_path / "nope.toml")),
                    "nope.toml", "no such file")
    g = tmp_path / "syntax.toml"
    g.write_text("seed = [\n")
    _one_line_error(_invoke("numbers", "--numbers", str(g)), "not valid TOML")


def test_unknown_scene_lists_the_valid_ids(tmp_path):
    result = _invoke("render", "no_such_scene", "--out", str(tmp_path))
    _one_line_error(result, "no_such_scene", *SCENES)


def test_output_folder_not_writable():
    # /proc refuses new folders even to root (CI runs as root, so chmod would not do).
    _one_line_error(_invoke("render", "encoder", "--out", "/proc/attention-out"),
                    "/proc/attention-out", "cannot write")


def test_console_entry_point_runs_without_traceback(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "render.py"), "render", "nope", "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: unknown scene id 'nope'")
    assert "Traceback" not in proc.stderr
