"""Everything the render path does to make Manim faster, without changing a pixel.

- :mod:`manim_speedups.text_cache`: a ``Text`` of arguments seen before is a copy of the first one;
- :mod:`manim_speedups.glyph_text`: a new ``Text`` is assembled from cached glyph outlines,
  with the points Manim's SVG parse gives;
- :mod:`manim_speedups.fast_family`: Manim's family walks (``get_family``) as a plain recursion;
- :mod:`manim_speedups.fast_mobject`: a family's anchors and its lengths (``height``,
  ``width``) worked out with numpy, and ``update`` passing over glyphs without updaters;
- :mod:`manim_speedups.fast_render`: the Cairo path calls of a shape are recorded once and
  replayed, and shapes that do not move in an animation are drawn once into its backdrop;
- :mod:`manim_speedups.tex_format`: the LaTeX template's preamble dumped into a format once per
  LaTeX folder, so each formula's ``latex`` run starts with it loaded (same svg files);
- :mod:`manim_speedups.held_frames`: a frame held for N frames is converted for libx264 once,
  not N times, with its rows' padding set (the same frames always give the same file),
  read where it is and converted on a thread beside the encoder.

``render.py`` installs them before it builds a scene (so does the test suite, for
speed); plain ``manim`` run on the scene classes does not have them, which is what
``scripts/benchmark.py`` compares against. Each has its own environment switch
(``ATTENTION_TEXT_CACHE=0``, ``ATTENTION_GLYPH_TEXT=0``, ``ATTENTION_FAST_FAMILY=0``,
``ATTENTION_FAST_MOBJECT=0``, ``ATTENTION_FAST_RENDER=0``, ``ATTENTION_HELD_FRAMES=0``, ``ATTENTION_TEX_FORMAT=0``)
for before/after comparisons.
"""

from __future__ import annotations

__all__ = ["install", "uninstall"]


def install(text_subclass_modules: tuple[str, ...] = ()) -> None:
    """Install every speedup (idempotent; each honours its own off switch).

    Parameters
    ----------
    text_subclass_modules
        Modules (and their submodules) whose ``Text`` subclasses build exactly as ``Text``:
        the text cache and the glyph assembly serve them too. Manim's own subclasses never.
    """
    from . import fast_family, fast_mobject, fast_render, glyph_text, held_frames, tex_format, text_cache

    text_cache.TEXT_SUBCLASS_MODULES = tuple(text_subclass_modules)
    text_cache.install()
    glyph_text.install()
    fast_family.install()
    fast_mobject.install()
    fast_render.install()
    held_frames.install()
    tex_format.install()


def uninstall() -> None:
    from . import fast_family, fast_mobject, fast_render, glyph_text, held_frames, tex_format, text_cache

    tex_format.uninstall()
    held_frames.uninstall()
    fast_render.uninstall()
    fast_mobject.uninstall()
    fast_family.uninstall()
    glyph_text.uninstall()
    text_cache.uninstall()
