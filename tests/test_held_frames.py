"""manim_speedups/held_frames.py: a held frame converted once, row padding set, files as Manim's."""

from __future__ import annotations

import hashlib
import io
from fractions import Fraction

import av
import numpy as np
import pytest
from manim._config.video_encoder import VideoEncoderSpec
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from manim_speedups import held_frames

from .helpers import speedup_off
from publish.rendering.render_setup import X264_OPTIONS

REPEATS = (1, 7, 1, 12)  # drawn, held, drawn, held: as a play and a wait hand them over


@pytest.fixture(autouse=True)
def restore():
    yield from speedup_off(held_frames)


def _frames(width: int, height: int, seed: int = 1) -> list[np.ndarray]:
    """Frames like ours: a dark background with coloured blocks (text), one block
    reaching the right edge (where the row padding starts)."""
    rng = np.random.default_rng(seed)
    frames = []
    for _ in REPEATS:
        image = np.zeros((height, width, 4), np.uint8)
        image[..., 3] = 255
        image[..., :3] = (20, 24, 30)
        for _ in range(60):
            y, x = int(rng.integers(0, height - 12)), int(rng.integers(0, width - 40))
            image[y:y + 10, x:x + 30, :3] = rng.integers(0, 256, 3)
        image[height // 3:height // 2, width - 25:, :3] = (240, 200, 40)
        frames.append(image)
    return frames


def _encode(path, frames, width, height, codec="libx264", container="mp4", pixel_format="yuv420p",
            options=None) -> str:
    spec = VideoEncoderSpec(container, codec, pixel_format, width, height, Fraction(15),
                            tuple((options if options is not None else X264_OPTIONS).items()))
    encoder = VideoSegmentEncoder(target=path, spec=spec)
    for frame, repeat in zip(frames, REPEATS):
        encoder.write_frame(frame, repeat=repeat)
    encoder.finish()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _decoded(path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_without_row_padding_the_file_is_manims_byte_for_byte(tmp_path, size):
    width, height = size
    frames = _frames(width, height)
    manims = _encode(tmp_path / "manim.mp4", frames, width, height)
    held_frames.install()
    ours = _encode(tmp_path / "ours.mp4", frames, width, height)
    assert ours == manims
    assert len(_decoded(tmp_path / "ours.mp4")) == sum(REPEATS)


def test_at_480p_the_pictures_are_manims_within_the_codecs_error(tmp_path):
    # 854 wide: rows of 864 bytes, and libx264 reads the 10 after the picture, so the
    # files differ from Manim's (whose padding is partly unwritten memory); the pictures
    # may differ only by the codec's own error.
    width, height = 854, 480
    frames = _frames(width, height)
    held_frames.install()
    _encode(tmp_path / "ours.mp4", frames, width, height)
    held_frames.uninstall()
    _encode(tmp_path / "manim.mp4", frames, width, height)
    ours, manims = _decoded(tmp_path / "ours.mp4"), _decoded(tmp_path / "manim.mp4")
    assert len(ours) == len(manims) == sum(REPEATS)
    for a, b, source in zip(ours, manims, [f for f, r in zip(frames, REPEATS) for _ in range(r)]):
        assert np.abs(a.astype(int) - b).mean() < 0.5
        assert np.abs(a.astype(int) - source[..., :3]).mean() < 2.0  # and both are the frame drawn


def test_the_converted_frame_is_pyavs_conversion_with_each_row_padded_by_its_last_pixel():
    width, height = 854, 480
    pixels = _frames(width, height)[0]
    container = av.open(io.BytesIO(), mode="w", format="mp4")
    stream = container.add_stream("libx264", rate=15, options=dict(X264_OPTIONS))
    stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
    frame = held_frames.converted(pixels, stream.codec_context)
    reference = av.VideoFrame.from_ndarray(pixels, format="rgba").reformat(format="yuv420p")
    for ours, theirs in zip(frame.planes, reference.planes):
        rows = np.frombuffer(ours, np.uint8).reshape(ours.height, ours.line_size)
        expected = np.frombuffer(theirs, np.uint8).reshape(theirs.height, theirs.line_size)
        assert ours.line_size > ours.width  # 864 > 854, 432 > 427
        assert np.array_equal(rows[:, :ours.width], expected[:, :theirs.width])
        assert (rows[:, ours.width:] == rows[:, ours.width - 1:ours.width]).all()
    container.close()


@pytest.mark.parametrize("size", [(854, 480), (1920, 1080)])
def test_a_drawn_frame_is_read_where_it_is_and_converted_to_the_same_planes(monkeypatch, size):
    # The camera's frames are C-contiguous RGBA: swscale reads them in place, without PyAV's
    # row-by-row copy (from_ndarray), and gives the planes the copy would have given.
    width, height = size
    pixels = _frames(width, height, seed=7)[1]
    container = av.open(io.BytesIO(), mode="w", format="mp4")
    stream = container.add_stream("libx264", rate=15, options=dict(X264_OPTIONS))
    stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
    reference = av.VideoFrame.from_ndarray(pixels, format="rgba").reformat(format="yuv420p")
    monkeypatch.setattr(av.VideoFrame, "from_ndarray", lambda *a, **k: pytest.fail("copied the frame"))
    frame = held_frames.converted(pixels, stream.codec_context)
    for ours, theirs in zip(frame.planes, reference.planes):
        rows = np.frombuffer(ours, np.uint8).reshape(ours.height, ours.line_size)
        expected = np.frombuffer(theirs, np.uint8).reshape(theirs.height, theirs.line_size)
        assert np.array_equal(rows[:, :ours.width], expected[:, :theirs.width])
    container.close()


def test_a_frame_that_is_not_one_block_of_memory_is_copied_first_and_converted_the_same():
    width, height = 640, 360
    wide = np.zeros((height, width + 8, 4), np.uint8)
    wide[:, 4:4 + width] = _frames(width, height, seed=3)[0]
    view = wide[:, 4:4 + width]  # rows 8 pixels apart: not C-contiguous
    assert not view.flags.c_contiguous
    container = av.open(io.BytesIO(), mode="w", format="mp4")
    stream = container.add_stream("libx264", rate=15, options=dict(X264_OPTIONS))
    stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
    ours = held_frames.converted(view, stream.codec_context)
    theirs = held_frames.converted(np.ascontiguousarray(view), stream.codec_context)
    assert [bytes(p) for p in ours.planes] == [bytes(p) for p in theirs.planes]
    container.close()


def test_a_held_frame_is_converted_once(tmp_path, monkeypatch):
    calls = []
    real = held_frames.converted
    monkeypatch.setattr(held_frames, "converted", lambda *a: calls.append(1) or real(*a))
    held_frames.install()
    frames = _frames(640, 360)
    _encode(tmp_path / "a.mp4", frames, 640, 360)
    assert len(calls) == len(REPEATS)  # 4 conversions for 21 frames
    assert len(_decoded(tmp_path / "a.mp4")) == sum(REPEATS)


def test_each_frame_converts_while_the_one_before_it_encodes(tmp_path, monkeypatch):
    # The conversion of frame k runs on a conversion thread; libx264 gets frame k - 1 meanwhile,
    # and the last frame at finish(): every frame, in order, on the encoder's own thread.
    import threading

    held_frames.install()
    where, encoded = [], []
    real_convert, real_encode = held_frames.converted, held_frames._encode
    monkeypatch.setattr(held_frames, "converted",
                        lambda *a: where.append(threading.current_thread().name) or real_convert(*a))
    monkeypatch.setattr(held_frames, "_encode", lambda self, future, repeat: encoded.append(repeat)
                        or real_encode(self, future, repeat))
    frames = _frames(320, 180)
    spec = VideoEncoderSpec("mp4", "libx264", "yuv420p", 320, 180, Fraction(15), tuple(X264_OPTIONS.items()))
    encoder = VideoSegmentEncoder(target=tmp_path / "a.mp4", spec=spec)
    for i, (frame, repeat) in enumerate(zip(frames, REPEATS)):
        encoder.write_frame(frame, repeat=repeat)
        assert encoded == list(REPEATS[:i])  # the frame just handed over is still converting
    encoder.finish()
    assert encoded == list(REPEATS)
    assert all(name.startswith("frame-converter") for name in where) and len(where) == len(REPEATS)
    assert len(_decoded(tmp_path / "a.mp4")) == sum(REPEATS)


def test_a_failed_conversion_is_manims_encode_error_and_abort_drops_the_frame_converting(tmp_path, monkeypatch):
    held_frames.install()
    spec = VideoEncoderSpec("mp4", "libx264", "yuv420p", 64, 48, Fraction(15), tuple(X264_OPTIONS.items()))
    encoder = VideoSegmentEncoder(target=tmp_path / "a.mp4", spec=spec)
    frame = np.zeros((48, 64, 4), np.uint8)
    monkeypatch.setattr(held_frames, "converted", lambda *a: (_ for _ in ()).throw(OSError("no memory")))
    encoder.write_frame(frame)
    with pytest.raises(RuntimeError, match="Failed to encode video segment .*no memory"):
        encoder.write_frame(frame)  # the first frame's conversion failed: reported on the next
    encoder.abort()  # the second frame, still pending, is dropped with the file
    assert not (tmp_path / "a.mp4").exists()


def test_transparent_webm_is_left_to_manim(tmp_path, monkeypatch):
    held_frames.install()
    monkeypatch.setattr(held_frames, "converted", lambda *a: pytest.fail("converted a webm frame"))
    frames = _frames(320, 180)
    _encode(tmp_path / "a.webm", frames, 320, 180, codec="libvpx-vp9", container="webm",
            pixel_format="yuva420p", options={"threads": "1"})
    assert len(_decoded(tmp_path / "a.webm")) == sum(REPEATS)


def test_manims_checks_still_apply(tmp_path):
    held_frames.install()
    spec = VideoEncoderSpec("mp4", "libx264", "yuv420p", 64, 48, Fraction(15), tuple(X264_OPTIONS.items()))
    encoder = VideoSegmentEncoder(target=tmp_path / "a.mp4", spec=spec)
    with pytest.raises(ValueError, match="shape"):
        encoder.write_frame(np.zeros((10, 10, 4), np.uint8), repeat=3)
    with pytest.raises(ValueError, match="positive"):
        encoder.write_frame(np.zeros((48, 64, 4), np.uint8), repeat=0)
    encoder.abort()


def test_off_switch(monkeypatch):
    monkeypatch.setenv(held_frames.ENV, "0")
    held_frames.install()
    assert not held_frames.installed()
    assert VideoSegmentEncoder.write_frame is not held_frames.write_frame
