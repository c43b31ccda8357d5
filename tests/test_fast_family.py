"""publish/fast_family.py: the same families, in the same order, as Manim's own walk."""

from __future__ import annotations

import random

import pytest
from manim import Circle, Square, Text, VGroup, VMobject
from manim.mobject.mobject import Mobject
from manim.utils import family, iterables

from publish import fast_family
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


def _trees():
    a, b, c, d = Square(), Circle(), VMobject(), Square()
    shared = VGroup(c, d)
    # the same group under two parents: repeats keep their last place
    yield VGroup(VGroup(a, shared), b, VGroup(shared, a))
    cyclic = VGroup(Square(), Circle())
    cyclic.submobjects.append(cyclic)  # a cycle: the walk must end
    inner = VGroup(Square())
    inner.submobjects.append(VGroup(inner, Circle()))  # a longer cycle
    yield VGroup(cyclic, inner)
    yield Text("h_T = 0.84", font_size=24)
    yield VectorColumn([0.5, -0.25, 0.125], DARK, key="t", label="h_1")
    rng = random.Random(5)
    pool = [Square() for _ in range(12)]
    groups = []
    for _ in range(10):
        groups.append(VGroup(*rng.sample(pool + groups, k=min(4, len(pool + groups)))))
    yield VGroup(*groups[-4:])


@pytest.mark.parametrize("tree", list(_trees()), ids=["shared", "cycles", "text", "column", "random dag"])
def test_families_match_manims(manim_walk, tree):
    walk, _ = manim_walk
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
        tree = next(_trees())
        assert _ids(family.extract_mobject_family_members([tree], only_those_with_points=True)) == \
            _ids([m for m in walk(tree) if len(m.points)])
    finally:
        fast_family.uninstall()
    assert Mobject.get_family is walk and family.remove_list_redundancies is dedupe
