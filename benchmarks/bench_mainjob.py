"""Benchmark: the main job (`thmcheck check --all --fidelity quick`), each check's share of it, and the same job at an
earlier commit run back to back on this machine.

The earlier commit is checked out in a temporary git worktree and run with this environment's packages; both runs use
the same number of workers. Printed: the wall time of each run and their ratio, then per check its time now and
then, its share of the total check time now, and whether its verdict and numbers are the same (elapsed times aside).

    python benchmarks/bench_mainjob.py [--against 4ddb638] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main_job(tree: Path, workers: int) -> tuple[float, dict[str, dict]]:
    """(wall seconds, verdicts by theorem) of the main job run from `tree`."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "checkers.cli", "check", "--all", "--fidelity", "quick", "--json",
                             "--workers", str(workers)], cwd=tree, env=environment, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if result.returncode not in (0, 3):
        raise SystemExit(f"the main job in {tree} exited {result.returncode}: {result.stderr.strip()[-500:]}")
    return wall, {verdict["theorem"]: verdict for verdict in json.loads(result.stdout)["results"]}


def _numbers(verdict: dict) -> dict:
    """A verdict without its elapsed time: what must not change (an earlier tree's JSON names the outcome's key
    `verdict`)."""
    return {("outcome" if key == "verdict" else key): value for key, value in verdict.items()
            if key != "elapsed_seconds"}


def same_where_both_write(before, after) -> bool:
    """Whether two verdicts agree on every field both trees write (a later tree adds fields, such as a prediction's
    mutant shifts, that an earlier one lacks: those are not a change of number)."""
    if isinstance(before, dict) and isinstance(after, dict):
        return all(same_where_both_write(before[key], after[key]) for key in before.keys() & after.keys())
    if isinstance(before, list) and isinstance(after, list):
        return len(before) == len(after) and all(map(same_where_both_write, before, after))
    return before == after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", help="an earlier commit to run back to back (e.g. 4ddb638)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    arguments = parser.parse_args()
    wall, now = main_job(ROOT, arguments.workers)
    then, then_wall = {}, None
    if arguments.against:
        with tempfile.TemporaryDirectory() as scratch:
            tree = Path(scratch) / "tree"
            subprocess.run(["git", "worktree", "add", "--detach", str(tree), arguments.against], cwd=ROOT, check=True,
                           capture_output=True)
            try:
                then_wall, then = main_job(tree, arguments.workers)
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
    total = sum(v["elapsed_seconds"] for v in now.values())
    print(f"main job, {arguments.workers} workers: {wall:.1f} s wall, {total:.1f} s of checks"
          + (f"; at {arguments.against}: {then_wall:.1f} s wall, ratio {then_wall / wall:.2f}x" if then else ""))
    columns = f" {'then (s)':>9} {'ratio':>6}  same numbers (fields both write)" if then else ""
    print(f"{'check':32} {'now (s)':>8} {'share':>6}{columns}")
    for theorem, verdict in sorted(now.items(), key=lambda item: -item[1]["elapsed_seconds"]):
        seconds = verdict["elapsed_seconds"]
        line = f"{theorem:32} {seconds:8.1f} {seconds / total:6.1%}"
        if theorem in then:
            before = then[theorem]["elapsed_seconds"]
            same = "yes" if same_where_both_write(_numbers(then[theorem]), _numbers(verdict)) else "NO"
            line += f" {before:9.1f} {before / seconds:6.2f}  {same}"
        print(line)


if __name__ == "__main__":
    main()
