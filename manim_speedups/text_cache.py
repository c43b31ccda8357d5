"""Built ``Text`` mobjects reused by copy: the same string is laid out once.

A ``manim.Text`` costs ~25 ms to build (Pango writes an SVG, svgelements
parses it, the paths become Bezier points), and the scenes build the same
short strings again and again ("-0.84", "0.00", the words of the sentence).
:func:`install` wraps ``Text.__init__``: the first ``Text`` of given
arguments is built as usual and kept; every later one with equal arguments
(text, font, size, colour, weight, slant, t2c, ... all of them, by value)
becomes a structural copy of that one: every mobject and numpy array
copied, lists and dicts rebuilt, references between the copied mobjects
(``chars``, ``id_to_vgroup_dict``) pointing to the new ones, immutable values
(strings, numbers, colours, enums) and the parsed SVG path (read only when a
path is built) shared. That is the object a fresh build gives, at a fraction
of ``Mobject.copy``'s cost (a ``deepcopy`` that also copies the parsed SVG). Subclasses that only add attributes (``NumberLabel``)
keep theirs: only the ``Text`` state is copied in.

:func:`install` also makes ``copy.deepcopy`` (``Mobject.copy``, which every
``FadeIn``/``Transform`` uses) share the parsed ``svgelements.Path`` of each
glyph instead of copying it: Manim reads that object only while building a
glyph's points, never changes it, and it was ~85 % of the cost of copying a
``Text`` or ``MathTex``.

Only keyword arguments whose ``repr`` identifies their value are cached
(strings, numbers, colours, dicts of those); anything else builds as usual.
The key also holds the frame size, which the layout does not read today but
would make a copy wrong if it ever did. ``ATTENTION_TEXT_CACHE=0`` turns the
cache off (for before/after comparisons).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from manim import Mobject, Text, config

__all__ = ["install", "uninstall", "clear", "stats", "structural_copy", "ENV"]

ENV = "ATTENTION_TEXT_CACHE"
MAX_ENTRIES = 4096

_cache: dict[tuple, Text] = {}
_original_init: Any = None
_hits = 0
_misses = 0
_PLAIN = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return type(value).__name__ == "ManimColor"  # its repr is its RGBA value


#: Modules whose ``Text`` subclasses build exactly as ``Text`` does (they only add
#: methods or defaults), so both speedups may serve them: set by :func:`manim_speedups.install`.
TEXT_SUBCLASS_MODULES: tuple[str, ...] = ()


def builds_as_text(cls: type) -> bool:
    """``Text`` itself, or a subclass from a module the caller vouched for at install."""
    return cls is Text or (issubclass(cls, Text) and any(
        cls.__module__ == m or cls.__module__.startswith(m + ".") for m in TEXT_SUBCLASS_MODULES))


def _key(self: Text, text: Any, args: tuple, kwargs: dict[str, Any]) -> tuple | None:
    if args or not isinstance(text, str):
        return None
    if not builds_as_text(type(self)):
        return None  # manim's own subclasses may build differently
    if not all(_plain(v) for v in kwargs.values()):
        return None
    return (text, tuple(sorted((k, repr(v)) for k, v in kwargs.items())),
            config.frame_width, config.frame_height)


def _cached_init(self: Text, text: str, *args: Any, **kwargs: Any) -> None:
    global _hits, _misses
    key = _key(self, text, args, kwargs)
    if key is None:
        _original_init(self, text, *args, **kwargs)
        return
    proto = _cache.get(key)
    if proto is None:
        _misses += 1
        proto = Text.__new__(Text)
        _original_init(proto, text, **kwargs)
        if len(_cache) >= MAX_ENTRIES:
            _cache.pop(next(iter(_cache)))
        _cache[key] = proto
    else:
        _hits += 1
    memo: dict[int, Any] = {id(proto): self}
    self.__dict__.update({k: v if type(v) in _AS_IS else _clone(v, memo) for k, v in proto.__dict__.items()})


def structural_copy(mob: Mobject) -> Mobject:
    """A copy of ``mob`` as :func:`_cached_init` makes one: mobjects and arrays copied,
    lists and dicts rebuilt, immutable values (and parsed SVG paths) shared."""
    return _clone(mob, {})


#: Exact types returned as they are without a look at what they hold (most of a glyph's
#: attributes): what the checks below return them as anyway, a function call sooner.
_AS_IS = frozenset({int, float, str, bool, type(None), bytes, complex, np.float64, np.int64, np.bool_})


def _clone(value: Any, memo: dict[int, Any]) -> Any:
    if type(value) in _AS_IS:
        return value
    if isinstance(value, Mobject):
        done = memo.get(id(value))
        if done is None:
            done = memo[id(value)] = object.__new__(type(value))
            done.__dict__.update({k: v if type(v) in _AS_IS else _clone(v, memo) for k, v in value.__dict__.items()})
        return done
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [_clone(v, memo) for v in value]
    if isinstance(value, dict):
        return {k: _clone(v, memo) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_clone(v, memo) for v in value)
    return value  # immutable, or never changed after the build (the parsed SVG path)


def _shared(self: Any, memo: dict[int, Any]) -> Any:
    return self


def install() -> None:
    """Reuse built texts from now on (idempotent; off when ``ATTENTION_TEXT_CACHE=0``)."""
    global _original_init
    if _original_init is not None or os.environ.get(ENV, "1") == "0":
        return
    from svgelements import Path as SvgPath

    _original_init = Text.__init__
    Text.__init__ = _cached_init  # type: ignore[method-assign]
    if "__deepcopy__" not in SvgPath.__dict__:
        SvgPath.__deepcopy__ = _shared  # type: ignore[attr-defined]


def uninstall() -> None:
    global _original_init
    from svgelements import Path as SvgPath

    if _original_init is not None:
        Text.__init__ = _original_init  # type: ignore[method-assign]
        _original_init = None
    if SvgPath.__dict__.get("__deepcopy__") is _shared:
        del SvgPath.__deepcopy__
    clear()


def clear() -> None:
    global _hits, _misses
    _cache.clear()
    _hits = _misses = 0


def stats() -> dict[str, int]:
    """Texts built (misses) and copied (hits) since the last :func:`clear`."""
    return {"built": _misses, "copied": _hits, "entries": len(_cache)}
