"""Citations: the draft's empty ``[]`` references resolved to numbered citations, and a References list.

The author's bibliography is the link table's ``[[cite]]`` entries (key,
authors, title, year, link, venue). A citation is written ``[@key]`` (pandoc's
form) in the draft or in an ``[[edit]]``'s replacement; a ``[[cite]]`` entry's
``at`` phrases place it where the draft has none: a ``[]`` inside the phrase
(the draft's empty reference) becomes the citation, a phrase without one gets
the citation after it. This runs before the editor's notes are left out, so a
``[]`` no entry resolves is still left out and listed in the run (never
silently). On the page each citation is ``[n]``, numbered in reading order
and linked to its line in a References section at the end. Manim-free.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from publish.post.links import Citation
from publish.post.text import Change

__all__ = ["CITE", "CitationReport", "place_citations", "number_citations"]

#: ``[@key]`` or ``[@a; @b]``.
CITE = re.compile(r"\[@([A-Za-z0-9_:.\-]+(?:\s*;\s*@[A-Za-z0-9_:.\-]+)*)\]")
_CODE = re.compile(r"(<pre\b.*?</pre>|<code\b.*?</code>|<math\b.*?</math>)", re.S)


@dataclass
class CitationReport:
    """What became of the draft's references."""

    placed: list[Change] = field(default_factory=list)  # phrases resolved to a citation
    missing_phrases: list[str] = field(default_factory=list)  # ``at`` phrases the draft lacks
    unknown_keys: list[str] = field(default_factory=list)  # [@key] with no [[cite]] entry
    numbered: list[str] = field(default_factory=list)  # keys, in the order of their numbers

    def lines(self) -> list[str]:
        out = [f"citation not placed (the draft does not contain {p!r})" for p in self.missing_phrases]
        out += [f"citation [@{k}] has no [[cite]] entry: left as written" for k in self.unknown_keys]
        if self.numbered:
            out.append(f"references: {len(self.numbered)} works cited ({', '.join(self.numbered)})")
        return out


def place_citations(text: str, cites: list[Citation], first_line: int, report: CitationReport) -> str:
    """Each entry's ``at`` phrases made ``[@key]`` citations in ``text`` (the draft before its notes go).

    A phrase's first occurrence only; one the text lacks is listed, never placed elsewhere."""
    for cite in cites:
        for phrase in cite.at:
            at = text.find(phrase)
            if at < 0:
                report.missing_phrases.append(phrase)
                continue
            marker = f"[@{cite.key}]"
            if "[]" in phrase:
                new = phrase.replace("[]", marker, 1)
            else:
                new = phrase + " " + marker
            text = text[:at] + new + text[at + len(phrase):]
            line = first_line + text.count("\n", 0, at)
            report.placed.append(Change(line, "citation", phrase, new))
    return text


def _label(cite: Citation) -> str:
    authors = html.escape(cite.authors)
    title = html.escape(cite.title)
    title = f'<a href="{html.escape(cite.link)}">{title}</a>' if cite.link else title
    venue = f" {html.escape(cite.venue)}." if cite.venue else ""
    return f"{authors} ({html.escape(str(cite.year))}). {title}.{venue}"


def number_citations(body: str, cites: list[Citation], report: CitationReport) -> tuple[str, str]:
    """``(body, references)``: every ``[@key]`` of the rendered page made ``[n]`` (numbered in
    reading order, linked to its reference) and the References section ("" when nothing is cited).
    Code, preformatted text and formulas are left as written."""
    by_key = {c.key: c for c in cites}
    numbers: dict[str, int] = {}

    def one(match: re.Match[str]) -> str:
        keys = [k.strip().lstrip("@") for k in match.group(1).split(";")]
        if any(k not in by_key for k in keys):
            for k in keys:
                if k not in by_key and k not in report.unknown_keys:
                    report.unknown_keys.append(k)
            return match.group(0)
        links = []
        for k in keys:
            n = numbers.setdefault(k, len(numbers) + 1)
            links.append(f'<a href="#ref-{n}" title="{html.escape(by_key[k].authors)}, '
                         f'{html.escape(str(by_key[k].year))}">{n}</a>')
        return f'<span class="cite">[{", ".join(links)}]</span>'

    parts = _CODE.split(body)
    body = "".join(part if i % 2 else CITE.sub(one, part) for i, part in enumerate(parts))
    report.numbered = list(numbers)
    if not numbers:
        return body, ""
    items = "".join(f'<li id="ref-{n}">{_label(by_key[k])}</li>' for k, n in numbers.items())
    return body, f'<h2 id="references">References</h2>\n<ol class="references">{items}</ol>\n'
