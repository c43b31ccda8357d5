"""Edges (issue 25): hostile inputs, interrupts, killed workers, odd folders,
a misbehaving Dask scheduler. Each test failed on the code before the fix.

Every case ends in one line and exit 2, or exit 130 on an interrupt, never a
traceback, never a hang; a killed worker costs only its own scene; no
temporary folder outlives a dead run. Kill and interrupt tests wait for a
marker (a work folder appears) and hold the scene on a file the test creates
(``RENDER_TEST_HOLD``), so nothing depends on timing.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
#: Runs render.main() with the test scenes (tests/render_scenes.py) registered.
MAIN = ("import sys; sys.path.insert(0, sys.argv[1]); del sys.argv[1]; "
        "from tests import render_scenes; render_scenes.register(); import render; render.main()")


def _main(*args: str, env: dict | None = None, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([PY, "-c", MAIN, str(ROOT), *args], cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            **kwargs)


def _wait_for(predicate, proc: subprocess.Popen, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, (what, proc.communicate())
        assert time.monotonic() < deadline, f"no {what} after {timeout} s"
        time.sleep(0.05)


def _render(*args: str, timeout: float = 60, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "render.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def _one_line(proc: subprocess.CompletedProcess, *needles: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in last, last
    return last


# -- files that are not files ---------------------------------------------------------


def test_special_files_as_numbers_are_refused_without_reading_or_blocking(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # opened for reading, it would block until a writer comes: forever
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * 2_000_000 + "\n")  # a 2 MB comment: valid TOML, too large
    for path, says in ((fifo, "not a regular file"), ("/dev/zero", "not a regular file"),
                       (loop, "loop of symbolic links"), (big, "larger than")):
        proc = _render("numbers", "--numbers", str(path), timeout=30)
        _one_line(proc, f"numbers file {path}", says)


def test_deeply_nested_array_is_one_line(tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    _one_line(_render("numbers", "--numbers", str(deep)), "nested too deeply")
    shallow = tmp_path / "shallow.toml"  # parses, but deeper than any table needs
    shallow.write_text("[dot_product]\nfeatures = " + "[" * 40 + "]" * 40 + "\n")
    _one_line(_render("numbers", "--numbers", str(shallow)), "nested more than 16 deep")


# -- arguments --------------------------------------------------------------------------


@pytest.mark.parametrize("args,says", [
    (["--jobs", "\u00b2"], "--jobs must be a whole number"),
    (["--split", "\u00b2"], "--split must be a whole number"),
    (["--jobs", "\u0663"], "--jobs must be a whole number"),  # Arabic-Indic three
    (["--out", "x" * 300], "File name too long"),
])
def test_unicode_digits_and_long_names_are_one_line(args, says, tmp_path):
    out = ["--out", str(tmp_path / "out")] if "--out" not in args else []
    proc = subprocess.run([PY, str(ROOT / "render.py"), "render", "dot_product", *out, *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    line = _one_line(proc, says)
    assert len(line) < 300, line  # a 300-letter name is cut in the message


def test_numbers_init_on_a_full_disk_leaves_no_cut_file(tmp_path):
    # RLIMIT_FSIZE makes every write past 4 kB fail (EFBIG), as a full disk does.
    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    proc = subprocess.run([PY, str(ROOT / "render.py"), "numbers", "--init", "start.toml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, preexec_fn=small_disk)
    _one_line(proc, "--init: cannot write start.toml")
    assert list(tmp_path.iterdir()) == []  # neither a cut start.toml nor a temporary file
    ok = _render("numbers", "--init", str(tmp_path / "start.toml"))
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "start.toml").stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert _render("numbers", "--numbers", str(tmp_path / "start.toml")).returncode == 0


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- interrupts -------------------------------------------------------------------------


def test_ctrl_c_before_the_command_handles_it_exits_130_without_aborted():
    # SIGINT while the numbers are loaded (manim and numpy imports, the first
    # second of a run): click's standalone mode said "Aborted!" and exited 1.
    code = ("import os, signal, sys, time; sys.path.insert(0, sys.argv[1]); import render\n"
            "def interrupted(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGINT); time.sleep(30)\n"
            "render._load_trace = interrupted\n"
            "sys.argv = ['render.py', 'render', 'dot_product', '--out', sys.argv[2]]\n"
            "render.main()\n")
    proc = subprocess.run([PY, "-c", code, str(ROOT), "/nonexistent/never-made"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert "Aborted" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().endswith("run again to resume"), proc.stderr


def test_ctrl_c_while_render_py_loads_its_modules_is_one_line_and_130():
    # SIGINT while `python render.py` imports click (a second on a loaded machine, before main()
    # can answer it): the traceback of the import it landed in, and exit 1.
    code = ("import os, runpy, signal, sys\n"
            "class Interrupt:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'click':\n"
            "            os.kill(os.getpid(), signal.SIGINT)\n"
            "        return None\n"
            "sys.meta_path.insert(0, Interrupt())\n"
            "sys.argv = [sys.argv[1], '--help']\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    proc = subprocess.run([PY, "-c", code, str(ROOT / "render.py")], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.strip().splitlines() == ["interrupted: finished files are kept, unfinished ones were "
                                                "discarded; run again to resume"], proc.stderr
    # Started with Ctrl-C ignored (a background job of a script), it stays ignored.
    started_ignoring = ("import signal, subprocess, sys\n"
                        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                        "sys.exit(subprocess.run([sys.executable, '-c', sys.argv[1], sys.argv[2]]).returncode)\n")
    proc = subprocess.run([PY, "-c", started_ignoring, code, str(ROOT / "render.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Usage:" in proc.stdout, (proc.returncode, proc.stderr)


def test_sigkill_of_one_worker_fails_no_other_scene(tmp_path):
    hold = tmp_path / "go"
    out = tmp_path / "out"
    proc = _main("render", "tiny", "tiny_poster", "--jobs", "2", "--format", "mp4", "--out", str(out),
                 env={"RENDER_TEST_HOLD": str(hold)})
    _wait_for(lambda: len(list(out.glob(".rendering-*"))) == 2, proc, "two scenes rendering")
    victim = int(sorted(out.glob(".rendering-*"))[0].name.split("-")[1])  # the pid in its work folder
    os.kill(victim, signal.SIGKILL)
    _wait_for(lambda: not psutil.pid_exists(victim) or psutil.Process(victim).status() == psutil.STATUS_ZOMBIE,
              proc, "the killed worker gone")
    hold.touch()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "2 rendered" in err and "failed" not in err.replace("0 failed", ""), err
    assert (out / "tiny.mp4").stat().st_size > 0 and (out / "tiny_poster.mp4").stat().st_size > 0


def test_renaming_out_mid_run_is_named(tmp_path):
    hold = tmp_path / "go"
    out = tmp_path / "out"
    proc = _main("render", "tiny", "--jobs", "1", "--format", "mp4", "--out", str(out),
                 env={"RENDER_TEST_HOLD": str(hold)})
    _wait_for(lambda: list(out.glob(".rendering-*")), proc, "a scene rendering")
    out.rename(tmp_path / "renamed")
    hold.touch()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "Traceback" not in err, err
    assert f"the output folder {out} was moved or deleted while rendering" in err, err
    assert "<none>" not in err


# -- folders Manim mishandles -------------------------------------------------------------


@pytest.mark.parametrize("name", ["Bob's clips", "br{a}ces", 'say "hi"'])
def test_out_folder_with_quotes_or_braces_renders(name, tmp_path):
    out = tmp_path / name
    proc = _main("render", "tiny", "--jobs", "1", "--format", "mp4", "--out", str(out))
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert (out / "tiny.mp4").stat().st_size > 0
    assert not [p for p in out.iterdir() if p.name.startswith(".rendering-")]


# -- temporary folders ------------------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([PY, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temp_folders_are_swept_and_live_ones_kept(tmp_path):
    from publish.rendering.pipeline import clean_stale_temp

    dead, live = _dead_pid(), os.getpid()
    stale = [tmp_path / f".rendering-{dead}-encoder-part1-abc", tmp_path / f"attention-remote-{dead}-xyz",
             tmp_path / f"attention-join-{dead}-q", tmp_path / f"attention-media-{dead}-r"]
    kept = [tmp_path / f".rendering-{live}-encoder-part0-abc", tmp_path / f"attention-remote-{live}-xyz",
            tmp_path / "attention-render-tex-0", tmp_path / "someone-elses"]
    reused = tmp_path / f"attention-remote-{live}-old"  # made before this process started: its pid was reused
    for path in (*stale, *kept, reused):
        path.mkdir()
        (path / "part.mp4").write_bytes(b"x")
    started = psutil.Process(live).create_time()
    os.utime(reused, (started - 3600, started - 3600))
    removed = clean_stale_temp(tmp_path)
    assert sorted(removed) == sorted([*stale, reused])
    assert all(p.is_dir() for p in kept)


def test_a_run_sweeps_the_temp_dir_at_start(tmp_path, monkeypatch):
    import tempfile

    from publish.rendering.pipeline import run_renders
    from tests.helpers import default_data, trace_from

    stale = tmp_path / f".rendering-{_dead_pid()}-tiny-part1-abc"
    stale.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    run_renders([], trace_from(default_data()), tmp_path / "out", "low", ("mp4",), "dark", 1, False,
                echo=lambda line: None, registry={})
    assert not stale.exists()


# -- a Dask scheduler that is not one -------------------------------------------------------------


def _serve(kind: str) -> tuple[int, threading.Event]:
    """A TCP server that answers like HTTP, or accepts and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()
    held = []

    def loop() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)
            if kind == "http":
                try:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.0 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>no</html>")
                except OSError:
                    pass
        server.close()

    threading.Thread(target=loop, daemon=True).start()
    return server.getsockname()[1], stop


def test_a_scheduler_that_is_not_dask_gives_one_line_within_the_promised_time(tmp_path):
    servers = {kind: _serve(kind) for kind in ("http", "silent")}
    try:
        procs = {kind: subprocess.Popen(
            [PY, "render.py", "render", "dot_product", "--executor", "dask", "--scheduler",
             f"tcp://127.0.0.1:{port}", "--out", str(tmp_path / kind)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for kind, (port, _) in servers.items()}
        for kind, proc in procs.items():
            _, err = proc.communicate(timeout=90)
            assert proc.returncode == 2 and "Traceback" not in err, (kind, err[-2000:])
            assert err.strip().splitlines()[-1].startswith("error: cannot reach the Dask scheduler"), (kind, err)
            assert len(err.strip().splitlines()) <= 2, (kind, err)  # no INFO lines, no "EiB"
    finally:
        for _, stop in servers.values():
            stop.set()


def test_the_connect_timeout_is_honoured():
    # The connection itself, timed alone (the CLI's imports would blur it).
    from publish.rendering.executors import SchedulerError, _connect

    class NeverAnswers:
        def __init__(self, address, timeout):
            time.sleep(60)

    start = time.monotonic()
    with pytest.raises(SchedulerError, match="no answer within 1 s"):
        _connect(NeverAnswers, "tcp://example:1", 1.0)
    assert time.monotonic() - start < 1.5


def test_ctrl_c_during_a_dask_run_is_one_line_and_130(tmp_path):
    hold = tmp_path / "go"  # never made: the scene waits inside its worker
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = _main("render", "tiny", "--executor", "dask", "--jobs", "1", "--format", "mp4",
                 "--out", str(tmp_path / "out"), env={"RENDER_TEST_HOLD": str(hold), "TMPDIR": str(temp)})
    _wait_for(lambda: list(temp.glob("attention-remote-*")), proc, "the worker inside the scene", timeout=120)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
    _, err = proc.communicate(timeout=180)  # over 60 s once on a loaded machine (the whole suite)
    assert proc.returncode == 130, err
    # The scene's line, then the interrupt's: no INFO lines, no nanny traceback, no warning.
    assert err.strip().splitlines() == ["tiny: rendering mp4, vtt (low, dark)",
                                        "interrupted: finished files are kept, unfinished ones were "
                                        "discarded; run again to resume"], err


# -- the translator: trained only when shown, never switched silently --------------------------------


def test_a_scene_that_shows_no_translator_never_trains_one(tmp_path, monkeypatch):
    from attention_core import compute_trace, load_numbers
    from attention_core.translator import train

    numbers = tmp_path / "n.toml"
    numbers.write_text("[model]\nsteps = 100000\nseed = 424242\n")  # minutes of training, not cached

    def no_training(*args, **kwargs):
        raise AssertionError("trained for a scene that does not show the translator")

    monkeypatch.setattr(train, "train", no_training)
    trace = compute_trace(load_numbers(numbers), ["dot_product"])
    assert trace.dot_product is not None and trace.model is None and trace.plain_model is None
    # Through the command line too (a fresh cache: nothing to load).
    proc = _render("numbers", "--numbers", str(numbers), "--scene", "dot_product", timeout=60,
                   env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 0 and "training" not in proc.stderr, proc.stderr


def test_training_for_a_scene_shows_its_progress(tmp_path):
    numbers = tmp_path / "n.toml"
    numbers.write_text("[model]\nsteps = 30\nseed = 7\n")
    proc = _render("numbers", "--numbers", str(numbers), "--scene", "encoder", timeout=120,
                   env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    assert "training the translator for your [model] settings: 30 steps" in proc.stderr
    assert "training: step 30/30 (100 %)" in proc.stderr


@pytest.mark.parametrize("extra,says", [
    ("", "network: word_embeddings, encoder: the GRU translator trained without attention, "
         "the shipped trained weights"),
    ("[encoder]\nb = [0.1, 0.2, 0.3, 0.4]\n",
     "network: word_embeddings, encoder: the small tanh RNN without attention, because the numbers file "
     "sets its values ([encoder]); add a [model] table to show the translator"),
    ("[sentences]\nsource = 'the zebra eats'\n",
     "network: word_embeddings, encoder: the small seeded tanh RNN without attention, because the trained "
     "translator does not know 'zebra'"),
])
def test_the_run_says_which_network_each_scene_shows_and_why(extra, says, tmp_path, monkeypatch):
    from click.testing import CliRunner

    import render
    from publish.rendering import pipeline

    monkeypatch.setattr(pipeline, "run_renders", lambda *a, **k: pipeline.Summary())
    numbers = tmp_path / "n.toml"
    numbers.write_text("[sizes]\nembedding = 4\nhidden = 4\n" + extra)
    result = CliRunner().invoke(render.cli, ["render", "word_embeddings", "encoder", "dot_product",
                                             "--numbers", str(numbers), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert says in result.stderr, result.stderr
    assert "dot_product" not in result.stderr.split("network:")[1]  # it shows no network
