"""Benchmark: the ridge deterministic equivalent (the limit oracle) against the simulation it replaces.

Targets (issue: limit oracle): one DE solve at p = 2000 under 1 s, eigendecomposition included. Measured beside
numpy's own float64 matmul (n = 1000) in the same run, and each time is also printed in units of that matmul:
- the DE from Sigma (p x p): its eigenvalues, the scalar root, one Cholesky solve;
- the DE from a spectrum already in hand (what a curve over lambda or n costs per point);
- the Gaussian-equivalent DE given a realized W_1 (d = 1000, N = 2000: an eigh of the 1000 x 1000 Gram matrix);
- one simulated ridge readout at the same size (n = 4000 samples of p = 2000 features), what a simulation pays
  per draw, before it averages many draws.

    python benchmarks/bench_oracle.py
"""

from __future__ import annotations

import time

import numpy as np

from checkers.equivalence.ridge import fit_ridge
from theorems.deterministic_equivalent import ridge_errors, ridge_errors_from_moments
from theorems.equivalence.gaussian_equivalent_oracle import gaussian_equivalent_errors

P, D, N_SAMPLES = 2000, 1000, 4000


def best_of(function, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((1000, 1000)), rng.standard_normal((1000, 1000))
    reference = best_of(lambda: a @ b, 5)
    print(f"numpy matmul 1000x1000 float64: {reference * 1e3:.1f} ms ({2e9 / reference / 1e9:.1f} GFLOP/s)")

    basis = np.linalg.qr(rng.standard_normal((P, P)))[0]
    eigenvalues = np.arange(1, P + 1, dtype=float) ** -1.0
    covariance = (basis * eigenvalues) @ basis.T
    projections = rng.standard_normal(P) * np.sqrt(eigenvalues) / np.sqrt(P)
    cross = basis @ projections
    moment = float(np.sum(projections**2 / eigenvalues)) + 0.1
    weights = rng.standard_normal((D, P)) / np.sqrt(D)
    beta = rng.standard_normal(D)
    beta /= np.linalg.norm(beta)
    features = rng.standard_normal((N_SAMPLES, P)) * np.sqrt(eigenvalues) / np.sqrt(P)
    labels = rng.standard_normal(N_SAMPLES)

    rows = [
        ("DE from Sigma, p = 2000 (eigenvalues, root, one Cholesky)", 1.0,
         best_of(lambda: ridge_errors_from_moments(covariance, cross, label_moment=moment, samples=N_SAMPLES,
                                                   ridge=1e-3))),
        ("DE from a spectrum, p = 2000 (root only)", None,
         best_of(lambda: ridge_errors(eigenvalues, projections, label_moment=moment, samples=N_SAMPLES,
                                      ridge=1e-3))),
        ("GE DE given W_1, d = 1000, N = 2000", 1.0,
         best_of(lambda: gaussian_equivalent_errors(weights, beta, mu1=0.65, mu_star=0.2, teacher_mu1=0.65,
                                                    label_moment=0.48, samples=N_SAMPLES, ridge=1e-3))),
        ("one simulated ridge fit, n = 4000, p = 2000", None,
         best_of(lambda: fit_ridge(features, labels, 1e-3))),
    ]
    for name, target, seconds in rows:
        verdict = "" if target is None else (f" (target < {target:g} s) " + ("OK" if seconds < target else "MISSED"))
        print(f"{name}: {seconds:.3f} s, {seconds / reference:.0f} matmuls{verdict}")


if __name__ == "__main__":
    main()
