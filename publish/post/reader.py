"""What ``render.py post`` does for the reader, joined in one place so ``post.py`` only calls it.

Reading the draft (:mod:`publish.post.front_matter`: encoding, YAML/TOML front
matter), its citations (:mod:`publish.post.cite`), and the page around the
body (:mod:`publish.post.page`: clips, anchors, contents, byline, meta,
captions). Manim-free.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from publish.post.cite import CitationReport, number_citations
from publish.post.cite import place_citations as _place_citations
from publish.post.front_matter import FrontMatter, parse_front_matter, split_front_matter
from publish.post.front_matter import read_draft as _read_draft
from publish.post.links import Citation, LinkTable, Page, table_from_data
from publish.post.page import (PAGE_STYLE, anchor_headings, byline_html, clip_html, head_meta, reader_caption,
                        still_html, toc_html, wrap_inline_math)

__all__ = ["Reader", "read_draft", "front_matter_table", "place_citations", "title", "finish_body", "caption",
           "report_lines", "clip_html", "reader_caption", "display_environments", "still_html", "PAGE_STYLE"]


@dataclass
class Reader:
    """The front matter, the bibliography and the page settings a build uses."""

    front: FrontMatter = field(default_factory=FrontMatter)
    cites: list[Citation] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    citations: CitationReport = field(default_factory=CitationReport)

    def page_value(self, key: str) -> str | None:
        return next((getattr(p, key) for p in self.pages if getattr(p, key)), None)

    @property
    def description(self) -> str | None:
        return self.front.description or self.page_value("description")

    @property
    def authors(self) -> list[str]:
        return self.front.authors or ([self.page_value("author")] if self.page_value("author") else [])

    @property
    def date(self) -> str | None:
        return self.front.date or self.page_value("date")


def read_draft(path: Path) -> str:
    return _read_draft(path)


def front_matter_table(front: str, draft: Path, registry: dict[str, type]) -> LinkTable:
    """The link-table entries the front matter's own key holds (YAML or TOML)."""
    where = f"front matter of {draft}"
    return table_from_data(parse_front_matter(front, None, where).settings, where, registry)


def place_citations(body: str, table: LinkTable, text: str, first_line: int, report: Any) -> str:
    """Citations placed at their ``at`` phrases; the front matter kept for the page (``report.reader``)."""

    front, _, _ = split_front_matter(text)
    fence = text[:3] if front else None
    reader = Reader(parse_front_matter(front, fence, "front matter"),
                    [c for c in table.cites if not c.only_in or c.only_in in body],
                    [p for p in table.pages if not p.only_in or p.only_in in body])
    report.reader = reader
    body = _place_citations(body, reader.cites, first_line, reader.citations)
    report.changes += reader.citations.placed
    return body


def title(reader: Reader | None, h1: str) -> str:
    """The front matter's title, else the draft's H1, else the link table's [[page]] title."""
    if reader is not None and reader.front.title:
        return reader.front.title
    if h1 != "Post" or reader is None:
        return h1
    return reader.page_value("title") or h1


def finish_body(body: str, page_title: str, reader: Reader | None) -> tuple[str, str]:
    """``(body, head)``: citations numbered with their References, inline formulas boxed,
    headings anchored, the title (when the draft has no H1), byline and contents at the top."""
    reader = reader or Reader()
    body, references = number_citations(body, reader.cites, reader.citations)
    body = wrap_inline_math(body)
    body, headings = anchor_headings(body)
    if "<h1" not in body and page_title != "Post":
        body = f"<h1>{html.escape(page_title)}</h1>\n" + body
    top = byline_html(reader.authors, reader.date, reader.front.tags)
    top += toc_html(headings, [("references", "References")] if references else [])
    end = body.find("</h1>")
    if end >= 0:
        end += len("</h1>")
        body = body[:end] + "\n" + top + body[end:]
    else:
        body = top + body
    body += references
    return body, head_meta(reader.description, reader.authors, reader.front.tags)


def caption(entry: Any, registry: dict[str, type]) -> str | None:
    """A figure's caption: the table's, else its scene's description without working labels."""
    if entry.caption:
        return entry.caption
    if entry.scene and entry.scene in registry:
        return reader_caption(registry[entry.scene].description)
    return None


def report_lines(reader: Reader | None) -> list[str]:
    return reader.citations.lines() if reader is not None else []


_ENVIRONMENT = re.compile(r"\\begin\{(equation\*?|displaymath|align\*?|gather\*?|multline\*?)\}(.*?)"
                          r"\\end\{\1\}", re.S)
_INNER = {"align": "aligned", "gather": "gathered"}


def display_environments(body: str) -> str:
    """LaTeX display environments (``\\begin{equation}``, ``align``, ``gather``, ...) as ``$$`` display
    math the page typesets; its lines kept (the page's line numbers are the draft's)."""
    def one(match: re.Match[str]) -> str:
        name, inner = match.group(1).rstrip("*"), match.group(2)
        if name in _INNER:
            inner = f"\\begin{{{_INNER[name]}}}{inner}\\end{{{_INNER[name]}}}"
        return f"$${inner}$$"

    return _ENVIRONMENT.sub(one, body)
