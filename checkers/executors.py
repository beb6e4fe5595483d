"""Where work runs: in this process, on a local process pool, or on a dask cluster; an interrupt ends every worker.

`workers(executor, count, scheduler)` is a context manager whose `run(calls, on_result)` runs each call
`(function, arguments)` (both picklable: a module-level function and plain data) and passes every result to
`on_result` in this process, as it finishes. `thmcheck check --workers` and the sweep machinery (sweep, calibrate)
share it, so there is one pool and one way to stop it.

Stopping: an interrupt (Ctrl-C, SIGINT or SIGTERM to the main process) or an error in `on_result` cancels what has
not started and terminates the pool's workers before it propagates, so the command ends within seconds with what
finished kept. A local worker also ends itself when its parent dies (SIGKILL of the main process alone), by
watching its parent's pid. A dask scheduler that does not answer within `CONNECT_SECONDS` (or refuses the
connection, at once) is refused as bad input.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import socket
import threading
import time
import urllib.parse
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from theorems.errors import InvalidInput

EXECUTORS = ("serial", "processes", "dask")
CONNECT_SECONDS = 10  # how long a dask scheduler may take to answer before it is refused
PARENT_POLL_SECONDS = 0.5  # how often a local worker looks whether its parent is still alive

Call = tuple[Callable[..., Any], tuple]


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl-C (a BaseException, so no handler of errors takes it), so that what
    finished is kept and worker processes are stopped."""


INTERRUPTS = (KeyboardInterrupt, Terminated)


class InterruptSaid(KeyboardInterrupt):
    """Ctrl-C, once the command has said in its own line what it stopped and what it kept: nothing more to say."""


class TerminationSaid(Terminated):
    """SIGTERM, once the command has said in its own line what it stopped and what it kept."""


def said(stop: BaseException) -> tuple[str, BaseException]:
    """For an interrupt a command is about to report in its own line: the word for it ("interrupted" or
    "terminated") and the exception to raise after that line, which the command line then does not report again."""
    if isinstance(stop, KeyboardInterrupt):
        return "interrupted", InterruptSaid()
    return "terminated", TerminationSaid()


def _watch_parent(parent: int) -> None:
    """In a pool worker: exit as soon as the process that started the pool is gone (its pid no longer our
    parent's), so that no worker outlives a killed command."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)
    threading.Thread(target=watch, name="thmcheck-parent-watch", daemon=True).start()


class _Serial:
    def run(self, calls: Sequence[Call], on_result: Callable[[Any], None]) -> None:
        for function, arguments in calls:
            on_result(function(*arguments))


class _Processes:
    """A spawned `concurrent.futures` pool (no fork of a threaded parent) whose workers watch their parent."""

    def __init__(self, count: int | None):
        self.count = count

    def run(self, calls: Sequence[Call], on_result: Callable[[Any], None]) -> None:
        if not calls:
            return
        others = set(multiprocessing.active_children())  # children that are not this pool's workers
        pool = ProcessPoolExecutor(max_workers=min(self.count or os.cpu_count() or 1, len(calls)),
                                   mp_context=multiprocessing.get_context("spawn"), initializer=_watch_parent,
                                   initargs=(os.getpid(),))
        try:
            for future in as_completed([pool.submit(function, *arguments) for function, arguments in calls]):
                on_result(future.result())
        except BaseException:  # interrupted (Ctrl-C, SIGTERM) or failed: stop the workers' tasks too
            pool.shutdown(wait=False, cancel_futures=True)
            workers = set(multiprocessing.active_children()) - others
            for child in workers:
                child.terminate()
            for child in workers:
                child.join(timeout=5)
            raise
        pool.shutdown()


class _Dask:
    def __init__(self, client):
        self.client = client

    def run(self, calls: Sequence[Call], on_result: Callable[[Any], None]) -> None:
        from dask.distributed import as_completed as dask_completed

        futures = [self.client.submit(function, *arguments, pure=False) for function, arguments in calls]
        try:
            for future in dask_completed(futures):
                on_result(future.result())
        except BaseException:
            self.client.cancel(futures)
            raise


@contextlib.contextmanager
def workers(executor: str, count: int | None = None, scheduler: str | None = None) -> Iterator:
    """The executor's pool: "serial", "processes" (`count` local processes, default the CPU count) or "dask"
    (`scheduler` a running scheduler's address, or "local" or None for a LocalCluster of `count` single-threaded
    processes, default 2). A dask cluster is reached on entry, so an unreachable one is refused before any work."""
    if executor not in EXECUTORS:
        raise InvalidInput(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if count is not None and count < 1:
        raise InvalidInput(f"--workers must be positive, got {count}")
    if executor == "serial":
        yield _Serial()
    elif executor == "processes":
        yield _Processes(count)
    else:
        with _dask_client(scheduler, count) as client:
            yield _Dask(client)


def _unreachable(scheduler: str) -> str | None:
    """Why no dask scheduler answers at a TCP address, found by one connection: a refused connection or an unknown
    host is known at once, where dask's client would retry it until CONNECT_SECONDS pass; a port that accepts but
    sends nothing within CONNECT_SECONDS is no scheduler (one writes its handshake as soon as it accepts), and dask's
    client would wait on it without end. None where the first bytes come, or the address is not plain TCP (dask
    judges those)."""
    address = urllib.parse.urlsplit(scheduler if "://" in scheduler else f"tcp://{scheduler}")
    try:
        host, port = address.hostname, address.port
    except ValueError:
        return "its port is not a number"
    if address.scheme != "tcp" or not host or port is None:
        return None
    try:
        with socket.create_connection((host, port), timeout=CONNECT_SECONDS) as connection:
            if not connection.recv(1):
                return "it closed the connection without a dask handshake"
    except TimeoutError:
        return f"it accepted the connection but sent no dask handshake within {CONNECT_SECONDS} s"
    except OSError as error:
        return f"{type(error).__name__}: {error.strerror or error}"
    return None


@contextlib.contextmanager
def _dask_client(scheduler: str | None, count: int | None):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InvalidInput("the dask executor needs the optional extra: pip install 'thmcheck[dask]'") from None
    if scheduler in (None, "local"):
        # its processes log at CRITICAL only: an interrupt cancels their tasks and kills them, which dask reports in
        # warnings (a screenful), and on a loaded machine a worker's heartbeat may still reach the closing scheduler,
        # an ERROR; the command's own line says what was stopped and what was kept, and a task's own error reaches
        # the command through its future. Its scheduler serves HTTP on port 8787 even without a dashboard, and
        # another cluster there (a second sweep) moves it to a free port with a warning that says nothing the user
        # acts on
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Port 8787 is already in use", category=UserWarning)
            cluster = LocalCluster(n_workers=count or 2, threads_per_worker=1, processes=True, dashboard_address=None,
                                   silence_logs=logging.CRITICAL)
        client = Client(cluster)
    else:
        cluster = None
        refusal = "start one, or leave out --scheduler to run on local processes"
        reason = _unreachable(scheduler)
        if reason:
            raise InvalidInput(f"no dask scheduler answered at {scheduler!r} ({reason}); {refusal}")
        try:
            client = Client(scheduler, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise InvalidInput(f"no dask scheduler answered at {scheduler!r} within {CONNECT_SECONDS} s ({error}); "
                               f"{refusal}") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
