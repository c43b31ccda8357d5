"""``render.py post DRAFT --to hugo|jekyll|mkdocs|quarto|markdown --out DIR``: the post for the author's own site.

The page is built as ``render.py post`` builds it (every check, the renders
and their cache, the manifest rules of :mod:`publish.post.manifest`) into a
staging folder inside DIR, ``DIR/.cache/attention-render/<slug>/site`` (a
dot-folder: none of the generators reads it). Its ``<main>`` is then written
in the generator's layout, its content-named media (``v/<hash>/<name>``)
beside it:

=========  =============================================  ============================  ===========
generator  the post                                       its media                     math
=========  =============================================  ============================  ===========
hugo       ``content/posts/<slug>/index.html`` (a page    the bundle: ``.../<slug>/v/``  MathML
           bundle; an HTML content file with front
           matter: Hugo's Goldmark drops raw HTML unless
           ``markup.goldmark.renderer.unsafe`` is set, an
           HTML content file is passed through as it is)
jekyll     ``_posts/<date>-<slug>.md``                    ``assets/<slug>/v/``          MathML
mkdocs     ``docs/<slug>/index.md``                       ``docs/<slug>/v/``            MathML
quarto     ``posts/<slug>/index.qmd``                     ``posts/<slug>/v/``           ``$...$``
markdown   ``<slug>/index.md``                            ``<slug>/v/``                 ``$...$``
=========  =============================================  ============================  ===========

DIR is the site's own folder (where ``hugo``, ``mkdocs build``, ``jekyll
build`` or ``quarto render`` runs); the build writes only the files above and
records them (``DIR/.cache/attention-render/<slug>.<generator>.json``). A file
at one of those paths, or in the post's own media folder, that the last build
did not write (or that was edited since) stops the build with one line, as
``post`` refuses an ``index.html`` it did not write (``--force`` replaces it).
Files the last build wrote and this one does not are removed. Imports no Manim itself (the
staging build renders through :mod:`publish.post.build`).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import json
import os
import re
import time
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Callable

from publish.post.manifest import copy_into_place, remove_unlisted, sha256_file

__all__ = ["GENERATORS", "SitesError", "SiteReport", "Layout", "build_site", "post_slug", "staging_folder",
           "layout_for", "check_target", "convert_body", "front_matter_for", "CONTENT_STYLE"]

#: The generators ``--to`` knows.
GENERATORS = ("hugo", "jekyll", "mkdocs", "quarto", "markdown")
#: Under DIR: the staging builds and the records of what each target build wrote.
STATE = Path(".cache") / "attention-render"

#: The page's own look for what it adds (figures, clips, formulas, number tables, references),
#: every rule on its own classes: the theme keeps its body, fonts and column.
CONTENT_STYLE = """
figure.clip, figure.still { margin: 1.5rem 0; text-align: center; }
figure.clip video, figure.still img { max-width: 100%; height: auto; display: block; margin: 0 auto; }
figure.clip video { width: 100%; }
figure.clip figcaption, figure.still figcaption { font-size: .9em; opacity: .8; text-align: left; margin-top: .4rem; }
.equation { display: flex; align-items: center; justify-content: center; gap: 1.5rem; margin: 1rem 0; }
.equation > div { min-width: 0; max-width: 100%; overflow-x: auto; overflow-y: hidden; }
math[display="block"] { display: block math; margin: .6rem 0; }
span.imath { display: inline-block; max-width: 100%; overflow-x: auto; overflow-y: hidden; vertical-align: middle; }
table.numbers { border-collapse: collapse; margin: 1rem auto; font-size: .9em; display: block; max-width: 100%;
  overflow-x: auto; width: max-content; }
table.numbers td, table.numbers th { border: 1px solid #d0d4dc; padding: .15rem .5rem; text-align: right;
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.corrected { display: flex; flex-wrap: wrap; gap: 0 1.5rem; justify-content: center; align-items: flex-start; }
del.draft { text-decoration: none; } del.draft td { text-decoration: line-through; opacity: .7; }
ol.references { font-size: .9em; }
h2 a.anchor, h3 a.anchor { text-decoration: none; opacity: .4; margin-left: .35rem; font-weight: normal; }
"""
_DUAL_STYLE = """
.theme-dark { display: none; }
@media (prefers-color-scheme: dark) { .theme-light { display: none; } .theme-dark { display: block; } }
"""


class SitesError(ValueError):
    """A target the post cannot be written to; one line, nothing written."""


@dataclass
class Layout:
    """Where one generator's post goes, relative to DIR."""

    to: str
    page: str  # the post's file
    media: str  # the folder of its media (``v/<hash>/<name>`` under it)
    url: Callable[[str], str]  # a media file's ``v/...`` path as the post names it


@dataclass
class SiteReport:
    """What a target build did."""

    to: str
    page: Path
    written: list[str] = field(default_factory=list)  # relative to DIR
    removed: list[str] = field(default_factory=list)
    videos: int = 0
    pictures: int = 0
    seconds: float = 0.0
    post: Any = None  # the staging build's PostReport
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = list(self.post.lines()) if self.post is not None else []
        out += self.notes
        if self.removed:
            out.append(f"removed {len(self.removed)} files an earlier {self.to} build wrote that the post no "
                       f"longer shows")
        out.append(f"{self.to}: {self.videos} clips and {self.pictures} pictures, {len(self.written) - 1} media "
                   f"files; in {self.seconds:.1f} s -> {self.page}")
        return out


# -- the post's name and place --------------------------------------------------------

def _slugify(text: str, limit: int = 60) -> str:
    text = unicodedata.normalize("NFKD", text)
    slug = re.sub(r"[^a-z0-9]+", "-", text.encode("ascii", "ignore").decode().lower()).strip("-")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0]
    return slug


def post_slug(draft: Path) -> str:
    """The post's name in the site: the front matter's ``slug``, else its ``title``, else the draft's
    first ``# `` heading, else the draft's file name; lower case, ``a-z0-9-``."""
    from publish.post.front_matter import FrontMatterError, parse_front_matter, read_draft, split_front_matter

    try:
        text = read_draft(draft)
        front, body, _ = split_front_matter(text)
        meta = parse_front_matter(front, text[:3] if front else None, f"front matter of {draft}").meta
    except FrontMatterError as exc:
        raise SitesError(str(exc)) from None
    for candidate in (meta.get("slug"), meta.get("title"),
                      next((line[2:] for line in body.splitlines() if line.startswith("# ")), None),
                      Path(draft).stem):
        if candidate is not None and _slugify(str(candidate)):
            return _slugify(str(candidate))
    return "post"


def staging_folder(out: Path, slug: str) -> Path:
    """The folder the page is built into before it is written in the generator's layout."""
    return Path(out) / STATE / slug / "site"


def _record_path(out: Path, slug: str, to: str) -> Path:
    return Path(out) / STATE / f"{slug}.{to}.json"


def _read_record(out: Path, slug: str, to: str) -> dict[str, Any]:
    try:
        data = json.loads(_record_path(out, slug, to).read_text(encoding="utf-8"))
        files = {str(k): str(v) for k, v in data.get("files", {}).items()}
        return {"files": files, "page": str(data.get("page", "")), "front": str(data.get("front", ""))}
    except (OSError, ValueError, AttributeError, TypeError):
        return {"files": {}, "page": "", "front": ""}


def _post_date(meta: dict[str, Any], previous_page: str) -> str:
    """Jekyll's ``YYYY-MM-DD`` of the post: the front matter's date, else the last build's, else today."""
    value = meta.get("date")
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.strftime("%Y-%m-%d")
    if value is not None and re.match(r"\d{4}-\d{2}-\d{2}", str(value).strip()):
        return str(value).strip()[:10]
    found = re.search(r"(\d{4}-\d{2}-\d{2})-", Path(previous_page).name)
    return found.group(1) if found else _dt.date.today().isoformat()


def layout_for(to: str, slug: str, date: str = "") -> Layout:
    """The files of ``to``'s post (see the module docstring)."""
    if to == "hugo":
        return Layout(to, f"content/posts/{slug}/index.html", f"content/posts/{slug}", lambda rel: rel)
    if to == "jekyll":
        # A post's URL is set by the site's permalink; the media are named from the site's root.
        return Layout(to, f"_posts/{date}-{slug}.md", f"assets/{slug}",
                      lambda rel: "{{ '/assets/" + slug + "/" + rel + "' | relative_url }}")
    if to == "mkdocs":
        # docs/<slug>/index.md is served as <slug>/ with and without use_directory_urls: the media's
        # paths, relative to the page, hold in both (MkDocs does not rewrite a raw HTML src).
        return Layout(to, f"docs/{slug}/index.md", f"docs/{slug}", lambda rel: rel)
    if to == "quarto":
        return Layout(to, f"posts/{slug}/index.qmd", f"posts/{slug}", lambda rel: rel)
    if to == "markdown":
        return Layout(to, f"{slug}/index.md", slug, lambda rel: rel)
    raise SitesError(f"--to {to!r}: unknown generator (known: {', '.join(GENERATORS)})")


# -- the checks before anything is written -------------------------------------------------

def _short(path: Path | str, limit: int = 80) -> str:
    text = str(path)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_target(out: Path, to: str, draft: Path, force: bool = False) -> tuple[Layout, str, dict[str, Any]]:
    """``(layout, slug, last record)``; :class:`SitesError` (one line) when the post must not be
    written into ``out``: an unknown generator, an ``out`` that is not a folder, or a file at the
    post's paths (or in its media folder) the last build did not write, or edited since."""
    if to not in GENERATORS:
        raise SitesError(f"--to {to!r}: unknown generator (known: {', '.join(GENERATORS)})")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SitesError(f"--out {_short(out)}: exists and is not a folder (give the site's folder)")
    real = out.resolve()
    if real == Path(real.anchor) or real == Path.home().resolve():
        raise SitesError(f"--out {_short(out)}: {'the root' if real == Path(real.anchor) else 'your home'} "
                         f"folder; give the site's own folder")
    slug = post_slug(draft)
    record = _read_record(out, slug, to)
    from publish.post.front_matter import parse_front_matter, read_draft, split_front_matter

    text = read_draft(draft)
    front, _, _ = split_front_matter(text)
    meta = parse_front_matter(front, text[:3] if front else None, "front matter").meta
    layout = layout_for(to, slug, _post_date(meta, record["page"]))
    if Path(draft).resolve() == (out / layout.page).resolve():
        raise SitesError(f"--out {_short(out)}: the post would be written over the draft itself "
                         f"({layout.page}); keep the draft elsewhere")
    ours = record["files"]
    for rel in (layout.page, layout.media, str(STATE)):
        path = out / rel
        if path.is_symlink():
            raise SitesError(f"--out {_short(out)}: {rel} is a link; the build writes and removes files "
                             f"there, so it stops (make it a folder of the site)")
    page = out / layout.page
    if page.is_dir():
        raise SitesError(f"--out {_short(out)}: {layout.page} is a folder, not a post this build wrote")
    media = out / layout.media
    if media.exists() and not media.is_dir():
        raise SitesError(f"--out {_short(out)}: {layout.media} exists and is not a folder")
    if force:
        return layout, slug, record
    candidates = [page]
    if media.is_dir():
        candidates += [p for p in media.rglob("*") if p.is_file() or p.is_symlink()]
    for path in candidates:
        if not path.exists() and not path.is_symlink():
            continue
        rel = path.relative_to(out).as_posix()
        if rel not in ours:
            raise SitesError(f"--out {_short(out)}: {rel} was not written by render.py post --to {to} "
                             f"(no record of it in {STATE}); move it away, or pass --force to replace it")
        if rel == layout.page and sha256_file(path) != ours[rel]:
            raise SitesError(f"--out {_short(out)}: {rel} was edited since render.py post --to {to} wrote it; "
                             f"move it away, or pass --force to replace it")
    return layout, slug, record


# -- the page's body as a tree ------------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Any] = field(default_factory=list)  # _Node or str (text)

    def get(self, key: str, default: str = "") -> str:
        value = self.attrs.get(key)
        return default if value is None else value

    def classes(self) -> list[str]:
        return self.get("class").split()

    def find(self, tag: str) -> "_Node | None":
        for child in self.children:
            if isinstance(child, _Node):
                if child.tag == tag:
                    return child
                found = child.find(tag)
                if found is not None:
                    return found
        return None

    def find_all(self, tag: str) -> list["_Node"]:
        out = []
        for child in self.children:
            if isinstance(child, _Node):
                if child.tag == tag:
                    out.append(child)
                out += child.find_all(tag)
        return out

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#root")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = _Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(_Node(tag, dict(attrs)))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def _tree(markup: str) -> _Node:
    builder = _TreeBuilder()
    builder.feed(markup)
    builder.close()
    return builder.root


# -- writing it out ----------------------------------------------------------------------------

#: Characters a Markdown reader (CommonMark, pandoc, kramdown, Python-Markdown), Liquid or a
#: shortcode would read as syntax: written as numeric references, which every one of them, and
#: the browser, reads back as the character.
_SPECIAL = {c: f"&#{ord(c)};" for c in "\\`*_[]$@^~{}|#"}


#: In an attribute only Liquid's and a shortcode's braces are read (no Markdown reader reads
#: inside a tag).
_SPECIAL_ATTR = {c: f"&#{ord(c)};" for c in "{}"}


def _esc(text: str, quote: bool = False) -> str:
    text = html.escape(text, quote=quote)
    table = _SPECIAL_ATTR if quote else _SPECIAL
    return "".join(table.get(c, c) for c in text)


_URL_ATTRS = ("src", "href", "poster", "srcset")


class _Writer:
    """One generator's way of writing the page's body."""

    def __init__(self, to: str, layout: Layout) -> None:
        self.to = to
        self.layout = layout
        self.dollars = to in ("quarto", "markdown")  # $...$ math, Markdown paragraphs and lists
        self.markdown_headings = to != "hugo"
        self.media: list[str] = []
        self.videos = 0
        self.pictures = 0

    # - raw HTML, escaped for the reader that reads it -
    def url(self, value: str) -> str:
        if value.startswith("v/"):
            self.media.append(value.split("#")[0])
            return self.layout.url(value)
        return _esc(value, quote=True)

    def attr(self, key: str, value: str | None) -> str:
        if value is None:
            return f" {key}"
        if key in _URL_ATTRS and value.startswith("v/"):
            shown = self.url(value)
            return f' {key}="{shown}"'
        return f' {key}="{_esc(value, quote=True)}"'

    def html(self, node: Any) -> str:
        if isinstance(node, str):
            return _esc(node)
        if node.tag == "#root":
            return "".join(self.html(c) for c in node.children)
        attrs = "".join(self.attr(k, v) for k, v in node.attrs.items())
        if node.tag in _VOID:
            return f"<{node.tag}{attrs}>"
        return f"<{node.tag}{attrs}>{''.join(self.html(c) for c in node.children)}</{node.tag}>"

    # - Markdown -
    def math(self, node: _Node, block: bool) -> str:
        tex = node.get("alttext").strip()
        if not self.dollars or not tex:
            return self.html(node)
        return f"$${tex}$$" if block else f"${tex}$"

    def inline(self, nodes: list[Any]) -> str:
        """Inline content as Markdown: text escaped, formulas as $...$ (or MathML), links and
        emphasis in Markdown, anything else as inline HTML."""
        out = []
        for node in nodes:
            if isinstance(node, str):
                out.append(_esc(node))
            elif node.tag == "math":
                out.append(self.math(node, block=False))
            elif node.tag == "span" and "imath" in node.classes() and self.dollars:
                out.append(self.inline(node.children))
            elif node.tag in ("em", "strong") and self.dollars and node.children:
                mark = "*" if node.tag == "em" else "**"
                out.append(f"{mark}{self.inline(node.children)}{mark}")
            elif node.tag == "a" and "anchor" in node.classes():
                continue  # the heading's own "#" link: each generator makes its own
            elif node.tag == "a" and self.dollars and node.get("href") and not node.get("href").startswith("v/"):
                out.append(f"[{self.inline(node.children)}](<{node.get('href').replace('>', '%3E')}>)")
            else:
                out.append(self.html(node))
        return re.sub(r"\s*\n\s*", " ", "".join(out))

    def paragraph(self, text: str) -> str:
        """One Markdown paragraph, on one line: what would start a block there is written as a reference."""
        text = text.strip()
        if text and text[0] in "-+=:%":  # a list item, a setext underline, a fenced div, a title block
            text = f"&#{ord(text[0])};{text[1:]}"
        return re.sub(r"^(\d+)([.)])", lambda m: f"{m.group(1)}&#{ord(m.group(2))};", text)

    def heading(self, node: _Node) -> str:
        level = int(node.tag[1])
        text = self.inline(node.children).strip()
        ident = node.get("id")
        # kramdown and pandoc take {#id}; Python-Markdown only with attr_list (not on by default).
        suffix = f" {{#{ident}}}" if ident and self.to in ("jekyll", "quarto") else ""
        return "#" * level + " " + text + suffix

    def figure(self, node: _Node) -> str:
        kind = node.classes()[0] if node.classes() else ""
        caption_node = node.find("figcaption")
        caption = caption_node.text().strip() if caption_node is not None else ""
        if kind == "clip":
            self.videos += 1
        elif kind == "still":
            self.pictures += 1
        if not self.dollars:
            return self.html(node)
        if kind == "clip":
            video = node.find("video")
            source = video.find("source") if video is not None else None
            if source is None:
                return self.html(node)
            alt = video.get("aria-label")
            src = self.url(source.get("src"))
            if self.to == "quarto":
                title = alt.replace('"', "'")
                shortcode = f'{{{{< video {src} title="{title}" aspect-ratio="16x9" >}}}}'
                return (f"::: {{.clip}}\n{shortcode}\n\n{self.paragraph(_esc(caption))}\n:::" if caption
                        else shortcode)
            # Plain Markdown has no clip of its own: the figure as HTML (poster, captions track,
            # controls, caption), which CommonMark passes through as a block.
            return self.html(node)
        img = node.find("img")
        if img is None:
            return self.html(node)
        alt, src = img.get("alt"), self.url(img.get("src"))
        width = img.get("width")
        if self.to == "quarto":
            label = _esc(caption) if caption else ""
            fig_alt = alt.replace('"', "'")
            return f'![{label}]({src}){{fig-alt="{fig_alt}" width="{width}px"}}' if width else \
                f'![{label}]({src}){{fig-alt="{fig_alt}"}}'
        return f"![{_esc(alt)}]({src})" + (f"\n\n*{_esc(caption)}*" if caption else "")

    def equation(self, node: _Node) -> str:
        if not self.dollars:
            return self.html(node)
        maths = node.find_all("math")
        label = next((c for c in node.find_all("span") if "eqno" in c.classes()), None)
        tag = ""
        if label is not None:
            inner = label.text().strip().strip("()")
            tag = f" \\tag{{{inner}}}" if inner and "}" not in inner and "{" not in inner else ""
        return "\n\n".join(f"$$\n{m.get('alttext').strip()}{tag if i == len(maths) - 1 else ''}\n$$"
                           for i, m in enumerate(maths))

    def list(self, node: _Node, depth: int = 0) -> str:
        ordered = node.tag == "ol"
        start = int(node.get("start") or 1) if ordered and (node.get("start") or "1").isdigit() else 1
        items = []
        for n, li in enumerate(c for c in node.children if isinstance(c, _Node) and c.tag == "li"):
            marker = f"{start + n}. " if ordered else "- "
            body = self.blocks(li.children, loose_inline=True)
            joiner = "\n\n" if any(isinstance(c, _Node) and c.tag == "p" for c in li.children) else "\n"
            text = joiner.join(body) if body else ""
            pad = " " * len(marker)
            lines = text.split("\n")
            items.append(marker + lines[0] + "".join("\n" + (pad + line if line else "") for line in lines[1:]))
        return "\n".join(items)

    def block(self, node: Any) -> str | None:
        """One block of the body in the generator's form (``None``: left out)."""
        if isinstance(node, str):
            return self.paragraph(_esc(node)) if node.strip() else None
        classes = node.classes()
        if node.tag == "h1":
            return f"# {self.inline(node.children).strip()}" if self.to in ("mkdocs", "markdown") else None
        if node.tag == "nav" and "toc" in classes:
            # MkDocs, Quarto (toc: true) and a Markdown reader list the headings themselves.
            return self.html(node) if self.to in ("hugo", "jekyll") else None
        if node.tag == "p" and "byline" in classes:
            # Hugo, Jekyll and Quarto show the author and date from the front matter.
            return self.html(node) if self.to in ("mkdocs", "markdown") else None
        if node.tag in ("h2", "h3", "h4", "h5", "h6") and self.markdown_headings:
            return self.heading(node)
        if node.tag == "figure":
            return self.figure(node)
        if node.tag == "div" and "equation" in classes:
            return self.equation(node)
        if not self.dollars:
            return self.html(node)
        if node.tag == "p":
            return self.paragraph(self.inline(node.children))
        if node.tag in ("ul", "ol") and "references" not in classes:
            return self.list(node)
        if node.tag == "blockquote":
            inner = "\n\n".join(self.blocks(node.children))
            return "\n".join("> " + line if line else ">" for line in inner.split("\n"))
        if node.tag == "pre":
            code = node.text()
            fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", code)), default=0) + 1)
            code_node = node.find("code")
            lang = next((c[9:] for c in (code_node.classes() if code_node is not None else [])
                         if c.startswith("language-")), "")
            return f"{fence}{lang}\n{code.rstrip(chr(10))}\n{fence}"
        if node.tag == "hr":
            return "---"
        return self.html(node)

    def blocks(self, nodes: list[Any], loose_inline: bool = False) -> list[str]:
        out, run = [], []

        def flush() -> None:
            if run:
                text = self.paragraph(self.inline(run)) if self.dollars else "".join(self.html(n) for n in run)
                if text.strip():
                    out.append(text.strip())
                run.clear()

        for node in nodes:
            inline = isinstance(node, str) or node.tag not in (
                "p", "ul", "ol", "blockquote", "pre", "figure", "div", "table", "h1", "h2", "h3", "h4", "h5",
                "h6", "hr", "nav")
            if loose_inline and inline:
                run.append(node)
                continue
            flush()
            done = self.block(node)
            if done is not None and done.strip():
                if done.startswith("<") and done.endswith(">") and "<pre" not in done:
                    # A blank line ends an HTML block for CommonMark: none inside one (outside <pre>).
                    done = re.sub(r"\n\s*\n", "\n", done)
                out.append(done.strip("\n"))
        flush()
        return out


def convert_body(body: str, to: str, layout: Layout, themes: tuple[str, ...] = ("light",)) -> tuple[str, _Writer]:
    """The page's ``<main>`` in ``to``'s form; the writer knows the media files it names."""
    writer = _Writer(to, layout)
    tree = _tree(body)
    blocks = writer.blocks(tree.children)
    style = CONTENT_STYLE + (_DUAL_STYLE if len(themes) > 1 else "")
    if to == "hugo":
        text = "\n".join(blocks)
        return f'<style>{style}</style>\n<div class="attention-post">\n{text}\n</div>\n', writer
    head = f"<style>{style.strip()}\n</style>\n\n" if to != "markdown" else ""
    return head + "\n\n".join(blocks) + "\n", writer


# -- front matter ---------------------------------------------------------------------------

def front_matter_for(to: str, meta: dict[str, Any], title: str, description: str | None) -> dict[str, Any]:
    """The author's front matter with ``to``'s keys: every key passed through as written (the tool's
    own settings are not in ``meta``); the title always there; Jekyll's ``layout: post``; Quarto's
    ``categories`` from ``tags`` and ``toc: true`` (its contents replace the page's own)."""
    out: dict[str, Any] = {"title": title}
    out.update({k: v for k, v in meta.items() if k != "title"})
    if description and "description" not in out:
        out["description"] = description
    if to == "jekyll":
        out.setdefault("layout", "post")
    if to == "quarto":
        if "tags" in out and "categories" not in out:
            out["categories"] = out.pop("tags")
        out.setdefault("toc", True)
    return out


def _yaml(data: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)


# -- the build ----------------------------------------------------------------------------

def _atomic_text(path: Path, text: str) -> None:
    from publish.rendering.cache import atomic_write_text

    atomic_write_text(path, text)


def _place(source: Path, target: Path) -> None:
    """``target`` as a hard link to (else a copy of) ``source``, swapped in whole. Both are
    content-named, so a link never shows other bytes later."""

    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and not target.is_symlink() and target.stat().st_size == source.stat().st_size:
        try:
            if os.path.samefile(source, target) or sha256_file(source) == sha256_file(target):
                return
        except OSError:
            pass
    copy_into_place(source, target, hard_link=True)


def build_site(draft: Path, out: Path, to: str, *, links: Path | None = None, numbers: str | None = None,
               quality: str = "low", themes: tuple[str, ...] = ("light",), jobs: int | None = None,
               force: bool = False, echo: Callable[[str], None] = print,
               registry: dict[str, type] | None = None, trace: Any = None) -> SiteReport:
    """Build the post as ``post`` does into the staging folder, then write it in ``to``'s layout
    under ``out``; :class:`SitesError` or :class:`~publish.post.build.PostError` on bad input, before
    anything is written to the site's own folders."""
    from publish.post.build import build_post

    start = time.monotonic()
    out = Path(out)
    layout, slug, record = check_target(out, to, draft, force)
    staging = staging_folder(out, slug)
    current = None
    if not force and registry is None and trace is None and record["front"]:
        from publish.freshness import post_is_current

        # Nothing the page is made from changed (decided from files, as ``post`` decides it): the
        # staged page is written out again, with the front matter the last build wrote.
        current = post_is_current(Path(draft), staging, links, numbers, quality, themes)
    post = None
    if current is None:
        post = build_post(Path(draft), staging, links=links, numbers=numbers, quality=quality, themes=themes,
                          jobs=jobs, force=force, echo=echo, registry=registry, trace=trace)
    page_text = (staging / "index.html").read_text(encoding="utf-8")
    body = page_text[page_text.index("<main>") + len("<main>"):page_text.rindex("</main>")]
    text, writer = convert_body(body, to, layout, themes)
    if post is not None:
        reader = post.reader
        meta = dict(reader.front.meta) if reader is not None else {}
        title = html.unescape(re.search(r"<title>(.*?)</title>", page_text, re.S).group(1))
        front_text = _yaml(front_matter_for(to, meta, title, reader.description if reader is not None else None))
    else:
        meta, front_text = {}, record["front"]
    document = f"---\n{front_text}---\n\n{text}"
    report = SiteReport(to, out / layout.page, post=post, videos=writer.videos, pictures=writer.pictures)
    if current is not None:
        report.notes.append(f"post: nothing changed since the last build; last build: {current}")
    written: dict[str, str] = {}
    for rel in dict.fromkeys(writer.media):
        source = staging / rel
        if not source.is_file():
            raise SitesError(f"{to}: the page names {rel}, which its build did not write")
        target_rel = f"{layout.media}/{rel}"
        _place(source, out / target_rel)
        written[target_rel] = ""
    _atomic_text(out / layout.page, document)
    written[layout.page] = sha256_file(out / layout.page)
    # The record first lists both builds' files, so an interruption leaves nothing unrecorded.
    _atomic_text(_record_path(out, slug, to), json.dumps({"page": layout.page, "front": front_text,
                                                          "files": {**record["files"], **written}}, indent=0))
    report.removed = remove_unlisted(out, record["files"], set(written), prune_within=out / layout.media)
    _atomic_text(_record_path(out, slug, to), json.dumps({"page": layout.page, "front": front_text,
                                                          "files": written}, indent=0))
    report.written = sorted(written)
    if to == "jekyll" and post is not None and not meta.get("date"):
        report.notes.append(f"jekyll: the front matter has no date; the post is dated {layout.page[7:17]} "
                            f"(kept by later builds)")
    report.seconds = time.monotonic() - start
    return report
