"""Shared moves: values travel from where they are computed to where they are used.

Every builder here *returns* an animation (nothing is played), and every
animation it returns records what moved, ``(what, from_key, to_key)``, in
``scene.moves`` when the scene has played it, so tests can assert, for
example, that every s_t reached the s_{t-1} slot (STYLE.md §3.3).

Digits stay legible (STYLE.md §3.4): a number either moves rigidly with its
cell (:func:`slide`), or does not travel at all (:func:`fly`: the boxes
travel, the digits fade out at the source and in at the target;
:func:`hand_off`: the digits fade, the cells travel as a chip, the digits
fade back in at the slot). :func:`slide` and :func:`hand_off` ask the audit
to look at them at 1/4, 1/2 and 3/4 of their run (``audit_samples``),
where a moving text could cross another.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from manim import (
    Animation,
    AnimationGroup,
    LaggedStart,
    Mobject,
    Rectangle,
    Transform,
    VGroup,
    VMobject,
)
from manim.utils.rate_functions import smooth

from .components import NumberLabel, OpacityScaling, ValueCell, caption_in, caption_out, fade_in, fade_out, \
    text_leaves

__all__ = [
    "MAX_ARC",
    "QUARTERS",
    "Slide",
    "MovesGroup",
    "window",
    "slide",
    "fly",
    "hand_off",
    "feed_back",
    "drop_row",
    "file_row",
    "gather",
    "veil",
    "focus",
    "ring_to",
    "crossfade",
    "transpose",
    "TURNS",
    "unfold_strip",
    "TRANSPOSE_TIME",
    "digits_of",
    "cell_boxes",
    "moved",
    "record_move",
    "shapes_of",
]

#: The widest arc a path may take (STYLE §3.4: arcs stay in the frame).
MAX_ARC = math.pi / 3
#: The shortest transpose (s): its columns leave one after another slowly enough to be
#: followed, and the matrix's numbers are away long enough to read as moved, not blinked.
TRANSPOSE_TIME = 2.4
#: Where the audit looks at a move that carries text (fractions of its run).
QUARTERS = (0.25, 0.5, 0.75)


def window(start: float, end: float, rate: Callable[[float], float] = smooth) -> Callable[[float], float]:
    """A rate function that runs only between ``start`` and ``end`` of the animation (fractions)."""
    def f(t: float) -> float:
        return rate(min(1.0, max(0.0, (t - start) / (end - start))))
    return f


def record_move(anim: Animation, what: str, src: Any, dst: Any) -> Animation:
    """Record on ``anim`` that it moves ``what`` from ``src`` to ``dst`` (read once it is played)."""
    anim.move_records = [*getattr(anim, "move_records", []), (what, src, dst)]
    return anim


def moved(*anims: Animation, what: str, src: Any = None, dst: Any = None, **kw: Any) -> "MovesGroup":
    """``anims`` as one move that records ``(what, src, dst)`` once played (a scene's own move);
    the moves inside it are recorded as this one only."""
    for anim in anims:
        anim.move_records = []
    return record_move(MovesGroup(*anims, **kw), what, src, dst)


def _record(anim: Animation, scene: Any) -> None:
    moves = getattr(scene, "moves", None)
    if moves is not None:
        moves.extend(getattr(anim, "move_records", []))


class MovesGroup(AnimationGroup):
    """An :class:`AnimationGroup` that records its moves in ``scene.moves`` once played.

    Unlike a plain group it never puts its own :class:`Group` on the scene (Manim
    adds a group's Group, so every part already on screen would be on it twice and
    the audit would see each text overlap itself); each part is added on its own
    when it is not on screen yet.
    """

    def is_introducer(self) -> bool:
        return True  # the scene must not add self.group; _setup_scene adds the parts

    def _setup_scene(self, scene: Any) -> None:
        if scene is None:
            return
        for anim in self.animations:
            if not anim.is_introducer() and anim.mobject is not None \
                    and anim.mobject not in scene.get_mobject_family_members():
                scene.add(anim.mobject)
            anim._setup_scene(scene)

    def clean_up_from_scene(self, scene: Any) -> None:
        super().clean_up_from_scene(scene)
        _record(self, scene)


def _key_of(mob: Any) -> Any:
    key = getattr(mob, "key", None)
    if key is not None:
        return key
    keys = [m.key for m in mob.get_family() if isinstance(m, NumberLabel) and m.key is not None] \
        if isinstance(mob, Mobject) else []
    return keys[0][0] if keys else None


def _point(target: Any) -> np.ndarray:
    if isinstance(target, Mobject):
        return target.get_center()
    p = np.asarray(target, dtype=float)
    return np.array([p[0], p[1], p[2] if len(p) > 2 else 0.0])


def _path(start: np.ndarray, end: np.ndarray, path_arc: float,
          via: Sequence[Any]) -> Callable[[float], np.ndarray]:
    """Position at progress u in [0, 1]: straight, along an arc, or through waypoints."""
    if abs(path_arc) > MAX_ARC + 1e-9:
        raise ValueError(f"path_arc {path_arc:.2f} is wider than {MAX_ARC:.2f} (pi/3): the arc could leave the frame")
    points = [start, *(_point(v) for v in via), end]
    if len(points) == 2 and path_arc:
        # The chord's point rotated about the arc's centre (manim's path_along_arc, for one point).
        chord = end - start
        half = path_arc / 2
        centre = (start + end) / 2 + np.cross([0, 0, 1], chord) / (2 * math.tan(half))

        def arc(u: float) -> np.ndarray:
            a = path_arc * u
            v = start - centre
            return centre + np.array([v[0] * math.cos(a) - v[1] * math.sin(a),
                                      v[0] * math.sin(a) + v[1] * math.cos(a), 0.0])
        return arc
    lengths = [float(np.linalg.norm(b - a)) for a, b in zip(points, points[1:])]
    total = sum(lengths) or 1.0

    def along(u: float) -> np.ndarray:
        d = u * total
        last = len(lengths) - 1
        for k, n in enumerate(lengths):
            if d <= n or k == last:
                return points[k] + (points[k + 1] - points[k]) * (min(d / n, 1.0) if n else 1.0)
            d -= n
        return points[-1]
    return along


class Slide(Animation):
    """Rigid move of an existing group, digits included, with no copy.

    The points are saved when it begins and placed each frame (shifted along
    the path, scaled by ``scale`` about the centre), so the opacities stay
    free for fades played alongside. ``shrink`` (0..1) contracts the group
    mid-way and expands it back (a chip in flight, :func:`hand_off`).
    """

    def __init__(self, mobject: Mobject, to: Any, path_arc: float = 0.0, via: Sequence[Any] = (),
                 scale: float = 1.0, shrink: float = 0.0, what: str = "slide", src: Any = None,
                 dst: Any = None, **kw: Any) -> None:
        self.to, self.path_arc, self.via = to, path_arc, tuple(via)
        self.end_scale, self.shrink = scale, shrink
        _path(np.zeros(3), np.ones(3), path_arc, ())  # reject a too-wide arc now, not mid-play
        super().__init__(mobject, **kw)
        record_move(self, what, src if src is not None else _key_of(mobject),
                    dst if dst is not None else _key_of(to) if isinstance(to, Mobject) else None)
        self.audit_samples = QUARTERS

    def create_starting_mobject(self) -> Mobject:
        return Mobject()  # unused: interpolation reads the saved points

    def begin(self) -> None:
        self.members = [m for m in self.mobject.get_family() if len(m.points)]
        self.saved = [m.points.copy() for m in self.members]
        self.start = self.mobject.get_center().copy()
        self.route = _path(self.start, _point(self.to), self.path_arc, self.via)
        super().begin()

    def interpolate_mobject(self, alpha: float) -> None:
        u = self.rate_func(alpha)
        centre = self.route(u)
        # Contracts over the first fifth of the path, travels small, expands over the last fifth.
        squeeze = smooth(min(1.0, u / 0.2, (1.0 - u) / 0.2))
        k = (1 + (self.end_scale - 1) * u) * (1 - self.shrink * squeeze)
        for m, pts in zip(self.members, self.saved):
            m.points = (pts - self.start) * k + centre

    def clean_up_from_scene(self, scene: Any) -> None:
        super().clean_up_from_scene(scene)
        _record(self, scene)


def slide(mob: Mobject, to: Any, path_arc: float = 0.0, via: Sequence[Any] = (), **kw: Any) -> Slide:
    """``mob`` moves rigidly to ``to`` (a point, or a mobject's centre): straight,
    on an arc (``path_arc`` <= pi/3), or through the waypoints ``via``."""
    return Slide(mob, to, path_arc=path_arc, via=via, **kw)


def cell_boxes(mob: Any) -> list[Any]:
    """The boxes of the value cells in ``mob`` (or ``mob`` itself if it has none)."""
    return [m.box for m in mob.get_family() if isinstance(m, ValueCell)] or [mob]


def digits_of(mob: Mobject) -> VGroup:
    """The numbers inside ``mob`` (its cells' digits), as one group to fade."""
    return VGroup(*(m for m in mob.get_family() if isinstance(m, NumberLabel)))


def fly(sources: Any, targets: Any, remove: bool = False, path_arc: float = 0.0, what: str = "fly",
        src: Any = None, dst: Any = None, **kw: Any) -> MovesGroup:
    """Values travel from ``sources`` to ``targets`` with no digits in flight.

    Copies of the cells' boxes move (digits morphing into other digits, or
    crossing other numbers mid-way, cannot be read); the target cells fade in
    over the second half. With ``remove`` the sources fade out over the first
    half: a move (a matrix going to its new place) rather than a copy.
    """
    if abs(path_arc) > MAX_ARC + 1e-9:
        raise ValueError(f"path_arc {path_arc:.2f} is wider than pi/3")
    boxes = VGroup(*(b.copy() for b in cell_boxes(sources)))
    goal = VGroup(*(b.copy() for b in cell_boxes(targets)))
    anims = [Transform(boxes, goal, remover=True, path_arc=path_arc), caption_in(targets)]
    if remove:
        anims.append(caption_out(sources))
    return record_move(MovesGroup(*anims, **kw), what, src if src is not None else _key_of(sources),
                       dst if dst is not None else _key_of(targets))


def hand_off(col: Mobject, slot: Any, leaving: Sequence[Mobject] = (), via: Sequence[Any] = (),
             label: Mobject | None = None, slot_label: Mobject | None = None, path_arc: float = 0.0,
             shrink: float = 0.6, what: str = "hand_off", src: Any = None, dst: Any = None, run_time: float = 1.6,
             **kw: Any) -> MovesGroup:
    """A state moves into the slot where it is used next (s_t -> s_{t-1}, h_t -> h_{t-1}).

    Zero copy: ``leaving`` (the slot's old occupant) fades out in the first
    third; ``col``'s texts (digits, its name) fade in place; its cells
    contract to a chip (``shrink``: the part of its size it loses) that
    travels (``via`` waypoints or ``path_arc``) and expands into ``slot`` (a
    point or a mobject's centre); its texts fade back in there, and
    ``slot_label`` if given. ``label``, if given, fades out for good (a name
    the slot does not keep). ``col`` is then the slot's occupant: one value,
    one mobject.
    """
    digits = VGroup(*(m for m in text_leaves(col) if m is not label))
    chip = Slide(col, slot, path_arc=path_arc, via=via, shrink=shrink, rate_func=window(0.2, 0.8))
    chip.move_records = []  # the hand-off records the move once, below
    anims: list[Animation] = [chip]
    for gone in leaving:
        anims.append(fade_out(gone, rate_func=window(0.0, 1 / 3)))
    # One blink per text: each is already on screen inside ``col`` (a new group would be added twice).
    anims.extend(_Blink(d, 0.2, 0.8) for d in digits)
    if label is not None:
        anims.append(fade_out(label, rate_func=window(0.0, 0.25)))
    if slot_label is not None:
        anims.append(fade_in(slot_label, rate_func=window(0.8, 1.0)))
    group = MovesGroup(*anims, run_time=run_time, **kw)
    group.audit_samples = QUARTERS
    return record_move(group, what, src if src is not None else _key_of(col),
                       dst if dst is not None else _key_of(slot) if isinstance(slot, Mobject) else None)


class _Blink(OpacityScaling):
    """Opacity of ``mobject`` goes to 0 by ``off`` and back to its own by ``on`` (no copy)."""

    def __init__(self, mobject: Mobject, off: float, on: float, **kw: Any) -> None:
        self.off, self.on = off, on
        super().__init__(mobject, **kw)

    def interpolate_mobject(self, alpha: float) -> None:
        t = self.rate_func(alpha)
        if t <= self.off:
            k = 1 - smooth(t / self.off) if self.off else 0.0
        elif t >= self.on:
            k = smooth((t - self.on) / (1 - self.on)) if self.on < 1 else 0.0
        else:
            k = 0.0
        self.scale_opacity(k)

    def clean_up_from_scene(self, scene: Any) -> None:
        super().clean_up_from_scene(scene)
        self.scale_opacity(1.0)  # exactly as it was


def _carry(word: Mobject, target: Mobject, via: Sequence[Any], what: str, src: Any, dst: Any,
           start: float = 0.0, reveal: bool = True) -> list[Animation]:
    """A copy of ``word`` travels to ``target`` (scaled to its height) and becomes it
    (``reveal``: ``target`` fades in as it lands; else ``target`` is already there)."""
    ghost = word.copy()
    scale = target.height / word.height if word.height else 1.0
    out: list[Animation] = [Slide(ghost, target, via=via, scale=scale, remover=True,
                                  rate_func=window(start, 0.9), what=what, src=src, dst=dst)]
    if reveal:
        out.append(fade_in(target, rate_func=window(0.85, 1.0)))
    return out


def feed_back(word: Mobject, target_word: Mobject, lane_y: float | None = None, what: str = "feed_back",
              src: Any = None, dst: Any = None, reveal: bool = True, **kw: Any) -> MovesGroup:
    """A *word* (never a number) travels as a copy to the input slot where it is read next.

    With ``lane_y`` it goes down (or up) to that lane, along it, then into
    ``target_word``, so it crosses only the free band the scene declared.
    ``target_word`` fades in as the copy lands.
    """
    via: list[Any] = []
    if lane_y is not None:
        via = [(word.get_x(), lane_y, 0), (target_word.get_x(), lane_y, 0)]
    src = src if src is not None else getattr(word, "text", None) or getattr(word, "original_text", None)
    group = MovesGroup(*_carry(word, target_word, via, what, src, dst, reveal=reveal), **kw)
    group.audit_samples = QUARTERS
    return group


def drop_row(row_cells: Sequence[Mobject], matrix_row: Sequence[Mobject], i: int,
             label: Mobject | None = None, row_label: Mobject | None = None,
             what: str = "drop_row", **kw: Any) -> MovesGroup:
    """One step's weight row files into row ``i`` of the matrix, which grows row by row.

    The heat boxes fly (box copies, no digits in flight) into the matrix row's
    cells, which fade in as they land; the row's label arrives as a copy of
    ``label`` (the word that step wrote).
    """
    anims: list[Animation] = [fly(VGroup(*row_cells), VGroup(*matrix_row), what=what,
                                  src=("row", i), dst=("matrix", i))]
    if label is not None and row_label is not None:
        anims.extend(_carry(label, row_label, (), what + "_label", getattr(label, "text", None), ("matrix", i)))
    return MovesGroup(*anims, **kw)


def _elbow(start: np.ndarray, end: np.ndarray, alpha: float) -> np.ndarray:
    """A Transform path: every point goes along its own line first (to its end's x), then
    straight up or down to its end, so a row leaves along the line it stood on."""
    corner = start.copy()
    corner[:, 0] = end[:, 0]
    if alpha < 0.5:
        return start + (corner - start) * (2 * alpha)
    return corner + (end - corner) * (2 * alpha - 1)


def file_row(row: Mobject, target: Mobject, i: int, what: str = "drop_row", **kw: Any) -> MovesGroup:
    """A row of value cells files into row ``i`` of a matrix placed at the end of its own line.

    The row's digits fade (the first fifth, above its boxes); its heat boxes
    then shrink to the matrix's cells as they slide along the row's own line
    and turn up (or down) into ``target``'s cells (an elbow, so they cross
    nothing but that line's free end), which take their place as they land.
    Box copies travel, no digits (STYLE.md §3.4); the row is gone after it.
    """
    digits = digits_of(row)
    digits.set_z_index(max(m.z_index for m in row.get_family()) + 1)  # they fade above the copies
    boxes = VGroup(*(b.copy() for b in cell_boxes(row)))
    goal = VGroup(*(b.copy() for b in cell_boxes(target)))
    anims = [fade_out(digits, rate_func=window(0.0, 0.2)),
             fade_out(shapes_of(row), rate_func=window(0.2, 0.25)),
             Transform(boxes, goal, path_func=_elbow, remover=True, rate_func=window(0.2, 0.95)),
             fade_in(target, rate_func=window(0.9, 1.0))]
    return record_move(MovesGroup(*anims, **kw), what, ("row", i), ("matrix", i))


def gather(parts: Sequence[Mobject], total: Mobject, weights: Sequence[float] | None = None,
           what: str = "gather", dst: Any = None, lag_ratio: float = 0.3, **kw: Any) -> MovesGroup:
    """Products converge on their sum, each scaled and faded by its weight.

    Box copies of each part travel into ``total``'s box (no digits in
    flight); ``total``'s digits fade in after the last arrival.
    """
    weights = [1.0] * len(parts) if weights is None else [float(w) for w in weights]
    goal = cell_boxes(total)
    flights = []
    for part, w in zip(parts, weights):
        boxes = VGroup(*(b.copy() for b in cell_boxes(part)))
        k = 0.25 + 0.75 * min(max(w, 0.0), 1.0)
        end = VGroup(*(b.copy().set_opacity(k) for b in goal[:len(boxes)] or goal))
        if len(end) < len(boxes):
            end = VGroup(*(goal[0].copy().set_opacity(k) for _ in boxes))
        flights.append(Transform(boxes.set_opacity(k), end, remover=True))
    anims = [LaggedStart(*flights, lag_ratio=lag_ratio), fade_in(total, rate_func=window(0.8, 1.0))]
    group = MovesGroup(*anims, **kw)
    return record_move(group, what, tuple(_key_of(p) for p in parts), dst if dst is not None else _key_of(total))


def veil(theme: Any, *mobs: Any, opacity: float = 0.72, buff: float = 0.04) -> VGroup:
    """Background-coloured veils over ``mobs``: dims what is out of focus.

    Fading a veil in and out is much cheaper than animating the opacity of
    every cell (each such animation deep-copies the whole group).
    """
    out = VGroup()
    for mob in mobs:
        out.add(Rectangle(width=mob.width + 2 * buff, height=mob.height + 2 * buff,
                          stroke_width=0, fill_color=theme.background,
                          fill_opacity=opacity).move_to(mob))
    return out


def focus(theme: Any, *out_of_focus: Mobject, **kw: Any) -> tuple[Animation, Animation]:
    """Dim what is out of focus: (veils in, veils out), to play at the start and end of a close-up."""
    veils = veil(theme, *out_of_focus)
    return fade_in(veils, **kw), fade_out(veils, **kw)


def ring_to(ring: VMobject, target: Mobject, buff: float = 0.06, what: str = "ring_to", **kw: Any) -> MovesGroup:
    """One focus ring travels to ``target`` (the same ring: the eye follows it)."""
    goal = Rectangle(width=target.width + 2 * buff, height=target.height + 2 * buff).move_to(target)
    goal.match_style(ring)
    return record_move(MovesGroup(Transform(ring, goal), **kw), what, None, _key_of(target))


def crossfade(old: Mobject, new: Mobject, what: str = "crossfade", **kw: Any) -> MovesGroup:
    """A value recomputed *in place*: the old fades out, then the new fades in (never both)."""
    return record_move(MovesGroup(caption_out(old), caption_in(new), **kw), what, _key_of(old), _key_of(new))


class _Turn(Animation):
    """Copies of a column's boxes lift, turn a quarter turn (anticlockwise: the top entry
    ends on the left) while travelling to the row, and settle on the row's boxes."""

    def __init__(self, boxes: VGroup, goal: VGroup, lift: float = 0.25, **kw: Any) -> None:
        self.goal_points = []
        for m in goal.family_members_with_points():
            pts = m.points.copy()
            # A rectangle turned a quarter turn starts its outline one side later.
            self.goal_points.append(np.roll(pts, -4, axis=0) if len(pts) == 16 else pts)
        self.lift = lift
        self.c0, self.c1 = boxes.get_center(), goal.get_center()
        super().__init__(boxes, remover=True, introducer=True, **kw)

    def begin(self) -> None:
        self.starts = [m.points.copy() for m in self.mobject.family_members_with_points()]
        super().begin()

    def interpolate_mobject(self, alpha: float) -> None:
        t = self.rate_func(alpha)
        turn = smooth(min(1.0, max(0.0, (t - 0.1) / 0.65)))
        settle = smooth(min(1.0, max(0.0, (t - 0.7) / 0.3)))
        angle = turn * math.pi / 2
        rot = np.array([[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0],
                        [0, 0, 1]])
        centre = self.c0 + (self.c1 - self.c0) * turn + np.array([0, self.lift * math.sin(math.pi * t), 0])
        for m, start, end in zip(self.mobject.family_members_with_points(), self.starts, self.goal_points):
            turned = (start - self.c0) @ rot.T + centre
            m.points = turned * (1 - settle) + end * settle if len(end) == len(turned) else turned


#: How a transpose's columns leave: one after another (``"column"``) or all together (``"all"``).
TURNS = ("column", "all")


def transpose(columns: Sequence[Mobject], rows: Sequence[Mobject], turn: str = "column",
              lag_ratio: float = 0.6, what: str = "transpose", **kw: Any) -> MovesGroup:
    """The transpose as motion: column ``k`` of a matrix becomes row ``k`` of its transpose.

    The columns' digits fade out first (the first tenth); then copies of each
    column's boxes lift, turn a quarter turn (the top entry ends on the left)
    and land on row ``k``'s cells; the column's own shapes fade as its copy
    leaves, the row's as it lands; the rows' digits fade in last (the last
    tenth), at the opacity they were given (``clarity_moves.set_quiet`` for
    chips). So no digits travel, and a row's digits never appear over a column
    still waiting to leave (a matrix and its transpose often share a place).

    ``turn="column"`` (STYLE.md §4.6): one column after another, each starting
    ``lag_ratio`` (>= 0.3) of a flight after the last, never every box at
    once. ``turn="all"``: every column turns at the same time (a small matrix,
    or a transpose already shown once in order). Works both ways (rows into
    columns: pass the rows as ``columns``). The caller removes the source
    matrix after the play. Each column records ``(what, ("column", k), ("row", k))``.
    """
    if turn not in TURNS:
        raise ValueError(f"transpose: turn {turn!r} is not one of {', '.join(TURNS)}")
    if len(columns) != len(rows):
        raise ValueError(f"transpose: {len(columns)} columns for {len(rows)} rows")
    if turn == "column" and lag_ratio < 0.3:
        raise ValueError(f"transpose: lag_ratio {lag_ratio} < 0.3 is a jumble, not an order")
    lag = lag_ratio if turn == "column" else 0.0
    n = len(columns)
    anims: list[Animation] = [fade_out(digits_of(VGroup(*columns)), rate_func=window(0.0, 0.1)),
                              fade_in(digits_of(VGroup(*rows)), rate_func=window(0.9, 1.0))]
    # Flight k runs over [a_k, a_k + span] within 0.1 .. 0.9, each starting lag * span after the last.
    span = 0.8 / (1 + lag * (n - 1)) if n else 0.8
    for k, (col, row) in enumerate(zip(columns, rows)):
        a = 0.1 + k * lag * span
        b = a + span
        boxes = VGroup(*(m.copy() for m in cell_boxes(col)))
        goal = VGroup(*(m.copy() for m in cell_boxes(row)))
        anims += [_Turn(boxes, goal, rate_func=window(a, b)),
                  fade_out(shapes_of(col), rate_func=window(a, a + 0.3 * span)),
                  fade_in(shapes_of(row), rate_func=window(a + 0.7 * span, b))]
    group = MovesGroup(*anims, **kw)
    for k in range(n):
        record_move(group, what, ("column", k), ("row", k))
    return group


def unfold_strip(strip: Sequence[Mobject], columns: Sequence[Mobject], leaving: Sequence[Mobject] = (),
                 lag_ratio: float = 0.12, what: str = "unfold_strip", **kw: Any) -> MovesGroup:
    """The strip of encoder states unfolds into their columns: chip ``j`` grows into column ``j``.

    ``strip`` is a :class:`~scenes.components.StateStrip` (``strip[j]`` is
    ``(chip, name)``), ``columns[j]`` the column of numbers (with its name)
    where h_j is read next. The chips' names and ``leaving`` (a note, a ring)
    fade out in the first fifth; each chip itself (colour bands, no digits)
    stretches along a straight path into its column's frame and cells, one
    after the other (``lag_ratio``), and the column, its numbers and name
    fade in as it lands. So the same object is seen to move: the strip is
    gone after it, the columns stand in its place (one value, one mobject).
    Each chip records ``(what, ("strip", j), column key)``.
    """
    if len(strip) != len(columns):
        raise ValueError(f"unfold_strip: {len(strip)} chips for {len(columns)} columns")
    n = len(columns)
    names = VGroup(*(part[1] for part in strip))
    anims: list[Animation] = [fade_out(names, rate_func=window(0.0, 0.2))]
    anims.extend(fade_out(mob, rate_func=window(0.0, 0.2)) for mob in leaving)
    # Flight j runs over [a_j, a_j + span] within 0.1 .. 0.95, each starting lag_ratio*span after the last.
    span = 0.85 / (1 + lag_ratio * (n - 1)) if n else 0.85
    for j, (part, col) in enumerate(zip(strip, columns)):
        a = 0.1 + j * lag_ratio * span
        b = a + span
        goal = _outline_of(col)
        anims += [Transform(part[0], goal, remover=True, rate_func=window(a, b)),
                  fade_in(col, rate_func=window(b - 0.12 * span, b))]
    group = MovesGroup(*anims, **kw)
    for j, col in enumerate(columns):
        record_move(group, what, ("strip", j), _key_of(col))
    return group


def _outline_of(mob: Mobject) -> VGroup:
    """Copies of the shapes drawn in ``mob`` (frame, cell boxes), none of its texts:
    what a chip becomes as it lands (the texts fade in in place)."""
    texts = {id(m) for t in text_leaves(mob) for m in t.get_family()}
    out = VGroup()
    for m in mob.get_family():
        if len(m.points) and id(m) not in texts:
            piece = m.copy()
            piece.submobjects = []
            out.add(piece)
    return out


def shapes_of(mob: Mobject) -> VGroup:
    """Everything drawn in ``mob`` except its digits (boxes, level bars, gauges):
    what travels with a cell while its digits fade separately."""
    digits = {id(m) for label in mob.get_family() if isinstance(label, NumberLabel)
              for m in label.get_family()}
    return VGroup(*(m for m in mob.get_family() if len(m.points) and id(m) not in digits))
