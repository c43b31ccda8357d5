from __future__ import annotations

import sys
from pathlib import Path

# The project root holds render.py; make it importable without installing.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


import atexit  # noqa: E402
import re  # noqa: E402
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


def _layouts_kept_across_builds() -> None:
    """Formulas and texts are laid out once per test process, as a render lays them out once per
    LaTeX slot: the scenes' headless builds each set a media folder of their own, under which
    Manim put its LaTeX and Pango files too, so every build compiled every formula again (a
    sixth of a build's time). Manim names each file by a hash of all that shapes it; the slot is
    this process's alone (render_setup.tex_slot), so no two workers write one file."""
    from publish.rendering.render_setup import tex_slot

    slot = tex_slot()
    _manim_config.tex_dir = str(slot)
    _manim_config.text_dir = str(slot.with_name(slot.name + "-texts"))  # Manim empties tex_dir of all but svgs


_layouts_kept_across_builds()


@pytest.fixture(autouse=True, scope="session")
def render_speedups():
    """Scenes are built with Manim's speedups, as render.py builds them: the suite is an entry
    point and installs them once (manim_speedups/__init__.py). They change no pixel
    (tests/test_speedups.py compares frames with plain Manim's); ``ATTENTION_SPEEDUPS=off``
    runs the suite on plain Manim (the equivalence tests still install their own module)."""
    from publish.rendering.render_setup import install_speedups

    install_speedups()
    yield


@pytest.fixture(autouse=True)
def ctrl_c_as_a_terminal_gives_it():
    """Each test starts with Ctrl-C as a shell gives a command: Python's handler, not blocked.

    A pytest-xdist worker may hold SIGINT ignored (seen in the whole suite: SIG_IGN before
    tests/test_notebook.py, whose kernel client then set Python's handler), and an ignored signal
    stays ignored across exec: every process a test started then ignored the Ctrl-C the test sent,
    and the interrupt tests failed in the whole suite only, by which worker ran them after what.
    A handled signal is reset by exec, so the processes a test starts answer Ctrl-C as a user's do."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
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


@pytest.fixture(scope="session")
def seed_site(tmp_path_factory):
    """Seed 000 built once at low quality into a temporary SITE (cold: nothing cached); read by
    tests/test_post.py and, as the staging build it starts from, tests/test_sites.py."""
    from click.testing import CliRunner

    from .test_post import SEED_000

    if SEED_000 is None:
        pytest.skip("the drafts (../shared/seeds) are not beside the repository")
    import render

    site = tmp_path_factory.mktemp("post") / "site"
    result = CliRunner().invoke(render.cli, ["post", str(SEED_000), "--out", str(site), "--quality", "low",
                                             "--jobs", "2"])
    assert result.exit_code == 0, result.output
    return site, result.output


#: Tests that share a build, by node id: each group runs in one test process, so the build is
#: made once, not once in each. A scene's shared default build (helpers.observed_default,
#: ``@pytest.mark.default_build``, or ``default_build("scene")`` on a test of one scene) is read
#: by 2 to 7 tests in up to five modules; the seed post
#: (``seed_site``) by six (test_post.py, test_sites.py); a few modules build a scene (or render) in a
#: module fixture.
#: Spread over both processes by pytest-xdist's "load", each was built in both.
_GROUPS = [
    (re.compile(r"tests/test_pacing_legibility\.py::test_every_scene_is_paced_and_legible\[(?P<scene>\w+)-default\]$"),
     "default-build-{scene}"),
    (re.compile(r"tests/test_role_colours\.py::test_(?:every_labelled_symbol_has_its_role_colour|the_light_theme_too"
                r"|no_blank_moment_and_no_blink)\[(?P<scene>\w+)\]$"), "default-build-{scene}"),
    (re.compile(r"tests/test_scene_notation\.py::test_default_shows_only_the_drafts_symbols\[(?P<scene>\w+)\]$"),
     "default-build-{scene}"),
    # Tests of one scene's module that read its default build (``@pytest.mark.default_build("scene")``).
    (re.compile(r"tests/test_scene_cnn\.py::test_(?:the_zoomed_cell_names_each_number_by_its_filter"
                r"|the_spotlight_is_brightest_on_the_named_object\[(?:dark|light)\]|the_second_a_says_why_it_does_not"
                r"_look_at_the_car|light_theme_and_text_size)$"), "default-build-cnn_attention"),
    (re.compile(r"tests/test_bottleneck_clarity\.py::test_(?:the_default_long_sentence_aligned_and_counted"
                r"|digits_once_and_the_strip_kept_above_the_table)$"), "default-build-bottleneck"),
    (re.compile(r"tests/test_scene_encoder\.py::test_the_filed_state_never_crosses_the_cell_name$"),
     "default-build-encoder"),
    (re.compile(r"tests/test_scenes_part1_decoder\.py::test_decoder_(?:carries_each_state_and_word_to_where_it_is_used"
                r"|labels_keep_apart_and_off_the_columns)$"), "default-build-decoder"),
    (re.compile(r"tests/test_post\.py::test_(?:seed_000_page_in_chromium_plays_every_clip_and_fetches_nothing_else"
                r"|changing_one_number_re_renders_only_its_scene_and_rewrites_the_page"
                r"|a_post_with_nothing_changed_answers_from_files_without_manim"
                r"|seed_000_clips_are_the_readers_light_to_open_and_still_under_reduced_motion)$"), "seed-post"),
    (re.compile(r"tests/test_sites\.py::test_seed_000_(?:in_hugo_and_mkdocs_built_by_the_real_generators"
                r"|in_jekyll_and_quarto_by_their_documented_layout)$"), "seed-post"),
    (re.compile(r"(?P<module>tests/(?:test_scene_attention_process|test_scenes_motion_part2|test_rendering"
                r"|test_publish_outputs|test_scene_attention_learning)\.py)::"), "{module}"),
]


def group_of(nodeid: str) -> str | None:
    """The group of tests sharing a build that ``nodeid`` belongs to (None: on its own)."""
    for pattern, name in _GROUPS:
        match = pattern.match(nodeid)
        if match:
            return name.format(**match.groupdict())
    return None


def pytest_collection_modifyitems(config, items):
    """Real renders first (``@pytest.mark.render``: the seed post, built once per process and
    read by three tests, is the suite's longest set-up): started last, it kept one worker busy
    alone at the end while the other had nothing left. The rest keep their order (a stable sort).

    Every test that reads a shared default build (``@pytest.mark.default_build``) or the seed
    post must be in its scene's group (:data:`_GROUPS`), or the suite stops here: a new such
    test is named in the table, not built twice."""
    items.sort(key=lambda item: item.get_closest_marker("render") is None)
    for item in items:
        params = item.callspec.params if hasattr(item, "callspec") else {}
        marker = item.get_closest_marker("default_build")
        if marker and params.get("numbers", "default") == "default":
            expected = f"default-build-{marker.args[0] if marker.args else params['scene_id']}"
        elif "seed_site" in getattr(item, "fixturenames", ()):
            expected = "seed-post"
        else:
            continue
        if group_of(item.nodeid) != expected:
            raise pytest.UsageError(f"{item.nodeid} shares a build but is not in group {expected!r} "
                                    "(tests/conftest.py _GROUPS)")


def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's "load" (what ``-n 2`` runs), with each group of :data:`_GROUPS` sent to one
    process as one unit of work; every other test is a unit of its own, in collection order
    (real renders first). pytest-xdist's own ``--dist loadgroup`` would do this from
    ``xdist_group`` marks, but with pytest 9 it cannot rename the tests it groups (it sets
    ``item._nodeid``, which pytest 9 no longer reads), so every test stays alone."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedBuilds(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid) or nodeid

    config.option.loadscopereorder = False  # keep collection order, not the biggest unit first
    return SharedBuilds(config, log)
