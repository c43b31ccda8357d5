"""manim_speedups/fast_family.py: the same families, in the same order, as Manim's own walk."""

from __future__ import annotations

import random

import pytest
from manim import Circle, Square, Text, VGroup, VMobject
from manim.mobject.mobject import Mobject
from manim.utils import family, iterables

from manim_speedups import fast_family
from scenes import DARK
from scenes.components import VectorColumn


@pytest.fixture
def manim_walk():
    """Manim's get_family and remove_list_redundancies, whatever is installed."""
    was_on = bool(fast_family._originals)
    fast_family.uninstall()
    walk, dedupe = Mobject.get_family, iterables.remove_list_redundancies
    yield walk, dedupe
    if was_on:
        fast_family.install()


def _ids(mobjects):
    return [id(m) for m in mobjects]


def _shared():
    a, b, c, d = Square(), Circle(), VMobject(), Square()
    shared = VGroup(c, d)
    # the same group under two parents: repeats keep their last place
    return VGroup(VGroup(a, shared), b, VGroup(shared, a))


def _cycles():
    cyclic = VGroup(Square(), Circle())
    cyclic.submobjects.append(cyclic)  # a cycle: the walk must end
    inner = VGroup(Square())
    inner.submobjects.append(VGroup(inner, Circle()))  # a longer cycle
    return VGroup(cyclic, inner)


def _random_dag():
    rng = random.Random(5)
    pool = [Square() for _ in range(12)]
    groups = []
    for _ in range(10):
        groups.append(VGroup(*rng.sample(pool + groups, k=min(4, len(pool + groups)))))
    return VGroup(*groups[-4:])


# Built inside the test, never at collection: a formula built while pytest-xdist's workers
# collect is compiled by both at once into the same LaTeX folder, and one deletes the other's file.
_TREES = {
    "shared": _shared,
    "cycles": _cycles,
    "text": lambda: Text("h_T = 0.84", font_size=24),
    "column": lambda: VectorColumn([0.5, -0.25, 0.125], DARK, key="t", label="h_1"),
    "random dag": _random_dag,
}


@pytest.mark.parametrize("name", list(_TREES))
def test_families_match_manims(manim_walk, name):
    walk, _ = manim_walk
    tree = _TREES[name]()
    expected = walk(tree)
    got = fast_family.get_family(tree)
    assert _ids(got) == _ids(expected) and len(got) > 1


def test_repeats_keep_their_last_place(manim_walk):
    _, dedupe = manim_walk
    rng = random.Random(2)
    for _ in range(50):
        items = [rng.randrange(8) for _ in range(rng.randrange(20))]
        assert fast_family.remove_list_redundancies(items) == dedupe(items)
    assert fast_family.remove_list_redundancies([1, 2, 1, 3, 2]) == [1, 3, 2]  # by hand


def test_install_replaces_every_user_and_uninstall_restores(manim_walk):
    walk, dedupe = manim_walk
    fast_family.install()
    try:
        assert Mobject.get_family is fast_family.get_family
        assert family.remove_list_redundancies is fast_family.remove_list_redundancies
        tree = _shared()
        assert _ids(family.extract_mobject_family_members([tree], only_those_with_points=True)) == \
            _ids([m for m in walk(tree) if len(m.points)])
    finally:
        fast_family.uninstall()
    assert Mobject.get_family is walk and family.remove_list_redundancies is dedupe
