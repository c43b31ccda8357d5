"""The frames a render holds while encoding are bounded by memory, not by a count."""

from __future__ import annotations

import pytest

from publish import pipeline
from publish.pipeline import PIXELS, encoder_bytes, inflight_encoders

MB = 1 << 20


def test_one_encoders_frames_by_hand():
    # 1080p: 9 RGBA frames of 1920*1080*4 bytes (8 queued, 1 being encoded), 44 YUV 4:2:0
    # frames of 1920*1080*1.5 bytes held by libx264.
    assert encoder_bytes(1920, 1080) == 9 * 8_294_400 + 44 * 3_110_400


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
    # The default budget: 1080p60 and 4K hold at most ~400 MB and ~810 MB of frames.
    assert inflight_encoders("high") * encoder_bytes(1920, 1080) <= 450 * MB
    assert inflight_encoders("4k") == 1


def test_the_environment_sets_the_budget_or_the_count(monkeypatch):
    monkeypatch.delenv("ATTENTION_INFLIGHT_ENCODERS", raising=False)
    monkeypatch.setenv("ATTENTION_FRAME_BUDGET_MB", "100")
    assert inflight_encoders("high") == 1 and inflight_encoders("low") == 2
    monkeypatch.setenv("ATTENTION_FRAME_BUDGET_MB", "not a number")
    assert inflight_encoders("high") == inflight_encoders("high", pipeline.FRAME_BUDGET_MB)
    monkeypatch.setenv("ATTENTION_INFLIGHT_ENCODERS", "3")
    assert inflight_encoders("4k") == 3
