"""Command-line interface: list, render and export the walkthrough's scenes.

    python render.py list
    python render.py render encoder --quality low --format mp4
    python render.py render --all --numbers my-numbers.toml --out site/media
    python render.py numbers --format json

Every failure a user can cause (a bad numbers file, an unknown scene id, an
output folder that cannot be written) ends with one line on stderr and a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click

__all__ = ["cli", "main", "render_scene", "QUALITIES", "FORMATS"]

QUALITIES = {"low": "low_quality", "medium": "medium_quality", "high": "high_quality", "4k": "fourk_quality"}
FORMATS = ("mp4", "png")


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
    return path


def render_scene(scene_id: str, trace, out_dir: Path, quality: str = "low", fmt: str = "mp4",
                 theme_name: str = "dark") -> Path:
    """Render one scene to ``out_dir/<scene_id>.<fmt>`` and return that path.

    Manim writes into a private temporary folder inside ``out_dir``; only a
    complete file is moved (atomically, same file system) to its final name,
    so an interrupted render never replaces a good file with a broken one.
    """
    from manim import tempconfig

    from scenes import SCENES, THEMES

    cls = SCENES[scene_id]
    theme = THEMES[theme_name]
    final = out_dir / f"{scene_id}.{fmt}"
    work = Path(tempfile.mkdtemp(prefix=f".rendering-{scene_id}-", dir=out_dir))
    try:
        settings = {
            "quality": QUALITIES[quality],
            "format": fmt,
            "media_dir": str(work),
            "background_color": theme.background,
            "disable_caching": True,
            "progress_bar": "none",
            "verbosity": "ERROR",
            "output_file": scene_id,
        }
        with tempconfig(settings):
            scene = cls(trace, theme)
            scene.render()
            produced = Path(scene.renderer.file_writer.final_file_path)
        if not produced.is_file() or produced.stat().st_size == 0:
            raise RuntimeError(f"manim produced no file for {scene_id}")
        os.replace(produced, final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


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
@click.option("--quality", type=click.Choice(list(QUALITIES)), default="low", show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="mp4", show_default=True,
              help="mp4 video, or png: the last frame as a still.")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("--out", default="media", show_default=True, help="Output folder.")
def render(scene_ids: tuple[str, ...], all_scenes: bool, quality: str, fmt: str,
           numbers: str | None, out: str) -> None:
    """Render scenes to OUT/<scene-id>.<format>."""
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
    failed = []
    for n, scene_id in enumerate(chosen, start=1):
        start = time.monotonic()
        click.echo(f"[{n}/{len(chosen)}] {scene_id}: rendering ({quality}, {fmt}) ...", err=True)
        try:
            path = render_scene(scene_id, trace, out_dir, quality, fmt)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # one scene failing must not stop the rest
            failed.append(scene_id)
            click.echo(f"[{n}/{len(chosen)}] {scene_id}: FAILED ({type(exc).__name__}: {exc})", err=True)
            continue
        click.echo(f"[{n}/{len(chosen)}] {scene_id}: done in {time.monotonic() - start:.1f} s -> {path}", err=True)
    if failed:
        raise click.ClickException(f"{len(failed)} of {len(chosen)} scenes failed: {', '.join(failed)}")


@cli.command()
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file (TOML); default: the one shipped with the package.")
@click.option("--format", "fmt", type=click.Choice(["json"]), default="json", show_default=True)
def numbers(numbers: str | None, fmt: str) -> None:
    """Print every computed value (and the parameters used) as JSON."""
    trace = _load_trace(numbers)
    click.echo(json.dumps(trace.to_dict(), indent=1, ensure_ascii=False))


@cli.command("train")
@click.option("--numbers", type=click.Path(dir_okay=True), default=None,
              help="Numbers file whose [model] table sets the training; default: the shipped settings.")
@click.option("--save", "save_to", type=click.Path(dir_okay=False), default=None,
              help="Also write the weights (.npz) here (the shipped file is made this way).")
def train_cmd(numbers: str | None, save_to: str | None) -> None:
    """Train the translator, then print its held-out accuracy."""
    from attention_core import NumbersError, load_numbers
    from attention_core.translator.settings import ModelSettings
    from attention_core.translator.train import cache_dir, train

    try:
        settings = load_numbers(numbers).model or ModelSettings()
    except NumbersError as exc:
        raise UserError(f"numbers file {exc}") from None
    cfg = settings.config
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
    click.echo(f"trained in {weights.seconds:.1f} s ({weights.cpu_seconds:.1f} s of processor time)")
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
            weights.save(Path(save_to))
            click.echo(f"saved: {save_to}", err=True)
    except OSError as exc:
        raise UserError(f"cannot write the weights ({exc.strerror or exc})") from None


def main() -> None:
    """Console-script entry point."""
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted: finished files are kept, the unfinished one was discarded", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
