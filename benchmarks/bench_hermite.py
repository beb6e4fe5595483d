"""Benchmark: Hermite tables of the 8 standard activations, degree 0..20 at 30 digits, cold and warm.

Targets: <= 5 s cold and <= 1 s warm on 2 cores, and (with --naive) at least 50 times faster in one cold process,
imports included, than naive mpmath: mpmath.quad of sigma(z) He_k(z) phi(z) over the real line, split at the kinks,
for every k, in the same run. "Cold" is a fresh process with empty caches (imports timed separately); "warm" is the
same request again in that process. To make the numbers comparable across machines, the script also times numpy's
own float64 matmul (n = 1000) in the same run and prints each time in units of that matmul.

With --memory, each of a few large tables of tanh runs in a fresh process, and its peak memory is printed beside
`hermite.quadrature_bytes`, the estimate `thmcheck hermite` refuses on (target: within a factor of 2).

    python benchmarks/bench_hermite.py [--naive] [--memory]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

ACTIVATIONS = ["relu", "abs", "tanh", "erf", "sigmoid", "softplus", "gelu", "silu"]
DEGREE, DIGITS = 20, 30

CHILD = f"""
import time
started = time.perf_counter()
from theorems.hermite import hermite_coefficients
imported = time.perf_counter()
routes = {{}}
for name in {ACTIVATIONS!r}:
    routes[name] = hermite_coefficients(name, {DEGREE}, digits={DIGITS}).routes
cold = time.perf_counter()
for name in {ACTIVATIONS!r}:
    hermite_coefficients(name, {DEGREE}, digits={DIGITS})
warm = time.perf_counter()
print(imported - started, cold - imported, warm - cold)
for name, r in routes.items():
    print(name, ",".join(sorted(set(r))), sum(x == "exact" for x in r))
"""


NAIVE = f"""
import time
started = time.perf_counter()
import mpmath
from theorems.activations import activation
mpmath.mp.dps = {DIGITS}
for name in {ACTIVATIONS!r}:
    sigma = activation(name)
    points = [-mpmath.inf] + [mpmath.mpf(float(k)) for k in sigma.kinks] + [mpmath.inf]
    for k in range({DEGREE} + 1):
        mpmath.quad(lambda z: sigma.mpmath(z) * mpmath.hermite(k, z / mpmath.sqrt(2)) * 2 ** (-mpmath.mpf(k) / 2)
                    * mpmath.npdf(z), points) / mpmath.factorial(k)
print(time.perf_counter() - started)
"""


MEMORY_POINTS = [(50, 30), (100, 30), (150, 30), (200, 30), (100, 100)]  # (degree, digits)

PEAK = """
import sys
from checkers.cost import peak_bytes
from theorems.hermite import hermite_coefficients, second_moment
degree, digits = int(sys.argv[1]), int(sys.argv[2])
hermite_coefficients("tanh", degree, digits=digits)
second_moment("tanh", digits=digits)
print(peak_bytes())
"""


def memory_table() -> None:
    from theorems.hermite import quadrature_bytes

    print("peak memory of tanh's table, measured in a fresh process, against the estimate:")
    for degree, digits in MEMORY_POINTS:
        measured = float(subprocess.run([sys.executable, "-c", PEAK, str(degree), str(digits)], capture_output=True,
                                        text=True, check=True).stdout)
        estimate = quadrature_bytes("tanh", degree, digits)
        ratio = estimate / measured
        print(f"  degree {degree:3} at {digits:3} digits: {measured / 2**20:6.0f} MiB measured, "
              f"{estimate / 2**20:6.0f} MiB estimated ({ratio:.2f}x) {'OK' if 0.5 <= ratio <= 2 else 'MISSED'}")


def matmul_seconds(size: int = 1000, repeats: int = 5) -> float:
    import numpy as np

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    a @ b
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive", action="store_true", help="also time naive mpmath quadrature (about a minute)")
    parser.add_argument("--memory", action="store_true", help="also measure large tables' peak memory (a minute)")
    arguments = parser.parse_args()
    reference = matmul_seconds()
    output = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True).stdout
    lines = output.strip().splitlines()
    imports, cold, warm = map(float, lines[0].split())
    print(f"numpy matmul 1000x1000 float64: {reference * 1e3:.1f} ms ({2e9 / reference / 1e9:.1f} GFLOP/s)")
    print(f"imports: {imports:.2f} s")
    print(f"cold: 8 activations x degree 0..{DEGREE} at {DIGITS} digits: {cold:.2f} s "
          f"(target <= 5 s; {cold / reference:.0f} matmuls) {'OK' if cold <= 5 else 'MISSED'}")
    print(f"warm: same request again: {warm * 1e3:.2f} ms (target <= 1 s; {warm / reference:.2f} matmuls) "
          f"{'OK' if warm <= 1 else 'MISSED'}")
    if arguments.naive:
        naive = float(subprocess.run([sys.executable, "-c", NAIVE], capture_output=True, text=True,
                                     check=True).stdout)
        ratio = naive / (imports + cold)
        print(f"naive mpmath (quad per coefficient, one cold process): {naive:.1f} s; this engine, imports included, "
              f"is {ratio:.0f} times faster (target >= 50) {'OK' if ratio >= 50 else 'MISSED'}")
    print("routes (exact coefficients of 21):")
    for line in lines[1:]:
        name, routes, exact = line.split()
        print(f"  {name:9} {routes:14} {exact}")
    if arguments.memory:
        memory_table()


if __name__ == "__main__":
    main()
