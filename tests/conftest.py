from __future__ import annotations

import sys
from pathlib import Path

# The project root holds render.py; make it importable without installing.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

import pytest  # noqa: E402
from manim import config as _manim_config  # noqa: E402

# Each test process (each pytest-xdist worker) gets its own Manim media folder, so a formula
# built outside a test's own tempconfig is never compiled by two workers into one LaTeX
# folder at once (one would delete the other's half-written svg), and nothing lands in ./media.
_MEDIA = tempfile.mkdtemp(prefix="attention-tests-media-")
_manim_config.media_dir = _MEDIA
atexit.register(shutil.rmtree, _MEDIA, True)


@pytest.fixture(autouse=True, scope="session")
def render_speedups():
    """Scenes are built with the render path's speedups, as render.py builds them (they change
    no pixel: tests/test_text_cache.py, test_glyph_text.py and test_fast_render.py show it)."""
    from publish import speedups

    speedups.install()
    yield


@pytest.fixture
def texts_seen(monkeypatch):
    """Every text and formula on screen at any audit snapshot, as written
    (numbers excluded): what a reader saw at some moment, not only at the end."""
    from scenes.base import WalkthroughScene

    from .helpers import record_screen

    seen: set[str] = set()
    snapshot = WalkthroughScene._snapshot

    def recording(self):
        snapshot(self)
        record_screen(self, seen)

    monkeypatch.setattr(WalkthroughScene, "_snapshot", recording)
    return seen


def pytest_collection_modifyitems(config, items):
    """Real renders first (``@pytest.mark.render``: the seed post, built once per process and
    read by three tests, is the suite's longest set-up): started last, it kept one worker busy
    alone at the end while the other had nothing left. The rest keep their order (a stable sort)."""
    items.sort(key=lambda item: item.get_closest_marker("render") is None)
