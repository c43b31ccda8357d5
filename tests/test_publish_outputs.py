"""What a post embeds: svg stills, named steps, draft names, captions, transparency, gif background.

Real renders of the small test scenes (``tests/render_scenes.py``) at low
quality. ``tiny_steps`` opens with a sentence (no step), then has the steps
"Show the vector" (1.0-2.5 s) and "Final: softmax!" (2.5-3.5 s).
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import av
import cairosvg
import numpy as np
import pytest
from PIL import Image

from publish import freshness
from publish.rendering import names
from publish.rendering.captions import to_webvtt, vtt_time, window
from publish.rendering.encode import GIF_HOLD_MS
from publish.targets.gallery import gallery_html
from publish.rendering.pipeline import OutputOptions, run_renders
from scenes import DARK, LIGHT

from . import render_scenes
from .helpers import trace_from, varied

FPS = 15  # quality low
FRAME = 1 / FPS


def _run(out: Path, ids, formats, theme="light", options=OutputOptions(), force=False):
    lines: list[str] = []
    out.mkdir(parents=True, exist_ok=True)
    summary = run_renders(list(ids), trace_from(varied()), out, "low", tuple(formats), theme, 1, force,
                          echo=lines.append, registry=render_scenes.registry(), options=options)
    return {r.scene_id: r.status for r in summary.results}, summary, lines


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))


def _raster(svg: Path) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(cairosvg.svg2png(url=str(svg)))).convert("RGBA"))


def _png(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGBA"))


def _premultiplied(a: np.ndarray) -> np.ndarray:
    a = a.astype(float)
    if a.shape[2] == 4:
        # Compare what a page shows: colour times coverage (an edge pixel's
        # colour alone is ill-defined where it is almost transparent).
        a = np.concatenate([a[..., :3] * a[..., 3:] / 255, a[..., 3:]], axis=2)
    return a


def _differs(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels that differ by more than anti-aliasing could explain."""
    n = min(a.shape[2], b.shape[2])
    return float((np.abs(_premultiplied(a)[..., :n] - _premultiplied(b)[..., :n]).max(axis=2) > 32).mean())


def _frames(path: Path) -> list[tuple[float, np.ndarray]]:
    with av.open(str(path)) as c:
        return [(float(f.time), f.to_ndarray(format="rgb24")) for f in c.decode(c.streams.video[0])]


def _cues(path: Path) -> list[tuple[str, float, float]]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("WEBVTT\n")
    out = []
    for block in text.split("\n\n")[1:]:
        lines = block.strip().splitlines()
        if not lines:
            continue
        start, end = re.fullmatch(r"(\S+) --> (\S+)", lines[1]).groups()
        secs = [sum(float(p) * m for p, m in zip(t.split(":"), (3600, 60, 1))) for t in (start, end)]
        out.append((lines[2], *secs))
    return out


@pytest.fixture(scope="module")
def light(tmp_path_factory):
    """tiny_steps and tiny_poster, light theme, with steps, under draft-style names."""
    out = tmp_path_factory.mktemp("light")
    mp = pytest.MonkeyPatch()
    mp.setitem(names.DRAFT_NAMES, "tiny_steps", "Tiny_Steps")
    try:
        status, summary, _ = _run(out, ["tiny_steps", "tiny_poster"], ("mp4", "gif", "png", "svg", "vtt"),
                                  options=OutputOptions(steps=True, naming="draft"))
        assert status == {"tiny_steps": "rendered", "tiny_poster": "rendered"}, summary.line()
        yield out
    finally:
        mp.undo()


# -- svg ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["Tiny_Steps", "tiny_poster", "Tiny_Steps/01-show-the-vector",
                                  "Tiny_Steps/02-final-softmax"])
def test_svg_is_valid_vector_and_rasterises_to_the_png(light, name):
    svg = light / f"{name}.svg"
    root = ET.parse(svg).getroot()  # well-formed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("854px", "480px", "0 0 854 480")
    text = svg.read_text()
    # Text as outlines: no text elements, no fonts, no embedded raster of the frame.
    assert "<text" not in text and "font-family" not in text and "<image" not in text
    assert text.count("<path") > 3
    raster, still = _raster(svg), _png(light / f"{name}.png")
    assert raster.shape == still.shape == (480, 854, 4)
    assert tuple(raster[2, 2, :3]) == _rgb(LIGHT.background)
    assert _differs(raster, still) < 0.001
    assert np.abs(raster.astype(int) - still.astype(int)).mean() < 1.0


def test_svg_in_the_dark_theme_and_transparent(tmp_path):
    status, summary, _ = _run(tmp_path / "dark", ["tiny"], ("png", "svg"), theme="dark")
    assert status == {"tiny": "rendered"}, summary.line()
    raster, still = _raster(tmp_path / "dark" / "tiny.svg"), _png(tmp_path / "dark" / "tiny.png")
    assert tuple(raster[2, 2, :3]) == _rgb(DARK.background)
    assert _differs(raster, still) < 0.001

    status, summary, _ = _run(tmp_path / "clear", ["tiny"], ("png", "svg", "webm"), theme="dark",
                              options=OutputOptions(transparent=True))
    assert status == {"tiny": "rendered"}, summary.line()
    clear = tmp_path / "clear"
    png, raster = _png(clear / "tiny.png"), _raster(clear / "tiny.svg")
    for picture in (png, raster):
        assert picture[2, 2, 3] == 0  # no background
        assert (picture[..., 3] == 255).mean() > 0.0003  # the drawing is there, opaque
    # Where both are opaque they show the same colours as the opaque still.
    opaque = (png[..., 3] == 255) & (raster[..., 3] == 255)
    assert np.abs(png[opaque][:, :3].astype(int) - still[opaque][:, :3].astype(int)).max(axis=1).mean() < 2
    assert _differs(png, raster) < 0.001
    with av.open(str(clear / "tiny.webm")) as c:
        stream = c.streams.video[0]
        assert stream.codec_context.name == "vp9" and stream.metadata.get("alpha_mode") == "1"


# -- steps ---------------------------------------------------------------------------

def test_steps_are_written_per_named_section(light):
    step_dir = light / "Tiny_Steps"
    assert sorted(p.name for p in step_dir.iterdir()) == [
        f"{n}.{f}" for n in ("01-show-the-vector", "02-final-softmax") for f in ("mp4", "png", "svg", "vtt")]
    # A scene without sections has no steps.
    assert not (light / "tiny_poster").exists()
    main = _frames(light / "Tiny_Steps.mp4")
    first, second = _frames(step_dir / "01-show-the-vector.mp4"), _frames(step_dir / "02-final-softmax.mp4")
    # The step clips are the named parts of the clip: 1.5 s and 1 s; the opening 1 s is no step.
    assert abs(len(first) * FRAME - 1.5) <= 2 * FRAME and abs(len(second) * FRAME - 1.0) <= 2 * FRAME
    assert abs(len(main) - (len(first) + len(second)) - FPS) <= 2
    # A step's still is its last frame: the last frame of its clip, and for the last step the poster.
    for clip, still in ((first, "01-show-the-vector.png"), (second, "02-final-softmax.png")):
        png = _png(step_dir / still)[..., :3]
        assert _differs(png, clip[-1][1]) < 0.002
    assert _differs(_png(step_dir / "01-show-the-vector.png"), _png(step_dir / "02-final-softmax.png")) > 0.001
    assert (step_dir / "02-final-softmax.png").read_bytes() == (light / "Tiny_Steps.png").read_bytes()


def test_draft_names_are_one_table():
    assert names.output_stem("cnn_attention", "draft") == "CNN_attention"
    assert names.output_stem("seq2seq_overview", "draft") == "seq2seq_basic"
    assert names.output_stem("cnn_attention", "id") == "cnn_attention"
    assert names.output_stem("worked_example", "draft") == "worked_example"  # the draft names no file for it
    from scenes import SCENES

    # (The module's fixture adds a draft name for the test scene tiny_steps.)
    assert set(names.DRAFT_NAMES) - {"tiny_steps"} <= set(SCENES)
    # The names the draft links to, as written there.
    draft = next(Path(__file__).resolve().parents[2].glob("shared/seeds/000_*.txt"), None) or next(
        Path("/work/shared/seeds").glob("000_*.txt"), None)
    if draft is not None:
        text = draft.read_text(encoding="utf-8")
        for scene_id, stem in names.DRAFT_NAMES.items():
            if scene_id == "tiny_steps":
                continue
            assert re.search(rf"[/(\[]{re.escape(stem)}\.(svg|mp4)", text), stem
    assert names.step_stem(3, "Step 3: Softmax (rows)") == "03-step-3-softmax-rows"


# -- captions ---------------------------------------------------------------------------

def test_captions_follow_the_sentences_on_screen(light):
    cues = _cues(light / "Tiny_Steps.vtt")
    # The script: the opening fades in at 0 and out over 1-2 s; the second
    # sentence fades in at 1 s and out from 2.5 s (0.5 s); labels are no captions.
    assert [c[0] for c in cues] == ["the opening sentence here", "the context vector appears"]
    (_, a0, a1), (_, b0, b1) = cues
    assert abs(a0) < 1e-6 and abs(a1 - 2.0) <= 2 * FRAME
    assert abs(b0 - 1.0) <= 2 * FRAME and abs(b1 - 3.0) <= 2 * FRAME
    assert b1 <= len(_frames(light / "Tiny_Steps.mp4")) * FRAME + 1e-6
    # A step's captions are the part of the clip's captions in its time.
    first = _cues(light / "Tiny_Steps" / "01-show-the-vector.vtt")
    assert [c[0] for c in first] == ["the opening sentence here", "the context vector appears"]
    assert abs(first[0][2] - (a1 - 1.0)) <= 2 * FRAME and first[1][1] == 0
    second = _cues(light / "Tiny_Steps" / "02-final-softmax.vtt")
    assert [c[0] for c in second] == ["the context vector appears"]
    # tiny shows no sentence of three words: an empty but valid file.
    assert _cues(light / "tiny_poster.vtt") == []


def test_webvtt_format_by_hand():
    assert vtt_time(3723.4567) == "01:02:03.457"
    text = to_webvtt([("a < b & c", 0.0, 1.5)])
    assert text == "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\na &lt; b &amp; c\n"
    assert window([("x", 1.0, 4.0), ("y", 0.0, 0.5)], 2.0, 3.0) == [("x", 0.0, 1.0)]


# -- gif -----------------------------------------------------------------------------

def test_gif_sits_on_the_exact_background_and_holds_its_last_frame(light):
    with Image.open(light / "Tiny_Steps.gif") as im:
        assert tuple(im.convert("RGB").getpixel((2, 2))) == _rgb(LIGHT.background)
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
    assert durations[-1] >= GIF_HOLD_MS
    assert max(durations[:-1]) < 200


# -- cache ---------------------------------------------------------------------------

def test_a_re_render_says_why_and_a_first_render_does_not(light, tmp_path):
    _, _, first = _run(tmp_path, ["tiny_steps"], ("png",))
    assert "tiny_steps: rendering png (low, light)" in first  # nothing to explain
    (tmp_path / "tiny_steps.png").write_bytes(b"edited by hand")
    _, _, second = _run(tmp_path, ["tiny_steps"], ("png",))
    assert "tiny_steps: rendering png (low, light): its file is missing or changed on disk" in second
    _, _, third = _run(tmp_path, ["tiny_steps"], ("png",), theme="dark")
    assert "tiny_steps: rendering png (low, dark): another theme" in third


def test_cache_keys_cover_steps_names_and_step_files(light, tmp_path):
    formats = ("png", "svg")
    status, _, _ = _run(tmp_path, ["tiny_steps"], formats, options=OutputOptions(steps=True))
    assert status == {"tiny_steps": "rendered"}
    status, _, _ = _run(tmp_path, ["tiny_steps"], formats, options=OutputOptions(steps=True))
    assert status == {"tiny_steps": "cached"}
    # A step file gone: the format is stale.
    (tmp_path / "tiny_steps" / "01-show-the-vector.svg").unlink()
    status, _, _ = _run(tmp_path, ["tiny_steps"], formats, options=OutputOptions(steps=True))
    assert status == {"tiny_steps": "rendered"}
    assert (tmp_path / "tiny_steps" / "01-show-the-vector.svg").is_file()
    # Without steps, or transparent: other files, so other keys.
    status, _, _ = _run(tmp_path, ["tiny_steps"], formats)
    assert status == {"tiny_steps": "rendered"}
    status, _, _ = _run(tmp_path, ["tiny_steps"], formats, options=OutputOptions(transparent=True))
    assert status == {"tiny_steps": "rendered"}
    assert freshness.why_stale(tmp_path, "tiny_steps", "png", freshness.clip_key(
        render_scenes.StepsScene, trace_from(varied()).to_dict(), "low", "png", "light",
        options=OutputOptions(transparent=True).key())) is None


# -- gallery ---------------------------------------------------------------------------

def test_gallery_lists_steps_captions_alt_text_and_an_embed_snippet(light):
    page = gallery_html(light, render_scenes.registry())
    description = render_scenes.StepsScene.description
    assert f'<figcaption>{description}</figcaption>' in page.replace("&#x27;", "'")
    assert f'aria-label="{description}"' in page
    assert '<track kind="captions" src="Tiny_Steps.vtt" srclang="en" label="English" default>' in page
    assert 'src="Tiny_Steps/01-show-the-vector.svg"' in page and 'href="Tiny_Steps/02-final-softmax.mp4"' in page
    # The snippet and the gallery's clips are the reader's: controls, nothing plays or loads unasked.
    assert "&lt;video controls preload=&quot;none&quot; playsinline poster=&quot;Tiny_Steps.png&quot;" in page
    assert "autoplay" not in page and "loop" not in page
    assert page.count("<video ") == page.count('<video controls preload="none" playsinline') > 0
    assert 'src="Tiny_Steps.svg"' in page


def test_gallery_in_chromium_loads_step_svgs_and_caption_cues(light):
    from .test_rendering import chromium_check

    found = chromium_check(light, gallery_html(light, render_scenes.registry()))
    svgs = {i["src"]: (i["width"], i["height"]) for i in found["images"] if i["src"].endswith(".svg")}
    assert svgs == dict.fromkeys(["Tiny_Steps.svg", "tiny_poster.svg", "Tiny_Steps/01-show-the-vector.svg",
                                  "Tiny_Steps/02-final-softmax.svg"], (854, 480))
    tracks = {t["src"]: (t["ready"], t["cues"]) for t in found["tracks"]}
    # readyState 2: loaded; the clip's two sentences are its two cues.
    assert tracks == {"Tiny_Steps.vtt": (2, 2), "tiny_poster.vtt": (2, 0)}


# -- progress ---------------------------------------------------------------------------

def test_progress_counts_scenes_reads_running_animations_and_estimates(tmp_path):
    import io as _io

    from publish.rendering.progress import LiveProgress, running_status, write_status

    now = [100.0]
    stream = _io.StringIO()
    progress = LiveProgress(tmp_path, total=3, stream=stream, live=False, clock=lambda: now[0])
    progress.echo("[1/3] a: up to date (mp4), skipped")
    progress.echo("b: rendering mp4 (low, dark)")
    progress.echo("c: rendering mp4 (low, dark)")
    assert progress.eta() is None  # nothing rendered yet: no pace to go by
    work = tmp_path / ".rendering-4242-c-ab12cd_x"
    work.mkdir()
    write_status(work, 7, "FadeIn, Transform", 12.34)
    assert running_status(tmp_path) == {"c": "animation 7: FadeIn, Transform (at 12.3 s of the clip)"}
    now[0] = 130.0
    progress.echo("b: rendered mp4 in 30.0 s")
    # One of two renders took 30 s: the other needs about 30 s more.
    assert progress.eta() == pytest.approx(30.0)
    lines = stream.getvalue().splitlines()
    assert lines[-1] == "b: rendered mp4 in 30.0 s  [2/3 scenes done, 0:30 elapsed, about 0:30 left]"
    assert lines[0].endswith("[1/3 scenes done, 0:00 elapsed]")
    panel_text = str([str(c) for c in progress.panel().columns[0]._cells])
    assert "2/3 scenes done" in panel_text and "c: animation 7: FadeIn, Transform" in panel_text


def test_lines_shown_together_are_one_cue_top_line_first():
    from scenes.base import Timeline

    timeline = Timeline()
    # A caption wrapped over two Texts (the lower one listed first), and a title.
    timeline.update({"second line of it": (-3.0, -5.0), "Step 1: the first line": (-2.5, -5.0),
                     "A title up top": (3.5, -2.0)}, 0.0, 0.0)
    timeline.update({"A title up top": (3.5, -2.0)}, 1.0, 2.0)
    timeline.close(4.0)
    cues = [(c.text, c.start, c.end) for c in timeline.captions()]
    assert cues == [("A title up top", 0.0, 4.0), ("Step 1: the first line\nsecond line of it", 0.0, 2.0)]
    assert to_webvtt(cues).split("\n\n")[2] == "2\n00:00:00.000 --> 00:00:02.000\nStep 1: the first line\nsecond line of it\n"


def test_a_line_of_words_and_numbers_is_one_caption_with_its_numbers(tmp_path):
    """A composed line says what it reads (``text``): the caption file gets it whole, the
    numbers with the words; without it, only the Texts of three words or more are read."""
    from manim import RIGHT, Text, VGroup, tempconfig

    from scenes.base import caption_texts
    from scenes.components import NumberLabel

    with tempconfig({"media_dir": str(tmp_path)}):
        words = Text("the columns sum to", font_size=22)
        number = NumberLabel(1.4537, DARK, key=("x",), font_size=22)
        name = Text("·mange", font_size=22)
        line = VGroup(words, number, name).arrange(RIGHT)
        tail = Text("a weighted average", font_size=22)
        bare = VGroup(line, tail.next_to(line, np.array([0.0, -1.0, 0.0])))
        assert set(caption_texts([bare])) == {"the columns sum to", "a weighted average"}

        bare.text = f"the columns sum to {number.shown} ·mange\na  weighted average"
        found = caption_texts([bare])
        assert DARK.decimals == 2
        assert list(found) == ["the columns sum to 1.45 ·mange\na weighted average"]
        assert found[list(found)[0]][0] == pytest.approx(float(bare.get_top()[1]), abs=0.01)

        for m in bare.get_family():  # faded out: not read
            m.set_opacity(0)
        assert caption_texts([bare]) == {}


def test_the_audit_finds_a_number_its_caption_would_drop(tmp_path):
    """A sentence beside a number (alone or in its cell) with no text saying how the line reads
    is a fault; read_as_line mends it and reads the parts in order."""
    from manim import RIGHT, VGroup, tempconfig

    from scenes.base import _numbers_read_apart
    from scenes.components import NumberLabel, ValueCell, caption, read_as_line

    with tempconfig({"media_dir": str(tmp_path)}):
        total = VGroup(caption("all 69 sum to", DARK), NumberLabel(0.99999, DARK, ("s",))).arrange(RIGHT)
        cell = VGroup(caption("score = m · u =", DARK), ValueCell(0.39, DARK, ("score",))).arrange(RIGHT)
        label = VGroup(caption("h_1", DARK), NumberLabel(0.5, DARK, ("h",))).arrange(RIGHT)  # a label, no sentence
        found = _numbers_read_apart(VGroup(total, cell, label))
        assert len(found) == 2 and "'all 69 sum to' beside 1.00" in found[0] + found[1]
        assert "'score = m · u =' beside 0.39" in found[0] + found[1]

        read_as_line(total), read_as_line(cell)
        assert _numbers_read_apart(VGroup(total, cell, label)) == []
        assert total.text == "all 69 sum to 1.00" and cell.text == "score = m · u = 0.39"
        axis = VGroup(caption("PC1 (", DARK), NumberLabel(47.126, DARK, ("v",)), caption("% of variance)", DARK))
        assert read_as_line(axis, sep="").text == "PC1 (47.13% of variance)"


def test_on_baseline_sets_words_with_descenders_on_the_line_of_the_rest(tmp_path):
    """"apart; any" (p, ;, y hang below) beside "le" and a number, arranged by centres, then put
    on one baseline: words without descenders and digits end level, the descenders below."""
    from manim import RIGHT, VGroup, tempconfig

    from scenes.components import NumberLabel, baseline_of, caption, on_baseline

    with tempconfig({"media_dir": str(tmp_path)}):
        le, gap, num = caption("le", DARK, 22), caption("apart; any", DARK, 22), NumberLabel(0.95, DARK, ("n",))
        line = VGroup(le, gap, num).arrange(RIGHT)
        tol = 0.05 * le.height  # round letters overshoot the baseline a little; descenders go far below
        assert gap.get_bottom()[1] > le.get_bottom()[1] - 0.1 * le.height  # centred: the descenders ride up
        on_baseline(line.scale(1.7))  # wherever it was scaled to
        assert abs(baseline_of(le) - le.get_bottom()[1]) < tol  # no descender: the bottom is the baseline
        assert abs(num.get_bottom()[1] - le.get_bottom()[1]) < tol
        assert gap.get_bottom()[1] < le.get_bottom()[1] - 0.15 * le.height
        assert abs(baseline_of(gap) - baseline_of(le)) < tol
