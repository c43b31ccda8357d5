"""What a render run is doing, live: scenes done of total, each running scene's animation, ETA.

Each render writes, after every animation it starts, one line to
``<work folder>/progress`` (:func:`write_status`): the animation's number,
its kind and the clip's time so far. The parent process reads those files
(:func:`running_status`), so this works across worker processes without any
channel between them. :class:`LiveProgress` takes the run's own log lines
(``echo``) for the counts and draws a live panel with ``rich`` on a
terminal; elsewhere (a log file, CI) the lines are printed as they are.
Manim-free.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

__all__ = ["write_status", "running_status", "LiveProgress", "STATUS_FILE"]

STATUS_FILE = "progress"
_WORK = re.compile(r"^\.rendering-\d+-(.+)-[^-]+$")
_DONE = re.compile(r"^(?:\[\d+/\d+\] )?(\S+): (up to date|rendered|FAILED)")
_STARTED = re.compile(r"^(\S+): (rendering|deriving)")


def write_status(work: Path, number: int, what: str, seconds: float) -> None:
    """Record the animation a render is at (a failure to write costs only the display)."""
    try:
        (work / STATUS_FILE).write_text(f"animation {number}: {what} (at {seconds:.1f} s of the clip)\n",
                                        encoding="utf-8")
    except OSError:
        pass


def running_status(out_dir: Path) -> dict[str, str]:
    """scene id -> what its render is doing now, for every render under way in ``out_dir``."""
    found: dict[str, str] = {}
    for path in out_dir.glob(f".rendering-*/{STATUS_FILE}"):
        match = _WORK.match(path.parent.name)
        if not match:
            continue
        try:
            found[match.group(1)] = path.read_text(encoding="utf-8").strip()
        except OSError:
            continue
    return found


def _clock(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}:{s:02d}"


class LiveProgress:
    """Counts finished scenes from the run's log lines; shows them live on a terminal.

    Use as a context manager; pass :meth:`echo` as the run's ``echo``.
    """

    def __init__(self, out_dir: Path, total: int, stream: Any = None, live: bool | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.out_dir = out_dir
        self.total = total
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.clock = clock
        self.start = clock()
        self.done: dict[str, str] = {}
        self.started: set[str] = set()
        self.first_render: float | None = None
        self.rendered_seconds: list[float] = []
        self._live: Any = None
        self._console: Any = None

    # -- counting -----------------------------------------------------------

    def echo(self, line: str) -> None:
        if (m := _STARTED.match(line)) is not None:
            self.started.add(m.group(1))
            if self.first_render is None:
                self.first_render = self.clock()
        elif (m := _DONE.match(line)) is not None:
            self.done[m.group(1)] = m.group(2)
            if m.group(2) == "rendered" and self.first_render is not None:
                self.rendered_seconds.append(self.clock() - self.first_render)
        if self._console is not None:
            self._console.print(line, highlight=False, markup=False)
        else:
            if _DONE.match(line):
                line += f"  [{self.summary_line()}]"
            print(line, file=self.stream, flush=True)

    def eta(self) -> float | None:
        """Seconds left: the renders still to finish at the pace of those finished (None before one)."""
        to_render = len(self.started)
        finished = sum(1 for s in self.started if s in self.done)
        if not finished or self.first_render is None or finished >= to_render:
            return None
        elapsed = self.clock() - self.first_render
        return elapsed / finished * (to_render - finished)

    def summary_line(self) -> str:
        eta = self.eta()
        return (f"{len(self.done)}/{self.total} scenes done, {_clock(self.clock() - self.start)} elapsed"
                + (f", about {_clock(eta)} left" if eta is not None else ""))

    # -- the live panel -------------------------------------------------------

    def panel(self) -> Any:
        from rich.table import Table

        table = Table.grid(padding=(0, 2))
        table.add_row(f"[bold]{self.summary_line()}[/bold]")
        status = running_status(self.out_dir)
        for scene_id in sorted(s for s in self.started if s not in self.done):
            table.add_row(f"  {scene_id}: {status.get(scene_id, 'starting')}")
        return table

    def __enter__(self) -> "LiveProgress":
        if self.live:
            from rich.console import Console
            from rich.live import Live

            self._console = Console(file=self.stream)
            self._live = Live(console=self._console, get_renderable=self.panel, refresh_per_second=4,
                              transient=True, redirect_stdout=False, redirect_stderr=False)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)
            self._live = None
