"""What a check will cost, known before any draw: its work and memory, this machine's rate, the refusal at a cap.

A checker whose sizes a parameter or the fidelity can push far declares `Checker.cost(instance, fidelity) -> Cost`,
computed from the same plan of sizes and draws its readers run: the multiply-adds of its first stage (what it will
spend) and of every stage the sequential design may reach (the most it can spend), and the largest set of arrays it
holds at once. A check is refused on the most it can spend. The time is that work over this machine's rate of
one-core float64 matrix products, measured once per process (`machine_rate`); matrix products are most of a
simulation's time, so the estimate is a floor that the elementwise passes raise by a modest factor.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from checkers.budget import Budget, Fidelity


@dataclass(frozen=True)
class Cost:
    """What a check may spend: multiply-adds (all stages, and the first), the peak bytes of its arrays, and the sizes
    that set them."""

    multiply_adds: float
    peak_bytes: float
    sizes: str
    first_stage: float | None = None  # the multiply-adds of the first stage, where there are several
    stage_work: tuple[float, ...] = ()  # the work behind each sequential stage's reading (`over_stages`)

    @property
    def first(self) -> float:
        return self.multiply_adds if self.first_stage is None else self.first_stage

    @staticmethod
    def total(costs: Iterable[Cost]) -> Cost:
        """Work that runs one part after another: the multiply-adds add up; the memory, and the sizes named, are the
        largest part's."""
        costs = list(costs)
        largest = max(costs, key=lambda c: c.peak_bytes)
        return Cost(sum(c.multiply_adds for c in costs), largest.peak_bytes, largest.sizes,
                    sum(c.first for c in costs))


def over_stages(fidelity: Fidelity, cost_at: Callable[[Budget], Cost], *, nested: bool = False) -> Cost:
    """What a sequential check spends at a fidelity: its first stage, and every one of its stages, each at its own
    budget, where none is conclusive before the last. `cost_at` is the work behind one stage's reading; where the
    stages are `nested` (`Checker.nested_stages`: each re-reads the previous one's draws, cached), what the check
    spends in all is its last stage's."""
    stages = [cost_at(Budget(fidelity, stage)) for stage in range(fidelity.stages)]
    total = stages[-1] if nested else Cost.total(stages)
    return Cost(total.multiply_adds, total.peak_bytes, total.sizes, stages[0].multiply_adds,
                tuple(stage.multiply_adds for stage in stages))


@functools.cache
def machine_rate() -> float:
    """Multiply-adds per second of a one-core float64 matrix product here (512^3, the best of three)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    size = 512
    matrix = np.random.default_rng(0).standard_normal((size, size))
    best = float("inf")
    with threadpool_limits(1, user_api="blas"):
        matrix @ matrix
        for _ in range(3):
            started = time.perf_counter()
            matrix @ matrix
            best = min(best, time.perf_counter() - started)
    return size**3 / best


def seconds(cost: Cost) -> float:
    """The estimated time of the most a check may spend."""
    return cost.multiply_adds / machine_rate()


def _proc_bytes(path: str, field: str) -> float | None:
    """A "Field: N kB" line of a Linux /proc file, in bytes; None where the file or the line is not there."""
    try:
        with open(path, encoding="ascii") as lines:
            for line in lines:
                if line.startswith(f"{field}:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def available_bytes() -> float | None:
    """The memory this machine can give now (Linux's MemAvailable), or None where it does not say."""
    found = _proc_bytes("/proc/meminfo", "MemAvailable")
    if found is not None:
        return found
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def peak_bytes() -> float | None:
    """This process's peak resident memory so far (Linux's VmHWM), or None where /proc does not say. Not ru_maxrss:
    Linux carries the forking process's high-water mark into it across exec, so a child of a large test process
    would read that process's peak."""
    return _proc_bytes("/proc/self/status", "VmHWM")


def duration(seconds: float) -> str:
    """A time in words at the precision an estimate has."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min" if seconds < 7200 else \
        f"{seconds / 3600:.1f} h"


def describe(cost: Cost) -> str:
    staged = cost.first < cost.multiply_adds
    first = f"about {duration(cost.first / machine_rate())} on one core here" + (
        f", up to {duration(seconds(cost))} if every sequential stage runs" if staged else "")
    return (f"{first} ({cost.multiply_adds:.2g} multiply-adds at most), and {cost.peak_bytes / 2**30:.2g} GiB "
            f"(largest draw: {cost.sizes})")


def refusal(theorem: str, cost: Cost, max_seconds: float) -> str | None:
    """Why a check of this cost is refused before it starts (None where it may run): its estimated time above the
    cap, or its memory above what this machine has available."""
    estimate = seconds(cost)
    if estimate > max_seconds:  # the most it may spend: a cap is a promise about the whole run
        return (f"{theorem} would take too long: {describe(cost)}, above the cap of {duration(max_seconds)}; lower "
                f"the sizes or the fidelity, or lift the cap (--max-minutes {estimate / 60 * 1.5:.0f})")
    memory = available_bytes()
    if memory is not None and cost.peak_bytes > memory:
        return (f"{theorem} would need more memory than this machine has available: {describe(cost)}, and "
                f"{memory / 2**30:.2g} GiB are free; lower the sizes")
    return None
