"""Issue 22, item 8: scenes read like storyboards, each beat a method of at most ~50 lines.

Read from the source (AST), no rendering: every method of every class in the scene
modules named below is at most :data:`MAX_BEAT_LINES` lines, ``construct`` included.
Every scene in the registry: each scene's module is named by its id.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scenes import SCENES as SCENE_IDS

SCENES = Path(__file__).resolve().parent.parent / "scenes"
MAX_BEAT_LINES = 50
SPLIT = tuple(SCENE_IDS)


def long_methods(source: str, limit: int = MAX_BEAT_LINES) -> list[tuple[str, int]]:
    """``(Class.method, lines)`` for every method of a class in ``source`` over ``limit`` lines
    (from its ``def`` to its last line, decorators and docstring counted)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = item.end_lineno - item.lineno + 1
                    if lines > limit:
                        out.append((f"{node.name}.{item.name}", lines))
    return out


def test_long_methods_counts_lines_by_hand():
    short = "class S:\n    def a(self):\n" + "        x = 1\n" * 3
    long = "class S:\n    def b(self):\n" + "        x = 1\n" * 50
    assert long_methods(short) == []
    assert long_methods(long) == [("S.b", 51)]  # the def line and 50 body lines
    assert long_methods("def free():\n" + "    x = 1\n" * 80) == []  # only methods of classes


@pytest.mark.parametrize("module", SPLIT)
def test_every_beat_is_short(module):
    assert long_methods((SCENES / f"{module}.py").read_text()) == []


def test_every_scene_module_is_checked():
    assert len(SPLIT) == 15 and all((SCENES / f"{m}.py").is_file() for m in SPLIT)
