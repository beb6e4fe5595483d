"""The gradient-flow integrators (checkers.alignment.gradient_flow) and the family's geometry
(theorems.alignment.common)."""

import math

import numpy as np
import pytest

from checkers.alignment.gradient_flow import (
    balanced_start,
    cartesian_flow,
    geometric_times,
    gradient_descent,
    loss_gradients,
    polar_flow,
    stable_rank,
)
from theorems.activations import Activation, activation
from theorems.alignment.common import (
    LOSSES,
    class_directions,
    initial_directions,
    loss_values,
    negative_loss_derivative,
    orthogonal_data,
    orthogonal_separability,
    reference_data,
    region_codes,
    signed_activated_sum,
    symmetric_data,
    theorem1_constants,
    two_point_data,
    xi_constant,
    zeta1,
)


def test_polar_and_cartesian_forms_agree_to_1e8():
    """The issue's requirement: where both apply (balanced start, moderate epsilon) they agree to 1e-8."""
    x, y = reference_data(3, 3)
    directions, signs = initial_directions(8, 3)
    epsilon = 1e-4
    times = geometric_times(1e-3, 5.0, 200)
    u, r, s = balanced_start(directions, signs, math.log(epsilon))
    polar = polar_flow(x, y, u, r, s, "exponential", times, rtol=1e-12, atol=1e-14)
    weights = epsilon * directions
    cartesian = cartesian_flow(x, y, weights, signs * np.linalg.norm(weights, axis=1), "exponential", times,
                               rtol=1e-12)
    scale = np.max(np.abs(cartesian.weights), axis=(1, 2))[:, None, None]
    assert np.max(np.abs(polar.weights - cartesian.weights) / scale) < 1e-8
    assert np.max(np.abs(polar.output_weights - cartesian.output_weights)
                  / np.max(np.abs(cartesian.output_weights), axis=1)[:, None]) < 1e-8


@pytest.mark.parametrize("loss", LOSSES)
def test_negative_loss_derivative_matches_central_differences(loss):
    y, f = np.array([1.0, -1.0, 1.0]), np.array([0.3, -0.7, 2.0])
    h = 1e-6
    numeric = -(loss_values(loss, y, f + h) - loss_values(loss, y, f - h)) / (2 * h)
    np.testing.assert_allclose(negative_loss_derivative(loss, y, f), numeric, rtol=1e-7)


def test_paper_logistic_has_unit_slope_at_zero():
    """The factor 2 of the paper's appendix: g(y, 0) = y (the plain logistic gives y/2)."""
    y = np.array([1.0, -1.0])
    np.testing.assert_allclose(negative_loss_derivative("logistic", y, 0 * y), y)
    np.testing.assert_allclose(negative_loss_derivative("plain-logistic", y, 0 * y), y / 2)


def test_loss_gradients_match_central_differences():
    x, y = reference_data(2, 3)
    rng = np.random.default_rng(0)
    weights, output_weights = rng.standard_normal((4, 3)), rng.standard_normal(4)

    def total(w, v):
        return float(np.sum(loss_values("exponential", y, np.maximum(x @ w.T, 0) @ v)))

    gradient_w, gradient_v = loss_gradients(x, y, weights, output_weights, "exponential")
    h = 1e-6
    for j in range(4):
        step = np.zeros(4)
        step[j] = h
        assert (total(weights, output_weights + step) - total(weights, output_weights - step)) / (2 * h) \
            == pytest.approx(gradient_v[j], rel=1e-6)
        for k in range(3):
            step_w = np.zeros((4, 3))
            step_w[j, k] = h
            assert (total(weights + step_w, output_weights) - total(weights - step_w, output_weights)) / (2 * h) \
                == pytest.approx(gradient_w[j, k], rel=1e-5, abs=1e-9)


def test_gradient_descent_records_time_k_eta():
    x, y = reference_data(2, 3)
    directions, signs = initial_directions(4, 3)
    run = gradient_descent(x, y, 0.1 * directions, 0.1 * signs, "exponential", 0.01, 20, record_every=5)
    np.testing.assert_allclose(run.times, [0.0, 0.05, 0.1, 0.15, 0.2])


def test_reference_data_geometry():
    x, y = reference_data(10, 8)
    assert orthogonal_separability(x, y) > 0
    norms = np.linalg.norm(x, axis=1)
    assert 0.5 <= norms.min() and norms.max() <= 1.5
    positive, negative = class_directions(x, y)
    np.testing.assert_allclose(positive, x[:10].sum(axis=0))
    assert np.all(region_codes(positive[None], x, y) == 1) and np.all(region_codes(negative[None], x, y) == -1)


def test_two_point_family_has_mu_sin_delta():
    x, y = two_point_data(0.1)
    assert orthogonal_separability(x, y) == pytest.approx(math.sin(0.1))


def test_zeta1_caps_lie_inside_the_class_cones():
    """Directions within the cap cos(z, x+) >= sqrt(1 - zeta_1) activate exactly the positive data (Lemma 8)."""
    x, y = reference_data(4, 4)
    positive, _ = class_directions(x, y)
    unit = positive / np.linalg.norm(positive)
    cap = math.sqrt(1 - zeta1(x, y)) + 1e-9
    rng = np.random.default_rng(0)
    for _ in range(2000):
        other = rng.standard_normal(4)
        other -= (other @ unit) * unit
        other /= np.linalg.norm(other)
        z = cap * unit + math.sqrt(1 - cap**2) * other
        assert region_codes(z[None], x, y)[0] == 1


def test_xi_is_mu_squared_and_bounds_sampled_cosines():
    """xi = mu^2 [D]: no sampled pair (x1 in the cone, x2 outside S+ u S-) has cos^2 above 1 - xi."""
    x, y = reference_data(3, 3)
    xi = xi_constant(x, y)
    assert xi == pytest.approx(orthogonal_separability(x, y) ** 2)
    z = x * y[:, None]
    rng = np.random.default_rng(1)
    first = rng.exponential(size=(4000, len(z))) @ z
    second = rng.standard_normal((4000, 3))
    outside = np.isin(region_codes(second, x, y), (0, 2))
    cosines = np.sum(first[outside] * second[outside], axis=1) / (
        np.linalg.norm(first[outside], axis=1) * np.linalg.norm(second[outside], axis=1))
    assert np.max(cosines**2) <= 1 - xi + 1e-12


def test_signed_activated_sum_and_orthogonal_data():
    x, y = orthogonal_data(2, 5)
    assert np.allclose(x @ x.T - np.diag(np.diag(x @ x.T)), 0)
    total, count = signed_activated_sum(np.ones(5), x, y)
    assert count == 4 and np.allclose(total, (x * y[:, None]).sum(axis=0))


def test_theorem1_constants_are_finite_and_loose():
    x, y = reference_data(3, 3)
    directions, signs = initial_directions(8, 3)
    constants = theorem1_constants(x, y, directions, signs)
    assert constants["t1_bound"] > 100 and constants["log_epsilon_bound"] < -1000
    assert stable_rank(np.eye(3)[None])[0] == pytest.approx(3.0)


def test_symmetric_data_mirror_each_other_and_are_separable():
    x, y = symmetric_data(4, 5)
    np.testing.assert_allclose(x[4:], -x[:4])
    assert np.all(y[:4] == 1) and np.all(y[4:] == -1)
    assert orthogonal_separability(x, y) > 0


def test_the_gradient_reuses_sigma_prime_instead_of_deriving_it_per_evaluation(monkeypatch):
    """sigma' is a sympy derivative turned into numpy code (about 45 ms for leaky ReLU); built per right-hand side,
    it made one flow of conservation-law take 110 s instead of 4."""
    sigma = activation("leaky_relu:0.1")
    x, y = np.array([[1.0, 0.5], [-0.3, 1.0]]), np.array([1.0, -1.0])
    weights, output_weights = np.array([[0.2, -0.1], [0.4, 0.3]]), np.array([0.5, -0.2])
    expected = loss_gradients(x, y, weights, output_weights, "exponential", sigma)

    def rebuilt(*args, **kwargs):
        raise AssertionError("sigma' derived again")
    monkeypatch.setattr(Activation, "derivative", rebuilt)
    for _ in range(3):
        again = loss_gradients(x, y, weights, output_weights, "exponential", sigma)
        assert all(np.array_equal(a, b) for a, b in zip(again, expected))
