"""Benchmark: one gradient step (Ba's normalization) against its array library's own matmul, and its peak memory.

The step is two n x d x N matmuls (X W_0 and X^T M: 4 n d N flops) plus the draws and the activation
passes. The script times the whole step (draws included) at n = d = N = SIZE, the step on its drawn X and W_0
(`first_layer_gradient`: the products and the activation pass), and the backend's matmul of the same shapes in the
same run, and prints the FLOP rates and their ratios (target >= 0.95 at 4000 on numpy).
On another backend (`checkers.arrays`; a GPU one where installed) the draws are still numpy's, made on the host
and moved, so its ratio counts them against the device's matmul.
Peak memory is measured in a fresh process at n = d = N = 8000 (target: fits in 24 GB).

    python benchmarks/bench_onestep.py [--size 4000] [--memory-size 8000] [--dtype float64] [--backend numpy]
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
from checkers import arrays
from checkers.onestep.simulation import OneStepSetting, first_layer_gradient, one_step
from theorems.activations import activation
size, dtype, repeats, backend = int(sys.argv[1]), getattr(np, sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sigma = activation("tanh")
elapsed = on_draws = float("inf")
with arrays.using(backend):
    for seed in range(repeats):  # best of `repeats`, as for the matmul reference
        started = time.perf_counter()
        step = one_step(OneStepSetting(size, size, size, sigma, sigma, noise=0.1, dtype=dtype),
                        np.random.default_rng(seed), keep=repeats > 1)
        float(step.gradient[0, 0])  # waits for a device's queue
        elapsed = min(elapsed, time.perf_counter() - started)
        if repeats > 1:  # the same step again on the draws it made
            started = time.perf_counter()
            gradient = first_layer_gradient(step.inputs, step.labels, step.initial_weights, step.second_layer, sigma)
            float(gradient[0, 0])
            on_draws = min(on_draws, time.perf_counter() - started)
        del step
print(json.dumps({"seconds": elapsed, "on_draws": on_draws,
                  "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def matmul_seconds(size: int, dtype, backend: str) -> float:
    """The backend's two products of the step's shapes (X W and X^T M), best of 3."""
    from checkers import arrays
    rng = np.random.default_rng(0)
    with arrays.using(backend):
        x = arrays.to_backend(rng.standard_normal((size, size)).astype(dtype))
        w = arrays.to_backend(rng.standard_normal((size, size)).astype(dtype))
        float((x @ w)[0, 0])
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            first, second = x @ w, x.T @ w
            float(first[0, 0]) + float(second[0, 0])  # waits for a device's queue
            best = min(best, time.perf_counter() - started)
    return best


def run_child(size: int, dtype: str, repeats: int, backend: str) -> dict:
    output = subprocess.run([sys.executable, "-c", CHILD, str(size), dtype, str(repeats), backend],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4000)
    parser.add_argument("--memory-size", type=int, default=8000)
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    parser.add_argument("--backend", default="numpy", help="an array library of checkers.arrays.BACKENDS")
    arguments = parser.parse_args()
    size, dtype, backend = arguments.size, getattr(np, arguments.dtype), arguments.backend
    flops = 4.0 * size**3
    reference = matmul_seconds(size, dtype, backend)
    step = run_child(size, arguments.dtype, 3, backend)
    print(f"n = d = N = {size}, {arguments.dtype}, backend {backend}")
    print(f"{backend} matmul (two {size}^3 products, best of 3): {reference:.3f} s, "
          f"{flops / reference / 1e9:.1f} GFLOP/s")
    for what, seconds in (("draws included", step["seconds"]), ("on its draws", step["on_draws"])):
        ratio = reference / seconds
        print(f"one gradient step ({what}, best of 3): {seconds:.3f} s, {flops / seconds / 1e9:.1f} GFLOP/s, "
              f"ratio to matmul {ratio:.2f} (target >= 0.95) {'OK' if ratio >= 0.95 else 'MISSED'}")
    if arguments.memory_size:
        peak = run_child(arguments.memory_size, arguments.dtype, 1, backend)
        print(f"peak memory at n = d = N = {arguments.memory_size}: {peak['peak_bytes'] / 2**30:.2f} GiB "
              f"({peak['seconds']:.1f} s; target: fits in 24 GB) {'OK' if peak['peak_bytes'] < 24e9 else 'MISSED'}")


if __name__ == "__main__":
    main()
