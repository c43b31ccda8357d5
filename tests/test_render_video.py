"""One real low-quality render, checked as a video file; and atomic output."""

from __future__ import annotations


import av
import pytest

import render
from attention_core import compute_trace, load_numbers
from scenes import SCENES


def test_encoder_renders_a_real_h264_video(tmp_path):
    path = render.render_scene("encoder", compute_trace(load_numbers()), tmp_path, "low", "mp4")
    assert path == tmp_path / "encoder.mp4"
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264"
        assert (stream.codec_context.width, stream.codec_context.height) == (854, 480)
        frames = sum(1 for _ in container.decode(stream))
        duration = float(stream.duration * stream.time_base)
    assert frames > 100
    assert duration > 10
    # Only the finished file is left: no temporary folders or partial files.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["encoder.mp4"]


def test_a_failed_render_keeps_the_earlier_file(tmp_path, monkeypatch):
    good = tmp_path / "encoder.png"
    good.write_bytes(b"an earlier good render")

    def broken(self):
        raise RuntimeError("boom midway")

    monkeypatch.setattr(SCENES["encoder"], "construct", broken)
    with pytest.raises(RuntimeError, match="boom"):
        render.render_scene("encoder", compute_trace(load_numbers()), tmp_path, "low", "png")
    assert good.read_bytes() == b"an earlier good render"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["encoder.png"]


def test_png_is_the_last_frame_as_a_still(tmp_path):
    path = render.render_scene("encoder", compute_trace(load_numbers()), tmp_path, "low", "png")
    from PIL import Image

    with Image.open(path) as img:
        assert img.size == (854, 480)
        # Not a blank frame: many distinct colours (text, cells, arrows).
        assert len(img.convert("RGB").getcolors(maxcolors=1 << 16) or []) > 50
