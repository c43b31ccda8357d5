"""render.py post --to hugo|jekyll|mkdocs|quarto|markdown: the post for the author's own site (issue 34).

A small draft without media (nothing to render) goes to every generator: its
layout, its front matter, its math in each form; the MkDocs and Hugo outputs
are built with the real generators, the plain Markdown one read by a
CommonMark reader. The bad cases are one line and nothing written. The seed
000 post starts from the suite's shared build (``seed_site``, copied in as
the staging build: no scene is rendered again) and is built by the real Hugo
and MkDocs, every clip a ``<video>`` whose files are in the built site;
Jekyll and Quarto are checked by their documented layout.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from click.testing import CliRunner

from publish.targets.sites import post_slug, staging_folder

from .test_post import SEED_000

SMALL = """---
title: "Small: a post for every site"
date: 2024-05-01
author: A. Author
tags: [attention, maths]
description: One formula, one number.
series: walkthrough
---

# Small: a post for every site

//// a note for the editor

The score is {{ dot_product.score }}; it costs \\$5 and 3 \\* 4 is *twelve*.

Inline $x_t$ and $h_{t-1}$ here.

\\- a dash, not a list.

2024\\. A year, not a list.

$$s_t = \\texttt{decoder\\_RNN}(op_{t-1}, s_{t-1}, h_8)$$

1. one
2. two
"""
SLUG = "small-a-post-for-every-site"
#: The sentence as a reader sees it (0.6 * -0.8 + 0.9 * 0.9 + 0.2 * 0.3 = 0.39, the default numbers).
SENTENCE = "The score is 0.39; it costs $5 and 3 * 4 is twelve."


def _post(*args: str):
    import render

    return CliRunner().invoke(render.cli, ["post", *args])


def _one_line_error(result, text: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.strip().split("\n") if line]
    assert len(lines) == 1 and lines[0].startswith("error: ") and text in lines[0], result.output
    assert "Traceback" not in result.output


def _front(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), text[:200]
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]), text[end + 5:]


def _visible(page: str) -> str:
    """A built page's text as a reader reads it: no formulas, no tags, one space between words."""
    page = re.sub(r"<(math|style|script)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))


def _hugo(site: Path) -> None:
    """A default Hugo site: its config and the one layout every theme has (the page's content)."""
    if shutil.which("hugo") is None:
        pytest.fail("hugo is not installed (scripts/setup.sh installs it)")
    (site / "hugo.toml").write_text('baseURL = "http://127.0.0.1/"\ntitle = "A site"\n', encoding="utf-8")
    layouts = site / "layouts" / "_default"
    layouts.mkdir(parents=True, exist_ok=True)
    (layouts / "single.html").write_text("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{{ .Title }}"
                                         "</title></head><body><main>{{ .Content }}</main></body></html>\n",
                                         encoding="utf-8")
    run = subprocess.run(["hugo", "--source", str(site), "--quiet"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def _mkdocs(site: Path) -> None:
    """A default MkDocs site: a name and a home page, nothing else configured."""
    (site / "mkdocs.yml").write_text("site_name: A site\n", encoding="utf-8")
    (site / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--config-file",
                          str(site / "mkdocs.yml")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.fixture(scope="module")
def small_sites(tmp_path_factory):
    """The small draft written once for each generator, each into a site folder of its own."""
    root = tmp_path_factory.mktemp("sites")
    draft = root / "small.md"
    draft.write_text(SMALL, encoding="utf-8")
    outputs = {}
    for to in ("hugo", "jekyll", "mkdocs", "quarto", "markdown"):
        result = _post(str(draft), "--to", to, "--out", str(root / to))
        assert result.exit_code == 0, result.output
        outputs[to] = result.output
    return root, draft, outputs


def test_every_generator_gets_its_layout_and_the_authors_front_matter(small_sites):
    root, _, outputs = small_sites
    pages = {"hugo": f"content/posts/{SLUG}/index.html", "jekyll": f"_posts/2024-05-01-{SLUG}.md",
             "mkdocs": f"docs/{SLUG}/index.md", "quarto": f"posts/{SLUG}/index.qmd",
             "markdown": f"{SLUG}/index.md"}
    for to, page in pages.items():
        assert f"{to}: 0 clips and 0 pictures, 0 media files" in outputs[to], outputs[to]
        front, body = _front(root / to / page)
        # The author's keys pass through as written, the title always there.
        assert front["title"] == "Small: a post for every site" and str(front["date"]) == "2024-05-01", front
        assert front["author"] == "A. Author" and front["series"] == "walkthrough", front
        assert front["description"] == "One formula, one number.", front
        assert "attention_render" not in front
        assert "////" not in body and "a note for the editor" not in body
        # Only the post's files (and the build's own records, in a dot-folder) are in the site.
        written = sorted(p.relative_to(root / to).as_posix() for p in (root / to).rglob("*")
                         if p.is_file() and ".cache" not in p.relative_to(root / to).parts)
        assert written == [page], written
    # The generators' own keys.
    assert _front(root / "jekyll" / pages["jekyll"])[0]["layout"] == "post"
    quarto = _front(root / "quarto" / pages["quarto"])[0]
    assert quarto["categories"] == ["attention", "maths"] and "tags" not in quarto and quarto["toc"] is True
    assert _front(root / "hugo" / pages["hugo"])[0]["tags"] == ["attention", "maths"]


def test_math_is_mathml_for_hugo_jekyll_mkdocs_and_dollars_for_quarto_and_markdown(small_sites):
    root = small_sites[0]
    for to, page in (("hugo", f"content/posts/{SLUG}/index.html"), ("jekyll", f"_posts/2024-05-01-{SLUG}.md"),
                     ("mkdocs", f"docs/{SLUG}/index.md")):
        body = _front(root / to / page)[1]
        assert body.count("<math") == 3 and "$" not in body, (to, body)
    for to, page in (("quarto", f"posts/{SLUG}/index.qmd"), ("markdown", f"{SLUG}/index.md")):
        body = _front(root / to / page)[1]
        assert "<math" not in body
        assert "$x_t$" in body and "$h_{t-1}$" in body, body
        assert "$$\ns_t = \\texttt{decoder\\_RNN}(op_{t-1}, s_{t-1}, h_8)\n$$" in body, body
        assert "$5" not in body  # the draft's dollar sign is no formula's start


def test_the_markdown_post_reads_right_in_a_commonmark_reader(small_sites):
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    root = small_sites[0]
    _, body = _front(root / "markdown" / SLUG / "index.md")
    md = MarkdownIt("commonmark", {"html": True}).use(dollarmath_plugin)
    tokens = md.parse(body)
    kinds = [t.type for t in tokens] + [c.type for t in tokens for c in (t.children or [])]
    assert kinds.count("math_inline") == 2 and kinds.count("math_block") == 1, kinds
    assert kinds.count("list_item_open") == 2 and kinds.count("heading_open") == 1
    shown = _visible(md.render(body))
    assert SENTENCE in shown and "- a dash, not a list." in shown and "2024. A year, not a list." in shown


def test_hugo_and_mkdocs_build_the_small_post_with_its_text_and_formulas(small_sites):
    root = small_sites[0]
    _hugo(root / "hugo")
    built = (root / "hugo" / "public" / "posts" / SLUG / "index.html").read_text(encoding="utf-8")
    assert built.count("<math") == 3 and "raw HTML omitted" not in built
    assert SENTENCE in _visible(built)
    assert "<li>one</li>" in built.replace("\n", "")
    _mkdocs(root / "mkdocs")
    built = (root / "mkdocs" / "site" / SLUG / "index.html").read_text(encoding="utf-8")
    assert built.count("<math") == 3
    assert SENTENCE in _visible(built)
    assert '<h1 id="small-a-post-for-every-site">Small: a post for every site</h1>' in built


def test_a_later_build_replaces_only_its_own_files(tmp_path):
    draft = tmp_path / "small.md"
    draft.write_text(SMALL, encoding="utf-8")
    site = tmp_path / "blog"
    assert _post(str(draft), "--to", "jekyll", "--out", str(site)).exit_code == 0
    first = site / "_posts" / f"2024-05-01-{SLUG}.md"
    mine = site / "_posts" / "2024-04-01-mine.md"
    mine.write_text("---\ntitle: mine\n---\nMine.\n", encoding="utf-8")
    # A new date moves the post: the old file goes, the author's own post stays.
    draft.write_text(SMALL.replace("date: 2024-05-01", "date: 2024-06-02"), encoding="utf-8")
    second = _post(str(draft), "--to", "jekyll", "--out", str(site))
    assert second.exit_code == 0, second.output
    assert not first.exists() and (site / "_posts" / f"2024-06-02-{SLUG}.md").is_file()
    assert mine.read_text(encoding="utf-8") == "---\ntitle: mine\n---\nMine.\n"
    # A post edited by hand since is not overwritten without --force.
    moved = site / "_posts" / f"2024-06-02-{SLUG}.md"
    moved.write_text(moved.read_text(encoding="utf-8") + "\nMy own line.\n", encoding="utf-8")
    _one_line_error(_post(str(draft), "--to", "jekyll", "--out", str(site)), "was edited since")
    assert moved.read_text(encoding="utf-8").endswith("My own line.\n")
    forced = _post(str(draft), "--to", "jekyll", "--out", str(site), "--force")
    assert forced.exit_code == 0, forced.output
    assert "My own line." not in moved.read_text(encoding="utf-8")


@pytest.mark.parametrize("case, text", [
    ("no out", "--to hugo needs --out DIR"),
    ("unknown generator", "--to 'wordpress': unknown generator (known: hugo, jekyll, mkdocs, quarto, markdown)"),
    ("out is a file", "exists and is not a folder"),
    ("foreign page", f"content/posts/{SLUG}/index.html was not written by render.py post --to hugo"),
    ("foreign media", f"docs/{SLUG}/notes.txt was not written by render.py post --to mkdocs"),
    ("serve", "--serve previews the page itself"),
])
def test_bad_targets_are_one_line_exit_2_and_nothing_written(tmp_path, case, text):
    draft = tmp_path / "small.md"
    draft.write_text(SMALL, encoding="utf-8")
    site = tmp_path / "blog"
    args = [str(draft), "--to", "hugo", "--out", str(site)]
    foreign = None
    if case == "no out":
        args = args[:3]
    elif case == "unknown generator":
        args[2] = "wordpress"
    elif case == "out is a file":
        site.write_text("not a folder", encoding="utf-8")
    elif case == "foreign page":
        foreign = site / "content" / "posts" / SLUG / "index.html"
    elif case == "foreign media":
        args[2] = "mkdocs"
        foreign = site / "docs" / SLUG / "notes.txt"
    elif case == "serve":
        args.append("--serve")
    if foreign is not None:
        foreign.parent.mkdir(parents=True)
        foreign.write_text("the author's own", encoding="utf-8")
    before = sorted(p.as_posix() for p in tmp_path.rglob("*"))
    _one_line_error(_post(*args), text)
    assert sorted(p.as_posix() for p in tmp_path.rglob("*")) == before  # nothing written, nothing made
    if foreign is not None:
        assert foreign.read_text(encoding="utf-8") == "the author's own"


# -- the seed 000 post, from the suite's shared build -----------------------------------------

def _from_seed(seed_site, site: Path, to: str) -> str:
    """The seed's post written for ``to`` into ``site``, its staging build the shared one (copied)."""
    staging = staging_folder(site, post_slug(SEED_000))
    shutil.copytree(seed_site[0], staging)
    result = _post(str(SEED_000), "--to", to, "--out", str(site))
    assert result.exit_code == 0, result.output
    # Nothing rendered again: the shared build's clips, stills and page are current.
    assert "post: nothing changed since the last build" in result.output or "scenes 0 rendered" in result.output
    assert f"{to}: 8 clips and 15 pictures" in result.output, result.output
    return result.output


def _clips_in_built_page(page: Path) -> int:
    """Every clip of a built page is a <video> whose clip, poster and captions are files of the built
    site (relative to the page); every picture too. Returns the number of clips."""
    text = page.read_text(encoding="utf-8")
    videos = re.findall(r"<video\b.*?</video>", text, re.S)
    for video in videos:
        refs = re.findall(r'(?:src|poster)="([^"]+)"', video)
        assert any(r.endswith(".mp4") for r in refs) and any(r.endswith(".png") for r in refs), video
        assert any(r.endswith(".vtt") for r in refs) and "controls" in video, video
        for ref in refs:
            assert "://" not in ref and (page.parent / unquote(html.unescape(ref))).is_file(), ref
    for ref in re.findall(r'<img [^>]*src="([^"]+)"', text):
        assert (page.parent / unquote(html.unescape(ref))).is_file(), ref
    assert len(re.findall(r"<img ", text)) == 15
    return len(videos)


@pytest.mark.render
def test_seed_000_in_hugo_and_mkdocs_built_by_the_real_generators(seed_site, tmp_path):
    slug = post_slug(SEED_000)
    maths = (seed_site[0] / "index.html").read_text(encoding="utf-8").count("<math")
    hugo = tmp_path / "hugo"
    _from_seed(seed_site, hugo, "hugo")
    _hugo(hugo)
    page = hugo / "public" / "posts" / slug / "index.html"
    assert _clips_in_built_page(page) == 8
    built = page.read_text(encoding="utf-8")
    assert built.count("<math") == maths > 100 and "raw HTML omitted" not in built
    mkdocs = tmp_path / "mkdocs"
    _from_seed(seed_site, mkdocs, "mkdocs")
    _mkdocs(mkdocs)
    page = mkdocs / "site" / slug / "index.html"
    assert _clips_in_built_page(page) == 8
    assert page.read_text(encoding="utf-8").count("<math") == maths


@pytest.mark.render
def test_seed_000_in_jekyll_and_quarto_by_their_documented_layout(seed_site, tmp_path):
    import datetime

    slug = post_slug(SEED_000)
    jekyll = tmp_path / "jekyll"
    output = _from_seed(seed_site, jekyll, "jekyll")
    posts = list((jekyll / "_posts").iterdir())
    # _posts/YYYY-MM-DD-title.md (no date in the draft: today's, said so), media under assets/.
    assert [p.name for p in posts] == [f"{datetime.date.today().isoformat()}-{slug}.md"], posts
    assert "the front matter has no date" in output
    front, body = _front(posts[0])
    assert front == {"title": "Attention mechanism - An in-depth analysis and walkthrough - Part 1",
                     "layout": "post"}
    liquid = re.findall(r"\{\{ '(/assets/[^']+)' \| relative_url \}\}", body)
    assert len(re.findall(r"<video\b", body)) == 8 and len(liquid) >= 8 * 3 + 15
    for url in liquid:
        assert (jekyll / url.lstrip("/")).is_file(), url
    # Liquid reads nothing else of the post: no other {{ or {%.
    assert len(re.findall(r"\{\{|\{%", body)) == len(liquid)
    quarto = tmp_path / "quarto"
    _from_seed(seed_site, quarto, "quarto")
    page = quarto / "posts" / slug / "index.qmd"
    front, body = _front(page)
    assert front["toc"] is True
    shortcodes = re.findall(r'\{\{< video (v/[0-9a-f]{16}/[^ ]+\.mp4) title="[^"]+" aspect-ratio="16x9" >\}\}', body)
    assert len(shortcodes) == 8 and all((page.parent / s).is_file() for s in shortcodes), shortcodes
    pictures = re.findall(r"!\[[^\]]*\]\((v/[0-9a-f]{16}/[^)]+\.png)\)\{fig-alt=", body)
    assert len(pictures) == 15 and all((page.parent / p).is_file() for p in pictures)
    assert "current input $x_t$" in body and "<video" not in body
