"""Ridge readouts (checkers.equivalence.ridge) and the spiked-features step (checkers.equivalence.spiked_features)."""

import numpy as np
import pytest

from checkers.equivalence.ridge import fit_ridge, ridge_errors
from checkers.equivalence.spiked_features import spiked_model, spiked_step
from checkers.equivalence.srf_constants import expected_direction_energy
from theorems.activations import activation
from theorems.equivalence.giant_step_oracle import realized_features


@pytest.mark.parametrize("samples, width", [(60, 20), (20, 60)])
def test_ridge_matches_a_direct_solve_in_primal_and_dual_form(samples, width):
    rng = np.random.default_rng(0)
    features, labels = rng.standard_normal((samples, width)) / np.sqrt(width), rng.standard_normal(samples)
    test_features, test_targets = rng.standard_normal((30, width)) / np.sqrt(width), rng.standard_normal(30)
    penalties = (1e-3, 0.1, 2.0)
    errors = ridge_errors(features, labels, test_features, test_targets, penalties)
    for k, penalty in enumerate(penalties):
        weights = np.linalg.solve(features.T @ features / samples + penalty / width * np.eye(width),
                                  features.T @ labels / samples)
        assert errors.train[k] == pytest.approx(np.mean((labels - features @ weights) ** 2), rel=1e-9)
        assert errors.test[k] == pytest.approx(np.mean((test_targets - test_features @ weights) ** 2), rel=1e-9)
        assert errors.weight_norms[k] == pytest.approx(weights @ weights, rel=1e-9)


@pytest.mark.parametrize("samples, width", [(60, 20), (20, 60)])
def test_one_readout_in_primal_or_dual_form_is_the_direct_solve(samples, width):
    rng = np.random.default_rng(1)
    features, labels = rng.standard_normal((samples, width)) / np.sqrt(width), rng.standard_normal(samples)
    direct = np.linalg.solve(features.T @ features / samples + 0.3 / width * np.eye(width),
                             features.T @ labels / samples)
    assert fit_ridge(features, labels, 0.3) == pytest.approx(direct, rel=1e-9, abs=1e-12)


def test_ridge_rejects_non_positive_penalties():
    with pytest.raises(ValueError):
        ridge_errors(np.ones((3, 2)), np.ones(3), np.ones((1, 2)), np.ones(1), (0.0,))
    with pytest.raises(ValueError):
        fit_ridge(np.ones((3, 2)), np.ones(3), 0.0)


def test_spiked_step_keeps_unit_rows_and_a_unit_direction():
    step = spiked_step(50, 40, 2.0, 1.0, activation("tanh"), activation("tanh"), 0.0, np.random.default_rng(1))
    np.testing.assert_allclose(np.linalg.norm(step.initial_weights, axis=1), 1.0)
    assert np.linalg.norm(step.direction) == pytest.approx(1.0)
    assert step.bulk_inflation() > 1.0


def test_the_spiked_model_has_the_spike_bulk_and_overlap_it_is_given():
    """Read back by Result 3.3's own realized route: r = mean_j w_j . v^ (exact up to the bulk's v^-part, whose
    mean over p rows has s.d. sqrt(c/(p d))), c = mean_j ||Pi w_j||^2 (c (1 - 1/d) in mean) and gamma = v^ . theta
    exactly; the bulk's v^-part per row has variance c/d, as F_i -> c/d says."""
    dimension, width, spike, inflation, overlap = 300, 200, 1.37, 1.18, 0.8
    weights, theta = spiked_model(dimension, width, spike, inflation, overlap, np.random.default_rng(3))
    direction = np.eye(dimension)[0]
    features = realized_features(weights, direction, theta)
    assert np.linalg.norm(theta) == pytest.approx(1) and features.overlap == pytest.approx(overlap, abs=1e-15)
    assert abs(features.spike - spike) < 5 * np.sqrt(inflation / (width * dimension))
    assert np.allclose(np.sum((weights - np.outer(weights @ direction, direction))**2, axis=1)
                       + (weights @ direction - spike)**2, inflation)
    assert features.inflation == pytest.approx(inflation * (1 - 1 / dimension), rel=0.01)
    assert np.var(weights @ direction - spike) == pytest.approx(inflation / dimension, rel=0.3)
    with pytest.raises(ValueError):
        spiked_model(dimension, width, spike, inflation, 1.5, np.random.default_rng(0))


def test_expected_direction_energy_matches_simulation():
    """The control variate's mean is exact at finite size: check it against many draws."""
    tanh = activation("tanh")
    energies, projections = [], []
    for seed in range(300):
        step = spiked_step(30, 2, 1.0, 0.0, tanh, tanh, 0.3, np.random.default_rng(seed))
        energies.append(step.direction_energy())
        projections.append(step.teacher_projection())
    energy, slope = expected_direction_energy(tanh, 0.3, 30, 30)
    assert np.mean(energies) == pytest.approx(energy, abs=4 * np.std(energies) / np.sqrt(300))
    assert np.mean(projections) == pytest.approx(slope, abs=4 * np.std(projections) / np.sqrt(300))


def test_spike_count_intervals():
    """ell_*(alpha): (ell - 1)/(2 ell) < alpha < ell/(2 ell + 2) (docs/derivations/onestep.md#spike-count)."""
    from theorems.equivalence.hermite_equivalence import spike_count
    assert [spike_count(a) for a in (0.0, 0.2, 0.3, 0.34, 0.39, 0.41)] == [1, 1, 2, 3, 4, 5]


def test_hermite_surrogate_has_the_activations_second_moment():
    from checkers.equivalence.feature_maps import hermite_surrogate_map
    from theorems.hermite import hermite_coefficients, second_moment
    sigma = activation("tanh")
    surrogate = hermite_surrogate_map(hermite_coefficients(sigma, 3, digits=20).coefficients,
                                      float(second_moment(sigma, digits=20).value))
    z = np.random.default_rng(0).standard_normal((400, 500))
    values = surrogate(z, np.random.default_rng(1))
    assert np.mean(values**2) == pytest.approx(float(second_moment(sigma, digits=20).value), rel=0.01)
    assert np.mean(values * z) == pytest.approx(np.mean(sigma(z) * z), abs=0.01)
