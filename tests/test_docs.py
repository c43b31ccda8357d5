"""The README and the pages of docs/: every link leads somewhere, every path named exists.

The README is for users and stays short; what it leaves out lives in docs/, reached from it.
Code moves (files renamed, packages split), and a page that names the old place misleads its
reader: these tests read the pages as text and check each relative link, each heading a link
points at, and each module path or dotted name of ours against the tree.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
PACKAGES = ("attention_core", "manim_speedups", "publish", "scenes")
TOP_FOLDERS = (*PACKAGES, "scripts", "tests", "docs")

__all__: list[str] = []

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE = re.compile(r"`([^`\n]+)`")


def _prose(text: str) -> str:
    """The page without its fenced code blocks (a link in a code sample is not a link)."""
    return _FENCE.sub("", text)


def _links(page: Path) -> list[str]:
    return _LINK.findall(_prose(page.read_text(encoding="utf-8")))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`|\*\*|\*", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", _prose(page.read_text(encoding="utf-8")),
                                                   re.M)}


def _is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in _links(page):
        if not _is_relative(target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target} (no file {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest})")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target} (no heading #{anchor} in {dest.name})")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_every_page_of_docs_is_reached_from_the_readme():
    seen, todo = set(), [README]
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        for target in _links(page):
            path = target.partition("#")[0]
            if _is_relative(target) and path.endswith(".md"):
                dest = (page.parent / path).resolve()
                if dest.exists():
                    todo.append(dest)
    unreached = [p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md") if p.resolve() not in seen]
    assert not unreached, f"pages no link from README.md leads to: {sorted(unreached)}"


def test_the_readme_links_each_page_of_its_own_once():
    counts: dict[str, int] = {}
    for target in _links(README):
        path = target.partition("#")[0]
        if _is_relative(target) and path.startswith("docs/") and path.endswith(".md") and "/" not in path[5:]:
            counts[path] = counts.get(path, 0) + 1
    twice = {p: n for p, n in counts.items() if n > 1}
    assert not twice, f"linked more than once from README.md: {twice}"


def test_the_readme_is_short_and_names_the_test_command():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300, f"README.md has {len(text.splitlines())} lines (at most 300)"
    # .ci/run runs exactly the README's test command: the README must keep showing it.
    assert "scripts/test.sh" in text
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _named_paths(page: Path) -> list[str]:
    """Paths of ours a page names in code spans: ``publish/rendering/names.py``, ``scenes/``."""
    found = []
    for span in _CODE.findall(page.read_text(encoding="utf-8")):
        for word in re.findall(r"[\w./-]+", span):
            if word.split("/")[0] in TOP_FOLDERS and "/" in word and not re.search(r"[<>*]", span):
                found.append(word.rstrip(".,;:"))
    return found


def _defines(module: Path, name: str) -> bool:
    """Whether ``module`` defines ``name`` at its top level or as a method of one of its classes."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def _dotted_names(page: Path) -> list[str]:
    """Dotted names of ours a page names: ``publish.rendering.split.render_part``."""
    pattern = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:\.\w+)+$")
    return [span for span in _CODE.findall(page.read_text(encoding="utf-8")) if pattern.match(span)]


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        module = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if module.exists():
            rest = parts[cut:]
            return not rest or (len(rest) == 1 and _defines(module, rest[0]))
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_and_module_a_page_names_exists(page):
    missing = [p for p in _named_paths(page) if not (ROOT / p).exists()]
    missing += [d for d in _dotted_names(page) if not _resolves(d)]
    assert not missing, f"{page.name} names what the tree does not have: {sorted(set(missing))}"


def test_the_checks_find_what_is_broken(tmp_path):
    # The readers above must see a broken link, a stray heading and a moved module, or they prove nothing.
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[a](missing.md) [b](#title) [c](#nowhere) ![d](pic.png)\n"
                    "```\n[not a link](nowhere.md)\n```\n`publish/speedups.py` `publish.rendering.split.no_such`\n",
                    encoding="utf-8")
    assert _links(page) == ["missing.md", "#title", "#nowhere", "pic.png"]
    assert _anchors(page) == {"title"}
    assert _named_paths(page) == ["publish/speedups.py"]
    assert not (ROOT / "publish/speedups.py").exists()
    assert _dotted_names(page) == ["publish.rendering.split.no_such"]
    assert not _resolves("publish.rendering.split.no_such")
    assert _resolves("publish.rendering.split.render_part")
