"""Deterministic equivalent of ridge regression on Gaussian features: train and test errors from one spectrum.

Setting (docs/derivations/limits.md#ridge). Features phi in R^p with second-moment matrix Sigma = E[phi phi^T]
(eigenvalues omega_i, eigenvectors u_i) and cross moment psi = E[phi y]; labels with E y^2 (noise included);
ridge on n samples, b = argmin (1/n) sum_i (y_i - b^T phi_i)^2 + lambda ||b||^2. This is Ba et al.'s readout
with lambda = lambda_Ba (features phi = sigma(W_1^T x), p = N); Cui et al.'s lambda_C is lambda n / p.

The effective regularization kappa is the root of

    kappa - lambda = (kappa / n) df1(kappa),     df1(kappa) = sum_i omega_i / (omega_i + kappa),

and, with psi_i = u_i . psi and df2(kappa) = sum_i omega_i^2 / (omega_i + kappa)^2,

    E_test  = [E y^2 - sum_i psi_i^2 (omega_i + 2 kappa) / (omega_i + kappa)^2] / (1 - df2 / n)
    E_train = (lambda / kappa)^2 E_test,       risk = E_test - sigma_noise^2

(E_test is the error against a fresh noisy label; the risk is against the noiseless teacher). The standard
ridge deterministic equivalent (Bach 2023; Atanasov, Zavatone-Veth and Pehlevan 2024), in the form of
Schroeder, Cui, Dmitriev and Loureiro's code (arXiv 2402.13999).

Solver. g(kappa) = kappa (1 - df1/n) is increasing where it is positive, and g(kappa) = lambda has exactly one
root in [lambda, lambda + tr Sigma / n]: Brent's method on log kappa, after one eigendecomposition. The
denominator is computed as lambda/kappa + (kappa/n) sum omega/(omega + kappa)^2, a sum of positive terms,
never as the difference 1 - df2/n (which cancels near the interpolation peak). lambda = 0 is the ridgeless
limit: OLS when rank Sigma < n, the minimum-norm interpolator (kappa solves df1 = n) when rank Sigma > n, and
an infinite test error at rank Sigma = n. `ridge_errors_mpmath` solves the same scalar equations in mpmath.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
import scipy.linalg
import scipy.optimize

from theorems.errors import InvalidInput

ZERO_EIGENVALUE = 1e-12  # relative to the largest: below it an eigenvalue of Sigma is round-off, taken as 0


@dataclass(frozen=True, kw_only=True)
class RidgeErrors:
    """The deterministic equivalent's numbers for one (spectrum, n, lambda)."""

    kappa: float  # the effective regularization
    test_error: float  # E_test, against a fresh noisy label
    risk: float  # E_test - noise variance, against the noiseless teacher
    train_error: float
    degrees_of_freedom: float  # df1(kappa)
    denominator: float  # 1 - df2(kappa)/n


def _validated(eigenvalues, projections, label_moment, samples, ridge, noise_variance):
    eigenvalues = np.asarray(eigenvalues, dtype=float).ravel()
    projections = np.asarray(projections, dtype=float).ravel()
    if eigenvalues.size == 0 or eigenvalues.shape != projections.shape:
        raise InvalidInput(f"need one projection per eigenvalue, got {eigenvalues.size} eigenvalues and "
                           f"{projections.size} projections")
    if not (np.all(np.isfinite(eigenvalues)) and np.all(np.isfinite(projections))):
        raise InvalidInput("eigenvalues and projections must be finite")
    scale = float(np.max(np.abs(eigenvalues)))
    if scale == 0 or np.min(eigenvalues) < -ZERO_EIGENVALUE * scale:
        raise InvalidInput("Sigma must be positive semi-definite and nonzero (an eigenvalue is negative, or all are 0)")
    eigenvalues = np.where(eigenvalues <= ZERO_EIGENVALUE * scale, 0.0, eigenvalues)
    null = eigenvalues == 0
    if np.any(np.abs(projections[null]) > 1e-9 * math.sqrt(scale * max(label_moment, 0.0)) + 1e-300):
        raise InvalidInput("psi has a component along a zero eigenvalue of Sigma: no joint law has these moments")
    if isinstance(samples, bool) or int(samples) != samples or samples < 1:
        raise InvalidInput(f"samples must be a positive integer, got {samples!r}")
    if not (math.isfinite(ridge) and ridge >= 0):
        raise InvalidInput(f"ridge must be finite and >= 0, got {ridge!r}")
    if not (math.isfinite(noise_variance) and noise_variance >= 0):
        raise InvalidInput(f"noise variance must be finite and >= 0, got {noise_variance!r}")
    explained = float(np.sum(projections[~null] ** 2 / eigenvalues[~null]))
    if not math.isfinite(label_moment) or label_moment < explained * (1 - 1e-9):
        raise InvalidInput(f"E y^2 = {label_moment!r} is below psi^T Sigma^+ psi = {explained:.6g}: no joint law "
                           "has these moments")
    return eigenvalues, projections, int(samples)


def _degrees_of_freedom(eigenvalues, kappa):
    return float(np.sum(eigenvalues / (eigenvalues + kappa)))


def solve_kappa(eigenvalues, samples: int, ridge: float) -> float:
    """The effective regularization kappa (0 for ridgeless OLS, where rank Sigma < n; inf at rank = n)."""
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    positive = eigenvalues[eigenvalues > 0]
    rank, trace = positive.size, float(np.sum(positive))
    if ridge == 0:
        if rank < samples:
            return 0.0
        if rank == samples:
            return 0.0  # the interpolation peak: kappa -> 0 while the test error diverges
        # minimum-norm interpolation: df1(kappa0) = n. df1 decreases from rank to 0; at low = w_min (r - n)/(2n)
        # every term is >= w_min/(w_min + low), so df1(low) >= 2 n r/(n + r) > n; and df1(2 tr/n) <= n/2
        low = float(np.min(positive)) * (rank - samples) / (2 * samples)
        high = 2 * trace / samples
        return math.exp(scipy.optimize.brentq(
            lambda t: _degrees_of_freedom(positive, math.exp(t)) - samples, math.log(low), math.log(high),
            xtol=1e-15, rtol=4 * np.finfo(float).eps))
    def excess(t):
        return math.exp(t) * (1 - _degrees_of_freedom(positive, math.exp(t)) / samples) - ridge

    low, high = math.log(ridge), math.log(ridge + trace / samples)
    # the bracket's ends are the root to within round-off when tr Sigma / n is below lambda's last digits
    if excess(low) >= 0:
        return ridge
    if excess(high) <= 0:
        return math.exp(high)
    return math.exp(scipy.optimize.brentq(excess, low, high, xtol=1e-15, rtol=4 * np.finfo(float).eps))


def ridge_errors(eigenvalues, projections, *, label_moment: float, samples: int, ridge: float,
                 noise_variance: float = 0.0) -> RidgeErrors:
    """Train and test errors of ridge from the spectrum of Sigma (eigenvalues omega_i) and psi's coordinates
    psi_i = u_i . psi in its eigenbasis."""
    eigenvalues, projections, samples = _validated(eigenvalues, projections, label_moment, samples, ridge,
                                                   noise_variance)
    kappa = solve_kappa(eigenvalues, samples, ridge)
    positive = eigenvalues > 0
    omega, psi2 = eigenvalues[positive], projections[positive] ** 2
    rank = int(np.sum(positive))
    if ridge == 0 and rank == samples:
        infinite = math.inf
        return RidgeErrors(kappa=0.0, test_error=infinite, risk=infinite, train_error=0.0,
                           degrees_of_freedom=float(rank), denominator=0.0)
    if kappa == 0:  # ridgeless OLS (rank < n): lambda/kappa -> 1 - rank/n
        shrink = 1 - rank / samples
        denominator = shrink
        explained = float(np.sum(psi2 / omega))
    else:
        shrink = ridge / kappa if ridge > 0 else 0.0
        denominator = shrink + (kappa / samples) * float(np.sum(omega / (omega + kappa) ** 2))
        explained = float(np.sum(psi2 * (omega + 2 * kappa) / (omega + kappa) ** 2))
    test = (label_moment - explained) / denominator
    return RidgeErrors(kappa=kappa, test_error=test, risk=test - noise_variance, train_error=shrink**2 * test,
                       degrees_of_freedom=_degrees_of_freedom(omega, kappa), denominator=denominator)


def ridge_errors_from_moments(covariance, cross, *, label_moment: float, samples: int, ridge: float,
                              noise_variance: float = 0.0) -> RidgeErrors:
    """`ridge_errors` from Sigma (p x p, symmetric) and psi (p). With lambda > 0 it needs only Sigma's eigenvalues
    (for kappa and the denominator) and one Cholesky solve u = (Sigma + kappa)^(-1) psi, since
    sum_i psi_i^2 (omega_i + 2 kappa)/(omega_i + kappa)^2 = psi . u + kappa u . u; no eigenvectors. Ridgeless, it
    diagonalizes Sigma fully (the pseudo-inverse needs the null space)."""
    covariance = np.asarray(covariance, dtype=float)
    cross = np.asarray(cross, dtype=float).ravel()
    if covariance.ndim != 2 or covariance.shape[0] != covariance.shape[1] or cross.shape != covariance.shape[:1]:
        raise InvalidInput(f"Sigma must be a square matrix and psi a vector of its size, got {covariance.shape} "
                           f"and {cross.shape}")
    if not (np.all(np.isfinite(covariance)) and np.all(np.isfinite(cross))):
        raise InvalidInput("Sigma and psi must be finite")
    if not np.allclose(covariance, covariance.T, rtol=1e-10, atol=1e-12 * float(np.max(np.abs(covariance)))):
        raise InvalidInput("Sigma must be symmetric")
    if not (isinstance(ridge, (int, float)) and ridge > 0):
        eigenvalues, vectors = scipy.linalg.eigh(covariance, driver="evd")
        return ridge_errors(eigenvalues, vectors.T @ cross, label_moment=label_moment, samples=samples,
                            ridge=ridge, noise_variance=noise_variance)
    eigenvalues = scipy.linalg.eigvalsh(covariance, driver="evd")
    eigenvalues, _, samples = _validated(eigenvalues, np.zeros_like(eigenvalues), label_moment, samples, ridge,
                                         noise_variance)
    kappa = solve_kappa(eigenvalues, samples, ridge)
    solve = scipy.linalg.cho_factor(covariance + kappa * np.eye(len(cross)))
    u = scipy.linalg.cho_solve(solve, cross)
    explained = float(cross @ u + kappa * (u @ u))
    positive = eigenvalues[eigenvalues > 0]
    denominator = ridge / kappa + (kappa / samples) * float(np.sum(positive / (positive + kappa) ** 2))
    test = (label_moment - explained) / denominator
    if test < -1e-9 * max(label_moment, 1.0):
        raise InvalidInput(f"E y^2 = {label_moment!r} is below what psi explains: no joint law has these moments")
    return RidgeErrors(kappa=kappa, test_error=test, risk=test - noise_variance,
                       train_error=(ridge / kappa) ** 2 * test, degrees_of_freedom=_degrees_of_freedom(positive, kappa),
                       denominator=denominator)


def ridge_errors_mpmath(eigenvalues, projections, *, label_moment, samples: int, ridge, noise_variance=0,
                        digits: int = 30) -> RidgeErrors:
    """The same equations solved in mpmath at `digits` digits (lambda > 0): the scalar root by bisection on log
    kappa in its bracket, refined by the secant method. The inputs are taken as exact; the result is in
    mpmath numbers (the fields hold mpf), which the tests compare with the float64 route."""
    eigenvalues, projections, samples = _validated(eigenvalues, projections, float(label_moment), samples,
                                                   float(ridge), float(noise_variance))
    if not ridge > 0:
        raise InvalidInput("the mpmath route needs lambda > 0")
    with mpmath.workdps(digits + 10):
        omega = [mpmath.mpf(float(w)) for w in eigenvalues if w > 0]
        psi2 = [mpmath.mpf(float(v)) ** 2 for w, v in zip(eigenvalues, projections) if w > 0]
        lam, n = mpmath.mpf(ridge), mpmath.mpf(samples)

        def g(kappa):
            return kappa * (1 - mpmath.fsum(w / (w + kappa) for w in omega) / n) - lam

        low, high = mpmath.log(lam), mpmath.log(lam + mpmath.fsum(omega) / n)
        for _ in range(60):  # bisection to ~1e-18 relative, then the secant method to full precision
            middle = (low + high) / 2
            if g(mpmath.exp(middle)) > 0:
                high = middle
            else:
                low = middle
        kappa = mpmath.findroot(lambda t: g(mpmath.exp(t)), (low, high), solver="secant")
        kappa = mpmath.exp(kappa)
        shrink = lam / kappa
        denominator = shrink + kappa / n * mpmath.fsum(w / (w + kappa) ** 2 for w in omega)
        explained = mpmath.fsum(v * (w + 2 * kappa) / (w + kappa) ** 2 for w, v in zip(omega, psi2))
        test = (mpmath.mpf(label_moment) - explained) / denominator
        df1 = mpmath.fsum(w / (w + kappa) for w in omega)
        return RidgeErrors(kappa=kappa, test_error=test, risk=test - mpmath.mpf(noise_variance),
                           train_error=shrink**2 * test, degrees_of_freedom=df1, denominator=denominator)
