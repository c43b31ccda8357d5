"""Issue 33: a post build that is safe. Each hostile case of the issue, and a few beyond it.

- math is text, never markup (every path into the page's MathML; ``numbers --format``);
- the build owns what it writes (manifest, symlinks, a foreign index.html, dangerous SITEs);
- bad input is one line before anything renders;
- a page never disagrees with its media; signals; linear time.

The builds here are drafts with no media (nothing renders) or unit calls of the functions.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from publish.mathml_sanitize import ATTRIBUTES, ELEMENTS
from publish.post_math import to_mathml


@pytest.fixture(scope="module")
def trace():
    from .helpers import load_default_trace

    return load_default_trace()


@pytest.fixture(scope="module")
def registry():
    from scenes import SCENES

    return SCENES


class _Tags(HTMLParser):
    """Every start tag and its attributes, as a browser's parser sees them; and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self._in_math = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_math += tag == "math"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self._in_math -= tag == "math"

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.tags.append(("!--", {"data": data}))


def _parse(markup: str) -> _Tags:
    parser = _Tags()
    parser.feed(markup)
    parser.close()
    return parser


def _assert_only_mathml(markup: str) -> _Tags:
    """Every tag of ``markup`` is an allowed MathML element with allowed attributes only."""
    parsed = _parse(markup)
    for tag, attrs in parsed.tags:
        assert tag in ELEMENTS, (tag, markup)
        for name, value in attrs.items():
            assert name in ATTRIBUTES | {"xmlns", "alttext", "style"}, (name, markup)
            if name == "style":  # only ours: mathvariant made CSS
                assert value in ("font-weight:bold", "font-family:monospace", "font-family:sans-serif",
                                 "font-style:italic"), markup
    return parsed


# -- 1. math is text, never markup -----------------------------------------------------------------

#: The issue's hostile formulas, and what a reader must see of each (its characters, as text).
HOSTILE_MATH = [
    (r'\text{<script>document.body.setAttribute("data-pwned","yes")</script>}',
     '<script>document.body.setAttribute("data-pwned","yes")</script>'),
    (r"\text{<img/src=http://127.0.0.1:8765/beacon.png>}", "<img/src=http://127.0.0.1:8765/beacon.png>"),
    (r"\text{<START>}", "<START>"),
    (r"\text{<!--media:3-->}", "<!--media:3-->"),
    (r"\text{</math><script>alert(1)</script>}", "</math><script>alert(1)</script>"),
    (r"\text{&lt;b&gt; & x}", "&lt;b&gt;\u00a0&\u00a0x"),  # the author's entity is text too
    (r"\mathrm{<b>}", None),
    (r"\operatorname{<iframe>}", None),
]


@pytest.mark.parametrize("latex, shown", HOSTILE_MATH)
def test_text_in_a_formula_is_shown_as_its_characters_never_as_a_tag(latex, shown):
    for display in (False, True):
        mathml = to_mathml(latex, display=display)
        parsed = _assert_only_mathml(mathml)
        assert not any(tag in ("script", "img", "iframe", "b", "start") for tag, _ in parsed.tags)
        if shown is not None:
            assert "".join(parsed.text) == shown


@pytest.mark.parametrize("latex", [
    r"\style{background-image:url(http://127.0.0.1:8765/beacon.png)}{x}",
    r"\href{javascript:alert(1)}{x}",
    r"\href{http://127.0.0.1:8765/beacon}{x}",
    r"\color{url(http://127.0.0.1:8765/x)}{x}",
    r"\color{red;background:url(x)}{x}",
])
def test_no_style_href_or_url_reaches_the_page_through_a_formula(latex):
    mathml = to_mathml(latex)
    parsed = _assert_only_mathml(mathml)
    for _, attrs in parsed.tags:
        assert "href" not in attrs
        assert not any("url(" in (v or "") or "javascript" in (v or "") for k, v in attrs.items() if k != "alttext")
    assert "".join(parsed.text) == "x"


def test_the_sanitised_mathml_keeps_what_the_drafts_need():
    """Layout attributes and symbols survive the allow-list: a colour, a fence, a space, a matrix."""
    assert 'mathcolor="red"' in to_mathml(r"\color{red}{x}")
    assert 'stretchy="true"' in to_mathml(r"\left(x\right)")
    assert '<mspace width="0.167em"/>' in to_mathml(r"a\,b")
    matrix = to_mathml(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}")
    assert matrix.count("<mtd>") == 4 and "&#x00028;" in matrix
    assert ">a&lt;b<" not in to_mathml("a<b") and "&#x0003C;" in to_mathml("a<b")


def _build(tmp_path: Path, draft_text: str, trace, registry, links_text: str | None = None, **kw):
    from publish.post import build_post

    draft = tmp_path / "draft.md"
    draft.write_text(draft_text, encoding="utf-8")
    links = None
    if links_text is not None:
        links = tmp_path / "links.toml"
        links.write_text(links_text, encoding="utf-8")
    site = kw.pop("site", tmp_path / "site")
    report = build_post(draft, site, links=links, trace=trace, registry=registry, echo=lambda line: None, **kw)
    return site, report


def _body(page: str) -> str:
    return page[page.index("<main>"):page.index("</main>")]


def test_every_path_into_the_page_carries_text_never_markup(tmp_path, trace, registry):
    """Inline and display math, the link table's latex, label, caption, alt, and the front matter:
    the page's body holds no element outside the allow-lists and no foreign attribute."""
    script = r'\text{<script>document.body.setAttribute("data-pwned","yes")</script>}'
    draft = (
        "+++\n[[link]]\nmatch = \"front.png\"\nlatex = '\\text{<img src=x onerror=alert(1)>}'\n"
        "label = \"<b>(1)</b>\"\n+++\n"
        f"# Title <i>x</i> $\\text{{<START>}}$\n\nInline ${script}$ and $\\text{{<START>}}$.\n\n"
        f"$$\n{script} \\\\ \\style{{background-image:url(http://127.0.0.1:8765/b.png)}}{{x}}\n$$\n\n"
        "![eq](eq.png)\n\n![front](front.png)\n\n<script>alert(2)</script>\n"
    )
    links = ("[[link]]\nmatch = \"eq.png\"\nlatex = '\\href{javascript:alert(1)}{y} \\text{<script>x</script>}'\n"
             "label = \"<script>l</script>\"\n")
    site, report = _build(tmp_path, draft, trace, registry, links)
    page = (site / "index.html").read_text(encoding="utf-8")
    body = _body(page)
    parsed = _parse(body)
    allowed = ELEMENTS | {"main", "h1", "p", "div", "span", "figure", "figcaption", "em", "strong", "code"}
    for tag, attrs in parsed.tags:
        assert tag in allowed, (tag, body)
        assert "href" not in attrs and not any(k.startswith("on") for k in attrs), (tag, attrs)
        assert "url(" not in (attrs.get("style") or "")
    text = "".join(parsed.text)
    assert "<START>" in text and "<script>alert(2)</script>" in text and "<b>(1)</b>" in text
    assert "<script>" not in page.replace(html.escape("<script>"), "")
    title = re.search(r"<title>(.*)</title>", page).group(1)
    assert "<i>" not in title


# -- numbers --format markdown|latex ---------------------------------------------------------------

def test_markdown_tables_escape_html_and_markdown_in_every_cell():
    from publish.tables import to_markdown

    sections = {"hidden_state_map": {"topics": ["<img src=x onerror=1>", "a|b", "*em* [l](u) `c` ~s~"],
                                     "image": "<b>$y$</b>", "plain": "h_3"}}
    md = to_markdown(sections, heading="<script>h</script>")
    assert "<img" not in md and "<b>" not in md and "<script>" not in md
    assert "&lt;img src=x onerror=1&gt;" in md and "&lt;b&gt;\\$y\\$&lt;/b&gt;" in md
    assert "\\*em\\* \\[l\\](u) \\`c\\` \\~s\\~" in md and "a\\|b" in md
    assert "| h_3 |" in md  # an underscore inside a word starts nothing: kept
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    tags = {tag for tag, _ in _parse(rendered).tags}
    assert tags <= {"h2", "p", "strong", "table", "thead", "tbody", "tr", "th", "td"}, tags
    assert "<img src=x onerror=1>" in "".join(_parse(rendered).text)


def test_latex_tables_escape_latex_specials_and_html_in_every_cell():
    from publish.tables import to_latex

    tex = to_latex({"s": {"topic": "<img src=x onerror=1> 50% $x$ a_b {c} \\d"}})
    assert "<" not in tex and ">" not in tex
    assert r"\textless{}img src=x onerror=1\textgreater{} 50\% \$x\$ a\_b \{c\} \textbackslash{}d" in tex


def test_scene_tables_escape_their_labels(monkeypatch):
    from publish import tables

    monkeypatch.setattr(tables, "labelled_tables", lambda scene_id, data: [
        ("<img src=x onerror=1> caption", "X", ["", "<b>c</b>"], [["<i>r</i>", "0.5"]])])
    md = tables.scene_markdown("s", {}, {}, heading="<u>h</u>")
    tex = tables.scene_latex("s", {}, {}, heading="a --> <script>")
    for out in (md, tex):
        assert "<img" not in out and "<b>" not in out and "<i>" not in out and "<script>" not in out, out
    assert tex.count("-->") == 1  # the comment is closed only where we close it
