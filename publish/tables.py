"""The values a scene shows, as tables to paste into the post.

Numbers are written exactly as on screen (:func:`format_number`), so the
text of the post and the animation never disagree. Manim-free.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from attention_core.dot_attention import DRAFT_INPUT_WORDS, DRAFT_QUERY_WORDS
from attention_core.formatting import format_number

__all__ = ["section", "scene_sections", "tables", "to_markdown", "to_latex", "to_html", "to_json", "DECIMALS",
           "MatrixSpec", "TABLE_SPECS", "labelled_tables", "scene_markdown", "scene_latex"]

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


# -- tables as on screen (issue 14) ---------------------------------------------
#
# For the scenes whose matrices a post quotes, each displayed matrix is one
# table with the labels the screen gives its rows and columns. A label rule
# is ("index", "x") for x_1, x_2, ...; ("words", "encoder.tokens") for the
# words at that path; ("dims", "") for 1, 2, ... (feature dimensions).

@dataclass(frozen=True)
class MatrixSpec:
    path: str  # dotted path into Trace.to_dict()
    caption: str
    symbol: str  # LaTeX name of the matrix
    rows: tuple[str, str]
    cols: tuple[str, str]


_DIMS = ("dims", "")
TABLE_SPECS: dict[str, tuple[MatrixSpec, ...]] = {
    "worked_example": (
        MatrixSpec("worked_example.inputs", "X: the input vectors, one per row", "X", ("draft_inputs", "x"), _DIMS),
        MatrixSpec("worked_example.queries", "q: the query vectors, one per row", "q", ("draft_queries", "q"), _DIMS),
        MatrixSpec("worked_example.scores", "E = X q^T: the score of each input for each query (the draft's s)", "E",
                   ("draft_inputs", "x"), ("draft_queries", "q")),
        MatrixSpec("worked_example.weights", "A = softmax of each column of E (the draft's alpha)", "A",
                   ("draft_inputs", "x"), ("draft_queries", "q")),
        MatrixSpec("worked_example.context", "C = A^T X: the context vector of each query", "C",
                   ("draft_queries", "c"), _DIMS),
    ),
    "dot_product_attention": (
        MatrixSpec("dot_product_attention.inputs", "X: the input features, one per row", "X",
                   ("index", "h"), _DIMS),
        MatrixSpec("dot_product_attention.query", "s_2: the query", "s_2", ("none", ""), _DIMS),
        MatrixSpec("dot_product_attention.scores", "E = s_2 X^T: the raw attention weights", "E",
                   ("none", ""), ("index", "h")),
        MatrixSpec("dot_product_attention.weights", "A = softmax(E): the attention weights", "A",
                   ("none", ""), ("index", "h")),
        MatrixSpec("dot_product_attention.output", "o = A X: the output vector", "o", ("none", ""), _DIMS),
    ),
    "multi_query_attention": (
        MatrixSpec("multi_query_attention.inputs", "X: the input features, one per row", "X",
                   ("index", "h"), _DIMS),
        MatrixSpec("multi_query_attention.queries", "Q: the queries, one per row", "Q", ("index", "q"), _DIMS),
        MatrixSpec("multi_query_attention.scores", "E = Q X^T: the raw attention weights", "E",
                   ("index", "q"), ("index", "h")),
        MatrixSpec("multi_query_attention.weights", "A = softmax of each row of E", "A",
                   ("index", "q"), ("index", "h")),
        MatrixSpec("multi_query_attention.outputs", "O = A X: one output per query", "O",
                   ("index", "q"), _DIMS),
    ),
    "encoder": (
        MatrixSpec("plain_model.embeddings", "x_t: each source word's embedding", "X",
                   ("words", "plain_model.tokens"), _DIMS),
        MatrixSpec("plain_model.encoder_states", "h_t: the encoder state after each word (h_0 = 0)", "H",
                   ("index0", "h"), _DIMS),
    ),
}


def _labels(rule: tuple[str, str], n: int, data: dict[str, Any] | None) -> list[str]:
    kind, arg = rule
    if kind == "index":
        return [f"{arg}_{i + 1}" for i in range(n)]
    if kind == "index0":
        return [f"{arg}_{i}" for i in range(n)]
    if kind == "words" and data is not None:
        words = [str(w) for w in section(data, arg)]
        return words + [str(i + 1) for i in range(len(words), n)]
    if kind in ("draft_inputs", "draft_queries"):
        # As the worked example's screen: the draft's words when the sizes are the draft's.
        words = DRAFT_INPUT_WORDS if kind == "draft_inputs" else DRAFT_QUERY_WORDS
        return list(words) if n == len(words) else [f"{arg}_{i + 1}" for i in range(n)]
    if kind == "dims":
        return [str(i + 1) for i in range(n)]
    return [""] * n


def _ascii(text: str) -> str:
    return text.replace("\u2212", "-")


def labelled_tables(scene_id: str, data: dict[str, Any]) -> list[tuple[str, str, list[str], list[list[str]]]] | None:
    """``(caption, symbol, header, rows)`` per displayed matrix, labelled as on screen; ``None``
    for a scene without a table spec. Values as on screen, with an ASCII minus."""
    specs = TABLE_SPECS.get(scene_id)
    if specs is None:
        return None
    out = []
    for spec in specs:
        node = section(data, spec.path)
        matrix = node if node and isinstance(node[0], list) else [node]
        width = max(len(r) for r in matrix)
        rows = _labels(spec.rows, len(matrix), data)
        header = [""] + _labels(spec.cols, width, data)
        body = [[rows[i]] + [_ascii(_cell(v)) for v in row] for i, row in enumerate(matrix)]
        out.append((spec.caption, spec.symbol, header, body))
    return out


def scene_markdown(scene_id: str, data: dict[str, Any], sections: dict[str, Any],
                   heading: str | None = None) -> str:
    """Markdown tables a post can paste: one per displayed matrix, captioned, labelled as on screen."""
    labelled = labelled_tables(scene_id, data)
    if labelled is None:
        return _ascii(to_markdown(sections, heading))
    parts = [f"## {_md_escape(heading)}\n"] if heading else []
    for caption, _, header, rows in labelled:
        parts.append(f"*{_md_escape(caption)}*\n")
        parts.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
        parts.append("|---|" + "|".join("---:" for _ in header[1:]) + "|")
        parts.extend("| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows)
        parts.append("")
    return "\n".join(parts)


def _bmatrix(symbol: str, rows: list[list[str]]) -> str:
    body = r" \\ ".join(" & ".join(row) for row in rows)
    return f"{symbol} = \\begin{{bmatrix}} {body} \\end{{bmatrix}}"


def scene_latex(scene_id: str, data: dict[str, Any], sections: dict[str, Any],
                heading: str | None = None) -> str:
    """Each displayed matrix as ``$$ X = \\begin{bmatrix} ... \\end{bmatrix} $$`` (KaTeX and
    MathJax render it), preceded by its caption and the labels of its rows and columns."""
    parts = [f"<!-- {_md_escape(heading).replace('-', '&#45;')} -->"] if heading else []
    labelled = labelled_tables(scene_id, data)
    if labelled is None:
        labelled = []
        for title, header, rows in tables(sections):
            name = r"\mathrm{" + _tex_name(title.rsplit(".", 1)[-1]) + "}"
            if not header or not rows:
                continue
            if header[0] == "name":  # a table of scalars: one "name = value" each
                labelled += [(f"{title}.{r[0]}", r"\mathrm{" + _tex_name(r[0]) + "}", ["", ""],
                              [["", _ascii(r[1])]]) for r in rows]
            elif header[0] == "row":  # a matrix
                labelled.append((title, name, [""] * len(header), [[""] + [_ascii(c) for c in r[1:]] for r in rows]))
            else:  # a vector
                labelled.append((title, name, [""] * (len(header) + 1), [[""] + [_ascii(c) for c in r] for r in rows]))
    for caption, symbol, header, rows in labelled:
        cells = [row[1:] for row in rows]
        if not cells or not all(_is_number(c) for row in cells for c in row) or len({len(r) for r in cells}) != 1:
            continue  # words and flags are no matrix
        parts.append(_md_escape(caption))  # text of the blog around the formula: no markup of the data's
        row_names = [_md_escape(r[0]) for r in rows if r[0]]
        col_names = [_md_escape(h) for h in header[1:] if h]
        if row_names or col_names:
            parts.append("(" + "; ".join(x for x in (
                f"rows: {', '.join(row_names)}" if row_names else "",
                f"columns: {', '.join(col_names)}" if col_names else "") if x) + ")")
        if len(cells) == 1 and len(cells[0]) == 1:
            parts.append(f"$$ {symbol} = {cells[0][0]} $$")
        else:
            parts.append("$$ " + _bmatrix(symbol, cells) + " $$")
        parts.append("")
    return "\n".join(parts)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _tex_name(name: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in name)


#: Characters that start Markdown syntax anywhere in a cell (a cell never starts a line, so
#: ``#``, ``+``, ``-`` and ``.`` stay as they are: ``-0.39`` is written as is). ``(`` and ``!``
#: mean something only after a ``]``, which is escaped.
_MD_SPECIAL = frozenset("\\`*[]|~$")
_HTML_SPECIAL = {"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;"}


def _md_escape(text: str) -> str:
    """A cell of a Markdown table as text: HTML specials as entities (an HTML-enabled blog runs
    ``<img onerror=...>``), Markdown specials backslash-escaped, a line break as a space. An
    underscore inside a word (``h_3``, ``dot_product``) starts no emphasis and is kept."""
    text = str(text).replace("\r", " ").replace("\n", " ")
    out = []
    for i, ch in enumerate(text):
        if ch in _HTML_SPECIAL:
            out.append(_HTML_SPECIAL[ch])
        elif ch in _MD_SPECIAL:
            out.append("\\" + ch)
        elif ch == "_" and not (0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()):
            out.append("\\_")
        else:
            out.append(ch)
    return "".join(out)


def to_markdown(sections: dict[str, Any], heading: str | None = None) -> str:
    parts = [f"## {_md_escape(heading)}\n"] if heading else []
    for title, header, rows in tables(sections):
        parts.append(f"**{_md_escape(title)}**\n")
        parts.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
        parts.append("|" + "|".join("---:" if h not in ("name",) else "---" for h in header) + "|")
        parts.extend("| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows)
        parts.append("")
    return "\n".join(parts)


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
                  "\u2212": "$-$", "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
                  "\n": " ", "\r": " "}


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
