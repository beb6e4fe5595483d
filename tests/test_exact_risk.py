"""Tests of checkers.equivalence.exact_risk: a readout's risk from its features' population moments."""

import math

import numpy as np
import pytest

from checkers.equivalence.exact_risk import readout_risk
from theorems.activations import activation
from theorems.equivalence.kernel_oracle import feature_moments


@pytest.mark.parametrize("student, teacher", [("erf", "erf"), ("tanh", "relu")])
def test_the_risk_of_a_readout_agrees_with_monte_carlo(student, teacher):
    """R(a) for a readout a of sigma(W^T x)/sqrt(N), from the unnormalized moments, against the mean squared error of
    the same readout on 400 000 Gaussian inputs (4.5 standard errors). The readout is not a fit, so no term cancels:
    a 1/N or 1/sqrt(N) misplaced moves R by far more than the error (checked beside it)."""
    rng = np.random.default_rng(14)
    dimension, width = 6, 5
    weights = rng.standard_normal((dimension, width)) / math.sqrt(dimension) * rng.uniform(0.7, 1.3, width)
    beta = rng.standard_normal(dimension)
    beta /= np.linalg.norm(beta)
    readout = rng.standard_normal(width)
    sigma, target = activation(student), activation(teacher)
    moments = feature_moments(weights, beta, sigma, target)
    x = rng.standard_normal((400_000, dimension))
    squared_errors = (target(x @ beta) - sigma(x @ weights) @ readout / math.sqrt(width)) ** 2
    error = squared_errors.std() / math.sqrt(len(x))
    risk = readout_risk(readout, *moments)
    assert abs(squared_errors.mean() - risk) <= 4.5 * error
    covariance, cross, moment = moments
    for wrong in (readout_risk(readout, covariance / width, cross, moment),
                  readout_risk(readout, covariance, cross / math.sqrt(width), moment)):
        assert abs(wrong - risk) > 20 * error
