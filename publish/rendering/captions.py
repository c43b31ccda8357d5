"""WebVTT caption files from the captions a scene showed on screen.

The scene records when each sentence on screen appeared and went
(:class:`scenes.base.Timeline`, in seconds of the clip); a clip's ``.vtt``
lists them with those times, so a screen reader or a muted autoplaying
video in a post carries the same words as the picture. Cues are given as
``(text, start, end)`` triples. Manim-free.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["vtt_time", "to_webvtt", "window"]


def vtt_time(seconds: float) -> str:
    """``HH:MM:SS.mmm``, as WebVTT requires."""
    ms = max(0, round(seconds * 1000))
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def _escape(text: str) -> str:
    # A cue's text may not contain "-->", raw "<" / "&" or an empty line; its lines are kept.
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def window(cues: Iterable[tuple[str, float, float]], start: float, end: float) -> list[tuple[str, float, float]]:
    """The cues shown between ``start`` and ``end``, in that part's own time."""
    out = []
    for text, a, b in cues:
        a2, b2 = max(a, start), min(b, end)
        if b2 - a2 > 0.05:
            out.append((text, a2 - start, b2 - start))
    return out


def to_webvtt(cues: Iterable[tuple[str, float, float]]) -> str:
    """A WebVTT document, one numbered cue per caption."""
    lines = ["WEBVTT", ""]
    for n, (text, start, end) in enumerate(cues, start=1):
        lines += [str(n), f"{vtt_time(start)} --> {vtt_time(end)}", _escape(text), ""]
    return "\n".join(lines)
