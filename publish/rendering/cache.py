"""The render cache: skip a render whose output exists for the same inputs.

The key of ``OUT/<scene>.<fmt>`` hashes everything that can change the
file: the source of the scene's module and of every ``scenes.*`` module it
imports (transitively), the number formatting, the encoder settings, the
trace sections the scene declares (exactly those sub-trees of
``Trace.to_dict()``), quality, format, theme and the manim version. The
record lives next to the outputs (``OUT/.cache/<scene>.<fmt>.json``), so
copying the folder keeps it coherent. Manim-free: checking a warm cache
costs milliseconds.

The record also holds each output's size and SHA-256: a file of the right
size with other bytes (zero-filled by a full disk, or edited by hand) is
stale. Hashing runs at about a gigabyte a second, so even a 4K set checks in
a fraction of a second.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["CACHE_DIR", "code_files", "code_hash", "sections_hash", "cache_key", "record_path",
           "write_record", "atomic_write_text", "manim_version", "file_digest", "module_code_files",
           "module_code_hash", "note_inputs", "current_for_inputs", "read_record", "files_as_recorded"]

CACHE_DIR = ".cache"
ROOT = Path(__file__).resolve().parents[2]
# Files outside the scene's imports that still shape every frame or file.
EXTRA_FILES = (ROOT / "attention_core" / "formatting.py", ROOT / "publish" / "rendering" / "encode.py",
               ROOT / "publish" / "rendering" / "vector.py", ROOT / "publish" / "rendering" / "captions.py")


def _module_file(name: str) -> Path | None:
    mod = sys.modules.get(name)
    path = getattr(mod, "__file__", None)
    if path:
        return Path(path)
    candidate = ROOT / Path(*name.split("."))
    for p in (candidate.with_suffix(".py"), candidate / "__init__.py"):
        if p.is_file():
            return p
    return None


_IMPORTS: dict[tuple[Path, str, int, int], frozenset[str]] = {}


def _scene_imports(path: Path, package: str) -> set[str]:
    """``scenes.*`` modules imported by the module at ``path`` (each file parsed once
    per process while it is unchanged: the scenes share most of their modules)."""
    st = path.stat()
    memo = (path, package, st.st_size, st.st_mtime_ns)
    if memo not in _IMPORTS:
        _IMPORTS[memo] = frozenset(_parse_scene_imports(path, package))
    return set(_IMPORTS[memo])


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]*)", re.M)


def _parse_scene_imports(path: Path, package: str) -> set[str]:
    # The import statements read as text, not parsed (a tenth of the time of a parse,
    # which the no-op run pays for every module): a line that only looks like an
    # import (in a docstring) can add a file to the hash, never drop one.
    source = path.read_text(encoding="utf-8")
    found: set[str] = set()
    for dots, module, names in _FROM.findall(source):
        level = len(dots)
        if level:
            base = package.rsplit(".", level - 1)[0] if level > 1 else package
            mod = f"{base}.{module}" if module else base
        else:
            mod = module
        if mod == "scenes" or mod.startswith("scenes."):
            found.add(mod)
            for alias in names.strip("()").replace("\n", " ").split(","):  # "from . import components"
                name = alias.split(" as ")[0].strip()
                if name.isidentifier() and _module_file(f"{mod}.{name}") is not None:
                    found.add(f"{mod}.{name}")
    for names in _IMPORT.findall(source):
        for alias in names.split(","):
            name = alias.split(" as ")[0].strip()
            if name == "scenes" or name.startswith("scenes."):
                found.add(name)
    found.discard("scenes")  # the registry itself lists every scene: not a dependency
    return found


def code_files(cls: type) -> list[Path]:
    """The scene's module and every ``scenes.*`` module it imports, transitively."""
    return module_code_files(cls.__module__)


def module_code_files(start: str) -> list[Path]:
    """The module ``start`` (a dotted name) and every ``scenes.*`` module it imports,
    transitively, found by reading the files (nothing is imported)."""
    seen: dict[str, Path] = {}
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name)
        if path is None:
            continue
        seen[name] = path
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        todo.extend(_scene_imports(path, package) - seen.keys())
    return sorted(seen.values()) + [p for p in EXTRA_FILES if p.is_file()]


def code_hash(cls: type) -> str:
    return module_code_hash(cls.__module__)


def module_code_hash(module: str) -> str:
    h = hashlib.sha256()
    for path in module_code_files(module):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def sections_hash(cls: type, data: dict[str, Any]) -> str:
    from publish.tables import scene_sections  # imports attention_core (numpy): not for the file-only check

    blob = json.dumps(scene_sections(cls, data), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def manim_version() -> str:
    try:
        return importlib.metadata.version("manim")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def cache_key(cls: type, data: dict[str, Any], quality: str, fmt: str, theme: str,
              code: str | None = None, options: dict[str, str] | None = None) -> dict[str, str]:
    """Everything the file ``<scene>.<fmt>`` depends on, as named hashes.

    ``options`` (steps, naming, transparent) change which files a format
    writes and how they look, so they are part of the key too.
    """
    return {
        **(options or {}),
        "scene": cls.scene_id,
        "code": code if code is not None else code_hash(cls),
        "numbers": sections_hash(cls, data),
        "poster_time": repr(getattr(cls, "poster_time", None)),
        "quality": quality,
        "format": fmt,
        "theme": theme,
        "manim": manim_version(),
    }


def record_path(out_dir: Path, stem: str, fmt: str) -> Path:
    """The record of ``OUT/<stem>.<fmt>`` (stem: the scene id or its draft name)."""
    return out_dir / CACHE_DIR / f"{stem}.{fmt}.json"


def output_path(out_dir: Path, stem: str, fmt: str) -> Path:
    return out_dir / f"{stem}.{fmt}"


def file_digest(path: Path) -> str:
    """SHA-256 of the file at ``path``, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _same_file(path: Path, size: Any, digest: Any) -> bool:
    """``path`` has the recorded size and bytes (size first: it costs no read)."""
    return path.stat().st_size == size and isinstance(digest, str) and file_digest(path) == digest


def read_record(out_dir: Path, stem: str, fmt: str) -> dict[str, Any] | None:
    try:
        record = json.loads(record_path(out_dir, stem, fmt).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def files_as_recorded(out_dir: Path, stem: str, fmt: str, record: dict[str, Any]) -> bool:
    """The output and every step file written with it have their recorded size and hash."""
    try:
        if not _same_file(output_path(out_dir, stem, fmt), record.get("size"), record.get("sha256")):
            return False
        hashes, extra = record.get("hashes", {}), record.get("files", {})
        if not isinstance(hashes, dict) or not isinstance(extra, dict) or set(hashes) != set(extra):
            return False
        return all(_same_file(out_dir / name, n, hashes[name]) for name, n in extra.items())
    except (OSError, TypeError):
        return False


def recorded_theme(out_dir: Path, scene_id: str, fmt: str) -> str | None:
    """The theme the existing ``<scene>.<fmt>`` was rendered in, if known."""
    if not output_path(out_dir, scene_id, fmt).is_file():
        return None
    try:
        record = json.loads(record_path(out_dir, scene_id, fmt).read_text(encoding="utf-8"))
        return str(record["key"]["theme"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        # mkstemp makes the file private; a page must be readable by a web server.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_record(out_dir: Path, stem: str, fmt: str, key: dict[str, str],
                 files: list[str] | tuple[str, ...] = ()) -> None:
    """Record ``OUT/<stem>.<fmt>`` and the step files (paths relative to OUT) written with it."""
    out = output_path(out_dir, stem, fmt)
    extra = {name: (out_dir / name).stat().st_size for name in files}
    hashes = {name: file_digest(out_dir / name) for name in files}
    atomic_write_text(record_path(out_dir, stem, fmt),
                      json.dumps({"key": key, "size": out.stat().st_size, "sha256": file_digest(out),
                                  "files": extra, "hashes": hashes}, indent=1, sort_keys=True))


def note_inputs(out_dir: Path, stem: str, fmt: str, inputs: str) -> None:
    """Add the fingerprint of the files ``<stem>.<fmt>`` was made from
    (:func:`publish.freshness.fingerprint`) to its record, for the file-only check."""
    path = record_path(out_dir, stem, fmt)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(record, dict) and record.get("inputs") != inputs:
        record["inputs"] = inputs
        atomic_write_text(path, json.dumps(record, indent=1, sort_keys=True))


def current_for_inputs(out_dir: Path, stem: str, fmt: str, inputs: str) -> bool:
    """``<stem>.<fmt>`` was made from files of this fingerprint and still has
    its recorded bytes (and so has every step file written with it)."""
    record = read_record(out_dir, stem, fmt)
    return (record is not None and record.get("inputs") == inputs
            and files_as_recorded(out_dir, stem, fmt, record))
