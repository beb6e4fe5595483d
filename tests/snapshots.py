"""Snapshot files: derived constants as committed decimal strings, so a changed derivation is a diff.

Set THMCHECK_UPDATE_SNAPSHOTS=1 to rewrite a snapshot from the current code (then review the diff).
"""

import json
import os
from pathlib import Path

import mpmath

DIRECTORY = Path(__file__).parent / "snapshots"


def check_snapshot(name: str, data: dict) -> None:
    path = DIRECTORY / f"{name}.json"
    if os.environ.get("THMCHECK_UPDATE_SNAPSHOTS") or not path.exists():
        if not os.environ.get("THMCHECK_UPDATE_SNAPSHOTS") and os.environ.get("CI"):
            raise AssertionError(f"snapshot {path.name} is missing; create it locally and commit it")
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return
    stored = json.loads(path.read_text())
    assert sorted(stored) == sorted(data), f"{path.name}: the set of entries changed"
    for key, entry in data.items():
        old = stored[key]
        assert old["route"] == entry["route"] and old["exact"] == entry["exact"], (key, old, entry)
        # a float64 route (a minimizer with xatol 1e-10, a Gauss-Hermite rule) is reproducible only to its own
        # accuracy: the last digits move with the BLAS of the machine
        tolerance = mpmath.mpf(10) ** (-8 if entry["route"] == "float64" else -28)
        with mpmath.workdps(40):
            a, b = mpmath.mpf(old["value"]), mpmath.mpf(entry["value"])
            assert abs(a - b) <= tolerance * max(1, abs(a)), (key, old["value"], entry["value"])
