"""Feature maps of the equivalence family: the network's, the Gaussian-equivalent and the Hermite surrogate,
applied to the preactivations H = X W_1 of a ridge stage (`checkers.equivalence.ridge.readout`)."""

from __future__ import annotations

import math

from numpy.polynomial.hermite_e import hermeval


def gaussian_equivalent_map(mu1: float, mu_star: float):
    """H -> mu1 H + mu_star Z, Z iid N(0, 1) per entry (fresh for every sample)."""
    return lambda pre, rng: mu1 * pre + mu_star * rng.standard_normal(pre.shape)


def hermite_surrogate_map(coefficients, second_moment: float, rest_variance: float | None = None):
    """H -> sum_k c_k He_k(H) + rest Xi, Xi iid N(0, 1) per entry, with rest^2 = E sigma^2 - sum_k k! c_k^2 unless
    `rest_variance` says otherwise (a statement's constant, which a mutant may change)."""
    coefficients = [float(c) for c in coefficients]
    if rest_variance is None:
        rest_variance = second_moment - sum(math.factorial(k) * c**2 for k, c in enumerate(coefficients))
    rest = math.sqrt(max(rest_variance, 0.0))
    return lambda pre, rng: hermeval(pre, coefficients) + rest * rng.standard_normal(pre.shape)
