"""Frames handed to libx264 converted once each, with their row padding set.

A ``wait`` (and the still end of a ``play``) hands Manim's partial-movie
encoder one RGBA frame with ``repeat=N``. Manim 0.22's
``VideoSegmentEncoder.write_frame`` then builds a new ``av.VideoFrame`` from
the array N times, and PyAV converts each of them from RGBA to the stream's
``yuv420p`` before libx264 sees it: the same conversion N times over. In the
default set half of the 10,600 frames at 480p are such repeats (143 calls),
and the conversion is half of what one costs the encoder (measured at 480p:
1.4 ms of 2.8).

:func:`install` replaces ``write_frame`` for libx264 streams: each frame is
converted once, by the same call PyAV's encoder would make (a
``VideoReformatter`` to the codec context's size and format, with its thread
count), and that one converted frame is handed to the encoder N times, each
with its own time stamp (libx264 copies each frame it is given).

**Row padding.** A converted plane's rows are longer than the picture when
its width is not a multiple of the alignment (854 at 480p: rows of 864
bytes), and libx264 reads those last bytes too: the file depends on them.
swscale writes only some of them; the rest is whatever memory the frame was
given. Here each row's padding is filled with its last pixel, as libx264
itself pads a picture to whole macroblocks, so that memory no longer reaches
the file. At 720p, 1080p and 4K rows have no padding and the files are
Manim's, byte for byte; at 480p the pictures are Manim's within the codec's
own error (``tests/test_held_frames.py``). Other codecs (transparent webm)
are Manim's way. ``ATTENTION_HELD_FRAMES=0`` turns this off.

**No copy before the conversion.** PyAV's ``from_ndarray`` copies the RGBA
array row by row into a frame of its own before swscale reads it: at 1080p
that copy took 6 ms, twice the conversion itself. The array is handed to
swscale where it is (``from_numpy_buffer``); the converted planes are the
same bytes (tested).

**Converted while the frame before encodes.** Each frame's conversion runs on
a conversion thread while the encoder's own thread hands libx264 the frame
before it (the last one at ``finish``): the same calls in the same order, so
the same file, with swscale and libx264 on two cores when one is free.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["install", "uninstall", "installed", "ENV", "write_frame", "converted"]

ENV = "ATTENTION_HELD_FRAMES"
CODECS = ("libx264",)
CONVERTERS = 4  # conversion threads: one for each partial movie that may encode at once
PENDING = "_attention_converting"  # an encoder's frame being converted, and its repeat

_originals: dict[str, Any] = {}  # VideoSegmentEncoder's methods this module replaced


def converted(pixels: np.ndarray, context: Any) -> Any:
    """``pixels`` (RGBA) as the frame ``context``'s encoder takes, each row's
    padding filled with the row's last pixel."""
    import av
    from av.video.reformatter import VideoReformatter

    # swscale reads the array where it is (Manim's frames are C-contiguous; anything else is
    # copied once here): PyAV's from_ndarray would first copy it row by row into a frame of
    # its own (6 ms of a 1080p frame's 10, 1.1 of 1.9 at 480p).
    frame = av.VideoFrame.from_numpy_buffer(np.ascontiguousarray(pixels), format="rgba")
    frame = VideoReformatter().reformat(frame, context.width, context.height, context.format,
                                        threads=context.thread_count)
    for plane in frame.planes:
        if plane.line_size > plane.width:
            rows = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)
            rows[:, plane.width:] = rows[:, plane.width - 1:plane.width]
    return frame


_pool: Any = None
_pool_pid = 0


def _converter() -> Any:
    """The process's conversion threads (made again in a forked child, whose copy has none)."""
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        from concurrent.futures import ThreadPoolExecutor

        _pool, _pool_pid = ThreadPoolExecutor(CONVERTERS, thread_name_prefix="frame-converter"), os.getpid()
    return _pool


def _encode(self: Any, future: Any, repeat: int) -> None:
    """Hand libx264 the converted frame ``future`` gives, ``repeat`` times."""
    rate = self.spec.frame_rate
    time_base = Fraction(rate.denominator, rate.numerator)
    try:
        frame = future.result()
        frame.time_base = time_base
        for _ in range(repeat):
            frame.pts = self._next_pts
            self._next_pts += 1
            for packet in self._stream.encode(frame):
                self._container.mux(packet)
    except BaseException as error:
        raise self._operation_error("encode", error) from error


def write_frame(self: Any, pixels: Any, *, repeat: int = 1) -> None:
    """Manim's ``VideoSegmentEncoder.write_frame``, converting each frame once, on a
    conversion thread while libx264 encodes the frame before it."""
    if self.spec.codec not in CODECS or self.spec.container_format != "mp4":
        _originals["write_frame"](self, pixels, repeat=repeat)
        return
    self._validate_frame(pixels, repeat)  # Manim's checks and errors
    before = self.__dict__.pop(PENDING, None)
    self.__dict__[PENDING] = (_converter().submit(converted, pixels, self._stream.codec_context), repeat)
    if before is not None:
        _encode(self, *before)


def finish(self: Any) -> None:
    """Manim's ``finish``, after the last frame's encoding."""
    before = self.__dict__.pop(PENDING, None)
    if before is not None and not self._closed:
        _encode(self, *before)
    _originals["finish"](self)


def abort(self: Any) -> None:
    """Manim's ``abort``; a frame still converting is dropped."""
    self.__dict__.pop(PENDING, None)
    _originals["abort"](self)


def install() -> None:
    """Patch Manim's partial-movie encoder (idempotent; ``ATTENTION_HELD_FRAMES=0`` skips it)."""
    if _originals or os.environ.get(ENV, "1") == "0":
        return
    from manim.scene.video_segment_encoder import VideoSegmentEncoder

    for name, ours in (("write_frame", write_frame), ("finish", finish), ("abort", abort)):
        _originals[name] = getattr(VideoSegmentEncoder, name)
        setattr(VideoSegmentEncoder, name, ours)


def installed() -> bool:
    return bool(_originals)


def uninstall() -> None:
    if not _originals:
        return
    from manim.scene.video_segment_encoder import VideoSegmentEncoder

    for name, original in _originals.items():
        setattr(VideoSegmentEncoder, name, original)
    _originals.clear()
