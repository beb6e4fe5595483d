"""What a check will cost, known before any draw: its time and memory on this machine, the refusal at a cap.

Two sources, combined where a check has both. A checker whose sizes a parameter or the fidelity can push far
declares `Checker.cost(instance, fidelity) -> Cost`, computed from the same plan of sizes and draws its readers run:
the multiply-adds of each sequential stage and the largest set of arrays it holds at once. And every built-in check
has its time measured at quick and default fidelity at its defaults (`checkers.cost_records`), with the machine
probe of where it was measured (`checkers.probe`). The estimate here (`estimate`) is:

- with both: the declared work at the rate measured for that check (its recorded seconds per declared multiply-add,
  which prices the elementwise passes and fixed costs a pure matrix product lacks), so that it follows the sizes;
- with a record only: the recorded time, scaled by the probe here against there, and from the recorded fidelity to
  a higher one by the budget's doubling per level;
- with a declared cost only (a plugin): the declared work at this machine's matrix-product rate, a floor.

"Likely" is the time of as many stages as the recorded run at the defaults took; "most", of every stage the
sequential design may reach. A check is refused on the most it may spend.

Memory (`peak_memory`) is the peak of a process that ran the check alone at the defaults, recorded beside its time,
and beyond the recorded sizes the declared arrays' growth; a check is refused where it exceeds the cap or the
memory available, and as many checks as run at once (`at_once_refusal`) where their peaks together do.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from checkers import cost_records, probe
from checkers.budget import FIDELITIES, Budget, Fidelity


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

    def stages_work(self, stages: int, nested: bool) -> float:
        """The work of the first `stages` sequential stages: their sum, or where the stages are nested (each re-reads
        the previous one's draws, cached) the last one's; the first stage's where no stage's work is listed."""
        if not self.stage_work:
            return self.first
        taken = self.stage_work[:max(stages, 1)]
        return taken[-1] if nested else sum(taken)

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


def machine_rate() -> float:
    """Multiply-adds per second of a one-core float64 matrix product here (`checkers.probe`)."""
    return probe.here().multiply_adds_per_second


TEMPORARIES = 2  # ours: an array beyond the recorded sizes counts twice, for the temporaries made at its size


@dataclass(frozen=True)
class Estimate:
    """A check's time on one core here, in seconds: `likely` (as many stages as a run at the defaults took) and
    `most` (every stage); how it was estimated; the peak memory of a process running it alone, where known; the
    declared cost where there is one."""

    likely: float
    most: float
    basis: str
    cost: Cost | None = None
    peak_bytes: float | None = None


def peak_memory(recorded, declared: Cost | None) -> float | None:
    """A check's peak memory: the peak recorded for it at the defaults, plus `TEMPORARIES` times the declared arrays
    beyond the recorded sizes' (none below); without a record, the declared arrays alone (a floor)."""
    if recorded is None or recorded.peak_bytes is None:
        return None if declared is None else declared.peak_bytes
    if declared is None or recorded.declared_bytes is None:
        return recorded.peak_bytes
    return recorded.peak_bytes + TEMPORARIES * max(0.0, declared.peak_bytes - recorded.declared_bytes)


def _doubling(stages: int, nested: bool) -> float:
    """The work of `stages` stages in units of the first, each stage's budget twice the one before."""
    stages = max(stages, 1)
    return 2.0 ** (stages - 1) if nested else 2.0**stages - 1


def estimate(checker, instance, fidelity: Fidelity) -> Estimate | None:
    """This check's time here at `instance` and `fidelity` (see the module's docstring); None where it neither
    declares a cost nor has a record."""
    declared = checker.cost(instance, fidelity) if checker.cost is not None else None
    records = cost_records.committed()
    recorded = records.nearest(checker.id, fidelity.name) if records else None
    nested, here = checker.nested_stages, probe.here()
    if recorded is None:
        if declared is None:
            return None
        rate = here.multiply_adds_per_second
        return Estimate(declared.first / rate, declared.multiply_adds / rate,
                        "its declared matrix work at this machine's matrix-product rate, a floor", declared,
                        declared.peak_bytes)
    measured = recorded.seconds_here(here)
    if declared is not None and recorded.work:
        per_work = measured / recorded.work
        return Estimate(declared.stages_work(recorded.stages, nested) * per_work, declared.multiply_adds * per_work,
                        f"its declared work at the rate measured for it at {recorded.fidelity} fidelity", declared,
                        peak_memory(recorded, declared))
    first = measured / _doubling(recorded.stages, nested)
    levels = fidelity.level - FIDELITIES[recorded.fidelity].level
    if levels and not checker.exact:
        first *= 2.0**levels
        basis = f"measured at {recorded.fidelity} fidelity at the defaults, doubled per fidelity level above it"
    else:
        basis = f"measured at {fidelity.name} fidelity at the defaults"
    likely = first * _doubling(recorded.stages, nested)
    most = likely if checker.exact else max(likely, first * _doubling(fidelity.stages, nested))
    return Estimate(likely, most, basis, declared, peak_memory(recorded, declared))


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


def describe(estimate: Estimate) -> str:
    """The estimate in words: the likely time, the most where more, its memory where declared, and its basis."""
    words = f"about {duration(estimate.likely)} on one core here" + (
        f", up to {duration(estimate.most)} if every sequential stage runs" if estimate.most > 1.5 * estimate.likely
        else "")
    if estimate.peak_bytes is not None:
        words += f", and {gibibytes(estimate.peak_bytes)}" + (
            f" (largest draw: {estimate.cost.sizes})" if estimate.cost is not None else "")
    return f"{words} ({estimate.basis})"


def gibibytes(count: float) -> str:
    return f"{count / 2**30:.2g} GiB"


def _memory_cap(max_memory: float | None) -> float | None:
    """The bytes a run may take: `max_memory` GiB where given (--max-memory), else what this machine has available
    (None where it does not say)."""
    return available_bytes() if max_memory is None else max_memory * 2**30


def at_once_refusal(peaks: list[float | None], workers: int, max_memory: float | None = None) -> str | None:
    """Why `workers` processes may not run these checks side by side (None where they may): the largest peaks that
    can run at once add up beyond `max_memory` GiB (where given) or the memory available. A check without an
    estimate counts for nothing."""
    known = sorted((peak for peak in peaks if peak is not None), reverse=True)[:max(1, workers)]
    if len(known) < 2:
        return None  # one check at a time: `refusal` judges each alone
    cap = _memory_cap(max_memory)
    if cap is None or sum(known) <= cap:
        return None
    what = "--max-memory" if max_memory is not None else "this machine has available"
    return (f"{len(known)} checks at once (one a worker) would need about {gibibytes(sum(known))}, more than the "
            f"{gibibytes(cap)} {what}; lower --workers")


def refusal(theorem: str, estimate: Estimate, max_seconds: float, max_memory: float | None = None) -> str | None:
    """Why a check of this estimate is refused before it starts (None where it may run): the most it may spend
    above the cap (a cap is a promise about the whole run), or its peak memory above `max_memory` GiB (where given)
    or above what this machine has available."""
    if estimate.most > max_seconds:
        return (f"{theorem} would take too long: {describe(estimate)}, above the cap of {duration(max_seconds)}; "
                f"lower the sizes or the fidelity, or lift the cap (--max-minutes {estimate.most / 60 * 1.5:.0f})")
    if estimate.peak_bytes is None:
        return None
    memory = _memory_cap(max_memory)
    if max_memory is not None and estimate.peak_bytes > memory:
        return (f"{theorem} would need more memory than --max-memory {max_memory:g}: {describe(estimate)}; "
                "lower the sizes or lift the cap")
    if memory is not None and estimate.peak_bytes > memory:
        return (f"{theorem} would need more memory than this machine has available: {describe(estimate)}, and "
                f"{gibibytes(memory)} are free; lower the sizes")
    return None
