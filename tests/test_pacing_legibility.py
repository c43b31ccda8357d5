"""Every scene, read as a reader of the post would: paced and legible.

For the default numbers and a varied set, each scene is built headless with
the audit looking at the end *and the middle* of every animation, and the
rules of ``scenes/base.py`` checked on its timeline:

- pacing: captions stay 1 s per 3 words, each result kind the scene shows
  is followed by a still second, the first frame shows the title, the last
  frame is held 4 s;
- legibility: no text with capitals under 12 px at 480p, nothing outside
  the frame, no two texts overlapping at any sampled moment.
"""

from __future__ import annotations

import pytest

from scenes import SCENES
from scenes.base import FINAL_HOLD, RESULT_PAUSE, WalkthroughScene, reading_time

from .helpers import MIN_TEXT_PX, build_scene, load_default_trace, observed_default, trace_from, varied


VARIED = varied(
    seed=7,
    sentences={"source": "The black cat eats fish", "target": "le chat noir mange du poisson"},
)


#: The clips that meet every clarity rule of STYLE.md §4 (``Clarity.faults``: numbers legible at
#: once, the one close-up, the ending's hold, still stretches, nothing leaving to come back, the
#: 14 px floor, the frame's margin), on the default and the varied numbers. Issue 31 brings the
#: others in one by one; a clip listed here that breaks a rule fails, and so does one not listed
#: that meets them all (add it). One line per clip, grouped as the clips are reworked.
MEETS_CLARITY = {
    # Part 1, the encoder-decoder
    "seq2seq_overview",
    "word_embeddings",
    "encoder",
    "decoder",
    "output_mapping",

    # Part 1, the process of attention
    "attention_process",

    # Part 1 and 2: the clips around attention
    "hidden_state_map",
    "bottleneck",
    "length_curve",
    "attention_learning",
    "cnn_attention",

    # Part 2 and the worked example
    "dot_product",
    "dot_product_attention",
    "multi_query_attention",
    "worked_example",
}


@pytest.fixture(scope="module")
def traces():
    return {"default": load_default_trace(), "varied": trace_from(VARIED)}


@pytest.mark.parametrize("numbers", ["default", "varied"])
@pytest.mark.parametrize("scene_id", sorted(SCENES))
@pytest.mark.default_build
def test_every_scene_is_paced_and_legible(traces, scene_id, numbers):
    if numbers == "default":  # the default build, with every check on, is shared (helpers.observed_default)
        scene = observed_default(scene_id, "dark").scene
    else:
        scene = build_scene(scene_id, traces[numbers], min_text_px=MIN_TEXT_PX, sample_transitions=True,
                            timeline=True)
    assert scene.shown_results, f"{scene_id} declares no result to pause on"
    assert scene.pacing_faults() == []
    assert scene.audit.faults == []
    assert scene.audit.snapshots > 2 * len(scene.motion)  # the middle and the end of every animation
    faults = scene.clarity().faults()
    if scene_id in MEETS_CLARITY:
        assert faults == []
    else:
        assert faults, f"{scene_id} meets every clarity rule: add it to MEETS_CLARITY"


# -- the rules themselves, on a scene made for the test ------------------------------------

class _Paced(WalkthroughScene):
    """A title, a caption of ``words`` words held ``hold`` s, a result, a final hold."""

    scene_id = "_paced"
    shown_results = ("score",)

    def __init__(self, *a, words=6, hold=2.0, pause=RESULT_PAUSE, final=FINAL_HOLD, fade_title=False, **kw):
        self.words, self.hold, self.pause, self.final, self.fade_title = words, hold, pause, final, fade_title
        super().__init__(*a, **kw)

    def construct(self) -> None:
        from manim import FadeIn, FadeOut, Square, Text

        title = Text("A title", font_size=30).to_edge([0, 1, 0])
        if self.fade_title:
            self.play(FadeIn(title))
        else:
            self.add(title)
        cap = Text(" ".join(["word"] * self.words), font_size=24).to_edge([0, -1, 0])
        self.play(FadeIn(cap), run_time=0.5)
        self.wait(self.hold)
        self.play(FadeOut(cap), run_time=0.5)
        self.play(FadeIn(Square()), run_time=0.5)
        self.pause_on_result("score", self.pause)
        self.play(FadeIn(Square().shift([2, 0, 0])), run_time=0.5)
        self.wait(self.final)


def _faults(**kw) -> list[str]:
    from manim import tempconfig

    from scenes.base import Timeline

    with tempconfig({"dry_run": True, "quality": "low_quality", "verbosity": "ERROR", "progress_bar": "none"}):
        scene = _Paced(load_default_trace(), skip_animations=True, **kw)
        scene.timeline = Timeline()
        scene.render()
    return scene.pacing_faults()


def test_a_well_paced_clip_has_no_fault():
    # 6 words need 2 s; the caption is on screen 0.5 + 2.0 + 0.5 = 3 s.
    assert reading_time("one two three four five six") == 2.0
    assert _faults() == []


@pytest.mark.parametrize("kw, expected", [
    ({"words": 15, "hold": 2.0}, "caption"),          # 15 words need 5 s, shown 3 s
    ({"pause": 0.4}, "'score' at"),                    # still for 0.4 s after the result
    ({"final": 1.5}, "last frame is held 1.50 s"),    # poster held 1.5 s
    ({"fade_title": True}, "first frame shows no text"),
])
def test_each_rule_catches_its_fault(kw, expected):
    faults = _faults(**kw)
    assert len(faults) == 1 and expected in faults[0], faults


def test_a_declared_result_never_paused_on_is_a_fault(monkeypatch):
    monkeypatch.setattr(_Paced, "shown_results", ("score", "weights"))
    assert _faults() == ["the result 'weights' is never paused on"]


def test_the_audit_sees_a_text_crossing_another_mid_animation():
    from manim import Text, tempconfig

    class Crossing(WalkthroughScene):
        scene_id = "_crossing"

        def construct(self) -> None:
            a = Text("left", font_size=30).shift([-3, 0, 0])
            b = Text("right", font_size=30).shift([3, 0, 0])
            self.add(a, b)
            # a passes over b's place and comes back: the ends are clear, the middle is not.
            self.play(a.animate.shift([6, 0, 0]), b.animate.shift([-6, 0, 0]))

    def faults(sample: bool) -> list[str]:
        with tempconfig({"dry_run": True, "quality": "low_quality", "verbosity": "ERROR", "progress_bar": "none"}):
            scene = Crossing(load_default_trace(), audit=True, skip_animations=True)
            scene.audit.sample_transitions = sample
            scene.render()
        return scene.audit.faults

    assert faults(False) == []
    assert any("texts overlap" in f for f in faults(True))
