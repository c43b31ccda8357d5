"""One scene rendered by several workers, joined without re-encoding.

Manim writes one partial movie file per animation (``play`` or ``wait``)
and joins them with FFmpeg's concat demuxer, copying packets. A split
render does the same across processes: part ``k`` of ``n`` runs the whole
``construct`` (so every mobject is in the same state as in a plain render)
but draws only the animations whose number ``i`` has ``i % n == k``; the
others are skipped as Manim's own ``from_animation_number`` skips them
(their end state is applied, no frame is drawn). :func:`join_parts` then
concatenates every part's files in animation order, packet by packet, and
the formats are derived from that video as from an unsplit render.
Interleaving needs no count of the scene's animations in advance and gives
each part a similar share of frames.

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

from .executors import track_work, untrack_work

__all__ = ["PartTask", "PartOutput", "JoinTask", "render_part", "join_parts", "concat_videos"]


@dataclass(frozen=True)
class PartTask:
    job: Any  # publish.pipeline.Job
    part: int
    parts: int


@dataclass
class PartOutput:
    segments: dict[int, bytes]  # animation number -> its partial movie file
    still: Any  # the poster frame (or the last frame) if this part drew it
    plays: int


@dataclass(frozen=True)
class JoinTask:
    job: Any
    outputs: tuple[PartOutput, ...]


def render_part(task: PartTask) -> PartOutput:
    """Render the animations of one part of a scene; return their files and the poster."""
    from manim import tempconfig

    from scenes import THEMES

    from .pipeline import QUALITIES, WORK_PREFIX, _resolve, _tex_slot, inflight_encoders

    from . import speedups

    speedups.install()
    job = task.job
    cls = _resolve(job.scene)
    poster_time = getattr(cls, "poster_time", None)
    work = track_work(Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-{job.scene_id}-part{task.part}-")))
    try:
        settings = {
            "quality": QUALITIES[job.quality],
            "format": "mp4",
            "media_dir": str(work),
            "tex_dir": str(_tex_slot()),
            "background_color": THEMES[job.theme].background,
            "disable_caching": True,
            "progress_bar": "none",
            "verbosity": "ERROR",
            "max_inflight_encoders": inflight_encoders(job.quality),
            "output_file": job.scene_id,
        }
        poster: list[Any] = []
        with tempconfig(settings):
            scene = cls(job.trace, THEMES[job.theme])
            renderer = scene.renderer
            skipping = renderer.update_skipping_status

            def update_skipping_status() -> None:
                skipping()
                if renderer.num_plays % task.parts != task.part:
                    renderer.skip_animations = True

            renderer.update_skipping_status = update_skipping_status
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
                add_frame = renderer.add_frame

                def capture(frame: Any, num_frames: int = 1) -> None:
                    # As render_scene: the first frame shown at or after poster_time.
                    if not poster and not renderer.skip_animations and renderer.time >= poster_time - 1e-9:
                        poster.append(frame.copy())
                    add_frame(frame, num_frames)

                renderer.add_frame = capture
            scene.render()
            if poster_time is None and (renderer.num_plays - 1) % task.parts == task.part:
                # This part drew the last animation: its last frame is the scene's.
                poster.append(renderer.get_frame())
            files = renderer.file_writer.partial_movie_files
            segments = {i: Path(f).read_bytes() for i, f in enumerate(files) if f is not None}
            return PartOutput(segments, poster[0] if poster else None, renderer.num_plays)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        untrack_work(work)


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
    from .executors import collect_files
    from .pipeline import render_scene

    job = task.job
    plays = {o.plays for o in task.outputs}
    if len(plays) != 1:
        raise RuntimeError(f"the parts of {job.scene_id} played different animations: {sorted(plays)}")
    segments: dict[int, bytes] = {}
    for output in task.outputs:
        segments.update(output.segments)
    missing = sorted(set(range(plays.pop())) - set(segments))
    if missing:
        raise RuntimeError(f"animations {missing[:5]} of {job.scene_id} were drawn by no part")
    stills = [o.still for o in task.outputs if o.still is not None]
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
                               still_frame=stills[0] if stills else None)
        return collect_files(written, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
