"""The frames a render holds while encoding are bounded by memory, not by a count."""

from __future__ import annotations

import pytest

from publish.rendering import pipeline
from publish.rendering.pipeline import PIXELS, encoder_bytes, inflight_encoders

MB = 1 << 20


def test_one_encoders_frames_by_hand():
    # 1080p: 9 RGBA frames of 1920*1080*4 bytes (8 queued, 1 being encoded) and libx264's
    # 217 MB measured with a 10-frame look-ahead (105 bytes a pixel).
    assert encoder_bytes(1920, 1080) == 9 * 8_294_400 + 105 * 2_073_600
    assert 275 * MB < encoder_bytes(1920, 1080) < 285 * MB


@pytest.mark.parametrize("quality", list(PIXELS))
@pytest.mark.parametrize("budget", [100, 450, 1000, 4000])
def test_the_encoders_in_flight_fit_the_budget(quality, budget, monkeypatch):
    monkeypatch.delenv("ATTENTION_INFLIGHT_ENCODERS", raising=False)
    n = inflight_encoders(quality, budget)
    held = n * encoder_bytes(*PIXELS[quality])
    assert 1 <= n <= pipeline.MAX_INFLIGHT
    assert held <= budget * MB or n == 1  # one is always allowed: the render must go on
    if n < pipeline.MAX_INFLIGHT:  # and no fewer than fit
        assert held + encoder_bytes(*PIXELS[quality]) > budget * MB


def test_larger_frames_never_get_more_encoders(monkeypatch):
    monkeypatch.delenv("ATTENTION_INFLIGHT_ENCODERS", raising=False)
    counts = [inflight_encoders(q) for q in ("low", "medium", "high", "4k")]
    assert counts == sorted(counts, reverse=True)
    # The default budget: 2 encoders at 1080p60 (~585 MB of frames), 1 at 4K (~1.17 GB).
    assert inflight_encoders("high") == 2
    assert inflight_encoders("4k") == 1


def test_the_environment_sets_the_budget_or_the_count(monkeypatch):
    monkeypatch.delenv("ATTENTION_INFLIGHT_ENCODERS", raising=False)
    monkeypatch.setenv("ATTENTION_FRAME_BUDGET_MB", "100")
    assert inflight_encoders("high") == 1 and inflight_encoders("low") == 1
    monkeypatch.setenv("ATTENTION_FRAME_BUDGET_MB", "200")
    assert inflight_encoders("low") == 3
    monkeypatch.setenv("ATTENTION_FRAME_BUDGET_MB", "not a number")
    assert inflight_encoders("high") == inflight_encoders("high", pipeline.FRAME_BUDGET_MB)
    monkeypatch.setenv("ATTENTION_INFLIGHT_ENCODERS", "3")
    assert inflight_encoders("4k") == 3


def test_a_digit_int_cannot_read_in_the_environment_is_ignored(monkeypatch):
    # "²" and "٣" pass str.isdigit but not int(): the default, not a traceback.
    monkeypatch.delenv("ATTENTION_INFLIGHT_ENCODERS", raising=False)
    default = inflight_encoders("high", pipeline.FRAME_BUDGET_MB)
    monkeypatch.setenv("ATTENTION_FRAME_BUDGET_MB", "²")
    assert inflight_encoders("high") == default
    monkeypatch.setenv("ATTENTION_INFLIGHT_ENCODERS", "٣")
    assert inflight_encoders("high") == default


def test_the_mp4_encoder_looks_10_frames_ahead_on_one_thread_with_the_veryfast_preset():
    from publish.rendering.pipeline import encoder_options

    assert encoder_options() == {"threads": "1", "rc-lookahead": "10", "preset": "veryfast"}
    assert encoder_options(transparent=True) == {"threads": "1"}  # libvpx has no rc-lookahead
