"""Checker of gaussian-equivalence: paired network/GE ridge risks on fresh data at d = 48, 96, extrapolated in 1/d."""

from __future__ import annotations

import numpy as np

from checkers.check import Budget, Checker
from checkers.equivalence.feature_maps import gaussian_equivalent_map
from checkers.equivalence.ridge import readout
from checkers.onestep.draws import setting_for
from checkers.onestep.simulation import one_step
from checkers.stats import extrapolate_limit, mean_estimate
from theorems.equivalence import gaussian_equivalence
from theorems.statement import Instance

EQUIVALENCE_SIZES = (48, 96)


def read_risk_gap(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    sigma = instance["activation"]
    maps = {"network": lambda pre, rng: sigma(pre),
            "equivalent": gaussian_equivalent_map(float(instance.constant("mu1")), float(instance.constant("mu_star")))}
    base = 40 * 2 ** (budget.level // 2)
    estimates, counts = [], []
    for dimension, size_seed in zip(EQUIVALENCE_SIZES, seed.spawn(len(EQUIVALENCE_SIZES))):
        differences = []
        children = size_seed.spawn(base * EQUIVALENCE_SIZES[-1] // dimension)
        for child in children:
            rng = np.random.default_rng(child)
            step = one_step(setting_for(instance, dimension, learning_rate=float(instance["learning_rate"])), rng)
            errors = readout(step, step.updated_weights(), maps, [float(instance["penalty"])], rng,
                             test_samples=4 * step.setting.samples)
            network, equivalent = errors["network"].test[0], errors["equivalent"].test[0]
            differences.append((network - equivalent) / equivalent)
        estimates.append(mean_estimate(np.array(differences)))
        counts.append(len(children))
    return extrapolate_limit(EQUIVALENCE_SIZES, estimates, exponent=1.0, method=(
        f"paired draws at d in {EQUIVALENCE_SIZES} ({', '.join(map(str, counts))}); "
        + ", ".join(f"{e.value:+.4f} +- {e.standard_error:.2g}" for e in estimates) + "; extrapolated in 1/d"))


CHECKER = Checker(
    theorem=gaussian_equivalence.THEOREM,
    simulation="paired CK/GE risks on fresh data at d = 48, 96, extrapolated in 1/d",
    readers={"risk": read_risk_gap},
)
