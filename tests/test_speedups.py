"""manim_speedups: one table of patches, installed on purpose, guarded, undone, and the same frames.

- the table names every Manim attribute :func:`manim_speedups.install` changes, and
  :func:`manim_speedups.uninstall` puts each back as it was (found by comparing every attribute
  of every Manim and svgelements module and class before and after, in a fresh process);
- an untested Manim version gets nothing patched and one notice line; ``ATTENTION_SPEEDUPS=off``
  turns everything off;
- importing the render path and rendering installs nothing; the entry points do;
- a sample of real scenes draws the same frames, pixel for pixel, on plain Manim
  (a subprocess with ``ATTENTION_SPEEDUPS=off``) and with the speedups.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import manim_speedups
from manim_speedups import PATCHES

from . import speedup_frames

ROOT = Path(__file__).resolve().parents[1]


def _env(**changes: str | None) -> dict[str, str]:
    """This environment without any speedup switch, then ``changes`` (None: removed)."""
    env = {k: v for k, v in os.environ.items() if k != manim_speedups.SWITCH and not (
        k.startswith("ATTENTION_") and k.endswith(tuple(p.switch.removeprefix("ATTENTION_") for p in PATCHES)))}
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _python(code: str, env: dict[str, str] | None = None, timeout: float = 120) -> str:
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env=env if env is not None else _env(), timeout=timeout)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


_SNAPSHOT = r'''
import json, sys, importlib
import manim, svgelements
import manim_speedups
for p in manim_speedups.PATCHES:  # every module the table names, and ours, imported before the first look
    manim_speedups.resolve(p.target)
for name in manim_speedups.MODULES:
    importlib.import_module("manim_speedups." + name)

def look():
    seen = {}
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in ("manim", "svgelements"):
            continue
        for key, value in list(vars(module).items()):
            seen[f"{name}:{key}"] = value
            if isinstance(value, type) and value.__module__ == name:
                for attr, member in list(vars(value).items()):
                    seen[f"{name}:{value.__qualname__}.{attr}"] = member
    return seen

def changed(a, b):
    return sorted(k for k in set(a) | set(b) if k not in a or k not in b or a[k] is not b[k])

before = look()
on = manim_speedups.install(text_subclass_modules=("scenes",))
during = look()
status = manim_speedups.status()
manim_speedups.uninstall()
after = look()
print(json.dumps({"on": on, "installed": changed(before, during), "left": changed(before, after),
                  "status": status, "status_after": manim_speedups.status()}))
'''


def _canonical(target: str) -> set[str]:
    """The names under which ``target``'s holder is seen (a class by the module that defines it)."""
    holder, attr = manim_speedups.resolve(target)
    module, _, _ = target.partition(":")
    if isinstance(holder, type):
        return {f"{holder.__module__}:{holder.__qualname__}.{attr}"}
    return {f"{module}:{attr}"}


def test_the_table_names_every_patch_and_uninstall_puts_everything_back():
    out = json.loads(_python(_SNAPSHOT).strip().splitlines()[-1])
    assert out["on"] is True
    expected = set().union(*(_canonical(p.target) for p in PATCHES))
    assert set(out["installed"]) == expected
    assert all(out["status"].values()) and set(out["status"]) == {p.target for p in PATCHES}
    assert out["left"] == [] and not any(out["status_after"].values())


def test_a_manim_version_not_tested_gets_nothing_and_one_notice(monkeypatch, capsys):
    import manim

    manim_speedups.uninstall()
    try:
        monkeypatch.setattr(manim, "__version__", "0.23.0")
        monkeypatch.setattr(manim_speedups, "_noticed", False)
        assert manim_speedups.install(("scenes",)) is False
        assert manim_speedups.install(("scenes",)) is False
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "0.23.0" in err[0] and all(v in err[0] for v in manim_speedups.TESTED_MANIM)
        assert not any(manim_speedups.status().values()) and not manim_speedups.installed()
    finally:
        monkeypatch.undo()
        manim_speedups.install(("scenes",))
    assert all(manim_speedups.status().values())


@pytest.mark.parametrize("value", ["off", "OFF", "0", "no", "false"])
def test_one_switch_turns_every_patch_off(monkeypatch, value):
    manim_speedups.uninstall()
    try:
        monkeypatch.setenv(manim_speedups.SWITCH, value)
        assert manim_speedups.install(("scenes",)) is False
        assert not any(manim_speedups.status().values())
    finally:
        monkeypatch.delenv(manim_speedups.SWITCH)
        assert manim_speedups.install(("scenes",)) is True
    assert all(manim_speedups.status().values())


def test_rendering_installs_nothing_and_the_entry_points_do(tmp_path):
    # A render through render_scene (what every task runs) on plain Manim stays on plain
    # Manim; the local worker's initialiser and the Dask plugin install the speedups.
    code = (
        "import sys, os, json\n"
        "from pathlib import Path\n"
        "import manim_speedups\n"
        "from attention_core import compute_trace, load_numbers\n"
        "from publish.rendering.pipeline import render_scene\n"
        "from tests import render_scenes\n"
        "cls = render_scenes.TinyScene\n"
        "render_scene(cls, compute_trace(load_numbers(), cls.trace_sections), Path(sys.argv[1]), 'low', ('png',),"
        " 'dark')\n"
        "plain = [manim_speedups.installed(), any(manim_speedups.status().values())]\n"
        "from publish.rendering import executors\n"
        "executors._worker_init(os.getppid())\n"
        "worker = all(manim_speedups.status().values())\n"
        "manim_speedups.uninstall()\n"
        "from publish.rendering.dask_plugin import SpeedupsPlugin\n"
        "SpeedupsPlugin().setup(None)\n"
        "print(json.dumps([plain, worker, all(manim_speedups.status().values())]))\n")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         env=_env(), timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    plain, worker, dask = json.loads(run.stdout.strip().splitlines()[-1])
    assert plain == [False, False] and worker is True and dask is True
    assert (tmp_path / "tiny.png").is_file()


def test_a_sample_of_scenes_draws_the_same_frames_with_and_without_the_speedups(tmp_path):
    # Every patch claims the same pixels (the same points float for float, the same Cairo
    # paths, the same backdrops): so equality, not a tolerance. The held-frames patch changes
    # only the encoded file, which tests/test_held_frames.py compares; these are the frames
    # handed to the encoder.
    plain_file = tmp_path / "plain.npz"
    code = ("import sys, json, manim_speedups\n"
            "from tests import speedup_frames\n"
            "on = manim_speedups.install(text_subclass_modules=('scenes',))\n"
            "speedup_frames.main(sys.argv[1])\n"
            "print(json.dumps([on, any(manim_speedups.status().values())]))\n")
    run = subprocess.run([sys.executable, "-c", code, str(plain_file)], cwd=ROOT, capture_output=True, text=True,
                         env=_env(ATTENTION_SPEEDUPS="off"), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [False, False]  # plain Manim there
    assert manim_speedups.installed() and all(manim_speedups.status().values())  # the speedups here
    plain = np.load(plain_file)
    for scene_id, upto in speedup_frames.SAMPLE:
        hashes, kept = speedup_frames.record(scene_id, upto)
        expected = list(plain[f"{scene_id}/hashes"])
        assert len(hashes) == len(expected) > 20, (scene_id, len(hashes), len(expected))
        different = [i for i, (a, b) in enumerate(zip(hashes, expected)) if a != b]
        if different:
            shown = [i for i in different if i in kept]
            detail = ""
            if shown:
                a, b = kept[shown[0]].astype(int), plain[f"{scene_id}/frame{shown[0]}"].astype(int)
                detail = (f"; frame {shown[0]}: {int((a != b).any(axis=-1).sum())} pixels differ, "
                          f"by up to {int(np.abs(a - b).max())}")
        assert not different, f"{scene_id}: {len(different)} of {len(hashes)} frames differ from plain Manim, " \
                              f"the first {different[0]}{detail}"


def test_the_performance_page_shows_the_table_as_it_is():
    # docs/performance.md carries manim_speedups.markdown_table() verbatim: a row changed in the
    # code and not on the page (or the other way round) fails here.
    page = (ROOT / "docs" / "performance.md").read_text("utf-8")
    assert manim_speedups.markdown_table() in page
    firsts = {}
    for p in PATCHES:
        firsts.setdefault(p.module, p)
    unmeasured = [p.target for p in firsts.values() if not re.search(r"\d\.\d\dx", p.measured)]
    assert unmeasured == [], "each module's first row quotes its measured ratio"
