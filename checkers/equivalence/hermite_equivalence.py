"""Checker of hermite-equivalence: paired network/Hermite-surrogate test errors at n = 400 (and n = 100 as trend)."""

from __future__ import annotations

import numpy as np

from checkers.check import Budget, Checker
from checkers.equivalence.feature_maps import hermite_surrogate_map
from checkers.equivalence.ridge import readout
from checkers.onestep.simulation import OneStepSetting, one_step
from checkers.stats import mean_estimate
from theorems.equivalence import hermite_equivalence
from theorems.hermite import hermite_coefficients, second_moment
from theorems.statement import Instance

HERMITE_SIZE, HERMITE_TREND_SIZE = 400, 100


def hermite_gaps(instance: Instance, degree: int, size: int, seeds) -> np.ndarray:
    """(test gap, train gap) per paired draw at n = d = N = size, surrogate of the given degree."""
    sigma, alpha = instance["activation"], float(instance["alpha"])
    maps = {"network": lambda pre, rng: sigma(pre),
            "surrogate": hermite_surrogate_map(hermite_coefficients(sigma, degree, digits=20).coefficients,
                                               float(second_moment(sigma, digits=20).value))}
    rows = []
    for child in seeds:
        rng = np.random.default_rng(child)
        setting = OneStepSetting(size, size, size, sigma, instance["teacher"], noise=float(instance["noise"]),
                                 learning_rate=size**alpha)
        step = one_step(setting, rng)
        errors = readout(step, step.updated_weights(), maps, [float(instance["penalty"])], rng, test_samples=4 * size)
        network, surrogate = errors["network"], errors["surrogate"]
        rows.append(((surrogate.test[0] - network.test[0]) / network.test[0],
                     (surrogate.train[0] - network.train[0]) / network.train[0]))
    return np.array(rows)


def read_test_gap(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    degree = int(float(instance.constant("degree")))
    main_seed, trend_seed = seed.spawn(2)
    draws = 24 * 2 ** (budget.level // 2)
    gaps = hermite_gaps(instance, degree, HERMITE_SIZE, main_seed.spawn(draws))
    trend = hermite_gaps(instance, degree, HERMITE_TREND_SIZE, trend_seed.spawn(draws))
    return mean_estimate(gaps[:, 0], method=(
        f"degree {degree}; {draws} paired draws at n = d = N = {HERMITE_SIZE}; test gap at n = {HERMITE_TREND_SIZE}: "
        f"{trend[:, 0].mean():+.4f} +- {trend[:, 0].std(ddof=1) / np.sqrt(draws):.2g}; train gaps (not claimed here) "
        f"{trend[:, 1].mean():+.4f} at n = {HERMITE_TREND_SIZE}, {gaps[:, 1].mean():+.4f} at n = {HERMITE_SIZE}"))


CHECKER = Checker(
    theorem=hermite_equivalence.THEOREM,
    simulation="paired gaps at n = 400 (spec P-M1); the train error is reported, not claimed",
    readers={"test-gap": read_test_gap},
)
