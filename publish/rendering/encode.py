"""Deriving every published format from one rendered H.264 video.

Manim renders a scene once, to an H.264 mp4; the other formats come from
that file (or from a frame captured while rendering), never from a second
render:

- ``mp4``: the same stream remuxed with the ``moov`` box first (fast start:
  a browser can play before the whole file has arrived); no re-encoding.
- ``webm``: VP9, yuv420p.
- ``gif``: at most 30 fps (browsers clamp delays of 10 ms or less to 100 ms,
  so faster gifs play slowly), scaled to at most :data:`GIF_MAX_WIDTH`
  pixels wide, one palette for the whole clip so static parts compress.
- ``png``: a still (the poster frame), saved losslessly from the renderer.

Sizes (quality low, 854x480 at 15 fps, dark theme): ``dot_product`` (30 s)
mp4 0.73 MB, webm 0.72 MB; ``length_curve`` (7 s) mp4 137 KB, webm 123 KB.
A medium/high render doubles the gif's frame count (30 fps) but not its
size in pixels. With ``--transparent`` the webm is manim's own VP9 with an
alpha channel, copied as it is.

Every function writes to the path it is given; the caller writes to a
temporary name and moves the finished file into place.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

__all__ = [
    "GIF_MAX_FPS",
    "GIF_MAX_WIDTH",
    "ENCODER_VERSION",
    "faststart_mp4",
    "to_webm",
    "to_gif",
    "save_png",
    "gif_schedule",
    "hold_last_frame",
    "GIF_HOLD_MS",
]

#: Bump when an encoder setting changes, so cached files are re-derived.
ENCODER_VERSION = 2
GIF_MAX_FPS = 30
GIF_MAX_WIDTH = 640
GIF_COLOURS = 128
GIF_STILL = 6  # max colour change (0-255) still counted as "unchanged"
WEBM_CRF = 36
GIF_HOLD_MS = 2000  # the last frame stays this much longer before the gif loops


def faststart_mp4(src: Path, dst: Path) -> None:
    """Copy the streams of ``src`` into ``dst`` with the moov box at the front."""
    with av.open(str(src)) as inp, av.open(str(dst), "w", format="mp4",
                                           options={"movflags": "+faststart"}) as out:
        mapping = {}
        for stream in inp.streams:
            if stream.type in ("video", "audio"):
                mapping[stream.index] = out.add_stream_from_template(stream)
        for packet in inp.demux(*[inp.streams[i] for i in mapping]):
            if packet.dts is None:  # the demuxer's flush packet
                continue
            packet.stream = mapping[packet.stream.index]
            out.mux(packet)


def to_webm(src: Path, dst: Path) -> None:
    """Transcode the video of ``src`` to VP9 in a webm container."""
    with av.open(str(src)) as inp, av.open(str(dst), "w", format="webm") as out:
        vin = inp.streams.video[0]
        rate = _video_rate(vin)
        vout = out.add_stream("libvpx-vp9", rate=rate)
        vout.width, vout.height = vin.codec_context.width, vin.codec_context.height
        vout.pix_fmt = "yuv420p"
        # Constant quality, "good" deadline: measured on dot_product (30 s, 480p)
        # 0.98x the mp4's size at 46.4 dB PSNR against it (the realtime
        # settings used before: 1.57x at 46.8 dB), on length_curve 0.90x at
        # 45.4 dB; about ten times slower to encode than realtime.
        vout.options = {"crf": str(WEBM_CRF), "b": "0", "deadline": "good", "cpu-used": "4", "row-mt": "1"}
        for n, frame in enumerate(inp.decode(vin)):
            frame = frame.reformat(format="yuv420p")
            frame.pts, frame.time_base = n, 1 / rate
            for packet in vout.encode(frame):
                out.mux(packet)
        for packet in vout.encode(None):
            out.mux(packet)


def gif_schedule(src_fps: float, n_frames: int) -> tuple[int, list[int]]:
    """Which source frames a gif keeps, and each kept frame's delay in ms.

    Returns ``(step, delays)``: every ``step``-th source frame is kept, so
    the gif runs at ``src_fps / step <= 30`` fps. GIF delays are whole
    centiseconds, so each delay is the difference of rounded cumulative
    times: the clip keeps its length and no delay is 10 ms or less.
    """
    step = max(1, math.ceil(src_fps / GIF_MAX_FPS - 1e-9))
    fps = src_fps / step
    kept = math.ceil(n_frames / step)
    ends = [round((i + 1) * 100 / fps) for i in range(kept)]
    delays = [10 * (e - s) for s, e in zip([0, *ends[:-1]], ends)]
    return step, delays


def _video_rate(stream) -> Fraction:
    """The stream's frame rate, snapped to a whole number when it is one.

    Manim's mp4s report rates such as 3809280/253927 (15.0016 fps).
    """
    rate = Fraction(stream.average_rate or stream.guessed_rate or 30)
    whole = round(rate)
    return Fraction(whole) if abs(rate - whole) < 0.01 else rate


def to_gif(src: Path, dst: Path, max_width: int = GIF_MAX_WIDTH, background: str | None = None) -> None:
    """A looping gif of the video in ``src``: at most 30 fps, one palette.

    ``background`` (``#rrggbb``, the theme's) is put into the palette
    exactly, in place of the palette's nearest colour, so the gif sits on a
    page of that colour without a visible box. The last frame is held for
    :data:`GIF_HOLD_MS` more before the gif loops.

    The decoded H.264 frames carry faint noise that would make every frame
    differ; a pixel keeps its previous palette entry while its colour stays
    within :data:`GIF_STILL` of the colour it had then, so static parts of
    the picture are identical from frame to frame and compress away.
    """
    with av.open(str(src)) as inp:
        vin = inp.streams.video[0]
        src_fps = float(_video_rate(vin))
        width, height = vin.codec_context.width, vin.codec_context.height
        scale = min(1.0, max_width / width)
        w, h = max(2, round(width * scale / 2) * 2), max(2, round(height * scale / 2) * 2)
        frames = [f.to_ndarray(width=w, height=h, format="rgb24") for f in inp.decode(vin)]
    step, delays = gif_schedule(src_fps, len(frames))
    kept = frames[::step]
    # One palette from frames across the clip (the last one always: it
    # holds everything the scene built up).
    samples = kept[:: max(1, len(kept) // 6)] + [kept[-1]]
    strip = Image.fromarray(np.concatenate(samples, axis=0), "RGB")
    palette = strip.quantize(colors=GIF_COLOURS, method=Image.Quantize.MEDIANCUT)
    rgb_pal = np.array(palette.getpalette()[: 3 * GIF_COLOURS], dtype=np.uint8).reshape(-1, 3)
    bg_index = exact = None
    if background is not None:
        exact = np.array([int(background.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)], dtype=np.int16)
        bg_index = int(np.abs(rgb_pal.astype(int) - exact).sum(axis=1).argmin())
        rgb_pal[bg_index] = exact
    argb = np.zeros((256, 4), dtype=np.uint8)
    argb[: len(rgb_pal), 0] = 255
    argb[: len(rgb_pal), 1:] = rgb_pal
    with av.open(str(dst), "w", format="gif") as out:
        stream = out.add_stream("gif", rate=100)
        stream.width, stream.height = w, h
        stream.pix_fmt = "pal8"
        stream.codec_context.time_base = Fraction(1, 100)
        ref = prev = None
        start = 0
        for rgb, delay in zip(kept, delays):
            idx = np.asarray(Image.fromarray(rgb, "RGB").quantize(palette=palette, dither=Image.Dither.NONE))
            now = rgb.astype(np.int16)
            if bg_index is not None:
                # The video's background is the theme's colour plus coding noise:
                # write it as the theme's exact colour.
                idx = np.where(np.abs(now - exact).max(axis=2) <= GIF_STILL, bg_index, idx)
            if prev is not None:
                # Keep the previous entry while the pixel stays within noise
                # of the colour it had when that entry was chosen.
                still = np.abs(now - ref).max(axis=2) <= GIF_STILL
                idx = np.where(still, prev, idx)
                ref = np.where(still[..., None], ref, now)
            else:
                ref = now
            prev = idx
            # ffmpeg's gif encoder writes only what changed, with unchanged
            # pixels transparent: static parts compress to almost nothing.
            frame = av.VideoFrame.from_ndarray((np.ascontiguousarray(idx, dtype=np.uint8), argb), format="pal8")
            frame.pts, frame.time_base = start, Fraction(1, 100)
            start += delay // 10
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    if delays:
        hold_last_frame(dst, delays[-1] + GIF_HOLD_MS)


def _gif_blocks(data: bytes):
    """Offsets of the Graphic Control Extensions of a GIF, in order."""
    pos = 13
    if data[10] & 0x80:  # global colour table
        pos += 3 * (2 << (data[10] & 7))
    while pos < len(data):
        kind = data[pos]
        if kind == 0x3B:  # trailer
            return
        if kind == 0x21:
            if data[pos + 1] == 0xF9:
                yield pos
            pos += 2
        elif kind == 0x2C:
            packed = data[pos + 9]
            pos += 10
            if packed & 0x80:
                pos += 3 * (2 << (packed & 7))
            pos += 1  # LZW minimum code size
        else:
            raise ValueError(f"not a GIF block at byte {pos}")
        while data[pos]:  # data sub-blocks
            pos += data[pos] + 1
        pos += 1


def hold_last_frame(path: Path, delay_ms: int) -> None:
    """Set the delay of a GIF's last frame (ffmpeg leaves it at its minimum)."""
    data = bytearray(path.read_bytes())
    offsets = list(_gif_blocks(bytes(data)))
    if not offsets:
        return
    centis = max(2, min(0xFFFF, round(delay_ms / 10)))
    last = offsets[-1]
    data[last + 4:last + 6] = centis.to_bytes(2, "little")
    path.write_bytes(bytes(data))


def save_png(frame: np.ndarray, dst: Path, transparent: bool = False) -> None:
    """Save a renderer frame (H x W x 3 or 4, uint8) as a PNG.

    Opaque by default. ``transparent`` keeps the alpha channel; cairo draws
    with premultiplied alpha, so the colours of half-covered pixels (the
    anti-aliased edges) are divided back by their alpha.
    """
    if transparent and frame.shape[-1] == 4:
        rgba = frame.astype(np.float64)
        alpha = rgba[..., 3:4]
        rgb = np.where(alpha > 0, rgba[..., :3] * 255.0 / np.maximum(alpha, 1), 0)
        out = np.concatenate([np.clip(np.rint(rgb), 0, 255), alpha], axis=2).astype(np.uint8)
        Image.fromarray(np.ascontiguousarray(out), "RGBA").save(dst, format="PNG", optimize=True)
        return
    image = Image.fromarray(np.ascontiguousarray(frame[..., :3]), "RGB")
    image.save(dst, format="PNG", optimize=True)
