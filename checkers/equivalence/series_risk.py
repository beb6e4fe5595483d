"""The test error of a readout on features sigma(W x)/sqrt(p), given W, by Mehler's series, with a bound on what its
truncation leaves out.

For x ~ N(0, I_d), a row w_i of W with scale s_i = |w_i| and a unit teacher direction theta, Mehler's formula with
each neuron's own scale (probabilists' He_k, c_k(s) = E[sigma(s Z) He_k(Z)]/k!) gives

    E sigma(w_i.x) sigma(w_j.x) = sum_k k! c_k(s_i) c_k(s_j) rho_ij^k,   rho_ij = w_i.w_j / (s_i s_j),

and E sigma(w_i.x) f*(theta.x) likewise with rho_i = w_i.theta / s_i and f*'s coefficients at scale 1. Truncated at
degree K, Cauchy-Schwarz bounds each entry's tail by |rho|^(K+1) sqrt(T_i T_j), where T_i = E sigma(s_i Z)^2 - sum_(k
<= K) k! c_k(s_i)^2 is the energy beyond degree K (Parseval). The test error R(a) = E f*^2 - 2 a.psi/sqrt(p) +
a^T Sigma a/p (diagonal of Sigma and E f*^2 integrated directly) is then off by at most

    bound = sum_(i != j) |a_i| |a_j| |rho_ij|^(K+1) sqrt(T_i T_j)/p + 2 sum_i |a_i| |rho_i|^(K+1) sqrt(T_i T_*)/sqrt(p).

`series_test_error` takes the least degree in DEGREES whose bound is at most the accuracy asked, relative to R(a).
After a giant step the spike correlates every pair of rows (|rho| about 0.6 at giant-step-risk's defaults, not
d^-1/2), so the degree needed depends on the point (docs/derivations/limits.md#giant-step). The coefficients come from
Gauss-Hermite quadrature on HERMITE_NODES nodes (exact for polynomials of degree below twice that), and T_i from the
same rule, so it is never negative; for a kink (ReLU) the rule's own error, algebraic in the nodes, adds to it.

`theorems.equivalence.kernel_oracle`'s series (gaussian-equivalence's, at a fixed degree 12 and without a bound)
repeats `scaled_coefficients` and `_mehler`; it should call these, with gaussian-equivalence's next recalibration
(the change stales its rows).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import hermite_e

from theorems.activations import Activation
from theorems.hermite import gauss_hermite_rule

DEGREES = (20, 32, 48, 64)
HERMITE_NODES = 200


def scaled_coefficients(sigma: Activation, scales: np.ndarray, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """(c_k(s) for k = 0..degree, one row per scale s; E sigma(s Z)^2 per scale)."""
    nodes, weights = gauss_hermite_rule(HERMITE_NODES)
    values = np.asarray(sigma(np.outer(scales, nodes)), dtype=float)
    factorials = np.array([math.factorial(k) for k in range(degree + 1)], dtype=float)
    return (values * weights) @ hermite_e.hermevander(nodes, degree) / factorials, (values**2) @ weights


def _mehler(left: np.ndarray, right: np.ndarray, correlation: np.ndarray) -> np.ndarray:
    """sum_k k! left_k right_k rho^k elementwise over rho, by Horner's rule (k on the coefficients' last axis)."""
    total = np.zeros(np.broadcast_shapes(left[..., 0].shape, right[..., 0].shape, correlation.shape))
    for k in range(left.shape[-1] - 1, -1, -1):
        total = total * correlation + math.factorial(k) * left[..., k] * right[..., k]
    return total


def series_test_error(readout: np.ndarray, weights: np.ndarray, theta: np.ndarray, sigma: Activation,
                      teacher: Activation, accuracy: float) -> tuple[float, float, int] | None:
    """(R(a), the truncation's bound, the degree) for the readout a of sigma(W x)/sqrt(p), W = `weights` (p x d),
    against f*(theta . x), |theta| = 1, at the least degree in DEGREES whose bound is at most `accuracy` times R(a);
    None where no degree there reaches it."""
    width = len(readout)
    scales = np.linalg.norm(weights, axis=1)
    correlation = np.clip((weights @ weights.T) / np.outer(scales, scales), -1.0, 1.0)
    along = np.clip(weights @ theta / scales, -1.0, 1.0)
    top = DEGREES[-1]
    coefficients, second_moments = scaled_coefficients(sigma, scales, top)
    teacher_coefficients, teacher_moment = scaled_coefficients(teacher, np.ones(1), top)
    factorials = np.array([math.factorial(k) for k in range(top + 1)], dtype=float)
    energies = np.cumsum(factorials * coefficients**2, axis=1)
    teacher_energies = np.cumsum(factorials * teacher_coefficients[0] ** 2)
    size = np.abs(readout)
    off_diagonal = np.abs(correlation)
    np.fill_diagonal(off_diagonal, 0.0)
    for degree in DEGREES:
        tails = size * np.sqrt(np.clip(second_moments - energies[:, degree], 0.0, None))
        teacher_tail = math.sqrt(max(float(teacher_moment[0] - teacher_energies[degree]), 0.0))
        bound = (float(tails @ off_diagonal ** (degree + 1) @ tails) / width
                 + 2 * teacher_tail * float(tails @ np.abs(along) ** (degree + 1)) / math.sqrt(width))
        covariance = _mehler(coefficients[:, None, : degree + 1], coefficients[None, :, : degree + 1], correlation)
        np.fill_diagonal(covariance, second_moments)
        cross = _mehler(coefficients[:, : degree + 1], teacher_coefficients[0, : degree + 1], along)
        risk = float(teacher_moment[0] - 2 * readout @ cross / math.sqrt(width)
                     + readout @ covariance @ readout / width)
        if bound <= accuracy * risk:
            return risk, bound, degree
    return None
