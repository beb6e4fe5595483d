"""Benchmark: each command's cold start, beside `python -c 'import numpy'` timed in the same run.

Each command runs in a fresh interpreter (cold: nothing imported, the operating system's file cache warm), best of
`--repeats`. Targets: `thmcheck --help` and `thmcheck list` under 0.5 s; `show` loads one theorem and its constants
(sympy), so it is listed for reference.

    python benchmarks/bench_startup.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

TARGET_SECONDS = 0.5
COMMANDS = {
    "python -c 'import numpy'": ([sys.executable, "-c", "import numpy"], None),
    "thmcheck --help": ([sys.executable, "-m", "checkers.cli", "--help"], TARGET_SECONDS),
    "thmcheck list": ([sys.executable, "-m", "checkers.cli", "list"], TARGET_SECONDS),
    "thmcheck list --markdown": ([sys.executable, "-m", "checkers.cli", "list", "--markdown"], TARGET_SECONDS),
    "thmcheck show dual-kernel": ([sys.executable, "-m", "checkers.cli", "show", "dual-kernel"], None),
}


def cold_seconds(command: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    reference = None
    for name, (command, target) in COMMANDS.items():
        seconds = cold_seconds(command, repeats)
        reference = reference or seconds
        verdict = "" if target is None else f"  (target < {target} s) {'OK' if seconds < target else 'MISSED'}"
        print(f"{name:28} {seconds:6.3f} s  {seconds / reference:5.1f} x numpy's import{verdict}")


if __name__ == "__main__":
    main()
