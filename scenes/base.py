"""The base class of every walkthrough scene, its pacing rules, and the layout audit.

A scene is given a :class:`~attention_core.Trace` and a :class:`Theme`; it
lays out and animates those values and computes nothing itself. With
``audit=True`` it records, after every ``play`` and ``wait``, each number on
screen and every layout fault (something outside the frame, texts that
overlap), so that headless tests can check what a viewer would see.

**Pacing rules** (a clip is read, not only watched; :meth:`WalkthroughScene.pacing_faults`
checks them on the recorded timeline, ``tests/test_pacing.py`` for every scene):

- a caption stays on screen at least 1 s per 3 words (:func:`reading_time`);
- after each result (a score, the weights, a context, the chosen word) the
  picture stays still at least :data:`RESULT_PAUSE` s
  (:meth:`WalkthroughScene.pause_on_result`);
- the first frame already shows the title (added, not faded in from black);
- the last frame, a complete figure that serves as the poster, is held at
  least :data:`FINAL_HOLD` s, so a looping clip or gif rests on it;
- the picture never goes blank (:data:`BLANK_SHAPES`), and no group fades
  out and back unchanged within :data:`BLINK_SECONDS` (``Audit.motion_faults``);
- a value reused elsewhere *travels* there (``scenes/motion.py``): a whole
  cell, row or column may move rigidly with its digits legible (``slide``,
  looked at by the audit at 1/4, 1/2 and 3/4 of the move), or its boxes fly
  while its digits fade out at the source and in at the target (``fly``,
  ``hand_off``). This replaces the old "no digits in flight": what stays
  forbidden is a number morphing into another, digits scaled under the floor
  in flight, and a moving text crossing another.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterator

import numpy as np
from manim import MathTex, Mobject, Scene, SingleStringMathTex, Tex, Text, VGroup, VMobject, Wait, config

from attention_core import Trace

from .components import NumberLabel, caption_in, declared_reading, caption_out, fade_in, restore_faded, step_caption, \
    text_leaves, \
    STEP_CAPTION_SIZE, STEP_CAPTION_Y
from .theme import DARK, Theme

__all__ = ["WalkthroughScene", "Audit", "ShownNumber", "Step", "Cue", "Timeline", "text_height_px",
           "BLINK_SECONDS", "BLANK_SHAPES", "SPARSE_HEIGHT",
           "CaptionPacer", "reading_time", "WORDS_PER_SECOND", "RESULT_PAUSE", "FINAL_HOLD",
           "Clarity", "clarity_of", "numbers_in", "LEGIBLE_MEDIAN", "LEGIBLE_MAX", "CLOSE_UP_SHARE",
           "FINAL_HOLD_MAX", "FROZEN_MAX", "RETURN_SECONDS", "TEXT_FLOOR_PX", "EDGE_MARGIN",
           "SAFE_EDGE", "SAFE_EDGE_TEXT"]

#: A caption stays on screen at least one second per this many words.
WORDS_PER_SECOND = 3.0
#: Seconds the picture stays still after each result.
RESULT_PAUSE = 1.0
#: Seconds the last frame (the poster) is held.
FINAL_HOLD = 4.0
#: Slack for whole frames (a wait is rounded to frames; 1/15 s at 480p15).
_FRAME_SLACK = 0.07


def reading_time(text: str) -> float:
    """Seconds a caption of ``text`` must stay on screen: 1 s per 3 words."""
    return len(text.split()) / WORDS_PER_SECOND

#: A group that goes and comes back unchanged within this many seconds blinks.
BLINK_SECONDS = 1.5
#: A group back within this distance (frame units) of where it went is back in its place.
BLINK_SAME_PLACE = 0.5
#: Fewer visible shapes and numbers than this (title and captions aside): a blank picture.
BLANK_SHAPES = 3
#: Texts above this line are the title band (a blank picture may keep its title).
TITLE_BAND_Y = 2.9
#: A picture at rest whose clearly visible content (opacity >= :data:`SPARSE_OPACITY`; the
#: title band and the captions aside) spans less than this height (frame units, of 8) is
#: nearly empty: a row of words alone, or a dimmed frame (``Audit.sparse_at``).
SPARSE_HEIGHT = 1.5
SPARSE_OPACITY = 0.5

FRAME_TOLERANCE = 0.02
OVERLAP_TOLERANCE = 0.02

# -- clarity (STYLE.md §4, issue 31): what a reader can take in at once -------------------------
#: Legible numbers on screen at once: at most this many in the median moment of a clip
#: (time-weighted, the close-up aside) ...
LEGIBLE_MEDIAN = 16
#: ... and never more than this many outside the clip's one close-up (:meth:`WalkthroughScene.close_up`).
LEGIBLE_MAX = 24
#: The close-up, where digits may crowd, takes at most this share of the clip.
CLOSE_UP_SHARE = 0.2
#: The last picture (the poster) is held between FINAL_HOLD and this many seconds.
FINAL_HOLD_MAX = 8.0
#: No stretch without motion longer than this before the final hold.
FROZEN_MAX = 8.0
#: A group that fades out and comes back, unchanged and in its place, within this many seconds
#: left the stage to come back (a blink is the same within :data:`BLINK_SECONDS`).
RETURN_SECONDS = 30.0
#: Every text (labels, subscripts, notes included) at least this many pixels tall at 480p.
TEXT_FLOOR_PX = 14.0
#: Texts keep at least this far (frame units; 480p: 60 px a unit) from the frame's edges.
EDGE_MARGIN = 0.1
#: The frame's safe edge: layouts keep what they draw within x = -SAFE_EDGE..SAFE_EDGE. The frame
#: ends at +-7.11 and the audit wants texts EDGE_MARGIN inside it (+-7.01): 0.11 is left for a
#: stroke's width or a rounding.
SAFE_EDGE = 6.9
#: A few text fits reach 0.05 further, still 0.06 inside EDGE_MARGIN: attention_process's
#: explanation panel, names and source words, dot_product's u label, word_embeddings' shape note
#: and vector heading, seq2seq_overview's written words and headers. Their shrink and cut points
#: were set against this edge; moving them in to SAFE_EDGE would shrink or cut words that fit today.
SAFE_EDGE_TEXT = 6.95
#: A number is legible when its glyphs are at least this opaque and no veil covers it.
LEGIBLE_OPACITY = 0.5
#: A background-coloured rectangle at least this opaque, drawn over a text, veils it.
VEIL_OPACITY = 0.5
#: Height of a capital letter per point of font size, in frame units
#: (measured: Text("H") in DejaVu Sans and MathTex("H"), at 48 points).
TEXT_CAP_PER_POINT = 0.0101237
TEX_CAP_PER_POINT = 0.0070880


@dataclass(frozen=True)
class ShownNumber:
    key: tuple | None
    value: float
    shown: str
    decimals: int | None = None  # None: the theme's; fewer where a cell was too narrow


@dataclass
class Audit:
    """What a viewer saw: every number shown and every layout fault."""

    numbers: list[ShownNumber] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    snapshots: int = 0
    #: Legibility floor: a visible text whose capital letters are shorter than
    #: this many pixels, at the render's resolution (480p: the frame's 8 units
    #: are 480 px), is a fault. ``None``: not checked.
    min_text_px: float | None = None
    #: Also look at every animation halfway through, not only at its end
    #: (texts that cross while moving; captions that swap).
    sample_transitions: bool = False
    #: Times (s) of snapshots where the picture showed nothing but its title
    #: and captions: a blank moment (:data:`BLANK_SHAPES`).
    blank_at: list[float] = field(default_factory=list)
    #: Times (s) of snapshots at rest (after a play or a wait, not a look inside a transition)
    #: where the picture was nearly empty (:data:`SPARSE_HEIGHT`): a dimmed frame, a lone row.
    #: Recorded, not yet a fault for every scene (the scenes that test it: ``bottleneck``).
    sparse_at: list[float] = field(default_factory=list)
    #: ``(what, gone_at, back_at)``: a text or number that left and came back
    #: unchanged, in the same place, within :data:`BLINK_SECONDS`.
    blinks: list[tuple[str, float, float]] = field(default_factory=list)
    #: Signature of what is visible -> time last seen / time first seen gone.
    #: ``(what, gone_at, back_at)``: a group that left and came back unchanged, in its place,
    #: within :data:`RETURN_SECONDS` (the blinks included): the stage was cleared and rebuilt.
    returns: list[tuple[str, float, float]] = field(default_factory=list)
    #: ``(time, legible numbers, in the close-up)`` at every snapshot at rest (:func:`numbers_in`).
    legible: list[tuple[float, int, bool]] = field(default_factory=list)
    #: The smallest text seen: ``(pixels at the render's height, what, time)``.
    smallest_text: tuple[float, str, float] | None = None
    #: Texts seen closer than :data:`EDGE_MARGIN` to the frame's edge: ``(what, time)``.
    near_edge: list[tuple[str, float]] = field(default_factory=list)
    _seen: dict[tuple, Any] = field(default_factory=dict, repr=False)
    _gone: dict[tuple, tuple] = field(default_factory=dict, repr=False)

    def motion_faults(self) -> list[str]:
        """The blank moments and the blinks, as faults (one line each)."""
        out = [f"the picture is blank at {t:.2f} s (nothing but the title and captions)" for t in self.blank_at]
        out += [f"{what} fades out at {a:.2f} s and back, unchanged, at {b:.2f} s" for what, a, b in self.blinks]
        return out

    def by_key(self) -> dict[tuple, ShownNumber]:
        return {n.key: n for n in self.numbers if n.key is not None}


def _visible(mob: Mobject) -> bool:
    try:
        fill = mob.get_fill_opacity()
        stroke = mob.get_stroke_opacity()
    except (AttributeError, IndexError):
        return True
    return max(float(fill), float(stroke)) > 0.02


def _shown(text: Mobject) -> bool:
    """Whether a text or formula can be seen: its glyphs are asked, not the
    object itself (a formula's own fill is transparent, and fades
    (``components._Fade``) change the glyphs' opacity, not the text's)."""
    return any(_visible(m) for m in _with_points(text))


#: What the audit snapshot under way has already worked out, by (what, id): a mobject's box, its
#: family, a text's height. The frame check, the overlap check, the continuity watch, the clarity
#: measures and the veils each ask them of every group on screen, and nothing moves within a
#: snapshot. None outside a snapshot.
_snapshot_memo: dict[tuple[str, int], Any] | None = None


def _once_per_snapshot(what: str, mob: Mobject, compute: Callable[[Mobject], Any]) -> Any:
    """``compute(mob)``, worked out once per audit snapshot (every time outside one)."""
    memo = _snapshot_memo
    if memo is None:
        return compute(mob)
    key = (what, id(mob))
    if key not in memo:
        memo[key] = compute(mob)
    return memo[key]


def _family(mob: Mobject) -> list[Mobject]:
    """``mob.get_family()``, listed once per audit snapshot."""
    return _once_per_snapshot("family", mob, lambda m: m.get_family())


def _with_points(mob: Mobject) -> list[Mobject]:
    """``mob.family_members_with_points()``, from :func:`_family`."""
    return [m for m in _family(mob) if len(m.points)]


def _bounds(mob: Mobject) -> tuple[np.ndarray, np.ndarray] | None:
    """The lower-left and upper-right corners of ``mob``'s bounding box, from the same
    points Manim's ``get_corner`` reads (a VMobject's curve anchors over its family, any
    other mobject's points), without its per-call generators: the audit asks this of every
    shown mobject at every snapshot, and Manim's path was most of a headless build's time.
    ``None`` when there is no point (Manim then answers the origin)."""
    return _once_per_snapshot("bounds", mob, _bounds_now)


def _bounds_now(mob: Mobject) -> tuple[np.ndarray, np.ndarray] | None:
    if isinstance(mob, VMobject):
        parts = []
        for sm in (_family(mob) if mob.submobjects else (mob,)):
            pts = sm.points
            if len(pts) == 0:
                continue
            if len(pts) == 1:
                parts.append(pts)
                continue
            n = sm.n_points_per_cubic_curve
            parts.append(pts[::n])       # start anchors
            parts.append(pts[n - 1::n])  # end anchors
    else:
        parts = [m.points for m in (_family(mob) if mob.submobjects else (mob,)) if len(m.points)]
    if not parts:
        return None
    points = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return points.min(axis=0), points.max(axis=0)


def _box(mob: Mobject) -> tuple[float, float, float, float]:
    bounds = _bounds(mob)
    if bounds is None:
        return 0.0, 0.0, 0.0, 0.0
    lo, hi = bounds
    return lo[0], lo[1], hi[0], hi[1]


def _centre(mob: Mobject) -> np.ndarray:
    """``mob.get_center()``, by :func:`_bounds`."""
    bounds = _bounds(mob)
    return np.zeros(3) if bounds is None else (bounds[0] + bounds[1]) / 2


def text_height_px(mob: Mobject) -> float | None:
    """Height of a capital letter of ``mob`` on screen, in pixels at the
    current resolution, from its font size as scaled now; ``None`` for an
    empty text."""
    if not getattr(mob, "initial_height", 0) or mob.height <= 0:
        return None  # an empty text, or one that is not a Text or formula
    size = float(mob.font_size)  # follows every scale applied since it was made
    per_point = TEXT_CAP_PER_POINT if isinstance(mob, Text) else TEX_CAP_PER_POINT
    return size * per_point * config.pixel_height / config.frame_height


def _height_px(text: Mobject) -> float | None:
    """:func:`text_height_px`, once per audit snapshot (the floor and the clarity measures ask it)."""
    return _once_per_snapshot("height", text, text_height_px)


def _overlapping_pairs(boxes: list[tuple[float, float, float, float]]) -> list[tuple[int, int]]:
    """The pairs ``i < j`` of boxes (x0, y0, x1, y1) that overlap by more than
    :data:`OVERLAP_TOLERANCE` both across and up, in the order of a double loop; all
    pairs at once (hundreds of texts at every snapshot)."""
    if len(boxes) < 2:
        return []
    b = np.array(boxes, dtype=float)
    across = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0])
    up = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
    hits = np.triu((across > OVERLAP_TOLERANCE) & (up > OVERLAP_TOLERANCE), 1)
    return [(int(i), int(j)) for i, j in np.argwhere(hits)]


def _describe(mob: Mobject) -> str:
    text = getattr(mob, "shown", None) or getattr(mob, "text", None) or getattr(mob, "tex_string", None)
    return f"{type(mob).__name__}({text!r})" if text else type(mob).__name__


@dataclass
class Step:
    """A named part of a scene (``self.next_section(name)``), in seconds of the clip."""

    name: str
    start: float
    end: float | None = None


@dataclass(frozen=True)
class Cue:
    """An on-screen caption: its text and when it was on screen."""

    text: str
    start: float
    end: float
    #: Where it was on screen (top edge, left edge): orders the lines of cues shown together.
    at: tuple[float, float] = (0.0, 0.0)


#: Sentences on screen (at least this many words) are captions; shorter
#: texts are labels (``h_3``, ``source words``) that a caption file skips.
CAPTION_MIN_WORDS = 3


@dataclass
class Timeline:
    """When each caption appeared and went, recorded while the scene plays."""

    cues: list[Cue] = field(default_factory=list)
    shown: dict[str, tuple[float, tuple[float, float]]] = field(default_factory=dict)  # text -> (since, at)

    def update(self, visible: dict[str, tuple[float, float]], appeared_at: float, gone_at: float) -> None:
        for text in visible.keys() - self.shown.keys():
            self.shown[text] = (appeared_at, visible[text])
        for text in set(self.shown) - visible.keys():
            since, at = self.shown.pop(text)
            self.cues.append(Cue(text, since, gone_at, at))

    def close(self, at: float) -> None:
        self.update({}, at, at)

    def captions(self) -> list[Cue]:
        """The cues in order of appearance (flickers under 50 ms dropped).

        Sentences shown and gone together (a caption wrapped over several
        lines, each its own Text) are one cue, its lines top to bottom.
        """
        groups: dict[tuple[float, float], list[Cue]] = {}
        for cue in self.cues:
            if cue.end - cue.start > 0.05:
                groups.setdefault((round(cue.start, 3), round(cue.end, 3)), []).append(cue)
        merged = []
        for (start, end), cues in groups.items():
            cues.sort(key=lambda c: (-c.at[0], c.at[1]))
            merged.append(Cue("\n".join(c.text for c in cues), cues[0].start, cues[0].end, cues[0].at))
        return sorted(merged, key=lambda c: (c.start, -c.at[0], c.at[1], c.end))


def caption_texts(mobjects: list[Mobject]) -> dict[str, tuple[float, float]]:
    """Visible sentences among ``mobjects`` and where (top, left); the same words twice are one.

    A sentence is a :class:`Text` of at least :data:`CAPTION_MIN_WORDS` words, or a group
    that says what it reads in a ``text`` string (a line of words and numbers, a wrapped
    paragraph): the group is then one sentence, its numbers in it.
    """
    found: dict[str, tuple[float, float]] = {}

    def add(text: str, mob: Mobject) -> None:
        if len(text.split()) >= CAPTION_MIN_WORDS:
            x0, _, _, y1 = _box(mob)
            found.setdefault(text, (round(float(y1), 2), round(float(x0), 2)))

    todo = list(reversed(mobjects))
    while todo:
        mob = todo.pop()
        said = declared_reading(mob)
        if isinstance(mob, Text):
            if _visible(mob):
                add(" ".join(str(getattr(mob, "original_text", "") or "").split()), mob)
        elif said is not None:
            # A line composed of parts (words, numbers, names) says what it reads in ``text``:
            # it is one caption, numbers included, and its parts are not read again.
            if any(isinstance(m, Text) and _visible(m) for m in _family(mob)):
                add("\n".join(" ".join(line.split()) for line in said.splitlines() if line.strip()), mob)
        else:
            todo.extend(reversed(mob.submobjects))
    return found


def _one_number(mob: Mobject) -> bool:
    """A number, alone or in its cell (a box, a degree sign), and no words."""
    if isinstance(mob, NumberLabel):
        return True
    if isinstance(mob, Text) or declared_reading(mob) is not None:
        return False
    family = _family(mob)
    words = [m for m in family if isinstance(m, Text) and not isinstance(m, NumberLabel)
             and any(c.isalpha() for c in m.original_text)]
    return sum(isinstance(m, NumberLabel) for m in family) == 1 and not words


def _numbers_read_apart(top: Mobject) -> list[str]:
    """Lines where a sentence and a number sit side by side with no ``text`` saying how the
    line reads: the caption file (:func:`caption_texts`) would keep the words, drop the number."""
    faults = []
    todo = [top]
    while todo:
        mob = todo.pop()
        if isinstance(mob, Text) or declared_reading(mob) is not None:
            continue  # a text, or a line read whole
        # Sentences first: few groups hold one, and only theirs need the costlier number test.
        sentences = [m for m in mob.submobjects if isinstance(m, Text) and not isinstance(m, NumberLabel)
                     and len(m.original_text.split()) >= CAPTION_MIN_WORDS and _shown(m)]
        numbers = [m for m in mob.submobjects if _one_number(m) and _shown(m)] if sentences else []
        if numbers and sentences:
            shown = [m for m in numbers[0].get_family() if isinstance(m, NumberLabel)][0].shown
            faults.append(f"a number read apart from its sentence: {sentences[0].original_text!r} "
                          f"beside {shown} (the line needs a text saying how it reads)")
        todo.extend(mob.submobjects)
    return faults


def _sample_points(animations: list[Any]) -> list[float]:
    """Fractions of a ``play`` at which the audit looks: the middle, and for a
    move that carries text (``audit_samples``, ``scenes/motion.py``) its
    quarters, scaled to where it runs within the play."""
    total = max((a.get_run_time() for a in animations), default=0.0) or 1.0
    points = {0.5}
    todo = [(a, 0.0) for a in animations]
    while todo:
        anim, start = todo.pop()
        for f in getattr(anim, "audit_samples", ()):
            points.add(round((start + f * anim.get_run_time()) / total, 4))
    return sorted(p for p in points if 0.0 < p < 1.0)


class WalkthroughScene(Scene):
    """Base of all scenes: holds the trace, the theme and the audit.

    Subclasses set ``scene_id``, ``description`` and ``trace_sections`` and implement
    ``construct``. Builders return mobjects and animations; ``construct``
    plays them.
    """

    scene_id: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: Dotted paths into ``Trace.to_dict()`` of everything the scene shows or
    #: lays out from; the render cache and the per-scene number export use them.
    trace_sections: ClassVar[tuple[str, ...]] = ()
    #: Seconds into the clip of the still (png) and the video's poster;
    #: ``None`` means the last frame.
    poster_time: ClassVar[float | None] = None
    #: The kinds of result the scene shows ("score", "weights", "context",
    #: "word", ...): each is paused on (:meth:`pause_on_result`) at least once.
    shown_results: ClassVar[tuple[str, ...]] = ()

    def __init__(self, trace: Trace, theme: Theme = DARK, audit: bool = False, **kwargs: Any) -> None:
        self.trace = trace
        self.theme = theme
        self.audit: Audit | None = Audit() if audit else None
        #: Named steps (``self.next_section(name)``), in order; the content
        #: before the first named section is no step.
        self.named_steps: list[Step] = []
        #: Called with each step when it ends, while the scene shows its
        #: last frame (the render pipeline saves the step's stills there).
        self.on_step_end: Callable[[Step], None] | None = None
        #: Set by the render pipeline (and the pacing tests) to record the captions' times.
        self.timeline: Timeline | None = None
        #: (start, end) of every animation that moves something (waits excluded).
        self.motion: list[tuple[float, float]] = []
        #: (what, when) of every :meth:`pause_on_result`.
        self.result_marks: list[tuple[str, float]] = []
        #: The texts visible in the clip's first frame (``None`` before it).
        self.opening_texts: list[str] | None = None
        #: ``(what, from_key, to_key)`` of every shared move played (``scenes/motion.py``).
        self.moves: list[tuple[Any, Any, Any]] = []
        #: ``(what, start, end)`` of the clip's close-up (:meth:`close_up`); one per clip.
        self.close_ups: list[tuple[str, float, float]] = []
        self._close_up_from: float | None = None
        super().__init__(**kwargs)

    # -- steps and captions ---------------------------------------------------

    def next_section(self, name: str = "unnamed", *args: Any, **kwargs: Any) -> None:
        self._end_step()
        super().next_section(name, *args, **kwargs)
        self.named_steps.append(Step(name, self.renderer.time))

    def _end_step(self) -> None:
        if self.named_steps and self.named_steps[-1].end is None:
            self.named_steps[-1].end = self.renderer.time
            if self.on_step_end is not None:
                self.on_step_end(self.named_steps[-1])

    def tear_down(self) -> None:
        super().tear_down()
        self._end_step()
        if self.timeline is not None:
            self.timeline.close(self.renderer.time)

    # -- pacing ----------------------------------------------------------------

    def pause_on_result(self, what: str, seconds: float = RESULT_PAUSE) -> None:
        """Hold the picture still after a result (``what``: "scores", "weights", ...)."""
        self.result_marks.append((what, float(self.renderer.time)))
        self.wait(seconds)

    def hold_final(self, seconds: float = FINAL_HOLD) -> None:
        """Hold the last frame, the poster, for ``seconds``."""
        self.wait(seconds)

    def pacing_faults(self) -> list[str]:
        """Where the recorded clip breaks the pacing rules (module docstring).

        Captions are checked only when a :class:`Timeline` was recorded.
        """
        faults: list[str] = []
        end = float(self.renderer.time)
        if not self.opening_texts:
            faults.append("the first frame shows no text (add the title, do not fade it in from black)")
        last_motion = max((e for _, e in self.motion), default=0.0)
        if end - last_motion < FINAL_HOLD - _FRAME_SLACK:
            faults.append(f"the last frame is held {end - last_motion:.2f} s (rule: {FINAL_HOLD:g} s)")
        marked = {what for what, _ in self.result_marks}
        for what in self.shown_results:
            if what not in marked:
                faults.append(f"the result '{what}' is never paused on")
        for what, at in self.result_marks:
            nxt = min((s for s, _ in self.motion if s >= at - 1e-9), default=end)
            if nxt - at < RESULT_PAUSE - _FRAME_SLACK:
                faults.append(f"the result '{what}' at {at:.2f} s is still for {nxt - at:.2f} s "
                              f"(rule: {RESULT_PAUSE:g} s)")
        if self.timeline is not None:
            for cue in self.timeline.captions():
                if cue.end - cue.start < reading_time(cue.text) - _FRAME_SLACK:
                    faults.append(f"caption {cue.text[:50]!r} shown {cue.end - cue.start:.2f} s "
                                  f"(rule: {reading_time(cue.text):.2f} s for {len(cue.text.split())} words)")
        return faults

    def add(self, *mobjects: Mobject) -> "WalkthroughScene":
        """Add ``mobjects``; one faded out before (``components.fade_out``) and added again by
        name is wanted on screen: it gets back its look (the parts it holds that were faded
        out on their own stay out)."""
        for mob in mobjects:
            restore_faded(mob)
        return super().add(*mobjects)

    # -- the audit ---------------------------------------------------------

    def play(self, *args: Any, **kwargs: Any) -> None:
        start = self.renderer.time
        if self.opening_texts is None:
            self.opening_texts = [str(getattr(m, "original_text", "")) for top in self.mobjects
                                  for m in top.get_family() if isinstance(m, Text) and _visible(m)]
        if self.timeline is not None:
            self.timeline.update(caption_texts(self.mobjects), start, start)
        super().play(*args, **kwargs)
        if not all(isinstance(a, Wait) for a in args):
            self.motion.append((float(start), float(self.renderer.time)))
        if self.timeline is not None:
            # Appeared during the animation: shown from its start; gone: until its end.
            self.timeline.update(caption_texts(self.mobjects), start, self.renderer.time)
        self._snapshot()

    def wait(self, *args: Any, **kwargs: Any) -> None:
        super().wait(*args, **kwargs)
        self._snapshot()

    def play_internal(self, skip_rendering: bool = False) -> None:
        if (self.audit is not None and self.audit.sample_transitions and self.animations
                and not all(isinstance(a, Wait) for a in self.animations)):
            # Halfway through, then on as usual: update_to_time is absolute in
            # the animations' progress, and the updaters' dt still sum to the run time.
            duration = self.get_run_time(self.animations)
            # Skipped animations have already added their run time to the clock; drawn ones not yet.
            start = float(self.renderer.time) - (duration if self.renderer.skip_animations else 0.0)
            for at in _sample_points(self.animations):
                self.update_to_time(duration * at)
                # The clip's time of this look (tests wrap _snapshot(self) without arguments).
                self._audit_now = start + duration * at
                self._snapshot()
            self._audit_now = None
        super().play_internal(skip_rendering)

    def _watch_continuity(self, now: float) -> None:
        """Record blank moments and blinks (``Audit.blank_at``, ``Audit.blinks``)."""
        audit = self.audit
        seen, shapes = _signatures(self.mobjects)
        if audit.snapshots > 1 and shapes < BLANK_SHAPES and now > 0:
            audit.blank_at.append(round(now, 2))
        if getattr(self, "_audit_now", None) is None and audit.snapshots > 1 and now > 0 \
                and _content_height(self.mobjects) < SPARSE_HEIGHT:
            audit.sparse_at.append(round(now, 2))
        for sig, where in seen.items():
            gone = audit._gone.pop(sig, None)
            # Back within the time, every text where it was: a blink. Elsewhere it travelled (a
            # hand-off, a flight: its digits fade at both ends on purpose), and so did a table
            # whose numbers traded cells (1.00 from one cell to another, 0.00 back).
            if gone is not None and now - gone[0] <= RETURN_SECONDS + 1e-6 \
                    and float(np.max(np.linalg.norm(where - gone[1], axis=-1))) < BLINK_SAME_PLACE:
                what = " ".join(sig[:4]) + (" ..." if len(sig) > 4 else "")
                audit.returns.append((what, gone[0], round(now, 2)))
                if now - gone[0] <= BLINK_SECONDS + 1e-6:
                    audit.blinks.append((what, gone[0], round(now, 2)))
            audit._seen[sig] = where
        for sig in list(audit._seen):
            if sig not in seen:
                audit._gone.setdefault(sig, (round(now, 2), audit._seen[sig]))
                del audit._seen[sig]

    def _snapshot(self) -> None:
        global _snapshot_memo
        if self.audit is None:
            return
        _snapshot_memo = {}
        try:
            self._look()
        finally:
            _snapshot_memo = None

    def _look(self) -> None:
        """One audit snapshot (:meth:`_snapshot`)."""
        self.audit.snapshots += 1
        at = getattr(self, "_audit_now", None)
        self._watch_continuity(float(self.renderer.time) if at is None else at)
        half_w, half_h = config.frame_width / 2, config.frame_height / 2
        texts: list[Mobject] = []
        for top in self.mobjects:
            family = _family(top)
            for mob in family:
                if isinstance(mob, NumberLabel) and _visible(mob):
                    self.audit.numbers.append(ShownNumber(mob.key, mob.value, mob.shown, mob.decimals))
            if _inside_frame(family, half_w, half_h):
                family = []  # every member's box is a union of boxes inside the frame: nothing to report
            for mob in family:
                if not len(mob.points) or not _visible(mob):
                    continue
                x0, y0, x1, y1 = _box(mob)
                if (x0 < -half_w - FRAME_TOLERANCE or x1 > half_w + FRAME_TOLERANCE
                        or y0 < -half_h - FRAME_TOLERANCE or y1 > half_h + FRAME_TOLERANCE):
                    fault = f"outside the frame: {_describe(mob)} at ({x0:.2f},{y0:.2f})-({x1:.2f},{y1:.2f})"
                    if fault not in self.audit.faults:
                        self.audit.faults.append(fault)
            texts.extend(t for t in text_leaves(top) if _shown(t))
            for fault in _numbers_read_apart(top):
                if fault not in self.audit.faults:
                    self.audit.faults.append(fault)
        if at is None:
            self._look_at_clarity(texts, float(self.renderer.time), half_w, half_h)
        floor = self.audit.min_text_px
        if floor is not None:
            for t in texts:
                px = _height_px(t)
                if px is not None and px < floor - 1e-6:
                    fault = f"text too small: {_describe(t)} is {px:.1f} px tall (floor {floor:g} px)"
                    if fault not in self.audit.faults:
                        self.audit.faults.append(fault)
        for i, j in _overlapping_pairs([_box(t) for t in texts]):
            fault = f"texts overlap: {_describe(texts[i])} and {_describe(texts[j])}"
            if fault not in self.audit.faults:
                self.audit.faults.append(fault)


    def _look_at_clarity(self, texts: list[Mobject], now: float, half_w: float, half_h: float) -> None:
        """Record the clarity measures of this moment at rest (:class:`Clarity`)."""
        audit = self.audit
        veils = _veils(self.mobjects, self.theme.background)
        order = {id(m): i for i, m in enumerate(m for top in self.mobjects for m in _family(top))}
        count = 0
        for t in texts:
            opacity = max((max(float(g.get_fill_opacity()), float(g.get_stroke_opacity()))
                           for g in _with_points(t)), default=0.0)
            x0, y0, x1, y1 = _box(t)
            if opacity >= LEGIBLE_OPACITY:
                px = _height_px(t)
                if px is not None and (audit.smallest_text is None or px < audit.smallest_text[0] - 1e-9):
                    audit.smallest_text = (round(px, 2), _describe(t), round(now, 2))
                if (x0 < -half_w + EDGE_MARGIN or x1 > half_w - EDGE_MARGIN
                        or y0 < -half_h + EDGE_MARGIN or y1 > half_h - EDGE_MARGIN):
                    what = _describe(t)
                    if all(w != what for w, _ in audit.near_edge):
                        audit.near_edge.append((what, round(now, 2)))
            n = numbers_in(t)
            if not n or opacity < LEGIBLE_OPACITY:
                continue
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            mine = order.get(id(t), -1)
            if any(i > mine and v[0] <= cx <= v[2] and v[1] <= cy <= v[3] for i, v in
                   ((order.get(id(veil), -1), box) for veil, box in veils)):
                continue
            count += n
        audit.legible.append((now, count, self._close_up_from is not None))

    @contextmanager
    def close_up(self, what: str = "close-up") -> Iterator[None]:
        """Mark the clip's one close-up: the beats inside may show more digits at once
        (:data:`LEGIBLE_MAX` does not apply), for at most :data:`CLOSE_UP_SHARE` of the clip."""
        self._close_up_from = float(self.renderer.time)
        try:
            yield
        finally:
            self.close_ups.append((what, self._close_up_from, float(self.renderer.time)))
            self._close_up_from = None

    def clarity(self) -> "Clarity":
        """The clarity measures of the clip as built (an audited build): :func:`clarity_of`."""
        return clarity_of(self)


#: Digits of a number as a reader reads it: a sign, digits, a decimal part (Unicode sub- and
#: superscript digits are not decimal digits, so "h₃" holds none).
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
#: A formula's sub- and superscripts (indices, not numbers read): h_{3}, x^2, e_{t,j}.
_TEX_SCRIPT = re.compile(r"[_^](?:\{[^{}]*\}|\\[A-Za-z]+|.)")


def numbers_in(text: Mobject) -> int:
    """How many numbers a reader reads in ``text`` (a Text, a formula or a :class:`NumberLabel`):
    each run of digits with its decimals counts once; a formula's indices do not count."""
    if isinstance(text, NumberLabel):
        return 1
    if isinstance(text, Text):
        words = str(getattr(text, "original_text", "") or "")
    else:
        words = _TEX_SCRIPT.sub("", str(getattr(text, "tex_string", "") or ""))
        words = re.sub(r"\\[A-Za-z]+", " ", words)  # \frac, \mathrm: commands, not digits
    return len(_NUMBER.findall(words))


def _veils(mobjects: list[Mobject], background: Any) -> list[tuple[Mobject, tuple[float, float, float, float]]]:
    """The background-coloured, mostly opaque filled shapes on screen (veils, fade rects)."""
    from manim import ManimColor

    # The colour as ``to_hex`` reads it (each channel truncated to 0-255), from the first fill
    # row directly: ``get_fill_color`` made a colour object of every row of every shape, at every
    # snapshot (a tenth of an audited build).
    bg = tuple(int(v * 255) for v in ManimColor(background).to_rgb())
    out = []
    for top in mobjects:
        for m in _family(top):
            if m.submobjects or not len(m.points) or not isinstance(m, VMobject):
                continue
            try:
                first = m.get_fill_rgbas()[0]
            except (AttributeError, IndexError):
                continue
            if float(first[3]) < VEIL_OPACITY or tuple(int(v * 255) for v in first[:3]) != bg:
                continue
            out.append((m, _box(m)))
    return out


@dataclass(frozen=True)
class Clarity:
    """How clear a clip is, by the rules of STYLE.md §4 (issue 31); :meth:`faults` applies them."""

    scene_id: str
    duration: float
    #: Legible numbers at once, time-weighted median over the moments at rest outside the close-up.
    median_numbers: float
    #: The most legible numbers at once outside the close-up, and when.
    max_numbers: int
    max_numbers_at: float
    #: The most at once inside the close-up.
    close_up_max: int
    close_up_seconds: float
    close_ups: int
    end_hold: float
    #: The longest stretch without motion before the final hold: (seconds, from).
    longest_still: float
    longest_still_at: float
    returns: tuple[tuple[str, float, float], ...]
    smallest_text: tuple[float, str, float] | None
    near_edge: tuple[tuple[str, float], ...]

    def faults(self, text_floor_px: float = TEXT_FLOOR_PX) -> list[str]:
        out = []
        if self.median_numbers > LEGIBLE_MEDIAN:
            out.append(f"{self.median_numbers:g} numbers legible at once in the median moment (rule: {LEGIBLE_MEDIAN})")
        if self.max_numbers > LEGIBLE_MAX:
            out.append(f"{self.max_numbers} numbers legible at once at {self.max_numbers_at:.1f} s, outside the "
                       f"close-up (rule: {LEGIBLE_MAX})")
        if self.close_ups > 1:
            out.append(f"{self.close_ups} close-ups (rule: one)")
        if self.close_up_seconds > CLOSE_UP_SHARE * self.duration + _FRAME_SLACK:
            out.append(f"the close-up takes {self.close_up_seconds:.1f} s of {self.duration:.1f} "
                       f"(rule: at most {CLOSE_UP_SHARE:.0%})")
        if not FINAL_HOLD - _FRAME_SLACK <= self.end_hold <= FINAL_HOLD_MAX + _FRAME_SLACK:
            out.append(f"the ending is held {self.end_hold:.2f} s (rule: {FINAL_HOLD:g}-{FINAL_HOLD_MAX:g} s)")
        if self.longest_still > FROZEN_MAX + _FRAME_SLACK:
            out.append(f"nothing moves for {self.longest_still:.1f} s from {self.longest_still_at:.1f} s "
                       f"(rule: at most {FROZEN_MAX:g} s before the ending)")
        out += [f"{what} leaves at {a:.2f} s and comes back, unchanged, at {b:.2f} s" for what, a, b in self.returns]
        if self.smallest_text is not None and self.smallest_text[0] < text_floor_px - 1e-6:
            px, what, at = self.smallest_text
            out.append(f"text too small: {what} is {px:.1f} px tall at {at:.1f} s (floor {text_floor_px:g} px)")
        out += [f"{what} within {EDGE_MARGIN:g} of the frame's edge at {at:.1f} s" for what, at in self.near_edge]
        return out


def clarity_of(scene: "WalkthroughScene") -> Clarity:
    """Measure an audited build of ``scene`` (built with ``audit=True``) by STYLE.md §4."""
    audit = scene.audit
    end = float(scene.renderer.time)
    rest = [(t, n, c) for t, n, c in audit.legible if t > 0]
    weighted = []
    for k, (t, n, c) in enumerate(rest):
        nxt = rest[k + 1][0] if k + 1 < len(rest) else end
        if not c and nxt > t:
            weighted.append((n, nxt - t))
    weighted.sort()
    total = sum(w for _, w in weighted)
    median, acc = 0.0, 0.0
    for n, w in weighted:
        acc += w
        if acc >= total / 2:
            median = float(n)
            break
    outside = [(n, t) for t, n, c in rest if not c] or [(0, 0.0)]
    most, most_at = max(outside, key=lambda p: (p[0], -p[1]))
    inside = [n for _, n, c in rest if c] or [0]
    motion = sorted(scene.motion)
    last = max((e for _, e in motion), default=0.0)
    still, still_at, cursor = 0.0, 0.0, 0.0
    for s, e in motion:
        if s - cursor > still:
            still, still_at = s - cursor, cursor
        cursor = max(cursor, e)
    return Clarity(
        scene_id=scene.scene_id, duration=round(end, 2), median_numbers=median,
        max_numbers=int(most), max_numbers_at=round(float(most_at), 2), close_up_max=int(max(inside)),
        close_up_seconds=round(sum(b - a for _, a, b in scene.close_ups), 2), close_ups=len(scene.close_ups),
        end_hold=round(end - last, 2), longest_still=round(still, 2), longest_still_at=round(still_at, 2),
        returns=tuple(audit.returns), smallest_text=audit.smallest_text, near_edge=tuple(audit.near_edge))


def _inside_frame(family: list[Mobject], half_w: float, half_h: float) -> bool:
    """Whether every point of every member of ``family`` lies within the frame's tolerance.
    Each box the frame check reads (anchors of members, visible or not) is within the box
    of all these points, so then no box is outside; otherwise the check looks member by
    member, and reports what it always did."""
    columns = [m.points for m in family if len(m.points)]
    if not columns:
        return True
    points = columns[0] if len(columns) == 1 else np.concatenate(columns)
    lo, hi = points.min(axis=0), points.max(axis=0)
    return bool(lo[0] >= -half_w - FRAME_TOLERANCE and hi[0] <= half_w + FRAME_TOLERANCE
                and lo[1] >= -half_h - FRAME_TOLERANCE and hi[1] <= half_h + FRAME_TOLERANCE)


def _signatures(mobjects: list[Mobject]) -> tuple[dict[tuple, np.ndarray], int]:
    """What a reader can see, as comparable values: each group's visible texts and
    numbers (-> where they stand), and how many visible shapes and numbers there
    are outside the title band and the captions."""
    seen: dict[tuple, np.ndarray] = {}
    shapes = 0
    for top in mobjects:
        texts = text_leaves(top)
        glyphs = {id(g) for t in texts for g in _family(t)}
        group, centres = [], []
        for mob in texts:
            if not _shown(mob):
                continue
            words = str(getattr(mob, "shown", None) or getattr(mob, "original_text", None)
                        or getattr(mob, "tex_string", ""))
            centre = _centre(mob)
            y = float(centre[1])
            group.append(words)
            centres.append(centre)
            if isinstance(mob, NumberLabel) or not (len(words.split()) >= CAPTION_MIN_WORDS or y > TITLE_BAND_Y):
                shapes += 1
        if group:
            # One group on screen (a column, a table, a caption): it blinks only if all of it comes
            # back, each text where it stood (centres in the order of (text, place)).
            order = sorted(range(len(group)), key=lambda k: (group[k], round(float(centres[k][0]), 1),
                                                             round(float(centres[k][1]), 1)))
            seen[tuple(sorted(group))] = np.array([centres[k] for k in order])
        shapes += sum(1 for m in _with_points(top)
                      if id(m) not in glyphs and _visible(m))
    return seen, shapes


def _content_height(mobjects: list[Mobject]) -> float:
    """How tall the clearly visible picture is: the vertical extent of every shape and text
    at opacity >= :data:`SPARSE_OPACITY`, the title band and the captions (sentences) aside."""
    top, bottom = -np.inf, np.inf
    for mob in mobjects:
        captions = {id(g) for t in text_leaves(mob)
                    if len(str(getattr(t, "original_text", "") or "").split()) >= CAPTION_MIN_WORDS
                    or declared_reading(t) is not None for g in _family(t)}
        for m in _with_points(mob):
            if id(m) in captions:
                continue
            try:
                opacity = max(float(m.get_fill_opacity()), float(m.get_stroke_opacity()))
            except (AttributeError, IndexError):
                continue
            if opacity < SPARSE_OPACITY:
                continue
            lo, hi = _bounds(m)  # m has points
            if (lo[1] + hi[1]) / 2 > TITLE_BAND_Y:  # its centre
                continue
            top, bottom = max(top, float(hi[1])), min(bottom, float(lo[1]))
    return max(0.0, top - bottom) if top > -np.inf else 0.0


class CaptionPacer:
    """Captions that stay long enough to be read: at least 1 s per 3 words.

    ``swap`` waits, if needed, until the current caption has been readable
    for its time, then fades it out while the next fades in (never crossing).
    ``log`` records every caption as ``(text, visible_from, visible_until)``
    in seconds of the clip, for the tests.
    """

    def __init__(self, scene: Any, y: float = STEP_CAPTION_Y,
                 font_size: float = STEP_CAPTION_SIZE) -> None:
        self.scene, self.y, self.font_size = scene, y, font_size
        self.current: VGroup | None = None
        self.since = 0.0
        self.log: list[tuple[str, float, float | None]] = []

    @staticmethod
    def needed(text: str) -> float:
        return max(1.5, reading_time(text))

    def reading_due(self) -> float:
        """Seconds the current caption still needs to be read (negative: read already)."""
        if self.current is None:
            return 0.0
        return self.since + self.needed(self.current.text) - self.scene.time

    def wait_for_reader(self, extra: float = 0.0) -> None:
        """Wait until the current caption has been up its reading time (less ``extra`` s)."""
        due = self.reading_due() - extra
        if due > 0.01:
            # A wait is a whole number of frames: round up, never down.
            self.scene.wait(due + 1.0 / config.frame_rate)

    def swap(self, text: str | VGroup, *anims: Any, run_time: float = 1.0) -> VGroup:
        """Show ``text`` (with ``anims`` played alongside); returns the caption.

        ``text`` may be a built caption (a group with a ``text`` attribute).
        """
        self.wait_for_reader(extra=run_time / 2)
        new = text if isinstance(text, VGroup) else step_caption(text, self.scene.theme, self.y,
                                                                 self.font_size)
        start = self.scene.time
        if self.current is None:
            self.scene.play(fade_in(new), *anims, run_time=run_time)
        else:
            self.scene.play(caption_out(self.current), caption_in(new), *anims, run_time=run_time)
            self.log[-1] = (self.log[-1][0], self.log[-1][1], start + run_time / 2)
        self.current = new
        self.since = self.scene.time
        self.log.append((new.text, self.since, None))
        return new

    def finish(self, hold: float = FINAL_HOLD) -> None:
        """Let the last caption be read, then hold the final figure."""
        self.wait_for_reader()
        self.scene.wait(hold)
        if hasattr(self.scene, "close_step"):
            self.scene.close_step()
        if self.log:
            self.log[-1] = (self.log[-1][0], self.log[-1][1], self.scene.time)
