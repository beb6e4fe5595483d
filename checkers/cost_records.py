"""The committed cost records (docs/costs.json): each built-in check's measured time at quick and default fidelity at
its defaults, with the probe of the machine that measured it and the code it ran.

A record holds the seconds one check took on one core (its verdict's elapsed time), the seconds this project's
machine probe took on the same machine (`checkers.probe`), how many sequential stages its run took, the peak memory
of a process that ran it alone, and, where its checker declares its work (`Checker.cost`), the declared
multiply-adds of those stages and the declared peak of its arrays, so that the declared work can be priced at the
rate measured for that check and its memory followed to other sizes. `benchmarks/bench_costs.py --record` writes
them; a record whose theorem's code has changed since (the calibration records' content hash) is stale: it is still
used, and the benchmark names it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from checkers.budget import FIDELITIES
from checkers.files import locked, write_atomically
from checkers.probe import Probe
from theorems.errors import InvalidInput

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "docs" / "costs.json"


@dataclass(frozen=True)
class CostRecord:
    """One check's measured run: `seconds` on one core, its `stages`, and its declared `work` where it has one."""

    theorem: str
    fidelity: str
    seconds: float
    probe: float  # the machine probe's seconds where it was measured (`Probe.seconds`)
    stages: int
    work: float | None = None  # the declared multiply-adds of the stages run (`stage_work`)
    content: str | None = None  # the theorem's content hash when measured
    peak_bytes: float | None = None  # the peak resident memory of a process that ran this check alone
    declared_bytes: float | None = None  # the declared peak of its arrays there (`Cost.peak_bytes`)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 3)
        data["probe"] = round(self.probe, 5)
        return data

    def seconds_here(self, probe: Probe) -> float:
        """Its time on the machine `probe` measured."""
        return self.seconds * probe.seconds / self.probe


@dataclass(frozen=True)
class CostRecords:
    records: dict[tuple[str, str], CostRecord]  # by theorem and fidelity

    def nearest(self, theorem: str, fidelity: str) -> CostRecord | None:
        """The record of `theorem` at `fidelity`, else at the highest recorded fidelity below it."""
        order = list(FIDELITIES)
        for name in reversed(order[: order.index(fidelity) + 1]):
            if (theorem, name) in self.records:
                return self.records[theorem, name]
        return None


def load(path: Path | None = None) -> CostRecords | None:
    """The records in `path` (default `RECORDS`); None where there are none. A file that is not a cost records file
    is the user's error."""
    path = RECORDS if path is None else Path(path)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        records = [CostRecord(**item) for item in data["records"]]
        return CostRecords({(r.theorem, r.fidelity): r for r in records})
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InvalidInput(f"{path} is not a cost records file ({type(error).__name__}: {error})") from None


@functools.cache
def committed() -> CostRecords | None:
    """The committed records, read once per process."""
    return load()


def record(new: list[CostRecord], path: Path | None = None) -> CostRecords:
    """Add the records to those in `path` (default `RECORDS`), each in place of its theorem's at its fidelity: read,
    merged and rewritten under a lock."""
    path = RECORDS if path is None else Path(path)
    with locked(path):
        found = load(path)
        merged = (found.records if found else {}) | {(r.theorem, r.fidelity): r for r in new}
        ordered = sorted(merged.values(), key=lambda r: (r.theorem, r.fidelity != "quick", r.fidelity))
        write_atomically(path, json.dumps({"records": [r.to_dict() for r in ordered]}, indent=1, allow_nan=False)
                         + "\n")
    return CostRecords(merged)


def stale(records: CostRecords, content_hash: Callable[[str], str]) -> list[CostRecord]:
    """The records measured on other code than their theorem's now (`content_hash`, the calibration records' key), or
    on a theorem that is gone."""
    def changed(record: CostRecord) -> bool:
        try:
            return record.content != content_hash(record.theorem)
        except InvalidInput:
            return True

    return [record for record in records.records.values() if changed(record)]
