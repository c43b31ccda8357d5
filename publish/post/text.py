"""Cleaning a draft's text before it becomes a page: mojibake and editor's notes.

Both are reported, never done silently: :func:`repair_mojibake` and
:func:`strip_notes` return the cleaned text with a list of :class:`Change`
(line number in the draft as given, what was there, what became of it), which
``render.py post`` prints at the end of its run. Manim-free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Change", "repair_mojibake", "strip_notes", "strip_notes_mapped", "NOTE_LINE", "INLINE_NOTES"]


@dataclass(frozen=True)
class Change:
    """One thing taken out of or repaired in the draft."""

    line: int  # 1-based, in the draft as the author wrote it
    kind: str  # "mojibake", "note", "empty reference", "inline note", "double brackets"
    before: str
    after: str = ""

    def describe(self) -> str:
        shown = self.before.strip()
        shown = shown if len(shown) <= 70 else shown[:67] + "..."
        if self.kind == "mojibake":
            return f"line {self.line}: mojibake repaired: {shown!r} -> {self.after.strip()[:70]!r}"
        if self.kind == "edit":
            return f"line {self.line}: text edited (link table): {shown!r} -> {self.after.strip()[:70]!r}"
        if self.kind == "figure":
            return f"line {self.line}: picture left out (link table: show = \"none\"): {shown!r}"
        if self.kind == "citation":
            return f"line {self.line}: reference resolved to a citation: {shown!r} -> {self.after.strip()[:70]!r}"
        if self.kind == "empty reference":
            return f"line {self.line}: empty reference not resolved (no [[cite]] names it), left out: {shown!r}"
        if self.kind == "double brackets":
            return f"line {self.line}: extra brackets around a link removed: {shown!r}"
        return f"line {self.line}: {self.kind} left out: {shown!r}"


#: A line that is an editor's note: ``//// introduction ...``, ``/// add reference``, ``TODO: ...``
#: (also ``TO DO :`` and ``note_to_self:``, as seed 001 writes them).
NOTE_LINE = re.compile(r"^\s*(?:/{3,}|TO ?DO\s*:|note_to_self:)", re.IGNORECASE)

#: Inline notes: ``(add ref)``, ``(attn is all u need link)``, ``[diag]``. The words
#: before an empty reference that only lead to it ("as shown in []") go with it.
INLINE_NOTES = re.compile(
    # (?<!\s): a run of spaces is tried from its start only (from each of its spaces, the time
    # grew with the square of the run: a line of 100,000 spaces took 70 s; issue 33).
    r"(?<!\s)\s*\((?:add ref[^()]*|[^()]*\blink)\)"  # (add ref), (... link)
    r"|(?<!\s)\s*\[diag[^\[\]]*\](?!\()"  # [diag] with no words before it
)
_LEAD_IN = (r"(?:as (?:shown|seen) in|as you can see in(?: (?:animation|image|the fig(?:ure)?))?"
            r"|in (?:image|animation|the fig(?:ure)?)|from the fig(?:ure)?|shown in|of|in|by\s*:?|from the)")
_EMPTY_REFERENCE = re.compile(rf"(?<!\s)(?:\s+{_LEAD_IN})?\s*\[(?:diag[^\[\]]*)?\](?!\()")
#: "refer to []" is a whole sentence pointing at nothing: the sentence goes.
_REFER_SENTENCE = re.compile(r"(?:(?<=[.!?])\s+|^)[^.!?\n]*\brefer to\s*\[\](?!\()\s*[.!?]?")
#: ``[[text](url)]``: a link wrapped in a second pair of brackets.
_DOUBLE_BRACKETS = re.compile(r"\[(\[[^\[\]]*\]\([^()\s]*\))\]")


def repair_mojibake(text: str) -> tuple[str, list[Change]]:
    """Undo UTF-8 read as cp1252 (``â†’`` for ``→``, ``Â`` before a no-break space), line by line.

    Only the encoding is fixed (ftfy's ``fix_encoding``): quotes, ligatures
    and widths are left as the author typed them.
    """
    import ftfy

    config = ftfy.TextFixerConfig(unescape_html=False, remove_terminal_escapes=False, fix_latin_ligatures=False,
                                  fix_character_width=False, uncurl_quotes=False, fix_line_breaks=False,
                                  fix_surrogates=False, remove_control_chars=False, normalization=None,
                                  explain=False)
    out, changes = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        fixed = ftfy.fix_text(line, config)
        # What ftfy cannot place (a lone Â before a space, as the seeds' notes have): a no-break space.
        fixed = fixed.replace("\u00c2\u00a0", "\u00a0").replace("\u00c2 ", " ")
        if fixed != line:
            changes.append(Change(number, "mojibake", line, fixed))
        out.append(fixed)
    return "\n".join(out), changes


def strip_notes(text: str, first_line: int = 1) -> tuple[str, list[Change]]:
    """Leave out the editor's notes: note lines, empty ``[]`` references, inline notes.

    ``first_line`` is the draft's number of the first line of ``text`` (after a
    front matter). Note lines inside fenced code are kept (they are code).
    """
    cleaned, changes, _ = strip_notes_mapped(text, first_line)
    return cleaned, changes


def strip_notes_mapped(text: str, first_line: int = 1) -> tuple[str, list[Change], list[int]]:
    """:func:`strip_notes`, and for each line of the result its number in the draft."""
    out: list[str] = []
    numbers: list[int] = []
    changes: list[Change] = []
    in_fence = False
    for offset, line in enumerate(text.split("\n")):
        number = first_line + offset
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if in_fence:
            out.append(line)
            numbers.append(number)
            continue
        if NOTE_LINE.match(line):
            changes.append(Change(number, "note", line))
            continue
        line = _clean_line(line, number, changes)
        out.append(line)
        numbers.append(number)
    return "\n".join(out), changes, numbers


def _clean_line(line: str, number: int, changes: list[Change]) -> str:
    def drop(kind: str):
        def replace(match: re.Match[str]) -> str:
            changes.append(Change(number, kind, match.group(0)))
            return ""
        return replace

    line = _DOUBLE_BRACKETS.sub(lambda m: _note(changes, number, m.group(0), m.group(1)), line)
    line = _REFER_SENTENCE.sub(drop("empty reference"), line)
    line = _EMPTY_REFERENCE.sub(drop("empty reference"), line)
    line = INLINE_NOTES.sub(drop("inline note"), line)
    return line


def _note(changes: list[Change], number: int, before: str, after: str) -> str:
    changes.append(Change(number, "double brackets", before, after))
    return after
