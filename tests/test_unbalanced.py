"""The unbalanced polar form (checkers.alignment.unbalanced): the balanced form where q = +-1, the Cartesian flow where
both can run, and its conserved imbalance."""

import numpy as np

from checkers.alignment.gradient_flow import balanced_start, cartesian_flow, polar_flow
from checkers.alignment.runs import data
from checkers.alignment.unbalanced import gaussian_ratios, unbalanced_polar_flow

KEY = ("reference", 3, 3, 8, 0)
TIMES = np.linspace(0.0, 3.0, 31)


def test_a_balanced_start_stays_balanced_and_is_the_balanced_polar_form():
    x, y, directions, signs = data(KEY)
    u, r, s = balanced_start(directions, signs, -10.0)
    balanced = polar_flow(x, y, u, r, s, "exponential", TIMES, rtol=1e-11, atol=1e-13)
    unbalanced = unbalanced_polar_flow(x, y, u, r, s.copy(), "exponential", TIMES, rtol=1e-11, atol=1e-13)
    assert np.array_equal(unbalanced.ratios, np.broadcast_to(s, unbalanced.ratios.shape))
    np.testing.assert_allclose(unbalanced.directions, balanced.directions, atol=1e-9)
    np.testing.assert_allclose(unbalanced.log_norms, balanced.log_norms, atol=1e-9)


def test_it_agrees_with_the_cartesian_flow_from_an_unbalanced_start():
    x, y, directions, signs = data(KEY)
    epsilon = np.exp(-3.0)
    ratios = gaussian_ratios(signs, 0)
    u, r, _ = balanced_start(directions, signs, -3.0)
    polar = unbalanced_polar_flow(x, y, u, r, ratios, "exponential", TIMES, rtol=1e-11, atol=1e-13)
    weights = epsilon * directions
    cartesian = cartesian_flow(x, y, weights, ratios * np.linalg.norm(weights, axis=1), "exponential", TIMES,
                               rtol=1e-11)
    scale = epsilon * np.max(np.linalg.norm(directions, axis=1))
    np.testing.assert_allclose(polar.weights, cartesian.weights, atol=1e-7 * scale)
    np.testing.assert_allclose(polar.output_weights, cartesian.output_weights, atol=1e-7 * scale)


def test_the_imbalance_is_conserved_and_the_ratio_stays_away_from_one_early():
    """e^(2r)(q^2 - 1) = v^2 - ||w||^2 is constant; through the alignment phase (t <= 1 on these data, aligned by
    0.62) |q_j| stays O(1) away from 1 (docs/derivations/alignment.md#unbalanced-start). Later, neurons that sit on a
    switching surface make the integrator's error grow (1e-7 by t = 3 at rtol 1e-11)."""
    x, y, directions, signs = data(KEY)
    ratios = gaussian_ratios(signs, 0)
    u, r, _ = balanced_start(directions, signs, -40.0)
    run = unbalanced_polar_flow(x, y, u, r, ratios, "exponential", TIMES[TIMES <= 1.0], rtol=1e-11, atol=1e-13)
    scaled = np.exp(2 * (run.log_norms - r)) * (run.ratios**2 - 1)
    np.testing.assert_allclose(scaled, np.broadcast_to(ratios**2 - 1, scaled.shape), atol=1e-9)
    assert np.max(np.abs(np.abs(run.ratios) - 1)) > 0.5


def test_the_starts_ratios_are_a_fixed_draw_with_the_balanced_signs():
    signs = np.array([1.0, -1.0, 1.0, -1.0])
    first, again = gaussian_ratios(signs, 3), gaussian_ratios(signs, 3)
    assert np.array_equal(first, again) and np.array_equal(np.sign(first), signs)
    assert not np.array_equal(first, gaussian_ratios(signs, 4))


def test_the_leaky_form_agrees_with_the_cartesian_flow_of_the_leaky_relu():
    """leak = alpha: sigma(z) = max(z, alpha z) in the polar form, against the Cartesian flow of the same activation
    from the same balanced start."""
    from theorems.activations import activation

    x, y, directions, signs = data(KEY)
    epsilon = np.exp(-3.0)
    u, r, s = balanced_start(directions, signs, -3.0)
    polar = unbalanced_polar_flow(x, y, u, r, s.copy(), "exponential", TIMES, rtol=1e-11, atol=1e-13, leak=0.1)
    weights = epsilon * directions
    cartesian = cartesian_flow(x, y, weights, signs * np.linalg.norm(weights, axis=1), "exponential", TIMES,
                               activation=activation("leaky_relu:0.1"), rtol=1e-11)
    scale = epsilon * np.max(np.linalg.norm(directions, axis=1))
    np.testing.assert_allclose(polar.weights, cartesian.weights, atol=1e-7 * scale)
    np.testing.assert_allclose(polar.output_weights, cartesian.output_weights, atol=1e-7 * scale)
