"""One scene drawn once, in this process, into every requested format.

:func:`render_scene` renders a scene once (an H.264 mp4 from manim, plus the
poster frame captured from the renderer) and derives every requested format
from that (:mod:`publish.rendering.encode`). Each file is written under a temporary
name inside the output folder and moved into place only when complete, then
its cache record is written.

:mod:`publish.rendering.pipeline` calls it for every stale scene, and
:mod:`publish.rendering.split` to derive the formats of a scene joined from parts:
this module imports neither.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from publish.rendering import cache
from publish.rendering.captions import to_webvtt, window
from publish.rendering.executors import track_work, untrack_work
from publish.rendering.names import output_stem, step_stem
from publish.rendering.progress import write_status
from publish.rendering.render_setup import FORMATS, WORK_PREFIX, capture_poster, manim_settings, resolve_scene

__all__ = ["VIDEO_FORMATS", "STEP_FORMATS", "OutputOptions", "render_scene", "OutputFolderMoved",
           "manim_media_dir", "release_media_dir", "keep_costs"]

VIDEO_FORMATS = ("mp4", "webm", "gif")
#: The formats each step is written in, with --steps.
STEP_FORMATS = ("png", "svg", "mp4", "vtt")


@dataclass(frozen=True)
class OutputOptions:
    """What a render writes besides the clip itself; part of every cache key.

    ``steps``: also each named step of the scene (``self.next_section``) as
    ``OUT/<name>/<nn>-<step>.<fmt>`` (png, svg, mp4, vtt). ``naming``: ``id``
    (``encoder.mp4``) or ``draft`` (the draft's names, :mod:`publish.rendering.names`).
    ``transparent``: no background in png, svg and webm.
    """

    steps: bool = False
    naming: str = "id"
    transparent: bool = False

    def stem(self, scene_id: str) -> str:
        return output_stem(scene_id, self.naming)

    def key(self) -> dict[str, str]:
        return {"steps": str(self.steps), "naming": self.naming, "transparent": str(self.transparent)}


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
    :mod:`publish.rendering.split`), so are mp4 and png (from that frame), and the
    vtt from ``captions`` (text, start, end).
    """
    from manim import tempconfig

    from scenes import THEMES
    from scenes.base import Timeline

    from publish.rendering import encode
    from publish.rendering import vector
    from publish.rendering.play_costs import PlayClock

    cls = resolve_scene(scene)
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
        settings = manim_settings(quality, theme.background, manim_media_dir(work), scene_id,
                                  fmt=("webm" if transparent else "mp4") if need_video else "png",
                                  transparent=transparent)
        settings["save_sections"] = "mp4" in step_formats
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
                    def keep_poster(frame: Any) -> None:
                        poster.append(frame)
                        if "svg" in formats:  # the same picture as vectors, drawn now
                            vector.write_svg(scene_obj, poster_svg, background)

                    capture_poster(renderer, poster_time, keep_poster)
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
            keep_costs(out_dir, scene_id, quality, costs)
    finally:
        release_media_dir(work)
        shutil.rmtree(work, ignore_errors=True)
        untrack_work(work)
    return written


#: Characters of a folder name that Manim cannot take in its media_dir: braces
#: are read as a format field ("{a}"), a quote or backslash breaks the ffmpeg
#: concat list it writes ("Bob's clips": "cannot write <none>").
MANIM_UNSAFE_CHARS = frozenset("{}'\"\\\n\r%")
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
    from publish.rendering import encode

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


def keep_costs(out_dir: Path, scene_id: str, quality: str, costs: Any) -> None:
    """Keep what each animation cost for the next split render; a hint, so a failure costs nothing."""
    from publish.rendering import play_costs

    if costs is None:
        return
    try:
        play_costs.write_record(out_dir, scene_id, quality, costs)
    except OSError:
        pass
