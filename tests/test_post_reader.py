"""The reader's page (issue 32): front matter, encodings, citations, clips, anchors, seed 002, phones.

Unit tests worked by hand here, and small drafts (no scene to render) built
and opened in headless Chromium over a local HTTP server. The seed 000 page
itself is read in Chromium by tests/test_post.py (the shared ``seed_site``).
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from publish.post.cite import CitationReport, number_citations, place_citations
from publish.post.front_matter import FrontMatterError, decode_draft, parse_front_matter
from publish.post.links import Citation, LinkTableError, parse_table
from publish.post.page import anchor_headings, clip_html, reader_caption, toc_html, wrap_inline_math
from publish.post.reader import display_environments

from .test_post import SEEDS, _chromium

SEED_002 = next(iter(sorted(SEEDS.glob("002_*.txt"))), None)


@pytest.fixture(scope="module")
def registry():
    from scenes import SCENES

    return SCENES


def _build(tmp_path: Path, text: str | bytes, *extra: str):
    import render

    draft = tmp_path / "draft.md"
    if isinstance(text, bytes):
        draft.write_bytes(text)
    else:
        draft.write_text(text, encoding="utf-8")
    site = tmp_path / "site"
    result = CliRunner().invoke(render.cli, ["post", str(draft), "--out", str(site), *extra])
    return result, site


# -- reading the draft ----------------------------------------------------------------

def test_drafts_are_decoded_by_their_byte_order_mark_else_utf8():
    text = "# Été → α\n"
    assert decode_draft(text.encode("utf-8"), "d") == text
    assert decode_draft(b"\xef\xbb\xbf" + text.encode("utf-8"), "d") == text
    assert decode_draft(text.replace("\n", "\r\n").encode("utf-16"), "d") == text  # BOM + CRLF
    assert decode_draft(text.encode("utf-16-be").join([b"\xfe\xff", b""]), "d") == text
    assert decode_draft(text.encode("utf-32"), "d") == text
    with pytest.raises(FrontMatterError, match=r"draft d: not UTF-8 text \(byte 0xe9 on line 2\); save it as UTF-8"):
        decode_draft("# T\nd\u00e9j\u00e0\n".encode("cp1252"), "d")


def test_a_draft_in_another_encoding_is_one_line_and_nothing_written(tmp_path):
    result, site = _build(tmp_path, "# Caf\u00e9\n".encode("latin-1"))
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "not UTF-8 text (byte 0xe9 on line 1)" in result.output
    assert "Traceback" not in result.output and not (site / "index.html").exists()


def test_yaml_front_matter_keys_are_read_and_unknown_ones_kept():
    front = parse_front_matter('title: "Attention, by hand"\ndate: 2024-05-01\nauthor: [Ada, {name: Alan}]\n'
                               "tags: [nlp, attention]\ndescription: A post.\ndraft: false\nweight: 3\n", "---", "fm")
    assert (front.format, front.title, front.date, front.authors, front.tags, front.description) == (
        "yaml", "Attention, by hand", "2024-05-01", ["Ada", "Alan"], ["nlp", "attention"], "A post.")
    assert front.meta["draft"] is False and front.meta["weight"] == 3 and front.settings == {}


def test_toml_front_matter_hugo_style_and_the_tools_own_key():
    text = ('title = "T"\nauthor = "Ada"\n[params]\nmath = true\n'
            '[attention_render]\n[[attention_render.link]]\nmatch = "a.mp4"\nscene = "encoder"\n')
    front = parse_front_matter(text, "+++", "fm")
    assert front.title == "T" and front.authors == ["Ada"] and front.meta["params"] == {"math": True}
    assert front.settings == {"link": [{"match": "a.mp4", "scene": "encoder"}]}
    # The earlier form: [[link]] tables at the top level are settings too.
    old = parse_front_matter('[[link]]\nmatch = "a.mp4"\nscene = "decoder"\n', "+++", "fm")
    assert old.settings == {"link": [{"match": "a.mp4", "scene": "decoder"}]} and "link" not in old.meta


@pytest.mark.parametrize("text, fence, message", [
    ("title: [unclosed\n", "---", r"fm: not valid YAML \(line \d+: "),
    ('title = "x\n', "+++", "fm: not valid TOML"),
    ("- a\n- b\n", "---", "expected keys and values"),
    ("attention_render: 3\n", "---", "attention_render must hold keys"),
])
def test_bad_front_matter_is_one_clear_error(text, fence, message):
    with pytest.raises(FrontMatterError, match=message):
        parse_front_matter(text, fence, "fm")


# -- citations ----------------------------------------------------------------------

def _cite(key: str, at: tuple[str, ...] = (), **kw) -> Citation:
    return Citation(key, kw.get("authors", "A. Author"), kw.get("title", "A Title"), kw.get("year", 2015),
                    kw.get("link", ""), kw.get("venue", ""), at)


def test_empty_references_become_numbered_citations_in_reading_order():
    report = CitationReport()
    cites = [_cite("b", ("The authors of []",)), _cite("a", ("used in Transformers",), link="https://x.org/a")]
    text = "It is used in Transformers here.\nThe authors of [] said so.\nAgain [@b]; both [@a; @b]; unknown [@zz]."
    placed = place_citations(text, cites, 10, report)
    assert placed == ("It is used in Transformers [@a] here.\nThe authors of [@b] said so.\n"
                      "Again [@b]; both [@a; @b]; unknown [@zz].")
    assert [(c.line, c.kind) for c in report.placed] == [(11, "citation"), (10, "citation")]
    body, refs = number_citations(f"<p>{placed}</p><pre>[@a]</pre>", cites, report)
    # a is read first: [1]; b second: [2]. Code keeps its text; an unknown key stays and is listed.
    assert re.sub(r"<[^>]+>", "", body) == ("It is used in Transformers [1] here.\nThe authors of [2] said so.\n"
                                            "Again [2]; both [1, 2]; unknown [@zz].[@a]")
    assert '<li id="ref-1">A. Author (2015). <a href="https://x.org/a">A Title</a>.</li>' in refs
    assert refs.index('id="ref-1"') < refs.index('id="ref-2"') and report.unknown_keys == ["zz"]
    assert report.lines() == ["citation [@zz] has no [[cite]] entry: left as written",
                              "references: 2 works cited (a, b)"]


def test_a_citation_phrase_the_draft_lacks_is_listed_not_placed():
    report = CitationReport()
    assert place_citations("Nothing here.", [_cite("a", ("missing phrase",))], 1, report) == "Nothing here."
    assert report.missing_phrases == ["missing phrase"]


def test_cite_entries_are_checked(registry):
    good = '[[cite]]\nkey = "k"\nauthors = "A"\ntitle = "T"\nyear = 2002\nat = "the [] phrase"\n'
    table = parse_table(good, "t.toml", registry)
    assert table.cites[0].at == ("the [] phrase",) and table.cites[0].year == 2002
    for bad, message in [(good.replace('year = 2002\n', ''), "needs year"),
                         (good + 'pages = "1-2"\n', "unknown key 'pages'"),
                         (good + good, "key 'k' is given twice"),
                         (good.replace('authors = "A"\n', ''), "needs authors")]:
        with pytest.raises(LinkTableError, match=message):
            parse_table(bad, "t.toml", registry)


# -- the page around the body ----------------------------------------------------------

def test_a_clip_is_the_readers_to_play_and_fetches_nothing_until_asked():
    tag = clip_html("media/light/a b", "The encoder.")
    assert tag.startswith('<video controls preload="none" playsinline poster="media/light/a%20b.png"')
    assert "autoplay" not in tag and "loop" not in tag
    assert '<track kind="captions" src="media/light/a%20b.vtt"' in tag


def test_headings_get_anchors_and_the_contents_lists_the_h2s():
    body, headings = anchor_headings("<h2>Step 1: the inputs</h2><h3>Détails</h3><h2>Step 1: the inputs</h2>")
    assert [(t, s) for t, s, _ in headings] == [("h2", "step-1-the-inputs"), ("h3", "details"),
                                                ("h2", "step-1-the-inputs-2")]
    assert '<h2 id="step-1-the-inputs">Step 1: the inputs<a class="anchor" href="#step-1-the-inputs"' in body
    toc = toc_html(headings, [("references", "References")])
    assert re.findall(r'href="#([^"]+)"', toc) == ["step-1-the-inputs", "step-1-the-inputs-2", "references"]
    assert toc_html(headings[:1]) == ""  # one section needs no contents


def test_inline_math_is_boxed_display_math_is_not():
    body = wrap_inline_math('<p>a <math display="inline"><mi>x</mi></math></p><math display="block"><mi>y</mi></math>')
    assert body == ('<p>a <span class="imath"><math display="inline"><mi>x</mi></math></span></p>'
                    '<math display="block"><mi>y</mi></math>')


def test_display_environments_become_display_math_keeping_their_lines():
    text = "a\n\\begin{equation} c = a + b \\end{equation}\n\\begin{align*}\nx &= 1 \\\\\ny &= 2\n\\end{align*}\nz"
    out = display_environments(text)
    assert out == "a\n$$ c = a + b $$\n$$\\begin{aligned}\nx &= 1 \\\\\ny &= 2\n\\end{aligned}$$\nz"
    assert out.count("\n") == text.count("\n")


def test_captions_drop_working_labels():
    assert reader_caption("Dot-product attention for one query s_2 (draft Steps 1-4 and the close-up): "
                          "E = s_2 X^T.") == "Dot-product attention for one query s_2: E = s_2 X^T."
    assert reader_caption("Sentences as points (h_T of the translator trained without attention), PCA.") == \
        "Sentences as points, PCA."


# -- seed 002 --------------------------------------------------------------------------

@pytest.mark.skipif(SEED_002 is None, reason="the drafts (../shared/seeds) are not beside the repository")
def test_seed_002_shows_the_true_numbers_with_the_drafts_struck_through(tmp_path, registry):
    import numpy as np

    from publish.post.build import PostReport, prepare

    from .helpers import load_default_trace

    data = load_default_trace().to_dict()
    report = PostReport()
    md, tokens, slots, values, title, _ = prepare(SEED_002, None, registry, data, report)
    assert title == "The attention mechanism, with a full numerical example"  # no H1: the [[page]] entry
    assert [(s.entry.scene, s.entry.show, s.entry.step) for s in slots] == [
        ("worked_example", "clip", None), ("worked_example", "step", "step-2-scores"),
        ("worked_example", "step", "step-3-softmax"), ("worked_example", "step", "step-4-context")]
    assert report.unapplied == [] and report.unplaced == []
    page = " ".join(v for v, _ in values)
    # s = X q^T, worked by hand for its first row: X_0 = (-0.2, 0.3, 0.5).
    X = np.array([[-0.2, 0.3, 0.5], [0.1, -0.4, 0.2], [0.4, -0.1, 0.6], [0.2, 0.5, -0.1], [0.3, -0.2, 0.4]])
    q = np.array([[0.1, 0.2, -0.3], [-0.4, 0.3, 0.2], [0.5, 0.1, -0.2], [-0.2, 0.4, 0.3]])
    assert np.allclose((X @ q.T)[0], [-0.11, 0.27, -0.17, 0.31])  # -0.02+0.06-0.15, 0.08+0.09+0.1, ...
    first_row = re.search(r"<caption>E = X q\^T.*?</tr><tr><th>[^<]*</th>((?:<td>[^<]*</td>)+)", page).group(1)
    assert re.findall(r"<td>([^<]*)</td>", first_row) == ["-0.11", "0.27", "-0.17", "0.31"]
    # The draft's printed s, alpha and C, struck through beside the true ones.
    struck = re.findall(r'<del class="draft"><table[^>]*><caption>the draft printed this (\w+) \(wrong\)', page)
    assert struck == ["s", "alpha", "C"]
    assert "<td>0.11</td><td>0.24</td><td>-0.26</td><td>0.02</td>" in page  # the draft's first row of s
    # Each true column of alpha sums to 1; the draft's summed to 1.45 and 1.38.
    weights = np.exp(X @ q.T) / np.exp(X @ q.T).sum(axis=0)
    assert np.allclose(weights.sum(axis=0), 1)
    assert "1.45 1.00 1.00 1.38" in page
    # The four \begin{equation} blocks are typeset, none left raw.
    flat = tokens + [c for t in tokens for c in (t.children or [])]
    display = [t.content for t in flat if t.type in ("math_inline_double", "math_block")]
    assert len(display) == 4 and display[1].strip() == "score(q, x_i) = q * x_i"
    assert not any("\\begin{" in t.content for t in flat)


# -- small drafts in Chromium ------------------------------------------------------------

_PROBE = """
<script>
addEventListener('load', () => setTimeout(() => {
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({
    title: document.title, width: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
    description: (document.querySelector('meta[name=description]') || {}).content || null,
    byline: (document.querySelector('.byline') || {}).textContent || null,
    toc: [...document.querySelectorAll('nav.toc a')].map(a => a.getAttribute('href')),
    refs: [...document.querySelectorAll('ol.references li')].map(li => li.id),
    maths: [...document.querySelectorAll('span.imath')].map(s => [s.getBoundingClientRect().right,
                                                                    s.scrollWidth > s.clientWidth]),
  });
  parent.document.body.appendChild(out);  // the page is opened in a frame as wide as the screen tried
}, 500));
</script>
"""


def _open(site: Path, width: int, *flags: str) -> dict:
    """The page opened in a frame ``width`` px wide (headless Chromium keeps its window at least
    500 px wide; a frame has the viewport it is given), what the probe found there."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    page = (site / "index.html").read_text(encoding="utf-8")
    (site / "probe-page.html").write_text(page.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    (site / "probe.html").write_text(f'<!DOCTYPE html><body style="margin:0"><iframe src="probe-page.html" '
                                     f'style="width:{width}px;height:844px;border:0"></iframe></body>',
                                     encoding="utf-8")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = _chromium(f"http://127.0.0.1:{server.server_address[1]}/probe.html", "--virtual-time-budget=5000",
                           "--dump-dom", *flags, timeout=120)
    finally:
        server.shutdown()
        server.server_close()
    assert '<pre id="probe">' in result.stdout, result.stderr[-2000:]
    return json.loads(result.stdout.split('<pre id="probe">')[1].split("</pre>")[0].replace("&quot;", '"'))


_YAML_DRAFT = """---
title: "Attention, by hand: a YAML title"
date: 2024-05-01
author: Ada Lovelace
tags: [attention, nlp]
description: Attention computed by hand.
layout: post
attention_render:
  cite:
    - key: vaswani2017
      authors: Ashish Vaswani et al.
      title: Attention Is All You Need
      year: 2017
      at: ["used in Transformers"]
---
## The idea

Attention as used in Transformers. As the authors of [] said.

## A long formula

Here $s_{xy} : \\textup{At time step x, the yth dimension of hidden state/query vector}$ is long.

$$E = \\begin{bmatrix} s_{21} & s_{22} & s_{23} \\end{bmatrix}_{1 \\times 3} \\cdot
\\begin{bmatrix} h_{11} & h_{21} & h_{31} & h_{41} & h_{51} & h_{61} \\\\ h_{12} & h_{22} & h_{32} & h_{42} & h_{52} & h_{62}
\\end{bmatrix}_{3 \\times 6} = \\begin{bmatrix} a & b & c & d & e & f \\end{bmatrix}$$
"""


def test_a_yaml_front_matter_drafts_title_byline_and_meta_in_chromium_with_no_sideways_scroll(tmp_path):
    result, site = _build(tmp_path, _YAML_DRAFT)
    assert result.exit_code == 0, result.output
    # The unresolved empty reference is listed in the run, the resolved one too.
    assert "empty reference not resolved" in result.output and "references: 1 works cited (vaswani2017)" in result.output
    found = _open(site, 1100, "--window-size=1200,900")
    assert found["title"] == "Attention, by hand: a YAML title"
    assert found["description"] == "Attention computed by hand."
    assert found["byline"] == "By Ada Lovelace · 2024-05-01 · attention, nlp"
    assert found["toc"] == ["#the-idea", "#a-long-formula", "#references"] and found["refs"] == ["ref-1"]
    phone = _open(site, 390, "--window-size=600,900")
    # 390 px: the page never scrolls sideways; the long formula scrolls inside its own box.
    assert phone["viewport"] == 390 and phone["width"] == phone["viewport"], phone
    assert phone["maths"] and all(right <= phone["viewport"] for right, _ in phone["maths"])
    assert any(scrolls for _, scrolls in phone["maths"])


def test_a_still_is_its_png_on_a_1x_screen_its_svg_on_a_2x_one_in_the_readers_theme():
    from publish.post.page import still_html

    one = still_html([("f/a.png", "f/a b.svg")], "A figure.", 720, 300)
    assert one == ('<a class="zoom" href="f/a%20b.svg"><picture><source media="(min-resolution: 2dppx)" '
                   'srcset="f/a%20b.svg"><img src="f/a.png" alt="A figure." width="720" height="300" '
                   'loading="lazy"></picture></a>')
    two = still_html([("l.png", "l.svg"), ("d.png", "d.svg")], "x", 1, 1)
    # The dark sources come first (the first matching source wins), each a single file.
    assert re.findall(r'<source media="([^"]+)" srcset="([^"]+)">', two) == [
        ("(prefers-color-scheme: dark) and (min-resolution: 2dppx)", "d.svg"),
        ("(prefers-color-scheme: dark)", "d.png"), ("(min-resolution: 2dppx)", "l.svg")]


def test_a_hugo_toml_front_matter_builds_with_its_title_as_heading(tmp_path):
    result, site = _build(tmp_path, '+++\ntitle = "A Hugo post"\ndate = 2024-01-02\ndraft = true\n'
                                    '[params]\nsection = "ml"\n+++\nBody text.\n')
    assert result.exit_code == 0, result.output
    page = (site / "index.html").read_text(encoding="utf-8")
    assert "<title>A Hugo post</title>" in page
    # No H1 in the draft: the title is the page's heading, the date its byline.
    assert '<h1>A Hugo post</h1>\n<p class="byline"><time datetime="2024-01-02">2024-01-02</time></p>' in page


def test_the_tools_key_in_a_yaml_front_matter_is_checked_like_the_link_table(tmp_path):
    result, site = _build(tmp_path, "---\ntitle: T\nattention_render:\n  link:\n    - match: a.mp4\n"
                                    "      scene: encodr\n---\nText.\n")
    assert result.exit_code == 2 and "unknown scene id 'encodr'" in result.output
    assert result.output.strip().count("\n") == 0 and not (site / "index.html").exists()
