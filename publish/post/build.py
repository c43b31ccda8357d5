"""``render.py post DRAFT.md --out SITE``: a blog draft becomes the finished, self-contained page.

The draft's text is cleaned (mojibake repaired, editor's notes left out,
:mod:`publish.post.text`), its ``{{ placeholders }}`` filled from the
computed numbers (:mod:`publish.post.placeholders`), its links looked up in the
link table (:mod:`publish.post.links`), and every scene the page needs is
rendered through the pipeline and its cache (:func:`publish.rendering.pipeline.run_renders`)
into ``SITE/media/<theme>/``. Stills are cropped to what they show
(``SITE/figures/<theme>/``, :mod:`publish.post.figures`), math is typeset to
MathML (:mod:`publish.post.formulas`) and ``SITE/index.html`` (its skeleton and
style in ``templates/``) is written under a temporary name and moved into
place. The page loads nothing from another host: no script, no font, no
style; every picture and clip is a file beside it.

Bad input (a missing draft, a bad link table, an unknown scene or
placeholder) raises :class:`PostError` before anything is written to SITE.
"""

from __future__ import annotations

import functools
import html
import re
import time
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote

from publish.post.placeholders import PlaceholderError, evaluate, find, substitute
from publish.post.links import Entry, LinkTable, LinkTableError, is_media_link, link_key, load_table, parse_table
from publish.post.manifest import SiteError, check_site, publish_media, read_manifest, remove_unlisted
from publish.post.manifest import sha256_file, write_manifest
from publish.post.figures import atomic_write, crop_svg, figure_crop, frame_at
from publish.post.formulas import MathError, split_lines, to_mathml
from publish.post.safety import InputError, check_draft_size, check_formulas, check_markup_counts, check_no_marker
from publish.post.safety import check_slot, check_table_text
from publish.post.safety import remote_pictures_as_links
from publish.post.text import Change, repair_mojibake, strip_notes_mapped
from publish.post.front_matter import split_front_matter
from publish.post import reader as post_reader

__all__ = ["PostError", "PostReport", "Slot", "build_post", "page_html", "COLUMN_PX", "FRAME_PX_480P",
           "MIN_CAPITAL_PX"]

#: The page's text column, in CSS pixels.
COLUMN_PX = 720
#: A 480p frame's width: the scenes keep capitals >= MIN_CAPITAL_PX tall at this width (issue 13).
FRAME_PX_480P = 854
MIN_CAPITAL_PX = 12.0
#: A cropped still is shown at most this much larger than at 480p (small crops are not blown up).
MAX_ENLARGE = 1.25
#: The widest a figure or clip may stand, centred on the column, on a screen wide enough: a
#: whole 16:9 frame needs 854 px to keep its capitals at 12 px, more than the column's 720.
WIDE_PX = 880
_SENTINEL = "\u2063PH{}\u2063"  # invisible separator: no Markdown syntax, never typed by an author
_SENTINEL_RE = re.compile("\u2063PH(\\d+)\u2063")
_MEDIA_RE = re.compile(r"<!--media:(\d+)-->")


class PostError(ValueError):
    """Input the post cannot be built from; one line, nothing written."""


@dataclass
class Slot:
    """One place in the page that shows something of ours."""

    entry: Entry
    line: int
    href: str = ""  # the draft's link ("" for an insert)


@dataclass
class PostReport:
    """What a build did, for the lines printed at the end of the run."""

    changes: list[Change] = field(default_factory=list)
    unmapped: list[tuple[int, str]] = field(default_factory=list)  # (line, link) kept as written
    unplaced: list[str] = field(default_factory=list)  # inserts whose paragraph the draft lacks
    unapplied: list[str] = field(default_factory=list)  # edits whose text the draft lacks
    removed: list[str] = field(default_factory=list)  # files an earlier build wrote, no longer shown
    written: list[str] = field(default_factory=list)  # files of SITE this build wrote (its manifest)
    inputs_changed: bool = False  # the draft, table or numbers changed while it was built: build again
    legibility: list[tuple[str, str, float]] = field(default_factory=list)  # (figure, theme, smallest px)
    rendered: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    slots: int = 0
    placeholders: int = 0
    formulas: int = 0
    seconds: float = 0.0
    page: Path | None = None
    reader: Any = None  # what the reader's page takes from the front matter and the table (post_reader)

    def lines(self) -> list[str]:
        out = post_reader.report_lines(self.reader)
        for change in sorted(self.changes, key=lambda c: c.line):
            out.append(change.describe())
        for line, href in self.unmapped:
            out.append(f"line {line}: media link not in the link table, kept as written "
                       f"(a picture on another host as a link to it, never fetched): {href}")
        for snippet in self.unplaced:
            out.append(f"insert not placed (no paragraph contains {snippet!r})")
        for find in self.unapplied:
            out.append(f"edit not applied (the draft does not contain {find!r})")
        if self.legibility:
            smallest = ", ".join(f"{name} {px:.1f}" for name, theme, px in self.legibility
                                 if theme == self.legibility[0][1])
            out.append(f"figures wider than {WIDE_PX} px at 480p, so their smallest capitals may be "
                       f"under {MIN_CAPITAL_PX:g} px (px): {smallest}")
        if self.removed:
            out.append(f"removed {len(self.removed)} files an earlier build wrote that the page no longer shows: "
                       + ", ".join(self.removed[:5]) + (" ..." if len(self.removed) > 5 else ""))
        out.append(f"post: {self.slots} figures and clips of ours, {self.formulas} formulas, "
                   f"{self.placeholders} numbers from the core; scenes {len(self.rendered)} rendered, "
                   f"{len(self.cached)} from cache, {len(self.failed)} failed; "
                   f"{len(self.unmapped)} media links left as written; in {self.seconds:.1f} s -> {self.page}")
        return out


# -- reading the draft ----------------------------------------------------------

def _read_draft(draft: Path) -> str:
    # By its byte-order mark, else UTF-8, else one line naming the first bad byte (post_frontmatter).
    try:
        return post_reader.read_draft(draft)
    except ValueError as exc:
        raise PostError(str(exc)) from None


def _apply_edits(body: str, edits: list[Any], line_numbers: list[int], report: PostReport) -> str:
    """The link table's ``[[edit]]`` entries applied to the draft's text, each reported;
    one whose text the draft lacks is reported as not applied."""
    for edit in edits:
        at = body.find(edit.find)
        if at < 0:
            report.unapplied.append(edit.find)
            continue
        # A shorter replacement of several lines keeps the draft's line count (blank lines).
        new = edit.replace + "\n" * max(0, edit.find.count("\n") - edit.replace.count("\n"))
        # One pass over the draft: the matches left to right (those of str.replace), each line
        # holding one reported once, lines counted between matches only. A copy of the draft and a
        # count of lines from its start at every match took the square of the draft's size (issue 33).
        pieces, done, counted, line, last = [], 0, 0, 0, None
        while at >= 0:
            line += body.count("\n", counted, at)
            counted = at
            if line != last:
                report.changes.append(Change(line_numbers[line], "edit", edit.find, edit.replace))
                last = line
            pieces += [body[done:at], new]
            done = at + len(edit.find)
            at = body.find(edit.find, done)
        body = "".join(pieces) + body[done:]
    return body


def _link_table(front: str, draft: Path, links: Path | None, registry: dict[str, type]) -> LinkTable:
    try:
        if links is None and (Path(draft).parent / "post.toml").is_file():
            links = Path(draft).parent / "post.toml"
        table = load_table(links, registry)
        if front.strip():
            table = post_reader.front_matter_table(front, draft, registry).extended(table)
    except (LinkTableError, ValueError) as exc:
        raise PostError(str(exc)) from None
    return table


def _draft_line(line_numbers: list[int], tok: Any) -> int:
    """The draft's line number of a token (its map is in lines of the cleaned text)."""
    index = tok.map[0] if tok.map else 0
    return line_numbers[min(index, len(line_numbers) - 1)] if line_numbers else index + 1


# -- Markdown -------------------------------------------------------------------

def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    # html=False: the draft's "<START>" is text, not a tag.
    md = MarkdownIt("commonmark", {"html": False, "typographer": False})
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True)
    md.enable("table")
    md.enable("strikethrough")
    return md


def _link_groups(children: list[Any]) -> list[tuple[int, int, str]]:
    """``(first, last, href)`` child indices of each image and each link of an inline token."""
    groups, i = [], 0
    while i < len(children):
        tok = children[i]
        if tok.type == "image":
            groups.append((i, i, tok.attrGet("src") or ""))
        elif tok.type == "link_open":
            depth, j = 1, i + 1
            while j < len(children) and depth:
                depth += {"link_open": 1, "link_close": -1}.get(children[j].type, 0)
                j += 1
            groups.append((i, j - 1, tok.attrGet("href") or ""))
            i = j
            continue
        i += 1
    return groups


def _only_content(children: list[Any], first: int, last: int) -> bool:
    """Whether the inline token holds nothing but this link (and blank text)."""
    for k, tok in enumerate(children):
        if first <= k <= last:
            continue
        if tok.type in ("softbreak", "hardbreak") or (tok.type == "text" and not tok.content.strip()):
            continue
        return False
    return True


def _place_media(tokens: list[Any], table: LinkTable, text: str, report: PostReport,
                 line_numbers: list[int]) -> list[Slot]:
    """Replace each mapped link by a ``<!--media:N-->`` marker; insert the table's inserts."""
    from markdown_it.token import Token

    slots: list[Slot] = []
    seen: dict[str, int] = {}
    out: list[Any] = []
    i = 0
    inserts = list(table.inserts)
    placed: set[int] = set()
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "inline" and tok.children:
            line = _draft_line(line_numbers, tok)
            groups = _link_groups(tok.children)
            replaced_block = None
            # Occurrences count in reading order: counted once, forwards, before the reversed walk
            # decides (counting them again for each link took the square of their number; issue 33).
            keys = [link_key(href) if is_media_link(href) else None for _, _, href in groups]
            occurrences, counted = [], dict(seen)
            for key in keys:
                counted[key] = counted.get(key, 0) + 1
                occurrences.append(counted[key])
            inline: dict[int, tuple[int, Any]] = {}  # first child -> (last child, its marker)
            for index in range(len(groups) - 1, -1, -1):
                first, last, href = groups[index]
                key = keys[index]
                if key is None:
                    continue
                occurrence = occurrences[index]
                entry = table.lookup(href, occurrence)
                if entry is None:
                    report.unmapped.append((line, href))
                    continue
                slots.append(Slot(entry, line, href))
                marker = f"<!--media:{len(slots) - 1}-->"
                is_paragraph = (i > 0 and tokens[i - 1].type == "paragraph_open"
                                and i + 1 < len(tokens) and tokens[i + 1].type == "paragraph_close")
                if is_paragraph and len(groups) == 1 and _only_content(tok.children, first, last):
                    replaced_block = marker
                else:
                    html_tok = Token("html_inline", "", 0)
                    html_tok.content = marker
                    inline[first] = (last, html_tok)
            if inline:  # the children rebuilt once (a splice per link took the square of their number)
                children, k = [], 0
                while k < len(tok.children):
                    if k in inline:
                        children.append(inline[k][1])
                        k = inline[k][0] + 1
                    else:
                        children.append(tok.children[k])
                        k += 1
                tok.children = children
            seen.update({key: n for key, n in counted.items() if key is not None})
            if replaced_block is not None:
                out.pop()  # the paragraph_open
                block = Token("html_block", "", 0)
                block.content = replaced_block + "\n"
                block.map = tok.map
                out.append(block)
                i += 2  # the inline and its paragraph_close
                continue
            out.append(tok)
            if i + 1 < len(tokens) and tokens[i + 1].type == "paragraph_close":
                out.append(tokens[i + 1])
                i += 2
                for n, insert in enumerate(inserts):
                    if n not in placed and insert.after in tok.content:
                        placed.add(n)
                        slots.append(Slot(insert.entry, line))
                        block = Token("html_block", "", 0)
                        block.content = f"<!--media:{len(slots) - 1}-->\n"
                        out.append(block)
                continue
            i += 1
            continue
        out.append(tok)
        i += 1
    tokens[:] = out
    report.unmapped.sort()
    report.unplaced = [ins.after for n, ins in enumerate(inserts) if n not in placed]
    return slots


# -- rendering what the page needs ---------------------------------------------------

def _needs(slots: list[Slot]) -> dict[str, dict[str, Any]]:
    """scene id -> {"formats": set, "steps": bool}."""
    needs: dict[str, dict[str, Any]] = {}
    for slot in slots:
        e = slot.entry
        if e.show == "math" or e.scene is None:
            continue
        need = needs.setdefault(e.scene, {"formats": set(), "steps": False})
        if e.show == "clip":
            need["formats"] |= {"mp4", "png", "vtt"}
        elif e.show == "still" and e.at is not None:
            need["formats"] |= {"mp4", "png", "vtt"}  # the frame comes from the clip
        elif e.show == "still":
            need["formats"] |= {"png", "svg"}
        elif e.show == "step":
            need["formats"] |= {"png", "svg"}
            need["steps"] = True
        elif e.show == "step-clip":
            need["formats"] |= {"mp4", "png", "vtt"}
            need["steps"] = True
    return needs


def _render(needs: dict[str, dict[str, Any]], trace: Any, site: Path, quality: str, themes: tuple[str, ...],
            jobs: int | None, force: bool, echo: Callable[[str], None], registry: dict[str, type],
            report: PostReport, numbers: str | None = None, stamped: bool = False) -> list[dict[str, Any]]:
    """Render what the page needs; returns the renders, as the post's stamp records them.
    ``stamped``: the trace is the numbers file's, so each file's fingerprint is recorded
    (the next run's no-op check reads it)."""
    from publish.rendering.pipeline import FORMATS, OutputOptions, run_renders
    from publish.freshness import Fingerprints

    renders = []

    groups: dict[tuple[tuple[str, ...], bool], list[str]] = {}
    for scene_id, need in needs.items():
        formats = tuple(f for f in FORMATS if f in need["formats"])
        groups.setdefault((formats, need["steps"]), []).append(scene_id)
    for theme in themes:
        out_dir = site / "media" / theme
        out_dir.mkdir(parents=True, exist_ok=True)
        for (formats, steps), scene_ids in groups.items():
            options = OutputOptions(steps=steps)
            prints = Fingerprints(numbers, quality, theme, options.key()) if stamped else None
            summary = run_renders(scene_ids, trace, out_dir, quality, formats, theme, jobs, force, echo=echo,
                                  registry=registry, options=options, fingerprints=prints)
            renders.append({"theme": theme, "scenes": scene_ids, "formats": list(formats), "steps": steps})
            report.rendered += [f"{r.scene_id} ({theme})" for r in summary.of("rendered")]
            report.cached += [f"{r.scene_id} ({theme})" for r in summary.of("cached")]
            report.failed += [f"{r.scene_id} ({theme}): {r.error}" for r in summary.of("failed")]
    return renders


def _step_file(folder: Path, step: int | str, fmt: str) -> Path | None:
    files = sorted(folder.glob(f"[0-9][0-9]-*.{fmt}")) if folder.is_dir() else []
    for path in files:
        number, _, slug = path.stem.partition("-")
        if (isinstance(step, int) and int(number) == step) or (isinstance(step, str) and step in (slug, path.stem)):
            return path
    return None


@dataclass
class _Figure:
    png: str  # relative to SITE
    svg: str | None
    width_px: int  # display width in the 720 px column
    height_px: int


def _figure(slot: Slot, theme: str, site: Path, background: str, report: PostReport) -> _Figure:
    e = slot.entry
    media = site / "media" / theme
    figures = site / "figures" / theme
    if e.show == "step":
        png = _step_file(media / e.scene, e.step, "png")
        svg = _step_file(media / e.scene, e.step, "svg")
        if png is None:
            raise PostError(f"{e.source}: scene {e.scene} has no step {e.step!r} "
                            f"(its steps: {', '.join(p.stem for p in sorted((media / e.scene).glob('*.png')))})")
        name = f"{e.scene}-{png.stem}"
    elif e.at is not None:
        png = figures / f"{e.scene}-at-{e.at:g}s.frame.png"
        frame_at(media / f"{e.scene}.mp4", e.at, png)
        svg = None
        name = f"{e.scene}-at-{e.at:g}s"
    else:
        png, svg = media / f"{e.scene}.png", media / f"{e.scene}.svg"
        svg = svg if svg.is_file() else None
        name = e.scene
    from PIL import Image

    with Image.open(png) as image:
        size = image.size
    out_png = figures / f"{name}.png"
    box, segments = figure_crop(png, out_png, background)
    out_svg = None
    if svg is not None:
        out_svg = figures / f"{name}.svg"
        crop_svg(svg, out_svg, box, size, segments)
    if e.at is not None:
        png.unlink(missing_ok=True)
    # The crop's width at 480p, where the scenes keep capitals >= 12 px; shown at least that
    # wide (standing out of the column when wider than it), a small crop a little larger.
    width_480 = (box[2] - box[0]) * FRAME_PX_480P / size[0]
    shown = min(WIDE_PX, max(round(width_480), min(COLUMN_PX, round(width_480 * MAX_ENLARGE))))
    if shown < width_480 - 0.5:
        note = (name, theme, MIN_CAPITAL_PX * shown / width_480)
        if note not in report.legibility:
            report.legibility.append(note)
    height = round(shown * sum(b - a for a, b in segments) / (box[2] - box[0]))
    report.written += [p.relative_to(site).as_posix() for p in (out_png, out_svg) if p is not None]
    return _Figure(out_png.relative_to(site).as_posix(), out_svg.relative_to(site).as_posix() if out_svg else None,
                   shown, height)


# -- HTML ------------------------------------------------------------------------

def _href(path: str) -> str:
    from urllib.parse import quote

    return html.escape(quote(path))


def _clip_html(base: str, alt: str, css: str) -> str:
    # The reader's to play: controls, nothing fetched or played until asked (post_page).
    return post_reader.clip_html(base, alt, css)


def _img_html(figs: dict[str, _Figure], alt: str, themes: tuple[str, ...]) -> str:
    # png on a 1x screen, svg on a 2x one, the reader's theme only; a tap opens it whole (post_page).
    light = figs[themes[0]]
    return post_reader.still_html([(figs[t].png, figs[t].svg) for t in themes], alt, light.width_px,
                                  light.height_px)


def _figure_open(kind: str, scene: str, width_px: int) -> str:
    """A figure as wide as its content needs, out of the column when wider than it."""
    wide = " wide" if width_px > COLUMN_PX else ""
    return (f'<figure class="{kind}{wide}" data-scene="{html.escape(scene)}" '
            f'style="--w:{width_px}px">')


def _figcaption(text: str | None) -> str:
    return f"<figcaption>{html.escape(text)}</figcaption>" if text else ""


def _slot_html(slot: Slot, site: Path, themes: tuple[str, ...], registry: dict[str, type],
               backgrounds: dict[str, str], report: PostReport) -> str:
    e = slot.entry
    if e.show == "none":  # left out by the link table (a figure the page shows already)
        report.changes.append(Change(slot.line, "figure", slot.href))
        return ""
    if e.show == "math":
        lines = split_lines(e.latex or "")
        try:
            maths = "".join(to_mathml(line, display=True) for line in lines)
        except MathError as exc:
            raise PostError(f"{e.source}: {exc}") from None
        label = f'<span class="eqno">{html.escape(e.label)}</span>' if e.label else ""
        return f'<div class="equation"><div>{maths}</div>{label}</div>'
    alt = e.alt or post_reader.reader_caption(registry[e.scene].description)
    if e.show in ("step", "step-clip") and not e.alt:
        step = _step_file(site / "media" / themes[0] / e.scene, e.step, "png")
        if step is not None:
            alt = f"{alt} This picture: {step.stem[3:].replace('-', ' ')}."
    if e.show in ("clip", "step-clip"):
        css = {t: f"theme-{t}" if len(themes) > 1 else "" for t in themes}
        bases = {t: f"media/{t}/{e.scene}" for t in themes}
        if e.show == "step-clip":
            for t in themes:
                found = _step_file(site / "media" / t / e.scene, e.step, "mp4")
                if found is None:
                    raise PostError(f"{e.source}: scene {e.scene} has no step {e.step!r}")
                bases[t] = found.relative_to(site).with_suffix("").as_posix()
        videos = "".join(_clip_html(bases[t], alt, css[t]) for t in themes)
        # A whole frame, at its 480p width (capitals >= 12 px).
        return (f"{_figure_open('clip', e.scene, FRAME_PX_480P)}{videos}"
                f"{_figcaption(post_reader.caption(e, registry))}</figure>")
    figs = {t: _figure(slot, t, site, backgrounds[t], report) for t in themes}
    return (f"{_figure_open('still', e.scene, figs[themes[0]].width_px)}{_img_html(figs, alt, themes)}"
            f"{_figcaption(post_reader.caption(e, registry))}</figure>")


def _math_renderers(md: Any, values: list[tuple[str, bool]], report: PostReport) -> None:
    def fill(latex: str) -> str:
        return _fill(latex, values)  # the same filling the checks before the renders use

    def inline(self, tokens, idx, options, env):
        report.formulas += 1
        try:
            return to_mathml(fill(tokens[idx].content), display=False)
        except MathError as exc:
            raise PostError(f"line {_draft_line(env['line_numbers'], tokens[idx])}: {exc}") from None

    def block(self, tokens, idx, options, env):
        report.formulas += 1
        line = _draft_line(env["line_numbers"], tokens[idx])
        try:
            maths = "".join(to_mathml(part, display=True) for part in split_lines(fill(tokens[idx].content)))
        except MathError as exc:
            raise PostError(f"line {line}: {exc}") from None
        return f'<div class="equation"><div>{maths}</div></div>\n'

    md.add_render_rule("math_inline", inline)
    md.add_render_rule("math_inline_double", block)
    md.add_render_rule("math_block", block)
    md.add_render_rule("math_block_label", block)


def _title(tokens: list[Any]) -> str:
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h1" and i + 1 < len(tokens):
            return tokens[i + 1].content
    return "Post"


def page_html(body: str, title: str, themes: tuple[str, ...], head: str = "") -> str:
    """The whole page around ``body`` (``templates/page.html``): inline style only, nothing to fetch."""
    from markupsafe import Markup

    # Each sheet from a line of its own: the page's, the reader's parts, both themes' when two.
    style = ("\n" + _template_text("page.css") + post_reader.PAGE_STYLE
             + ("\n" + _template_text("dual.css") if len(themes) > 1 else ""))
    # Every piece is HTML already: the title escaped as the rest of the page escapes text.
    return _templates().get_template("page.html").render(
        title=Markup(html.escape(title)), head=Markup(head), style=Markup(style), body=Markup(body))


@functools.lru_cache(maxsize=None)
def _templates() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("publish.post", "templates"), autoescape=True,
                              keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


@functools.lru_cache(maxsize=None)
def _template_text(name: str) -> str:
    """A file of ``templates/`` as it is (the page's style sheets)."""
    return resources.files("publish.post").joinpath("templates", name).read_text(encoding="utf-8")


# -- the build --------------------------------------------------------------------

def prepare(draft: Path, links: Path | None, registry: dict[str, type], data: dict[str, Any],
            report: PostReport) -> tuple[Any, list[Any], list[Slot], list[tuple[str, bool]], str, list[int]]:
    """Everything that can fail on bad input, before anything is rendered or written."""
    _safe(check_draft_size, draft)
    text = _read_draft(draft)
    _safe(check_no_marker, text, f"draft {draft}: ")
    _safe(check_markup_counts, text, f"draft {draft}: ")
    front, body, first_line = split_front_matter(text)
    table = _link_table(front, draft, links, registry)
    _safe(check_table_text, table)
    body, mojibake = repair_mojibake(body)
    for change in mojibake:
        report.changes.append(Change(change.line + first_line - 1, change.kind, change.before, change.after))
    # The draft's empty references its bibliography resolves become citations before notes go.
    body = post_reader.place_citations(body, table, text, first_line, report)
    body, notes, line_numbers = strip_notes_mapped(body, first_line)
    report.changes += notes
    table = table.for_draft(body)
    body = _apply_edits(body, table.edits, line_numbers, report)
    body = post_reader.display_environments(body)  # \begin{equation}... typeset as display math
    try:
        found = [replace(p, line=line_numbers[p.line - 1]) for p in find(body, 1)]
        values = [evaluate(p, data) for p in found]
    except PlaceholderError as exc:
        raise PostError(f"{draft}: {exc}") from None
    report.placeholders = len(found)
    counter = iter(range(len(found)))
    body = substitute(body, lambda m: _SENTINEL.format(next(counter)))  # not in code, not escaped
    md = _markdown()
    env = {"line_numbers": line_numbers}
    tokens = md.parse(body, env)
    slots = _place_media(tokens, table, body, report, line_numbers)
    remote_pictures_as_links(tokens)  # the page fetches nothing from another host
    # What would otherwise fail after the renders: every formula, every step a slot names.
    _safe(check_formulas, tokens, line_numbers, lambda latex: _fill(latex, values), to_mathml, split_lines)
    for slot in slots:
        _safe(check_slot, slot.entry, registry, to_mathml, split_lines)
    return md, tokens, slots, values, post_reader.title(report.reader, _title(tokens)), line_numbers


def _safe(check: Callable[..., Any], *args: Any) -> Any:
    """A check of :mod:`publish.post.safety`, its refusal as a :class:`PostError`."""
    try:
        return check(*args)
    except InputError as exc:
        raise PostError(str(exc)) from None


def _fill(latex: str, values: list[tuple[str, bool]]) -> str:
    """A formula with its placeholders' values in (as the page's math renderers fill it)."""
    def value(match: re.Match[str]) -> str:
        text, block = values[int(match.group(1))]
        if block:
            raise PostError("a placeholder inside a formula must give one value, not a table")
        return html.unescape(text)
    return _SENTINEL_RE.sub(value, latex)


def _plain_title(title: str, values: list[tuple[str, bool]]) -> str:
    """The page's <title>: the H1 with its placeholders' values, never the build's markers."""
    return _SENTINEL_RE.sub(lambda m: "" if values[int(m.group(1))][1] else html.unescape(values[int(m.group(1))][0]),
                            title)


def _inputs_hash(draft: Path, links: Path | None, numbers: str | None, quality: str,
                 themes: tuple[str, ...]) -> str | None:
    """What the page is made from, as one hash (``None`` when a file cannot be read)."""
    from publish.freshness import post_inputs_hash

    try:
        return post_inputs_hash(draft, links, numbers, quality, themes)
    except OSError:
        return None


def build_post(draft: Path, site: Path, *, links: Path | None = None, numbers: str | None = None,
               quality: str = "low", themes: tuple[str, ...] = ("light",), jobs: int | None = None,
               force: bool = False, echo: Callable[[str], None] = print,
               registry: dict[str, type] | None = None, trace: Any = None) -> PostReport:
    """Build ``site/index.html`` from ``draft``; see the module docstring.

    With the numbers file's own trace and the real scenes (``trace`` and
    ``registry`` not given), the build leaves a stamp (:mod:`publish.freshness`)
    from which the next run sees, from files alone, that nothing changed."""
    start = time.monotonic()
    stamped = trace is None and registry is None
    if registry is None:
        from scenes import SCENES as registry
    from scenes import THEMES

    if trace is None:
        from attention_core import NumbersError, compute_trace, load_numbers

        try:
            trace = compute_trace(load_numbers(numbers))
        except NumbersError as exc:
            raise PostError(f"numbers file {exc}") from None
    data = trace.to_dict()
    report = PostReport()
    started = _inputs_hash(draft, links, numbers, quality, themes)  # checked again at the end
    md, tokens, slots, values, title, line_numbers = prepare(draft, links, registry, data, report)
    report.slots = sum(1 for s in slots if s.entry.show not in ("math", "none"))
    try:
        check_site(site, draft, force)
    except SiteError as exc:
        raise PostError(str(exc)) from None
    site.mkdir(parents=True, exist_ok=True)
    renders = _render(_needs(slots), trace, site, quality, themes, jobs, force, echo, registry, report,
                      numbers, stamped)
    if report.failed:
        raise PostError(f"{len(report.failed)} scenes failed, the page was not written: " + "; ".join(report.failed))
    _math_renderers(md, values, report)
    body = md.renderer.render(tokens, md.options, {"line_numbers": line_numbers})
    backgrounds = {t: THEMES[t].background for t in themes}
    pieces = [_slot_html(slot, site, themes, registry, backgrounds, report) for slot in slots]
    # The page names its media by content: a later interrupted or failed build never changes them.
    pieces, published = publish_media(site, pieces)
    report.written += published
    report.formulas += sum(1 for s in slots if s.entry.show == "math")
    body = re.sub(r"<p>\s*" + _MEDIA_RE.pattern + r"\s*</p>", lambda m: pieces[int(m.group(1))], body)
    body = _MEDIA_RE.sub(lambda m: pieces[int(m.group(1))], body)
    body = re.sub("<p>" + _SENTINEL_RE.pattern + "</p>",
                  lambda m: values[int(m.group(1))][0] if values[int(m.group(1))][1] else m.group(0), body)
    body = _SENTINEL_RE.sub(lambda m: values[int(m.group(1))][0], body)
    title = _plain_title(title, values)
    body, head = post_reader.finish_body(body, title, report.reader)
    page = site / "index.html"
    previous = read_manifest(site)["files"]
    atomic_write(page, lambda tmp: Path(tmp).write_text(page_html(body, title, themes, head), encoding="utf-8"))
    report.page = page
    page_text = page.read_text(encoding="utf-8")
    report.written.append("index.html")
    write_manifest(site, [*report.written, *previous], sha256_file(page))  # until the old ones are gone
    report.removed = remove_unlisted(site, previous, report.written)
    write_manifest(site, report.written, sha256_file(page))
    report.seconds = time.monotonic() - start
    report.inputs_changed = _inputs_hash(draft, links, numbers, quality, themes) != started
    if stamped and not report.inputs_changed:
        from publish.freshness import post_inputs_hash, write_stamp

        shown = sorted({unquote(html.unescape(ref)) for ref in re.findall(r'(?:src|srcset|href|poster)="([^"]+)"',
                                                                        page_text) if "://" not in ref}
                       | set(report.written) - {"index.html"})
        write_stamp(site, post_inputs_hash(draft, links, numbers, quality, themes), renders, shown,
                    report.lines()[-1])
    return report
