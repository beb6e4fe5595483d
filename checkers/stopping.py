"""Stops (Ctrl-C, SIGINT, SIGTERM) during a command: raised where they land, and not lost where a library drops them.

Python runs a signal's handler in the main thread between two bytecodes, wherever those are, and two places there
lose the exception it raises: a callback of the garbage collector (Hypothesis registers one) reports it as
unraisable and drops it, so the command would run on; and Hypothesis's engine turns it into an error of its own
(`FlakyStrategyDefinition`), which would read as an internal error. So, while `handled`, each stop is recorded as it
arrives (`arrived`), for the engine and the command line to take an error raised after it as the stop; and a stop
dropped as unraisable is kept and raised again at the engine's next phase (`raise_dropped`), not sent again from a
thread, whose start waits on a lock where the handler would run inside the drop's report and be dropped again.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

from checkers.executors import Terminated

_arrived: list[type[BaseException]] = []
_dropped: list[type[BaseException]] = []


def arrived() -> BaseException | None:
    """The stop that arrived during the command being run, as a fresh exception to raise; None where none did."""
    return _arrived[0]() if _arrived else None


def raise_dropped() -> None:
    """Raise the stop that was dropped as unraisable since the last call, if one was."""
    if _dropped:
        stop = _dropped[0]
        _dropped.clear()
        raise stop


def _interrupt(signum, frame):
    _arrived.append(KeyboardInterrupt)
    raise KeyboardInterrupt


def _terminate(signum, frame):
    _arrived.append(Terminated)
    raise Terminated


def _keeping_dropped_stops(previous):
    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            _dropped.append(type(unraisable.exc_value))
        else:
            previous(unraisable)
    return hook


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """For the duration: SIGTERM raises `Terminated`, SIGINT `KeyboardInterrupt` (where Python's own handler had it;
    an ignored SIGINT stays ignored), each recorded, and a stop dropped as unraisable is kept for `raise_dropped`.
    Off the main thread, where no handler runs, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous_terminate = signal.signal(signal.SIGTERM, _terminate)
    previous_interrupt = signal.getsignal(signal.SIGINT)
    if previous_interrupt is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    previous_hook, sys.unraisablehook = sys.unraisablehook, _keeping_dropped_stops(sys.unraisablehook)
    _arrived.clear()
    _dropped.clear()
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        signal.signal(signal.SIGTERM, previous_terminate)
        if previous_interrupt is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous_interrupt)
        _arrived.clear()
        _dropped.clear()
