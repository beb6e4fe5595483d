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

from dataclasses import dataclass

import mpmath
import numpy as np
import scipy.linalg

from theorems.deterministic_equivalent import RidgeErrors, ridge_errors
from theorems.errors import InvalidInput, NumericalError
from theorems.marchenko_pastur import stieltjes


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


@dataclass(frozen=True)
class LimitErrors:
    """The GE model's ridge errors in the proportional limit, as mpmath numbers."""

    kappa: mpmath.mpf
    risk: mpmath.mpf  # against the noiseless teacher
    train_error: mpmath.mpf


def small_step_limit(*, mu1, mu_star, teacher_mu1, label_moment, noise_variance, learning_rate, sample_ratio,
                     width_ratio, ridge, digits: int = 30) -> LimitErrors:
    """DE_GE in the limit d, n, N -> infinity with n/d = sample_ratio (psi1), N/d = width_ratio (psi2), after a step
    eta = Theta(1) in Ba's normalization (docs/derivations/limits.md#small-step-limit), in mpmath at `digits`.

    W_1 = W_0 + t zeta a^T + (negligible), t = eta mu1, with ||zeta||^2 -> mu1_star^2 + E y^2/psi1,
    zeta . beta -> mu1_star and ||a|| -> 1: Sigma_1 is the random-features covariance mu1^2 W_0^T W_0 + mu_star^2 I
    plus a rank-two change, which leaves kappa unchanged and changes psi^T (Sigma + kappa)^-1 psi by Woodbury's
    formula; the traces come from the Marchenko-Pastur law of W_0^T W_0 (ratio psi2, `theorems.marchenko_pastur`)."""
    with mpmath.workdps(digits + 10):
        a, rest = mpmath.mpf(mu1) ** 2, mpmath.mpf(mu_star) ** 2
        m, moment, noise = mpmath.mpf(teacher_mu1), mpmath.mpf(label_moment), mpmath.mpf(noise_variance)
        y, per_width = mpmath.mpf(width_ratio), mpmath.mpf(width_ratio) / mpmath.mpf(sample_ratio)  # N/d, N/n
        lam, t = mpmath.mpf(ridge), mpmath.mpf(learning_rate) * mpmath.mpf(mu1)
        zeta_squared = m**2 + moment / mpmath.mpf(sample_ratio)
        if a <= 0 or lam <= 0:
            raise InvalidInput("the small-step limit needs mu1 != 0 and a ridge lambda > 0")

        def traces(kappa):
            """(tau0, tau1, tr Q^2 / N) with Q = (Sigma_0 + kappa)^-1: (1/N) tr Q, (1/d) tr(Q W_0^T W_0)."""
            s = (rest + kappa) / a
            g, g_prime = stieltjes(s, y)
            return g / a, y * (1 - s * g) / a, g_prime / a**2

        def excess(kappa):  # kappa - lambda - kappa (N/n) df1/N, df1/N = 1 - kappa tau0
            return kappa - lam - kappa * per_width * (1 - kappa * traces(kappa)[0])

        upper = lam + per_width * (a + rest) + 1
        kappa = mpmath.findroot(excess, (lam, upper), solver="anderson")
        if not lam <= kappa <= upper:
            raise NumericalError(f"the effective ridge kappa = {kappa} left its bracket [{lam}, {upper}]")

        def teacher_form(k):
            """psi_1^T (Sigma_1 + k)^-1 psi_1 for the rank-two change (Woodbury)."""
            tau0, tau1, _ = traces(k)
            scale = a * m**2  # (mu1 mu1_star)^2
            u = mpmath.matrix([mpmath.sqrt(scale) * m * tau1, mpmath.sqrt(scale) * t * m * tau0])
            if t == 0:
                return scale * tau1
            inner = mpmath.matrix([[-zeta_squared / a + zeta_squared * tau1, 1 / (a * t)], [1 / (a * t), tau0]])
            return scale * (tau1 + t**2 * m**2 * tau0) - (u.T * mpmath.inverse(inner) * u)[0]

        tau0, _, trace_q2 = traces(kappa)
        denominator = lam / kappa + per_width * kappa * (tau0 - kappa * trace_q2)  # 1 - df2/n, a sum of positives
        test = (moment - teacher_form(kappa) + kappa * mpmath.diff(teacher_form, kappa)) / denominator
        return LimitErrors(kappa=+kappa, risk=+(test - noise), train_error=+((lam / kappa) ** 2 * test))
