"""This machine's speed: one core's time for a matrix product, a symmetric eigensolve and an elementwise pass,
measured once and cached on disk.

A check's time on this machine is estimated from its time where its cost was recorded, scaled by how long the same
probe takes here against there (`checkers.cost_records.CostRecord.seconds_here`). The probe's three parts are the
three kinds of work a simulation spends its time on; each is sized to take about the same time on a typical core,
so that none of them dominates the comparison. Each part is the best of `REPEATS` runs: the least disturbed by other
work on the machine (on a shared two-core machine single runs spread by 40%, the best of seven by a few percent).

The cache (probe.json in $THMCHECK_CACHE, else in $XDG_CACHE_HOME/thmcheck or ~/.cache/thmcheck) is keyed by the
machine's name, its processor and the numpy version, and is measured again after `MAX_AGE_DAYS`; a cache that
cannot be read or written is measured around, never an error.
"""

from __future__ import annotations

import functools
import json
import math
import os
import platform
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from checkers.files import write_atomically
from theorems.errors import EnvironmentFault

MAX_AGE_DAYS = 7
MATMUL_SIZE = 768  # one product of two 768 x 768 float64 matrices: 768^3 multiply-adds
EIGH_SIZE = 400  # the eigenvalues and vectors of a 400 x 400 symmetric matrix
ELEMENTWISE_SIZE = 1_000_000  # tanh and exp of a million float64 numbers
REPEATS = 7


@dataclass(frozen=True)
class Probe:
    """The probe's times in seconds on one core, and the machine it ran on."""

    matmul: float
    eigh: float
    elementwise: float
    machine: str = ""

    @property
    def multiply_adds_per_second(self) -> float:
        """One core's float64 matrix-product rate."""
        return MATMUL_SIZE**3 / self.matmul

    @property
    def seconds(self) -> float:
        """The probe's whole time: what a check's recorded time is scaled by."""
        return self.matmul + self.eigh + self.elementwise

    def to_dict(self) -> dict:
        return {name: (round(value, 6) if isinstance(value, float) else value) for name, value in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict) -> "Probe":
        return cls(float(data["matmul"]), float(data["eigh"]), float(data["elementwise"]), str(data.get("machine", "")))


def _best(work) -> float:
    work()  # once to warm caches and threads
    best = math.inf
    for _ in range(REPEATS):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def measure() -> Probe:
    """Run the probe now, on one core."""
    import numpy as np

    from checkers.threads import one_blas_thread

    generator = np.random.default_rng(0)
    matrix = generator.standard_normal((MATMUL_SIZE, MATMUL_SIZE))
    symmetric = generator.standard_normal((EIGH_SIZE, EIGH_SIZE))
    symmetric = symmetric + symmetric.T
    vector = generator.standard_normal(ELEMENTWISE_SIZE)
    with one_blas_thread(user_api=None):
        return Probe(matmul=_best(lambda: matrix @ matrix),
                     eigh=_best(lambda: np.linalg.eigh(symmetric)),
                     elementwise=_best(lambda: np.exp(np.tanh(vector))),
                     machine=machine())


def machine() -> str:
    """What the probe's cache is keyed by: this machine's name and processor, and numpy's version."""
    import numpy as np

    processor = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as lines:
            processor = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                             processor)
    except OSError:
        pass
    return f"{platform.node()}; {processor}; numpy {np.__version__}"


def cache_path() -> Path:
    if os.environ.get("THMCHECK_CACHE"):
        return Path(os.environ["THMCHECK_CACHE"]) / "probe.json"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "thmcheck" / "probe.json"


def _cached(path: Path, here: str) -> Probe | None:
    try:
        data = json.loads(path.read_text())
        if data.get("machine") != here or time.time() - float(data["measured_at"]) > MAX_AGE_DAYS * 86400:
            return None
        return Probe.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _store(path: Path, probe: Probe) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(probe.to_dict() | {"measured_at": time.time()}))
    except (OSError, EnvironmentFault):
        pass


@functools.cache
def here() -> Probe:
    """This machine's probe: from the cache where it holds one for this machine that is recent, else measured now
    (about half a second) and cached."""
    path, name = cache_path(), machine()
    found = _cached(path, name)
    if found is None:
        found = measure()
        _store(path, found)
    return found
