"""A clip inline in a Jupyter notebook (issue 34): ``from render import show``.

    from render import show
    show("encoder", numbers="my.toml", quality="low")                       # the clip, with controls
    show("dot_product", numbers_table=True)                                 # and the numbers it shows

``show`` renders through the same pipeline and cache as ``render.py render`` (into
``~/.cache/attention-animations/notebook/<theme>/``, or ``out=``), so a second call with the same
numbers is instant, and returns a :class:`Clip` that Jupyter displays inline: a ``<video>`` with
controls and the clip's captions (embedded in the notebook, so it still plays when the notebook is
shared or opened offline), and, with ``numbers_table=True``, the scene's numbers as tables, rounded
as on screen.
"""

from __future__ import annotations

import base64
import html
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Clip", "show", "clip_html"]


@dataclass(frozen=True)
class Clip:
    """A rendered clip, shown inline by Jupyter (``_repr_html_``)."""

    scene_id: str
    video: Path
    captions: Path | None
    table_html: str | None = None

    def _repr_html_(self) -> str:
        return clip_html(self)

    def __repr__(self) -> str:  # outside a notebook: where the files are
        return f"Clip({self.scene_id!r}, video={str(self.video)!r})"


def clip_html(clip: Clip) -> str:
    """The clip as one self-contained block: video (with controls and its captions' track, both as
    data: URLs) and, if asked for, its numbers' tables."""
    video = base64.b64encode(clip.video.read_bytes()).decode("ascii")
    track = ""
    if clip.captions is not None and clip.captions.is_file():
        vtt = base64.b64encode(clip.captions.read_bytes()).decode("ascii")
        track = f'<track kind="captions" srclang="en" label="Captions" src="data:text/vtt;base64,{vtt}">'
    parts = [f'<figure class="attention-clip" data-scene="{html.escape(clip.scene_id)}" style="margin:0">'
             f'<video controls playsinline preload="metadata" style="max-width:100%" '
             f'src="data:video/mp4;base64,{video}">{track}</video>'
             f"<figcaption>{html.escape(clip.scene_id)}</figcaption></figure>"]
    if clip.table_html:
        parts.append(f'<div class="attention-numbers">{clip.table_html}</div>')
    return "\n".join(parts)


def _default_out(theme: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "attention-animations" / "notebook" / theme


def show(scene_id: str, numbers: str | os.PathLike[str] | None = None, quality: str = "low", theme: str = "dark",
         numbers_table: bool = False, out: str | os.PathLike[str] | None = None, jobs: int = 1) -> Clip:
    """Render ``scene_id`` (cached) and return it for Jupyter to show inline.

    Parameters
    ----------
    scene_id
        A scene id (``render.py list``).
    numbers
        A numbers file (TOML); ``None``: the shipped one.
    quality
        ``low``, ``medium``, ``high`` or ``4k`` (``l``, ``m``, ``h``, ``k``).
    theme
        ``dark`` or ``light``.
    numbers_table
        Also the scene's numbers, as tables rounded as on screen.
    out
        Where the clip is rendered and cached (default: the user's cache folder).
    """
    from attention_core import NumbersError, compute_trace, load_numbers
    from scenes import SCENES

    from publish.rendering.pipeline import OutputOptions, QUALITIES, run_renders
    from publish.rendering.render_setup import install_speedups
    from publish.tables import scene_sections, to_html

    quality = {"l": "low", "m": "medium", "h": "high", "k": "4k"}.get(str(quality).lower(), str(quality).lower())
    if scene_id not in SCENES:
        raise ValueError(f"unknown scene id {scene_id!r} (valid: {', '.join(SCENES)})")
    if quality not in QUALITIES:
        raise ValueError(f"unknown quality {quality!r} (valid: {', '.join(QUALITIES)})")
    if theme not in ("dark", "light"):
        raise ValueError(f"unknown theme {theme!r} (valid: dark, light)")
    try:
        trace = compute_trace(load_numbers(numbers), list(SCENES[scene_id].trace_sections))
    except NumbersError as exc:
        raise ValueError(f"numbers file {exc}") from None
    folder = Path(out) if out is not None else _default_out(theme)
    install_speedups()  # the notebook's kernel is an entry point: once per process
    folder.mkdir(parents=True, exist_ok=True)
    summary = run_renders([scene_id], trace, folder, quality, ("mp4", "vtt"), theme, jobs, False,
                          echo=lambda line: None, options=OutputOptions())
    failed = summary.of("failed")
    if failed:
        raise RuntimeError(f"{scene_id} failed to render: {summary.line()}")
    table = to_html(scene_sections(SCENES[scene_id], trace.to_dict())) if numbers_table else None
    vtt = folder / f"{scene_id}.vtt"
    return Clip(scene_id, folder / f"{scene_id}.mp4", vtt if vtt.is_file() else None, table)
