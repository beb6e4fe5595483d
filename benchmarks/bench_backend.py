"""Benchmark: the checks that offer another backend, timed on it against numpy in the same process and run.

For spike-strength and gaussian-equivalence (the checks with a generic array-API path) at each fidelity asked, the
script runs the check on numpy, then on the backend, in turn, REPEATS times, and prints the best time of each and
their ratio (target: the backend within 2x of numpy, on a machine without a GPU too), the device the backend ran
on, and whether the two verdicts read the same outcome. The backend's import is timed apart: a command pays it
once, whatever it runs.

    python benchmarks/bench_backend.py [--backend torch] [--fidelity quick default] [--repeats 1]
"""

from __future__ import annotations

import argparse
import importlib
import time

from checkers import arrays, registry
from checkers.engine import run_check

CHECKS = ("spike-strength", "gaussian-equivalence")
TARGET = 2.0


def timed_check(theorem: str, fidelity: str, backend: str):
    started = time.perf_counter()
    verdict = run_check(registry.checker(theorem), fidelity=fidelity, backend=backend)
    return time.perf_counter() - started, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="torch", choices=[name for name in arrays.BACKENDS if name != "numpy"])
    parser.add_argument("--fidelity", nargs="+", default=["quick", "default"])
    parser.add_argument("--repeats", type=int, default=1)
    arguments = parser.parse_args()
    arrays.require(arguments.backend)
    started = time.perf_counter()
    importlib.import_module(arrays.BACKENDS[arguments.backend][0])
    print(f"import {arguments.backend}: {time.perf_counter() - started:.2f} s (once per command)")
    print(f"{'check':22s} {'fidelity':9s} {'numpy s':>9s} {arguments.backend + ' s':>9s} {'ratio':>6s}  device  "
          "same outcome")
    worst = 0.0
    for theorem in CHECKS:
        for fidelity in arguments.fidelity:
            best = {"numpy": float("inf"), arguments.backend: float("inf")}
            verdicts = {}
            for _ in range(arguments.repeats):
                for backend in best:
                    seconds, verdicts[backend] = timed_check(theorem, fidelity, backend)
                    best[backend] = min(best[backend], seconds)
            ratio = best[arguments.backend] / best["numpy"]
            worst = max(worst, ratio)
            other = verdicts[arguments.backend]
            print(f"{theorem:22s} {fidelity:9s} {best['numpy']:9.2f} {best[arguments.backend]:9.2f} {ratio:6.2f}  "
                  f"{other.device:6s}  {other.outcome == verdicts['numpy'].outcome}")
    print(f"worst ratio {worst:.2f}: {'within' if worst <= TARGET else 'BEYOND'} the target of {TARGET:g}x numpy")


if __name__ == "__main__":
    main()
