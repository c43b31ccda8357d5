"""What ``render.py post`` owns in SITE, and nothing else (issue 33).

- :func:`check_site`: refuses, in one line and before anything renders, a SITE
  that is ``/``, the home folder or a folder holding the draft; a
  ``SITE/figures`` or ``SITE/media`` that is a file or a link out of SITE; a
  folder named ``SITE/index.html``; and an ``index.html`` the build did not
  write (unless ``force``).
- A manifest, ``SITE/.cache/post-manifest.json``: every file the build wrote
  (the page, its figure crops, its published media) and the page's sha256.
  :func:`remove_unlisted` removes only files that the last manifest lists and
  this build did not write again; a path through a symlink is never removed.
- :func:`publish_media`: the page names each clip, poster, caption track and
  figure by its content (``v/<sha256 prefix>/<name>``), a link or copy of the
  file the renders wrote. A later build that is interrupted, or whose scene
  fails, may replace ``media/...`` but never a file the current page names:
  the page and what it shows change together, when the page is swapped in.

Files are written 0644 and folders 0755 under the umask. Manim-free.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Iterable
from urllib.parse import quote, unquote

__all__ = ["copy_into_place", "SiteError", "MANIFEST", "PUBLISHED", "check_site", "read_manifest", "write_manifest",
           "index_is_ours", "remove_unlisted", "publish_media", "inside", "public_mode", "sha256_file"]

MANIFEST = Path(".cache") / "post-manifest.json"
#: The folder of content-named copies the page shows.
PUBLISHED = "v"
#: The folders of SITE the build writes into.
_OWN_FOLDERS = ("figures", "media", PUBLISHED)


class SiteError(ValueError):
    """A SITE the build must not write into; one line."""


def _umask() -> int:
    """The process's umask, read without setting it where Linux shows it (setting it to read it
    leaves a moment in which another thread's new file gets mode 0666)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def public_mode(path: Path | str, folder: bool = False) -> None:
    """0644 (0755 for a folder) under the umask: a web server must read the page; mkstemp makes 0600."""
    os.chmod(path, (0o777 if folder else 0o666) & ~_umask())


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def inside(site: Path, path: Path) -> bool:
    """Whether ``path`` (under ``site``) reaches its file through no symlink: every component from
    ``site`` down is a real folder or file, so removing it removes nothing outside SITE."""
    try:
        rel = path.relative_to(site)
    except ValueError:
        return False
    if ".." in rel.parts:
        return False
    current = site
    for part in rel.parts:
        current = current / part
        if current.is_symlink():
            return False
    return True


# -- the manifest ------------------------------------------------------------------

def read_manifest(site: Path) -> dict:
    """The last build's manifest: ``{"files": [...], "index": sha256}``; empty when there is none."""
    try:
        data = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
        files = [str(f) for f in data.get("files", []) if isinstance(f, str)]
        return {"files": files, "index": str(data.get("index", ""))}
    except (OSError, ValueError, AttributeError, TypeError):
        return {"files": [], "index": ""}


def write_manifest(site: Path, files: Iterable[str], index_sha256: str) -> None:
    from publish.rendering import cache

    cache.atomic_write_text(site / MANIFEST, json.dumps({"files": sorted(set(files)), "index": index_sha256},
                                                        indent=0))


def index_is_ours(site: Path) -> bool:
    """Whether ``SITE/index.html`` is the page the last build wrote (its sha256 is in the manifest);
    a site built before the manifest existed is recognised by its stamp (size and time)."""
    page = site / "index.html"
    try:
        recorded = read_manifest(site)["index"]
        if recorded:
            return sha256_file(page) == recorded
        stamp = json.loads((site / ".cache" / "post.json").read_text(encoding="utf-8"))
        st = page.stat()
        return stamp["files"]["index.html"] == [st.st_size, st.st_mtime_ns]
    except (OSError, ValueError, KeyError, TypeError):
        return False


# -- the folder ---------------------------------------------------------------------

def _short(path: Path | str, limit: int = 80) -> str:
    text = str(path)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_site(site: Path, draft: Path | None = None, force: bool = False) -> None:
    """Raise :class:`SiteError` (one line) when the build must not write into ``site``."""
    site = Path(site)
    try:
        real = site.resolve()
        home = Path.home().resolve()
        if real == Path(real.anchor):
            raise SiteError(f"--out {_short(site)}: the root folder; give a folder of its own for the site")
        if real == home:
            raise SiteError(f"--out {_short(site)}: your home folder; give a folder of its own for the site")
        if draft is not None:
            folder = Path(draft).resolve().parent
            if folder == real or real in folder.parents:
                raise SiteError(f"--out {_short(site)}: holds the draft itself; give a folder of its own "
                                f"for the site (the build writes index.html, figures/ and media/ there)")
        if not site.exists():
            return
        if not site.is_dir():
            raise SiteError(f"output folder {_short(site)}: exists and is not a folder")
        for name in _OWN_FOLDERS + (".cache",):
            path = site / name
            if path.is_symlink():
                target = path.resolve()
                if target != real and real not in target.parents:
                    raise SiteError(f"output folder {_short(site)}: {name} is a link to {_short(target)}, "
                                    f"outside the site; the build writes and removes files there, so it "
                                    f"stops (make {name} a folder of the site)")
            if path.exists() and not path.is_dir():
                raise SiteError(f"output folder {_short(site)}: {name} exists and is not a folder "
                                f"(the build keeps its {name} there)")
            if name != ".cache" and path.is_dir() and not path.is_symlink():
                for child in path.iterdir():  # media/light, figures/dark: where the files are written
                    if child.is_symlink() and child.is_dir():
                        target = child.resolve()
                        if target != real and real not in target.parents:
                            raise SiteError(f"output folder {_short(site)}: {name}/{child.name} is a link to "
                                            f"{_short(target)}, outside the site; the build writes and "
                                            f"removes files there, so it stops")
        page = site / "index.html"
        if page.is_dir() or page.is_symlink():
            raise SiteError(f"output folder {_short(site)}: index.html is a "
                            f"{'folder' if page.is_dir() else 'link'}, not a page this build wrote")
        if page.exists() and not force and not index_is_ours(site):
            raise SiteError(f"output folder {_short(site)}: index.html was not written by render.py post "
                            f"(no record of it in .cache); move it away, or pass --force to replace it")
    except OSError as exc:
        raise SiteError(f"output folder {_short(site)}: cannot write there ({exc.strerror or exc})") from None


# -- what the build wrote, and only that, is removed --------------------------------------------

def remove_unlisted(site: Path, previous: Iterable[str], written: Iterable[str],
                    prune_within: Path | None = None) -> list[str]:
    """Remove the files the last build wrote (``previous``, its manifest) that this build did not
    write again (``written``); nothing else, and nothing reached through a symlink. Returns them.

    A folder emptied by it goes too: one of ours under SITE (``v/<hash>/``, never SITE's own
    folders), or, with ``prune_within``, only a folder strictly inside that one (a site
    generator's media folder of this post)."""
    keep = set(written)
    removed = []
    for rel in sorted(set(previous) - keep):
        path = site / rel
        if rel.startswith("/") or not inside(site, path) or not path.is_file():
            continue
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(rel)
        # An emptied folder of ours goes too (v/<hash>/), never SITE's own folders.
        parent = path.parent
        while (parent != site and inside(site, parent) and (
                parent.name not in _OWN_FOLDERS if prune_within is None
                else prune_within in parent.parents)):
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent
    return removed


# -- the page names its media by content ------------------------------------------------------------

_ATTRIBUTE = re.compile(r'(\s[a-zA-Z-]+=")([^"]*)(")')


def _publish_one(site: Path, rel: str, done: dict[str, str]) -> str | None:
    """``v/<hash>/<name>`` for the file ``rel`` of SITE (made once), or ``None`` when not ours to name."""
    if rel in done:
        return done[rel]
    source = site / rel
    if not inside(site, source) or not source.is_file():
        return None
    digest = sha256_file(source)[:16]
    target_rel = f"{PUBLISHED}/{digest}/{source.name}"
    target = site / target_rel
    if not target.is_file() or target.stat().st_size != source.stat().st_size:
        copy_into_place(source, target)
    done[rel] = target_rel
    return target_rel


def copy_into_place(source: Path, target: Path, hard_link: bool = False) -> None:
    """``source`` at ``target`` whole or not at all: written beside it under a temporary name
    (hard-linked when ``hard_link`` and the file system allows, else copied and made readable
    by a web server), then moved into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    try:
        linked = False
        if hard_link:
            os.unlink(tmp)
            try:
                os.link(source, tmp)
                linked = True
            except OSError:
                pass
        if not linked:
            shutil.copyfile(source, tmp)
            public_mode(tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def publish_media(site: Path, pieces: list[str]) -> tuple[list[str], list[str]]:
    """Our figures and clips (``pieces``, their HTML) with every attribute naming a file of
    ``media/`` or ``figures/`` renamed to its content-named copy (see the module docstring); and
    those copies, relative to SITE. The draft's own links are not in ``pieces``: never renamed."""
    import html

    site = Path(site)
    done: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        rel = unquote(html.unescape(match.group(2)))
        if "://" in rel or not rel.startswith(("media/", "figures/")) or ".." in Path(rel).parts:
            return match.group(0)
        new = _publish_one(site, rel, done)
        if new is None:
            return match.group(0)
        return match.group(1) + html.escape(quote(new)) + match.group(3)

    return [_ATTRIBUTE.sub(rename, piece) for piece in pieces], sorted(set(done.values()))
