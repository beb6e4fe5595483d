"""Benchmark: every check's estimated time (`checkers.cost.estimate`) against its measured time, at quick and default
fidelity at the defaults; with --record, the measurements become the committed cost records (docs/costs.json).

Each check runs as `thmcheck check ID --fidelity F --json` in a process of its own, `--workers` of them at a time
(dearest first); its measured time is its verdict's elapsed seconds (on one core: a check's BLAS runs one thread),
its memory the process's peak. The estimates are computed in this process before the runs, from the records as they
stand, so a record written by this run is judged by the next one. Printed per check: the estimated and measured
time, their ratio, whether it is within the target factor of 2, the estimated and measured peak memory, and whether
the check's record is stale (measured on other code). Exit 1 where any time estimate is off by more than the
factor, or missing.

    python benchmarks/bench_costs.py [--fidelity quick default] [--workers 2] [--only ID ...] [--record]
    python benchmarks/bench_costs.py --use quick=QUICK.json --record   # a saved `check --all --json` run (no memory)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checkers import catalog, cost_records, probe, registry  # noqa: E402
from checkers.calibration_records import content_hash  # noqa: E402
from checkers.offers import estimated, fidelity_for  # noqa: E402

TARGET_FACTOR = 2.0


# a check in a process of its own that writes its peak resident memory (Linux's VmHWM: this process's own, which
# ru_maxrss is not, since Linux carries the forking process's high-water mark into it across exec) to argv[1]
CHILD = ("import atexit, sys\n"
         "from checkers.cost import peak_bytes\n"
         "atexit.register(lambda: open(sys.argv[1], 'w').write(repr(peak_bytes())))\n"
         "from checkers.cli import main\n"
         "sys.exit(main(sys.argv[2:]))\n")


def run_each(fidelity: str, workers: int, theorems: list[str], scratch: Path) -> list[tuple[dict, float | None]]:
    """Each check's verdict at `fidelity` and its process's peak memory: each in a process of its own, as
    `thmcheck check ID --json` runs it, `workers` at a time."""
    pending, running, results = list(theorems), {}, []
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    while pending or running:
        while pending and len(running) < workers:
            theorem = pending.pop(0)
            out, peak = scratch / f"{theorem}-{fidelity}.json", scratch / f"{theorem}-{fidelity}.peak"
            with open(out, "w") as handle:
                process = subprocess.Popen([sys.executable, "-c", CHILD, str(peak), "check", theorem, "--fidelity",
                                            fidelity, "--json", "--workers", "1"], cwd=ROOT, env=environment,
                                           stdout=handle, stderr=subprocess.DEVNULL)
            running[process.pid] = (process, theorem, out, peak)
        pid, status, _ = os.wait4(-1, 0)
        process, theorem, out, peak = running.pop(pid)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in (0, 1, 3):
            raise SystemExit(f"check {theorem} at {fidelity} exited {process.returncode}")
        peak_bytes = float(peak.read_text()) if peak.is_file() and peak.read_text() != "None" else None
        results.append((json.loads(out.read_text())["results"][0], peak_bytes))
    return results


def record_of(verdict: dict, peak: float | None, machine: probe.Probe) -> cost_records.CostRecord:
    """A cost record of one verdict: its time and peak memory, the machine's probe, its stages and, where declared,
    their work and memory."""
    checker = registry.checker(verdict["theorem"])
    stages = max((prediction.get("stages") or 0 for prediction in verdict["predictions"]), default=0)
    work = declared_bytes = None
    if checker.cost is not None:
        declared = checker.cost(checker.theorem.instance({}), fidelity_for(checker, verdict["fidelity"]))
        work = declared.stages_work(stages, checker.nested_stages)
        declared_bytes = declared.peak_bytes
    return cost_records.CostRecord(verdict["theorem"], verdict["fidelity"], float(verdict["elapsed_seconds"]),
                                   machine.seconds, stages, work, content_hash(verdict["theorem"]), peak,
                                   declared_bytes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fidelity", nargs="+", default=["quick", "default"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="+", default=[], metavar="ID", help="these checks only (a new theorem's)")
    parser.add_argument("--record", action="store_true", help="write the measurements to docs/costs.json")
    parser.add_argument("--use", action="append", default=[], metavar="FIDELITY=PATH",
                        help="a saved `check --all --json` run at FIDELITY instead of running it")
    arguments = parser.parse_args()
    saved = dict(item.split("=", 1) for item in arguments.use)
    before = probe.measure()
    print(f"probe: {before.seconds * 1e3:.1f} ms ({before.machine}); cached: {probe.here().seconds * 1e3:.1f} ms")
    records = cost_records.committed()
    stale = {(r.theorem, r.fidelity) for r in cost_records.stale(records, content_hash)} if records else set()
    missed, new = [], []  # new: each run's (verdict, peak memory) until the records are made
    print(f"{'check':32} {'fidelity':8} {'estimate':>9} {'measured':>9} {'ratio':>6}  within 2x  {'peak MiB':>8} "
          f"{'measured':>8}  record")
    theorems = arguments.only or list(catalog.entries())
    for fidelity in list(saved) or arguments.fidelity:
        estimates = {theorem: estimated(registry.checker(theorem), fidelity=fidelity) for theorem in theorems}
        if fidelity in saved:
            runs = [(verdict, None) for verdict in json.loads(Path(saved[fidelity]).read_text())["results"]]
        else:
            dearest_first = sorted(theorems, key=lambda theorem: -(estimates[theorem].likely if estimates[theorem]
                                                                    else 0.0))
            with tempfile.TemporaryDirectory() as scratch:
                runs = run_each(fidelity, arguments.workers, dearest_first, Path(scratch))
        for verdict, peak in sorted(runs, key=lambda run: -run[0]["elapsed_seconds"]):
            theorem, measured = verdict["theorem"], float(verdict["elapsed_seconds"])
            found = estimates.get(theorem)
            ratio = None if found is None else found.likely / measured
            within = ratio is not None and 1 / TARGET_FACTOR <= ratio <= TARGET_FACTOR
            if not within:
                missed.append(f"{theorem} at {fidelity}")
            state = "none" if records is None or (theorem, fidelity) not in records.records else \
                "stale" if (theorem, fidelity) in stale else "current"
            memory = None if found is None else found.peak_bytes
            print(f"{theorem:32} {fidelity:8} {'-' if found is None else f'{found.likely:.1f}':>9} {measured:9.1f} "
                  f"{'-' if ratio is None else f'{ratio:.2f}':>6}  {'yes' if within else 'NO':9}  "
                  f"{'-' if memory is None else f'{memory / 2**20:.0f}':>8} "
                  f"{'-' if peak is None else f'{peak / 2**20:.0f}':>8}  {state}")
            new.append((verdict, peak))
    # the records carry the less disturbed of the probes taken before and after the runs (each a best of seven:
    # on a shared machine one probe read 82 ms where the next ones read 60 to 73)
    after = probe.measure()
    machine = min(before, after, key=lambda measured: measured.seconds)
    print(f"probe after the runs: {after.seconds * 1e3:.1f} ms; recorded: {machine.seconds * 1e3:.1f} ms")
    new = [record_of(verdict, peak, machine) for verdict, peak in new]
    if arguments.record:
        cost_records.record(new)
        print(f"recorded {len(new)} rows in {cost_records.RECORDS}")
    print(f"{len(missed)} estimate(s) beyond a factor {TARGET_FACTOR:g} or missing" + (
        f": {', '.join(missed)}" if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
