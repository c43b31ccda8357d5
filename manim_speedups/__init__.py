"""Patches that make Manim faster without changing a pixel: one table, installed on purpose.

Every Manim callable replaced is a row of :data:`PATCHES` (what is replaced, by what, what it
buys, what it measured). Nothing here patches anything on import: :func:`install` does, and
only the entry points call it, once per process (``render.py``'s commands that render, the
local worker initialiser in ``publish.rendering.executors``, the Dask worker plugin in
``publish.rendering.dask_plugin``,
``publish.targets.notebook.show``, and the test suite's ``tests/conftest.py``). Rendering
code works the same on plain Manim (``tests/test_speedups.py`` compares the frames).

- :func:`install` patches only a Manim of a version in :data:`TESTED_MANIM`; on any other it
  patches nothing and prints one notice line on stderr (once per process);
- ``ATTENTION_SPEEDUPS=off`` (also ``0``, ``no``, ``false``) turns every patch off; each
  module's own switch (the ``switch`` column) turns that module off, for measurements;
- :func:`uninstall` puts back every attribute the table names, as it was;
- :func:`status` says which rows are in place now.

``Scene.play_internal``, the one Manim method the project wraps in more than one place, is
wrapped in this order during a render (outermost first): ``publish.rendering.play_costs.PlayClock``
(on the scene instance: it times the drawing), ``scenes.base.WalkthroughScene.play_internal``
(a subclass override: the audit's look halfway through an animation), then Manim's own
``Scene.play_internal``. No patch here touches it.

The figures in the ``measured`` column (and ``docs/performance.md``) are whole-process times of
``render.py render encoder --quality low --force`` with the module's switch off against all on,
run in turn, pair by pair: ``python scripts/benchmark.py --steps patches`` measures them again.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["Patch", "PATCHES", "TESTED_MANIM", "SWITCH", "MODULES", "install", "uninstall", "installed",
           "status", "enabled", "resolve", "current", "markdown_table"]

#: Manim versions these patches were written against and tested with (``manim.__version__``).
TESTED_MANIM: tuple[str, ...] = ("0.22.0",)
#: The one switch: ``ATTENTION_SPEEDUPS=off`` and nothing is patched.
SWITCH = "ATTENTION_SPEEDUPS"
_OFF = ("off", "0", "no", "false")


@dataclass(frozen=True)
class Patch:
    """One replaced callable.

    ``target`` is ``"module:Qualified.name"`` (the attribute replaced on that object);
    ``replacement`` is ``"our_module.function"``; ``switch`` the environment variable that
    turns the module off (``=0``) for measurements.
    """

    target: str
    replacement: str
    switch: str
    buys: str
    measured: str

    @property
    def module(self) -> str:
        return self.replacement.partition(".")[0]


_RENDER = "ATTENTION_FAST_RENDER"
_HELD = "ATTENTION_HELD_FRAMES"
_MOB = "ATTENTION_FAST_MOBJECT"
_GLYPH = "ATTENTION_GLYPH_TEXT"
_BACKDROPS = "ATTENTION_BACKDROPS"  # ATTENTION_FAST_RENDER=0 turns these off too

#: Every replaced callable, in the order the modules are installed.
PATCHES: tuple[Patch, ...] = (
    Patch("manim.mobject.svg.svg_mobject:SVGMobject.generate_mobject", "glyph_text._generate", _GLYPH,
          "a new Text's SVG read with xml.etree, each glyph outline parsed once, points computed with "
          "svgelements' arithmetic, vectorised (9 ms instead of 26 for a number)",
          "off/on: encoder 1.25x processor time, 1.20x wall"),
    Patch("manim.mobject.types.vectorized_mobject:VMobject.get_points_defining_boundary",
          "fast_mobject.get_points_defining_boundary", _MOB,
          "a family's anchors (every next_to, get_center, get_corner) by numpy slicing, joined once",
          "off/on: encoder 1.06x processor time, 1.20x wall"),
    Patch("manim.mobject.mobject:Mobject.update", "fast_mobject.update", _MOB,
          "passes over childless submobjects without updaters (millions of do-nothing calls)",
          "(with the row above)"),
    Patch("manim.mobject.mobject:Mobject.length_over_dim", "fast_mobject.length_over_dim", _MOB,
          "height/width (and Text.font_size) by one numpy reduction of the family's columns",
          "(with the row above)"),
    Patch("manim.camera.camera:Camera.set_cairo_context_path", "fast_render._cached_path", _RENDER,
          "the Cairo path of a shape's points is recorded once (copy_path) and appended again in one "
          "call, instead of a Python loop of move_to/curve_to per shape per frame; only for Camera "
          "and MovingCamera (any other camera, e.g. ThreeDCamera, draws Manim's way)",
          "with the backdrops, off/on: encoder 1.54x processor time, 1.56x wall"),
    Patch("manim.scene.scene:Scene.begin_animations", "fast_render._begin_animations", _BACKDROPS,
          "backdrops: after Manim's own, plans which shapes no animation of the play touches",
          "off/on: encoder 1.00x processor time, 0.98x wall; attention_process 1.14x, 1.09x"),
    Patch("manim.renderer.cairo_renderer:CairoRenderer.render", "fast_render._render", _BACKDROPS,
          "backdrops: still shapes drawn once into the play's backdrop, only moving ones each frame",
          "(with the row above)"),
    Patch("manim.renderer.cairo_renderer:CairoRenderer.save_static_frame_data",
          "fast_render._save_static_frame_data", _BACKDROPS,
          "backdrops: a play's static image grown from the last play's when that one's shapes come first",
          "(with the row above)"),
    Patch("manim.scene.video_segment_encoder:VideoSegmentEncoder.write_frame", "held_frames.write_frame", _HELD,
          "a frame held N times (a wait) is converted to yuv420p once, not N times, read where it is, "
          "on a thread beside libx264; row padding set so the file does not depend on stale memory",
          "off/on: encoder 1.06x processor time, 1.10x wall (the thread)"),
    Patch("manim.scene.video_segment_encoder:VideoSegmentEncoder.finish", "held_frames.finish", _HELD,
          "hands libx264 the last frame still converting, then Manim's finish", "(with write_frame)"),
    Patch("manim.scene.video_segment_encoder:VideoSegmentEncoder.abort", "held_frames.abort", _HELD,
          "drops a frame still converting, then Manim's abort", "(with write_frame)"),
)

#: Our modules, in the order :func:`install` installs them (the order of :data:`PATCHES`).
MODULES: tuple[str, ...] = tuple(dict.fromkeys(p.module for p in PATCHES))

_installed = False
_noticed = False


def enabled() -> bool:
    """Whether ``ATTENTION_SPEEDUPS`` leaves the patches on (it is not ``off``)."""
    return os.environ.get(SWITCH, "").strip().lower() not in _OFF


def _module(name: str) -> Any:
    return importlib.import_module(f"{__name__}.{name}")


def install(text_subclass_modules: tuple[str, ...] = ()) -> bool:
    """Install every patch of :data:`PATCHES` whose module's switch is on; return whether
    the speedups are in place.

    Does nothing when ``ATTENTION_SPEEDUPS=off``, and nothing but one notice line on stderr
    (once per process) when ``manim.__version__`` is not in :data:`TESTED_MANIM`. Calling it
    again puts back a module a test uninstalled, and changes nothing else.

    Parameters
    ----------
    text_subclass_modules
        Modules (and their submodules) whose ``Text`` subclasses build exactly as ``Text``
        (the caller's own scene package): the text patches serve them too. The
        patches themselves name no module of the project.
    """
    global _installed, _noticed
    if not enabled():
        return False
    import manim

    if manim.__version__ not in TESTED_MANIM:
        if not _noticed:
            _noticed = True
            print(f"manim_speedups: Manim {manim.__version__} is not a version these patches were tested "
                  f"with ({', '.join(TESTED_MANIM)}): nothing patched, rendering on Manim as it is",
                  file=sys.stderr)
        return False
    if "glyph_text" in MODULES:
        _module("glyph_text").TEXT_SUBCLASS_MODULES = tuple(text_subclass_modules)
    for name in MODULES:
        _module(name).install()
    _installed = True
    return True


def uninstall() -> None:
    """Put back every attribute :data:`PATCHES` names, as it was before :func:`install`."""
    global _installed
    for name in reversed(MODULES):
        _module(name).uninstall()
    _installed = False


def installed() -> bool:
    """Whether :func:`install` put the patches in place (and :func:`uninstall` has not run since)."""
    return _installed


def resolve(target: str) -> tuple[Any, str]:
    """The object holding ``target``'s attribute (imported), and the attribute's name."""
    module, _, qualname = target.partition(":")
    *owners, attr = qualname.split(".")
    holder: Any = importlib.import_module(module)
    for name in owners:
        holder = getattr(holder, name)
    return holder, attr


def current(target: str) -> Any:
    """What ``target`` holds now (``None`` when the attribute is absent from its holder)."""
    holder, attr = resolve(target)
    return vars(holder).get(attr)


def status() -> dict[str, bool]:
    """For each row of :data:`PATCHES`: whether its replacement is in place now."""
    out = {}
    for patch in PATCHES:
        module, _, function = patch.replacement.partition(".")
        out[patch.target] = current(patch.target) is getattr(_module(module), function)
    return out


def markdown_table() -> str:
    """:data:`PATCHES` as the Markdown table ``docs/performance.md`` shows (a test keeps them equal)."""
    rows = ["| target (Manim's) | replacement (ours) | switch | what it buys | measured |", "|---|---|---|---|---|"]
    for p in PATCHES:
        cells = (f"`{p.target}`", f"`{p.replacement}`", f"`{p.switch}=0`", p.buys, p.measured)
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)
