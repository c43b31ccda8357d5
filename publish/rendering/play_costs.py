"""What each animation of a scene costs, and where to cut the scene for a split render.

A part of a split render (:mod:`publish.rendering.split`) has to run the scene's code
from the start up to its last animation, so that every mobject is as in a
whole render, and draws only its own animations. Two costs per animation
(Manim ``play`` or ``wait``) therefore decide how long a part takes:

- *build*: the main thread's processor time from the end of the previous
  animation to the end of this one, less its drawing: the scene's own code
  and Manim's preparation of the animation, paid by every part that gets
  past it, drawn or not;
- *draw*: the time inside the frame loop, the static image and frozen
  frames, plus a share (by frame count) of the encoding threads' time,
  paid only by the part that draws it.

A render measures both (:class:`PlayClock`) and keeps them next to its
outputs, ``OUT/.cache/<scene>.<quality>.plays.json``. A later split render
of the scene reads the record and gives each part one contiguous range of
animations, cut where the slowest part is fastest (:func:`plan_ranges`).
The numbers may have changed since (another sentence, more animations):
the cut is then less even, never wrong, since any cut gives the same frames.
Manim-free.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from publish.rendering import cache

__all__ = ["PlayCosts", "PlayClock", "plan_ranges", "record_path", "read_record", "write_record"]


@dataclass(frozen=True)
class PlayCosts:
    """Seconds of processor time per animation, in animation order."""

    build: tuple[float, ...]
    draw: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.build) != len(self.draw):
            raise ValueError(f"{len(self.build)} build costs but {len(self.draw)} draw costs")
        if any(not (c >= 0) for c in (*self.build, *self.draw)):  # also refuses NaN
            raise ValueError("costs must be non-negative numbers")

    def part_seconds(self, start: int, end: int | None) -> float:
        """What a part drawing animations ``[start, end)`` costs (``end=None``: to the last)."""
        stop = len(self.build) if end is None else min(end, len(self.build))
        return sum(self.build[:stop]) + sum(self.draw[start:stop])


class PlayClock:
    """Measures :class:`PlayCosts` while a scene renders (attach before ``scene.render()``).

    Only animations that return count: a play a split part stops at (before
    it starts) is not recorded. Drawing counts only when the renderer is
    not skipping the animation.
    """

    def __init__(self, scene: Any) -> None:
        self.build: list[float] = []
        self.draw: list[float] = []
        self.frames: list[int] = []
        self._drawing = 0.0
        self._frames = 0
        self._main0 = self._mark = time.thread_time()
        self._process0 = time.process_time()
        renderer = scene.renderer
        self._renderer = renderer
        play = renderer.play

        def timed_play(*args: Any, **kwargs: Any) -> None:
            self._drawing, self._frames = 0.0, 0
            play(*args, **kwargs)
            now = time.thread_time()
            self.build.append(max(0.0, now - self._mark - self._drawing))
            self.draw.append(self._drawing)
            self.frames.append(self._frames)
            self._mark = now

        renderer.play = timed_play
        scene.play_internal = self._timed(scene.play_internal)
        renderer.save_static_frame_data = self._timed(renderer.save_static_frame_data)
        renderer.freeze_current_frame = self._timed(renderer.freeze_current_frame)
        add_frame = renderer.add_frame

        def counted_add_frame(frame: Any, num_frames: int = 1) -> None:
            if not renderer.skip_animations:
                self._frames += num_frames
            add_frame(frame, num_frames)

        renderer.add_frame = counted_add_frame

    def _timed(self, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._renderer.skip_animations:
                return fn(*args, **kwargs)
            start = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self._drawing += time.thread_time() - start

        return timed

    def costs(self) -> PlayCosts:
        """The costs so far; call after the render, when every encoder has finished.

        The encoding threads' time (the process's processor time less the
        main thread's) is shared out over the drawn animations by frames.
        """
        encoding = max(0.0, (time.process_time() - self._process0) - (time.thread_time() - self._main0))
        frames = sum(self.frames)
        draw = [d + (encoding * f / frames if frames else 0.0) for d, f in zip(self.draw, self.frames)]
        return PlayCosts(tuple(self.build), tuple(draw))


def plan_ranges(costs: PlayCosts, parts: int) -> list[tuple[int, int | None]]:
    """Contiguous animation ranges ``[(0, e1), (e1, e2), ..., (ek, None)]`` for up to ``parts`` parts.

    The last range runs to the scene's end, whatever its count then. The
    cut minimises the largest :meth:`PlayCosts.part_seconds` (a part that
    ends later builds more, so the early parts draw more). Ranges that
    would draw nothing are left out: fewer parts come back when the scene
    is too short to share, one (``[(0, None)]``) when not worth splitting.
    """
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    n = len(costs.build)
    built = [0.0]
    drawn = [0.0]
    for b, d in zip(costs.build, costs.draw):
        built.append(built[-1] + b)
        drawn.append(drawn[-1] + d)

    def cost(start: int, end: int) -> float:
        return built[end] + drawn[end] - drawn[start]

    def cuts(limit: float) -> list[int] | None:
        # Each part but the last takes as many animations as fit under the
        # limit: ending later only ever helps the parts after it.
        bounds, start = [], 0
        for _ in range(parts - 1):
            end = start
            while end < n and cost(start, end + 1) <= limit:
                end += 1
            bounds.append(end)
            start = end
        return bounds if cost(start, n) <= limit else None

    # The answer is one of the part costs, all between these two.
    candidates = sorted({cost(s, e) for s in range(n + 1) for e in range(s, n + 1)} | {cost(0, n)})
    lo, hi = 0, len(candidates) - 1  # cuts(candidates[hi]) succeeds: one part takes everything
    while lo < hi:
        mid = (lo + hi) // 2
        if cuts(candidates[mid]) is not None:
            hi = mid
        else:
            lo = mid + 1
    bounds = cuts(candidates[lo])
    assert bounds is not None
    starts = [0, *bounds]
    ranges = [(s, e) for s, e in zip(starts, [*bounds, None]) if e is None or e > s]
    if len(ranges) > 1 and ranges[-1][0] >= n:  # the last part would draw nothing:
        ranges.pop()  # the part before it runs to the end instead
        ranges[-1] = (ranges[-1][0], None)
    return ranges


def record_path(out_dir: Path, scene_id: str, quality: str) -> Path:
    return out_dir / cache.CACHE_DIR / f"{scene_id}.{quality}.plays.json"


def read_record(out_dir: Path, scene_id: str, quality: str) -> PlayCosts | None:
    """The costs an earlier render of the scene measured, or None (none, or unreadable)."""
    try:
        data = json.loads(record_path(out_dir, scene_id, quality).read_text(encoding="utf-8"))
        return PlayCosts(tuple(float(x) for x in data["build"]), tuple(float(x) for x in data["draw"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a scheduling hint only: without it the split interleaves


def write_record(out_dir: Path, scene_id: str, quality: str, costs: PlayCosts) -> None:
    cache.atomic_write_text(record_path(out_dir, scene_id, quality), json.dumps(
        {"build": [round(x, 5) for x in costs.build], "draw": [round(x, 5) for x in costs.draw]}))
