"""theorems.equivalence.kernel_oracle: the network's feature moments by Gauss-Hermite against closed forms (a
polynomial, where the rule is exact; erf, where Williams' arcsine kernel gives them), its series route against its
quadrature and the closed forms, and both against Monte Carlo."""

import math

import numpy as np
import pytest

from theorems.activations import activation
from theorems.equivalence.kernel_oracle import (
    erf_feature_moments,
    feature_moments,
    kernel_errors,
    network_feature_moments,
    series_feature_moments,
)


def _layer(seed=0, d=40, width=30):
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((d, width)) / np.sqrt(d)
    weights[:, :4] += 0.8 / np.sqrt(d)  # a few neurons share a direction, so the cosines are not all small
    beta = rng.standard_normal(d)
    return weights, beta / np.linalg.norm(beta)


def test_a_polynomial_activation_is_integrated_exactly():
    # E u^2 v^2 = |w_i|^2 |w_j|^2 + 2 (w_i . w_j)^2 and E u^2 (beta . x) = 0 for Gaussian (u, v)
    weights, beta = _layer()
    square, linear = activation("z**2"), activation("z")
    covariance, cross, moment = network_feature_moments(weights, beta, square, linear, nodes=4)
    gram = weights.T @ weights
    norms = np.diag(gram)
    assert np.allclose(covariance, np.outer(norms, norms) + 2 * gram**2, rtol=1e-12, atol=1e-14)
    assert np.allclose(cross, 0.0, atol=1e-14) and abs(moment - 1) < 1e-14


def test_erf_moments_converge_to_the_arcsine_kernel():
    weights, beta = _layer(1)
    erf = activation("erf")
    exact_covariance, exact_cross, exact_moment = erf_feature_moments(weights, beta)
    errors = []
    for nodes in (16, 32, 48):
        covariance, cross, moment = network_feature_moments(weights, beta, erf, erf, nodes=nodes)
        errors.append(max(np.max(np.abs(covariance - exact_covariance)), np.max(np.abs(cross - exact_cross)),
                          abs(moment - exact_moment)))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-5


def test_the_kernel_equivalent_of_erf_features_is_the_arcsine_one():
    from theorems.deterministic_equivalent import ridge_errors_from_moments
    weights, beta = _layer(2)
    erf = activation("erf")
    covariance, cross, moment = erf_feature_moments(weights, beta)
    exact = ridge_errors_from_moments(covariance, cross, label_moment=moment + 0.01,
                                      samples=80, ridge=0.1, noise_variance=0.01)
    quadrature = kernel_errors(weights, beta, erf, erf, samples=80, ridge=0.1, noise_variance=0.01, nodes=48)
    assert abs(quadrature.risk / exact.risk - 1) < 1e-4


@pytest.mark.parametrize("student, teacher", [("tanh", "tanh"), ("gelu", "tanh")])
def test_the_series_moments_agree_with_the_quadrature(student, teacher):
    """The quadrature integrates each pair on a 48 x 48 Gauss-Hermite rule; the series sums Mehler's terms with each
    neuron's scale. They agree to 1e-4 of the largest entry: the rule's own error for tanh at 48 nodes is about 2e-5
    (its poles at +-i pi/2 slow it), the series' truncation at d = 200 about 1e-9."""
    rng = np.random.default_rng(13)
    weights = rng.standard_normal((200, 60)) / math.sqrt(200) * rng.uniform(0.7, 1.3, 60)
    weights += 0.5 * np.outer(rng.standard_normal(200), rng.standard_normal(60)) / 200
    beta = rng.standard_normal(200)
    beta /= np.linalg.norm(beta)
    sigma, target = activation(student), activation(teacher)
    series = series_feature_moments(weights, beta, sigma, target)
    quadrature = network_feature_moments(weights, beta, sigma, target, nodes=48)
    for summed, integrated in zip(series, quadrature):
        assert np.max(np.abs(np.asarray(summed) - integrated)) <= 1e-4 * np.max(np.abs(integrated))


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
    features, labels = sigma(x @ weights), target(x @ beta)
    products = {"Sigma": (features[:, :, None] * features[:, None, :], covariance),
                "psi": (features * labels[:, None], cross), "E f*^2": (labels**2, moment)}
    for name, (samples, predicted) in products.items():
        mean, error = samples.mean(axis=0), samples.std(axis=0) / math.sqrt(len(x))
        assert np.all(np.abs(mean - predicted) <= 4.5 * error + 1e-12), name
