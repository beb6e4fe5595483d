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
"""

from __future__ import annotations

import numpy as np

from theorems.deterministic_equivalent import RidgeErrors, ridge_errors_from_moments
from theorems.errors import InvalidInput

NODES = 32


def _pair_expectations(sigma, other, first: np.ndarray, second: np.ndarray, nodes: int) -> np.ndarray:
    """E sigma(u_i) other(v_ij) for the Gaussian pairs u_i = first_i . x, v_ij = second_j . x (rows are
    vectors): an (I, J) array, one row of pairs at a time."""
    z, weights = np.polynomial.hermite_e.hermegauss(nodes)
    weights = weights / weights.sum()
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
    z, quadrature = np.polynomial.hermite_e.hermegauss(nodes)
    moment = float((quadrature / quadrature.sum()) @ teacher(z) ** 2)
    return covariance, cross, moment


def kernel_errors(first_layer, teacher_direction, sigma, teacher, *, samples: int, ridge: float,
                  noise_variance: float = 0.0, nodes: int = NODES) -> RidgeErrors:
    """DE_kernel: the ridge deterministic equivalent (lambda = Ba's lambda) with the network's own feature moments."""
    covariance, cross, moment = network_feature_moments(first_layer, teacher_direction, sigma, teacher, nodes=nodes)
    return ridge_errors_from_moments(covariance, cross, label_moment=moment + noise_variance, samples=samples,
                                     ridge=ridge, noise_variance=noise_variance)
