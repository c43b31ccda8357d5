"""``Text`` built from cached glyph outlines, with the points a full SVG parse gives.

Building a ``manim.Text`` costs ~27 ms, and Pango's part of it (laying the
string out and writing an SVG) is ~1 ms. The rest is Manim reading that
SVG back: ``svgelements`` parses the whole document, resolving every
``<use>`` of a glyph into a path of its own (~45 %), then Manim turns each
path into Bezier points and builds a ``VGroup`` for every SVG element,
about 30 of them for a number like "-0.84" (~40 %). The scenes show
hundreds of distinct numbers, written with the same dozen glyphs.

Pango (through Cairo's SVG surface) writes a text as one ``<symbol>`` per
glyph outline and one ``<use xlink:href="#glyphN-M" x=".." y="..">`` per
character, in groups that carry the fill. :func:`install` wraps
``SVGMobject.generate_mobject`` for ``Text``: a document of exactly that
shape is read with ``xml.etree`` instead. Each outline is parsed once
(and checked against the points Manim makes of it); each glyph's points
are computed from it moved to the ``<use>``'s position, with the
arithmetic ``svgelements`` and ``VMobjectFromSVGPath`` apply (translate,
then lines as cubic curves ``(2a + b) / 3``, a closing line where the ends
are further than 1e-4 apart), vectorised; its style is copied from a
glyph Manim built in the same style (resolved once per style by Manim's
own parse). So the points are equal, float for float, the colours too,
and the ``id_to_vgroup_dict`` has the same names and members: the groups
are those Manim's traversal of the parsed tree would make. Any other
document (a transform, a shape that is not a path, markup Pango rarely
writes) is built the usual way. ``ATTENTION_GLYPH_TEXT=0`` turns this off.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
from manim import Mobject, Text

__all__ = ["install", "uninstall", "installed", "clear", "stats", "structural_copy", "builds_as_text",
           "TEXT_SUBCLASS_MODULES", "ENV"]

ENV = "ATTENTION_GLYPH_TEXT"
MAX_TEMPLATES = 2048

_SVG = "{http://www.w3.org/2000/svg}"
_HREF = "{http://www.w3.org/1999/xlink}href"

_original: Any = None
_outlines: dict[str, "_Glyph"] = {}  # by the path's d
_styles: dict[tuple, Any] = {}  # a glyph mobject by style (config, root, path and group styles)
_empty_group: Any = None
_counts = {"fast": 0, "usual": 0, "templates": 0}


#: Modules whose ``Text`` subclasses build exactly as ``Text`` does (they only add
#: methods or defaults), so the glyph assembly may serve them: set by :func:`manim_speedups.install`.
TEXT_SUBCLASS_MODULES: tuple[str, ...] = ()


def builds_as_text(cls: type) -> bool:
    """``Text`` itself, or a subclass from a module the caller vouched for at install."""
    return cls is Text or (issubclass(cls, Text) and any(
        cls.__module__ == m or cls.__module__.startswith(m + ".") for m in TEXT_SUBCLASS_MODULES))


def structural_copy(mob: Mobject) -> Mobject:
    """A copy of ``mob``: mobjects and arrays copied, lists and dicts rebuilt, references between
    the copied mobjects pointing to the new ones, immutable values (and parsed SVG paths) shared
    (a fraction of ``Mobject.copy``'s cost, a ``deepcopy`` that also copies the parsed SVG)."""
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


class _Unsupported(Exception):
    """The document is not one this module reads: build it the usual way."""


class _Glyph:
    """One glyph outline: its parsed path and segments."""

    __slots__ = ("path", "coords", "ops", "closes", "_plans")

    def __init__(self, path: Any) -> None:
        import svgelements as se

        self.path = path
        coords: list[tuple[float, float]] = []
        # ops: (kind, indices into coords); kind 0 move, 1 line, 2 quad, 3 cubic, 4 close
        ops: list[tuple[int, tuple[int, ...]]] = []

        def at(point: Any) -> int:
            coords.append((point[0], point[1]))
            return len(coords) - 1

        for segment in path:
            kind = type(segment)
            if kind is se.Move:
                ops.append((0, (at(segment.end),)))
            elif kind is se.Line:
                ops.append((1, (at(segment.end),)))
            elif kind is se.QuadraticBezier:
                ops.append((2, (at(segment.control), at(segment.end))))
            elif kind is se.CubicBezier:
                ops.append((3, (at(segment.control1), at(segment.control2), at(segment.end))))
            elif kind is se.Close:
                ops.append((4, ()))
            else:
                raise _Unsupported(kind.__name__)
        self.coords = np.array(coords, dtype=np.float64).reshape(-1, 2)
        self.ops = ops
        # (pen, last move) at each close: whether a closing line is drawn depends on their distance.
        # Where the pen is after a close depends on that too, so only outlines that move after
        # every close (as Cairo writes them) are read here.
        self.closes: list[tuple[int, int]] = []
        last = true_move = -1
        for i, (kind, idx) in enumerate(ops):
            if kind == 0:
                last = true_move = idx[0]
            elif kind in (1, 2, 3):
                if last < 0:
                    raise _Unsupported("a path that does not start with a move")
                last = idx[-1]
            else:
                if last < 0 or (i + 1 < len(ops) and ops[i + 1][0] != 0):
                    raise _Unsupported("a close not followed by a move")
                self.closes.append((last, true_move))
        self._plans: dict[tuple[bool, ...], tuple] = {}

    def points_at(self, dx: float, dy: float) -> np.ndarray:
        """The points ``VMobjectFromSVGPath`` makes of this outline moved by (dx, dy)."""
        # svgelements moves each point by x*1 + y*0 + dx (and likewise y): exactly x + dx.
        xy = np.zeros((len(self.coords), 3))
        xy[:, 0] = self.coords[:, 0] + dx
        xy[:, 1] = self.coords[:, 1] + dy
        closing = tuple(bool(np.linalg.norm(xy[a] - xy[b]) > 0.0001) for a, b in self.closes)
        plan = self._plans.get(closing)
        if plan is None:
            plan = self._plans[closing] = self._plan(closing)
        rows, raw, mixed, (a, b, c) = plan
        out = np.empty((rows, 3))
        out[raw[0]] = xy[raw[1]]
        out[mixed] = (xy[a] + xy[b] + xy[c]) / 3
        return out

    def _plan(self, closing: tuple[bool, ...]) -> tuple:
        """Which point of ``xy`` (or which third of three) each row of the result is.

        Rows as Manim's ``handle_commands`` appends them, 4 per curve: a line
        from s to e is s, (s + s + e) / 3, (s + e + e) / 3, e; a quadratic
        s, c, e is s, (s + c + c) / 3, (c + c + e) / 3, e; a close adds the
        line back to the last move when ``closing`` says the ends are apart.
        """
        raw_rows: list[int] = []
        raw_src: list[int] = []
        mixed_rows: list[int] = []
        thirds: list[tuple[int, int, int]] = []
        n = 0

        def put(*items: Any) -> None:
            nonlocal n
            for item in items:
                if isinstance(item, tuple):
                    mixed_rows.append(n)
                    thirds.append(item)
                else:
                    raw_rows.append(n)
                    raw_src.append(item)
                n += 1

        last = true_move = -1
        closes = iter(closing)
        for kind, idx in self.ops:
            if kind == 0:
                last = true_move = idx[0]
            elif kind == 1:
                put(last, (last, last, idx[0]), (last, idx[0], idx[0]), idx[0])
                last = idx[0]
            elif kind == 2:
                cp, end = idx
                put(last, (last, cp, cp), (cp, cp, end), end)
                last = end
            elif kind == 3:
                put(last, *idx)
                last = idx[2]
            elif next(closes):
                put(last, (last, last, true_move), (last, true_move, true_move), true_move)
                last = true_move
        as_index = lambda values: np.array(values, dtype=np.intp)  # noqa: E731
        a, b, c = (as_index([t[i] for t in thirds]) for i in range(3))
        return n, (as_index(raw_rows), as_index(raw_src)), as_index(mixed_rows), (a, b, c)


def _style_keys(self: Any, root: ET.Element) -> tuple:
    keys = ("fill", "fill-opacity", "stroke", "stroke-opacity", "stroke-width", "style")
    config_style = tuple(sorted(self.generate_config_style_dict().items()))
    root_style = tuple(sorted((k, v) for k, v in root.attrib.items() if k in keys))
    return config_style, root_style, tuple(sorted(self.path_string_config.items()))


def _read(root: ET.Element) -> tuple[dict[str, tuple[str, str]], list[tuple[str, list[tuple[str, float, float]]]], str | None]:
    """Glyph outlines by id, and the styled groups of ``<use>``s, of a Pango document."""
    symbols: dict[str, tuple[str, str]] = {}
    groups: list[tuple[str, list[tuple[str, float, float]]]] = []
    surface_id = None
    seen_surface = False
    for child in root:
        if child.tag == _SVG + "defs":
            if child.attrib:
                raise _Unsupported("defs attributes")
            for g in child:
                if g.tag != _SVG + "g" or g.attrib:
                    raise _Unsupported("defs content")
                for symbol in g:
                    if symbol.tag != _SVG + "symbol" or set(symbol.attrib) != {"overflow", "id"} \
                            or symbol.attrib["overflow"] != "visible" or len(symbol) != 1:
                        raise _Unsupported("symbol")
                    path = symbol[0]
                    if path.tag != _SVG + "path" or set(path.attrib) - {"style", "d"} or len(path):
                        raise _Unsupported("symbol path")
                    symbols[symbol.attrib["id"]] = (path.attrib.get("style", ""), path.attrib.get("d", ""))
        elif child.tag == _SVG + "g":
            if seen_surface or set(child.attrib) != {"id"}:
                raise _Unsupported("surface")
            seen_surface, surface_id = True, child.attrib["id"]
            for g in child:
                if g.tag != _SVG + "g" or set(g.attrib) != {"style"}:
                    raise _Unsupported("styled group")
                uses = []
                for use in g:
                    if use.tag != _SVG + "use" or set(use.attrib) != {_HREF, "x", "y"} or len(use):
                        raise _Unsupported("use")
                    href = use.attrib[_HREF]
                    if not href.startswith("#") or href[1:] not in symbols:
                        raise _Unsupported("href")
                    uses.append((href[1:], float(use.attrib["x"]), float(use.attrib["y"])))
                groups.append((g.attrib["style"], uses))
        else:
            raise _Unsupported(child.tag)
    if not seen_surface:
        raise _Unsupported("no surface")
    return symbols, groups, surface_id


def _outline(d: str) -> _Glyph:
    """The outline ``d``, parsed once; checked against the points Manim makes of it."""
    import svgelements as se
    from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

    glyph = _outlines.get(d)
    if glyph is None:
        glyph = _Glyph(se.Path(d))
        if not np.array_equal(VMobjectFromSVGPath(se.Path(d)).points, glyph.points_at(0.0, 0.0)):
            raise _Unsupported("outline read differently")  # never seen; the usual build is the truth
        if len(_outlines) >= MAX_TEMPLATES:
            _outlines.pop(next(iter(_outlines)))
        _outlines[d] = glyph
        _counts["templates"] += 1
    return glyph


def _styled(self: Any, root: ET.Element, keys: tuple, path_style: str, group_style: str) -> Any:
    """A glyph mobject in this style, as Manim's parse of a Pango document makes it
    (a small square stands for the outline: the style does not depend on it)."""
    import svgelements as se

    key = (keys, path_style, group_style)
    mob = _styles.get(key)
    if mob is None:
        doc = ET.Element(root.tag, dict(root.attrib))
        symbol = ET.SubElement(ET.SubElement(ET.SubElement(doc, _SVG + "defs"), _SVG + "g"), _SVG + "symbol",
                               {"overflow": "visible", "id": "glyph0-1"})
        ET.SubElement(symbol, _SVG + "path", {"style": path_style, "d": "M 0 0 L 1 0 L 1 1 L 0 1 Z"})
        group = ET.SubElement(ET.SubElement(doc, _SVG + "g", {"id": "surface1"}), _SVG + "g",
                              {"style": group_style})
        ET.SubElement(group, _SVG + "use", {_HREF: "#glyph0-1", "x": "0", "y": "0"})
        svg = se.SVG.parse(_as_file(self.modify_xml_tree(ET.ElementTree(doc))))
        mobjects, _ = self.get_mobjects_from(svg)
        if len(mobjects) != 1:
            raise _Unsupported("a style that does not make one mobject of one path")
        mob = _styles[key] = mobjects[0]
    return mob


def _as_file(tree: ET.ElementTree) -> Any:
    import io

    buffer = io.BytesIO()
    tree.write(buffer)
    buffer.seek(0)
    return buffer


def _group(members: list[Any]) -> Any:
    global _empty_group
    if _empty_group is None:
        from manim import VGroup

        _empty_group = VGroup()
    group = structural_copy(_empty_group)
    group.submobjects = list(members)
    return group


def _fast_generate(self: Any) -> Any:
    root = ET.parse(self.get_file_path()).getroot()
    if root.tag != _SVG + "svg":
        raise _Unsupported("root")
    symbols, styled_groups, surface_id = _read(root)
    keys = _style_keys(self, root)

    # The tree Manim walks (svgelements' parse of the modified document): the
    # SVG, the config-style and root-style groups Manim wraps around the
    # content, the surface group, each styled group, each use holding the
    # symbol (an element) and its resolved path.
    mobjects: list[Any] = []
    uses = []
    for style, group_uses in styled_groups:
        nodes = []
        for glyph_id, x, y in group_uses:
            path_style, d = symbols[glyph_id]
            glyph = _outline(d)
            points = glyph.points_at(x, y)
            mob = None
            if len(points):  # Manim keeps no mobject for an outline without points (a space)
                mob = structural_copy(_styled(self, root, keys, path_style, style))
                mob.points = points
                mob.path_obj = _MovedPath(glyph.path, x, y)
            nodes.append(("use", None, [("element", glyph_id, []), ("path", None, mob)]))
        uses.append(("group", None, nodes))
    tree = ("group", None, [("group", None, [("group", None, [("group", surface_id, uses)])])])

    # Manim's get_mobjects_from, on that tree.
    groups: dict[str, list[Any]] = {"root": []}
    stack: list[tuple[Any, int]] = [(tree, 1)]
    vgroup_stack = ["root"]
    numbered = 0
    while stack:
        (kind, ident, content), depth = stack.pop()
        vgroup_stack = vgroup_stack[:depth]
        if ident is None:
            name = f"numbered_group_{numbered}"
            numbered += 1
        else:
            name = ident
        vgroup_stack.append(name)
        groups[name] = []
        if kind in ("group", "use"):
            stack.extend((child, depth + 1) for child in content[::-1])
        elif kind == "path" and content is not None:
            mobjects.append(content)
            for parent in vgroup_stack[:-1]:
                groups[parent].append(content)
    self.add(*mobjects)
    self.id_to_vgroup_dict = {name: _group(members) for name, members in groups.items()}
    from manim import RIGHT

    self.flip(RIGHT)  # flip y, as generate_mobject does
    return self


class _MovedPath:
    """A glyph's parsed outline moved by (dx, dy): what ``path_obj`` iterates over for a rebuild."""

    __slots__ = ("path", "dx", "dy")

    def __init__(self, path: Any, dx: float, dy: float) -> None:
        self.path, self.dx, self.dy = path, dx, dy

    def approximate_arcs_with_quads(self) -> None:
        pass  # glyph outlines have no arcs

    def __iter__(self) -> Any:
        import svgelements as se

        moved = se.Path(self.path)
        moved *= f"translate({self.dx!r},{self.dy!r})"
        moved.reify()
        return iter(moved)

    def __deepcopy__(self, memo: dict[int, Any]) -> "_MovedPath":
        return self  # read only


def _generate(self: Any) -> Any:
    if builds_as_text(type(self)):
        try:
            result = _fast_generate(self)
            _counts["fast"] += 1
            return result
        except _Unsupported:
            pass  # raised before anything is added to the text
    _counts["usual"] += 1
    return _original(self)


def install() -> None:
    """Build texts from cached glyphs from now on (idempotent; off when ``ATTENTION_GLYPH_TEXT=0``)."""
    global _original
    if _original is not None or os.environ.get(ENV, "1") == "0":
        return
    from manim.mobject.svg.svg_mobject import SVGMobject

    _original = SVGMobject.generate_mobject
    SVGMobject.generate_mobject = _generate  # type: ignore[method-assign]


def installed() -> bool:
    return _original is not None


def uninstall() -> None:
    global _original
    from manim.mobject.svg.svg_mobject import SVGMobject

    if _original is not None:
        SVGMobject.generate_mobject = _original  # type: ignore[method-assign]
        _original = None
    clear()


def clear() -> None:
    _outlines.clear()
    _styles.clear()
    for key in _counts:
        _counts[key] = 0


def stats() -> dict[str, int]:
    """Texts built from glyphs (fast) and the usual way, and glyph outlines parsed (templates)."""
    return dict(_counts)
