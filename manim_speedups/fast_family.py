"""Manim's family walks, computed faster with the same result.

``Mobject.get_family`` (a mobject and all its submobjects, depth first) is
called hundreds of thousands of times in a render: every frame, every
``play``'s set-up, every check whether a mobject is in the scene. Manim
0.22 writes it as nested generators (one generator per level for every
member, with a set of the mobjects on the current path so that a cycle
ends) and then removes repeats with a Python loop. In ``attention_process``
those two took ~15 % of the render.

:func:`install` replaces ``Mobject.get_family`` with a plain recursive
walk over the same tree with the same rule for cycles, and Manim's
``remove_list_redundancies`` (keep the last occurrence of each element, in
order) with ``dict.fromkeys`` on the reversed list: same lists, same order
(``tests/test_fast_family.py`` compares them on trees with shared members
and cycles). ``ATTENTION_FAST_FAMILY=0`` turns this off.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["install", "uninstall", "ENV", "get_family", "remove_list_redundancies"]

ENV = "ATTENTION_FAST_FAMILY"

_originals: dict[str, Any] = {}
# Modules that imported remove_list_redundancies by name.
_USERS = ("manim.utils.iterables", "manim.utils.family", "manim.mobject.mobject", "manim.animation.composition")


def remove_list_redundancies(lst: Any) -> list[Any]:
    """The elements of ``lst`` in order, each kept at its last occurrence."""
    kept = list(dict.fromkeys(reversed(lst)))
    kept.reverse()
    return kept


def get_family(self: Any, recurse: bool = True) -> list[Any]:
    """``self`` and its submobjects, depth first; a mobject already on the
    path from ``self`` is not entered again (a cycle); repeats keep their last place."""
    found: list[Any] = []
    on_path: set[int] = set()

    def walk(mob: Any) -> None:
        key = id(mob)
        if key in on_path:
            return
        on_path.add(key)
        found.append(mob)
        for sub in mob.submobjects:
            walk(sub)
        on_path.discard(key)

    walk(self)
    if len(found) == len(set(map(id, found))):
        return found
    return remove_list_redundancies(found)


def install() -> None:
    """Idempotent; off when ``ATTENTION_FAST_FAMILY=0``."""
    if _originals or os.environ.get(ENV, "1") == "0":
        return
    import importlib

    from manim.mobject.mobject import Mobject

    _originals["get_family"] = Mobject.get_family
    Mobject.get_family = get_family  # type: ignore[method-assign]
    for name in _USERS:
        module = importlib.import_module(name)
        if hasattr(module, "remove_list_redundancies"):
            _originals[name] = module.remove_list_redundancies
            module.remove_list_redundancies = remove_list_redundancies


def uninstall() -> None:
    import importlib

    from manim.mobject.mobject import Mobject

    if not _originals:
        return
    Mobject.get_family = _originals.pop("get_family")  # type: ignore[method-assign]
    for name, original in list(_originals.items()):
        importlib.import_module(name).remove_list_redundancies = original
    _originals.clear()
