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
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

__all__ = ["cli", "main", "render_scene", "QUALITIES", "FORMATS", "THEME_NAMES"]

# Kept in sync with publish.pipeline (imported lazily: `--help` needs no manim).
QUALITIES = {"low": "low_quality", "medium": "medium_quality", "high": "high_quality", "4k": "fourk_quality"}
FORMATS = ("mp4", "webm", "gif", "png")
THEME_NAMES = ("dark", "light")


_INTERRUPTED = "interrupted: finished files are kept, unfinished ones were discarded; run again to resume"


class UserError(click.ClickException):
    """A mistake in the command's input: printed as one line, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def _load_trace(numbers: str | None):
    # Imported here so `render.py --help` stays fast and never needs manim.
    from attention_core import NumbersError, compute_trace, load_numbers

    try:
        return compute_trace(load_numbers(numbers))
    except NumbersError as exc:
        raise UserError(f"numbers file {exc}") from None


def _scene_registry():
    from scenes import SCENES

    return SCENES


def _check_cache_dir(path: Path, out: str) -> None:
    cache_dir = path / ".cache"
    if cache_dir.exists() and not cache_dir.is_dir():
        raise UserError(f"output folder {out}: .cache exists and is not a folder")


def _check_out_dir(out: str) -> Path:
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise UserError(f"output folder {out}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-", delete=True)
        probe.close()
    except OSError as exc:
        raise UserError(f"output folder {out}: cannot write there ({exc.strerror or exc})") from None
    _check_cache_dir(path, out)
    return path


def render_scene(scene_id: str, trace, out_dir: Path, quality: str = "low", fmt: str = "mp4",
                 theme_name: str = "dark") -> Path:
    """Render one scene to ``out_dir/<scene_id>.<fmt>`` (no cache) and return that path."""
    from publish.pipeline import render_scene as render_formats

    return render_formats(scene_id, trace, out_dir, quality, (fmt,), theme_name)[0]


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Render the attention walkthrough's animations from real numbers."""


@cli.command("list")
def list_scenes() -> None:
    """Every scene: its id, then what it shows."""
    for scene_id, cls in _scene_registry().items():
        click.echo(f"{scene_id:<24} {cls.description}")


@cli.command()
@click.argument("scene_ids", nargs=-1, metavar="SCENE...")
@click.option("--all", "all_scenes", is_flag=True, help="Render every scene.")
@click.option("--quality", default="low", show_default=True, help=f"One of {', '.join(QUALITIES)} (as in manim).")
@click.option("--format", "fmt", default="mp4", show_default=True,
              help="Comma-separated: mp4 (H.264, fast start), webm (VP9), gif (<= 30 fps), "
                   "png (the poster frame: last frame unless the scene sets poster_time).")
@click.option("--theme", default="dark", show_default=True, help="dark or light.")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("--out", default="media", show_default=True, help="Output folder.")
@click.option("--jobs", default=None, help="Scenes rendered in parallel (default: number of cores).")
@click.option("--force", is_flag=True, help="Re-render even when the cache says the files are current.")
@click.option("--executor", default="local", show_default=True,
              help="local (--jobs processes here) or dask (a Dask cluster: --scheduler, or a "
                   "LocalCluster of --jobs workers started here).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address (tcp://host:8786), with --executor dask.")
@click.option("--split", default=None,
              help="Parts each scene's animations are drawn in by different workers, then joined "
                   "(default 1).")
def render(scene_ids: tuple[str, ...], all_scenes: bool, quality: str, fmt: str, theme: str,
           numbers: str | None, out: str, jobs: str | None, force: bool, executor: str,
           scheduler: str | None, split: str | None) -> None:
    """Render scenes to OUT/<scene-id>.<format>, skipping what is current; write OUT/index.html.

    A file is re-rendered only when something it shows changed: the scene's
    code, the numbers in its trace sections, quality, format, theme or the
    manim version (records in OUT/.cache/). Copy OUT as it is into a site.
    """
    quality = _choice(quality, QUALITIES, "quality")
    formats = _formats(fmt)
    theme = _choice(theme, THEME_NAMES, "theme")
    if jobs is not None:
        if not jobs.strip().isdigit() or int(jobs) < 1:
            raise UserError(f"--jobs must be a whole number of at least 1, got {jobs!r}")
        jobs = int(jobs)
    executor = _choice(executor, ("local", "dask"), "executor")
    if scheduler is not None and executor != "dask":
        raise UserError("--scheduler needs --executor dask")
    if split is not None:
        if not split.strip().isdigit() or not 1 <= int(split) <= 64:
            raise UserError(f"--split must be a whole number from 1 to 64, got {split!r}")
        split = int(split)
    registry = _scene_registry()
    if all_scenes and scene_ids:
        raise UserError("give scene ids or --all, not both")
    if not all_scenes and not scene_ids:
        raise UserError(f"name at least one scene, or --all (scenes: {', '.join(registry)})")
    unknown = [s for s in scene_ids if s not in registry]
    if unknown:
        raise UserError(f"unknown scene id {unknown[0]!r} (valid: {', '.join(registry)})")
    chosen = list(registry) if all_scenes else list(dict.fromkeys(scene_ids))
    trace = _load_trace(numbers)
    out_dir = _check_out_dir(out)

    from publish.executors import SchedulerError
    from publish.gallery import write_gallery
    from publish.pipeline import run_renders

    try:
        summary = run_renders(chosen, trace, out_dir, quality, formats, theme, jobs, force,
                              echo=lambda line: click.echo(line, err=True), registry=registry,
                              executor=executor, scheduler=scheduler, split=split)
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
    click.echo(summary.line(), err=True)
    failed = summary.of("failed")
    if failed:
        raise click.ClickException(f"{len(failed)} of {len(chosen)} scenes failed: "
                                   + ", ".join(r.scene_id for r in failed))


@cli.command()
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("--format", "fmt", default="json", show_default=True, help="json, markdown or latex.")
@click.option("--scene", "scene_id", default=None,
              help="Only the values this scene shows (its trace sections), rounded as on screen.")
def numbers(numbers: str | None, fmt: str, scene_id: str | None) -> None:
    """Print computed values: all of them as JSON, or a scene's as tables for the post."""
    from publish.tables import dumps, scene_sections, to_json, to_latex, to_markdown

    fmt = _choice(fmt, ("json", "markdown", "latex"), "numbers format")
    registry = _scene_registry()
    if scene_id is not None and scene_id not in registry:
        raise UserError(f"unknown scene id {scene_id!r} (valid: {', '.join(registry)})")
    trace = _load_trace(numbers)
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
        writer = to_markdown if fmt == "markdown" else to_latex
        click.echo("\n".join(writer(sections[s], heading=None if scene_id else s) for s in chosen))


@cli.command("train")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file whose [model] table sets the training; default: the shipped settings.")
@click.option("--save", "save_to", type=click.Path(dir_okay=False), default=None,
              help="Also write the weights (.npz) here (the shipped files are made this way); "
                   "with --network both, the plain network's go next to it with '-plain' added.")
@click.option("--network", type=click.Choice(["both", "attention", "plain"]), default="both",
              show_default=True,
              help="Which translator to train: with attention (the attention scenes), without "
                   "(plain: the Part 1 scenes), or both.")
def train_cmd(numbers: str | None, save_to: str | None, network: str) -> None:
    """Train the translator, then print its held-out accuracy.

    The scenes use two networks of the same [model] settings: one trained
    with attention and its twin trained without (the plain encoder-decoder
    of Part 1). Both are cached, so rendering never has to train.
    """
    from attention_core import NumbersError, load_numbers
    from attention_core.translator.settings import ModelSettings

    try:
        settings = load_numbers(numbers).model or ModelSettings()
    except NumbersError as exc:
        raise UserError(f"numbers file {exc}") from None
    configs = []
    if network in ("both", "attention"):
        configs.append(("", settings.config))
    if network in ("both", "plain") and (network == "plain" or settings.config.attention):
        configs.append(("-plain" if network == "both" else "", settings.plain.config))
    for suffix, cfg in configs:
        target = None
        if save_to:
            path = Path(save_to)
            target = path.with_name(path.stem + suffix + (path.suffix or ".npz"))
        _train_one(cfg, target)


def _train_one(cfg, save_to: Path | None) -> None:
    from attention_core.translator.train import cache_dir, train

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
    try:
        path = cache_dir() / f"{weights.key}.npz"
        path.parent.mkdir(parents=True, exist_ok=True)
        weights.save(path)
        click.echo(f"cached: {path}", err=True)
        if save_to:
            weights.save(save_to)
            click.echo(f"saved: {save_to}", err=True)
    except OSError as exc:
        raise UserError(f"cannot write the weights ({exc.strerror or exc})") from None


def main() -> None:
    """Console-script entry point."""
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo(_INTERRUPTED, err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
