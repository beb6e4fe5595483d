"""The Gaussian-equivalent model's ridge errors given a realized first layer W_1, by the deterministic equivalent.

Ba et al.'s Gaussian equivalent of the features sigma(W_1^T x) (Theorem 3's model;
docs/derivations/limits.md#ge-oracle): phi_GE = mu1 W_1^T x + mu_star z with x ~ N(0, I_d), z ~ N(0, I_N),
and the single-index teacher y = sigma_*(beta . x) + noise with ||beta|| = 1. Its moments are

    Sigma = mu1^2 W_1^T W_1 + mu_star^2 I_N,      psi = E[phi y] = mu1 mu1_star W_1^T beta,

with mu1 = c_1(sigma), mu_star^2 = E sigma^2 - c_0^2 - c_1^2 and mu1_star = c_1(sigma_*) (probabilists' Hermite
coefficients at unit preactivation scale, `theorems.hermite`). W_1 is d x N (column j is neuron j's weights).
The spectrum comes from the smaller Gram matrix: with W_1 = U S V^T, Sigma has the eigenvalues
mu1^2 s_i^2 + mu_star^2 along the columns of V, where psi has the coordinates mu1 mu1_star s_i (u_i . beta), and
mu_star^2 with multiplicity N - rank on the rest, where psi has none.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from theorems.deterministic_equivalent import RidgeErrors, ridge_errors
from theorems.errors import InvalidInput


def gram_spectrum(first_layer, teacher_direction) -> tuple[np.ndarray, np.ndarray]:
    """(s_i^2, s_i (u_i . beta)): the squared singular values of W_1 (d x N) and W_1^T beta's coordinates along the
    right singular vectors, from one eigendecomposition of the min(d, N)-sized Gram matrix. They are all the
    Gaussian-equivalent spectrum needs of W_1, whatever mu1, mu_star and c_1(sigma_*)."""
    weights = np.asarray(first_layer, dtype=float)
    beta = np.asarray(teacher_direction, dtype=float).ravel()
    if weights.ndim != 2 or beta.shape != (weights.shape[0],):
        raise InvalidInput(f"W_1 must be d x N and beta of length d, got {weights.shape} and {beta.shape}")
    dimension, width = weights.shape
    if dimension <= width:
        squares, left = scipy.linalg.eigh(weights @ weights.T, driver="evd")  # W W^T = U S^2 U^T
        squares = np.clip(squares, 0.0, None)
        return squares, np.sqrt(squares) * (left.T @ beta)  # v_i . (W^T beta) = s_i (u_i . beta)
    squares, right = scipy.linalg.eigh(weights.T @ weights, driver="evd")  # W^T W = V S^2 V^T
    return np.clip(squares, 0.0, None), right.T @ (weights.T @ beta)


def spectrum_from_gram(squares, along, width: int, *, mu1: float, mu_star: float,
                       teacher_mu1: float) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues of Sigma, psi's coordinates in its eigenbasis), N of each, from `gram_spectrum`."""
    rest = width - len(squares)
    eigenvalues = np.concatenate([mu1**2 * np.asarray(squares) + mu_star**2, np.full(rest, mu_star**2)])
    projections = np.concatenate([mu1 * teacher_mu1 * np.asarray(along), np.zeros(rest)])
    return eigenvalues, projections


def gaussian_equivalent_spectrum(first_layer, teacher_direction, *, mu1: float, mu_star: float,
                                 teacher_mu1: float) -> tuple[np.ndarray, np.ndarray]:
    """(eigenvalues of Sigma, psi's coordinates in its eigenbasis), N of each."""
    squares, along = gram_spectrum(first_layer, teacher_direction)
    return spectrum_from_gram(squares, along, np.shape(first_layer)[1], mu1=mu1, mu_star=mu_star,
                              teacher_mu1=teacher_mu1)


def gaussian_equivalent_errors(first_layer, teacher_direction, *, mu1: float, mu_star: float, teacher_mu1: float,
                               label_moment: float, samples: int, ridge: float,
                               noise_variance: float = 0.0) -> RidgeErrors:
    """The deterministic equivalent of ridge (lambda = Ba's lambda) on n samples of the Gaussian-equivalent
    features of W_1; label_moment is E y^2 = E sigma_*(Z)^2 + noise variance."""
    eigenvalues, projections = gaussian_equivalent_spectrum(first_layer, teacher_direction, mu1=mu1,
                                                            mu_star=mu_star, teacher_mu1=teacher_mu1)
    return ridge_errors(eigenvalues, projections, label_moment=label_moment, samples=samples, ridge=ridge,
                        noise_variance=noise_variance)
