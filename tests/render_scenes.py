"""Small scenes for the rendering tests only (not in the SCENES registry).

They render in a second or two at low quality, unlike the walkthrough's
scenes. ``RENDER_TEST_NONCE`` (an environment variable, so spawned worker
processes see it) makes their formulas unique to one test run, so LaTeX
really compiles instead of reusing an earlier run's SVGs.
"""

from __future__ import annotations

import os
from typing import ClassVar

from manim import DOWN, RIGHT, FadeIn, FadeOut, MathTex, VGroup, Write

from scenes import SCENES
from scenes.base import WalkthroughScene
from scenes.components import VectorColumn, caption

__all__ = ["TinyScene", "PosterScene", "LatePosterScene", "BrokenScene", "StepsScene", "LATEX_SCENES", "TEST_SCENES", "registry", "register"]


def _nonce() -> str:
    return os.environ.get("RENDER_TEST_NONCE", "0")


class TinyScene(WalkthroughScene):
    """A caption, then h_T (the context) as a column: 3 s, 45 frames at 15 fps."""

    scene_id = "tiny"
    description = "Test scene: the context vector h_T."
    trace_sections = ("sizes", "encoder.context")
    plays: ClassVar[int] = 0  # construct() calls, counted across renders

    def construct(self) -> None:
        type(self).plays += 1
        title = caption("context", self.theme, 28).to_edge([0, 1, 0])
        self.play(FadeIn(title), run_time=1.0)
        col = VectorColumn(self.trace.encoder.context, self.theme, key="encoder.context", label="h_T",
                           colour=self.theme.encoder)
        self.play(FadeIn(col), run_time=1.0)
        slow = float(os.environ.get("RENDER_TEST_SLOW", "0"))
        _hold()
        self.wait(1.0 + slow)


def _hold() -> None:
    """With ``RENDER_TEST_HOLD=<path>``, wait (up to 60 s) until that file
    exists: a test interrupts or kills a render at a known point, no race."""
    import time

    path = os.environ.get("RENDER_TEST_HOLD")
    deadline = time.monotonic() + 60
    while path and not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)


class PosterScene(TinyScene):
    """The same, with its poster frame 0.2 s in (only the title fading in)."""

    scene_id = "tiny_poster"
    poster_time: ClassVar[float] = 0.2


class LatePosterScene(TinyScene):
    """The same, with its poster frame 1.2 s in (the column half faded in); not registered."""

    scene_id = "tiny_late_poster"
    poster_time: ClassVar[float] = 1.2


class BrokenScene(TinyScene):
    """Fails after its first animation (a bug in a scene, mid-render)."""

    scene_id = "tiny_broken"

    def construct(self) -> None:
        title = caption("about to fail", self.theme, 28)
        self.play(FadeIn(title), run_time=0.3)
        raise RuntimeError("scene bug for the test")


class StepsScene(WalkthroughScene):
    """Two named steps after an unnamed opening, with sentences on screen.

    0-1 s: "the opening sentence here" (no step); step "Show the vector"
    1-2.5 s: the column fades in, the caption changes to "the context vector
    appears"; step "Final: softmax!" 2.5-3.5 s: a wait, then the caption goes.
    """

    scene_id = "tiny_steps"
    description = "Test scene: h_T in two named steps."
    trace_sections = ("sizes", "encoder.context")

    def construct(self) -> None:
        opening = caption("the opening sentence here", self.theme, 24).to_edge([0, 1, 0])
        self.play(FadeIn(opening), run_time=1.0)
        self.next_section("Show the vector")
        col = VectorColumn(self.trace.encoder.context, self.theme, key="encoder.context", label="h_T",
                           colour=self.theme.encoder)
        said = caption("the context vector appears", self.theme, 24).to_edge([0, -1, 0])
        self.play(FadeIn(col), FadeOut(opening), FadeIn(said), run_time=1.0)
        self.wait(0.5)
        self.next_section("Final: softmax!")
        self.play(FadeOut(said), run_time=0.5)
        self.wait(0.5)


def _latex_scene(n: int) -> type[WalkthroughScene]:
    class LatexScene(WalkthroughScene):
        scene_id = f"latex_{n}"
        description = f"Test scene {n}: several formulas."
        trace_sections = ("sizes",)

        def construct(self) -> None:
            nonce = _nonce()
            formulas = VGroup(*[
                MathTex(rf"s_{{{n}{k}}} = \frac{{{nonce}}}{{\sqrt{{{k + n}}}}}", color=self.theme.text)
                for k in range(3)
            ]).arrange(DOWN, buff=0.2)
            self.play(Write(formulas), run_time=0.3)
            self.add(MathTex(rf"\sum_{{i={n}}}^{{{nonce}}} x_i").next_to(formulas, RIGHT))

    LatexScene.__name__ = LatexScene.__qualname__ = f"LatexScene{n}"
    return LatexScene


LatexScene0, LatexScene1, LatexScene2, LatexScene3 = (_latex_scene(n) for n in range(4))
LATEX_SCENES = (LatexScene0, LatexScene1, LatexScene2, LatexScene3)
TEST_SCENES = (TinyScene, PosterScene, BrokenScene, StepsScene, *LATEX_SCENES)


def registry() -> dict[str, type[WalkthroughScene]]:
    return {cls.scene_id: cls for cls in TEST_SCENES}


def register() -> None:
    """Add the test scenes to SCENES (for a CLI run in a subprocess)."""
    SCENES.update(registry())
