"""Rendering scenes to every requested format, cached, in parallel.

:func:`render_scene` (:mod:`publish.rendering.scene_render`) renders one scene once
and derives every requested format from that. Each file is written under a
temporary name inside the output folder and moved into place only when
complete, then its cache record is written; an interrupted run leaves every
earlier file as it was, and the next run redoes only what is missing.

:func:`run_renders` checks the cache, then renders the stale scenes, in
``jobs`` spawned processes. Each process compiles LaTeX in its own folder
(manim deletes the other files of its LaTeX folder after each compile, so a
shared folder breaks parallel renders).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from publish import freshness
from publish.rendering import cache
from publish.rendering.executors import DaskPool, Interrupted, LocalPool, Outcome, publish_files, stop_signals
# The settings and the one-scene render live below this module (publish.rendering.split
# uses them too); their names stay importable from here.
from publish.rendering.render_setup import (FORMATS, FRAME_BUDGET_MB, MAX_INFLIGHT, PIXELS, QUALITIES, WORK_PREFIX, encoder_bytes,
                           encoder_options, inflight_encoders, scene_ref)
from publish.rendering.scene_render import (STEP_FORMATS, VIDEO_FORMATS, OutputFolderMoved, OutputOptions, keep_costs,
                           manim_media_dir, release_media_dir, render_scene)
from publish.tables import dumps, scene_sections, to_json

__all__ = ["QUALITIES", "FORMATS", "VIDEO_FORMATS", "STEP_FORMATS", "OutputOptions", "scene_ref", "Job", "Result",
           "Summary", "describe_failure", "render_scene", "run_job", "run_task", "run_renders", "longest_first",
           "clean_stale_work", "clean_stale_temp", "manim_media_dir", "release_media_dir", "Interrupted"]


#: Below this much free space in the output folder a failed render is put down to a full disk.
DISK_FULL_BYTES = 1 << 20


@dataclass(frozen=True)
class Job:
    scene_id: str
    scene: str  # scene_ref of the class
    formats: tuple[str, ...]  # the stale ones, to render
    keys: dict[str, dict[str, str]]  # format -> cache key
    out_dir: Path
    quality: str
    theme: str
    trace: Any
    source_video: Path | None = None  # a current mp4 to derive webm/gif from
    options: OutputOptions = OutputOptions()


@dataclass
class Result:
    scene_id: str
    status: str  # "rendered", "cached" or "failed"
    formats: tuple[str, ...] = ()
    seconds: float = 0.0
    error: str = ""


@dataclass
class Summary:
    results: list[Result] = field(default_factory=list)
    seconds: float = 0.0

    def of(self, status: str) -> list[Result]:
        return [r for r in self.results if r.status == status]

    def line(self) -> str:
        failed = self.of("failed")
        text = (f"summary: {len(self.of('rendered'))} rendered, {len(self.of('cached'))} from cache, "
                f"{len(failed)} failed, in {self.seconds:.1f} s")
        if failed:
            text += " -- " + "; ".join(f"{r.scene_id}: {r.error}" for r in failed)
        return text


#: Where every temporary folder a run makes lives, besides OUT/.rendering-*:
#: the system temp dir, each name carrying the pid of the process that owns it.
TEMP_PREFIXES = (WORK_PREFIX, "attention-remote-", "attention-join-", "attention-media-")


def _disk_full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < DISK_FULL_BYTES
    except OSError:
        return False


def _folder_identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def describe_failure(exc: BaseException, out_dir: Path, identity: tuple[int, int] | None = None) -> str:
    """One line for a failed render.

    A full disk shows up as ENOSPC, or indirectly: manim's text goes through
    SVG files, and a truncated one fails to parse ("no element found"). Both
    are reported as what they are, naming where the render was writing.
    """
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"no space left on device writing {exc.filename or out_dir}"
    if isinstance(exc, OutputFolderMoved):
        return str(exc)
    if not Path(out_dir).is_dir() or (identity is not None and _folder_identity(out_dir) != identity):
        # Renamed or deleted while the scene was drawn: Manim then fails on a
        # file it cannot name ("cannot write <none>"), and may even have made a
        # new, empty folder of that name on its way (``identity``: the folder's
        # device and inode when the render began).
        return f"the output folder {out_dir} was moved or deleted while rendering; run again"
    if _disk_full(Path(out_dir)):
        return f"no space left on device writing {out_dir} ({type(exc).__name__}: {exc})"
    if isinstance(exc, OSError) and exc.filename:
        return f"cannot write {exc.filename} ({exc.strerror or type(exc).__name__})"
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" ({Path(where.filename).name}:{where.lineno})" if where else ""
    return f"{type(exc).__name__}: {exc}{at}"


def run_job(job: Job) -> Result:
    """Render one job; any error becomes a failed :class:`Result` (never raised)."""
    start = time.monotonic()
    identity = _folder_identity(job.out_dir)
    try:
        render_scene(job.scene, job.trace, job.out_dir, job.quality, job.formats, job.theme, job.keys,
                     job.source_video, job.options)
    except Exception as exc:  # one scene failing must not stop the others
        return Result(job.scene_id, "failed", job.formats, time.monotonic() - start,
                      describe_failure(exc, job.out_dir, identity))
    return Result(job.scene_id, "rendered", job.formats, time.monotonic() - start)


@dataclass(frozen=True)
class RemoteJob:
    """A whole-scene render on a worker that may not see ``OUT``: returns the files' bytes."""

    job: Job


def _run_remote(task: RemoteJob) -> tuple[Result, dict[str, bytes]]:
    from publish.rendering.executors import collect_files

    job = task.job
    work = Path(tempfile.mkdtemp(prefix=f"attention-remote-{os.getpid()}-"))
    try:
        # Rendered from scratch (the parent's current mp4 is not on this
        # machine), without cache records: the parent writes those.
        here = Job(job.scene_id, job.scene, job.formats, None, work, job.quality, job.theme, job.trace,
                   options=job.options)
        result = run_job(here)
        files = {}
        if result.status == "rendered":
            rendered = (p for p in work.rglob("*") if p.is_file() and not p.relative_to(work).parts[0].startswith("."))
            files = collect_files(rendered, work)
        return result, files
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_task(task: Any) -> Any:
    """Run one task of :func:`run_renders` (in a worker process or on a Dask worker)."""
    from publish.rendering.split import JoinTask, PartTask, join_parts, render_part  # on use: it loads PyAV

    if isinstance(task, Job):
        return run_job(task)
    if isinstance(task, RemoteJob):
        return _run_remote(task)
    if isinstance(task, PartTask):
        return render_part(task)
    if isinstance(task, JoinTask):
        return join_parts(task)
    raise TypeError(f"unknown task {task!r}")


class _InlinePool:
    """Tasks one after another in this process (one job, or one scene)."""

    workers = 1

    def run(self, fn: Callable[[Any], Any], tasks: list[Any]):
        i = 0
        while i < len(tasks):  # the list may grow (a split scene's join)
            try:
                yield Outcome(tasks[i], fn(tasks[i]))
            except Exception as exc:
                yield Outcome(tasks[i], error=f"{type(exc).__name__}: {exc}")
            i += 1

    def close(self) -> None:
        pass

    def stop(self) -> None:
        pass


def _parts(job: Job, split: int | None, workers: int, scenes: int) -> int:
    if job.source_video is not None or not set(job.formats) & set(VIDEO_FORMATS):
        return 1  # nothing to draw, or a still only
    if set(job.formats) - {"mp4", "webm", "gif", "png", "vtt"} or job.options.steps or job.options.transparent:
        return 1  # svg, steps and alpha need the whole scene in one process
    # Not split unless asked: with a scene for every worker, parts only add
    # building (each part runs the scene's code up to its last animation).
    return max(1, split or 1)


def longest_first(todo: list[Job], out_dir: Path) -> list[Job]:
    """The jobs in the order to start them: the longest first, so that no long
    scene starts last and runs on alone while the other workers idle.

    A scene's length is what its cost record says (:mod:`publish.rendering.play_costs`);
    scenes without one (never rendered into ``OUT``) could be any length and go
    first, in the order given; formats derived from a current mp4 go last.
    """
    from publish.rendering import play_costs

    def seconds(job: Job) -> float:
        if job.source_video is not None:
            return 0.0  # formats derived from the current mp4: nothing to draw
        costs = play_costs.read_record(out_dir, job.scene_id, job.quality)
        return float("inf") if costs is None else sum(costs.build) + sum(costs.draw)

    return sorted(todo, key=lambda job: -seconds(job))


def _make_pool(executor: str, scheduler: str | None, jobs: int, todo: list[Job], split: int | None):
    if executor == "dask":
        return DaskPool(scheduler, jobs)
    tasks = sum(_parts(job, split, jobs, len(todo)) for job in todo)
    if jobs == 1 or tasks <= 1:
        return _InlinePool()
    return LocalPool(min(jobs, tasks))


def _execute(pool: Any, todo: list[Job], split: int | None, out_dir: Path,
             finished: Callable[[Result], None], split_parts: dict[str, list[Any]]) -> None:
    """Run every job on ``pool`` (split into parts where asked) and report each scene once."""
    from publish.rendering import play_costs
    from publish.rendering.split import JoinTask, PartTask, joined_costs, part_tasks

    remote = isinstance(pool, DaskPool)
    tasks: list[Any] = []
    started: dict[str, float] = {}
    for job in longest_first(todo, out_dir):
        started[job.scene_id] = time.monotonic()
        n = _parts(job, split, pool.workers, len(todo))
        # Contiguous ranges where an earlier render measured the scene, else interleaved.
        parts = part_tasks(job, n, play_costs.read_record(out_dir, job.scene_id, job.quality)) if n > 1 else []
        if len(parts) > 1:
            split_parts[job.scene_id] = [None] * len(parts)
            tasks += parts
        else:
            tasks.append(RemoteJob(job) if remote else job)
    failed: set[str] = set()
    for outcome in pool.run(run_task, tasks):
        task = outcome.task
        job = task.job if not isinstance(task, Job) else task
        seconds = time.monotonic() - started[job.scene_id]
        if job.scene_id in failed:
            continue
        if outcome.error:
            failed.add(job.scene_id)
            finished(Result(job.scene_id, "failed", job.formats, seconds, outcome.error))
        elif isinstance(task, Job):
            finished(outcome.value)
        elif isinstance(task, PartTask):
            outputs = split_parts[job.scene_id]
            outputs[task.part] = outcome.value
            if all(o is not None for o in outputs):
                tasks.append(JoinTask(job, tuple(outputs)))
        else:  # files came back as bytes: RemoteJob or JoinTask
            if isinstance(task, RemoteJob):
                result, files = outcome.value
                if result.status == "failed":
                    failed.add(job.scene_id)
                    finished(result)
                    continue
            else:
                files = outcome.value
            try:
                publish_files(out_dir, job.options.stem(job.scene_id), files, job.keys, WORK_PREFIX)
            except OSError as exc:
                failed.add(job.scene_id)
                finished(Result(job.scene_id, "failed", job.formats, seconds, f"{type(exc).__name__}: {exc}"))
                continue
            if isinstance(task, JoinTask):
                keep_costs(out_dir, job.scene_id, job.quality, joined_costs(task.outputs))
            finished(Result(job.scene_id, "rendered", job.formats, seconds))


def _note_inputs(out_dir: Path, summary: Summary, registry: dict[str, type], options: OutputOptions,
                 fingerprints: Callable[[str, str, str], str]) -> None:
    """Record what every current file was made from, for the next file-only check."""
    for result in summary.results:
        if result.status == "failed":
            continue
        module = registry[result.scene_id].__module__
        for fmt in result.formats:
            try:
                cache.note_inputs(out_dir, options.stem(result.scene_id), fmt,
                                  fingerprints(result.scene_id, module, fmt))
            except OSError:
                pass  # a hint: the next run then does the full check


def _owner_alive(pid: int, path: Path) -> bool:
    """Whether the process that made ``path`` still runs: ``pid`` is alive and
    started before the folder was made (a reused pid started after it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: never ours to remove
    try:
        import psutil

        return psutil.Process(pid).create_time() <= path.stat().st_mtime + 1.0
    except Exception:  # no psutil, or the process ended just now: keep it this time
        return True


def clean_stale_temp(temp_dir: Path | None = None) -> list[Path]:
    """Remove the temporary folders of killed runs from the system temp dir.

    A folder named ``<prefix><pid>-...`` (:data:`TEMP_PREFIXES`) is stale
    when its process has ended (or its pid was reused since): a concurrent
    live run's folders are kept. Returns the folders removed.
    """
    base = Path(temp_dir or tempfile.gettempdir())
    removed = []
    for prefix in TEMP_PREFIXES:
        for path in base.glob(f"{prefix}*"):
            match = re.match(rf"{re.escape(prefix)}(\d+)-", path.name)
            if not match or not path.is_dir() or path.is_symlink():
                continue
            try:
                if path.stat().st_uid != os.getuid() or _owner_alive(int(match.group(1)), path):
                    continue
            except OSError:
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def clean_stale_work(out_dir: Path) -> None:
    """Remove work folders and part files left by runs that were killed."""
    for path in out_dir.glob(f"{WORK_PREFIX}*"):
        match = re.match(rf"{re.escape(WORK_PREFIX)}(\d+)-", path.name)
        if not match:
            continue
        pid = int(match.group(1))
        try:
            os.kill(pid, 0)
            continue  # a live process owns it
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(path, ignore_errors=True)
    # Half-written index.html or cache records (atomic_write_text) of a
    # killed run; a live writer finishes such a file within milliseconds.
    for part in [*out_dir.glob(".*.part"), *(out_dir / cache.CACHE_DIR).glob(".*.part")]:
        try:
            if time.time() - part.stat().st_mtime > 60:
                part.unlink()
        except OSError:
            pass


def _write_numbers_snapshot(out_dir: Path, cls: type, data: dict[str, Any]) -> None:
    # What the gallery shows next to the clip: the numbers it was rendered
    # from. A failure here (full disk) costs only the gallery's tables.
    try:
        _write_snapshot(out_dir, cls, data)
    except (OSError, KeyError):
        pass


def _write_snapshot(out_dir: Path, cls: type, data: dict[str, Any]) -> None:
    cache.atomic_write_text(out_dir / cache.CACHE_DIR / f"{cls.scene_id}.numbers.json",
                            dumps({"description": cls.description,
                                   "sections": to_json(scene_sections(cls, data))}))


def run_renders(scene_ids: list[str], trace: Any, out_dir: Path, quality: str = "low",
                formats: tuple[str, ...] = ("mp4",), theme: str = "dark", jobs: int | None = None,
                force: bool = False, echo: Callable[[str], None] = print,
                registry: dict[str, type] | None = None, options: OutputOptions | None = None,
                executor: str = "local", scheduler: str | None = None, split: int | None = None,
                fingerprints: Callable[[str, str, str], str] | None = None) -> Summary:
    """Render the stale formats of each scene (cache first), ``jobs`` at a time.

    ``registry`` maps scene ids to classes (default: ``scenes.SCENES``);
    ``options`` says how files are named and what else is written.
    ``executor``: ``"local"`` (``jobs`` processes here) or ``"dask"`` (the
    cluster at ``scheduler``, or a ``LocalCluster`` of ``jobs`` workers).
    ``split``: parts each scene's animations are drawn in, by different
    workers (:mod:`publish.rendering.split`); default 1. ``fingerprints(scene_id,
    module, fmt)`` (a :class:`publish.freshness.Fingerprints`): the files'
    fingerprint to record for every current file, so that the next run with
    the same files decides from files alone (:func:`publish.freshness.stale_outputs`).

    Ctrl-C or SIGTERM stops every worker before :class:`KeyboardInterrupt`
    (an :class:`~publish.rendering.executors.Interrupted`) reaches the caller: files
    finished until then are kept, nothing is written afterwards.
    """
    options = options or OutputOptions()
    if registry is None:
        from scenes import SCENES as registry

    SCENES = registry
    start = time.monotonic()
    summary = Summary()
    data = trace.to_dict()
    clean_stale_work(out_dir)
    clean_stale_temp()
    todo: list[Job] = []
    reasons: dict[str, str] = {}
    replaced: list[str] = []
    n = len(scene_ids)
    for i, scene_id in enumerate(scene_ids, start=1):
        cls = SCENES[scene_id]
        try:
            keys = freshness.clip_keys(cls, data, quality, formats, theme, options.key())
            stem = options.stem(scene_id)
        except (KeyError, OSError) as exc:
            summary.results.append(Result(scene_id, "failed", formats, 0.0, str(exc)))
            echo(f"[{i}/{n}] {scene_id}: FAILED ({exc})")
            continue
        why = {f: "--force" if force else freshness.why_stale(out_dir, stem, f, keys[f]) for f in formats}
        stale = tuple(f for f in formats if why[f])
        # A file rendered before and now stale says why (a first render or --force needs no reason).
        reasons[scene_id] = "; ".join(dict.fromkeys(
            w for f in stale if (w := why[f]) not in ("--force", "not rendered yet")))
        if not stale:
            summary.results.append(Result(scene_id, "cached", formats))
            _write_numbers_snapshot(out_dir, cls, data)
            echo(f"[{i}/{n}] {scene_id}: up to date ({', '.join(formats)}), skipped")
            continue
        source = None
        if set(stale) <= {"webm", "gif"}:
            mp4_key = keys.get("mp4") or freshness.clip_key(cls, data, quality, "mp4", theme, None, options.key())
            if freshness.why_stale(out_dir, stem, "mp4", mp4_key) is None:
                source = cache.output_path(out_dir, stem, "mp4")
        todo.append(Job(scene_id, scene_ref(cls), stale, keys, out_dir, quality, theme, trace, source, options))
        # File names do not carry the theme: say so before a clip of the other theme is replaced.
        replaced += [f"{stem}.{f}" for f in stale
                     if cache.recorded_theme(out_dir, stem, f) not in (None, theme)]

    if replaced:
        shown = ", ".join(replaced[:4]) + (f" and {len(replaced) - 4} more" if len(replaced) > 4 else "")
        echo(f"note: replacing {shown} (rendered in another theme) with {theme} ones; "
             f"give each theme its own --out to keep both")
    jobs = max(1, jobs or os.cpu_count() or 1)

    def finished(result: Result) -> None:
        summary.results.append(result)
        if result.status == "failed":
            echo(f"{result.scene_id}: FAILED after {result.seconds:.1f} s ({result.error})")
        else:
            _write_numbers_snapshot(out_dir, SCENES[result.scene_id], data)
            parts = f" in {len(split_parts[result.scene_id])} parts" if result.scene_id in split_parts else ""
            echo(f"{result.scene_id}: rendered {', '.join(result.formats)}{parts} in {result.seconds:.1f} s")

    for job in todo:
        how = "deriving from the current mp4" if job.source_video else "rendering"
        why = f": {reasons[job.scene_id]}" if reasons.get(job.scene_id) else ""
        echo(f"{job.scene_id}: {how} {', '.join(job.formats)} ({quality}, {theme}){why}")
    split_parts: dict[str, list[Any]] = {}
    if todo:
        with stop_signals():
            pool = None
            try:
                pool = _make_pool(executor, scheduler, jobs, todo, split)
                _execute(pool, todo, split, out_dir, finished, split_parts)
            except BaseException:
                if pool is not None:
                    pool.stop()
                clean_stale_work(out_dir)  # the stopped workers' folders
                raise
            pool.close()
    if fingerprints is not None:
        _note_inputs(out_dir, summary, SCENES, options, fingerprints)
    summary.seconds = time.monotonic() - start
    order = {s: i for i, s in enumerate(scene_ids)}
    summary.results.sort(key=lambda r: order[r.scene_id])
    return summary
