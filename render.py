"""Command-line interface: list, render and export the walkthrough's scenes.

    python render.py list
    python render.py render encoder --quality low --format mp4,gif,png --theme light
    python render.py render --all --numbers my-numbers.toml --out site/media --jobs 2
    python render.py numbers --format json
    python render.py numbers --format markdown --scene encoder

Every failure a user can cause (a bad numbers file, an unknown scene id, an
output folder that cannot be written) ends with one line on stderr and a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

_INTERRUPTED = "interrupted: finished files are kept, unfinished ones were discarded; run again to resume"


def _interrupted_while_loading(signum: int, frame: Any) -> None:
    """Ctrl-C while ``python render.py`` loads its modules, before :func:`main` answers it: the
    same one line and 130, never the traceback of whichever import it landed in (seen with
    ``post --serve`` started on a loaded machine). Nothing is written yet: nothing to clean."""
    import os

    sys.stderr.write(_INTERRUPTED + "\n")
    sys.stderr.flush()
    os._exit(130)


if __name__ == "__main__":
    import signal

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not a job started with it ignored
        signal.signal(signal.SIGINT, _interrupted_while_loading)

import click  # noqa: E402 (after the handler: importing click alone takes a second on a loaded machine)

# One definition of each, in render_setup (Manim-free: `--help` still needs no manim).
from publish.rendering.render_setup import FORMATS, QUALITIES

__all__ = ["cli", "main", "render_scene", "show", "QUALITIES", "FORMATS", "THEME_NAMES"]

THEME_NAMES = ("dark", "light")

# -- output options (issue 14): Manim's short quality names, naming, steps ----
#: Manim's -ql/-qm/-qh/-qk.
QUALITY_SHORT = {"l": "low", "m": "medium", "h": "high", "k": "4k"}
#: Formats that can keep an alpha channel (--transparent).
TRANSPARENT_FORMATS = ("png", "svg", "webm")
NAMINGS = ("id", "draft")




class UserError(click.ClickException):
    """A mistake in the command's input: printed as one line, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def _load_trace(numbers: str | None, scenes: list | None = None):
    """The trace of a numbers file; with ``scenes`` (classes), only what they
    show: the translator is trained only for a scene that shows it."""
    # Imported here so `render.py --help` stays fast and never needs manim.
    from attention_core import NumbersError, compute_trace, load_numbers
    from attention_core.translator import train as translator_train

    sections = None if scenes is None else [s for cls in scenes for s in cls.trace_sections]
    try:
        with translator_train.reporting(_training_progress):
            return compute_trace(load_numbers(numbers), sections)
    except NumbersError as exc:
        raise UserError(f"numbers file {exc}") from None


def _training_progress(step: int, steps: int, loss: float) -> None:
    """Training before a render (a [model] table not trained yet) says so and
    how far it is, one line per tenth, never silently for minutes."""
    if step == 1:
        _training_progress.tenths = 0  # type: ignore[attr-defined]
        click.echo(f"training the translator for your [model] settings: {steps} steps "
                   "(once; cached for later runs)", err=True)
    tenths = 10 * step // steps
    if tenths > getattr(_training_progress, "tenths", 0):
        _training_progress.tenths = tenths  # type: ignore[attr-defined]
        click.echo(f"training: step {step}/{steps} ({100 * step // steps} %), loss {loss:.3f}", err=True)


def _report_networks(trace, chosen: list[str], registry) -> None:
    """Which network each chosen scene shows, and why (never a silent switch)."""
    from attention_core.trace import network_report

    report = network_report(trace.scenario)
    for kind, prefixes in (("plain", ("plain_model", "hidden_state_map")), ("attention", ("model",))):
        shown = [s for s in chosen if any(str(x).split(".")[0] in prefixes for x in registry[s].trace_sections)]
        if shown:
            click.echo(f"network: {', '.join(shown)}: {report[kind]}", err=True)


def _scene_registry():
    from scenes import SCENES

    return SCENES


def _fingerprints(numbers: str | None, quality: str, theme: str, options_key: dict[str, str]):
    from publish.freshness import Fingerprints

    try:
        return Fingerprints(numbers, quality, theme, options_key)
    except OSError:
        return None


def _nothing_to_do(scene_ids: tuple[str, ...], all_scenes: bool, numbers: str | None, out: str, quality: str,
                   formats: tuple[str, ...], theme: str, options_key: dict[str, str]) -> bool:
    """Every file asked for is current, decided from files alone (no manim, no scene
    imported, no numbers computed): say so, as a full run would, and return True.
    False when anything may be stale or this check cannot tell."""
    import time

    import scenes

    start = time.monotonic()
    if "SCENES" in vars(scenes):
        return False  # scenes were imported (and maybe added to): the full check knows them
    chosen = list(scenes.SCENE_MODULES) if all_scenes else list(dict.fromkeys(scene_ids))
    out_dir = Path(out)
    try:
        if not chosen or not out.strip() or not (out_dir / "index.html").is_file():
            return False
    except OSError:
        return False  # a name too long, a loop: the full check says what is wrong with it
    if numbers is not None and not Path(numbers).is_file():
        return False  # not a regular file: the full check says what is wrong with it
    from publish.freshness import stale_outputs

    try:
        if stale_outputs(chosen, numbers, out_dir, quality, formats, theme, options_key,
                         options_key["naming"]) != []:
            return False
    except (ValueError, OSError):
        return False
    for i, scene_id in enumerate(chosen, start=1):
        click.echo(f"[{i}/{len(chosen)}] {scene_id}: up to date ({', '.join(formats)}), skipped", err=True)
    click.echo(f"summary: 0 rendered, {len(chosen)} from cache, 0 failed, in {time.monotonic() - start:.1f} s",
               err=True)
    return True


def _short(text: str, limit: int = 80) -> str:
    """A user's path in one readable line (a 300-letter name is cut)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_cache_dir(path: Path, out: str) -> None:
    cache_dir = path / ".cache"
    if cache_dir.exists() and not cache_dir.is_dir():
        raise UserError(f"output folder {out}: .cache exists and is not a folder")


def _whole_number(value: str, option: str, expected: str, lo: int, hi: int | None = None) -> int:
    """An option's whole number, ASCII digits only: "²" and "٣" pass str.isdigit
    but not int() (issue 25), so they get this one line, not a traceback."""
    text = value.strip()
    if not re.fullmatch(r"[0-9]{1,6}", text) or int(text) < lo or (hi is not None and int(text) > hi):
        raise UserError(f"{option} must be {expected}, got {value!r}")
    return int(text)


def _check_out_dir(out: str) -> Path:
    if not out.strip():
        # Path("") is the current folder: an empty --out (an unset shell
        # variable) would otherwise scatter clips where the command runs.
        raise UserError("--out: expected a folder name, got an empty string")
    path = Path(out)
    try:
        # exists() itself raises for a name too long (ENAMETOOLONG) or a loop.
        if path.exists() and not path.is_dir():
            raise UserError(f"output folder {out}: exists and is not a folder")
    except OSError as exc:
        raise UserError(f"output folder {_short(out)}: cannot write there ({exc.strerror or exc})") from None
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-", delete=True)
        probe.close()
    except OSError as exc:
        raise UserError(f"output folder {_short(out)}: cannot write there ({exc.strerror or exc})") from None
    _check_cache_dir(path, out)
    return path


def render_scene(scene_id: str, trace, out_dir: Path, quality: str = "low", fmt: str = "mp4",
                 theme_name: str = "dark") -> Path:
    """Render one scene to ``out_dir/<scene_id>.<fmt>`` (no cache) and return that path."""
    from publish.rendering.pipeline import render_scene as render_formats

    return render_formats(scene_id, trace, out_dir, quality, (fmt,), theme_name)[0]


def _install_speedups() -> None:
    """Manim's speedups (``manim_speedups``), installed once for this process by each command
    that renders, just before it does: not in :func:`main` itself, so that a run with nothing
    to do imports no Manim. Workers install their own (``publish.rendering.executors``).
    ``ATTENTION_SPEEDUPS=off``: plain Manim (docs/performance.md)."""
    from publish.rendering.render_setup import install_speedups

    install_speedups()


def _choice(value: str, allowed, what: str) -> str:
    value = value.strip().lower()
    if value not in allowed:
        raise UserError(f"unknown {what} {value!r} (valid: {', '.join(allowed)})")
    return value


def _formats(value: str) -> tuple[str, ...]:
    chosen = [v.strip().lower() for v in value.split(",") if v.strip()]
    if not chosen:
        raise UserError(f"no format given (valid: {', '.join(FORMATS)})")
    for fmt in chosen:
        _choice(fmt, FORMATS, "format")
    return tuple(dict.fromkeys(chosen))


class OneLineChoice(click.Choice):
    """A click Choice (so shells complete it) whose bad value is one line: ``error: unknown ...``."""

    def __init__(self, choices, what: str) -> None:
        super().__init__(choices, case_sensitive=False)
        self.what = what

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            shown = ", ".join(c for c in self.choices if len(c) > 1 or self.what != "quality")
            raise UserError(f"unknown {self.what} {value!r} (valid: {shown})") from None


class FormatList(click.ParamType):
    """Comma-separated formats; completes each name."""

    name = "formats"

    def convert(self, value, param, ctx):
        return value if isinstance(value, tuple) else _formats(value)

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        done, _, last = incomplete.rpartition(",")
        prefix = f"{done}," if done else ""
        return [CompletionItem(prefix + f) for f in FORMATS if f.startswith(last)]


def _version() -> str:
    try:
        from importlib.metadata import version

        return f"attention-animations {version('attention-animations')} (manim {version('manim')})"
    except Exception:  # not installed as a package: the source tree's version
        return "attention-animations 0.1.0"


def _output_formats(formats: tuple[str, ...], still: bool, transparent: bool) -> tuple[str, ...]:
    """The formats asked for, with -s's png, and the captions every clip gets."""
    if still:
        formats = tuple(dict.fromkeys((*formats, "png")))
    if transparent:
        opaque = [f for f in formats if f not in TRANSPARENT_FORMATS + ("vtt",)]
        if opaque:
            raise UserError(f"--transparent: {opaque[0]} cannot be transparent "
                            f"(use {', '.join(TRANSPARENT_FORMATS)})")
    if any(f in ("mp4", "webm", "gif") for f in formats) and "vtt" not in formats:
        formats += ("vtt",)  # every clip gets its captions
    return formats


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(message="%(version)s", version=_version(), package_name="attention-animations")
def cli() -> None:
    """Render the attention walkthrough's animations from real numbers."""


@cli.command("list")
def list_scenes() -> None:
    """Every scene: its id, the draft's file name for it (--names draft), what it shows."""
    from publish.rendering.names import draft_name

    for scene_id, cls in _scene_registry().items():
        draft = draft_name(scene_id)
        click.echo(f"{scene_id:<24} {('draft: ' + draft) if draft else '':<22} {cls.description}")


@cli.command()
@click.argument("scene_ids", nargs=-1, metavar="SCENE...")
@click.option("--all", "all_scenes", is_flag=True, help="Render every scene.")
@click.option("-q", "--quality", type=OneLineChoice([*QUALITIES, *QUALITY_SHORT], "quality"), default="low",
              show_default=True, help="low, medium, high or 4k (480p15, 720p30, 1080p60, 2160p60); "
                                      "or manim's l, m, h, k.")
@click.option("--format", "fmt", type=FormatList(), default="mp4", show_default=True,
              help="Comma-separated: mp4 (H.264, fast start), webm (VP9), gif (<= 30 fps), "
                   "png and svg (the poster frame: last frame unless the scene sets poster_time), "
                   "vtt (captions; added to every clip).")
@click.option("-s", "--still", is_flag=True, help="Also the png still (manim's -s); with --format png: only it.")
@click.option("--theme", type=OneLineChoice(THEME_NAMES, "theme"), default="dark", show_default=True,
              help="dark or light.")
@click.option("--steps", "--save_sections", "steps", is_flag=True,
              help="Also each step the scene names (manim sections): OUT/<name>/<nn>-<step>.<png|svg|mp4|vtt>.")
@click.option("--names", "naming", type=OneLineChoice(NAMINGS, "naming"), default="id", show_default=True,
              help="File names: the scene id, or the draft's names (CNN_attention.mp4, seq2seq_basic.svg).")
@click.option("--transparent", is_flag=True, help="No background (png, svg, webm; mp4 and gif cannot).")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("--out", default="media", show_default=True, help="Output folder.")
@click.option("--jobs", default=None, help="Scenes rendered in parallel (default: number of cores).")
@click.option("--force", is_flag=True, help="Re-render even when the cache says the files are current.")
@click.option("--executor", default="local", show_default=True, type=OneLineChoice(["local", "dask"], "executor"),
              help="local (--jobs processes here) or dask (a Dask cluster: --scheduler, or a "
                   "LocalCluster of --jobs workers started here).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address (tcp://host:8786), with --executor dask.")
@click.option("--split", default=None,
              help="Parts each scene's animations are drawn in by different workers, then joined "
                   "(default 1).")
def render(scene_ids: tuple[str, ...], all_scenes: bool, quality: str, fmt: tuple[str, ...], still: bool,
           theme: str, steps: bool, naming: str, transparent: bool,
           numbers: str | None, out: str, jobs: str | None, force: bool, executor: str,
           scheduler: str | None, split: str | None) -> None:
    """Render scenes to OUT/<scene-id>.<format>, skipping what is current; write OUT/index.html.

    A file is re-rendered only when something it shows changed: the scene's
    code, the numbers in its trace sections, quality, format, theme or the
    manim version (records in OUT/.cache/). Copy OUT as it is into a site.
    """
    quality = QUALITY_SHORT.get(quality.lower(), quality.lower())
    formats = _output_formats(fmt if isinstance(fmt, tuple) else _formats(fmt), still, transparent)
    theme = theme.lower()
    if jobs is not None:
        jobs = _whole_number(jobs, "--jobs", "a whole number of at least 1", 1)
    executor = _choice(executor, ("local", "dask"), "executor")
    if scheduler is not None and executor != "dask":
        raise UserError("--scheduler needs --executor dask")
    if split is not None:
        split = _whole_number(split, "--split", "a whole number from 1 to 64", 1, 64)
    if all_scenes and scene_ids:
        raise UserError("give scene ids or --all, not both")
    options_key = {"steps": str(steps), "naming": naming.lower(), "transparent": str(transparent)}
    if not force and _nothing_to_do(scene_ids, all_scenes, numbers, out, quality, formats, theme, options_key):
        return
    registry = _scene_registry()
    if all_scenes and scene_ids:
        raise UserError("give scene ids or --all, not both")
    if not all_scenes and not scene_ids:
        raise UserError(f"name at least one scene, or --all (scenes: {', '.join(registry)})")
    unknown = [s for s in scene_ids if s not in registry]
    if unknown:
        raise UserError(f"unknown scene id {unknown[0]!r} (valid: {', '.join(registry)})")
    chosen = list(registry) if all_scenes else list(dict.fromkeys(scene_ids))
    trace = _load_trace(numbers, [registry[s] for s in chosen])
    out_dir = _check_out_dir(out)

    from publish.rendering.executors import SchedulerError
    from publish.targets.gallery import write_gallery
    from publish.rendering.pipeline import OutputOptions, run_renders

    from publish.rendering.progress import LiveProgress

    options = OutputOptions(steps=steps, naming=naming.lower(), transparent=transparent)
    _install_speedups()  # a scene may render in this process (one job)
    try:
        # A live panel (scenes done/total, each running scene's animation, ETA) on a
        # terminal; plain lines with the count otherwise.
        with LiveProgress(out_dir, len(chosen), stream=sys.stderr) as progress:
            summary = run_renders(chosen, trace, out_dir, quality, formats, theme, jobs, force,
                                  echo=progress.echo, registry=registry, options=options,
                                  executor=executor, scheduler=scheduler, split=split,
                                  fingerprints=_fingerprints(numbers, quality, theme, options.key()))
    except SchedulerError as exc:
        raise UserError(str(exc)) from None
    except KeyboardInterrupt as exc:
        # click would print "Aborted!" and exit 1; say what was kept instead. Every
        # worker has ended by now, so nothing is written after this line.
        click.echo(_INTERRUPTED, err=True)
        raise SystemExit(128 + getattr(exc, "signum", 2)) from None
    try:
        write_gallery(out_dir, registry)
    except OSError as exc:
        raise UserError(f"output folder {out}: cannot write index.html ({exc.strerror or exc})") from None
    _report_networks(trace, chosen, registry)
    click.echo(summary.line(), err=True)
    failed = summary.of("failed")
    if failed:
        raise click.ClickException(f"{len(failed)} of {len(chosen)} scenes failed: "
                                   + ", ".join(r.scene_id for r in failed))


@cli.command("slides")
@click.argument("scene_ids", nargs=-1, metavar="SCENE...")
@click.option("--out", default="deck", show_default=True, help="The deck's folder (index.html and clips/).")
@click.option("-q", "--quality", type=OneLineChoice([*QUALITIES, *QUALITY_SHORT], "quality"), default="medium",
              show_default=True, help="low, medium, high or 4k (480p15, 720p30, 1080p60, 2160p60).")
@click.option("--theme", type=OneLineChoice(THEME_NAMES, "theme"), default="dark", show_default=True,
              help="dark or light.")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("--jobs", default=None, help="Scenes rendered in parallel (default: number of cores).")
@click.option("--force", is_flag=True, help="Re-render even when the cache says the files are current.")
@click.option("--title", default="Attention, step by step", show_default=True, help="The title slide's title.")
@click.pass_context
def slides(ctx: click.Context, scene_ids: tuple[str, ...], out: str, quality: str, theme: str,
           numbers: str | None, jobs: str | None, force: bool, title: str) -> None:
    """Write an offline deck for class: OUT/index.html, one slide per step of each scene.

    Each slide plays its step's clip once and stops on its last frame; the arrow keys or a
    click go on, N shows the speaker notes (the step's captions), F goes fullscreen. The clips
    are rendered through the same cache as `render` (OUT/clips/).
    """
    if not scene_ids:
        raise UserError(f"name at least one scene (scenes: {', '.join(_scene_registry())})")
    deck = _check_out_dir(out)
    ctx.invoke(render, scene_ids=scene_ids, all_scenes=False, quality=quality, fmt="mp4,png,vtt", still=False,
               theme=theme, steps=True, naming="id", transparent=False, numbers=numbers,
               out=str(deck / "clips"), jobs=jobs, force=force, executor="local", scheduler=None, split=None)
    from publish.targets.slides import write_deck

    registry = _scene_registry()
    titles = {s: registry[s].description.split(":")[0].split(".")[0] for s in scene_ids}
    try:
        made = write_deck(deck, list(dict.fromkeys(scene_ids)), titles, title,
                          "Rendered from real numbers: " + ", ".join(dict.fromkeys(scene_ids)))
    except OSError as exc:
        raise UserError(f"deck folder {out}: cannot write index.html ({exc.strerror or exc})") from None
    click.echo(f"deck: {deck / 'index.html'} ({len(made)} slides after the title)", err=True)


@cli.command()
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("--format", "fmt", default="json", show_default=True, help="json, markdown or latex.")
@click.option("--scene", "scene_id", default=None,
              help="Only the values this scene shows (its trace sections), rounded as on screen.")
@click.option("--init", "init_file", type=click.Path(dir_okay=False), default=None,
              help="Write a numbers file to start from (every value commented out) to this path, and stop.")
def numbers(numbers: str | None, fmt: str, scene_id: str | None, init_file: str | None) -> None:
    """Print computed values: all of them as JSON, or a scene's as tables for the post.

    A numbers file needs only the values it changes; everything else is the
    shipped default's. --init FILE writes a commented starting file.
    """
    if init_file is not None:
        _write_starting_file(Path(init_file))
        return
    from publish.tables import dumps, scene_sections, to_json, to_latex, to_markdown

    fmt = _choice(fmt, ("json", "markdown", "latex"), "numbers format")
    registry = _scene_registry()
    if scene_id is not None and scene_id not in registry:
        raise UserError(f"unknown scene id {scene_id!r} (valid: {', '.join(registry)})")
    trace = _load_trace(numbers, [registry[scene_id]] if scene_id else None)
    data = trace.to_dict()
    if fmt == "json" and scene_id is None:
        click.echo(json.dumps(data, indent=1, ensure_ascii=False))
        return
    chosen = [scene_id] if scene_id else list(registry)
    try:
        sections = {s: scene_sections(registry[s], data) for s in chosen}
    except KeyError as exc:
        raise UserError(str(exc.args[0])) from None
    if fmt == "json":
        click.echo(dumps(to_json(sections[scene_id])))
    else:
        # One table per matrix on screen, labelled as there (words, x_1, q_1), ASCII minus.
        from publish.tables import scene_latex, scene_markdown

        writer = scene_markdown if fmt == "markdown" else scene_latex
        click.echo("\n".join(writer(s, data, sections[s], heading=None if scene_id else s) for s in chosen))


def _themes(value: str) -> tuple[str, ...]:
    chosen = [v.strip().lower() for v in value.split(",") if v.strip()]
    if not chosen:
        raise UserError(f"--theme: no theme given (valid: {', '.join(THEME_NAMES)})")
    for theme in chosen:
        _choice(theme, THEME_NAMES, "theme")
    # Light first: the page's default look; dark is picked by prefers-color-scheme.
    return tuple(sorted(dict.fromkeys(chosen), key=lambda t: t != "light"))


@cli.command("post")
@click.argument("draft", metavar="DRAFT.md")
@click.option("--out", default=None, help="Site folder: index.html with its media beside it [default: site]; "
                                          "with --to, the generator's site folder (required).")
@click.option("--to", "to", default=None, metavar="GENERATOR",
              help="Write the post for a site generator instead: hugo, jekyll, mkdocs, quarto or markdown "
                   "(docs/sites.md).")
@click.option("--links", type=click.Path(dir_okay=False), default=None,
              help="Link table (TOML) mapping the draft's links to scenes; default: post.toml beside the "
                   "draft, else the shipped table of the walkthrough's drafts.")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("-q", "--quality", type=OneLineChoice([*QUALITIES, *QUALITY_SHORT], "quality"), default="low",
              show_default=True, help="low, medium, high or 4k (or l, m, h, k).")
@click.option("--theme", "theme", default="light", show_default=True,
              help="light, dark, or both (dark,light): the page picks by prefers-color-scheme.")
@click.option("--jobs", default=None, help="Scenes rendered in parallel (default: number of cores).")
@click.option("--force", is_flag=True, help="Re-render even when the cache says the files are current.")
@click.option("--serve", is_flag=True, help="Serve the page on 127.0.0.1 and rebuild it when the draft, the "
                                            "numbers, the link table or a scene changes (preview quality).")
@click.option("--port", default="8000", show_default=True, help="Port of --serve (0: any free port).")
def post(draft: str, out: str | None, to: str | None, links: str | None, numbers: str | None, quality: str,
         theme: str, jobs: str | None, force: bool, serve: bool, port: str) -> None:
    """Turn a blog draft (Markdown) into the finished page SITE/index.html, media beside it.

    Links and pictures the link table maps become our clips, stills, step
    figures or typeset formulas; {{ path | filter }} placeholders become
    computed numbers; editor's notes are left out and mojibake repaired (all
    listed at the end). The page fetches nothing from another host. With
    --to hugo|jekyll|mkdocs|quarto|markdown --out DIR, the same page is written
    into a site of that generator, its media beside it (docs/sites.md).
    """
    quality = QUALITY_SHORT.get(quality.lower(), quality.lower())
    themes = _themes(theme)
    if jobs is not None:
        jobs = _whole_number(jobs, "--jobs", "a whole number of at least 1", 1)
    port = _whole_number(port, "--port", "a port number from 0 to 65535", 0, 65535)
    if to is not None:
        _post_to_site(draft, out, to, links, numbers, quality, themes, jobs, force, serve)
        return
    out = "site" if out is None else out
    _check_post_inputs(draft, links, numbers, out, force)
    site = _check_out_dir(out)
    if not (force or serve) and _post_is_current(Path(draft), site, links, numbers, quality, themes):
        return
    from publish.post.build import PostError, build_post

    if serve:
        from publish.targets.serve import serve_post

        try:
            serve_post(Path(draft), site, links=Path(links) if links else None, numbers=numbers,
                       quality=quality, themes=themes, jobs=jobs,
                       port=port, echo=lambda line: click.echo(line, err=True))
        except PostError as exc:
            raise UserError(str(exc)) from None
        return
    _install_speedups()  # the page's scenes may render in this process (one job)
    try:
        for attempt in range(1, _POST_ATTEMPTS + 1):
            report = build_post(Path(draft), site, links=Path(links) if links else None, numbers=numbers,
                                quality=quality, themes=themes, jobs=jobs, force=force,
                                echo=lambda line: click.echo(line, err=True))
            if not report.inputs_changed:
                break
            # A save while the scenes rendered: the page may show the old text; never recorded as built.
            click.echo("post: the draft, link table or numbers changed during the build; "
                       + ("building again" if attempt < _POST_ATTEMPTS else
                          "the page is not recorded as current: run again"), err=True)
    except PostError as exc:
        raise UserError(str(exc)) from None
    except KeyboardInterrupt as exc:
        click.echo(_INTERRUPTED, err=True)
        raise SystemExit(128 + getattr(exc, "signum", 2)) from None
    for line in report.lines():
        click.echo(line, err=True)


#: Builds of one ``post`` run while its inputs keep changing under it.
_POST_ATTEMPTS = 3


def _post_to_site(draft: str, out: str | None, to: str, links: str | None, numbers: str | None, quality: str,
                  themes: tuple[str, ...], jobs: int | None, force: bool, serve: bool) -> None:
    """``post --to GENERATOR --out DIR``: the page written in a site generator's layout
    (:mod:`publish.targets.sites`)."""
    from publish.targets.sites import GENERATORS, SitesError, build_site, check_target

    to = to.strip().lower()
    if to not in GENERATORS:
        raise UserError(f"--to {to!r}: unknown generator (known: {', '.join(GENERATORS)})")
    if out is None or not out.strip():
        raise UserError(f"--to {to} needs --out DIR: the folder of your {to} site")
    if serve:
        raise UserError("--serve previews the page itself; leave out --to to preview it")
    _check_post_inputs(draft, links, numbers, "", force)
    try:
        check_target(Path(out), to, Path(draft), force)  # before any folder is made
    except SitesError as exc:
        raise UserError(str(exc)) from None
    site = _check_out_dir(out)
    from publish.post.build import PostError

    try:
        report = build_site(Path(draft), site, to, links=Path(links) if links else None, numbers=numbers,
                            quality=quality, themes=themes, jobs=jobs, force=force,
                            echo=lambda line: click.echo(line, err=True))
    except (PostError, SitesError) as exc:
        raise UserError(str(exc)) from None
    except KeyboardInterrupt as exc:
        click.echo(_INTERRUPTED, err=True)
        raise SystemExit(128 + getattr(exc, "signum", 2)) from None
    for line in report.lines():
        click.echo(line, err=True)


def _check_post_inputs(draft: str, links: str | None, numbers: str | None, out: str, force: bool) -> None:
    """Every file name and the site folder, before anything is written or rendered (issue 33)."""
    from publish.post.manifest import SiteError, check_site
    from publish.post.safety import InputError, check_draft_size, check_input_file

    try:
        check_input_file(draft, "draft")
        check_draft_size(draft)
        if links is not None:
            check_input_file(links, "links file")
        if numbers is not None:
            check_input_file(numbers, "numbers file")
        if out.strip():
            check_site(Path(out), Path(draft), force)
    except (InputError, SiteError) as exc:
        raise UserError(str(exc)) from None


def _post_is_current(draft: Path, site: Path, links: str | None, numbers: str | None, quality: str,
                     themes: tuple[str, ...]) -> bool:
    """Nothing the page is made from changed since the last build, decided from files alone
    (no manim, no numbers computed): say so and return True."""
    import time

    from publish.freshness import post_is_current

    start = time.monotonic()
    if numbers is not None and not Path(numbers).is_file():
        return False  # the full build says what is wrong with it
    summary = post_is_current(draft, site, Path(links) if links else None, numbers, quality, themes)
    if summary is None:
        return False
    click.echo(f"post: nothing changed since the last build ({time.monotonic() - start:.2f} s); "
               f"last build: {summary}", err=True)
    return True


def _write_starting_file(path: Path) -> None:
    from attention_core.numbers_file import starting_file_text

    if path.exists() or path.is_symlink():
        raise UserError(f"--init: {path} exists; give a new file name")
    try:
        _create_atomically(path, starting_file_text())
    except FileExistsError:
        raise UserError(f"--init: {path} exists; give a new file name") from None
    except OSError as exc:
        raise UserError(f"--init: cannot write {path} ({exc.strerror or exc})") from None
    click.echo(f"wrote {path}: uncomment and edit the values to change, then "
               f"render.py render --all --numbers {path}", err=True)


def _create_atomically(path: Path, text: str) -> None:
    """Write a new file whole or not at all: a full disk used to leave it cut
    at 4 kB, and a cut starting file still loads as valid (issue 25). The text
    goes to a temporary file beside it, is flushed to the disk, then linked
    under its name (which fails if the name was taken meanwhile)."""
    import os

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or Path("."))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)  # never replaces an existing file
        except (PermissionError, NotImplementedError):  # a file system without hard links
            if path.exists():
                raise FileExistsError(path) from None
            os.replace(tmp, path)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


@cli.command("train")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file whose [model] table sets the training; default: the shipped settings.")
@click.option("--save", "save_to", type=click.Path(dir_okay=False), default=None,
              help="Also write the weights (.npz) here (the shipped files are made this way); "
                   "with --network both or all, the plain network's go next to it with '-plain' added "
                   "(and with all, the captioner's with '-captioner').")
@click.option("--network", type=click.Choice(["all", "both", "attention", "plain", "captioner"]),
              default="all", show_default=True,
              help="Which network to train: the translator with attention (the attention scenes), "
                   "without (plain: the Part 1 scenes), both, the image captioner, or all three.")
def train_cmd(numbers: str | None, save_to: str | None, network: str) -> None:
    """Train the translators and the captioner, then print their held-out accuracy.

    The scenes use two translators of the same [model] settings: one trained
    with attention and its twin trained without (the plain encoder-decoder
    of Part 1), and the image captioner of cnn_attention. All are cached or
    shipped, so rendering never has to train.
    """
    if network == "captioner":
        _train_captioner(Path(save_to) if save_to else None)
        return
    from attention_core import NumbersError, load_numbers
    from attention_core.translator.settings import ModelSettings

    try:
        settings = load_numbers(numbers).model or ModelSettings()
    except NumbersError as exc:
        raise UserError(f"numbers file {exc}") from None
    configs = []
    if network in ("all", "both", "attention"):
        configs.append(("", settings.config))
    if network in ("all", "both", "plain") and (network == "plain" or settings.config.attention):
        configs.append(("-plain" if network in ("all", "both") else "", settings.plain.config))
    for suffix, cfg in configs:
        target = None
        if save_to:
            path = Path(save_to)
            target = path.with_name(path.stem + suffix + (path.suffix or ".npz"))
        _train_one(cfg, target)
    if network == "all":
        _train_captioner(Path(save_to).with_name(Path(save_to).stem + "-captioner.npz") if save_to else None)


def _train_captioner(save_to: Path | None) -> None:
    from attention_core.captioner.train import DEFAULT_CONFIG, train

    cfg = DEFAULT_CONFIG
    click.echo(f"training the captioner: {cfg.steps} steps of {cfg.batch_size} drawn scenes, "
               f"hidden {cfg.hidden}, seed {cfg.seed}", err=True)
    with click.progressbar(length=cfg.steps, label="training", file=sys.stderr) as bar:
        captioner = train(cfg, progress=lambda step, steps, loss: bar.update(1))
    ev = captioner.evaluation
    click.echo(f"captioner: trained in {captioner.seconds:.1f} s ({captioner.cpu_seconds:.1f} s of processor time)")
    click.echo(f"held-out scenes: {ev['scenes']} ({ev['object_words']} object words)")
    click.echo(f"caption exact match: {100 * ev['caption_exact']:.1f} %")
    click.echo(f"attention accuracy: {100 * ev['attention_accuracy']:.1f} %")
    click.echo(f"mean attention mass on the object: {ev['object_mass']:.2f}")
    if save_to:
        try:
            captioner.save(save_to)
        except OSError as exc:
            raise UserError(f"cannot write the weights ({exc.strerror or exc})") from None
        click.echo(f"saved: {save_to}", err=True)


def _train_one(cfg, save_to: Path | None) -> None:
    from attention_core.translator.train import cache_dir, save_snapshots, snapshots_path, train, training_note

    click.echo(f"training: {cfg.steps} steps of {cfg.batch_size} sentences, embedding {cfg.embedding}, "
               f"hidden {cfg.hidden}, attention {'on' if cfg.attention else 'off'}, seed {cfg.seed}", err=True)
    with click.progressbar(length=cfg.steps, label="training", show_eta=True, file=sys.stderr,
                           item_show_func=lambda loss: f"loss {loss:.3f}" if loss is not None else "") as bar:
        done = 0

        def progress(step: int, steps: int, loss: float) -> None:
            nonlocal done
            bar.update(step - done, loss)
            done = step

        weights = train(cfg, progress=progress)
    ev = weights.evaluation or {}
    click.echo(f"{'with' if cfg.attention else 'without'} attention: trained in {weights.seconds:.1f} s "
               f"({weights.cpu_seconds:.1f} s of processor time)")
    click.echo(f"held-out sentences: {ev.get('sentences')}")
    click.echo(f"exact-match translation accuracy: {100 * ev.get('exact_match', float('nan')):.1f} %")
    if cfg.attention:
        click.echo(f"alignment accuracy: {100 * ev.get('alignment', float('nan')):.1f} %")
    click.echo(f"({training_note(cfg)})")
    for snap in weights.snapshots:
        align = "" if snap.alignment is None else f", alignment {100 * snap.alignment:.1f} %"
        click.echo(f"  step {snap.step}: held-out loss {snap.loss:.3f}, exact match "
                   f"{100 * snap.exact_match:.1f} %{align}")
    try:
        path = cache_dir() / f"{weights.key}.npz"
        path.parent.mkdir(parents=True, exist_ok=True)
        weights.save(path)
        save_snapshots(snapshots_path(weights.key), weights)
        click.echo(f"cached: {path}", err=True)
        if save_to:
            weights.save(save_to)
            click.echo(f"saved: {save_to}", err=True)
            if cfg.attention:
                # The training record the attention_learning scene shows:
                # weights_X.npz -> snapshots_X.npz.
                record = save_to.with_name("snapshots_" + save_to.stem.removeprefix("weights_") + ".npz")
                save_snapshots(record, weights)
                click.echo(f"saved: {record}", err=True)
    except OSError as exc:
        raise UserError(f"cannot write the weights ({exc.strerror or exc})") from None


def show(scene_id: str, **options: Any) -> Any:
    """A clip inline in a Jupyter notebook, e.g. ``show("encoder", numbers="my.toml", quality="low",
    numbers_table=True)``: :func:`publish.targets.notebook.show` (imported on use: manim loads only then)."""
    from publish.targets.notebook import show as show_clip

    return show_clip(scene_id, **options)


def main(args: list[str] | None = None) -> None:
    """Console-script entry point (the commands that render install Manim's speedups first:
    :func:`_install_speedups`).

    Not click's standalone mode: it turns a Ctrl-C that lands before a
    command's own handler (while manim is imported, the first second or so)
    into "Aborted!" and exit 1. Every interrupt exits 130 with one line.
    """
    import signal
    import threading

    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is _interrupted_while_loading):
        signal.signal(signal.SIGINT, signal.default_int_handler)  # from here the commands answer it
    try:
        code = cli.main(args=args, standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort):
        click.echo(_INTERRUPTED, err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # output piped into head: nothing more to say
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
