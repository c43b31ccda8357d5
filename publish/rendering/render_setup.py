"""What every render process sets up before Manim draws, whole scene or part.

The quality names, how many partial movies may encode at once within the
memory budget, the encoders' options, the process's own LaTeX folder and the
scene class from its reference. :mod:`publish.rendering.scene_render` (a whole scene)
and :mod:`publish.rendering.split` (a scene drawn in parts) both read it, and neither
imports the other's caller, :mod:`publish.rendering.pipeline`. Manim-free (but
:func:`install_speedups`, which the entry points call, imports Manim).
"""

from __future__ import annotations

import fcntl
import importlib
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

__all__ = ["install_speedups", "SPEEDUP_TEXT_MODULES", "QUALITIES", "FORMATS", "WORK_PREFIX", "FRAME_BUDGET_MB",
           "ENCODER_QUEUE", "X264_BYTES_PER_PIXEL", "MAX_INFLIGHT", "PIXELS", "encoder_bytes", "inflight_encoders",
           "ENCODER_OPTIONS", "X264_OPTIONS", "encoder_options", "tex_slot", "scene_ref", "resolve_scene",
           "capture_poster", "manim_settings"]

#: Our quality names and Manim's. The one definition: render.py, the pipeline and the notebook read it.
QUALITIES = {"low": "low_quality", "medium": "medium_quality", "high": "high_quality", "4k": "fourk_quality"}
#: Every output format, in the order a scene's files are written (the CLI and the gallery read it).
FORMATS = ("mp4", "webm", "gif", "png", "svg", "vtt")
#: The work folders of a render (OUT/.rendering-<pid>-...), removed when it ends.
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
    # isascii: "²" passes isdigit but not int() (the CLI's --jobs had the same trap).
    if value.isascii() and value.isdigit() and int(value) > 0:
        return int(value)
    if budget_mb is None:
        env = os.environ.get("ATTENTION_FRAME_BUDGET_MB", "")
        readable = env.isascii() and env.replace(".", "", 1).isdigit()
        budget_mb = float(env) if readable and float(env) > 0 else FRAME_BUDGET_MB
    width, height = PIXELS[quality]
    return max(1, min(MAX_INFLIGHT, int(budget_mb * (1 << 20) // encoder_bytes(width, height))))


#: Options of every partial movie's encoder. libx264 (and libvpx) split one file over
#: threads by default, and then give different bytes for the same frames now and then
#: (1 encode in 8 on a 2-core machine): a split render was not the whole render's twin.
#: One thread per file encodes the same frames to the same bytes; the in-flight
#: encoders still encode several files at once. (Tried again: two frame threads with the
#: look-ahead on one, ``lookahead-threads=1``, gave one file in 64 of 64 encodes of test
#: frames in fresh processes and took `encoder -q high` from 31 s to 30 s, but three
#: renders of that scene gave three different files.) libx264 looks 10 frames ahead instead
#: of 40: less than half the memory (files ~3 % larger). Its "veryfast" preset instead of
#: "medium": at 1080p the drawing waited on the encoders for 16 s of a 43 s `encoder`
#: render (both cores busy, x264 the larger share); with it `encoder -q high` took 30.8 s
#: against 39.5 s, the whole set at 480p with --jobs 1 73 s against 90 s, for files 0.4 to
#: 2 % smaller and a held frame 0.3 dB further from the drawn one (35.6 against 35.9 dB
#: PSNR, at 1080p; flat colours and text are what these clips hold).
ENCODER_OPTIONS = {"threads": "1"}
X264_OPTIONS = {**ENCODER_OPTIONS, "rc-lookahead": "10", "preset": "veryfast"}


def encoder_options(transparent: bool = False) -> dict[str, str]:
    """The partial movies' encoder options: libx264's (mp4), or libvpx's (transparent webm)."""
    return dict(ENCODER_OPTIONS if transparent else X264_OPTIONS)


_tex_lock: Any = None  # held for the life of the process
_tex_dir: Path | None = None


def tex_slot() -> Path:
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


def scene_ref(cls: type) -> str:
    """``module:QualName`` of a scene class, importable in a spawned process."""
    return f"{cls.__module__}:{cls.__qualname__}"


def resolve_scene(scene: str | type) -> type:
    """The scene class a :func:`scene_ref` names (or a registered id, or the class itself)."""
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


def capture_poster(renderer: Any, poster_time: float, on_capture: Callable[[Any], None]) -> None:
    """Hand ``on_capture`` (once) a copy of the first frame written at or after
    ``poster_time`` seconds: the poster. Frames go on to the video as before; a skipped
    animation's frames are never written, so never the poster. Used by a whole render
    (:mod:`publish.rendering.scene_render`) and by a split part (:mod:`publish.rendering.split`) alike."""
    add_frame = renderer.add_frame
    taken: list[bool] = []

    def capture(frame: Any, num_frames: int = 1) -> None:
        if not taken and not renderer.skip_animations and renderer.time >= poster_time - 1e-9:
            taken.append(True)
            on_capture(frame.copy())
        add_frame(frame, num_frames)

    renderer.add_frame = capture


#: Our packages whose ``Text`` subclasses build exactly as ``Text`` (the patches never name them).
SPEEDUP_TEXT_MODULES = ("scenes",)


def install_speedups() -> bool:
    """Manim's speedups (:mod:`manim_speedups`) in this process: what each entry point calls
    once (``render.py``'s rendering commands, a local worker's initialiser, a Dask worker's
    plugin, ``publish.targets.notebook.show``), never a render itself. Returns whether they are
    in place (``ATTENTION_SPEEDUPS=off``, or an untested Manim: plain Manim)."""
    import manim_speedups

    return manim_speedups.install(text_subclass_modules=SPEEDUP_TEXT_MODULES)


def manim_settings(quality: str, background: str, media_dir: str, output_file: str, *, fmt: str = "mp4",
                   transparent: bool = False) -> dict[str, Any]:
    """Manim's settings for one render, whole scene or part (the one place they are written).

    Parameters
    ----------
    quality : str
        One of :data:`QUALITIES`' names.
    background : str
        The theme's background colour.
    media_dir : str
        Where Manim writes its partial movies.
    output_file : str
        The movie's name (the scene's id).
    fmt : str
        Manim's movie format: ``"mp4"``, ``"webm"`` (transparent) or ``"png"`` (a still only).
    transparent : bool
        Keep the alpha channel (webm and png only).
    """
    return {
        "quality": QUALITIES[quality],
        "format": fmt,
        "transparent": transparent,
        "media_dir": media_dir,
        "tex_dir": str(tex_slot()),
        "background_color": background,
        "disable_caching": True,
        "progress_bar": "none",
        "verbosity": "ERROR",
        "max_inflight_encoders": inflight_encoders(quality),
        "video_encoder_options": encoder_options(transparent),
        "output_file": output_file,
    }
