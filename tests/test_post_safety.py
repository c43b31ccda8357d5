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

from publish.post.formulas import to_mathml


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
    from publish.post.mathml_sanitize import ATTRIBUTES, ELEMENTS

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
    from publish.post.build import build_post

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
    from publish.post.mathml_sanitize import ELEMENTS

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


# -- 2. the build owns what it writes and nothing else ---------------------------------------------

def _cli(*args: str, env: dict | None = None):
    from click.testing import CliRunner

    import render

    return CliRunner().invoke(render.cli, ["post", *args], env=env)


def _one_line(result, text: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.strip().split("\n") if line]
    assert len(lines) == 1 and lines[0].startswith("error: ") and text in lines[0], result.output
    assert "Traceback" not in result.output


def test_a_build_removes_none_of_the_users_files_in_site(tmp_path, trace, registry):
    site = tmp_path / "site"
    (site / "figures" / "light").mkdir(parents=True)
    mine = {"figures/my_sketch.png": b"sketch", "figures/light/notes.txt": b"notes", "figures/a&b.png": b"ab",
            "media/light/keep.mp4": b"clip", "notes.md": b"n"}
    for rel, data in mine.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(data)
    draft = "# Mine\n\n![a and b](figures/a&b.png)\n\nText.\n"
    for _ in range(2):  # the second build reads the first one's manifest
        _, report = _build(tmp_path, draft, trace, registry, site=site)
        assert report.removed == []
    for rel, data in mine.items():
        assert (site / rel).read_bytes() == data, rel
    page = (site / "index.html").read_text(encoding="utf-8")
    assert 'src="figures/a&amp;b.png"' in page  # the draft's own picture, named as the draft names it
    from publish.post.manifest import read_manifest

    assert read_manifest(site)["files"] == ["index.html"]


def test_a_symlinked_figures_folder_is_refused_and_its_target_untouched(tmp_path, trace, registry):
    outside = tmp_path / "elsewhere"
    (outside / "light").mkdir(parents=True)
    (outside / "precious.png").write_bytes(b"p")
    (outside / "light" / "deep.svg").write_bytes(b"d")
    site = tmp_path / "site"
    site.mkdir()
    (site / "figures").symlink_to(outside, target_is_directory=True)
    from publish.post.build import PostError

    with pytest.raises(PostError, match="figures is a link to .*outside the site"):
        _build(tmp_path, "# T\n\nText.\n", trace, registry, site=site)
    assert (outside / "precious.png").read_bytes() == b"p" and (outside / "light" / "deep.svg").is_file()
    assert not (site / "index.html").exists()


def test_removal_never_goes_through_a_symlink(tmp_path):
    from publish.post.manifest import remove_unlisted

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.png").write_bytes(b"x")
    site = tmp_path / "site"
    (site / "figures").mkdir(parents=True)
    (site / "figures" / "light").symlink_to(outside, target_is_directory=True)
    (site / "figures" / "link.png").symlink_to(outside / "x.png")
    removed = remove_unlisted(site, ["figures/light/x.png", "figures/link.png", "../elsewhere/x.png",
                                     "/etc/hostname"], [])
    assert removed == [] and (outside / "x.png").read_bytes() == b"x" and (site / "figures" / "link.png").is_symlink()


def test_an_index_html_the_build_did_not_write_is_refused_unless_force(tmp_path, trace, registry):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>my own page</p>", encoding="utf-8")
    draft = tmp_path / "draft.md"
    draft.write_text("# T\n\nText.\n", encoding="utf-8")
    _one_line(_cli(str(draft), "--out", str(site)), "index.html was not written by render.py post")
    assert (site / "index.html").read_text(encoding="utf-8") == "<p>my own page</p>"
    assert not (site / "media").exists() and not (site / ".cache").exists()
    # --force replaces it; then the page is ours, and a build without --force rewrites it.
    _, report = _build(tmp_path, "# T\n\nText.\n", trace, registry, site=site, force=True)
    assert "my own page" not in (site / "index.html").read_text(encoding="utf-8")
    _build(tmp_path, "# T\n\nOther text.\n", trace, registry, site=site)
    assert "Other text." in (site / "index.html").read_text(encoding="utf-8")
    # Edited by hand after the build: no longer the page the build wrote.
    (site / "index.html").write_text("<p>edited</p>", encoding="utf-8")
    from publish.post.build import PostError

    with pytest.raises(PostError, match="index.html was not written by render.py post"):
        _build(tmp_path, "# T\n\nText.\n", trace, registry, site=site)


def test_root_home_and_the_drafts_folder_are_refused_as_site(tmp_path):
    from publish.post.manifest import SiteError, check_site

    draft = tmp_path / "drafts" / "post.md"
    draft.parent.mkdir()
    draft.write_text("# T\n", encoding="utf-8")
    with pytest.raises(SiteError, match="the root folder"):
        check_site(Path("/"), draft)
    home = tmp_path / "home"
    home.mkdir()
    result = _cli(str(draft), "--out", str(home), env={"HOME": str(home)})
    _one_line(result, "your home folder")
    assert list(home.iterdir()) == []
    for site in (draft.parent, tmp_path):  # the draft's folder, and a folder holding it
        _one_line(_cli(str(draft), "--out", str(site)), "holds the draft itself")
    assert sorted(p.name for p in draft.parent.iterdir()) == ["post.md"]


@pytest.mark.parametrize("case, text", [
    ("file figures", "figures exists and is not a folder"),
    ("file media", "media exists and is not a folder"),
    ("folder index.html", "index.html is a folder"),
    ("file v", "v exists and is not a folder"),
])
def test_a_site_holding_the_wrong_kind_of_file_is_one_line(tmp_path, case, text):
    site = tmp_path / "site"
    site.mkdir()
    kind, name = case.split()
    if kind == "file":
        (site / name).write_text("x")
    else:
        (site / name).mkdir()
    draft = tmp_path / "draft.md"
    draft.write_text("# T\n\nText.\n", encoding="utf-8")
    _one_line(_cli(str(draft), "--out", str(site)), text)


def test_the_files_and_folders_a_build_writes_are_readable_by_a_web_server(tmp_path, trace, registry):
    import os
    import stat

    old = os.umask(0o022)
    try:
        site, _ = _build(tmp_path, "# T\n\nText.\n", trace, registry)
    finally:
        os.umask(old)
    for path in [site, *site.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o755 if path.is_dir() else 0o644), (path, oct(mode))


# -- 3. bad input: one line, before anything renders ---------------------------------------------

def _spy_renders(monkeypatch) -> list:
    """Every call of the render pipeline (none may come before a refusal)."""
    import publish.rendering.pipeline

    calls: list = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise AssertionError("rendered before the input was checked")

    monkeypatch.setattr(publish.rendering.pipeline, "run_renders", refuse)
    return calls


_MEDIA_DRAFT = "# T\n\n![enc](encoder.mp4)\n\nSome text.\n\n"
_MEDIA_LINKS = '[[link]]\nmatch = "encoder.mp4"\nscene = "encoder"\n'


@pytest.mark.parametrize("case, draft, links, text", [
    ("U+2063 in the text", _MEDIA_DRAFT + "a \u2063PH0\u2063 b\n", _MEDIA_LINKS, "line 7: an invisible separator"),
    ("U+2063 in inline math", _MEDIA_DRAFT + "x\n\n$a \u2063PH7\u2063$\n", _MEDIA_LINKS, "line 9: an invisible"),
    ("U+2063 in a caption", _MEDIA_DRAFT, _MEDIA_LINKS + 'caption = "c \u2063PH0\u2063"\n',
     "caption holds an invisible"),
    ("bad inline formula, line 9", _MEDIA_DRAFT + "one\ntwo\nthree $\\frac{a}{$ four\n", _MEDIA_LINKS,
     "line 9: cannot typeset"),
    ("bad display formula", _MEDIA_DRAFT + "$$\n\\begin{bmatrix}\n$$\n", _MEDIA_LINKS, "line 7: cannot typeset"),
    ("bad table formula", _MEDIA_DRAFT + "![eq](eq.png)\n",
     _MEDIA_LINKS + "[[link]]\nmatch = \"eq.png\"\nlatex = '\\\\frac{'\n", "(eq.png): cannot typeset"),
    ("table in a formula", _MEDIA_DRAFT + "$x = {{ worked_example.weights }}$\n", _MEDIA_LINKS,
     "line 7: a placeholder inside a formula must give one value"),
    ("step 99", "# T\n\n![s](s.png)\n",
     '[[link]]\nmatch = "s.png"\nscene = "worked_example"\nshow = "step"\nstep = 99\n',
     "scene worked_example has no step 99 (its steps: 1 step-1-inputs"),
    ("step name", "# T\n\n![s](s.png)\n",
     '[[link]]\nmatch = "s.png"\nscene = "worked_example"\nshow = "step-clip"\nstep = "nope"\n', "no step 'nope'"),
    ("at = nan", _MEDIA_DRAFT, '[[link]]\nmatch = "encoder.mp4"\nscene = "encoder"\nshow = "still"\nat = nan\n',
     "at = nan must be a time in seconds"),
    ("at = inf", _MEDIA_DRAFT, '[[link]]\nmatch = "encoder.mp4"\nscene = "encoder"\nshow = "still"\nat = inf\n',
     "at = inf must be a time"),
    ("|int(3)", _MEDIA_DRAFT + "{{ dot_product.score | int(3) }}\n", _MEDIA_LINKS, "filter 'int' takes no argument"),
    ("|count(2)", _MEDIA_DRAFT + "{{ worked_example.weights | count(2) }}\n", _MEDIA_LINKS, "takes no argument"),
    ("percent(99)", _MEDIA_DRAFT + "{{ dot_product.score | percent(99) }}\n", _MEDIA_LINKS, "at most 6 decimals"),
    # Ten lines of aliases stand for 9 ** 9 values; the title read as text spelled them out (minutes).
    # Six levels here, so the case also ends, unrefused, without the check.
    ("YAML aliases", "---\na: &a [x, x, x, x, x, x, x, x, x]\n"
     + "".join(f"{c}: &{c} [{', '.join(['*' + chr(ord(c) - 1)] * 9)}]\n" for c in "bcdef")
     + "title: *f\n---\n" + _MEDIA_DRAFT, _MEDIA_LINKS, "a YAML alias (*name) of a list or a map"),
])
def test_bad_input_is_one_line_with_its_true_line_before_anything_renders(tmp_path, monkeypatch, case, draft,
                                                                           links, text):
    calls = _spy_renders(monkeypatch)
    draft_path = tmp_path / "draft.md"
    draft_path.write_text(draft, encoding="utf-8")
    links_path = tmp_path / "links.toml"
    links_path.write_text(links, encoding="utf-8")
    site = tmp_path / "site"
    _one_line(_cli(str(draft_path), "--out", str(site), "--links", str(links_path)), text)
    assert calls == [] and not (site / "index.html").exists()


def test_a_placeholder_in_the_h1_gives_the_title_its_value_and_a_marker_in_a_value_stays_text(
        tmp_path, trace, registry, monkeypatch):
    site, _ = _build(tmp_path, "# Score is {{ dot_product.score }} today\n\nText.\n", trace, registry)
    page = (site / "index.html").read_text(encoding="utf-8")
    assert "<title>Score is 0.39 today</title>" in page and "\u2063" not in page
    # A value holding the marker (a word of the numbers file) is written as a reference, not read as a marker.
    from publish.post.placeholders import evaluate, parse

    shown, _ = evaluate(parse("{{ w }}"), {"w": "x\u2063PH0\u2063y"})
    assert shown == "x&#x2063;PH0&#x2063;y"


@pytest.mark.parametrize("option, value, text", [
    ("--jobs", "\u00b2", "--jobs must be a whole number of at least 1, got '\u00b2'"),
    ("--jobs", "0", "--jobs must be a whole number"),
    ("--port", "70000", "--port must be a port number from 0 to 65535, got '70000'"),
    ("--port", "-1", "--port must be a port number from 0 to 65535, got '-1'"),
    ("--port", "\u0663", "--port must be a port number"),
])
def test_post_options_are_validated_as_render_does(tmp_path, monkeypatch, option, value, text):
    calls = _spy_renders(monkeypatch)
    draft = tmp_path / "draft.md"
    draft.write_text("# T\n\nText.\n", encoding="utf-8")
    for serve in ([], ["--serve"]):
        _one_line(_cli(str(draft), "--out", str(tmp_path / "site"), *serve, option, value), text)
    assert calls == [] and not (tmp_path / "site").exists()


@pytest.mark.parametrize("which", ["draft", "--links", "--numbers", "--out"])
def test_a_name_over_255_bytes_is_one_line(tmp_path, which):
    long = tmp_path / ("\u00e9" * 130 + ".md")  # 260 bytes
    draft = tmp_path / "draft.md"
    draft.write_text("# T\n\nText.\n", encoding="utf-8")
    args = [str(draft), "--out", str(tmp_path / "site")]
    if which == "draft":
        args[0] = str(long)
    elif which == "--out":
        args[2] = str(long)
    else:
        args += [which, str(long)]
    result = _cli(*args)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and result.output.startswith("error: ")


def test_a_draft_over_the_size_limit_is_one_line(tmp_path):
    from publish.post.safety import MAX_DRAFT_BYTES

    draft = tmp_path / "big.md"
    draft.write_bytes(b"# T\n\n" + b"word " * (MAX_DRAFT_BYTES // 5 + 1))
    _one_line(_cli(str(draft), "--out", str(tmp_path / "site")), "MB a draft may hold")


# -- 4. a page never disagrees with its media -----------------------------------------------------

class _FakeRenders:
    """The render pipeline, replaced: each call writes the clip's files with the given contents
    (as a render would, by an atomic replace), then does what the test asks (fail, be interrupted,
    or change the draft while "rendering")."""

    def __init__(self, content: bytes, then: str = "", draft: Path | None = None) -> None:
        self.content, self.then, self.draft = content, then, draft

    def __call__(self, scene_ids, trace, out_dir, quality, formats, theme, jobs, force, **kw):
        from publish.rendering.pipeline import Result, Summary

        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        for scene_id in scene_ids:
            for fmt in formats:
                tmp = out_dir / f".{scene_id}.{fmt}.part"
                tmp.write_bytes(self.content + f" {fmt}".encode())
                tmp.replace(out_dir / f"{scene_id}.{fmt}")
        if self.then == "interrupt":
            raise KeyboardInterrupt
        if self.then == "save during the build" and self.draft is not None:
            self.draft.write_text(self.draft.read_text(encoding="utf-8") + "\nSaved while rendering.\n",
                                  encoding="utf-8")
        status = "failed" if self.then == "fail" else "rendered"
        return Summary([Result(s, status, tuple(formats), 0.1, "boom" if status == "failed" else "")
                        for s in scene_ids])


def _named_files(site: Path) -> dict[str, bytes]:
    """Every file of SITE the page names (src, poster, href), with its bytes."""
    from urllib.parse import unquote

    page = (site / "index.html").read_text(encoding="utf-8")
    refs = {unquote(html.unescape(r)) for r in re.findall(r'(?:src|poster|href|srcset)="([^"]+)"', page)}
    return {r: (site / r).read_bytes() for r in refs if "://" not in r and (site / r).is_file()}


@pytest.mark.parametrize("then", ["interrupt", "fail"])
def test_an_interrupted_or_failed_build_leaves_the_last_page_with_its_own_clips(tmp_path, trace, registry,
                                                                              monkeypatch, then):
    import publish.rendering.pipeline

    draft = "# T\n\n[enc](encoder.mp4)\n\nScore {{ dot_product.score }}.\n"
    monkeypatch.setattr(publish.rendering.pipeline, "run_renders", _FakeRenders(b"first clip"))
    site, _ = _build(tmp_path, draft, trace, registry, _MEDIA_LINKS)
    page = (site / "index.html").read_text(encoding="utf-8")
    named = _named_files(site)
    assert {Path(r).suffix for r in named} == {".mp4", ".png", ".vtt"}
    assert all(data.startswith(b"first clip") for data in named.values())
    # The next build renders new clips, then is interrupted (or a scene fails): the page and what
    # it names are as they were.
    monkeypatch.setattr(publish.rendering.pipeline, "run_renders", _FakeRenders(b"second clip", then))
    from publish.post.build import PostError

    with pytest.raises(KeyboardInterrupt if then == "interrupt" else PostError):
        _build(tmp_path, draft.replace("Score", "New score"), trace, registry, _MEDIA_LINKS)
    assert (site / "media" / "light" / "encoder.mp4").read_bytes().startswith(b"second clip")  # rendered...
    assert (site / "index.html").read_text(encoding="utf-8") == page  # ...but the page is the last good one
    assert _named_files(site) == named
    # A build that completes shows the new clips, and the old copies go (they were ours).
    monkeypatch.setattr(publish.rendering.pipeline, "run_renders", _FakeRenders(b"third clip"))
    _, report = _build(tmp_path, draft, trace, registry, _MEDIA_LINKS)
    new = _named_files(site)
    assert all(data.startswith(b"third clip") for data in new.values())
    assert sorted(report.removed) == sorted(named) and not any((site / r).exists() for r in named)


def test_a_save_during_the_build_is_built_again_not_recorded_as_current(tmp_path, monkeypatch):
    """The stamp used to hash the draft when the build ended: a save made while a scene rendered was
    recorded as built, and every later run said "nothing changed"."""
    import publish.rendering.pipeline
    from publish.freshness import post_is_current

    draft = tmp_path / "draft.md"
    draft.write_text("# T\n\n[enc](encoder.mp4)\n\nFirst text.\n", encoding="utf-8")
    links = tmp_path / "links.toml"
    links.write_text(_MEDIA_LINKS, encoding="utf-8")
    site = tmp_path / "site"
    fake = _FakeRenders(b"clip", "save during the build", draft)
    monkeypatch.setattr(publish.rendering.pipeline, "run_renders", fake)
    result = _cli(str(draft), "--out", str(site), "--links", str(links))
    assert result.exit_code == 0, result.output
    assert "changed during the build; building again" in result.output
    assert "not recorded as current" in result.output  # saved during every one of the builds
    assert post_is_current(draft, site, links, None, "low", ("light",)) is None
    assert not (site / ".cache" / "post.json").exists()  # no stamp of a build whose draft moved under it
    # Saved during the first build only: the second build shows it and is recorded.
    draft.write_text("# T\n\n[enc](encoder.mp4)\n\nFirst text.\n", encoding="utf-8")
    calls = []

    def once(*args, **kw):
        fake.then = "save during the build" if not calls else ""
        calls.append(1)
        return fake(*args, **kw)

    monkeypatch.setattr(publish.rendering.pipeline, "run_renders", once)
    result = _cli(str(draft), "--out", str(site), "--links", str(links))
    assert result.exit_code == 0 and result.output.count("building again") == 1, result.output
    assert "Saved while rendering." in (site / "index.html").read_text(encoding="utf-8")
    # Recorded with the draft as built (the fake renders keep no render cache, so the stamp's own
    # hash is what is compared here).
    import json

    from publish.freshness import post_inputs_hash

    stamp = json.loads((site / ".cache" / "post.json").read_text(encoding="utf-8"))
    assert stamp["inputs"] == post_inputs_hash(draft, links, None, "low", ("light",))


# -- 5. --serve: requests, failures, signals ---------------------------------------------------------

@pytest.fixture
def served(tmp_path):
    """A --serve server of a SITE with one big file, in this process."""
    import threading

    from publish.targets.serve import ReloadHub, make_server

    site = tmp_path / "site"
    site.mkdir()
    (site / "big.bin").write_bytes(b"\0" * (8 << 20))
    (site / "index.html").write_text("<!DOCTYPE html><html><body><p>good page</p></body></html>", encoding="utf-8")
    hub = ReloadHub()
    server = make_server(site, hub, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site, hub, server.server_address[1]
    hub.stop()
    server.shutdown()
    server.server_close()


def _raw_get(port: int, path: str, read: int = 65536, reset: bool = False, host: str = "127.0.0.1") -> bytes:
    import socket
    import struct

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        data = sock.recv(read)
        if reset:  # the client goes away mid-answer: a reset, not a polite close
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        return data


def test_serve_answers_only_requests_for_this_machines_names(served):
    """A page of another site whose name its owner points at 127.0.0.1 (DNS rebinding) could read
    the unpublished draft's page from the preview: its requests name that site as Host."""
    site, hub, port = served
    assert _raw_get(port, "/", host="attacker.example").startswith(b"HTTP/1.0 403")
    assert _raw_get(port, "/big.bin", read=100, host="127.0.0.1.attacker.example").startswith(b"HTTP/1.0 403")
    for host in ("127.0.0.1", "localhost", "LOCALHOST", "[::1]"):
        assert _raw_get(port, "/", host=host).startswith(b"HTTP/1.0 200"), host


def test_serve_answers_a_null_byte_path_and_dropped_clients_without_a_traceback(served, capsys):
    import time

    site, hub, port = served
    assert _raw_get(port, "/%00").startswith(b"HTTP/1.0 400")
    assert _raw_get(port, "/a%00b.png").startswith(b"HTTP/1.0 400")
    for _ in range(40):  # ~70 tracebacks from 90 aborted requests, before
        _raw_get(port, "/big.bin", read=1024, reset=True)
        _raw_get(port, "/", read=10, reset=True)
    time.sleep(1.0)
    assert _raw_get(port, "/").startswith(b"HTTP/1.0 200")  # still serving
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err[-3000:]


def test_serve_shows_a_failed_build_as_a_page(served):
    import urllib.request

    site, hub, port = served
    hub.failure = "error: line 3: cannot typeset $\\frac{<b>}{$"
    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read().decode()
    assert "The last build failed" in page and "the last good build" in page and "good page" in page
    assert "cannot typeset $\\frac{&lt;b&gt;}{$" in page and "<b>" not in page
    (site / "index.html").unlink()  # no good build yet: the failure alone, never "being built" forever
    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read().decode()
    assert "The last build failed" in page and "being built" not in page


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class _Serve:
    """``render.py post --serve`` in a process of its own, its stderr lines collected."""

    def __init__(self, draft: Path, site: Path, *extra: str) -> None:
        import os
        import subprocess
        import sys
        import threading

        root = Path(__file__).resolve().parents[1]
        self.proc = subprocess.Popen([sys.executable, str(root / "render.py"), "post", str(draft), "--out",
                                      str(site), "--serve", "--port", "0", *extra], cwd=root,
                                     env={**os.environ, "PYTHONPATH": str(root)}, stderr=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, text=True)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stderr.readline, "")),
                                       daemon=True)
        self.reader.start()

    def wait_for(self, predicate, what: str, seconds: float = 120) -> None:
        import time

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if predicate():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no {what}: {''.join(self.lines)[-3000:]}")

    def line(self, start: str) -> bool:
        return any(line.startswith(start) for line in self.lines)

    @property
    def url(self) -> str:
        return next(line for line in self.lines if line.startswith("serving")).split()[1]

    def stop(self, signum: int) -> int:
        self.proc.send_signal(signum)
        code = self.proc.wait(timeout=180)  # a loaded 2-core machine (the whole suite) took over 60 s once
        self.reader.join(timeout=5)
        return code


def test_serve_survives_its_folder_removed_and_made_again_and_shows_a_failed_build(tmp_path):
    import shutil
    import signal
    import time
    import urllib.request

    folder = tmp_path / "drafts"
    folder.mkdir()
    draft = folder / "draft.md"
    draft.write_text("# Served\n\nFirst version.\n", encoding="utf-8")
    site = tmp_path / "site"
    serve = _Serve(draft, site)
    try:
        serve.wait_for(lambda: serve.line("serving http://127.0.0.1:"), "server")
        serve.wait_for(lambda: serve.line("post: "), "first build")
        # A branch switch: the folder goes, and comes back with another draft.
        shutil.rmtree(folder)
        time.sleep(0.1)
        folder.mkdir()
        draft.write_text("# Served\n\nSecond version.\n", encoding="utf-8")
        serve.wait_for(lambda: (site / "index.html").is_file()
                       and "Second version." in (site / "index.html").read_text(encoding="utf-8"), "rebuild")
        # A bad formula: the build fails, and the page says why. (A build may have failed already,
        # run while the folder was gone: the failure counted is the next one.)
        time.sleep(1.0)
        failures = sum(line.startswith("post: the build failed") for line in serve.lines)
        draft.write_text("# Served\n\nThird $\\frac{a}{$ version.\n", encoding="utf-8")
        serve.wait_for(lambda: sum(line.startswith("post: the build failed") for line in serve.lines) > failures,
                       "failed build")
        page = urllib.request.urlopen(serve.url, timeout=10).read().decode()
        assert "The last build failed" in page and "line 3: cannot typeset" in page and "Second version." in page
    finally:
        code = serve.stop(signal.SIGTERM)
    assert code == 143, "".join(serve.lines)[-2000:]
    assert serve.lines[-1].strip() == "stopped" and not any("Traceback" in line for line in serve.lines)


def _running_with(text: str) -> list[int]:
    """Processes alive whose command line holds ``text``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text.encode() in cmdline.read_bytes() and _alive(int(cmdline.parent.name)):
                found.append(int(cmdline.parent.name))
        except (OSError, ValueError):
            continue
    return found


@pytest.mark.parametrize("when", ["during the first build", "once built"])
@pytest.mark.parametrize("signum, code", [("SIGHUP", 129), ("SIGINT", 130)])
def test_serve_stops_on_sighup_and_ctrl_c_with_their_exit_codes(tmp_path, signum, code, when):
    """The handlers are in place before the "serving" line, so the test signals on that line, not
    after a time. A signal during the first build stops that build too: nothing of the command
    runs on (a stop that landed while the build process was being started left it running)."""
    import signal

    draft = tmp_path / "draft.md"
    draft.write_text("# Served\n\nText.\n", encoding="utf-8")
    serve = _Serve(draft, tmp_path / "site")
    try:
        serve.wait_for(lambda: serve.line("serving http://127.0.0.1:"), "server")
        if when == "once built":
            serve.wait_for(lambda: serve.line("post: "), "first build")
    finally:
        got = serve.stop(getattr(signal, signum))
    assert got == code and serve.lines[-1].strip() == "stopped", "".join(serve.lines)[-2000:]
    assert not any("Traceback" in line for line in serve.lines)
    assert not _running_with(str(draft)), "a build of the draft outlived the command"


def test_a_stop_while_serve_starts_a_build_is_raised_once_the_build_is_known():
    """A stop raised inside Popen (after the fork, before the build was recorded) left a build
    process that nobody stopped, writing the page after the command exited."""
    import signal

    from publish.targets.serve import _Signals, _Stop

    signals = _Signals()
    started = []
    with pytest.raises(_Stop) as stopped:
        with signals.deferred():
            signals.handler(signal.SIGHUP, None)  # lands while the build is being started
            started.append("build")  # ... which is still recorded
            signals.handler(signal.SIGINT, None)  # a second signal changes nothing
    assert started == ["build"] and stopped.value.signum == signal.SIGHUP
    with pytest.raises(_Stop):  # outside the block: at once
        _Signals().handler(signal.SIGINT, None)


@pytest.mark.render
@pytest.mark.parametrize("signum, code", [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_signal_during_a_served_build_stops_the_build_and_its_workers(tmp_path, signum, code):
    """SIGTERM used to kill the server alone: the build and its two render workers went on, re-parented
    to PID 1, and wrote the page after the command had exited."""
    import signal
    import time

    draft = tmp_path / "draft.md"
    draft.write_text("# Dot\n\n![dot](dot_product.svg)\n\nText.\n", encoding="utf-8")
    site = tmp_path / "site"
    serve = _Serve(draft, site, "--jobs", "2")
    try:
        serve.wait_for(lambda: serve.line("dot_product: rendering"), "a render under way")
        time.sleep(1.0)
        below = _descendants(serve.proc.pid)
        assert below, "no build process"
    finally:
        got = serve.stop(getattr(signal, signum))
    assert got == code, "".join(serve.lines)[-2000:]
    assert serve.lines[-1].strip() == "stopped" and not any("Traceback" in line for line in serve.lines)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [p for p in below if _alive(p)], "processes left"
    time.sleep(2.0)
    assert not (site / "index.html").exists()  # nothing written after the command exited


# -- 6. linear time: the text of a 1 MB draft of any shape in under 2 s --------------------------------

def _text_seconds(tmp_path: Path, text: str, registry, trace, links: str | None = None) -> float:
    """CPU seconds of building the page's text (reading, cleaning, placeholders, links, Markdown,
    formulas checked and rendered): no scene renders. CPU time, not wall time: the machine is shared."""
    import time

    from publish.post.build import PostReport, _math_renderers, prepare

    draft = tmp_path / "shape.md"
    draft.write_text(text, encoding="utf-8")
    links_path = None
    if links is not None:
        links_path = tmp_path / "shape.toml"
        links_path.write_text(links, encoding="utf-8")
    data = trace.to_dict()
    begin = time.process_time()
    report = PostReport()
    md, tokens, slots, values, title, line_numbers = prepare(draft, links_path, registry, data, report)
    _math_renderers(md, values, report)
    md.renderer.render(tokens, md.options, {"line_numbers": line_numbers})
    return time.process_time() - begin


@pytest.fixture(scope="module")
def loaded_registry(registry):
    return dict(registry)  # the scenes imported once, outside the timings


_PROSE = "Attention weighs every encoder state; the context is their weighted sum. " * 2


@pytest.mark.parametrize("shape", ["a line of 100,000 spaces", "spaces before every bracket and parenthesis",
                                   "a list nested 1,000 deep by indentation", "a list nested 3,000 deep",
                                   "as many opening brackets as a draft may hold",
                                   "as many formulas as a draft may hold, all different",
                                   "every costly mark at its limit at once", "plain prose"])
def test_the_text_of_a_1_mb_draft_builds_in_under_2_s(tmp_path, loaded_registry, trace, shape):
    from publish.post.safety import MAX_AMPERSANDS, MAX_ANGLES, MAX_BRACKETS, MAX_DOLLARS, MAX_EMPHASIS

    if shape == "a line of 100,000 spaces":
        text = "# T\n\nx" + " " * 100_000 + "y\n\n" + _PROSE * ((1 << 20) // len(_PROSE))
    elif shape == "spaces before every bracket and parenthesis":
        text = "# T\n\n" + ("a" + " " * 2000 + "[b] (c)\n\n") * 500
    elif shape == "a list nested 1,000 deep by indentation":
        text = "# T\n\n" + "".join("  " * i + "- item as shown in [] (x)\n" for i in range(1000))
    elif shape == "as many opening brackets as a draft may hold":  # each a link that never closes
        text = "# T\n\n" + "[" * MAX_BRACKETS + "\n\n" + _PROSE * ((1 << 20) // len(_PROSE))
    elif shape == "as many formulas as a draft may hold, all different":
        text = ("# T\n\n" + "".join(f"$x_{{{i}}}$ " for i in range(MAX_DOLLARS // 2)) + "\n\n"
                + _PROSE * ((1 << 20) // len(_PROSE)))
    elif shape == "every costly mark at its limit at once":
        text = ("# T\n\n" + "[" * MAX_BRACKETS + "\n\n" + "".join(f"$x_{{{i}}}$ " for i in range(MAX_DOLLARS // 2))
                + "\n\n" + "*a " * (MAX_EMPHASIS - MAX_DOLLARS // 2) + "\n\n" + "< " * MAX_ANGLES + "\n\n"
                + "&amp; " * MAX_AMPERSANDS + "\n\n")
        text += _PROSE * (((1 << 20) - len(text.encode())) // len(_PROSE) + 1)
    elif shape == "a list nested 3,000 deep":
        text = "# T\n\n" + "- " * 3000 + "x\n\n" + _PROSE * ((1 << 20) // len(_PROSE))
    else:
        text = "# T\n\n" + (_PROSE + "\n\n") * ((1 << 20) // (len(_PROSE) + 2))
    assert len(text.encode()) >= 1_000_000
    assert _text_seconds(tmp_path, text, loaded_registry, trace) < 2.0


@pytest.mark.parametrize("shape, says", [
    ("[", "1,048,576 opening brackets '[', more than the 5,000 a draft may hold (links, pictures, citations"),
    ("$a$ ", "524,288 dollar signs '$', more than the 4,000 a draft may hold (2,000 formulas"),
    ("*a ", "349,525 emphasis marks '*' and '_', more than the 12,000 a draft may hold"),
    ("_a ", "349,525 emphasis marks '*' and '_', more than the 12,000 a draft may hold"),
    ("<", "1,048,576 angle brackets '<', more than the 20,000 a draft may hold"),
    ("&amp; ", "174,762 ampersands '&', more than the 10,000 a draft may hold"),
])
def test_a_1_mb_draft_of_brackets_or_formulas_is_refused_at_once(tmp_path, loaded_registry, trace, shape, says):
    """1 MB of "[" took 16 s in Markdown alone (each looks for its end 20 nestings deep), 1 MB of
    "$a$ " 5 s (a token, a check and a typesetting each), of "*a " 7 s, of "<" 3.7 s, of "&amp; "
    2.7 s: counted first, refused in one line."""
    import time

    from publish.post.build import PostError

    begin = time.process_time()
    with pytest.raises(PostError) as refused:
        _text_seconds(tmp_path, "# T\n\n" + shape * ((1 << 20) // len(shape)) + "\n", loaded_registry, trace)
    assert time.process_time() - begin < 2.0
    assert says in str(refused.value) and "\n" not in str(refused.value), refused.value


def test_twenty_thousand_headings_of_one_text_get_their_ids_in_linear_time():
    """Each heading's id was found by trying a-2, a-3, ... from the start: 20,000 headings "a"
    (120 kB of draft) took 200 million tries, minutes."""
    import time

    from publish.post.page import anchor_headings

    body = "<h2>a</h2>\n" * 20000 + "<h3>a-2</h3>\n<h2>Contents</h2>\n"
    begin = time.process_time()
    _, headings = anchor_headings(body)
    assert time.process_time() - begin < 2.0
    ids = [slug for _, slug, _ in headings]
    # The first is "a", the k-th "a-k"; then "a-2" is taken, so "a-2-2"; "contents" is the page's own.
    assert ids == ["a"] + [f"a-{k}" for k in range(2, 20001)] + ["a-2-2", "contents-2"]


def test_many_edit_matches_in_a_1_mb_draft_build_in_under_2_s(tmp_path, loaded_registry, trace):
    text = "# T\n\n" + ("ab " * 1000 + "\n") * 333
    links = '[[edit]]\nfind = "ab"\nreplace = "abc"\n'
    assert _text_seconds(tmp_path, text, loaded_registry, trace, links) < 2.0
    # The edit is applied everywhere, and each line holding it is listed once.
    from publish.post.build import PostReport, prepare

    draft = tmp_path / "e.md"
    draft.write_text("# T\n\nab ab\n\nno\n\nab\n", encoding="utf-8")
    (tmp_path / "e.toml").write_text(links, encoding="utf-8")
    report = PostReport()
    _, tokens, _, _, _, _ = prepare(draft, tmp_path / "e.toml", loaded_registry, {}, report)
    assert [c.line for c in report.changes if c.kind == "edit"] == [3, 7]
    assert "abc abc" in tokens[4].content


def test_thousands_of_media_links_in_a_paragraph_build_in_linear_time(tmp_path, loaded_registry, trace):
    """4,000 links took 65 s, 20,000 did not finish in 300 s. What is left is markdown-it's own cost
    per link (~0.1 ms): linear."""
    links = '[[link]]\nmatch = "encoder.mp4"\nscene = "encoder"\n'
    # 5,000: as many as a draft may hold (MAX_BRACKETS).
    few = _text_seconds(tmp_path, "# T\n\n" + "![a](encoder.mp4) " * 1000 + "\n", loaded_registry, trace, links)
    many = _text_seconds(tmp_path, "# T\n\n" + "![a](encoder.mp4) " * 5000 + "\n", loaded_registry, trace, links)
    assert few < 2.0
    assert many < 10 * max(few, 0.1), (few, many)  # 5x the links: linear gives ~5x, the square 25x
    # Every link placed, in reading order, each an occurrence of its own.
    from publish.post.build import PostReport, prepare

    draft = tmp_path / "o.md"
    draft.write_text("# T\n\nA ![a](x.png) b ![b](x.png) c ![c](y.png)\n\n![d](x.png)\n", encoding="utf-8")
    (tmp_path / "o.toml").write_text('[[link]]\nmatch = "x.png"\nscene = "encoder"\noccurrence = 2\nalt = "two"\n'
                                     '[[link]]\nmatch = "x.png"\nscene = "encoder"\nalt = "other"\n'
                                     '[[link]]\nmatch = "y.png"\nscene = "decoder"\n', encoding="utf-8")
    _, _, slots, _, _, _ = prepare(draft, tmp_path / "o.toml", loaded_registry, {}, PostReport())
    assert sorted((s.href, s.entry.alt) for s in slots) == [("x.png", "other"), ("x.png", "other"),
                                                          ("x.png", "two"), ("y.png", None)]


def test_serve_does_not_follow_a_link_out_of_site(served):
    import urllib.error
    import urllib.request

    site, hub, port = served
    secret = site.parent / "secret.txt"
    secret.write_text("not for the page", encoding="utf-8")
    (site / "leak.txt").symlink_to(secret)
    (site / "inside.txt").write_text("ok", encoding="utf-8")
    (site / "alias.txt").symlink_to(site / "inside.txt")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/leak.txt", timeout=10)
    assert caught.value.code == 404
    assert urllib.request.urlopen(f"http://127.0.0.1:{port}/alias.txt", timeout=10).read() == b"ok"


def test_a_link_to_root_or_home_as_site_is_refused(tmp_path, monkeypatch):
    from publish.post.manifest import SiteError, check_site

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "to-root").symlink_to("/")
    (tmp_path / "to-home").symlink_to(home)
    for link, text in (("to-root", "the root folder"), ("to-home", "your home folder")):
        with pytest.raises(SiteError, match=text):
            check_site(tmp_path / link)
    draft = tmp_path / "d" / "x.md"
    draft.parent.mkdir()
    draft.write_text("# T\n")
    with pytest.raises(SiteError, match="holds the draft"):
        check_site(draft.parent / "site" / "..", draft)  # the draft's folder, spelled another way


def test_repeated_formulas_are_typeset_once(monkeypatch):
    import publish.post.mathml_sanitize as sanitize

    calls = []
    real = sanitize.serialise
    monkeypatch.setattr(sanitize, "serialise", lambda tree: calls.append(1) or real(tree))
    for _ in range(50):
        to_mathml(r"x_{42} + \text{once}")
    assert len(calls) <= 1


def test_unclosed_placeholders_are_found_in_linear_time():
    """A line of 300,000 "{{ " read the rest of the line from each one: the square of its length."""
    import time

    from publish.post.placeholders import find

    begin = time.process_time()
    assert find("{{ " * 300_000 + "\n{{ dot_product.score }}") [0].line == 2
    assert time.process_time() - begin < 1.0
    found = find("a {{ x }}\nb {{ y | percent(1) }} {{ z }}\n\n{{ w }}", 5)
    assert [(p.path, p.line) for p in found] == [("x", 5), ("y", 6), ("z", 6), ("w", 8)]


def test_a_device_as_an_input_file_is_named_for_what_it_is(tmp_path):
    draft = tmp_path / "draft.md"
    draft.write_text("# T\n\nText.\n", encoding="utf-8")
    for option in ("--links", "--numbers"):
        _one_line(_cli(str(draft), "--out", str(tmp_path / "site"), option, "/dev/zero"), "not a regular file")
    _one_line(_cli("/dev/null", "--out", str(tmp_path / "site")), "not a regular file")


def test_serve_watches_only_the_files_the_page_is_made_from(tmp_path):
    """The draft's folder is not watched as a tree (a folder too big to watch stopped --serve with
    "file watch limit reached"); a folder removed and made again is a change, not the end of the watch."""
    import shutil
    import threading
    import time

    from publish.targets.serve import ROOT, watched_paths
    from publish.targets.watch import Poller

    folder = tmp_path / "home"
    (folder / "big" / "tree").mkdir(parents=True)
    for k in range(2000):
        (folder / "big" / "tree" / f"{k}.txt").write_text("x")
    draft = folder / "draft.md"
    draft.write_text("# T\n", encoding="utf-8")
    paths = watched_paths(draft, None, None)
    folders = [ROOT / "scenes", ROOT / "attention_core"]
    poller = Poller([p for p in paths if p not in folders], folders, interval=0.05, debounce=0.1)
    watched = set(poller.snapshot())
    assert str(draft) in watched and str(folder / "post.toml") in watched  # a table not there yet, too
    assert not any(w.startswith(str(folder / "big")) for w in watched)
    assert all(w.startswith((str(folder), str(ROOT))) for w in watched)
    stop = threading.Event()
    seen: list[set[str]] = []

    def watch() -> None:
        for changes in poller.watch(stop):
            seen.append(changes)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        shutil.rmtree(folder)
        folder.mkdir()
        draft.write_text("# T again\n", encoding="utf-8")
        (folder / "post.toml").write_text("", encoding="utf-8")
        deadline = time.monotonic() + 10
        while not any(str(folder / "post.toml") in s for s in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(str(draft) in s for s in seen) and any(str(folder / "post.toml") in s for s in seen), seen
        before = len(seen)
        draft.write_text("# T a third time\n", encoding="utf-8")
        deadline = time.monotonic() + 10
        while len(seen) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(seen) > before and str(draft) in seen[-1]  # still watching
    finally:
        stop.set()
        thread.join(timeout=5)


def test_placeholders_in_code_are_shown_as_written_and_a_backslash_escapes_one(tmp_path, trace, registry):
    """``{{ }}`` inside code was evaluated, with no way to write one on the page."""
    draft = ("# T\n\nScore {{ dot_product.score }}; in code `{{ dot_product.score }}`; escaped "
             "\\{{ dot_product.score }}.\n\n```toml\nscore = \"{{ not.a.path | int(3) }}\"\n```\n\n"
             "``a ` {{ no.such }}`` and {{ dot_product.score | round(1) }}\n")
    site, report = _build(tmp_path, draft, trace, registry)
    body = _body((site / "index.html").read_text(encoding="utf-8"))
    assert "Score 0.39; in code <code>{{ dot_product.score }}</code>; escaped {{ dot_product.score }}." in body
    assert "score = &quot;{{ not.a.path | int(3) }}&quot;" in body and "{{ no.such }}</code> and 0.4" in body
    assert report.placeholders == 2


def test_a_picture_on_another_host_becomes_a_link_never_a_fetch(tmp_path, trace, registry):
    draft = ("# T\n\n![a cat](https://i.imgur.com/cat.png)\n\n[![wrapped](//evil.example/b.png)](https://x.example)\n\n"
             "![local](figures/mine.png) ![<b>alt</b>](http://127.0.0.1:8765/beacon.png \"t\")\n")
    site, report = _build(tmp_path, draft, trace, registry)
    body = _body((site / "index.html").read_text(encoding="utf-8"))
    imgs = [attrs for tag, attrs in _parse(body).tags if tag == "img"]
    assert [a["src"] for a in imgs] == ["figures/mine.png"]
    assert '<a class="remote-picture" href="https://i.imgur.com/cat.png">a cat</a>' in body
    assert 'href="//evil.example/b.png">wrapped</a>' in body and "&lt;b&gt;alt&lt;/b&gt;" in body


def test_a_theme_folder_linked_out_of_site_is_refused(tmp_path):
    from publish.post.manifest import SiteError, check_site

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    site = tmp_path / "site"
    (site / "media").mkdir(parents=True)
    (site / "media" / "light").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SiteError, match="media/light is a link to .*outside the site"):
        check_site(site)
    (site / "media" / "light").unlink()
    (site / "media" / "cached").mkdir()
    (site / "media" / "light").symlink_to(site / "media" / "cached", target_is_directory=True)
    check_site(site)  # a link within SITE is fine


@pytest.mark.parametrize("latex", [
    "\\frac{" * 2000 + "x" + "}{y}" * 2000,  # nesting deeper than Python's recursion
    "\\def\\a{xx}" + "".join(f"\\def\\{chr(98 + i)}{{\\{chr(97 + i)}\\{chr(97 + i)}}}" for i in range(24)) + "\\y",
    "\\def\\x{\\x}\\x",  # a macro that never ends
])
def test_a_formula_that_explodes_is_one_short_line(latex):
    from publish.post.formulas import MathError

    with pytest.raises(MathError) as caught:
        to_mathml(latex)
    message = str(caught.value)
    assert message.startswith("cannot typeset $") and len(message) < 260 and "\n" not in message


def test_a_media_marker_written_in_a_formula_is_text(tmp_path, trace, registry, monkeypatch):
    """``$\\text{<!--media:3-->}$`` was an IndexError: the page's own marker, made by the author."""
    import publish.rendering.pipeline

    monkeypatch.setattr(publish.rendering.pipeline, "run_renders", _FakeRenders(b"clip"))
    draft = ("# T\n\n[enc](encoder.mp4)\n\nSee $\\text{<!--media:3-->}$ and $\\text{<!--media:0-->}$.\n\n"
             "`<!--media:0-->` <!--media:0-->\n")
    site, _ = _build(tmp_path, draft, trace, registry, _MEDIA_LINKS)
    body = _body((site / "index.html").read_text(encoding="utf-8"))
    assert body.count("<video") == 1  # the one clip the draft links, once
    # As text: in the formula and its alttext, in the code span, in the paragraph.
    assert body.count("&lt;!--media:3--&gt;") == 2 and body.count("&lt;!--media:0--&gt;") == 4


def test_file_modes_follow_the_umask(tmp_path):
    import os
    import stat

    from publish.post.manifest import public_mode

    target = tmp_path / "f"
    target.write_text("x")
    old = os.umask(0o027)
    try:
        public_mode(target)
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
    finally:
        os.umask(old)
    public_mode(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~old
