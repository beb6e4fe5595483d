"""Benchmark: one gradient step (Ba's normalization) against numpy's own matmul, and its peak memory.

The step is two n x d x N matmuls (X W_0 and X^T M: 4 n d N flops) plus the draws and the activation
passes. The script times the whole step (draws included) at n = d = N = SIZE, numpy's float64 matmul of
the same shapes in the same run, and prints both FLOP rates and their ratio (target >= 0.8 at 4000).
Peak memory is measured in a fresh process at n = d = N = 8000 (target: fits in 24 GB).

    python benchmarks/bench_onestep.py [--size 4000] [--memory-size 8000] [--dtype float64]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

CHILD = """
import json, resource, sys, time
import numpy as np
from checkers.onestep.simulation import OneStepSetting, one_step
from theorems.activations import activation
size, dtype = int(sys.argv[1]), getattr(np, sys.argv[2])
sigma = activation("tanh")
repeats = int(sys.argv[3])
elapsed = float("inf")
for seed in range(repeats):  # best of `repeats`, as for the matmul reference
    started = time.perf_counter()
    one_step(OneStepSetting(size, size, size, sigma, sigma, noise=0.1, dtype=dtype), np.random.default_rng(seed),
             keep=False)
    elapsed = min(elapsed, time.perf_counter() - started)
print(json.dumps({"seconds": elapsed, "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def matmul_seconds(size: int, dtype) -> float:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((size, size)).astype(dtype)
    w = rng.standard_normal((size, size)).astype(dtype)
    x @ w
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        x @ w
        x.T @ w
        best = min(best, time.perf_counter() - started)
    return best


def run_child(size: int, dtype: str, repeats: int) -> dict:
    output = subprocess.run([sys.executable, "-c", CHILD, str(size), dtype, str(repeats)], capture_output=True,
                            text=True, check=True).stdout
    return json.loads(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4000)
    parser.add_argument("--memory-size", type=int, default=8000)
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    arguments = parser.parse_args()
    size, dtype = arguments.size, getattr(np, arguments.dtype)
    flops = 4.0 * size**3
    reference = matmul_seconds(size, dtype)
    step = run_child(size, arguments.dtype, 3)
    print(f"n = d = N = {size}, {arguments.dtype}")
    print(f"numpy matmul (two {size}^3 products, best of 3): {reference:.2f} s, {flops / reference / 1e9:.1f} GFLOP/s")
    print(f"one gradient step (draws included, best of 3): {step['seconds']:.2f} s, "
          f"{flops / step['seconds'] / 1e9:.1f} GFLOP/s")
    ratio = reference / step["seconds"]
    print(f"ratio of FLOP rates: {ratio:.2f} (target >= 0.8) {'OK' if ratio >= 0.8 else 'MISSED'}")
    if arguments.memory_size:
        peak = run_child(arguments.memory_size, arguments.dtype, 1)
        print(f"peak memory at n = d = N = {arguments.memory_size}: {peak['peak_bytes'] / 2**30:.2f} GiB "
              f"({peak['seconds']:.1f} s; target: fits in 24 GB) {'OK' if peak['peak_bytes'] < 24e9 else 'MISSED'}")


if __name__ == "__main__":
    main()
