"""The drawn-scenes data set: pictures made by code, each with its caption.

Every picture is a plain background (grass, sand or water) with one or two
objects (ball, car, house, tree, sun) at random positions. The caption comes
from a small grammar:

* no object: ``nothing on the grass``;
* one object: ``a ball on the grass`` (the sun is ``over`` the background);
* two objects: ``a ball and a tree``, named in the fixed order of
  :data:`KINDS`, so the caption does not depend on where they are.

Each object kind has one colour, so the captions carry no colour words: a
colour word would give its noun away, and the noun would need no look at
the picture (measured: attention on the noun fell to about 50 %).
Because the scene is drawn by code, we know which grid cells every object
covers: the ground truth that attention is measured against. Everything is
deterministic from a seed; thousands of pictures take about a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "IMAGE_SIZE",
    "KINDS",
    "COLOURS",
    "BACKGROUNDS",
    "Thing",
    "DrawnScene",
    "draw_scene",
    "random_scene",
    "make_scenes",
    "object_cells",
    "caption_cells",
    "word_cells",
    "vocabulary",
]

IMAGE_SIZE = 48  # pixels a side, what the CNN reads
SUPERSAMPLE = 2  # drawn at 2x then averaged: smooth edges
SIZE_RANGE = (12, 17)  # an object's side in pixels

#: Object kinds, in the order a two-object caption names them.
KINDS = ("ball", "car", "house", "tree", "sun")
#: The colour each kind is painted (not in the captions: see above).
COLOURS = {"ball": "red", "car": "blue", "house": "white", "tree": "green", "sun": "yellow"}
BACKGROUNDS = {
    "grass": (0.55, 0.66, 0.45),
    "sand": (0.87, 0.78, 0.56),
    "water": (0.45, 0.58, 0.70),
}
_PAINT = {
    "red": (0.88, 0.12, 0.12),
    "blue": (0.12, 0.22, 0.82),
    "white": (0.97, 0.97, 0.95),
    "roof": (0.55, 0.16, 0.12),
    "green": (0.08, 0.42, 0.12),
    "trunk": (0.45, 0.27, 0.10),
    "yellow": (1.0, 0.86, 0.10),
    "black": (0.08, 0.08, 0.08),
}


@dataclass(frozen=True)
class Thing:
    """One object: its kind, the centre (x, y) in pixels and its side."""

    kind: str
    x: float
    y: float
    size: float


@dataclass(frozen=True)
class DrawnScene:
    """A picture's recipe, its caption and its pixels (``H x W x 3`` in [0, 1])."""

    background: str
    things: tuple[Thing, ...]
    pixels: np.ndarray
    masks: tuple[np.ndarray, ...]  # per thing, the share of each pixel it covers

    @property
    def caption(self) -> tuple[str, ...]:
        if not self.things:
            return ("nothing", "on", "the", self.background)
        if len(self.things) == 1:
            kind = self.things[0].kind
            where = "over" if kind == "sun" else "on"
            return ("a", kind, where, "the", self.background)
        first, second = self.things
        return ("a", first.kind, "and", "a", second.kind)


def vocabulary() -> tuple[str, ...]:
    """Every word a caption can have, in a fixed order."""
    words = ["a", "and", "nothing", "on", "over", "the", *BACKGROUNDS, *KINDS]
    return tuple(dict.fromkeys(words))


def _shape_masks(thing: Thing, n: int) -> list[tuple[str, np.ndarray]]:
    """Boolean masks (n x n, supersampled) of a thing's parts with their paint."""
    scale = n / IMAGE_SIZE
    yy, xx = np.mgrid[0:n, 0:n] + 0.5
    x, y = thing.x * scale, thing.y * scale
    s = thing.size * scale
    half = s / 2

    def box(x0, y0, x1, y1):
        return (xx >= x0) & (xx < x1) & (yy >= y0) & (yy < y1)

    def disk(cx, cy, r):
        return (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r

    if thing.kind == "ball":
        return [("red", disk(x, y, half * 0.9))]
    if thing.kind == "sun":
        r = half * 0.6
        angle = np.arctan2(yy - y, xx - x)
        dist = np.hypot(xx - x, yy - y)
        rays = (dist > r * 1.15) & (dist < half) & (np.cos(8 * angle) > 0.6)
        return [("yellow", disk(x, y, r) | rays)]
    if thing.kind == "tree":
        trunk = box(x - s * 0.1, y + s * 0.1, x + s * 0.1, y + half)
        return [("trunk", trunk), ("green", disk(x, y - s * 0.12, s * 0.38))]
    if thing.kind == "house":
        walls = box(x - s * 0.38, y - s * 0.05, x + s * 0.38, y + half)
        # The roof: a triangle from the walls' top up to the peak.
        top, base = y - half, y - s * 0.05
        frac = np.clip((yy - top) / (base - top), 0, 1)
        roof = (yy >= top) & (yy < base) & (np.abs(xx - x) <= frac * s * 0.5)
        return [("white", walls), ("roof", roof)]
    if thing.kind == "car":
        body = box(x - half, y - s * 0.05, x + half, y + s * 0.25)
        cabin = box(x - s * 0.25, y - s * 0.3, x + s * 0.2, y)
        wheels = disk(x - s * 0.28, y + s * 0.28, s * 0.14) | disk(x + s * 0.28, y + s * 0.28, s * 0.14)
        return [("blue", body | cabin), ("black", wheels)]
    raise ValueError(f"unknown kind {thing.kind!r}")


def draw_scene(background: str, things: tuple[Thing, ...], size: int = IMAGE_SIZE) -> DrawnScene:
    """Paint a scene ``size`` pixels a side (supersampled, then averaged down).

    Positions and sizes are in IMAGE_SIZE units, so other sizes draw the same
    picture finer or coarser.
    """
    n = size * SUPERSAMPLE
    canvas = np.empty((n, n, 3))
    canvas[:] = BACKGROUNDS[background]
    masks = []
    for thing in things:
        cover = np.zeros((n, n), bool)
        for paint, mask in _shape_masks(thing, n):
            canvas[mask] = _PAINT[paint]
            cover |= mask
        masks.append(cover.reshape(size, SUPERSAMPLE, size, SUPERSAMPLE).mean(axis=(1, 3)))
    pixels = canvas.reshape(size, SUPERSAMPLE, size, SUPERSAMPLE, 3).mean(axis=(1, 3))
    return DrawnScene(background, tuple(things), pixels, tuple(masks))


def _overlap(a: Thing, b: Thing, gap: float = 3.0) -> bool:
    reach = (a.size + b.size) / 2 + gap
    return abs(a.x - b.x) < reach and abs(a.y - b.y) < reach


def random_scene(rng: np.random.Generator) -> DrawnScene:
    """One scene: a background and none (1 in 8), one or two objects of different kinds.

    Empty scenes matter: without them a decoder could name a kind by
    elimination ("no car, house, tree or sun in sight: a ball") while
    looking at the background.
    """
    background = str(rng.choice(list(BACKGROUNDS)))
    roll = rng.random()
    count = 0 if roll < 0.125 else 1 + int(roll < 0.5625)
    kinds = sorted(rng.choice(len(KINDS), size=count, replace=False))
    things: list[Thing] = []
    for k in kinds:
        while True:
            size = float(rng.uniform(*SIZE_RANGE))
            lo, hi = size / 2 + 1, IMAGE_SIZE - size / 2 - 1
            thing = Thing(KINDS[k], float(rng.uniform(lo, hi)), float(rng.uniform(lo, hi)), size)
            if not any(_overlap(thing, other) for other in things):
                break
        things.append(thing)
    return draw_scene(background, tuple(things))


def make_scenes(seed: int, count: int) -> list[DrawnScene]:
    """``count`` scenes, deterministic for ``seed``."""
    rng = np.random.default_rng([seed, 2015])
    return [random_scene(rng) for _ in range(count)]


def object_cells(mask: np.ndarray, grid: int, share: float = 0.1) -> tuple[tuple[int, int], ...]:
    """The grid cells holding at least ``share`` of an object's area (row, column)."""
    edges = [(i * mask.shape[0]) // grid for i in range(grid + 1)]
    total = float(mask.sum())
    cells = []
    for i in range(grid):
        for j in range(grid):
            part = mask[edges[i]:edges[i + 1], edges[j]:edges[j + 1]].sum()
            if total > 0 and part >= share * total:
                cells.append((i, j))
    return tuple(cells)


def word_cells(scene: DrawnScene, grid: int) -> dict[str, tuple[tuple[int, int], ...]]:
    """The cells each naming word of the scene stands for (row, column).

    A noun names its object; the background word names the cells that are
    mostly background (objects cover less than half of the cell).
    """
    owned = {}
    for thing, mask in zip(scene.things, scene.masks):
        owned[thing.kind] = object_cells(mask, grid)
    size = scene.pixels.shape[0]
    edges = [(i * size) // grid for i in range(grid + 1)]
    covered = sum(scene.masks, np.zeros((size, size)))
    owned[scene.background] = tuple(
        (i, j) for i in range(grid) for j in range(grid)
        if covered[edges[i]:edges[i + 1], edges[j]:edges[j + 1]].mean() < 0.5)
    return owned


def caption_cells(scene: DrawnScene, grid: int) -> list[tuple[tuple[int, int], ...] | None]:
    """Per word of the scene's caption, the cells of what it names; None for
    words like 'a' or 'on'."""
    owned = word_cells(scene, grid)
    return [owned.get(word) for word in scene.caption]
