"""``render.py post --serve``: the page on 127.0.0.1, rebuilt when its sources change.

Serves ``SITE`` over HTTP on the loopback interface only. Watches the draft,
the numbers file, the link table and the scene code (``scenes/``,
``attention_core/``); on a change it rebuilds the page (``render.py post`` in
a fresh process, so edited scene code is imported anew, and the pipeline's
cache re-renders only what changed) and tells the open page to reload over a
Server-Sent Events stream (``/__events``). The reload script is added to the
page as it is served, never written into ``SITE/index.html``. Ctrl-C stops
the watcher and the server and returns; no traceback.
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

__all__ = ["RELOAD_SCRIPT", "ReloadHub", "make_server", "serve_post", "watched_paths"]

ROOT = Path(__file__).resolve().parents[1]
RELOAD_SCRIPT = ('<script>new EventSource("/__events").addEventListener("reload", '
                 '() => location.reload());</script>')


class ReloadHub:
    """A build counter the event streams wait on."""

    def __init__(self) -> None:
        self.generation = 0
        self.stopped = False
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
        def log_message(self, *args) -> None:  # the terminal shows builds, not requests
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = self.path.split("?", 1)[0]
            if path == "/__events":
                return self._events()
            if path in ("/", "/index.html"):
                return self._page()
            return super().do_GET()

        def _page(self) -> None:
            try:
                text = (site / "index.html").read_text(encoding="utf-8")
            except OSError:
                text = "<!DOCTYPE html><title>building</title><p>The page is being built.</p></body>"
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


def make_server(site: Path, hub: ReloadHub, port: int) -> http.server.ThreadingHTTPServer:
    """An HTTP server of ``site`` on 127.0.0.1:``port`` (0: any free port)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _handler(site, hub))
    server.daemon_threads = True
    return server


def watched_paths(draft: Path, links: Path | None, numbers: str | None) -> list[Path]:
    """The files and folders whose change rebuilds the page."""
    paths = [draft.resolve(), ROOT / "scenes", ROOT / "attention_core", ROOT / "publish" / "post_links.toml"]
    beside = draft.resolve().parent / "post.toml"
    paths.append(Path(links).resolve() if links else beside)
    if numbers:
        paths.append(Path(numbers).resolve())
    return paths


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
    """Build, serve and rebuild on change until Ctrl-C."""
    import logging

    import watchfiles

    logging.getLogger("watchfiles").setLevel(logging.ERROR)  # its "KeyboardInterrupt caught" line

    command = _build_command(draft, site, links, numbers, quality, themes, jobs)
    hub = ReloadHub()

    def build() -> None:
        # A fresh process: scene code edited since the last build is imported anew.
        done = subprocess.run(command, cwd=ROOT, check=False)
        if done.returncode == 0:
            hub.bump()
        else:
            echo("post: the build failed (above); the page shows the last good build")

    try:
        server = make_server(site, hub, port)
    except OSError as exc:
        from .post import PostError

        raise PostError(f"--serve: cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})") from None
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    echo(f"serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
    stop = threading.Event()
    paths = watched_paths(draft, links, numbers)
    folders = sorted({p if p.is_dir() else p.parent for p in paths})
    targets = {str(p) for p in paths}

    def relevant(change: object, path: str) -> bool:
        if path.endswith((".part", ".pyc")) or "__pycache__" in path:
            return False
        return path in targets or any(path.startswith(str(p) + "/") for p in paths if p.is_dir())

    try:
        build()
        for changes in watchfiles.watch(*folders, watch_filter=relevant, stop_event=stop,
                                        raise_interrupt=False, debounce=400):
            names = ", ".join(sorted({Path(p).name for _, p in changes}))
            echo(f"changed: {names}; rebuilding")
            build()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        hub.stop()
        server.shutdown()
        server.server_close()
        echo("stopped")
