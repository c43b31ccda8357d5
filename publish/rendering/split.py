"""One scene rendered by several workers, joined without re-encoding.

Manim writes one partial movie file per animation (``play`` or ``wait``)
and joins them with FFmpeg's concat demuxer, copying packets. A split
render does the same across processes. Every part runs the scene's code
from the start (so every mobject is in the same state as in a plain
render) but draws only its own animations; the others are skipped as
Manim's own ``from_animation_number`` skips them (their end state is
applied, no frame is drawn). Which animations a part draws:

- a contiguous range ``[start, end)``, when an earlier render of the scene
  measured what each animation costs (:mod:`publish.rendering.play_costs`): the part
  stops the scene's code once it reaches ``end``, so the early parts build
  less and draw more, and the cut is where the slowest part is fastest;
- otherwise every ``parts``-th one (``i % parts == part``): that needs no
  count of the scene's animations in advance and gives each part a similar
  share of frames, but every part builds the whole scene.

:func:`join_parts` then concatenates every part's files in animation order,
packet by packet, and the formats are derived from that video as from an
unsplit render.

Parts and join return bytes (not paths), so they run alike in a local
process or on a Dask worker of another machine.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import av

from publish.rendering.executors import track_work, untrack_work
from publish.rendering.render_setup import WORK_PREFIX, capture_poster, manim_settings, resolve_scene
from publish.rendering.scene_render import render_scene

__all__ = ["PartTask", "PartOutput", "JoinTask", "part_tasks", "render_part", "join_parts", "joined_costs",
           "concat_videos"]


@dataclass(frozen=True)
class PartTask:
    job: Any  # publish.rendering.pipeline.Job
    part: int
    parts: int
    #: The animations ``[start, end)`` this part draws (``end=None``: to the last);
    #: without ``start``, every ``parts``-th one from ``part``.
    start: int | None = None
    end: int | None = None

    def draws(self, i: int) -> bool:
        if self.start is None:
            return i % self.parts == self.part
        return self.start <= i and (self.end is None or i < self.end)


@dataclass
class PartOutput:
    segments: dict[int, bytes]  # animation number -> its partial movie file
    still: Any  # the first frame at or after the poster time it drew (or the scene's last frame)
    plays: int  # the animations this part got to: all of them when complete
    complete: bool = True  # ran the scene to its end (a range part stops at its end)
    costs: Any = None  # publish.rendering.play_costs.PlayCosts of the animations it got to
    #: The captions' (text, start, end), from a complete part when the vtt is asked for:
    #: captions are recorded from the scene's state, drawn or skipped alike.
    captions: list[tuple[str, float, float]] | None = None
    still_time: float = 0.0  # when ``still`` was shown: of several parts' stills the earliest is the poster


@dataclass(frozen=True)
class JoinTask:
    job: Any
    outputs: tuple[PartOutput, ...]


def part_tasks(job: Any, parts: int, costs: Any = None) -> list[PartTask]:
    """The tasks of ``job`` split in up to ``parts`` parts: contiguous ranges cut by
    ``costs`` (:class:`publish.rendering.play_costs.PlayCosts`), interleaved without them.
    One task means: not worth splitting (render the job whole)."""
    from publish.rendering.play_costs import plan_ranges

    if costs is None or not costs.build:
        return [PartTask(job, k, parts) for k in range(parts)]
    ranges = plan_ranges(costs, parts)
    return [PartTask(job, k, len(ranges), start, end) for k, (start, end) in enumerate(ranges)]


def joined_costs(outputs: tuple[PartOutput, ...] | list[PartOutput]) -> Any:
    """The whole scene's :class:`publish.rendering.play_costs.PlayCosts` from its parts' measures:
    each animation's build as a part that ran to the end measured it, its drawing
    from the part that drew it. None if a part measured nothing."""
    from publish.rendering.play_costs import PlayCosts

    if any(o.costs is None for o in outputs):
        return None
    full = next((o.costs for o in outputs if o.complete), None)
    if full is None:
        return None
    draw = [0.0] * len(full.draw)
    for o in outputs:
        for i in o.segments:
            if i < len(draw) and i < len(o.costs.draw):
                draw[i] = o.costs.draw[i]
    return PlayCosts(full.build, tuple(draw))


def render_part(task: PartTask) -> PartOutput:
    """Render the animations of one part of a scene; return their files and the poster."""
    from manim import tempconfig
    from manim.utils.exceptions import EndSceneEarlyException

    from scenes import THEMES
    from scenes.base import Timeline

    from publish.rendering.play_costs import PlayClock

    job = task.job
    cls = resolve_scene(job.scene)
    poster_time = getattr(cls, "poster_time", None)
    work = track_work(Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-{job.scene_id}-part{task.part}-")))
    try:
        settings = manim_settings(job.quality, THEMES[job.theme].background, str(work), job.scene_id)
        poster: list[Any] = []
        still_time: list[float] = []
        with tempconfig(settings):
            scene = cls(job.trace, THEMES[job.theme])
            if "vtt" in job.formats:
                scene.timeline = Timeline()
            renderer = scene.renderer
            skipping = renderer.update_skipping_status
            stopped: list[bool] = []

            def update_skipping_status() -> None:
                skipping()
                if task.end is not None and renderer.num_plays >= task.end:
                    # Past this part's range: end the scene here, as Manim's own
                    # upto_animation_number does (the files drawn so far are kept).
                    stopped.append(True)
                    renderer.skip_animations = True
                    raise EndSceneEarlyException()
                if not task.draws(renderer.num_plays):
                    renderer.skip_animations = True

            renderer.update_skipping_status = update_skipping_status
            play = renderer.play

            def play_keeping_time(*args: Any, **kwargs: Any) -> None:
                start = renderer.time
                play(*args, **kwargs)
                if renderer.skip_animations:
                    renderer.time = _drawn_time(start, scene, renderer)

            renderer.play = play_keeping_time
            update_frame = renderer.update_frame

            def draw_unless_skipping(*args: Any, **kwargs: Any) -> None:
                # Manim still draws the static backdrop and one frame of every
                # skipped animation (frames it then throws away): in a part,
                # half or more of the animations are skipped, so that was a
                # large share of each part's drawing. No frame of a skipped
                # animation is written, and every drawn animation starts
                # from the background or its own static image, so nothing
                # drawn later depends on these pixels.
                if not renderer.skip_animations:
                    update_frame(*args, **kwargs)

            renderer.update_frame = draw_unless_skipping
            if poster_time is not None:
                def keep_poster(frame: Any) -> None:
                    poster.append(frame)
                    still_time.append(renderer.time)

                capture_poster(renderer, poster_time, keep_poster)
            clock = PlayClock(scene)
            scene.render()
            complete = not stopped
            if poster_time is None and complete and renderer.num_plays and task.draws(renderer.num_plays - 1):
                # This part drew the last animation: its last frame is the scene's.
                poster.append(renderer.get_frame())
                still_time.append(renderer.time)
            files = renderer.file_writer.partial_movie_files
            segments = {i: Path(f).read_bytes() for i, f in enumerate(files) if f is not None}
            captions = None
            if complete and scene.timeline is not None:
                captions = [(c.text, c.start, c.end) for c in scene.timeline.captions()]
            return PartOutput(segments, poster[0] if poster else None, renderer.num_plays, complete,
                              clock.costs(), captions, still_time[0] if still_time else 0.0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        untrack_work(work)


def _drawn_time(start: float, scene: Any, renderer: Any) -> float:
    """The scene's clock after the animation just skipped, as if it had been drawn.

    A skipped animation moves Manim's clock by its run time; a drawn one by
    its frames (run time rounded to frames, added one frame at a time). The
    captions' times and the poster's frame are read off that clock, so the
    parts must keep the drawn render's, to the last bit.
    """
    import numpy as np

    dt = 1 / renderer.camera.frame_rate
    if scene.is_current_animation_frozen_frame():  # a still wait: its frame repeated, at once
        return start + int(scene.duration / dt) * dt
    time = start
    for _ in range(len(np.arange(0, scene.duration, dt))):  # Scene.get_time_progression's frames
        time += 1 * dt
    return time


def concat_videos(paths: list[Path], dst: Path) -> None:
    """Concatenate videos of one codec and size into ``dst``, copying packets (no re-encoding)."""
    manifest = "".join(f"file 'file:{p.as_posix()}'\n" for p in paths).encode()
    with av.open(BytesIO(manifest), format="concat", options={"safe": "0", "an": "1"}) as inp, \
            av.open(str(dst), "w", format="mp4") as out:
        stream = inp.streams.video[0]
        target = out.add_stream_from_template(template=stream)
        for packet in inp.demux(stream):
            if packet.dts is None:  # the demuxer's flushing packets
                continue
            packet.dts = None  # concatenated files restart their dts: let libav compute it
            packet.stream = target
            out.mux(packet)


def join_parts(task: JoinTask) -> dict[str, bytes]:
    """The finished files (``{format: bytes}``) of a scene from all its parts."""
    from publish.rendering.executors import collect_files

    job = task.job
    plays = {o.plays for o in task.outputs if o.complete}
    if len(plays) != 1 or any(o.plays > min(plays) for o in task.outputs):
        raise RuntimeError(f"the parts of {job.scene_id} played different animations: "
                           f"{sorted(o.plays for o in task.outputs)}")
    segments: dict[int, bytes] = {}
    for output in task.outputs:
        segments.update(output.segments)
    missing = sorted(set(range(plays.pop())) - set(segments))
    if missing:
        raise RuntimeError(f"animations {missing[:5]} of {job.scene_id} were drawn by no part")
    # Interleaved, a part may draw a frame after the poster time before the part
    # holding the poster frame does: the earliest one is the poster.
    stills = [o.still for o in sorted(task.outputs, key=lambda o: o.still_time) if o.still is not None]
    captions = next((o.captions for o in task.outputs if o.captions is not None), None)
    work = Path(tempfile.mkdtemp(prefix=f"attention-join-{os.getpid()}-"))
    try:
        paths = []
        for i in sorted(segments):
            path = work / f"{i:05}.mp4"
            path.write_bytes(segments[i])
            paths.append(path)
        video = work / "joined.mp4"
        concat_videos(paths, video)
        out = work / "out"
        out.mkdir()
        written = render_scene(job.scene, job.trace, out, job.quality, job.formats, job.theme,
                               source_video=video, options=job.options,
                               still_frame=stills[0] if stills else None, captions=captions)
        return collect_files(written, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
