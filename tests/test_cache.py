"""The render cache's records: an output is current only if its bytes are the ones recorded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from publish import freshness
from publish.rendering import cache

KEY = {"scene": "tiny", "code": "c0de", "numbers": "n0", "format": "mp4"}


def _render_fake(out: Path, data: bytes, steps: dict[str, bytes] | None = None) -> None:
    (out / "tiny.mp4").write_bytes(data)
    for name, content in (steps or {}).items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(content)
    cache.write_record(out, "tiny", "mp4", KEY, list(steps or {}))


def test_a_same_size_file_of_other_bytes_is_stale(tmp_path):
    data = bytes(range(256)) * 40
    _render_fake(tmp_path, data)
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY) is None
    assert freshness.why_stale(tmp_path, "tiny", "mp4", {**KEY, "numbers": "n1"})
    (tmp_path / "tiny.mp4").write_bytes(bytes(len(data)))  # zero-filled, as a full disk leaves it
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY)
    (tmp_path / "tiny.mp4").write_bytes(data)  # the recorded bytes again
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY) is None


def test_the_record_holds_the_sha256_of_each_file(tmp_path):
    data, step = b"movie bytes" * 100, b"step bytes" * 10
    _render_fake(tmp_path, data, {"tiny/01-first.mp4": step})
    record = json.loads(cache.record_path(tmp_path, "tiny", "mp4").read_text())
    assert record["sha256"] == hashlib.sha256(data).hexdigest()
    assert record["hashes"] == {"tiny/01-first.mp4": hashlib.sha256(step).hexdigest()}
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY) is None
    (tmp_path / "tiny" / "01-first.mp4").write_bytes(bytes(len(step)))  # a step file zero-filled
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY)


def test_a_record_without_hashes_is_stale(tmp_path):
    # Written before hashes were kept: its size alone cannot tell a zero-filled file.
    data = b"x" * 1000
    (tmp_path / "tiny.mp4").write_bytes(data)
    path = cache.record_path(tmp_path, "tiny", "mp4")
    path.parent.mkdir()
    path.write_text(json.dumps({"key": KEY, "size": len(data), "files": {}}))
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY)


def test_file_digest_reads_large_files_in_blocks(tmp_path):
    data = bytes(range(256)) * (3 * 4096 + 7)  # over 3 MiB: several blocks and a tail
    (tmp_path / "big").write_bytes(data)
    assert cache.file_digest(tmp_path / "big") == hashlib.sha256(data).hexdigest()


def test_a_stale_file_says_why_in_words(tmp_path):
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY) == "not rendered yet"
    data = b"movie bytes" * 100
    _render_fake(tmp_path, data)
    assert freshness.why_stale(tmp_path, "tiny", "mp4", {**KEY, "numbers": "n1"}) == "the numbers it shows changed"
    assert freshness.why_stale(tmp_path, "tiny", "mp4", {**KEY, "code": "c0ffee", "theme": "light"}) == \
        "its code changed, another theme"
    assert freshness.why_stale(tmp_path, "tiny", "mp4", {**KEY, "steps": "True"}) == "option steps changed"
    (tmp_path / "tiny.mp4").unlink()
    assert freshness.why_stale(tmp_path, "tiny", "mp4", KEY) == "its file is missing or changed on disk"
