"""No import circles in ``attention_core`` and ``publish`` (issue 24, item 7).

The graph is read from the source with :mod:`ast`, nothing is imported: an
edge ``a -> b`` for every ``import`` or ``from ... import`` in module ``a``
that names a project module ``b``, at module level and inside functions
alike. A function-level import is how a circle used to be hidden (it runs
later, so Python does not fail at import time), yet the two modules still
need each other: counting it is what keeps the layers honest. Only imports
under ``if TYPE_CHECKING:`` are left out: they never run.

``scenes`` is read too, so that a circle running through it is seen; the
test asserts on every circle that has a module of ``attention_core`` or
``publish`` in it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("attention_core", "manim_speedups", "publish", "scenes")
CHECKED = ("attention_core", "manim_speedups", "publish")
#: The floors, lowest first: a module may import from its own floor or those below, never above.
FLOORS = {"attention_core": 0, "manim_speedups": 0, "scenes": 1, "publish": 2}

__all__: list[str] = []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every import node, except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _targets(name: str, path: Path, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    """The project modules one import statement loads (besides their parent packages)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    if node.level:
        # The package the relative import starts from: a module's own for __init__.py.
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        base = package[:len(package) - (node.level - 1)]
        stem = ".".join([*base, *(node.module.split(".") if node.module else [])])
    else:
        stem = node.module or ""
    out = set()
    for alias in node.names:
        sub = f"{stem}.{alias.name}"
        if sub in modules:  # "from . import maths": the submodule itself
            out.add(sub)
        elif stem in modules:
            out.add(stem)
    return out


def import_graph() -> dict[str, set[str]]:
    """``module -> the project modules it imports``, for every module of :data:`PACKAGES`."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text("utf-8"), str(path))
        edges: set[str] = set()
        for node in _imports(tree):
            edges |= _targets(name, path, node, modules)
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle (``a -> b -> ... -> a``) for every strongly connected group of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def connect(v: str) -> None:  # Tarjan's algorithm; the graph has ~100 nodes
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return [_circle_in(group, graph) for group in groups]


def _circle_in(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & group):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no circle in {sorted(group)}")  # a strongly connected group always has one


def _shown(circles: list[list[str]], graph: dict[str, set[str]]) -> str:
    """Each circle, then every import among the modules it ties (a circle is often one of many)."""
    lines = []
    for circle in circles:
        lines.append("circle: " + " -> ".join(circle))
        tied = _tied(circle[0], graph)
        lines += [f"  {a} -> {b}" for a in sorted(tied) for b in sorted(graph[a] & tied)]
    return "\n".join(lines)


def _tied(start: str, graph: dict[str, set[str]]) -> set[str]:
    """The modules that ``start`` reaches and that reach it back."""
    def reach(edges: dict[str, set[str]]) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for w in edges[todo.pop()]:
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        return seen

    back: dict[str, set[str]] = {v: set() for v in graph}
    for v, ws in graph.items():
        for w in ws:
            back[w].add(v)
    return reach(graph) & reach(back)


def test_the_graph_reader_finds_a_circle(tmp_path):
    # The reader itself, on a hand-made graph: a circle through a function-level
    # import is found, a TYPE_CHECKING one is not, nor a chain without a loop.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    source = ("from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
              "from .b import x\nif TYPE_CHECKING:\n    from .c import y\n"
              "def f():\n    from . import d\n    import numpy\n")
    modules = {"pkg.a": tmp_path / "a.py", "pkg.b": tmp_path / "b.py", "pkg.c": tmp_path / "c.py",
               "pkg.d": tmp_path / "d.py"}
    found = set()
    for node in _imports(ast.parse(source)):
        found |= _targets("pkg.a", modules["pkg.a"], node, modules)
    assert found == {"pkg.b", "pkg.d"}  # numpy is no project module


def test_the_graph_sees_the_project():
    graph = import_graph()
    # Known edges of today's layout, one per package, so an empty graph cannot pass.
    assert "attention_core.text" in graph["attention_core.numbers_file"]
    assert "publish.rendering.cache" in graph["publish.rendering.pipeline"]
    assert "attention_core.numbers_file" in graph["attention_core.trace"]


@pytest.mark.parametrize("package", CHECKED)
def test_no_import_circle(package):
    graph = import_graph()
    found = [c for c in cycles(graph) if any(m.split(".")[0] == package for m in c)]
    assert not found, f"import circles through {package}:\n{_shown(found, graph)}"


def test_every_import_stays_on_its_floor_or_goes_down():
    graph = import_graph()
    climbs = sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                    if FLOORS[b.split(".")[0]] > FLOORS[a.split(".")[0]]
                    or (FLOORS[b.split(".")[0]] == FLOORS[a.split(".")[0]] and a.split(".")[0] != b.split(".")[0]))
    assert not climbs, "imports that climb a floor (or cross to a neighbour on the ground floor):\n" + "\n".join(climbs)


def test_the_speedups_know_no_module_of_ours():
    graph = import_graph()
    ours = {m for m, targets in graph.items() if m.startswith("manim_speedups") for t in targets
            if not t.startswith("manim_speedups")}
    assert not ours, f"manim_speedups imports project modules: {sorted(ours)}"
    for path in sorted((ROOT / "manim_speedups").rglob("*.py")):
        text = path.read_text("utf-8")
        for name in ("scenes", "publish", "attention_core"):
            assert f'"{name}' not in text and f"'{name}" not in text, f"{path.name} names the package {name!r}"


def _scene_modules() -> set[str]:
    """The modules registered as scenes in ``scenes.SCENE_MODULES`` (read as text: no manim)."""
    tree = ast.parse((ROOT / "scenes" / "__init__.py").read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "SCENE_MODULES":
            return {ref.value.split(":")[0] for ref in node.value.values}
    raise AssertionError("scenes/__init__.py has no SCENE_MODULES")


def test_no_scene_module_imports_another_scene():
    # A helper two scenes share lives in a shared module (components, motion, matrix_layout...),
    # so a scene's module can change without another scene changing with it.
    scenes = _scene_modules()
    graph = import_graph()
    assert {"scenes.decoder", "scenes.worked_example"} <= scenes and len(scenes) > 10
    found = sorted(f"{a} -> {b}" for a in scenes for b in graph[a] & scenes)
    assert not found, "scene modules that import another scene's module:\n" + "\n".join(found)
