"""Shared helpers for the tests: build scenes headless, read the screen back.

Every number a scene shows is a ``NumberLabel`` whose ``key`` is a path into
``trace.to_dict()`` (the JSON export): ``("encoder.hidden.3", 1)`` means
``to_dict()["encoder"]["hidden"][3][1]``. ``check_numbers`` resolves each key
in a trace computed independently by the test and compares the text on
screen with the core's value at the shown precision.
"""

from __future__ import annotations

import copy
import tempfile
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator

from manim import tempconfig

from attention_core import Trace, compute_trace, load_numbers, parse_numbers
from attention_core.numbers_file import default_numbers_text
from scenes import DARK, SCENES, Theme
from scenes.base import Timeline, WalkthroughScene
from scenes.theme import format_number


def speedup_off(module: Any) -> Iterator[None]:
    """The body of an autouse fixture: ``module``'s speedup (manim_speedups/__init__.py) off while
    the test runs, which installs it itself to compare; put back as it was afterwards."""
    was_on = module.installed()
    module.uninstall()
    yield
    module.uninstall()
    if was_on:
        module.install()


def default_data() -> dict[str, Any]:
    """The shipped numbers file as a dict, to be varied by a test."""
    return tomllib.loads(default_numbers_text())


def trace_from(data: dict[str, Any]) -> Trace:
    return compute_trace(parse_numbers(data, "<test>"))


def varied(**changes: Any) -> dict[str, Any]:
    """The default numbers with top-level tables updated, e.g.
    ``varied(sizes={"embedding": 8, "hidden": 2})``."""
    data = copy.deepcopy(default_data())
    for table, values in changes.items():
        if isinstance(values, dict) and isinstance(data.get(table), dict):
            data[table].update(values)
        else:
            data[table] = values
    return data


def _draw_nothing(*args: Any, **kwargs: Any) -> None:
    return None


def build_scene(scene_id: str, trace: Trace, theme: Theme = DARK, skip: bool = True,
                min_text_px: float | None = None, sample_transitions: bool = False,
                timeline: bool = False, observe: Callable[[WalkthroughScene], None] | None = None
                ) -> WalkthroughScene:
    """Run a scene headless (dry run, nothing written) with the audit on.

    ``skip=True`` jumps each animation to its end state, which is what the
    audit inspects; ``skip=False`` also steps through every frame.
    ``min_text_px`` turns on the audit's legibility floor (pixels at 480p);
    ``sample_transitions`` makes it look halfway through every animation too;
    ``timeline`` records the captions' times (``scene.timeline``) for the
    pacing rules (``scene.pacing_faults()``). ``observe(scene)`` is called
    after every audit snapshot (to record what was on screen then).
    """
    with tempfile.TemporaryDirectory() as media, tempconfig({
        "dry_run": True, "quality": "low_quality", "verbosity": "ERROR",
        "progress_bar": "none", "media_dir": media, "disable_caching": True,
    }):
        scene = SCENES[scene_id](trace, theme, audit=True, skip_animations=skip)
        if skip:
            # Nothing reads the pixels of a skipped dry run (the audit reads the mobjects):
            # do not draw the still part of each play with cairo (a tenth of a build).
            scene.renderer.update_frame = _draw_nothing
        scene.audit.min_text_px = min_text_px
        scene.audit.sample_transitions = sample_transitions
        if timeline:
            scene.timeline = Timeline()
        if observe is not None:
            def snapshot_and_observe() -> None:
                WalkthroughScene._snapshot(scene)
                observe(scene)

            scene._snapshot = snapshot_and_observe  # the audit calls self._snapshot()
        scene.render()
    return scene


def resolve(data: dict[str, Any], key: tuple) -> Any:
    """The value at a NumberLabel key in ``trace.to_dict()``."""
    path, *indices = key
    node: Any = data
    for part in path.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    for i in indices:
        node = node[i]
    return node


def check_numbers(scene: WalkthroughScene, independent: Trace) -> int:
    """Assert every keyed number on screen equals the core's, as shown.

    Returns how many numbers were checked (so callers can require some).
    """
    assert scene.audit is not None
    data = independent.to_dict()
    checked = 0
    for shown in scene.audit.numbers:
        assert shown.key is not None, f"a number on screen has no key: {shown.shown!r}"
        expected = resolve(data, shown.key)
        # A number too wide for its cell at the smallest readable size drops
        # decimals (components.fitted_number); it must still round the core's value.
        decimals = scene.theme.decimals if shown.decimals is None else shown.decimals
        want = format_number(float(expected), decimals)
        assert shown.shown == want, f"{shown.key}: screen shows {shown.shown}, core says {want}"
        checked += 1
    return checked


def shown_keys(scene: WalkthroughScene) -> set[tuple]:
    assert scene.audit is not None
    return {n.key for n in scene.audit.numbers}


def check_scene(scene: WalkthroughScene, independent: Trace, expected: set[tuple] = frozenset()) -> set[tuple]:
    """The checks every scene test makes; returns the keys shown.

    No layout fault; every number on screen equals ``independent``'s at the
    shown precision (and there are some); every ``expected`` key was shown;
    every shown key lies in a section the scene declares (the render cache
    hashes exactly those).
    """
    assert scene.audit.faults == []
    assert check_numbers(scene, independent) > 0
    shown = shown_keys(scene)
    missing = set(expected) - shown
    assert not missing, sorted(missing)[:5]
    sections = type(scene).trace_sections
    for key in shown:
        assert any(key[0] == s or key[0].startswith(s + ".") for s in sections), key
    return shown


def load_default_trace() -> Trace:
    return compute_trace(load_numbers())


#: The legibility floor of the pacing tests: capitals at least this many pixels tall at 480p (issue 31;
#: 12 px since issue 13).
MIN_TEXT_PX = 14.0


@dataclass
class Observed:
    """One headless build of a scene on the default numbers with every check on (the
    legibility floor, a look halfway through every animation, the captions' timeline),
    and what was on screen at each snapshot: ``texts`` (every text and formula as
    written, numbers excluded) and ``labels`` (text, is it a formula, the fill colours
    of its visible glyphs). Built once per test process and shared by the tests that
    read the default build: pacing, role colours, continuity, notation, and the tests of one
    scene marked ``default_build("scene")`` (tests/conftest.py groups them onto one process)."""

    scene: WalkthroughScene
    texts: set[str] = field(default_factory=set)
    labels: dict[tuple[str, bool], set[str]] = field(default_factory=dict)


def record_screen(scene: WalkthroughScene, texts: set[str],
                  labels: dict[tuple[str, bool], set[str]] | None = None) -> None:
    """Add what ``scene`` shows now to ``texts`` (every text and formula as written, numbers
    excluded) and, if given, to ``labels`` ((text, is it a formula) -> the fill colours of its
    visible glyphs)."""
    from manim import MathTex, SingleStringMathTex, Tex, Text

    from scenes.components import NumberLabel

    for top in scene.mobjects:
        for m in top.get_family():
            if isinstance(m, NumberLabel):
                continue
            if isinstance(m, Text):
                written, tex = m.original_text, False
            elif isinstance(m, (MathTex, SingleStringMathTex, Tex)):
                written, tex = getattr(m, "tex_string", ""), True
            else:
                continue
            texts.add(written)
            if labels is None:
                continue
            # A formula typeset from pieces (MathTex("c_t", "=", ...)): each piece is read as a label
            # too, so a symbol inside a formula keeps its role's colour as one alone does.
            pieces = list(zip(m.tex_strings, m.submobjects)) if isinstance(m, MathTex) and len(m.tex_strings) > 1 else []
            for piece_written, part in [(written, m), *pieces]:
                glyphs = [g for g in part.family_members_with_points() if g.get_fill_opacity() > 0.02]
                if glyphs:
                    labels.setdefault((piece_written, tex), set()).update(
                        g.get_fill_color().to_hex().upper() for g in glyphs)


@lru_cache(maxsize=None)  # per test process (all 17 builds held in one process: 872 MB peak)
def observed_default(scene_id: str, theme_name: str = "dark") -> Observed:  # call with both arguments
    from scenes import THEMES

    texts: set[str] = set()
    labels: dict[tuple[str, bool], set[str]] = {}
    scene = build_scene(scene_id, load_default_trace(), THEMES[theme_name], min_text_px=MIN_TEXT_PX,
                        sample_transitions=True, timeline=True,
                        observe=lambda shown: record_screen(shown, texts, labels))
    return Observed(scene, texts, labels)


def strip_geometry(scene: WalkthroughScene, strip: Any) -> list[tuple[float, ...]]:
    """Where the chips and names of a strip of encoder states (``components.StateStrip``) are,
    as boxes (x0, y0, x1, y1) per chip then per name, asserting each is on screen and visible:
    what a reader sees of the strip at that moment."""
    import numpy as np

    on_screen = scene.get_mobject_family_members()
    out: list[tuple[float, ...]] = []
    for part in strip:
        for mob in part:
            assert mob in on_screen, "a chip of the strip is not on screen"
            assert max(float(m.get_stroke_opacity()) for m in mob.family_members_with_points()) > 0.5
            lo, hi = mob.get_corner(np.array([-1, -1, 0])), mob.get_corner(np.array([1, 1, 0]))
            out.append((float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])))
    return out
