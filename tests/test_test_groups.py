"""tests/conftest.py: the tests that share a build are grouped onto one test process."""

from __future__ import annotations

import pytest

from .conftest import group_of


@pytest.mark.parametrize("nodeid, group", [
    ("tests/test_pacing_legibility.py::test_every_scene_is_paced_and_legible[attention_process-default]",
     "default-build-attention_process"),
    ("tests/test_pacing_legibility.py::test_every_scene_is_paced_and_legible[attention_process-varied]", None),
    ("tests/test_role_colours.py::test_every_labelled_symbol_has_its_role_colour[cnn_attention]",
     "default-build-cnn_attention"),
    ("tests/test_role_colours.py::test_the_light_theme_too[decoder]", "default-build-decoder"),
    ("tests/test_role_colours.py::test_no_blank_moment_and_no_blink[encoder]", "default-build-encoder"),
    ("tests/test_scene_notation.py::test_default_shows_only_the_drafts_symbols[bottleneck]", "default-build-bottleneck"),
    ("tests/test_scene_notation.py::test_the_untrained_fallback_goes_through_the_same_scene[encoder]", None),
    ("tests/test_post.py::test_changing_one_number_re_renders_only_its_scene_and_rewrites_the_page", "seed-post"),
    ("tests/test_post.py::test_the_shipped_table_maps_every_picture_and_clip_of_seed_000", None),
    ("tests/test_scene_attention_process.py::test_trained_twelve_words", "tests/test_scene_attention_process.py"),
    ("tests/test_scenes_motion_part2.py::test_cnn_poster_labels_read_as_two_lines[two-rows]",
     "tests/test_scenes_motion_part2.py"),
    ("tests/test_scene_cnn.py::test_default_numbers_every_frame", None),
    ("tests/test_scene_cnn.py::test_the_spotlight_is_brightest_on_the_named_object[light]",
     "default-build-cnn_attention"),
    ("tests/test_bottleneck_clarity.py::test_digits_once_and_the_strip_kept_above_the_table", "default-build-bottleneck"),
    ("tests/test_scenes_part1_decoder.py::test_decoder_labels_keep_apart_and_off_the_columns", "default-build-decoder"),
])
def test_a_test_sharing_a_build_is_in_its_group_and_others_stand_alone(nodeid, group):
    assert group_of(nodeid) == group


class _Item:
    """What the collection hook reads of a test."""

    def __init__(self, nodeid, params=None, marks=(), fixtures=()):
        # A mark is its name, or (name, its arguments): default_build("cnn_attention").
        self.marks = dict(m if isinstance(m, tuple) else (m, ()) for m in marks)
        self.nodeid, self.fixturenames = nodeid, list(fixtures)
        if params is not None:
            self.callspec = type("CallSpec", (), {"params": params})()

    def get_closest_marker(self, name):
        return pytest.mark.__getattr__(name)(*self.marks[name]).mark if name in self.marks else None


def test_a_test_reading_a_shared_build_outside_its_group_stops_the_collection():
    from .conftest import pytest_collection_modifyitems

    good = [_Item("tests/test_role_colours.py::test_no_blank_moment_and_no_blink[decoder]", {"scene_id": "decoder"},
                  ["default_build"]),
            _Item("tests/test_pacing_legibility.py::test_every_scene_is_paced_and_legible[decoder-varied]",
                  {"scene_id": "decoder", "numbers": "varied"}, ["default_build"]),
            _Item("tests/test_post.py::test_a_post_with_nothing_changed_answers_from_files_without_manim",
                  fixtures=["seed_site", "tmp_path"]),
            _Item("tests/test_cli.py::test_help", marks=["render"]),
            _Item("tests/test_scene_cnn.py::test_the_second_a_says_why_it_does_not_look_at_the_car",
                  marks=[("default_build", ("cnn_attention",))])]
    pytest_collection_modifyitems(None, good)
    assert good[0].nodeid.startswith("tests/test_cli.py")  # real renders first
    for stray in (_Item("tests/test_new.py::test_reads_the_default_build[decoder]", {"scene_id": "decoder"},
                        ["default_build"]),
                  _Item("tests/test_post.py::test_something_new_on_the_seed", fixtures=["seed_site"]),
                  _Item("tests/test_scene_cnn.py::test_something_new_on_the_default", marks=[("default_build",
                                                                                            ("cnn_attention",))])):
        with pytest.raises(pytest.UsageError, match="shares a build but is not in group"):
            pytest_collection_modifyitems(None, [stray])
