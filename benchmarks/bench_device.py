"""Benchmark: what a lent GPU does for thmcheck: its FP64 and FP32 matmul rates, one gradient step at n = d = N = 4000
and 8000, and every check that runs on the array API at the highest fidelity it offers, each timed on the device.

With torch seeing a CUDA device the run is the device run (`benchmarks/device.sh` sets it up on the lent machine).
Elsewhere the same steps run at small sizes on the CPU, on the first array library installed of torch and
array-api-strict (numpy where neither is), at quick fidelity, so that a test runs the script as the device would. The
checks still on numpy only are named: `check --all --fidelity paper --backend torch` refuses them, so it is not run
until every Monte Carlo check offers a backend. Everything printed is also written to OUT/device.json.

    python benchmarks/bench_device.py [--out device-out] [--sizes 4000 8000] [--checks ID ...] [--timeout 240]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEVICE_SIZES = (4000, 8000)
SMALL_SIZES = (200, 400)

RATES = """
import json, sys, time
backend, size = sys.argv[1], int(sys.argv[2])
rates = {}
if backend == "torch":
    import torch
    device = "cuda" if torch.cuda.is_available() else "cpu"
    name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    for dtype in (torch.float64, torch.float32):
        left, right = (torch.randn(size, size, dtype=dtype, device=device) for _ in range(2))
        (left @ right).sum().item()  # warm-up: the library's kernels load and the clocks rise
        started = time.perf_counter()
        for _ in range(3):
            product = left @ right
        product.sum().item()  # waits for the device's queue
        rates[str(dtype).removeprefix("torch.")] = 3 * 2 * size**3 / (time.perf_counter() - started) / 1e12
else:  # numpy's rate, whatever library the checks run on: array-api-strict wraps numpy
    import numpy as np
    name = "cpu"
    for dtype in (np.float64, np.float32):
        left, right = (np.random.default_rng(0).standard_normal((size, size)).astype(dtype) for _ in range(2))
        left @ right
        started = time.perf_counter()
        for _ in range(3):
            left @ right
        rates[np.dtype(dtype).name] = 3 * 2 * size**3 / (time.perf_counter() - started) / 1e12
print(json.dumps({"device": name, "tflops": rates}))
"""


def cuda_torch() -> bool:
    """Whether torch is installed and sees a CUDA device (asked in a child: importing torch takes seconds)."""
    if importlib.util.find_spec("torch") is None:
        return False
    probe = subprocess.run([sys.executable, "-c", "import sys, torch; sys.exit(not torch.cuda.is_available())"],
                           capture_output=True)
    return probe.returncode == 0


def cpu_backend() -> str:
    return next((name for name, module in (("torch", "torch"), ("array-api-strict", "array_api_strict"))
                 if importlib.util.find_spec(module) is not None), "numpy")


def timed(command: list[str], timeout: float) -> tuple[float, subprocess.CompletedProcess | None]:
    """(wall seconds, the finished process, or None where it ran past `timeout`)."""
    started = time.perf_counter()
    try:
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, None
    return time.perf_counter() - started, result


def check_rows(checks: list[str], backend: str, on_device: bool, timeout: float) -> list[dict]:
    """Each check run once on `backend`, at paper fidelity where it offers it, else at default on the device and
    quick on the CPU: its outcome, its own elapsed time, the wall time of the command, and where it ran."""
    from checkers import registry
    rows = []
    for theorem in checks:
        checker = registry.checker(theorem)
        fidelity = "paper" if checker.paper_scale else ("default" if on_device else "quick")
        command = [sys.executable, "-m", "checkers.cli", "check", theorem, "--fidelity", fidelity, "--backend",
                   backend, "--json"]
        seconds, result = timed(command, timeout)
        row = {"theorem": theorem, "fidelity": fidelity, "wall_seconds": round(seconds, 2)}
        if result is None:
            row["outcome"] = f"ran past {timeout:g} s"
        elif result.returncode not in (0, 1, 3):
            row["outcome"] = f"exit {result.returncode}: {result.stderr.strip().splitlines()[-1:]}"
        else:
            verdict = json.loads(result.stdout)["results"][0]
            row.update(outcome=verdict["outcome"], elapsed_seconds=verdict["elapsed_seconds"],
                       backend=verdict["backend"], device=verdict["device"], dtype=verdict["dtype"])
        rows.append(row)
        print(f"  {theorem:24s} {fidelity:8s} {row['outcome']:14s} {seconds:8.1f} s  {row.get('device', '')}",
              flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "device-out")
    parser.add_argument("--sizes", type=int, nargs="+", help="n = d = N of the one-step benchmark "
                        f"(default {' and '.join(map(str, DEVICE_SIZES))} on a GPU, "
                        f"{' and '.join(map(str, SMALL_SIZES))} on the CPU)")
    parser.add_argument("--checks", nargs="+", help="the array-API checks to run (default: all of them)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds each command may run (default 240)")
    arguments = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from checkers import registry

    on_device = cuda_torch()
    backend = "torch" if on_device else cpu_backend()
    sizes = arguments.sizes or (DEVICE_SIZES if on_device else SMALL_SIZES)
    offered = [checker.id for checker in registry.all_checkers() if checker.array_api]
    unknown = sorted(set(arguments.checks or ()) - set(offered))
    if unknown:
        parser.error(f"not on the array API: {', '.join(unknown)} (offered: {', '.join(offered)})")
    report = {"machine": platform.node(), "python": platform.python_version(), "backend": backend,
              "on_device": on_device}
    print(f"{'GPU' if on_device else 'no GPU: small sizes on the CPU'}, backend {backend}", flush=True)

    seconds, result = timed([sys.executable, "-c", RATES, backend, str(8192 if on_device else 1000)],
                            arguments.timeout)
    report["matmul"] = json.loads(result.stdout) if result and result.returncode == 0 else None
    if report["matmul"]:
        rates = report["matmul"]["tflops"]
        print(f"matmul on {report['matmul']['device']}: " + ", ".join(f"{dtype} {rate:.3g} TFLOP/s"
                                                                         for dtype, rate in rates.items()))

    report["one_step"] = []
    for size in sizes:
        command = [sys.executable, str(ROOT / "benchmarks" / "bench_onestep.py"), "--size", str(size),
                   "--memory-size", "0", "--backend", backend, "--repeats", "2"]
        seconds, result = timed(command, arguments.timeout)
        lines = result.stdout.strip().splitlines() if result and result.returncode == 0 else []
        report["one_step"].append({"size": size, "wall_seconds": round(seconds, 2), "ran": bool(lines),
                                   "output": lines or (result.stderr.strip()[-300:] if result else "timed out")})
        print(f"one step at n = d = N = {size}: {seconds:.1f} s" + "".join(f"\n  {line}" for line in lines),
              flush=True)

    print("checks on the array API:", flush=True)
    report["checks"] = check_rows(arguments.checks or offered, backend, on_device, arguments.timeout)
    report["numpy_only"] = [checker.id for checker in registry.all_checkers()
                            if not checker.array_api and not checker.exact]
    print(f"not run: check --all --fidelity paper --backend {backend}: {len(report['numpy_only'])} Monte Carlo "
          f"checks run on numpy only ({', '.join(report['numpy_only'])})")
    arguments.out.mkdir(parents=True, exist_ok=True)
    (arguments.out / "device.json").write_text(json.dumps(report, indent=1) + "\n")
    ran = all(row["ran"] for row in report["one_step"]) and all(
        row["outcome"] in ("pass", "inconclusive") for row in report["checks"])
    sys.exit(0 if ran and report["matmul"] else 1)


if __name__ == "__main__":
    main()
