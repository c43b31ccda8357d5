"""Every labelled symbol, in every scene, is drawn in its role's colour (docs/notation.md);
and no scene goes blank or blinks (a group fading out and back unchanged within 1.5 s).

The colour is read back from the screen: at each audit snapshot, every text
or formula whose whole content is one symbol of the notation table (h₃,
s_{t-1}, op₂ =, E, X^{T}, ...) is looked up in :data:`scenes.theme.ROLES` and
its glyphs' fill colour compared with the theme's colour for that role.
"""

from __future__ import annotations

import re

import pytest

from scenes import DARK, LIGHT, SCENES
from scenes.theme import ROLES

from .helpers import observed_default

_SUB = "\u2080-\u2089\u2090-\u209c\u1d62\u2c7c"  # Unicode subscript digits and letters
# A symbol alone, optionally followed by "=" or "= 0" (h₀ = 0, op_{2} =).
_TEXT_SYMBOL = re.compile(rf"^(op|[hsxcqeaf])[{_SUB}]+(\s*=(\s*0)?)?$")
_TEX_SYMBOL = re.compile(r"^(op|[hsxcqeaf]|[EAXQOo])(_\{?[0-9a-zA-Z,+\-]+\}?)?(\^\{?T\}?)?(\s*=(\s*0)?)?$")
_TEX_INDEX = re.compile(r"_\{?([0-9a-zA-Z,+\-]+)\}?")


def role_of(text: str, tex: bool) -> str | None:
    """The ROLES symbol a label names, or ``None`` if it is not one symbol alone."""
    text = text.strip()
    match = (_TEX_SYMBOL if tex else _TEXT_SYMBOL).match(text)
    if not match:
        return None
    letter = match.group(1)
    if letter == "e":  # e_w (a French embedding) or e_tj (a score): one index or two
        index = _TEX_INDEX.search(text)
        sub = index.group(1) if index else text[1:].split("=")[0].strip()
        return "e_w" if sub in ("w",) else "e_tj"
    return {"h": "h", "s": "s", "x": "x", "c": "c_t", "q": "query", "a": "a_tj", "f": "keys",
            "op": "op", "E": "E", "A": "A", "X": "X", "Q": "Q", "O": "O", "o": "o"}[letter]


def test_role_of_reads_the_notation():
    assert role_of("h₃", tex=False) == "h" and role_of("s₀", tex=False) == "s"
    assert role_of("op₂", tex=False) == "op" and role_of("h₀ = 0", tex=False) == "h"
    assert role_of("c₄", tex=False) == "c_t" and role_of("q₁", tex=False) == "query"
    assert role_of("e_{tj}", tex=True) == "e_tj" and role_of("e_w", tex=True) == "e_w"
    assert role_of("a_{tj}", tex=True) == "a_tj" and role_of("op_{2} =", tex=True) == "op"
    assert role_of("X^{T}", tex=True) == "X" and role_of("E", tex=True) == "E"
    assert role_of("s_{t-1}", tex=True) == "s" and role_of("f_{3,1}", tex=True) == "keys"
    for other in ("has", "la", "p =", "E = Q\\,X^{T}", "a_{2i}\\,h_{i2}", "\\vdots", "sum", "at 3 words,"):
        assert role_of(other, tex=True) is None and role_of(other, tex=False) is None
    assert set(role_of(s, True) for s in ("h_1", "s_2", "x_3", "c_t", "op_1", "E", "A", "X", "Q", "O", "o")) \
        <= set(ROLES)


def _labels_seen(scene_id: str, theme) -> dict[tuple[str, str], set[str]]:
    """(label, role) -> the colours its glyphs had at any snapshot (halfway through
    every animation too), from the shared default build (helpers.observed_default)."""
    seen: dict[tuple[str, str], set[str]] = {}
    for (written, tex), colours in observed_default(scene_id, theme.name).labels.items():
        role = role_of(written, tex=tex)
        if role is not None:
            seen.setdefault((written, role), set()).update(colours)
    return seen


def _wrong(seen, theme) -> list[str]:
    return sorted(f"{label!r} ({role}) drawn {sorted(colours)}, its role is {theme.role(role).upper()}"
                  for (label, role), colours in seen.items()
                  if colours != {theme.role(role).upper()})


@pytest.mark.parametrize("scene_id", list(SCENES))
@pytest.mark.default_build
def test_every_labelled_symbol_has_its_role_colour(scene_id):
    seen = _labels_seen(scene_id, DARK)
    assert not _wrong(seen, DARK)


@pytest.mark.parametrize("scene_id", ["decoder", "attention_process"])
@pytest.mark.default_build
def test_the_light_theme_too(scene_id):
    seen = _labels_seen(scene_id, LIGHT)
    assert seen and not _wrong(seen, LIGHT)


#: Scenes of other helpers that still blank or blink on this branch (issue 22 part B and the
#: edges issue fix them); strict, so the mark must go once they are fixed.
_OTHERS_OPEN: dict[str, str] = {
    # None open: cnn_attention's weights trading cells (1.00 from the ball's cell to the
    # car's) read as moved since a group's signature holds each text's place, and
    # hidden_state_map's rows travel into their points (no empty frame at 10 s).
}


@pytest.mark.parametrize("scene_id", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=_OTHERS_OPEN[s])) if s in _OTHERS_OPEN else s
    for s in SCENES])
@pytest.mark.default_build
def test_no_blank_moment_and_no_blink(scene_id):
    scene = observed_default(scene_id, "dark").scene
    assert scene.audit.snapshots > 10
    assert not scene.audit.motion_faults()
