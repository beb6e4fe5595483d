"""Tests of checkers.equivalence.exact_risk: the feature moments a readout's exact risk is built from."""

import math

import numpy as np
import pytest

from checkers.equivalence.exact_risk import erf_feature_moments, feature_moments
from theorems.activations import activation


def _first_layer(rng, dimension=40, width=30):
    """Weights of unequal norms with a shared rank-one part, as after a step; a unit teacher direction."""
    weights = rng.standard_normal((dimension, width)) / math.sqrt(dimension)
    weights *= rng.uniform(0.7, 1.3, width)
    weights += 0.5 * np.outer(rng.standard_normal(dimension), rng.standard_normal(width)) / dimension
    beta = rng.standard_normal(dimension)
    return weights, beta / np.linalg.norm(beta)


def test_the_series_moments_of_erf_agree_with_the_arcsine_closed_forms():
    """'erf(z)' as a formula takes Mehler's series with each neuron's scale; the built-in erf the closed forms.
    The series truncation leaves |rho|^13 here and the 160-node quadrature is exact to round-off for erf."""
    weights, beta = _first_layer(np.random.default_rng(11))
    exact = erf_feature_moments(weights, beta)
    series = feature_moments(weights, beta, activation("erf(z)"), activation("erf(z)"))
    for closed, summed in zip(exact, series):
        assert np.max(np.abs(np.asarray(summed) - closed)) <= 1e-7 * np.max(np.abs(closed))
    assert feature_moments(weights, beta, activation("erf"), activation("erf"))[2] == exact[2]


@pytest.mark.parametrize("student, teacher", [("erf", "erf"), ("tanh", "tanh"), ("tanh", "relu")])
def test_the_feature_moments_agree_with_monte_carlo(student, teacher):
    """Sigma, psi and E f*^2 against 400 000 Monte Carlo samples (4.5 standard errors each entry): for erf the
    arcsine closed forms (Williams' kernel), else Mehler's series with each neuron's scale."""
    rng = np.random.default_rng(12)
    weights, beta = _first_layer(rng, dimension=6, width=3)
    sigma, target = activation(student), activation(teacher)
    covariance, cross, moment = feature_moments(weights, beta, sigma, target)
    x = rng.standard_normal((400_000, 6))
    features, labels = sigma(x @ weights) / math.sqrt(3), target(x @ beta)
    products = {"Sigma": (features[:, :, None] * features[:, None, :], covariance),
                "psi": (features * labels[:, None], cross), "E f*^2": (labels**2, moment)}
    for name, (samples, predicted) in products.items():
        mean, error = samples.mean(axis=0), samples.std(axis=0) / math.sqrt(len(x))
        assert np.all(np.abs(mean - predicted) <= 4.5 * error + 1e-12), name

