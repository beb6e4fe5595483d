"""The population moments of a readout's features given the first layer, and the exact risk they give a readout.

For features phi(x) = erf(W^T x)/sqrt(N) (x ~ N(0, I_d), W d x N) and the teacher f*(x) = erf(beta . x) with
||beta|| = 1, the risk of a readout a is R(a) = E f*^2 - 2 a . psi + a^T Sigma a with the closed forms
(docs/derivations/limits.md#exact-risk)

    E[erf(u) erf(v)] = (2/pi) arcsin(2 c_uv / sqrt((1 + 2 c_uu)(1 + 2 c_vv))),   c = covariance of (u, v),

so Sigma_ij = (2/pi) arcsin(2 w_i.w_j / sqrt((1 + 2|w_i|^2)(1 + 2|w_j|^2))) / N,
psi_i = (2/pi) arcsin(2 w_i.beta / sqrt(3 (1 + 2|w_i|^2))) / sqrt(N) and E f*^2 = (2/pi) arcsin(2/3).

For any other sigma or teacher, `feature_moments` sums Mehler's series with each neuron's own scale r_i = |w_i|
(probabilists' He_k, c_k(r) = E[sigma(r Z) He_k(Z)]/k!, `theorems.mehler`):

    E[sigma(w_i.x) sigma(w_j.x)] = sum_k k! c_k(r_i) c_k(r_j) rho_ij^k,   rho_ij = w_i.w_j / (r_i r_j),

truncated at degree SERIES_DEGREE, with the diagonal (rho = 1, where the series converges slowly) and E f*^2
integrated directly; the coefficients come from Gauss-Hermite quadrature on HERMITE_NODES nodes. Off the
diagonal |rho| is of order d^-1/2, so the truncation leaves |rho|^(SERIES_DEGREE + 1) of the tail: about 1e-7 at
d = 100 for an odd sigma. The series moments are accurate, not exact (a kink in sigma slows the quadrature); the
closed forms are exact, and a test holds the two routes together for erf. The same moments, by a two-dimensional
Gauss-Hermite rule per pair of neurons, are `theorems.equivalence.kernel_oracle.network_feature_moments` (the
"kernel" oracle, docs/derivations/limits.md#kernel-oracle, unnormalized): a test holds the series to it, and the
series costs N^2 times its degree instead of N^2 times the square of the nodes (0.01 s against 1 s at N = 400),
which is what a draw at N = 1600 can afford.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import hermite_e

from theorems.activations import Activation

SERIES_DEGREE = 12
HERMITE_NODES = 160


def erf_feature_moments(weights: np.ndarray, teacher_direction: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, psi, E f*^2) of the features erf(W^T x)/sqrt(N) and the teacher erf(beta . x), ||beta|| = 1."""
    width = weights.shape[1]
    scale = 1 / np.sqrt(1 + 2 * np.sum(weights**2, axis=0))
    gram = (weights.T @ weights) * scale[:, None] * scale[None, :]
    covariance = (2 / np.pi) * np.arcsin(np.clip(2 * gram, -1.0, 1.0)) / width
    cross = (2 / np.pi) * np.arcsin(np.clip(2 * (weights.T @ teacher_direction) * scale / np.sqrt(3), -1.0, 1.0))
    return covariance, cross / np.sqrt(width), float((2 / np.pi) * np.arcsin(2 / 3))


def readout_risk(readout: np.ndarray, covariance: np.ndarray, cross: np.ndarray, teacher_moment: float) -> float:
    """E (f*(x) - a . phi(x))^2 = E f*^2 - 2 a . psi + a^T Sigma a."""
    return float(teacher_moment - 2 * readout @ cross + readout @ covariance @ readout)


def _scaled_hermite_coefficients(sigma: Activation, scales: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(c_k(r) for k = 0..SERIES_DEGREE, one row per scale r; E sigma(r Z)^2 per scale), by Gauss-Hermite
    quadrature (probabilists' weight exp(-z^2/2)/sqrt(2 pi))."""
    nodes, weights = hermite_e.hermegauss(HERMITE_NODES)
    weights = weights / math.sqrt(2 * math.pi)
    values = np.asarray(sigma(np.outer(scales, nodes)), dtype=float)
    polynomials = np.stack([hermite_e.hermeval(nodes, np.eye(SERIES_DEGREE + 1)[k]) for k in range(SERIES_DEGREE + 1)])
    factorials = np.array([math.factorial(k) for k in range(SERIES_DEGREE + 1)], dtype=float)
    return (values * weights) @ polynomials.T / factorials, (values**2) @ weights


def _mehler_sum(left: np.ndarray, right: np.ndarray, correlation: np.ndarray) -> np.ndarray:
    """sum_k k! left_k right_k rho^k, elementwise over rho, by Horner's rule (left and right: coefficients
    c_k broadcast against rho, k on the last axis)."""
    total = np.zeros(np.broadcast_shapes(left[..., 0].shape, right[..., 0].shape, correlation.shape))
    for k in range(SERIES_DEGREE, -1, -1):
        total = total * correlation + math.factorial(k) * left[..., k] * right[..., k]
    return total


def feature_moments(weights: np.ndarray, teacher_direction: np.ndarray, sigma: Activation,
                    teacher: Activation) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, psi, E f*^2) of the features sigma(W^T x)/sqrt(N) and the teacher f*(beta . x), ||beta|| = 1: the
    closed forms for erf and an erf teacher (`erf_feature_moments`), else Mehler's series with each neuron's scale
    (this module's docstring)."""
    if sigma.name == "erf" and teacher.name == "erf":
        return erf_feature_moments(weights, teacher_direction)
    width = weights.shape[1]
    scales = np.sqrt(np.sum(weights**2, axis=0))
    coefficients, second_moments = _scaled_hermite_coefficients(sigma, scales)
    teacher_coefficients, teacher_moment = _scaled_hermite_coefficients(teacher, np.ones(1))
    correlation = np.clip((weights.T @ weights) / np.outer(scales, scales), -1.0, 1.0)
    covariance = _mehler_sum(coefficients[:, None, :], coefficients[None, :, :], correlation)
    np.fill_diagonal(covariance, second_moments)
    along = np.clip((weights.T @ teacher_direction) / scales, -1.0, 1.0)
    cross = _mehler_sum(coefficients, teacher_coefficients, along)
    return covariance / width, cross / math.sqrt(width), float(teacher_moment[0])
