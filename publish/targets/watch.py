"""What ``render.py post --serve`` watches: the files the page is made from, and nothing else.

A poller, not the operating system's recursive watches: it reads the state
(size, time, inode) of a fixed list of files every ``interval`` seconds — the
draft, its link table (``--links`` or a ``post.toml`` beside the draft, even
before it exists), the numbers file, the shipped link table, and the files of
the project's ``scenes/`` and ``attention_core/``. So a draft in a folder
tree too big to watch costs nothing more (issue 33: "file watch limit
reached"), and a folder removed and created again (a git branch switch) is
seen as a change once its files are back, never as the end of the watch.
Changes are reported once nothing changed for ``debounce`` seconds. Manim-free.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Iterable, Iterator

__all__ = ["Poller", "file_state"]

#: Folders of the project whose files rebuild the page, and what in them is never a source.
_SKIP_PARTS = ("__pycache__",)
_SKIP_SUFFIXES = (".pyc", ".part")


def file_state(path: Path) -> tuple[int, int, int] | None:
    """``(size, mtime_ns, inode)``, or ``None`` for a file that is not there (or not a file)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not os.path.isfile(path):
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class Poller:
    """The state of ``files`` and of every file under ``folders``, compared every ``interval`` s."""

    def __init__(self, files: Iterable[Path], folders: Iterable[Path] = (), interval: float = 0.25,
                 debounce: float = 0.4) -> None:
        self.files = [Path(f) for f in files]
        self.folders = [Path(f) for f in folders]
        self.interval = interval
        self.debounce = debounce
        self._last = self.snapshot()

    def _folder_files(self) -> list[Path]:
        out = []
        for folder in self.folders:
            for root, dirs, names in os.walk(folder, onerror=lambda exc: None):
                dirs[:] = [d for d in dirs if d not in _SKIP_PARTS and not d.startswith(".")]
                out += [Path(root) / n for n in names if not n.endswith(_SKIP_SUFFIXES) and not n.startswith(".")]
        return out

    def snapshot(self) -> dict[str, tuple[int, int, int] | None]:
        return {str(p): file_state(p) for p in [*self.files, *self._folder_files()]}

    def _changed(self, now: dict[str, tuple[int, int, int] | None]) -> set[str]:
        keys = set(now) | set(self._last)
        return {k for k in keys if now.get(k) != self._last.get(k)}

    def watch(self, stop: threading.Event) -> Iterator[set[str]]:
        """Each burst of changes, as the set of changed paths, once the files hold still."""
        while not stop.is_set():
            if stop.wait(self.interval):
                return
            now = self.snapshot()
            changed = self._changed(now)
            if not changed:
                continue
            # Wait for the burst to end (an editor's save, a checkout): nothing new for `debounce` s.
            while not stop.is_set():
                if stop.wait(self.debounce):
                    return
                later = self.snapshot()
                more = {k for k in set(later) | set(now) if later.get(k) != now.get(k)}
                now = later
                if not more:
                    break
                changed |= more
            self._last = now
            yield changed
