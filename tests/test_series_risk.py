"""checkers.equivalence.series_risk: the test error by Mehler's series against erf's closed form and a fine product
quadrature, on rows as correlated as after a giant step; its truncation's bound against the series' own tail."""

import numpy as np
import pytest

from checkers.equivalence import series_risk
from checkers.equivalence.exact_risk import readout_risk
from theorems.activations import activation
from theorems.equivalence.kernel_oracle import erf_feature_moments, network_feature_moments

TANH, ERF = activation("tanh"), activation("erf")


def _spiked(seed: int, d: int = 30, width: int = 12, spike: float = 1.3):
    """Rows sqrt(c) (unit Gaussian direction) + r e_1, as the sRF's (|rho| about 0.6), a teacher direction
    gamma e_1 + rho e_2, and a readout of order one."""
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((width, d))
    weights *= 1.1 / np.linalg.norm(weights, axis=1)[:, None]
    weights[:, 0] += spike
    theta = np.zeros(d)
    theta[0], theta[1] = 0.8, 0.6
    return weights, theta, rng.standard_normal(width)


@pytest.mark.parametrize("seed", range(3))
def test_the_series_meets_erfs_closed_form(seed):
    weights, theta, readout = _spiked(seed)
    risk, bound, degree = series_risk.series_test_error(readout, weights, theta, ERF, ERF, accuracy=1e-9)
    exact = readout_risk(readout, *erf_feature_moments(weights.T, theta))
    assert abs(risk - exact) <= bound + 1e-12 * abs(exact) and bound <= 1e-9 * risk and degree in series_risk.DEGREES


def test_the_series_meets_a_fine_product_quadrature_for_tanh():
    """At 200 nodes per axis the product rule has converged to about 1e-10 here (at 96 it is still 6e-7 off)."""
    weights, theta, readout = _spiked(3)
    risk, bound, _ = series_risk.series_test_error(readout, weights, theta, TANH, TANH, accuracy=1e-8)
    quadrature = readout_risk(readout, *network_feature_moments(weights.T, theta, TANH, TANH, nodes=200))
    assert abs(risk - quadrature) < 1e-8 * quadrature and bound <= 1e-8 * risk


@pytest.mark.parametrize("degree", [12, 16, 20, 32])
def test_the_bound_covers_what_the_truncation_leaves_out(degree, monkeypatch):
    """Truncated at `degree`, the series is off its degree-64 value by no more than the bound it reports."""
    weights, theta, readout = _spiked(4, width=40)
    full, _, _ = series_risk.series_test_error(readout, weights, theta, TANH, TANH, accuracy=1e-12)
    monkeypatch.setattr(series_risk, "DEGREES", (degree, 64))
    truncated, bound, used = series_risk.series_test_error(readout, weights, theta, TANH, TANH, accuracy=np.inf)
    assert used == degree and 0 < abs(truncated - full) <= bound


def test_rows_too_correlated_for_any_degree_are_said_so():
    """Nearly parallel rows (|rho| near 1) leave a tail no listed degree brings below a tight accuracy: None, for the
    caller to sample instead."""
    weights, theta, readout = _spiked(5, spike=20.0)
    assert series_risk.series_test_error(readout, weights, theta, TANH, TANH, accuracy=1e-12) is None
