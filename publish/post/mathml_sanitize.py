"""MathML from an allow-list: a formula is text and layout, never markup of the author's.

latex2mathml builds an element tree, then serialises it with
``unescape(tostring(tree))``: the text of ``\\text{<script>...}`` comes out as a
live ``<script>`` tag, ``\\style{...}`` as a ``style`` attribute and
``\\href{javascript:...}`` as an ``href`` (issue 33). :func:`serialise` writes
that tree again from an allow-list instead:

- only MathML Core's presentation elements (:data:`ELEMENTS`); any other
  element is written as an ``<mrow>`` of its sanitised children;
- only layout attributes (:data:`ATTRIBUTES`), each value from a small
  alphabet (no ``(``, ``:`` or quote: no ``url(...)``, no ``javascript:``);
  never ``style``, ``href``, ``class``, ``id`` or an event handler;
- every text escaped (``<``, ``>``, ``&``), except the numeric character
  references latex2mathml writes for symbols (``&#x02192;``), which are kept
  as they are: a reference never forms a tag.

So ``$\\text{<START>}$`` shows the characters ``<START>``. Manim-free.
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["ELEMENTS", "ATTRIBUTES", "serialise", "escape_text"]

#: MathML Core presentation elements (and the few latex2mathml writes).
ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "mtext", "ms", "mspace", "msub", "msup", "msubsup", "munder", "mover",
    "munderover", "mfrac", "msqrt", "mroot", "mstyle", "merror", "mpadded", "mphantom", "mtable", "mtr", "mtd",
    "mmultiscripts", "mprescripts", "none", "semantics", "annotation", "menclose", "mfenced", "mlabeledtr",
})
#: Layout attributes only: no style, href, class, id, src or on* (an unknown one is dropped).
ATTRIBUTES = frozenset({
    "display", "displaystyle", "scriptlevel", "mathvariant", "mathcolor", "mathbackground", "mathsize",
    "lspace", "rspace", "stretchy", "symmetric", "fence", "separator", "largeop", "movablelimits", "minsize",
    "maxsize", "accent", "accentunder", "linethickness", "width", "height", "depth", "voffset", "columnalign",
    "rowalign", "columnspan", "rowspan", "columnlines", "rowlines", "frame", "columnspacing", "rowspacing",
    "form", "notation", "open", "close", "separators", "align", "equalrows", "equalcolumns",
})
_XMLNS = "http://www.w3.org/1998/Math/MathML"
#: An attribute value: words, numbers, lengths, colours; nothing that can name a URL or a script.
_VALUE = re.compile(r"[A-Za-z0-9 .#%+\-]{0,64}")
#: latex2mathml's own symbol references (kept); any other "&" is escaped.
_REFERENCE = re.compile(r"(&#x[0-9A-Fa-f]{1,6};|&#[0-9]{1,7};)")


def escape_text(text: str) -> str:
    """Text as element content: ``<``, ``>`` and ``&`` escaped, numeric references kept;
    U+2063 (the post's placeholder marker) written as a reference, so no text of a formula can
    pose as a marker."""
    parts = _REFERENCE.split(text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part)
        else:
            out.append(html.escape(part, quote=False).replace("\u2063", "&#x2063;"))
    return "".join(out)


def _attributes(tag: str, attrib: dict[str, str]) -> str:
    out = []
    for name, value in attrib.items():
        if name == "xmlns":
            if tag == "math" and value == _XMLNS:
                out.append(f' xmlns="{_XMLNS}"')
            continue
        if name not in ATTRIBUTES or not _VALUE.fullmatch(str(value)):
            continue
        out.append(f' {name}="{html.escape(str(value), quote=True)}"')
    return "".join(out)


def serialise(element: Any) -> str:
    """An ``xml.etree`` MathML tree as text, from the allow-list (see the module docstring)."""
    parts: list[str] = []

    def write(node: Any) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        tag = tag.rsplit("}", 1)[-1]
        if tag not in ELEMENTS:
            tag, attrs = "mrow", ""
        else:
            attrs = _attributes(tag, dict(node.attrib))
        children = list(node)
        if not children and not node.text:
            parts.append(f"<{tag}{attrs}/>")
        else:
            parts.append(f"<{tag}{attrs}>")
            if node.text:
                parts.append(escape_text(node.text))
            for child in children:
                write(child)
                if child.tail:  # latex2mathml writes none; a tail is text all the same
                    parts.append(escape_text(child.tail))
            parts.append(f"</{tag}>")

    write(element)
    return "".join(parts)
