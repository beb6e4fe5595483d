"""Benchmark: one gradient step (Ba's normalization) against its array library's own matmul, and its peak memory.

The step is two n x d x N matmuls (X W_0 and X^T M: 4 n d N flops) plus the draws and the activation
passes. At n = d = N = SIZE the script times the backend's matmul of the same shapes, the whole step (draws
included) and the step on its drawn X and W_0 (`first_layer_gradient`: the products and the activation pass), in one
process and in turn (matmul, step, step on its draws, then again), so that each sees the machine in the same state;
it prints the best of REPEATS of each, the FLOP rates and their ratios (target >= 0.95 at 4000 on numpy). The draws
are the seeded stream's n d + d N float64 normals, the same work whatever the kernel does.
On another backend (`checkers.arrays`; a GPU one where installed) the draws are still numpy's, made on the host
and moved, so its ratio counts them against the device's matmul.
Peak memory is measured in a fresh process at n = d = N = 8000 (target: fits in 24 GB).

    python benchmarks/bench_onestep.py [--size 4000] [--memory-size 8000] [--dtype float64] [--backend numpy]
                                       [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = """
import json, resource, sys, time
import numpy as np
from checkers import arrays
from checkers.onestep.simulation import OneStepSetting, first_layer_gradient, one_step
from theorems.activations import activation
size, dtype, repeats, backend = int(sys.argv[1]), getattr(np, sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sigma = activation("tanh")
setting = OneStepSetting(size, size, size, sigma, sigma, noise=0.1, dtype=dtype)
best = {"matmul": float("inf"), "seconds": float("inf"), "on_draws": float("inf")}


def timed(name, work):
    started = time.perf_counter()
    result = work()
    best[name] = min(best[name], time.perf_counter() - started)
    return result


def matmul(left, right):  # the step's two products' shapes (X W and X^T M); float() waits for a device's queue
    return float((left @ right)[0, 0]) + float((left.T @ right)[0, 0])


def draw_and_step(seed):
    step = one_step(setting, np.random.default_rng(seed), keep=repeats > 1)
    float(step.gradient[0, 0])
    return step


with arrays.using(backend):
    if repeats > 1:  # one round is the memory run: no reference operands to add to its peak
        reference = np.random.default_rng(0)
        left, right = (arrays.to_backend(reference.standard_normal((size, size)).astype(dtype)) for _ in range(2))
    for seed in range(repeats):
        if repeats > 1:
            timed("matmul", lambda: matmul(left, right))
        step = timed("seconds", lambda: draw_and_step(seed))
        if repeats > 1:  # the same step again on the draws it made
            timed("on_draws", lambda: float(first_layer_gradient(step.inputs, step.labels, step.initial_weights,
                                                                 step.second_layer, sigma)[0, 0]))
        del step
print(json.dumps({**best, "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


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
    parser.add_argument("--repeats", type=int, default=5, help="rounds of matmul, step and step on its draws (>= 2)")
    arguments = parser.parse_args()
    if arguments.repeats < 2:
        parser.error("--repeats must be at least 2")
    size, backend, repeats = arguments.size, arguments.backend, arguments.repeats
    flops = 4.0 * size**3
    step = run_child(size, arguments.dtype, repeats, backend)
    reference = step["matmul"]
    print(f"n = d = N = {size}, {arguments.dtype}, backend {backend}")
    print(f"{backend} matmul (two {size}^3 products, best of {repeats}): {reference:.3f} s, "
          f"{flops / reference / 1e9:.1f} GFLOP/s")
    for what, seconds in (("draws included", step["seconds"]), ("on its draws", step["on_draws"])):
        ratio = reference / seconds
        print(f"one gradient step ({what}, best of {repeats}): {seconds:.3f} s, {flops / seconds / 1e9:.1f} GFLOP/s, "
              f"ratio to matmul {ratio:.2f} (target >= 0.95) {'OK' if ratio >= 0.95 else 'MISSED'}")
    print(f"the draws: {step['seconds'] - step['on_draws']:.3f} s of the step, "
          f"{(step['seconds'] - step['on_draws']) / reference:.1%} of the matmul's time")
    if arguments.memory_size:
        peak = run_child(arguments.memory_size, arguments.dtype, 1, backend)
        print(f"peak memory at n = d = N = {arguments.memory_size}: {peak['peak_bytes'] / 2**30:.2f} GiB "
              f"({peak['seconds']:.1f} s; target: fits in 24 GB) {'OK' if peak['peak_bytes'] < 24e9 else 'MISSED'}")


if __name__ == "__main__":
    main()
