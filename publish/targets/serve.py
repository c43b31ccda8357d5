"""``render.py post --serve``: the page on 127.0.0.1, rebuilt when its sources change.

Serves ``SITE`` over HTTP on the loopback interface only. Watches the draft,
the numbers file, the link table and the scene code (``scenes/``,
``attention_core/``); on a change it rebuilds the page (``render.py post`` in
a fresh process, so edited scene code is imported anew, and the pipeline's
cache re-renders only what changed) and tells the open page to reload over a
Server-Sent Events stream (``/__events``). The reload script is added to the
page as it is served, never written into ``SITE/index.html``.

Ctrl-C, SIGTERM and SIGHUP stop the watcher, the build under way (the signal
is passed on: its render workers stop with it) and the server, print
"stopped" and exit 130, 143 or 129, from the "serving" line on (the handlers are in
place before it is printed), the first build included. A failed build is shown as a page that
says so (over the last good page, or instead of it when there is none); a
request the client drops, or a path no file can have (``/%00``), is answered
or dropped without a traceback; one that names another host than this machine
(a page of another site pointed at 127.0.0.1) is refused. What is watched:
:mod:`publish.targets.watch`.
"""

from __future__ import annotations

import functools
import html
import http.server
import os
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

__all__ = ["RELOAD_SCRIPT", "ReloadHub", "make_server", "serve_post", "watched_paths"]

ROOT = Path(__file__).resolve().parents[2]
RELOAD_SCRIPT = ('<script>new EventSource("/__events").addEventListener("reload", '
                 '() => location.reload());</script>')


class ReloadHub:
    """A build counter the event streams wait on; and what the last build said when it failed."""

    def __init__(self) -> None:
        self.generation = 0
        self.stopped = False
        self.failure: str | None = None  # the failed build's last lines, None after a good one
        self.building = False
        self._cond = threading.Condition()

    def bump(self) -> None:
        with self._cond:
            self.generation += 1
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self.stopped = True
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self.generation != seen or self.stopped, timeout)
            return self.generation


def _handler(site: Path, hub: ReloadHub):
    class Handler(http.server.SimpleHTTPRequestHandler):
        timeout = 60  # a client that sends half a request and waits holds no thread for ever
        def log_message(self, *args) -> None:  # the terminal shows builds, not requests
            pass

        def _foreign_host(self) -> bool:
            # A page of another site whose name was pointed at 127.0.0.1 (DNS rebinding) would be
            # let read the unpublished draft's page: only a request for this machine's names is served.
            host = (self.headers.get("Host") or "127.0.0.1").strip().lower()
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name in ("127.0.0.1", "localhost", "[::1]"):
                return False
            self.send_error(403, "Not this machine's name")
            return True

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self._foreign_host():
                return
            path = self.path.split("?", 1)[0]
            if path == "/__events":
                return self._events()
            if path in ("/", "/index.html"):
                return self._page()
            try:
                return super().do_GET()
            except ValueError:  # a path no file can have ("/%00": embedded null byte)
                self.send_error(400, "Bad request path")

        def translate_path(self, path: str) -> str:
            # A link inside SITE to a file outside it is not served (http.server follows links).
            local = super().translate_path(path)
            real = os.path.realpath(local)
            root = os.path.realpath(site)
            return local if real == root or real.startswith(root + os.sep) else ""  # "": 404

        def do_HEAD(self) -> None:  # noqa: N802
            if self._foreign_host():
                return
            try:
                return super().do_HEAD()
            except ValueError:
                self.send_error(400, "Bad request path")

        def _page(self) -> None:
            try:
                text = (site / "index.html").read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = None
            if hub.failure is not None:
                text = failure_page(hub.failure, text)
            elif text is None:
                text = ("<!DOCTYPE html><title>building</title><p>The page is being built.</p></body>"
                        if hub.building else
                        "<!DOCTYPE html><title>no page</title><p>No page yet: the first build has not "
                        "finished.</p></body>")
            body = text.replace("</body>", RELOAD_SCRIPT + "</body>", 1).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _events(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            seen = hub.generation
            try:
                while not hub.stopped:
                    now = hub.wait(seen, timeout=10.0)
                    if hub.stopped:
                        break
                    message = f"event: reload\ndata: {now}\n\n" if now != seen else ": keep-alive\n\n"
                    seen = now
                    self.wfile.write(message.encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

    return functools.partial(Handler, directory=str(site))


def failure_page(lines: str, page: str | None) -> str:
    """The failed build's message over the last good page (or alone when there is none)."""
    box = ('<div role="alert" style="border:2px solid #b00020;background:#fff4f4;color:#5c0010;'
           'padding:.8rem 1rem;margin:1rem;font:15px/1.4 system-ui,sans-serif;white-space:pre-wrap">'
           "<strong>The last build failed</strong>"
           + (" — the page below is the last good build" if page else "") + ":\n"
           + html.escape(lines) + "</div>")
    if page is None:
        return ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>build failed</title></head>'
                f"<body>{box}</body>")
    at = page.find("<body>")
    return page[:at + 6] + box + page[at + 6:] if at >= 0 else box + page


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """A client that drops its request (a closed tab, a reload) is no error of ours: no traceback."""
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, (ConnectionError, TimeoutError)):
            return
        sys.stderr.write(f"serve: a request from {client_address[0]} failed ({kind.__name__ if kind else '?'})\n")


def make_server(site: Path, hub: ReloadHub, port: int) -> http.server.ThreadingHTTPServer:
    """An HTTP server of ``site`` on 127.0.0.1:``port`` (0: any free port)."""
    return _Server(("127.0.0.1", port), _handler(site, hub))


def watched_paths(draft: Path, links: Path | None, numbers: str | None) -> list[Path]:
    """The files and folders whose change rebuilds the page (absolute, never resolved through a
    link: a folder removed and made again is the same path)."""
    draft = Path(os.path.abspath(draft))
    paths = [draft, ROOT / "scenes", ROOT / "attention_core", ROOT / "publish" / "post" / "links.toml"]
    paths.append(Path(os.path.abspath(links)) if links else draft.parent / "post.toml")
    if numbers:
        paths.append(Path(os.path.abspath(numbers)))
    return paths


class _Stop(BaseException):
    """Ctrl-C, SIGTERM or SIGHUP in --serve: stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: What stops --serve; each exits 128 + its number after the "stopped" line.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Signals:
    """The stop signals' handler: the first raises :class:`_Stop` where the main thread is, except
    inside :meth:`deferred` (a build being started, the server being started), where it is raised
    once the block is done, so nothing is left half-started (a build process nobody knows of goes
    on writing the page after the command exits). Later ones are ignored: they must not break the
    clean-up of the first."""

    def __init__(self) -> None:
        self.caught: int | None = None
        self._defer = 0

    def handler(self, signum: int, frame: object) -> None:
        if self.caught is not None:
            return
        self.caught = signum
        if not self._defer:
            raise _Stop(signum)

    @contextmanager
    def deferred(self) -> Iterator[None]:
        self._defer += 1
        try:
            yield
        finally:
            self._defer -= 1
        if not self._defer and self.caught is not None:
            raise _Stop(self.caught)


def _build_command(draft: Path, site: Path, links: Path | None, numbers: str | None, quality: str,
                   themes: tuple[str, ...], jobs: int | None) -> list[str]:
    command = [sys.executable, str(ROOT / "render.py"), "post", str(draft), "--out", str(site),
               "--quality", quality, "--theme", ",".join(themes)]
    if links:
        command += ["--links", str(links)]
    if numbers:
        command += ["--numbers", str(numbers)]
    if jobs:
        command += ["--jobs", str(jobs)]
    return command


def serve_post(draft: Path, site: Path, *, links: Path | None = None, numbers: str | None = None,
               quality: str = "low", themes: tuple[str, ...] = ("light",), jobs: int | None = None,
               port: int = 8000, echo: Callable[[str], None] = print) -> None:
    """Build, serve and rebuild on change until Ctrl-C, SIGTERM or SIGHUP; then
    ``SystemExit(128 + signal)`` after the "stopped" line."""
    from publish.targets.watch import Poller

    command = _build_command(draft, site, links, numbers, quality, themes, jobs)
    hub = ReloadHub()
    child: dict[str, subprocess.Popen | None] = {"proc": None}

    def build() -> None:
        # A fresh process: scene code edited since the last build is imported anew. Its last lines
        # are kept for the page shown when it fails.
        hub.building = True
        tail: list[str] = []
        with signals.deferred():  # a stop in Popen would leave a build running that nobody stops
            proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True, errors="replace")
            child["proc"] = proc
        for line in proc.stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
            tail = (tail + [line.rstrip("\n")])[-12:]
        code = proc.wait()
        child["proc"] = None
        hub.building = False
        if code == 0:
            hub.failure = None
        else:
            hub.failure = "\n".join(line for line in tail if line.strip()) or f"exit status {code}"
            echo("post: the build failed (above); the page says so, over the last good build if there is one")
        hub.bump()

    def stop_child(signum: int) -> None:
        proc = child["proc"]
        if proc is None or proc.poll() is not None:
            return
        try:
            # Passed on: the build stops its workers and removes its work folders, as on Ctrl-C.
            proc.send_signal(signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        except ProcessLookupError:
            pass

    signals = _Signals()
    # The handlers first, the clean-up around all the rest: a stop at any later point is answered
    # with "stopped" (a SIGTERM that landed while the server started or the watched files were
    # first read escaped the clean-up: a traceback and exit 1).
    # (One the shell started this with ignored, as it does a background job's Ctrl-C, stays so.)
    previous = {s: signal.signal(s, signals.handler) for s in STOP_SIGNALS
                if signal.getsignal(s) is not signal.SIG_IGN}
    stop = threading.Event()
    server = thread = None
    signum = None
    try:
        with signals.deferred():
            try:
                server = make_server(site, hub, port)
            except (OSError, OverflowError) as exc:
                from publish.post.build import PostError

                raise PostError(f"--serve: cannot listen on 127.0.0.1:{port} "
                                f"({getattr(exc, 'strerror', None) or exc})") from None
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
        echo(f"serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
        paths = watched_paths(draft, links, numbers)
        folders = [ROOT / "scenes", ROOT / "attention_core"]
        poller = Poller([p for p in paths if p not in folders], folders)
        build()
        for changes in poller.watch(stop):
            names = ", ".join(sorted({Path(p).name for p in changes}))
            echo(f"changed: {names}; rebuilding")
            build()
    except KeyboardInterrupt:  # raised by something else than our handler (a test's interrupt_main)
        signum = signal.SIGINT
    except _Stop as exc:
        signum = exc.signum
    finally:
        for s in previous:  # a second signal must not break the clean-up
            signal.signal(s, signal.SIG_IGN)
        stop.set()
        stop_child(signum if signum is not None else signal.SIGTERM)
        hub.stop()
        if thread is not None:
            server.shutdown()
        if server is not None:
            server.server_close()
        if signum is not None:
            echo("stopped")
        for s, handler in previous.items():
            signal.signal(s, handler)
    raise SystemExit(128 + (signum or signal.SIGINT))
