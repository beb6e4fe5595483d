"""Class-mean features and the leading coefficients of the Elasticity / Cohesion statements."""

import numpy as np
import pytest

from theorems.activations import activation
from theorems.elasticity.cohesion_separability import class_mean_features, cohesion, separability
from theorems.hermite import hermite_coefficients


def test_class_mean_of_a_unit_neuron_is_the_hermite_power_series():
    """E sigma(a + g) = sum_k c_k a^k (Stein): the reason mean-based metrics carry c_k c_k'."""
    sigma = activation("tanh")
    coefficients = [float(c) for c in hermite_coefficients(sigma, 30, digits=20).coefficients]
    for shift in (0.1, 0.4):
        weights = np.zeros((3, 1))
        weights[0, 0] = 1.0
        mu = np.array([shift, 0.0, 0.0])
        series = sum(c * shift**k for k, c in enumerate(coefficients))
        assert class_mean_features(sigma, weights, mu)[0] == pytest.approx(series, abs=1e-10)


def test_cohesion_equals_separability_for_an_odd_activation():
    rng = np.random.default_rng(1)
    weights, mu = rng.standard_normal((6, 9)) / 3, rng.standard_normal(6) / 2
    sigma = activation("tanh")
    assert separability(sigma, weights, mu) == pytest.approx(cohesion(sigma, weights, mu), rel=1e-12)
    shifted = activation("tanh(z) + 0.3")
    assert separability(shifted, weights, mu) != pytest.approx(cohesion(shifted, weights, mu), rel=1e-3)
