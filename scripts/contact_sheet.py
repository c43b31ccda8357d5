"""Contact sheet of a clip: frames every N seconds in one labelled PNG, to watch a render as a reader.

    .venv/bin/python scripts/contact_sheet.py media/encoder.mp4 --every 1 --out sheet.png
    .venv/bin/python scripts/contact_sheet.py media/encoder.mp4 --at 13.5 --out frame.png   # one frame, full size

Each tile is labelled with its time, so a fault seen on the sheet can be named by its second.
Uses PyAV (a manim dependency) and Pillow only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import av
from PIL import Image, ImageDraw

__all__ = ["frames_at", "contact_sheet", "main"]


def frames_at(path: Path, times: list[float]) -> list[tuple[float, Image.Image]]:
    """Decode the first frame at or after each time (seconds); the last frame for times past the end."""
    wanted = sorted(times)
    got: list[tuple[float, Image.Image]] = []
    last = None
    with av.open(str(path)) as box:
        stream = box.streams.video[0]
        for frame in box.decode(stream):
            t = float(frame.pts * stream.time_base)
            last = (t, frame)
            while wanted and t + 1e-6 >= wanted[0]:
                got.append((t, frame.to_image()))
                wanted.pop(0)
            if not wanted:
                break
    if wanted and last is not None:
        got.extend((last[0], last[1].to_image()) for _ in wanted)
    return got


def contact_sheet(path: Path, every: float, columns: int = 4, width: int = 480,
                  start: float = 0.0, end: float | None = None) -> Image.Image:
    """Frames every ``every`` seconds from ``start`` to ``end`` (default: the clip's end, whose last
    frame is included), tiled ``columns`` across, each ``width`` px wide."""
    with av.open(str(path)) as box:
        stream = box.streams.video[0]
        duration = float(stream.duration * stream.time_base) if stream.duration else float(box.duration) / 1e6
    stop = duration if end is None else min(end, duration)
    n = int(max(0.0, stop - start) // every) + 1
    times = [start + i * every for i in range(n)]
    if end is None or end >= duration:
        times.append(max(0.0, duration - 0.01))
    frames = frames_at(path, times)
    first = frames[0][1]
    height = round(first.height * width / first.width)
    rows = -(-len(frames) // columns)
    sheet = Image.new("RGB", (columns * width, rows * (height + 18)), "white")
    draw = ImageDraw.Draw(sheet)
    for i, (t, img) in enumerate(frames):
        x, y = (i % columns) * width, (i // columns) * (height + 18)
        sheet.paste(img.convert("RGB").resize((width, height)), (x, y + 18))
        draw.text((x + 4, y + 3), f"{t:.1f} s", fill="black")
    return sheet


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clip", type=Path)
    ap.add_argument("--every", type=float, default=1.0, help="seconds between frames (default 1)")
    ap.add_argument("--columns", type=int, default=4)
    ap.add_argument("--width", type=int, default=480, help="tile width in px (default 480)")
    ap.add_argument("--at", type=float, default=None, help="one frame at this time, full size")
    ap.add_argument("--start", type=float, default=0.0, help="first frame's time (default 0)")
    ap.add_argument("--end", type=float, default=None, help="last frame's time at most (default: the clip's end)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if not args.clip.is_file():
        print(f"error: clip {args.clip}: no such file", file=sys.stderr)
        return 2
    if args.at is not None:
        frames_at(args.clip, [args.at])[0][1].save(args.out)
    else:
        contact_sheet(args.clip, args.every, args.columns, args.width, args.start, args.end).save(args.out)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
