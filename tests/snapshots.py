"""Snapshot files: derived constants as committed decimal strings, so a changed derivation is a diff.

Set THMCHECK_UPDATE_SNAPSHOTS=1 to rewrite a snapshot from the current code (then review the diff); a theorem's own
snapshot is also written by `thmcheck contract ID --update-snapshots`.
"""

import json
import os
from pathlib import Path

from checkers.contract import snapshot_differences

DIRECTORY = Path(__file__).parent / "snapshots"


def updating() -> bool:
    return bool(os.environ.get("THMCHECK_UPDATE_SNAPSHOTS"))


def check_snapshot(name: str, data: dict) -> None:
    path = DIRECTORY / f"{name}.json"
    if updating() or not path.exists():
        if not updating() and os.environ.get("CI"):
            raise AssertionError(f"snapshot {path.name} is missing; create it locally and commit it")
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return
    problems = snapshot_differences(json.loads(path.read_text()), data)
    assert not problems, f"{path.name}: " + "; ".join(problems)
