"""Benchmark: the ridge deterministic equivalent (the limit oracle) against the simulation it replaces.

Targets (issue: limit oracle): one DE solve at p = 2000 under 1 s, eigendecomposition included, and a curve of
Cui et al.'s Result 3.3 over 20 sample ratios under 10 s. Measured beside
numpy's own float64 matmul (n = 1000) in the same run, and each time is also printed in units of that matmul:
- the DE from Sigma (p x p): its eigenvalues, the scalar root, one Cholesky solve;
- the DE from a spectrum already in hand (what a curve over lambda or n costs per point);
- the Gaussian-equivalent DE given a realized W_1 (d = 1000, N = 2000: an eigh of the 1000 x 1000 Gram matrix);
- the features' own moments given W_1 (N = 2000), which gaussian-equivalence's DE_kernel is built from: the arcsine
  closed forms for erf, and Mehler's series with each neuron's scale for tanh;
- one simulated ridge readout at the same size (n = 4000 samples of p = 2000 features), what a simulation pays
  per draw, before it averages many draws;
- Result 3.3 in the limit along 20 sample ratios (tanh/tanh, Cui et al.'s Simulations.ipynb setting), and on one
  realized first layer at p = d = 1000 (its eigendecomposition included);
- one simulated giant step with its readout and a 10^4-sample test error at p = d = 1000, and one draw of the
  spiked random features with the same readout, what giant-step-risk pays per draw of each (its own functions).

    python benchmarks/bench_oracle.py
"""

from __future__ import annotations

import time

import numpy as np

from checkers.equivalence.giant_step_risk import readout_errors
from checkers.equivalence.ridge import fit_ridge
from checkers.equivalence.spiked_features import spiked_model, spiked_step
from theorems.activations import activation
from theorems.deterministic_equivalent import ridge_errors, ridge_errors_from_moments
from theorems.equivalence import giant_step_risk
from theorems.equivalence.gaussian_equivalent_oracle import gaussian_equivalent_errors
from theorems.equivalence.giant_step_oracle import limit_curve, realized_errors, realized_features
from theorems.equivalence.kernel_oracle import feature_moments

P, D, N_SAMPLES = 2000, 1000, 4000


def best_of(function, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


TANH = activation("tanh")
ERF = activation("erf")


B6 = giant_step_risk.THEOREM.instance()  # tanh/tanh, noise 0.1, alpha0 = 2, eta~ = 3, lambda_C = 0.1, n = 2p


def simulated_draw(rng) -> float:
    """What giant-step-risk's checker does per network draw at p = d = 1000, without Result 3.3."""
    step = spiked_step(1000, 1000, 2.0, 3.0, TANH, TANH, 0.1, rng)
    return readout_errors(B6, step.updated_weights, step.teacher, rng)[0]


def spiked_model_draw(rng) -> float:
    """What it does per draw of the sRF at p = d = 1000, at the statement's r, c, gamma."""
    weights, theta = spiked_model(1000, 1000, *(float(B6.constant(name)) for name in ("r", "c", "gamma")), rng)
    return readout_errors(B6, weights, theta, rng)[0]


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
    step = spiked_step(1000, 1000, 2.0, 3.0, TANH, TANH, 0.1, rng)

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
        ("feature moments given W_1, erf closed forms, N = 2000", None,
         best_of(lambda: feature_moments(weights, beta, ERF, ERF))),
        ("feature moments given W_1, tanh by Mehler's series, N = 2000", None,
         best_of(lambda: feature_moments(weights, beta, TANH, TANH))),
        ("one simulated ridge fit, n = 4000, p = 2000", None,
         best_of(lambda: fit_ridge(features, labels, 1e-3))),
        ("Result 3.3 curve, 20 sample ratios (limit)", 10.0,
         best_of(lambda: limit_curve(np.tanh, np.tanh, spike=0.6511, inflation=1.0769, overlap=0.5635,
                                     width_ratio=1.0, sample_ratios=np.linspace(0.2, 3.0, 20), ridge=0.01))),
        ("Result 3.3 on a realized W_1, p = d = 1000", None, best_of(lambda: realized_errors(
            np.tanh, np.tanh, realized_features(step.updated_weights, step.direction, step.teacher),
            sample_ratio=2.0, ridge=0.1, noise=0.1))),
        ("one simulated giant step + readout + test error, p = d = 1000", None,
         best_of(lambda: simulated_draw(rng), 1)),
        ("one sRF draw + readout + test error, p = d = 1000", None, best_of(lambda: spiked_model_draw(rng), 1)),
    ]
    for name, target, seconds in rows:
        verdict = "" if target is None else (f" (target < {target:g} s) " + ("OK" if seconds < target else "MISSED"))
        print(f"{name}: {seconds:.3f} s, {seconds / reference:.0f} matmuls{verdict}")


if __name__ == "__main__":
    main()
