"""LaTeX's preamble loaded once per LaTeX folder, not once per formula.

Manim compiles each formula with its own ``latex`` run, which loads LaTeX's
format and then the template's preamble (``standalone``, ``babel``,
``amsmath``, ``amssymb``): 124 ms a formula here, 93 ms with the preamble
already in the format. A cold render of the default set compiles 60
formulas.

:func:`install` wraps Manim's ``compile_tex``: the first time a preamble is
seen in the LaTeX folder, it is dumped into a format of its own
(``mylatexformat``, from TeX Live's ``latex-extra``), named by a hash of the
preamble and the LaTeX installation; each formula is then compiled with
``-fmt`` pointing at it, which skips the preamble it already holds. The
document, the command and everything after ``\\begin{document}`` are
Manim's, so LaTeX writes the same pages and dvisvgm the same svg files
(``tests/test_tex_format.py`` compares them byte for byte). If the format
cannot be built, or a compile with it fails, Manim's own compile runs
(and reports a LaTeX error as Manim does). Only ``latex`` to ``.dvi``
(Manim's default) is affected. ``ATTENTION_TEX_FORMAT=0`` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["install", "uninstall", "installed", "ENV", "compile_tex", "format_for", "formats_folder", "stats"]

ENV = "ATTENTION_TEX_FORMAT"
BEGIN = "\\begin{document}"

_original: Any = None
_installation: str | None = None
_failed: set[str] = set()
_counts = {"with_format": 0, "formats_built": 0, "manims_way": 0}


def stats() -> dict[str, int]:
    """Compiles with a format, formats built, compiles left to Manim (this process)."""
    return dict(_counts)


def _latex_installation() -> str:
    """What a dumped format depends on besides the preamble: LaTeX's version and its base format."""
    global _installation
    if _installation is None:
        parts = []
        for command in (["latex", "--version"], ["kpsewhich", "-engine=pdftex", "latex.fmt"]):
            try:
                out = subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                out = ""
            parts.append(out.splitlines()[0] if out else "")
        base = Path(parts[1]) if parts[1] else None
        if base is not None and base.is_file():
            stat = base.stat()
            parts.append(f"{stat.st_size}:{stat.st_mtime_ns}")
        _installation = "\n".join(parts)
    return _installation


def formats_folder(tex_dir: Path) -> Path:
    """Where the formats of ``tex_dir`` are kept: beside it, since Manim deletes every
    file in it but ``.tex`` and ``.svg`` after each formula (and would trip on a folder)."""
    return tex_dir.parent / f"{tex_dir.name}-formats"


def format_for(tex_file: Path, tex_dir: Path) -> Path | None:
    """The format (path without ``.fmt``, as ``-fmt`` takes it) holding ``tex_file``'s
    preamble, built beside ``tex_dir`` on first use; ``None`` if it cannot be had."""
    text = tex_file.read_text(encoding="utf-8")
    preamble, begin, _ = text.partition(BEGIN)
    if not begin:
        return None
    key = hashlib.sha256((_latex_installation() + "\0" + preamble).encode("utf-8")).hexdigest()[:16]
    folder = formats_folder(tex_dir)
    name = folder / f"format-{key}"
    if name.with_suffix(".fmt").is_file():
        return name
    if key in _failed:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / f"format-{key}.tex"
    source.write_text(preamble + BEGIN + "\\end{document}\n", encoding="utf-8")
    job = f"format-{key}-{os.getpid()}"  # a private name, moved into place whole
    try:
        done = subprocess.run(["latex", "-ini", "-interaction=batchmode", "-halt-on-error", f"-jobname={job}",
                               f"-output-directory={folder.as_posix()}", "&latex", "mylatexformat.ltx",
                               source.as_posix()], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=120)
        built = folder / f"{job}.fmt"
        if done.returncode != 0 or not built.is_file():
            raise OSError(f"latex -ini exited with {done.returncode}")
        os.replace(built, name.with_suffix(".fmt"))
    except (OSError, subprocess.SubprocessError):
        _failed.add(key)
        return None
    _counts["formats_built"] += 1
    return name


def compile_tex(tex_file: Path, tex_compiler: Any, output_format: str) -> Path:
    """Manim's ``compile_tex``, with the preamble from a dumped format when it can."""
    from manim import config
    from manim.utils import tex_file_writing

    result = tex_file.with_suffix(output_format)
    if result.exists() or tex_compiler != "latex" or output_format != ".dvi":
        return _original(tex_file, tex_compiler, output_format)
    tex_dir = Path(config.get_dir("tex_dir"))
    fmt = format_for(tex_file, tex_dir)
    if fmt is not None:
        command = tex_file_writing.make_tex_compilation_command(tex_compiler, output_format, tex_file, tex_dir)
        command.insert(1, f"-fmt={fmt.as_posix()}")
        done = subprocess.run(command, stdout=subprocess.DEVNULL)
        if done.returncode == 0 and result.exists():
            _counts["with_format"] += 1
            return result
        result.unlink(missing_ok=True)  # Manim's own run below says what went wrong
    _counts["manims_way"] += 1
    return _original(tex_file, tex_compiler, output_format)


def install() -> None:
    """Idempotent; off when ``ATTENTION_TEX_FORMAT=0``."""
    global _original
    if _original is not None or os.environ.get(ENV, "1") == "0":
        return
    from manim.utils import tex_file_writing

    _original = tex_file_writing.compile_tex
    tex_file_writing.compile_tex = compile_tex


def installed() -> bool:
    return _original is not None


def uninstall() -> None:
    global _original
    if _original is None:
        return
    from manim.utils import tex_file_writing

    tex_file_writing.compile_tex = _original
    _original = None
