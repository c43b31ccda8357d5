"""Where renders run: a local process pool that stops cleanly, or a Dask cluster.

Both run the same tasks (:func:`publish.rendering.pipeline.run_job` for a whole scene
rendered into ``OUT``, or the byte-returning tasks of :mod:`publish.rendering.split`).

**Interrupts.** :func:`stop_signals` turns SIGTERM (what ``timeout`` and
``kill`` send) into the same :class:`Interrupted` as Ctrl-C. On either,
:meth:`LocalPool.stop` ends every worker *before* the caller prints its
"interrupted" line: nothing queued starts, a running scene's worker removes
its work folder and exits, and nothing is written afterwards. Workers also
die with the parent: ``prctl(PR_SET_PDEATHSIG)`` on Linux, and a thread that
polls the parent's pid everywhere else (or when the parent is SIGKILLed
before the first). A worker never takes a second job after a signal.

**Dask.** :class:`DaskPool` submits the same tasks to a ``distributed``
cluster (a scheduler address, or a ``LocalCluster`` started here). Its
workers may be other machines without access to ``OUT``, so their tasks
return the finished files as bytes, and the caller writes them into ``OUT``
with the same atomic move and cache records as a local render
(:func:`publish_files`).
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

__all__ = ["Interrupted", "WorkerStopped", "SchedulerError", "stop_signals", "LocalPool", "DaskPool", "Outcome",
           "publish_files", "collect_files", "track_work", "untrack_work"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PR_SET_PDEATHSIG = 1
_GRACE = 1.5  # seconds a stopped worker gets to remove its work folder before SIGKILL


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM in the main process; ``signum`` says which."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class SchedulerError(RuntimeError):
    """The Dask scheduler given cannot be reached (a user's mistake: one line, no traceback)."""


class WorkerStopped(BaseException):
    """Raised inside a worker's job by SIGINT/SIGTERM: unwinds (work folders
    are removed by ``finally``) and ends the process, never the next job."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum: int, frame: Any) -> None:
    raise Interrupted(signum)


@contextmanager
def stop_signals() -> Iterator[None]:
    """SIGTERM raises :class:`Interrupted` like Ctrl-C, for the block (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _signals_ignored() -> Iterator[None]:
    """No second Ctrl-C or SIGTERM breaks the clean-up after the first."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


# -- worker side ------------------------------------------------------------------

_in_job = False
_stopping = False
#: Work folders this process is filling now (see :func:`work_folder`).
_work_dirs: set[Path] = set()


def track_work(path: Path) -> Path:
    """Note that this process is filling the work folder ``path`` (removed by
    its owner's ``finally``, and by :func:`untrack_work`'s caller); if the
    process must exit mid-job after its parent died (a busy worker may not
    unwind within the grace time), the folder is removed before it exits."""
    _work_dirs.add(path)
    return path


def untrack_work(path: Path) -> None:
    _work_dirs.discard(path)


def _exit_now(code: int) -> None:
    for path in list(_work_dirs):
        shutil.rmtree(path, ignore_errors=True)
    os._exit(code)


def _on_stop_signal(signum: int, frame: Any) -> None:
    global _stopping
    if _stopping:
        return  # a second signal (Ctrl-C, then the parent's SIGTERM) must not break the clean-up
    _stopping = True
    if _in_job:
        raise WorkerStopped(signum)
    os._exit(128 + signum)  # idle between jobs: nothing to clean


def _deliver_again(hook_args: Any) -> None:
    """``sys.unraisablehook`` of a worker: a stop that landed inside a weakref
    callback or a ``__del__`` (where Python prints and drops exceptions) is
    sent again from a thread, to be raised at the job's next line instead."""
    global _stopping
    if isinstance(hook_args.exc_value, WorkerStopped):
        _stopping = False
        threading.Thread(target=_send_until_raised, args=(hook_args.exc_value.signum,), daemon=True).start()
        return
    sys.__unraisablehook__(hook_args)


def _send_until_raised(signum: int) -> None:
    # Sent from here, not from the hook: the hook itself runs inside the finaliser.
    while not _stopping:
        time.sleep(0.05)
        if not _stopping:
            os.kill(os.getpid(), signum)


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(0.25)
        if os.getppid() != parent_pid:
            # The parent is gone (killed): stop as on SIGTERM, then for sure.
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(_GRACE)
            _exit_now(128 + signal.SIGTERM)  # still unwinding: remove its work folders here


def _die_with_parent(parent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # died before prctl took effect
        os._exit(128 + signal.SIGTERM)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="watch-parent", daemon=True).start()


def _worker_init(parent_pid: int) -> None:
    try:
        # tqdm (manim's progress bars) otherwise makes a multiprocessing lock, a
        # semaphore that a stopped worker leaves behind and Python warns about.
        from tqdm import tqdm

        tqdm.set_lock(threading.RLock())
    except ImportError:
        pass
    for s in STOP_SIGNALS:
        signal.signal(s, _on_stop_signal)
    sys.unraisablehook = _deliver_again
    _die_with_parent(parent_pid)
    # Every task of this worker renders: Manim's speedups once, here (the parent's
    # environment is this worker's, ATTENTION_SPEEDUPS=off included).
    from publish.rendering.render_setup import install_speedups

    install_speedups()


def _run_in_worker(fn: Callable[[Any], Any], arg: Any) -> Any:
    global _in_job
    _in_job = True
    try:
        return fn(arg)
    except WorkerStopped as stop:
        os._exit(128 + stop.signum)  # after the job's finally blocks cleaned up
    finally:
        _in_job = False


# -- the pools --------------------------------------------------------------------

@dataclass
class Outcome:
    """One finished task: its argument, and its return value or the error that ended it."""

    task: Any
    value: Any = None
    error: str = ""


class LocalPool:
    """``workers`` spawned processes; at most one task per free worker is handed
    out, so an interrupt never leaves queued work that a worker would start."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("spawn"),
                                         initializer=_worker_init, initargs=(os.getpid(),))

    def run(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Outcome]:
        """Yield an :class:`Outcome` per task as each finishes (any order).

        ``tasks`` may grow while this runs (a list appended to by the caller
        when an outcome calls for more work, as a split scene's join does).
        """
        pending: dict[Future, tuple[Any, Any]] = {}  # future -> (task, the executor it ran on)
        queue = tasks if isinstance(tasks, list) else list(tasks)
        taken = 0
        again: list[Any] = []  # tasks a dead worker's broken executor took down, to run once more
        tried_again: set[int] = set()
        while taken < len(queue) or again or pending:
            while (again or taken < len(queue)) and len(pending) < self.workers:
                if again:
                    task = again.pop(0)
                else:
                    task, taken = queue[taken], taken + 1
                future = self._pool.submit(_run_in_worker, fn, task)
                pending[future] = (task, self._pool)
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                task, pool = pending.pop(future)
                try:
                    yield Outcome(task, future.result())
                except BrokenProcessPool as exc:
                    if pool is self._pool:  # once per broken executor, not per task it held
                        self._restart()
                    # One killed worker breaks the executor and every task it
                    # held, healthy ones too (which worker died is not known):
                    # each runs once more on a fresh worker; a second death fails it.
                    if id(task) not in tried_again:
                        tried_again.add(id(task))
                        again.append(task)
                    else:
                        yield Outcome(task, error=f"worker process died ({exc or 'killed'})")
                except Exception as exc:  # a task's own errors are results, not raised
                    yield Outcome(task, error=f"{type(exc).__name__}: {exc}")

    def _restart(self) -> None:
        # A killed worker breaks the whole executor: carry on with a fresh one.
        self.stop()
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("spawn"),
                                         initializer=_worker_init, initargs=(os.getpid(),))

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def stop(self) -> None:
        """End every worker now (SIGTERM, then SIGKILL after a grace time) and wait for them."""
        with _signals_ignored():
            processes = list((getattr(self._pool, "_processes", None) or {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for proc in processes:
                if proc.is_alive():
                    try:
                        os.kill(proc.pid, signal.SIGTERM)
                    except ProcessLookupError:
                        pass
            deadline = time.monotonic() + _GRACE
            for proc in processes:
                proc.join(max(0.0, deadline - time.monotonic()))
            for proc in processes:
                if proc.is_alive():
                    proc.kill()
                    proc.join(5)
            self._pool.shutdown(wait=True)  # workers gone: release the queues and their semaphores


#: Seconds a scheduler address may take to answer (the README promises 10 s).
SCHEDULER_TIMEOUT = 10.0
_DASK_LOGGERS = ("distributed", "tornado", "bokeh", "asyncio")


def _quiet_dask() -> None:
    """Only errors from dask's loggers: manim's rich handler would print its
    ~60 INFO lines (scheduler, nanny, worker registration) on every run."""
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")  # for worker processes
    for name in _DASK_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.ERROR)


#: Put first on the path of the LocalCluster's processes: Python imports it at
#: start-up, after installing its own Ctrl-C handler, so they ignore SIGINT
#: from the first line (an ignored SIGINT is not reset by exec, but a blocked or
#: handled one is, and dask spawns them from its own threads at any time).
_IGNORE_SIGINT_SITE = ("import signal, warnings\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                       # multiprocessing's resource tracker: a stopped worker's semaphore is not news
                       "warnings.filterwarnings('ignore', message='resource_tracker')\n")


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """A Ctrl-C that lands in the block is raised when it ends: a LocalCluster
    interrupted half-built fails again in dask's own exit hook, with a traceback."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def _children_ignore_sigint() -> Iterator[None]:
    """Python processes started in the block ignore Ctrl-C: the terminal sends
    it to the whole group, and each dask nanny and worker would print a
    KeyboardInterrupt traceback; this process stops them itself."""
    site = Path(tempfile.mkdtemp(prefix=f"attention-site-{os.getpid()}-"))
    (site / "sitecustomize.py").write_text(_IGNORE_SIGINT_SITE)
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(site), *([previous] if previous else [])])
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = previous
        shutil.rmtree(site, ignore_errors=True)


def _connect(client_class: Any, scheduler: str, timeout: float) -> Any:
    """A client of ``scheduler``, or :class:`SchedulerError` within ``timeout``
    seconds: whatever answers there (nothing, an HTTP server whose reply
    dask reads as a 3 EiB message, a server that accepts and stays silent)
    gives one line, never a traceback or a wait past the timeout. The
    connection runs in a daemon thread, so a handshake that never ends is
    left behind rather than waited for."""
    box: dict[str, Any] = {}

    def connect() -> None:
        try:
            box["client"] = client_class(scheduler, timeout=f"{timeout:g}s")
        except BaseException as exc:  # MemoryError from a bogus reply too
            box["error"] = exc

    thread = threading.Thread(target=connect, name="dask-connect", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler} "
                             f"(no answer within {timeout:g} s)")
    if "error" in box:
        exc = box["error"]
        if isinstance(exc, MemoryError):
            why = "what answers there is not a Dask scheduler"
        else:
            why = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}".rstrip(": ")
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler} ({why})")
    return box["client"]


class DaskPool:
    """The same tasks on a Dask ``distributed`` cluster.

    ``scheduler``: the address of a running scheduler (``tcp://host:8786``);
    ``None`` starts a ``LocalCluster`` of ``workers`` single-threaded worker
    processes here, closed again by :meth:`close`.
    """

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        _quiet_dask()
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - dask is a dependency
            raise RuntimeError("the dask executor needs the 'distributed' package") from exc
        _quiet_dask()  # importing distributed sets its loggers back to INFO
        self.cluster = None
        if scheduler is None:
            n = max(1, workers or os.cpu_count() or 1)
            # One thread per worker: a manim render is single-threaded and not thread-safe.
            with _children_ignore_sigint(), _sigint_deferred():
                self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                            dashboard_address=":0", silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        else:
            self.client = _connect(Client, scheduler, SCHEDULER_TIMEOUT)
        # Every worker, those that join later too, installs Manim's speedups once.
        from publish.rendering.dask_plugin import SpeedupsPlugin  # imports distributed

        self.client.register_plugin(SpeedupsPlugin())
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})) or (workers or 1))

    def run(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Outcome]:
        from distributed import as_completed

        queue = tasks if isinstance(tasks, list) else list(tasks)
        # pure=False: the same task submitted twice (--force) really runs twice.
        futures = {self.client.submit(fn, task, pure=False): task for task in queue}
        done = as_completed(list(futures))
        self._futures = futures
        taken = len(queue)
        for future in done:
            task = futures[future]
            try:
                yield Outcome(task, future.result())
            except Exception as exc:
                yield Outcome(task, error=f"{type(exc).__name__}: {exc}")
            while taken < len(queue):  # work the caller added meanwhile
                new = self.client.submit(fn, queue[taken], pure=False)
                futures[new] = queue[taken]
                done.add(new)
                taken += 1

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def stop(self) -> None:
        """Cancel what was submitted, then close (a LocalCluster's processes end with it)."""
        with _signals_ignored():
            try:
                self.client.cancel(list(getattr(self, "_futures", {})), force=True)
            except Exception:
                pass
            self.close()


# -- files that come back as bytes ---------------------------------------------------

def collect_files(paths: Iterable[Path], root: Path) -> dict[str, bytes]:
    """``{path relative to root: bytes}`` of rendered files, for a task to return.

    Paths keep the output folder's layout (``<name>.<format>``, and
    ``<name>/<nn>-<step>.<format>`` with steps) so :func:`publish_files`
    puts each where a local render would.
    """
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in paths}


def publish_files(out_dir: Path, stem: str, files: dict[str, bytes],
                  keys: dict[str, dict[str, str]] | None, work_prefix: str) -> list[Path]:
    """Write files a remote task returned into ``out_dir`` as a local render does.

    Each goes to a temporary folder inside ``out_dir`` first and is moved to
    its final path when complete; the cache records follow, each listing the
    step files written with its format.
    """
    from publish.rendering import cache

    work = Path(tempfile.mkdtemp(prefix=f"{work_prefix}{os.getpid()}-{stem}-", dir=out_dir))
    written = []
    try:
        for name, data in files.items():
            if not data:
                raise RuntimeError(f"no output produced for {name}")
            final = out_dir / name
            if final.resolve().parent != out_dir.resolve() and final.resolve().parent.parent != out_dir.resolve():
                raise RuntimeError(f"a task returned a file outside the output folder: {name}")
            tmp = work / f"final-{len(written)}{final.suffix}"
            tmp.write_bytes(data)
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, final)
            written.append(final)
        for fmt, key in (keys or {}).items():
            if f"{stem}.{fmt}" not in files:
                raise RuntimeError(f"no output produced for {stem}.{fmt}")
            steps = sorted(n for n in files if n.startswith(f"{stem}/") and n.endswith(f".{fmt}"))
            cache.write_record(out_dir, stem, fmt, key, steps)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return written
