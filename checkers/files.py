"""Writing the files a user keeps (records, documents, pages, figures): whole or not at all, and one writer at a time.

`write_atomically` writes beside the file, flushes it to disk and renames it over the old one, so a full disk or an
interrupt leaves the old file as it was (`save_figure` writes a figure the same way); `locked` holds an exclusive
lock on a side file while a caller reads, merges and rewrites, so two writers never lose each other's rows.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from theorems.errors import EnvironmentFault


def write_atomically(path: Path, text: str) -> None:
    """Replace `path`'s content by `text`, or leave it untouched and raise `EnvironmentFault` naming it and why."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(partial, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise EnvironmentFault(f"cannot write {str(path)!r}: {error.strerror or error}; it is left as it was") \
            from None


def save_figure(figure, path: Path, **options) -> Path:
    """Write a matplotlib figure to `path` (its format from the suffix) as `write_atomically` writes text: beside it,
    then renamed over it, or not at all, with `EnvironmentFault` naming it and why."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        figure.savefig(partial, format=path.suffix.lstrip("."), **options)
        os.replace(partial, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise EnvironmentFault(f"cannot write {str(path)!r}: {error.strerror or error}") from None
    return path


@contextlib.contextmanager
def locked(path: Path):
    """An exclusive lock for rewriting `path`, held on `path`.lock beside it (which stays, empty)."""
    path = Path(path)
    try:
        handle = open(path.with_name(path.name + ".lock"), "a")
    except OSError as error:
        raise EnvironmentFault(f"cannot lock {str(path)!r}: {error.strerror or error}") from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def writable(path: Path, what: str) -> None:
    """Refuse, before any work, a file that could not be written where it is: a folder, or a folder that is missing or
    read-only (`EnvironmentFault` naming it)."""
    path = Path(path)
    if path.is_dir():
        raise EnvironmentFault(f"{what} {str(path)!r} is a folder, not a file")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise EnvironmentFault(f"{what} {str(path)!r}: its folder does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise EnvironmentFault(f"{what} {str(path)!r} cannot be written here (permission denied)")
