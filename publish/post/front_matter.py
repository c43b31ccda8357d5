"""Reading a draft as authors write it: its encoding and its front matter.

A draft is decoded by its byte-order mark (UTF-8, UTF-16 or UTF-32), else as
UTF-8; any other bytes are refused with one line naming the first bad byte
(never guessed: a guess prints the wrong characters on the page).

A front matter is the block at the very top between ``---`` lines (YAML, as
Hugo, Jekyll, Quarto and MkDocs write it; TOML is tried when it is not YAML)
or ``+++`` lines (TOML, as Hugo writes it). The usual keys are read and used
in the page (:class:`FrontMatter`): ``title`` (the ``<title>`` and the page's
heading when the draft has none), ``date``, ``author`` / ``authors`` (the
byline), ``tags``, ``description`` (``<meta name="description">``). Every
other key is kept (:attr:`FrontMatter.meta`), never refused. The tool's own
settings (link-table entries: ``link``, ``insert``, ``edit``, ``cite``) go
under a key of their own, :data:`TOOL_KEY`; ``[[link]]`` tables written at the
top level of a TOML front matter, as earlier drafts did, are read as settings
too. Manim-free.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["FrontMatterError", "FrontMatter", "TOOL_KEY", "SETTING_KINDS", "decode_draft", "read_draft",
           "parse_front_matter", "split_front_matter"]

#: The key under which a front matter holds this tool's settings.
TOOL_KEY = "attention_render"
#: The link table's kinds of entry a front matter may hold.
SETTING_KINDS = ("link", "insert", "edit", "cite", "page")

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


class FrontMatterError(ValueError):
    """A draft that cannot be read: bytes that are not text, or a front matter that is not YAML/TOML."""


def decode_draft(raw: bytes, name: str) -> str:
    """The draft's text: by its byte-order mark, else UTF-8; newlines made ``\\n``."""
    for bom, codec in _BOMS:  # UTF-32 LE before UTF-16 LE: its mark begins with UTF-16's
        if raw.startswith(bom):
            try:
                text = raw.decode(codec)
            except UnicodeDecodeError as exc:
                raise FrontMatterError(f"draft {name}: starts with a {codec.upper()} byte-order mark but byte "
                                       f"{exc.start} is not {codec.upper()}") from None
            break
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise FrontMatterError(f"draft {name}: not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}); "
                                   f"save it as UTF-8") from None
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def read_draft(path: Path) -> str:
    """:func:`decode_draft` of the file; an unreadable file is one :class:`FrontMatterError` line."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise FrontMatterError(f"draft {path}: cannot read it ({exc.strerror or exc})") from None
    return decode_draft(raw, str(path))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return str(value).strip() or None


def _names(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        out = []
        for item in value:
            # Quarto writes an author as a table ({name: ..., affiliation: ...}).
            name = item.get("name") if isinstance(item, dict) else item
            if _text(name):
                out.append(_text(name))
        return out
    if isinstance(value, dict):
        return [_text(value.get("name"))] if _text(value.get("name")) else []
    return [_text(value)] if _text(value) else []


@dataclass
class FrontMatter:
    """What the front matter says (everything empty when the draft has none)."""

    format: str = ""  # "yaml", "toml" or ""
    meta: dict[str, Any] = field(default_factory=dict)  # every key but the tool's, as written
    settings: dict[str, Any] = field(default_factory=dict)  # the tool's: link, insert, edit, cite lists

    @property
    def title(self) -> str | None:
        return _text(self.meta.get("title"))

    @property
    def date(self) -> str | None:
        return _text(self.meta.get("date"))

    @property
    def authors(self) -> list[str]:
        return _names(self.meta.get("author", self.meta.get("authors")))

    @property
    def tags(self) -> list[str]:
        return _names(self.meta.get("tags"))

    @property
    def description(self) -> str | None:
        return _text(self.meta.get("description"))


def _load_yaml(text: str, where: str) -> Any:
    import frontmatter
    import yaml

    try:
        data = frontmatter.YAMLHandler().load(text)  # yaml's SafeLoader: no tags that run code
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + 2}: " if mark is not None else ""  # +1 for 1-based, +1 for the fence
        problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
        raise FrontMatterError(f"{where}: not valid YAML ({at}{problem})") from None
    _no_shared_containers(data, where)
    return data


def _no_shared_containers(data: Any, where: str) -> None:
    """No list or map met twice: YAML aliases of them (``b: [*a, *a, ...]``) let ten lines stand for
    a billion values, which reading the title as text then spelled out for minutes (issue 33)."""
    seen: set[int] = set()
    todo = [data]
    while todo:
        node = todo.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                raise FrontMatterError(f"{where}: a YAML alias (*name) of a list or a map; write its values "
                                       f"out (aliases can make a few lines stand for billions of values)")
            seen.add(id(node))
            todo.extend(node.values() if isinstance(node, dict) else node)


def _load_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FrontMatterError(f"{where}: not valid TOML ({exc})") from None


def parse_front_matter(text: str, fence: str | None, where: str) -> FrontMatter:
    """The front matter between ``fence`` lines (``---`` YAML, else TOML; ``+++`` TOML; ``None``: either)."""
    if not text.strip():
        return FrontMatter()
    if fence == "+++":
        data, kind = _load_toml(text, where), "toml"
    elif fence is None:  # fence unknown: TOML if it reads as TOML (YAML never has "key = value" maps)
        try:
            data, kind = tomllib.loads(text), "toml"
        except tomllib.TOMLDecodeError:
            data, kind = _load_yaml(text, where), "yaml"
    else:
        try:
            data, kind = _load_yaml(text, where), "yaml"
        except FrontMatterError as yaml_error:
            try:  # earlier drafts wrote TOML link tables between --- lines
                data, kind = tomllib.loads(text), "toml"
            except tomllib.TOMLDecodeError:
                raise yaml_error from None
    if data is None:
        return FrontMatter(kind)
    if not isinstance(data, dict):
        raise FrontMatterError(f"{where}: expected keys and values (title: ...), got a {type(data).__name__}")
    meta = {k: v for k, v in data.items() if k != TOOL_KEY}
    settings = data.get(TOOL_KEY) or {}
    if not isinstance(settings, dict):
        raise FrontMatterError(f"{where}: {TOOL_KEY} must hold keys (link, insert, edit, cite), "
                               f"got a {type(settings).__name__}")
    # Top-level [[link]] tables (the earlier form): lists of tables under a setting's name.
    for kind_name in SETTING_KINDS:
        value = meta.get(kind_name)
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            settings = {**settings, kind_name: list(settings.get(kind_name, [])) + meta.pop(kind_name)}
    return FrontMatter(kind, meta, settings)


def split_front_matter(text: str) -> tuple[str, str, int]:
    """``(front matter, body, first line of the body)``; the front matter is TOML between
    ``+++`` (or ``---``) lines at the very top, or empty."""
    for fence in ("+++", "---"):
        if text.startswith(fence + "\n"):
            end = text.find("\n" + fence + "\n", len(fence))
            if end == -1 and text.endswith("\n" + fence):
                end = len(text) - len(fence) - 1
            if end != -1:
                front = text[len(fence) + 1:end]
                body = text[end + len(fence) + 2:]
                return front, body, front.count("\n") + 4  # its lines, both fences, then the body
    return "", text, 1
