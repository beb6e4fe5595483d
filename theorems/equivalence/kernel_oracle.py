"""The network's own feature moments given a first layer, by Gaussian quadrature: the "kernel" deterministic
equivalent of its ridge readout.

For features phi_i(x) = sigma(w_i . x), x ~ N(0, I_d), and the teacher f*(x) = sigma_*(beta . x) with ||beta|| = 1,
the second moments are 2-dimensional Gaussian integrals: with a = ||w_i||, b = w_i . w_j / a and
c = sqrt(||w_j||^2 - b^2), (w_i . x, w_j . x) has the law of (a Z1, b Z1 + c Z2), so

    Sigma_ij = E sigma(a Z1) sigma(b Z1 + c Z2),      psi_i = E sigma(a Z1) sigma_*(b' Z1 + c' Z2)

(b', c' for beta in place of w_j), each by a product Gauss-Hermite rule (probabilists' weight). Ridge on Gaussian
features with these moments is the "kernel" deterministic equivalent DE_kernel(W_1)
(docs/derivations/limits.md#kernel-oracle): not a theorem, an empirical oracle, within about 1% of the network's
risk in Ba et al.'s small and large steps (and 3.7% off after Cui et al.'s giant step with a constant second
layer). The rule is exact for polynomials of degree below 2 * nodes and converges geometrically for activations
analytic in a strip (tanh, softplus, erf); a kink (ReLU) converges only algebraically.

The same moments by Mehler's series with each neuron's own scale r_i = |w_i| (`series_feature_moments`;
probabilists' He_k, c_k(r) = E[sigma(r Z) He_k(Z)]/k!, `theorems.mehler`):

    E[sigma(w_i.x) sigma(w_j.x)] = sum_k k! c_k(r_i) c_k(r_j) rho_ij^k,   rho_ij = w_i.w_j / (r_i r_j),

truncated at degree SERIES_DEGREE, with the diagonal (rho = 1, where the series converges slowly) and E f*^2
integrated directly; the coefficients come from Gauss-Hermite quadrature on HERMITE_NODES nodes. Off the
diagonal |rho| is of order d^-1/2, so the truncation leaves |rho|^(SERIES_DEGREE + 1) of the tail: about 1e-7 at
d = 100 for an odd sigma. It costs N^2 times its degree instead of N^2 times the square of the nodes (0.01 s
against 1 s at N = 400), which is what gaussian-equivalence's draws at N = 1600 can afford; a test holds the two
routes together.

For erf features and an erf teacher the moments have a closed form (`erf_feature_moments`, Williams's arcsine
kernel, docs/derivations/limits.md#exact-risk), and `feature_moments` takes it there, the series elsewhere.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import hermite_e

from theorems.activations import Activation
from theorems.deterministic_equivalent import RidgeErrors, ridge_errors_from_moments
from theorems.errors import InvalidInput
from theorems.hermite import gauss_hermite_rule

NODES = 32
SERIES_DEGREE = 12
HERMITE_NODES = 160


def _pair_expectations(sigma, other, first: np.ndarray, second: np.ndarray, nodes: int) -> np.ndarray:
    """E sigma(u_i) other(v_ij) for the Gaussian pairs u_i = first_i . x, v_ij = second_j . x (rows are
    vectors): an (I, J) array, one row of pairs at a time."""
    z, weights = gauss_hermite_rule(nodes)
    norms = np.linalg.norm(first, axis=1)
    if np.any(norms == 0):
        raise InvalidInput("a neuron with zero weights has no direction")
    result = np.empty((len(first), len(second)))
    squares = np.sum(second**2, axis=1)
    for i, (vector, norm) in enumerate(zip(first, norms)):
        along = second @ vector / norm  # b_ij
        across = np.sqrt(np.clip(squares - along**2, 0.0, None))  # c_ij
        outer = sigma(norm * z) * weights  # over Z1
        inner = other(along[:, None, None] * z[None, :, None] + across[:, None, None] * z[None, None, :]) @ weights
        result[i] = inner @ outer
    return result


def network_feature_moments(first_layer, teacher_direction, sigma, teacher, *, nodes: int = NODES):
    """(Sigma, psi, E f*^2) of phi(x) = sigma(W^T x) (W d x N, column i is neuron i) and f*(x) = sigma_*(beta . x)."""
    weights = np.asarray(first_layer, dtype=float)
    beta = np.asarray(teacher_direction, dtype=float).ravel()
    if weights.ndim != 2 or beta.shape != (weights.shape[0],):
        raise InvalidInput(f"W must be d x N and beta of length d, got {weights.shape} and {beta.shape}")
    beta = beta / np.linalg.norm(beta)
    columns = weights.T
    covariance = _pair_expectations(sigma, sigma, columns, columns, nodes)
    covariance = (covariance + covariance.T) / 2
    cross = _pair_expectations(sigma, teacher, columns, beta[None, :], nodes)[:, 0]
    z, quadrature = gauss_hermite_rule(nodes)
    moment = float(quadrature @ teacher(z) ** 2)
    return covariance, cross, moment


def _scaled_hermite_coefficients(sigma: Activation, scales: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(c_k(r) for k = 0..SERIES_DEGREE, one row per scale r; E sigma(r Z)^2 per scale), by Gauss-Hermite
    quadrature (probabilists' weight exp(-z^2/2)/sqrt(2 pi))."""
    nodes, weights = gauss_hermite_rule(HERMITE_NODES)
    values = np.asarray(sigma(np.outer(scales, nodes)), dtype=float)
    factorials = np.array([math.factorial(k) for k in range(SERIES_DEGREE + 1)], dtype=float)
    return (values * weights) @ hermite_e.hermevander(nodes, SERIES_DEGREE) / factorials, (values**2) @ weights


def _mehler_sum(left: np.ndarray, right: np.ndarray, correlation: np.ndarray) -> np.ndarray:
    """sum_k k! left_k right_k rho^k, elementwise over rho, by Horner's rule (left and right: coefficients
    c_k broadcast against rho, k on the last axis)."""
    total = np.zeros(np.broadcast_shapes(left[..., 0].shape, right[..., 0].shape, correlation.shape))
    for k in range(SERIES_DEGREE, -1, -1):
        total = total * correlation + math.factorial(k) * left[..., k] * right[..., k]
    return total


def series_feature_moments(first_layer, teacher_direction, sigma, teacher) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, psi, E f*^2) as `network_feature_moments`, by Mehler's series with each neuron's scale (module
    docstring)."""
    weights = np.asarray(first_layer, dtype=float)
    scales = np.sqrt(np.sum(weights**2, axis=0))
    coefficients, second_moments = _scaled_hermite_coefficients(sigma, scales)
    teacher_coefficients, teacher_moment = _scaled_hermite_coefficients(teacher, np.ones(1))
    correlation = np.clip((weights.T @ weights) / np.outer(scales, scales), -1.0, 1.0)
    covariance = _mehler_sum(coefficients[:, None, :], coefficients[None, :, :], correlation)
    np.fill_diagonal(covariance, second_moments)
    along = np.clip((weights.T @ np.asarray(teacher_direction, dtype=float)) / scales, -1.0, 1.0)
    return covariance, _mehler_sum(coefficients, teacher_coefficients, along), float(teacher_moment[0])


def erf_feature_moments(first_layer, teacher_direction) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, psi, E f*^2) as `network_feature_moments`, exact for phi(x) = erf(W^T x) and f*(x) = erf(beta . x):
    for a centred Gaussian pair (u, v) with covariance c, E[erf(u) erf(v)] = (2/pi) arcsin(2 c_uv / sqrt((1 + 2 c_uu)
    (1 + 2 c_vv))) (Williams 1997; docs/derivations/limits.md#exact-risk), with c_vv = 1 for v = beta . x."""
    weights = np.asarray(first_layer, dtype=float)
    beta = np.asarray(teacher_direction, dtype=float).ravel()
    scale = 1 / np.sqrt(1 + 2 * np.sum(weights**2, axis=0))
    gram = (weights.T @ weights) * scale[:, None] * scale[None, :]
    covariance = (2 / np.pi) * np.arcsin(np.clip(2 * gram, -1.0, 1.0))
    cross = (2 / np.pi) * np.arcsin(np.clip(2 * (weights.T @ beta) * scale / np.sqrt(3), -1.0, 1.0))
    return covariance, cross, float((2 / np.pi) * np.arcsin(2 / 3))


def feature_moments(first_layer, teacher_direction, sigma: Activation,
                    teacher: Activation) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, psi, E f*^2) as `network_feature_moments`: the closed forms for erf features and an erf teacher
    (`erf_feature_moments`), else Mehler's series with each neuron's scale (`series_feature_moments`)."""
    if sigma.name == "erf" and teacher.name == "erf":
        return erf_feature_moments(first_layer, teacher_direction)
    return series_feature_moments(first_layer, teacher_direction, sigma, teacher)


def kernel_errors_from_moments(covariance, cross, moment: float, *, samples: int, ridge: float,
                               noise_variance: float = 0.0) -> RidgeErrors:
    """DE_kernel from the network's feature moments already in hand (unnormalized, as `network_feature_moments`)."""
    return ridge_errors_from_moments(covariance, cross, label_moment=moment + noise_variance, samples=samples,
                                     ridge=ridge, noise_variance=noise_variance)


def kernel_errors(first_layer, teacher_direction, sigma, teacher, *, samples: int, ridge: float,
                  noise_variance: float = 0.0, nodes: int = NODES) -> RidgeErrors:
    """DE_kernel: the ridge deterministic equivalent (lambda = Ba's lambda) with the network's own feature moments."""
    covariance, cross, moment = network_feature_moments(first_layer, teacher_direction, sigma, teacher, nodes=nodes)
    return kernel_errors_from_moments(covariance, cross, moment, samples=samples, ridge=ridge,
                                      noise_variance=noise_variance)
