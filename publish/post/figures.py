"""The figures of ``render.py post``: a still cropped to what it shows.

A scene's png is cropped to what differs from its theme's background plus a
margin, long empty bands inside the picture closed up (:func:`figure_crop`);
its svg gets the same box and bands (:func:`crop_svg`), still vector. A clip's
frame at a given second is taken as png (:func:`frame_at`). Every file is
written under a temporary name and moved into place (:func:`atomic_write`).
Manim-free: PIL and PyAV only.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any, Callable

from publish.post.manifest import public_mode

__all__ = ["MAX_EMPTY_BAND", "atomic_write", "crop_png", "crop_svg", "figure_crop", "frame_at", "row_segments"]


def _content_mask(image: Any, background: tuple[int, int, int]) -> Any:
    """White where ``image`` differs from ``background``, black elsewhere (a PIL "L" image)."""
    from PIL import Image, ImageChops

    rgb = image.convert("RGB")
    diff = ImageChops.difference(rgb, Image.new("RGB", rgb.size, background)).convert("L")
    return diff.point(lambda p: 255 if p > 10 else 0)


def _content_box(mask: Any, margin: int) -> tuple[int, int, int, int]:
    box = mask.getbbox()
    if box is None:
        return (0, 0, mask.width, mask.height)
    x0, y0, x1, y1 = box
    return (max(0, x0 - margin), max(0, y0 - margin), min(mask.width, x1 + margin), min(mask.height, y1 + margin))


def _hex_rgb(color: str) -> tuple[int, int, int]:
    color = color.lstrip("#")
    return tuple(int(color[k:k + 2], 16) for k in (0, 2, 4))  # type: ignore[return-value]


def crop_png(src: Path, dst: Path, background: str, margin_fraction: float = 0.02) -> tuple[int, int, int, int]:
    """Crop ``src`` to what differs from the background, plus a margin; return the box (pixels of ``src``)."""
    box, _ = figure_crop(src, dst, background, margin_fraction, close_bands=False)
    return box


#: An empty band across a still longer than this share of the frame's height (the room a clip
#: keeps between its picture and its caption line) is closed up in the figure to one margin.
MAX_EMPTY_BAND = 0.06


def row_segments(empty: list[bool], longest: int, keep: int) -> list[tuple[int, int]]:
    """Rows to keep, as ``[start, end)`` runs: every empty band longer than ``longest`` rows
    keeps ``keep`` rows (half at each edge); the rest stays whole."""
    segments, start, y = [], 0, 0
    n = len(empty)
    while y < n:
        if not empty[y]:
            y += 1
            continue
        end = y
        while end < n and empty[end]:
            end += 1
        if end - y > longest and y > 0 and end < n:  # a band inside the picture, not its margin
            segments.append((start, y + keep // 2))
            start = end - (keep - keep // 2)
        y = end
    segments.append((start, n))
    return segments


def figure_crop(src: Path, dst: Path, background: str, margin_fraction: float = 0.02, close_bands: bool = True
                ) -> tuple[tuple[int, int, int, int], list[tuple[int, int]]]:
    """Crop ``src`` to what differs from the background, plus a margin, with long empty bands
    inside the picture closed up (``close_bands``); returns the box and the kept row runs, in
    pixels of ``src``."""
    from PIL import Image

    with Image.open(src) as image:
        margin = max(4, round(margin_fraction * image.width))
        mask = _content_mask(image, _hex_rgb(background))
        box = _content_box(mask, margin)
        segments = [(box[1], box[3])]
        if close_bands:
            inside = mask.crop(box)
            empty = [inside.crop((0, y, inside.width, y + 1)).getbbox() is None for y in range(inside.height)]
            runs = row_segments(empty, round(MAX_EMPTY_BAND * image.height), margin)
            segments = [(box[1] + a, box[1] + b) for a, b in runs]
        out = image.crop(box)
        if len(segments) > 1:  # the kept runs of rows, stacked
            out = Image.new(image.mode, (box[2] - box[0], sum(b - a for a, b in segments)))
            y = 0
            for a, b in segments:
                out.paste(image.crop((box[0], a, box[2], b)), (0, y))
                y += b - a
        atomic_write(dst, lambda tmp: out.save(tmp, format="PNG", optimize=True))
    return box, segments


def crop_svg(src: Path, dst: Path, box: tuple[int, int, int, int], png_size: tuple[int, int],
             segments: list[tuple[int, int]] | None = None) -> None:
    """Write ``src`` with its viewBox (and width/height) set to ``box`` of a ``png_size`` picture of it."""
    text = src.read_text(encoding="utf-8")
    head = re.search(r"<svg\b[^>]*>", text)
    if head is None:
        raise ValueError(f"{src}: no <svg> element")
    tag = head.group(0)
    view = re.search(r'viewBox="([\d.\s-]+)"', tag)
    if view:
        vx, vy, vw, vh = (float(v) for v in view.group(1).split())
    else:
        vw = float(re.search(r'width="([\d.]+)', tag).group(1))
        vh = float(re.search(r'height="([\d.]+)', tag).group(1))
        vx = vy = 0.0
    sx, sy = vw / png_size[0], vh / png_size[1]
    x0, y0, x1, y1 = box
    if segments and len(segments) > 1:
        atomic_write(dst, lambda tmp: Path(tmp).write_text(
            _stacked_svg(text, tag, (vx + x0 * sx, (x1 - x0) * sx), [(vy + a * sy, (b - a) * sy) for a, b in segments]),
            encoding="utf-8"))
        return
    new_view = f"{vx + x0 * sx:.2f} {vy + y0 * sy:.2f} {(x1 - x0) * sx:.2f} {(y1 - y0) * sy:.2f}"
    new_tag = re.sub(r'\s(width|height|viewBox)="[^"]*"', "", tag)
    new_tag = new_tag.replace(
        "<svg", f'<svg width="{(x1 - x0) * sx:.2f}" height="{(y1 - y0) * sy:.2f}" viewBox="{new_view}"', 1)
    atomic_write(dst, lambda tmp: Path(tmp).write_text(text.replace(tag, new_tag, 1), encoding="utf-8"))


def _stacked_svg(text: str, tag: str, x: tuple[float, float], rows: list[tuple[float, float]]) -> str:
    """The picture's content drawn once (``<defs>``) and shown through one window per kept run of
    rows, stacked: an svg with the empty bands closed up, still vector, still scaling."""
    start = text.index(tag) + len(tag)
    inner = text[start:text.rindex("</svg>")]
    left, width = x
    height = sum(h for _, h in rows)
    xmlns = re.search(r'\sxmlns="[^"]*"', tag)
    xlink = re.search(r'\sxmlns:xlink="[^"]*"', tag)
    windows, y = [], 0.0
    for top, h in rows:
        windows.append(f'<svg x="0" y="{y:.2f}" width="{width:.2f}" height="{h:.2f}" '
                       f'viewBox="{left:.2f} {top:.2f} {width:.2f} {h:.2f}" overflow="hidden">'
                       f'<use href="#figure-content" xlink:href="#figure-content"/></svg>')
        y += h
    ns = xmlns.group(0) if xmlns else ' xmlns="http://www.w3.org/2000/svg"'
    ns += xlink.group(0) if xlink else ' xmlns:xlink="http://www.w3.org/1999/xlink"'
    head = f'<svg{ns} width="{width:.2f}" height="{height:.2f}" viewBox="0 0 {width:.2f} {height:.2f}">'
    return (text[:text.index(tag)] + head + f'<defs><g id="figure-content">{inner}</g></defs>'
            + "".join(windows) + "</svg>\n")


def atomic_write(dst: Path, write: Callable[[str], None]) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".part", dir=dst.parent)
    os.close(fd)
    try:
        write(tmp)
        public_mode(tmp)  # mkstemp's 0600: a web server must read the page and its figures
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def frame_at(mp4: Path, seconds: float, dst: Path) -> None:
    """The clip's frame shown at ``seconds`` (its last frame if the clip is shorter), as png."""
    import av

    chosen = None
    with av.open(str(mp4)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            if chosen is not None and frame.time is not None and frame.time > seconds + 1e-6:
                break
            chosen = frame
        if chosen is None:
            raise ValueError(f"{mp4}: no frames")
        image = chosen.to_image()
    atomic_write(dst, lambda tmp: image.save(tmp, format="PNG"))
