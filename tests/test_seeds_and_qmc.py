"""Seeds by identity (order and process independent) and the RQMC estimator."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.stats

from checkers.qmc import rqmc_gaussian_mean
from checkers.seeds import generator, identity_key, seed_sequence


def test_seed_depends_on_identity_not_order():
    a = generator(5, "dual-kernel", "monte-carlo", 0).random(3)
    generator(5, "other", "task").random(10)
    b = generator(5, "dual-kernel", "monte-carlo", 0).random(3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, generator(5, "dual-kernel", "monte-carlo", 1).random(3))
    assert not np.array_equal(a, generator(6, "dual-kernel", "monte-carlo", 0).random(3))


def test_seed_is_the_same_in_another_process():
    code = "from checkers.seeds import generator; print(generator(5, 'x', 1).integers(0, 2**62))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(other) == int(generator(5, "x", 1).integers(0, 2**62))
    assert len(identity_key("x")) == 4


def test_bad_seed():
    with pytest.raises(ValueError):
        seed_sequence(-1, "x")


def test_rqmc_is_unbiased_with_honest_standard_error():
    """E[G1^2 G2^2] = 1; across seeds the t statistics are t-distributed (KS test)."""
    statistics = []
    for seed in range(60):
        estimate = rqmc_gaussian_mean(lambda g: g[:, 0] ** 2 * g[:, 1] ** 2, 2, 256, 8, seed_sequence(seed, "t"))
        statistics.append((estimate.value - 1.0) / estimate.standard_error)
    assert scipy.stats.kstest(statistics, scipy.stats.t(df=7).cdf).pvalue > 1e-3


def test_rqmc_beats_monte_carlo_on_smooth_integrand():
    estimate = rqmc_gaussian_mean(lambda g: np.tanh(g[:, 0]) * np.tanh(g[:, 1] + g[:, 0]), 2, 2**12, 16,
                                  seed_sequence(0, "rate"))
    monte_carlo_se = 0.5 / np.sqrt(2**12 * 16)  # sd of the integrand is below 0.5
    assert estimate.standard_error < monte_carlo_se / 5


def test_rqmc_input_checks():
    with pytest.raises(ValueError):
        rqmc_gaussian_mean(lambda g: g[:, 0], 1, 100, 8, seed_sequence(0))
    with pytest.raises(ValueError):
        rqmc_gaussian_mean(lambda g: g[:, 0], 1, 128, 1, seed_sequence(0))
