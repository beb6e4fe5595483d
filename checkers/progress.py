"""A progress bar on stderr that moves with the estimated work done, redrawn every second, its time left computed
from each task's estimate (`checkers.cost.estimate`) rather than from the rate of tasks finished so far.

The tasks run first in, first out on `workers` slots (as every pool of `checkers.executors` runs them), so a task
starts when the one before it frees a slot; a running task counts as done for the time it has run, up to
`RUNNING_SHARE` of its estimate, so that the bar moves from the first second and never reaches the end before the
work does. A task without an estimate weighs as the mean of those with one (a second where none has one).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence

from checkers.cost import duration

RUNNING_SHARE = 0.95
REDRAW_SECONDS = 1.0


class WorkProgress:
    """The bar over tasks of estimated `weights` (seconds on one core, in the order they are submitted)."""

    def __init__(self, weights: Sequence[float | None], workers: int, *, unit: str, description: str,
                 enabled: bool, clock: Callable[[], float] = time.perf_counter) -> None:
        known = [weight for weight in weights if weight is not None]
        fallback = sum(known) / len(known) if known else 1.0
        self.weights = [max(fallback if weight is None else weight, 1e-3) for weight in weights]
        self.slots = max(1, min(workers, len(self.weights)))
        self.unit, self.description, self.clock = unit, description, clock
        self.started: dict[int, float] = {}
        self.finished: set[int] = set()
        self._next = 0
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self.bar = _bar(sum(self.weights), description) if enabled and self.weights else None
        now = self.clock()
        while self._next < min(self.slots, len(self.weights)):
            self._start(now)
        if self.bar is not None:
            self._redraw()
            threading.Thread(target=self._tick, name="thmcheck-progress", daemon=True).start()

    def _start(self, now: float) -> None:
        if self._next < len(self.weights):
            self.started[self._next] = now
            self._next += 1

    def done(self, index: int) -> None:
        """Task `index` (in submission order) finished; the next one waiting takes its slot."""
        with self._lock:
            if index in self.finished:
                return
            self.finished.add(index)
            self.started.setdefault(index, self.clock())
            self._start(self.clock())
            self._redraw()

    def running(self) -> list[int]:
        """The tasks that hold a slot now, in submission order."""
        with self._lock:
            return [index for index in sorted(self.started) if index not in self.finished]

    def describe(self, text: str) -> None:
        with self._lock:
            self.description = text
            self._redraw()

    def print_above(self, line: str) -> None:
        """Print `line` to stdout, the bar moved below it."""
        with self._lock:
            if self.bar is not None:
                self.bar.clear()
            print(line, flush=True)
            self._redraw()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    def done_work(self, now: float) -> float:
        """The estimated seconds of work done by `now`: the finished tasks' and the running ones' time so far."""
        running = sum(min(now - self.started[index], RUNNING_SHARE * self.weights[index]) for index in self.running())
        return sum(self.weights[index] for index in self.finished) + running

    def seconds_left(self, now: float) -> float:
        """The estimated wall time left: the work left spread over the slots still in use."""
        left_tasks = len(self.weights) - len(self.finished)
        return (sum(self.weights) - self.done_work(now)) / max(1, min(self.slots, left_tasks))

    def _redraw(self) -> None:
        with self._lock:
            if self.bar is None:
                return
            now = self.clock()
            self.bar.n = min(self.done_work(now), self.bar.total)
            self.bar.set_description_str(self.description, refresh=False)
            self.bar.set_postfix_str(f"{len(self.finished)}/{len(self.weights)} {self.unit}, about "
                                     f"{duration(self.seconds_left(now))} left", refresh=False)
            self.bar.refresh()

    def _tick(self) -> None:
        while not self._stop.wait(REDRAW_SECONDS):
            self._redraw()


def _bar(total: float, description: str):
    """A tqdm bar on stderr where stderr is a terminal (a log file gets no bar), else None."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, file=sys.stderr, desc=description,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]")
