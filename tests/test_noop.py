"""A run with nothing stale decides from files alone: no manim, no scene, no numbers computed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from publish.rendering import cache
from publish import freshness
from publish.rendering.pipeline import run_renders
from scenes import SCENE_MODULES

from . import render_scenes
from .helpers import trace_from, varied

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = {"steps": "False", "naming": "id", "transparent": "False"}
FORMATS = ("mp4", "vtt")


def _as_rendered(out: Path, scene_ids, numbers: Path | None) -> None:
    """Outputs and records as a finished run leaves them (fake bytes: nothing here draws)."""
    prints = freshness.Fingerprints(numbers, "low", "dark", OPTIONS)
    for scene_id in scene_ids:
        for fmt in FORMATS:
            (out / f"{scene_id}.{fmt}").write_bytes(f"{scene_id} {fmt} ".encode() * 50)
            cache.write_record(out, scene_id, fmt, {"scene": scene_id})
            cache.note_inputs(out, scene_id, fmt, prints(scene_id, SCENE_MODULES[scene_id].partition(":")[0], fmt))
    (out / "index.html").write_text("<html></html>")


def test_the_registry_names_every_scene_by_module_without_importing_it():
    code = ("import sys; import scenes; from publish import freshness; "
            "print(len(scenes.SCENE_MODULES), sorted(m for m in sys.modules if m.split('.')[0] in "
            "('manim', 'numpy', 'attention_core') or m.startswith('scenes.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    count, modules = out.split(" ", 1)
    assert int(count) >= 10 and modules.strip() == "[]", out
    for scene_id, ref in SCENE_MODULES.items():
        module, _, name = ref.partition(":")
        assert (ROOT / Path(*module.split("."))).with_suffix(".py").is_file(), ref
    from scenes import SCENES  # imported on use: every entry names a class of that id

    assert list(SCENES) == list(SCENE_MODULES)
    assert all(cls.scene_id == scene_id for scene_id, cls in SCENES.items())


def test_stale_outputs_from_files(tmp_path):
    ids = ["encoder", "decoder"]
    numbers = tmp_path / "numbers.toml"
    numbers.write_text("# nothing changed\n")
    out = tmp_path / "out"
    out.mkdir()
    _as_rendered(out, ids, numbers)
    assert freshness.stale_outputs(ids, numbers, out, "low", FORMATS, "dark", OPTIONS) == []
    # Another quality, theme or format: not rendered yet.
    assert freshness.stale_outputs(ids, numbers, out, "high", FORMATS, "dark", OPTIONS) == \
        [(s, f) for s in ids for f in FORMATS]
    assert freshness.stale_outputs(["encoder"], numbers, out, "low", ("png",), "dark", OPTIONS) == [("encoder", "png")]
    # A zero-filled mp4 of the same size is stale; the others stay current.
    mp4 = out / "decoder.mp4"
    mp4.write_bytes(bytes(mp4.stat().st_size))
    assert freshness.stale_outputs(ids, numbers, out, "low", FORMATS, "dark", OPTIONS) == [("decoder", "mp4")]
    # Any change of the numbers file: maybe stale (the full check tells which sections changed).
    numbers.write_text("# a comment changed\n")
    assert len(freshness.stale_outputs(ids, numbers, out, "low", FORMATS, "dark", OPTIONS)) == 4
    # A scene this check does not know: it cannot tell.
    assert freshness.stale_outputs(["tiny"], numbers, out, "low", FORMATS, "dark", OPTIONS) is None


def test_a_changed_scene_module_makes_only_its_scene_stale(tmp_path, monkeypatch):
    ids = ["encoder", "decoder"]
    _as_rendered(tmp_path, ids, None)
    real = cache.module_code_hash
    monkeypatch.setattr(cache, "module_code_hash", lambda m: real(m) + ("-edited" if m == "scenes.decoder" else ""))
    assert freshness.stale_outputs(ids, None, tmp_path, "low", FORMATS, "dark", OPTIONS) == \
        [("decoder", "mp4"), ("decoder", "vtt")]


def test_a_no_op_cli_run_imports_no_manim_and_no_scene(tmp_path):
    ids = ["encoder", "attention_process"]
    _as_rendered(tmp_path, ids, None)
    code = ("import sys; sys.argv[0] = 'render.py'; import render\n"
            "try:\n    render.main()\nexcept SystemExit as e:\n    code = e.code\n"
            "import json; print(json.dumps([code, sorted(m for m in sys.modules if m.split('.')[0] in "
            "('manim', 'numpy', 'attention_core') or m.startswith('scenes.'))]))")
    proc = subprocess.run([sys.executable, "-c", code, "render", *ids, "--format", "mp4,vtt", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    exit_code, modules = json.loads(proc.stdout.strip().splitlines()[-1])
    assert exit_code in (0, None) and modules == [], (proc.stdout, proc.stderr)
    assert proc.stderr.count("up to date") == 2 and "summary: 0 rendered, 2 from cache, 0 failed" in proc.stderr


def test_a_run_records_the_fingerprints_the_next_run_checks(tmp_path):
    # The full check (scenes imported, numbers computed) records the files' fingerprint
    # of every current output, rendered or found current.
    registry = render_scenes.registry()
    prints = freshness.Fingerprints(None, "low", "dark", OPTIONS)
    module = registry["tiny"].__module__
    summary = run_renders(["tiny"], trace_from(varied()), tmp_path, "low", ("mp4",), "dark", 1,
                          echo=lambda line: None, registry=registry, fingerprints=prints)
    assert [r.status for r in summary.results] == ["rendered"]
    assert cache.current_for_inputs(tmp_path, "tiny", "mp4", prints("tiny", module, "mp4"))
    record = json.loads(cache.record_path(tmp_path, "tiny", "mp4").read_text())
    assert record["inputs"] == prints("tiny", module, "mp4") and record["sha256"] == cache.file_digest(tmp_path / "tiny.mp4")
    other = freshness.Fingerprints(None, "low", "light", OPTIONS)
    assert not cache.current_for_inputs(tmp_path, "tiny", "mp4", other("tiny", module, "mp4"))
