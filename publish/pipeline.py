"""Rendering scenes to every requested format, cached, in parallel.

:func:`render_scene` renders one scene once (an H.264 mp4 from manim, plus
the poster frame captured from the renderer) and derives every requested
format from that (:mod:`publish.encode`). Each file is written under a
temporary name inside the output folder and moved into place only when
complete, then its cache record is written; an interrupted run leaves every
earlier file as it was, and the next run redoes only what is missing.

:func:`run_renders` checks the cache, then renders the stale scenes, in
``jobs`` spawned processes. Each process compiles LaTeX in its own folder
(manim deletes the other files of its LaTeX folder after each compile, so a
shared folder breaks parallel renders).
"""

from __future__ import annotations

import errno
import fcntl
import importlib
import os
import re
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import cache
from .captions import to_webvtt, window
from .executors import (DaskPool, Interrupted, LocalPool, Outcome, publish_files, stop_signals, track_work,
                        untrack_work)
from .names import output_stem, step_stem
from .progress import write_status
from .tables import dumps, scene_sections, to_json

__all__ = ["QUALITIES", "FORMATS", "VIDEO_FORMATS", "STEP_FORMATS", "OutputOptions", "scene_ref", "Job", "Result",
           "Summary", "describe_failure", "render_scene", "run_job", "run_task", "run_renders", "longest_first",
           "clean_stale_work", "clean_stale_temp", "manim_media_dir", "release_media_dir", "Interrupted"]

QUALITIES = {"low": "low_quality", "medium": "medium_quality", "high": "high_quality", "4k": "fourk_quality"}
FORMATS = ("mp4", "webm", "gif", "png", "svg", "vtt")
VIDEO_FORMATS = ("mp4", "webm", "gif")
#: The formats each step is written in, with --steps.
STEP_FORMATS = ("png", "svg", "mp4", "vtt")
WORK_PREFIX = ".rendering-"
#: Partial movie files Manim may encode while the scene goes on drawing are bounded by
#: memory, not by a count. One encoder holds up to ENCODER_QUEUE + 1 RGBA frames (4 bytes a
#: pixel) and libx264's own frames: measured 457 MB at 1080p with its default look-ahead
#: of 40 frames, 217 MB with 10 (ENCODER_OPTIONS), about X264_BYTES_PER_PIXEL. So one
#: encoder holds ~55 MiB at 480p, ~280 MiB at 1080p, ~1.1 GiB at 4K, and the budget
#: (ATTENTION_FRAME_BUDGET_MB) lets 4 encode at once at 480p and 720p, 2 at 1080p, 1 at 4K.
#: (Manim's default, 1, stops drawing at the end of every animation until its file is encoded.)
FRAME_BUDGET_MB = 600
ENCODER_QUEUE = 8  # Manim's encoder_queue_size
X264_BYTES_PER_PIXEL = 105
MAX_INFLIGHT = 4  # past this, more encoders only wait for the processor
PIXELS = {"low": (854, 480), "medium": (1280, 720), "high": (1920, 1080), "4k": (3840, 2160)}


def encoder_bytes(width: int, height: int) -> int:
    """The memory one partial movie's encoder holds at most."""
    return ((ENCODER_QUEUE + 1) * 4 + X264_BYTES_PER_PIXEL) * width * height


def inflight_encoders(quality: str, budget_mb: float | None = None) -> int:
    """How many partial movies may encode at once within the frame budget (at least 1);
    ``ATTENTION_INFLIGHT_ENCODERS`` overrides it (1 is Manim's way)."""
    value = os.environ.get("ATTENTION_INFLIGHT_ENCODERS", "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    if budget_mb is None:
        env = os.environ.get("ATTENTION_FRAME_BUDGET_MB", "")
        budget_mb = float(env) if env.replace(".", "", 1).isdigit() and float(env) > 0 else FRAME_BUDGET_MB
    width, height = PIXELS[quality]
    return max(1, min(MAX_INFLIGHT, int(budget_mb * (1 << 20) // encoder_bytes(width, height))))


#: Options of every partial movie's encoder. libx264 (and libvpx) split one file over
#: threads by default, and then give different bytes for the same frames now and then
#: (1 encode in 8 on a 2-core machine): a split render was not the whole render's twin.
#: One thread per file encodes the same frames to the same bytes; the in-flight
#: encoders still encode several files at once. libx264 looks 10 frames ahead instead
#: of 40: less than half the memory (files ~3 % larger).
ENCODER_OPTIONS = {"threads": "1"}
X264_OPTIONS = {**ENCODER_OPTIONS, "rc-lookahead": "10"}


def encoder_options(transparent: bool = False) -> dict[str, str]:
    """The partial movies' encoder options: libx264's (mp4), or libvpx's (transparent webm)."""
    return dict(ENCODER_OPTIONS if transparent else X264_OPTIONS)


#: Below this much free space in the output folder a failed render is put down to a full disk.
DISK_FULL_BYTES = 1 << 20

_tex_lock: Any = None  # held for the life of the process
_tex_dir: Path | None = None


def _tex_slot() -> Path:
    """A LaTeX folder no other running process uses, kept across runs.

    Slots are numbered folders, each claimed with an exclusive lock held
    until the process ends, so concurrent renders (this run's workers or
    another run's) never share one, and a later run reuses the compiled
    formulas.
    """
    global _tex_lock, _tex_dir
    if _tex_dir is not None:
        return _tex_dir
    base = Path(tempfile.gettempdir()) / f"attention-render-tex-{os.getuid()}"
    base.mkdir(parents=True, exist_ok=True)
    for n in range(256):
        fh = open(base / f"slot-{n}.lock", "w")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            continue
        _tex_lock, _tex_dir = fh, base / f"slot-{n}"
        _tex_dir.mkdir(exist_ok=True)
        return _tex_dir
    raise RuntimeError(f"no free LaTeX folder under {base}")


@dataclass(frozen=True)
class OutputOptions:
    """What a render writes besides the clip itself; part of every cache key.

    ``steps``: also each named step of the scene (``self.next_section``) as
    ``OUT/<name>/<nn>-<step>.<fmt>`` (png, svg, mp4, vtt). ``naming``: ``id``
    (``encoder.mp4``) or ``draft`` (the draft's names, :mod:`publish.names`).
    ``transparent``: no background in png, svg and webm.
    """

    steps: bool = False
    naming: str = "id"
    transparent: bool = False

    def stem(self, scene_id: str) -> str:
        return output_stem(scene_id, self.naming)

    def key(self) -> dict[str, str]:
        return {"steps": str(self.steps), "naming": self.naming, "transparent": str(self.transparent)}


def scene_ref(cls: type) -> str:
    """``module:QualName`` of a scene class, importable in a spawned process."""
    return f"{cls.__module__}:{cls.__qualname__}"


def _resolve(scene: str | type) -> type:
    if isinstance(scene, type):
        return scene
    if ":" in scene:
        module, _, name = scene.partition(":")
        obj: Any = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    from scenes import SCENES

    return SCENES[scene]


@dataclass(frozen=True)
class Job:
    scene_id: str
    scene: str  # scene_ref of the class
    formats: tuple[str, ...]  # the stale ones, to render
    keys: dict[str, dict[str, str]]  # format -> cache key
    out_dir: Path
    quality: str
    theme: str
    trace: Any
    source_video: Path | None = None  # a current mp4 to derive webm/gif from
    options: OutputOptions = OutputOptions()


@dataclass
class Result:
    scene_id: str
    status: str  # "rendered", "cached" or "failed"
    formats: tuple[str, ...] = ()
    seconds: float = 0.0
    error: str = ""


@dataclass
class Summary:
    results: list[Result] = field(default_factory=list)
    seconds: float = 0.0

    def of(self, status: str) -> list[Result]:
        return [r for r in self.results if r.status == status]

    def line(self) -> str:
        failed = self.of("failed")
        text = (f"summary: {len(self.of('rendered'))} rendered, {len(self.of('cached'))} from cache, "
                f"{len(failed)} failed, in {self.seconds:.1f} s")
        if failed:
            text += " -- " + "; ".join(f"{r.scene_id}: {r.error}" for r in failed)
        return text


def _atomic_move(src: Path, final: Path) -> None:
    if not src.is_file() or src.stat().st_size == 0:
        raise RuntimeError(f"no output produced for {final.name}")
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, final)


def _step_files(out_dir: Path, stem: str, fmt: str) -> list[Path]:
    folder = out_dir / stem
    return sorted(folder.glob(f"[0-9][0-9]-*.{fmt}")) if folder.is_dir() else []


def render_scene(scene: str | type, trace: Any, out_dir: Path, quality: str = "low",
                 formats: tuple[str, ...] = ("mp4",), theme_name: str = "dark",
                 keys: dict[str, dict[str, str]] | None = None,
                 source_video: Path | None = None,
                 options: OutputOptions = OutputOptions(), still_frame: Any = None,
                 captions: list[tuple[str, float, float]] | None = None) -> list[Path]:
    """Render one scene once and write ``out_dir/<name>.<fmt>`` for each format.

    The scene runs once; mp4/webm/gif come from its video, the png and svg
    from the poster frame (``poster_time`` seconds in, a ClassVar of the
    scene; ``None``, the default, means the last frame), the vtt from the
    captions it showed. With ``options.steps``, each named step also gets
    its still (its last frame), its clip and captions under ``<name>/``.
    With ``keys``, a cache record is written after each format's files are
    in place. With ``source_video`` (a current mp4 of this scene) and only
    webm/gif asked for, the scene is not rendered at all: they are derived
    from that file; with ``still_frame`` too (a joined split render,
    :mod:`publish.split`), so are mp4 and png (from that frame), and the
    vtt from ``captions`` (text, start, end).
    """
    from manim import tempconfig

    from scenes import THEMES
    from scenes.base import Timeline

    from . import encode, speedups, vector
    from .play_costs import PlayClock

    speedups.install()  # same pixels, less work (publish/speedups.py)
    cls = _resolve(scene)
    scene_id = cls.scene_id
    stem = options.stem(scene_id)
    theme = THEMES[theme_name]
    transparent = options.transparent
    if transparent and set(formats) & {"mp4", "gif"}:
        raise ValueError("mp4 and gif cannot be transparent (use png, svg or webm)")
    background = None if transparent else theme.background
    poster_time = getattr(cls, "poster_time", None)
    step_formats = [f for f in formats if f in STEP_FORMATS] if options.steps else []
    need_video = (any(f in VIDEO_FORMATS or f == "vtt" for f in formats)
                  or (bool({"png", "svg"} & set(formats)) and poster_time is not None))
    derive_only = source_video is not None and (set(formats) <= {"webm", "gif"} or still_frame is not None)
    work = track_work(Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-{scene_id}-", dir=out_dir)))
    out_identity = _folder_identity(out_dir)
    written: list[Path] = []
    still = video = costs = None
    poster_svg = work / "poster.svg"
    cues: list[tuple[str, float, float]] = []
    steps: list[dict[str, Any]] = []  # per step: name, start, end, frame, svg, video
    try:
        settings = {
            "quality": QUALITIES[quality],
            "format": ("webm" if transparent else "mp4") if need_video else "png",
            "transparent": transparent,
            "media_dir": manim_media_dir(work),
            "tex_dir": str(_tex_slot()),
            "background_color": theme.background,
            "disable_caching": True,
            "progress_bar": "none",
            "verbosity": "ERROR",
            "max_inflight_encoders": inflight_encoders(quality),
            "video_encoder_options": encoder_options(transparent),
            "output_file": scene_id,
            "save_sections": "mp4" in step_formats,
        }
        poster: list[Any] = []
        if derive_only:
            # Keep a private copy: the source is an output that may be replaced.
            video = work / "source.mp4"
            shutil.copyfile(source_video, video)
            still = still_frame
            cues = list(captions or [])
        else:
            with tempconfig(settings):
                scene_obj = cls(trace, theme)
                renderer = scene_obj.renderer
                _report_animations(scene_obj, work)
                if "vtt" in formats:
                    scene_obj.timeline = Timeline()
                if step_formats:
                    def step_end(step: Any) -> None:
                        # The step's last frame, as the camera drew it, and the same picture as vectors.
                        svg = None
                        if "svg" in step_formats:
                            svg = work / f"step-{len(steps)}.svg"
                            vector.write_svg(scene_obj, svg, background)
                        steps.append({"name": step.name, "start": step.start, "end": step.end,
                                      "frame": renderer.get_frame(), "svg": svg, "video": None})

                    scene_obj.on_step_end = step_end
                if poster_time is not None:
                    original = renderer.add_frame

                    def add_frame(frame: Any, num_frames: int = 1) -> None:
                        # The first frame shown at or after poster_time.
                        if not poster and not renderer.skip_animations and renderer.time >= poster_time - 1e-9:
                            poster.append(frame.copy())
                            if "svg" in formats:
                                vector.write_svg(scene_obj, poster_svg, background)
                        original(frame, num_frames)

                    renderer.add_frame = add_frame
                clock = PlayClock(scene_obj)
                scene_obj.render()
                costs = clock.costs()
                still = poster[0] if poster else renderer.get_frame()
                if "svg" in formats and not poster:
                    vector.write_svg(scene_obj, poster_svg, background)
                if scene_obj.timeline is not None:
                    cues = [(c.text, c.start, c.end) for c in scene_obj.timeline.captions()]
                video = Path(renderer.file_writer.final_file_path) if need_video else None
                if "mp4" in step_formats:
                    _attach_section_videos(renderer.file_writer, steps)
        if video is not None and (not video.is_file() or video.stat().st_size == 0):
            raise RuntimeError(f"manim produced no video for {scene_id}")
        makers: dict[str, Callable[[Path], None]] = {
            "png": lambda dst: encode.save_png(still, dst, transparent),
            "svg": lambda dst: shutil.copyfile(poster_svg, dst),
            "mp4": lambda dst: encode.faststart_mp4(video, dst),
            "gif": lambda dst: encode.to_gif(video, dst, background=theme.background),
            "webm": (lambda dst: shutil.copyfile(video, dst)) if transparent else
                    (lambda dst: encode.to_webm(video, dst)),
            "vtt": lambda dst: dst.write_text(to_webvtt(cues), encoding="utf-8"),
        }
        if _folder_identity(out_dir) != out_identity or not work.is_dir():
            # Manim recreates missing folders: without this the clip would land
            # in a new, near-empty OUT at the old path (or fail as "<none>").
            raise OutputFolderMoved(out_dir)
        for fmt in sorted(formats, key=FORMATS.index):
            step_written = _write_steps(work, out_dir, stem, fmt, steps, cues, transparent) \
                if fmt in step_formats else []
            tmp = work / f"final.{fmt}"
            makers[fmt](tmp)
            final = cache.output_path(out_dir, stem, fmt)
            _atomic_move(tmp, final)
            written += [*step_written, final]
            if keys is not None:
                cache.write_record(out_dir, stem, fmt, keys[fmt],
                                   [p.relative_to(out_dir).as_posix() for p in step_written])
        if keys is not None and need_video:
            _keep_costs(out_dir, scene_id, quality, costs)
    finally:
        release_media_dir(work)
        shutil.rmtree(work, ignore_errors=True)
        untrack_work(work)
    return written


#: Characters of a folder name that Manim cannot take in its media_dir: braces
#: are read as a format field ("{a}"), a quote or backslash breaks the ffmpeg
#: concat list it writes ("Bob's clips": "cannot write <none>").
MANIM_UNSAFE_CHARS = frozenset("{}'\"\\\n\r%")
#: Where every temporary folder a run makes lives, besides OUT/.rendering-*:
#: the system temp dir, each name carrying the pid of the process that owns it.
TEMP_PREFIXES = (WORK_PREFIX, "attention-remote-", "attention-join-", "attention-media-")
_media_links: dict[Path, Path] = {}


def manim_media_dir(work: Path) -> str:
    """``work`` as Manim can take it: itself, or when its path has a character
    Manim mishandles (an ``--out`` of ``Bob's clips``), a plain-named symlink to
    it in the temp dir (:func:`release_media_dir` removes it)."""
    if not MANIM_UNSAFE_CHARS & set(str(work)):
        return str(work)
    holder = Path(tempfile.mkdtemp(prefix=f"attention-media-{os.getpid()}-"))
    link = holder / "media"
    link.symlink_to(work.resolve(), target_is_directory=True)
    _media_links[work] = holder
    return str(link)


def release_media_dir(work: Path) -> None:
    holder = _media_links.pop(work, None)
    if holder is not None:
        shutil.rmtree(holder, ignore_errors=True)  # the link only, never its target


def _report_animations(scene_obj: Any, work: Path) -> None:
    """Write each animation's number and kind for the live progress display."""
    original_play = scene_obj.play
    count = 0

    def play(*args: Any, **kwargs: Any) -> None:
        nonlocal count
        count += 1
        # FadeIn, Transform, ...; ".animate" calls are builders until played.
        names = ("animate" if type(a).__name__ == "_AnimationBuilder" else type(a).__name__ for a in args)
        kinds = ", ".join(dict.fromkeys(names)) or "wait"
        write_status(work, count, kinds, scene_obj.renderer.time)
        original_play(*args, **kwargs)

    scene_obj.play = play


def _attach_section_videos(file_writer: Any, steps: list[dict[str, Any]]) -> None:
    """Pair each step with the clip manim wrote for its section (same name, in order).

    Manim drops sections without any animation, and the content before the
    first named section is its own ("autocreated") section: match by name.
    """
    videos = [(s.name, file_writer.sections_output_dir / s.video)
              for s in file_writer.sections if s.video is not None]
    i = 0
    for step in steps:
        for j in range(i, len(videos)):
            if videos[j][0] == step["name"]:
                step["video"] = videos[j][1] if videos[j][1].is_file() else None
                i = j + 1
                break


def _write_steps(work: Path, out_dir: Path, stem: str, fmt: str, steps: list[dict[str, Any]],
                 cues: list[tuple[str, float, float]], transparent: bool) -> list[Path]:
    """Write every step's file of one format to ``OUT/<stem>/``; remove steps no longer there."""
    from . import encode

    written: list[Path] = []
    for n, step in enumerate(steps, start=1):
        name = step_stem(n, step["name"])
        tmp = work / f"step-{n}.final.{fmt}"
        if fmt == "png":
            encode.save_png(step["frame"], tmp, transparent)
        elif fmt == "svg":
            shutil.copyfile(step["svg"], tmp)
        elif fmt == "mp4":
            if step["video"] is None:
                continue  # a step without animation has a still but no clip
            encode.faststart_mp4(step["video"], tmp)
        elif fmt == "vtt":
            if step["end"] - step["start"] <= 0:
                continue
            tmp.write_text(to_webvtt(window(cues, step["start"], step["end"])), encoding="utf-8")
        final = out_dir / stem / f"{name}.{fmt}"
        _atomic_move(tmp, final)
        written.append(final)
    for old in _step_files(out_dir, stem, fmt):
        if old not in written:
            old.unlink(missing_ok=True)
    return written


def _disk_full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < DISK_FULL_BYTES
    except OSError:
        return False


class OutputFolderMoved(RuntimeError):
    """OUT was renamed or deleted while a scene was drawn into it."""

    def __init__(self, out_dir: Path) -> None:
        super().__init__(f"the output folder {out_dir} was moved or deleted while rendering; run again")


def _folder_identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def describe_failure(exc: BaseException, out_dir: Path) -> str:
    """One line for a failed render.

    A full disk shows up as ENOSPC, or indirectly: manim's text goes through
    SVG files, and a truncated one fails to parse ("no element found"). Both
    are reported as what they are, naming where the render was writing.
    """
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"no space left on device writing {exc.filename or out_dir}"
    if isinstance(exc, OutputFolderMoved):
        return str(exc)
    if not Path(out_dir).is_dir():
        # Renamed or deleted while the scene was drawn: Manim then fails on a
        # file it cannot name ("cannot write <none>").
        return f"the output folder {out_dir} was moved or deleted while rendering; run again"
    if _disk_full(Path(out_dir)):
        return f"no space left on device writing {out_dir} ({type(exc).__name__}: {exc})"
    if isinstance(exc, OSError) and exc.filename:
        return f"cannot write {exc.filename} ({exc.strerror or type(exc).__name__})"
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" ({Path(where.filename).name}:{where.lineno})" if where else ""
    return f"{type(exc).__name__}: {exc}{at}"


def run_job(job: Job) -> Result:
    """Render one job; any error becomes a failed :class:`Result` (never raised)."""
    start = time.monotonic()
    try:
        render_scene(job.scene, job.trace, job.out_dir, job.quality, job.formats, job.theme, job.keys,
                     job.source_video, job.options)
    except Exception as exc:  # one scene failing must not stop the others
        return Result(job.scene_id, "failed", job.formats, time.monotonic() - start,
                      describe_failure(exc, job.out_dir))
    return Result(job.scene_id, "rendered", job.formats, time.monotonic() - start)


@dataclass(frozen=True)
class RemoteJob:
    """A whole-scene render on a worker that may not see ``OUT``: returns the files' bytes."""

    job: Job


def _run_remote(task: RemoteJob) -> tuple[Result, dict[str, bytes]]:
    from .executors import collect_files

    job = task.job
    work = Path(tempfile.mkdtemp(prefix=f"attention-remote-{os.getpid()}-"))
    try:
        # Rendered from scratch (the parent's current mp4 is not on this
        # machine), without cache records: the parent writes those.
        here = Job(job.scene_id, job.scene, job.formats, None, work, job.quality, job.theme, job.trace,
                   options=job.options)
        result = run_job(here)
        files = {}
        if result.status == "rendered":
            rendered = (p for p in work.rglob("*") if p.is_file() and not p.relative_to(work).parts[0].startswith("."))
            files = collect_files(rendered, work)
        return result, files
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_task(task: Any) -> Any:
    """Run one task of :func:`run_renders` (in a worker process or on a Dask worker)."""
    from .split import JoinTask, PartTask, join_parts, render_part

    if isinstance(task, Job):
        return run_job(task)
    if isinstance(task, RemoteJob):
        return _run_remote(task)
    if isinstance(task, PartTask):
        return render_part(task)
    if isinstance(task, JoinTask):
        return join_parts(task)
    raise TypeError(f"unknown task {task!r}")


class _InlinePool:
    """Tasks one after another in this process (one job, or one scene)."""

    workers = 1

    def run(self, fn: Callable[[Any], Any], tasks: list[Any]):
        i = 0
        while i < len(tasks):  # the list may grow (a split scene's join)
            try:
                yield Outcome(tasks[i], fn(tasks[i]))
            except Exception as exc:
                yield Outcome(tasks[i], error=f"{type(exc).__name__}: {exc}")
            i += 1

    def close(self) -> None:
        pass

    def stop(self) -> None:
        pass


def _parts(job: Job, split: int | None, workers: int, scenes: int) -> int:
    if job.source_video is not None or not set(job.formats) & set(VIDEO_FORMATS):
        return 1  # nothing to draw, or a still only
    if set(job.formats) - {"mp4", "webm", "gif", "png", "vtt"} or job.options.steps or job.options.transparent:
        return 1  # svg, steps and alpha need the whole scene in one process
    # Not split unless asked: with a scene for every worker, parts only add
    # building (each part runs the scene's code up to its last animation).
    return max(1, split or 1)


def longest_first(todo: list[Job], out_dir: Path) -> list[Job]:
    """The jobs in the order to start them: the longest first, so that no long
    scene starts last and runs on alone while the other workers idle.

    A scene's length is what its cost record says (:mod:`publish.play_costs`);
    scenes without one (never rendered into ``OUT``) could be any length and go
    first, in the order given; formats derived from a current mp4 go last.
    """
    from . import play_costs

    def seconds(job: Job) -> float:
        if job.source_video is not None:
            return 0.0  # formats derived from the current mp4: nothing to draw
        costs = play_costs.read_record(out_dir, job.scene_id, job.quality)
        return float("inf") if costs is None else sum(costs.build) + sum(costs.draw)

    return sorted(todo, key=lambda job: -seconds(job))


def _make_pool(executor: str, scheduler: str | None, jobs: int, todo: list[Job], split: int | None):
    if executor == "dask":
        return DaskPool(scheduler, jobs)
    tasks = sum(_parts(job, split, jobs, len(todo)) for job in todo)
    if jobs == 1 or tasks <= 1:
        return _InlinePool()
    return LocalPool(min(jobs, tasks))


def _execute(pool: Any, todo: list[Job], split: int | None, out_dir: Path,
             finished: Callable[[Result], None], split_parts: dict[str, list[Any]]) -> None:
    """Run every job on ``pool`` (split into parts where asked) and report each scene once."""
    from . import play_costs
    from .split import JoinTask, PartTask, joined_costs, part_tasks

    remote = isinstance(pool, DaskPool)
    tasks: list[Any] = []
    started: dict[str, float] = {}
    for job in longest_first(todo, out_dir):
        started[job.scene_id] = time.monotonic()
        n = _parts(job, split, pool.workers, len(todo))
        # Contiguous ranges where an earlier render measured the scene, else interleaved.
        parts = part_tasks(job, n, play_costs.read_record(out_dir, job.scene_id, job.quality)) if n > 1 else []
        if len(parts) > 1:
            split_parts[job.scene_id] = [None] * len(parts)
            tasks += parts
        else:
            tasks.append(RemoteJob(job) if remote else job)
    failed: set[str] = set()
    for outcome in pool.run(run_task, tasks):
        task = outcome.task
        job = task.job if not isinstance(task, Job) else task
        seconds = time.monotonic() - started[job.scene_id]
        if job.scene_id in failed:
            continue
        if outcome.error:
            failed.add(job.scene_id)
            finished(Result(job.scene_id, "failed", job.formats, seconds, outcome.error))
        elif isinstance(task, Job):
            finished(outcome.value)
        elif isinstance(task, PartTask):
            outputs = split_parts[job.scene_id]
            outputs[task.part] = outcome.value
            if all(o is not None for o in outputs):
                tasks.append(JoinTask(job, tuple(outputs)))
        else:  # files came back as bytes: RemoteJob or JoinTask
            if isinstance(task, RemoteJob):
                result, files = outcome.value
                if result.status == "failed":
                    failed.add(job.scene_id)
                    finished(result)
                    continue
            else:
                files = outcome.value
            try:
                publish_files(out_dir, job.options.stem(job.scene_id), files, job.keys, WORK_PREFIX)
            except OSError as exc:
                failed.add(job.scene_id)
                finished(Result(job.scene_id, "failed", job.formats, seconds, f"{type(exc).__name__}: {exc}"))
                continue
            if isinstance(task, JoinTask):
                _keep_costs(out_dir, job.scene_id, job.quality, joined_costs(task.outputs))
            finished(Result(job.scene_id, "rendered", job.formats, seconds))


def _note_inputs(out_dir: Path, summary: Summary, registry: dict[str, type], options: OutputOptions,
                 fingerprints: Callable[[str, str, str], str]) -> None:
    """Record what every current file was made from, for the next file-only check."""
    for result in summary.results:
        if result.status == "failed":
            continue
        module = registry[result.scene_id].__module__
        for fmt in result.formats:
            try:
                cache.note_inputs(out_dir, options.stem(result.scene_id), fmt,
                                  fingerprints(result.scene_id, module, fmt))
            except OSError:
                pass  # a hint: the next run then does the full check


def _keep_costs(out_dir: Path, scene_id: str, quality: str, costs: Any) -> None:
    """Keep what each animation cost for the next split render; a hint, so a failure costs nothing."""
    from . import play_costs

    if costs is None:
        return
    try:
        play_costs.write_record(out_dir, scene_id, quality, costs)
    except OSError:
        pass


def _owner_alive(pid: int, path: Path) -> bool:
    """Whether the process that made ``path`` still runs: ``pid`` is alive and
    started before the folder was made (a reused pid started after it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: never ours to remove
    try:
        import psutil

        return psutil.Process(pid).create_time() <= path.stat().st_mtime + 1.0
    except Exception:  # no psutil, or the process ended just now: keep it this time
        return True


def clean_stale_temp(temp_dir: Path | None = None) -> list[Path]:
    """Remove the temporary folders of killed runs from the system temp dir.

    A folder named ``<prefix><pid>-...`` (:data:`TEMP_PREFIXES`) is stale
    when its process has ended (or its pid was reused since): a concurrent
    live run's folders are kept. Returns the folders removed.
    """
    base = Path(temp_dir or tempfile.gettempdir())
    removed = []
    for prefix in TEMP_PREFIXES:
        for path in base.glob(f"{prefix}*"):
            match = re.match(rf"{re.escape(prefix)}(\d+)-", path.name)
            if not match or not path.is_dir() or path.is_symlink():
                continue
            try:
                if path.stat().st_uid != os.getuid() or _owner_alive(int(match.group(1)), path):
                    continue
            except OSError:
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def clean_stale_work(out_dir: Path) -> None:
    """Remove work folders and part files left by runs that were killed."""
    for path in out_dir.glob(f"{WORK_PREFIX}*"):
        match = re.match(rf"{re.escape(WORK_PREFIX)}(\d+)-", path.name)
        if not match:
            continue
        pid = int(match.group(1))
        try:
            os.kill(pid, 0)
            continue  # a live process owns it
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(path, ignore_errors=True)
    # Half-written index.html or cache records (atomic_write_text) of a
    # killed run; a live writer finishes such a file within milliseconds.
    for part in [*out_dir.glob(".*.part"), *(out_dir / cache.CACHE_DIR).glob(".*.part")]:
        try:
            if time.time() - part.stat().st_mtime > 60:
                part.unlink()
        except OSError:
            pass


def _write_numbers_snapshot(out_dir: Path, cls: type, data: dict[str, Any]) -> None:
    # What the gallery shows next to the clip: the numbers it was rendered
    # from. A failure here (full disk) costs only the gallery's tables.
    try:
        _write_snapshot(out_dir, cls, data)
    except (OSError, KeyError):
        pass


def _write_snapshot(out_dir: Path, cls: type, data: dict[str, Any]) -> None:
    cache.atomic_write_text(out_dir / cache.CACHE_DIR / f"{cls.scene_id}.numbers.json",
                            dumps({"description": cls.description,
                                   "sections": to_json(scene_sections(cls, data))}))


def run_renders(scene_ids: list[str], trace: Any, out_dir: Path, quality: str = "low",
                formats: tuple[str, ...] = ("mp4",), theme: str = "dark", jobs: int | None = None,
                force: bool = False, echo: Callable[[str], None] = print,
                registry: dict[str, type] | None = None, options: OutputOptions | None = None,
                executor: str = "local", scheduler: str | None = None, split: int | None = None,
                fingerprints: Callable[[str, str, str], str] | None = None) -> Summary:
    """Render the stale formats of each scene (cache first), ``jobs`` at a time.

    ``registry`` maps scene ids to classes (default: ``scenes.SCENES``);
    ``options`` says how files are named and what else is written.
    ``executor``: ``"local"`` (``jobs`` processes here) or ``"dask"`` (the
    cluster at ``scheduler``, or a ``LocalCluster`` of ``jobs`` workers).
    ``split``: parts each scene's animations are drawn in, by different
    workers (:mod:`publish.split`); default 1. ``fingerprints(scene_id,
    module, fmt)`` (a :class:`publish.uptodate.Fingerprints`): the files'
    fingerprint to record for every current file, so that the next run with
    the same files decides from files alone (:func:`publish.uptodate.stale_outputs`).

    Ctrl-C or SIGTERM stops every worker before :class:`KeyboardInterrupt`
    (an :class:`~publish.executors.Interrupted`) reaches the caller: files
    finished until then are kept, nothing is written afterwards.
    """
    options = options or OutputOptions()
    if registry is None:
        from scenes import SCENES as registry

    SCENES = registry
    start = time.monotonic()
    summary = Summary()
    data = trace.to_dict()
    clean_stale_work(out_dir)
    clean_stale_temp()
    todo: list[Job] = []
    replaced: list[str] = []
    n = len(scene_ids)
    for i, scene_id in enumerate(scene_ids, start=1):
        cls = SCENES[scene_id]
        try:
            code = cache.code_hash(cls)
            keys = {f: cache.cache_key(cls, data, quality, f, theme, code, options.key()) for f in formats}
            stem = options.stem(scene_id)
        except (KeyError, OSError) as exc:
            summary.results.append(Result(scene_id, "failed", formats, 0.0, str(exc)))
            echo(f"[{i}/{n}] {scene_id}: FAILED ({exc})")
            continue
        stale = tuple(f for f in formats if force or not cache.is_fresh(out_dir, stem, f, keys[f]))
        if not stale:
            summary.results.append(Result(scene_id, "cached", formats))
            _write_numbers_snapshot(out_dir, cls, data)
            echo(f"[{i}/{n}] {scene_id}: up to date ({', '.join(formats)}), skipped")
            continue
        source = None
        if set(stale) <= {"webm", "gif"}:
            mp4_key = keys.get("mp4") or cache.cache_key(cls, data, quality, "mp4", theme, code, options.key())
            if cache.is_fresh(out_dir, stem, "mp4", mp4_key):
                source = cache.output_path(out_dir, stem, "mp4")
        todo.append(Job(scene_id, scene_ref(cls), stale, keys, out_dir, quality, theme, trace, source, options))
        # File names do not carry the theme: say so before a clip of the other theme is replaced.
        replaced += [f"{stem}.{f}" for f in stale
                     if cache.recorded_theme(out_dir, stem, f) not in (None, theme)]

    if replaced:
        shown = ", ".join(replaced[:4]) + (f" and {len(replaced) - 4} more" if len(replaced) > 4 else "")
        echo(f"note: replacing {shown} (rendered in another theme) with {theme} ones; "
             f"give each theme its own --out to keep both")
    jobs = max(1, jobs or os.cpu_count() or 1)

    def finished(result: Result) -> None:
        summary.results.append(result)
        if result.status == "failed":
            echo(f"{result.scene_id}: FAILED after {result.seconds:.1f} s ({result.error})")
        else:
            _write_numbers_snapshot(out_dir, SCENES[result.scene_id], data)
            parts = f" in {len(split_parts[result.scene_id])} parts" if result.scene_id in split_parts else ""
            echo(f"{result.scene_id}: rendered {', '.join(result.formats)}{parts} in {result.seconds:.1f} s")

    for job in todo:
        how = "deriving from the current mp4" if job.source_video else "rendering"
        echo(f"{job.scene_id}: {how} {', '.join(job.formats)} ({quality}, {theme})")
    split_parts: dict[str, list[Any]] = {}
    if todo:
        with stop_signals():
            pool = None
            try:
                pool = _make_pool(executor, scheduler, jobs, todo, split)
                _execute(pool, todo, split, out_dir, finished, split_parts)
            except BaseException:
                if pool is not None:
                    pool.stop()
                clean_stale_work(out_dir)  # the stopped workers' folders
                raise
            pool.close()
    if fingerprints is not None:
        _note_inputs(out_dir, summary, SCENES, options, fingerprints)
    summary.seconds = time.monotonic() - start
    order = {s: i for i, s in enumerate(scene_ids)}
    summary.results.sort(key=lambda r: order[r.scene_id])
    return summary
