"""The reader's page: clips the reader controls, headings with anchors, a table of contents, a byline.

- A clip is ``<video controls preload="none" playsinline poster=...>``: the
  reader plays, pauses (a click or tap on it too), scrubs, enlarges it to
  fullscreen and turns its captions on. Nothing plays until asked (WCAG
  2.2.2; a reader who prefers reduced motion sees the poster, as every
  reader does), and nothing of the clip is fetched before that, so opening a
  page of many clips fetches their posters only. The page has no script: the
  choice is made by attributes and CSS alone. With two themes each theme's
  clip is its own element and CSS shows the reader's; only the shown one's
  video is ever fetched (its poster is fetched for both: a poster is not
  chosen by a media query).
- Every ``<h2>``/``<h3>`` gets an ``id`` and a ``#`` link to itself; a short
  table of contents (the ``<h2>`` headings) follows the title.
- Front matter (title, author, date, tags, description) becomes the
  ``<title>``, a byline under the heading and ``<meta name="description">``.
- Inline formulas sit in a box of their own that scrolls sideways when wider
  than the screen: the page itself never does (390 px phones).

Manim-free.
"""

from __future__ import annotations

import html
import re
import unicodedata
from urllib.parse import quote

__all__ = ["clip_html", "PAGE_STYLE", "anchor_headings", "toc_html", "byline_html", "head_meta",
           "wrap_inline_math", "reader_caption", "still_html"]

PAGE_STYLE = """
figure video { background: var(--code); }
figcaption { text-align: left; line-height: 1.45; }
h2 .anchor, h3 .anchor { font-weight: normal; text-decoration: none; color: var(--muted); margin-left: .35rem;
  opacity: .5; }
h2:hover .anchor, h3:hover .anchor, .anchor:focus { opacity: 1; }
nav.toc { border-left: 3px solid var(--rule); padding: .2rem 0 .2rem 1rem; margin: 1rem 0 2rem; font-size: .95rem; }
nav.toc h2 { font-size: 1rem; margin: 0 0 .3rem; }
nav.toc ol { margin: 0; padding-left: 1.2rem; }
p.byline { color: var(--muted); font-size: .95rem; margin-top: -.5rem; }
p.byline .tags { font-size: .85rem; }
.cite a { text-decoration: none; }
ol.references { font-size: .9rem; }
ol.references li { margin-bottom: .4rem; }
span.imath { display: inline-block; max-width: 100%; overflow-x: auto; overflow-y: hidden;
  vertical-align: middle; }
del.draft { color: var(--muted); }
table.numbers { display: block; max-width: 100%; overflow-x: auto; width: max-content; }
main { overflow-wrap: break-word; }
.equation > div { min-width: 0; max-width: 100%; overflow-x: auto; overflow-y: hidden; }
.corrected { display: flex; flex-wrap: wrap; gap: 0 1.5rem; justify-content: center; align-items: flex-start; }
.corrected table.numbers { margin: .5rem 0; }
del.draft { text-decoration: none; }
del.draft td { text-decoration: line-through; color: var(--muted); }
"""


def _href(path: str) -> str:
    return html.escape(quote(path))


def clip_html(base: str, alt: str, css: str = "") -> str:
    """One theme's clip: the reader's to play; nothing of it is fetched until asked."""
    css_attr = f' class="{css}"' if css else ""
    return (f'<video{css_attr} controls preload="none" playsinline poster="{_href(base + ".png")}" '
            f'aria-label="{html.escape(alt)}">'
            f'<source src="{_href(base + ".mp4")}" type="video/mp4">'
            f'<track kind="captions" src="{_href(base + ".vtt")}" srclang="en" label="English">'
            f'<a class="fallback" href="{_href(base + ".mp4")}">{html.escape(alt)} (mp4)</a></video>')


def _slug(text: str, taken: set[str], tried: dict[str, int]) -> str:
    """The heading's id: its words, then ``-2``, ``-3``... when taken. ``tried``: the next number of
    each slug, so 20,000 headings of one text cost 20,000 steps, not 200 million (issue 33)."""
    text = unicodedata.normalize("NFKD", html.unescape(re.sub(r"<[^>]+>", "", text)))
    slug = re.sub(r"[^a-z0-9]+", "-", text.encode("ascii", "ignore").decode().lower()).strip("-")[:60] or "section"
    out, n = slug, tried.get(slug, 2)
    while out in taken:  # numbers below n were all taken, and taken only grows
        out, n = f"{slug}-{n}", n + 1
    tried[slug] = n
    taken.add(out)
    return out


_HEADING = re.compile(r"<(h[23])>(.*?)</\1>", re.S)


def anchor_headings(body: str) -> tuple[str, list[tuple[str, str, str]]]:
    """``(body, headings)``: each ``<h2>``/``<h3>`` with an id and a link to itself; ``headings``
    is ``(tag, id, text html)`` in order."""
    taken: set[str] = {"references", "contents"}
    tried: dict[str, int] = {}
    found: list[tuple[str, str, str]] = []

    def one(match: re.Match[str]) -> str:
        tag, inner = match.group(1), match.group(2)
        slug = _slug(inner, taken, tried)
        found.append((tag, slug, inner))
        return (f'<{tag} id="{slug}">{inner}<a class="anchor" href="#{slug}" '
                f'aria-label="Link to this section">#</a></{tag}>')

    return _HEADING.sub(one, body), found


def toc_html(headings: list[tuple[str, str, str]], extra: list[tuple[str, str]] = ()) -> str:
    """A short table of contents: the ``<h2>`` headings (and ``extra`` (id, text) at its end)."""
    items = [(slug, inner) for tag, slug, inner in headings if tag == "h2"] + list(extra)
    if len(items) < 2:
        return ""
    lis = "".join(f'<li><a href="#{slug}">{re.sub(r"<a [^>]*>.*?</a>", "", inner)}</a></li>'
                  for slug, inner in items)
    return f'<nav class="toc" aria-labelledby="contents"><h2 id="contents">Contents</h2><ol>{lis}</ol></nav>\n'


def byline_html(authors: list[str], date: str | None, tags: list[str]) -> str:
    parts = []
    if authors:
        parts.append("By " + html.escape(", ".join(authors)))
    if date:
        parts.append(f'<time datetime="{html.escape(date)}">{html.escape(date)}</time>')
    line = " · ".join(parts)
    if tags:
        line += (" · " if line else "") + '<span class="tags">' + html.escape(", ".join(tags)) + "</span>"
    return f'<p class="byline">{line}</p>\n' if line else ""


def head_meta(description: str | None, authors: list[str], tags: list[str]) -> str:
    out = []
    if description:
        out.append(f'<meta name="description" content="{html.escape(description)}">')
    if authors:
        out.append(f'<meta name="author" content="{html.escape(", ".join(authors))}">')
    if tags:
        out.append(f'<meta name="keywords" content="{html.escape(", ".join(tags))}">')
    return "\n".join(out)


_MATH = re.compile(r"<math\b[^>]*>.*?</math>", re.S)


def wrap_inline_math(body: str) -> str:
    """Inline formulas (not ``display="block"``) in a box that scrolls sideways on a narrow screen."""
    def one(match: re.Match[str]) -> str:
        tag = match.group(0)
        opening = tag[:tag.index(">")]
        if 'display="block"' in opening:
            return tag
        return f'<span class="imath">{tag}</span>'

    return _MATH.sub(one, body)


#: Working labels a scene's description carries that a reader has no use for.
_WORKING = re.compile(r"\s*\((?:draft [^()]*|[^()]*\btrained\b[^()]*)\)", re.I)


def reader_caption(description: str) -> str:
    """A scene's description without its working labels (draft step numbers, training notes)."""
    return _WORKING.sub("", description).replace("Draft 002's ", "The ").strip()


def still_html(figures: list[tuple[str, str | None]], alt: str, width: int, height: int) -> str:
    """A still: its png on a 1x screen, its svg on a 2x one (crisp where it shows; the png is a
    fraction of the svg's bytes), one ``(png, svg)`` per theme, the first the default (light) and a
    second shown under ``prefers-color-scheme: dark``; only the reader's theme and density is fetched.
    A tap opens it whole (the svg: it scales)."""
    sources = []
    themes = [("(prefers-color-scheme: dark)", figures[1])] if len(figures) > 1 else []
    themes.append(("", figures[0]))
    for scheme, (png, svg) in themes:
        dense = f"{scheme} and (min-resolution: 2dppx)" if scheme else "(min-resolution: 2dppx)"
        if svg:
            sources.append(f'<source media="{dense}" srcset="{_href(svg)}">')
        if scheme:
            sources.append(f'<source media="{scheme}" srcset="{_href(png)}">')
    png, svg = figures[0]
    img = (f'<img src="{_href(png)}" alt="{html.escape(alt)}" width="{width}" height="{height}" loading="lazy">')
    return f'<a class="zoom" href="{_href(svg or png)}"><picture>{"".join(sources)}{img}</picture></a>'
