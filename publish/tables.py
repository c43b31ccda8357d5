"""The values a scene shows, as tables to paste into the post.

Numbers are written exactly as on screen (:func:`format_number`), so the
text of the post and the animation never disagree. Manim-free.
"""

from __future__ import annotations

import html
import json
from typing import Any

from attention_core.formatting import format_number

__all__ = ["section", "scene_sections", "tables", "to_markdown", "to_latex", "to_html", "to_json", "DECIMALS"]

DECIMALS = 2  # the themes' number format (Theme.decimals)


def section(data: dict[str, Any], path: str) -> Any:
    """The sub-tree of ``Trace.to_dict()`` at a dotted path ("encoder.hidden")."""
    node: Any = data
    for part in path.split("."):
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(f"trace section {path!r}: no {part!r} in the computed numbers")
    return node


def scene_sections(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """``{path: sub-tree}`` for every trace section the scene declares."""
    return {path: section(data, path) for path in cls.trace_sections}


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_number(value, DECIMALS)
    if value is None:
        return ""
    return str(value)


def _is_scalar(v: Any) -> bool:
    return not isinstance(v, (list, dict))


def tables(sections: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """Flatten sections into ``(title, header, rows)`` tables.

    Scalars of one dict share a two-column table; a list of scalars is a
    one-row table indexed 0..n-1; a list of equal-length lists is a matrix
    with its row index first (the same indices as the JSON keys).
    """
    out: list[tuple[str, list[str], list[list[str]]]] = []

    def walk(name: str, node: Any) -> None:
        if isinstance(node, dict):
            scalars = [[k, _cell(v)] for k, v in node.items() if _is_scalar(v)]
            if scalars:
                out.append((name, ["name", "value"], scalars))
            for k, v in node.items():
                if not _is_scalar(v):
                    walk(f"{name}.{k}", v)
        elif isinstance(node, list):
            if all(_is_scalar(v) for v in node):
                out.append((name, [str(i) for i in range(len(node))], [[_cell(v) for v in node]]))
            elif all(isinstance(v, list) and all(_is_scalar(x) for x in v) for v in node):
                width = max((len(v) for v in node), default=0)
                header = ["row"] + [str(j) for j in range(width)]
                out.append((name, header, [[str(i)] + [_cell(x) for x in v] for i, v in enumerate(node)]))
            else:
                for i, v in enumerate(node):
                    walk(f"{name}.{i}", v)
        else:
            out.append((name, ["value"], [[_cell(node)]]))

    for path, node in sections.items():
        walk(path, node)
    return out


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(sections: dict[str, Any], heading: str | None = None) -> str:
    parts = [f"## {heading}\n"] if heading else []
    for title, header, rows in tables(sections):
        parts.append(f"**{title}**\n")
        parts.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
        parts.append("|" + "|".join("---:" if h not in ("name",) else "---" for h in header) + "|")
        parts.extend("| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows)
        parts.append("")
    return "\n".join(parts)


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
                  "\u2212": "$-$"}


def _tex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(sections: dict[str, Any], heading: str | None = None) -> str:
    parts = [f"% {heading}"] if heading else []
    for title, header, rows in tables(sections):
        parts.append(f"% {title}")
        parts.append(r"\begin{tabular}{" + "r" * len(header) + "}")
        parts.append(" & ".join(_tex(h) for h in header) + r" \\ \hline")
        parts.extend(" & ".join(_tex(c) for c in row) + r" \\" for row in rows)
        parts.append(r"\end{tabular}")
        parts.append("")
    return "\n".join(parts)


def to_html(sections: dict[str, Any]) -> str:
    parts = []
    for title, header, rows in tables(sections):
        parts.append(f"<table><caption>{html.escape(title)}</caption>")
        parts.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
        parts.extend("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
        parts.append("</table>")
    return "\n".join(parts)


def _rounded(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _rounded(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_rounded(v) for v in node]
    if isinstance(node, float):
        # The value as shown: "−0.00" is shown as 0.00, so -0.0 becomes 0.0.
        return float(format_number(node, DECIMALS).replace("\u2212", "-")) + 0.0
    return node


def to_json(sections: dict[str, Any]) -> Any:
    """The sections with every float rounded as on screen (a JSON-ready value)."""
    return _rounded(sections)


def dumps(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)
