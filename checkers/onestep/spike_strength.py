"""Checker of spike-strength: sqrt(N) ||G_0|| / ||a|| over many draws."""

from __future__ import annotations

import math

import numpy as np

from checkers.check import Budget, Checker
from checkers.onestep.draws import draw_generators, setting_for
from checkers.onestep.simulation import one_step, operator_norm
from checkers.stats import Estimate, mean_estimate
from theorems.onestep import spike_strength
from theorems.statement import Instance


def read_gradient_norm(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
    dimension, draws = 100 * 2 ** (budget.level // 2 + 1), 64 * 2 ** (budget.level - budget.level // 2)
    values = []
    for rng in draw_generators(seed, draws):
        step = one_step(setting_for(instance, dimension), rng, keep=False)
        values.append(operator_norm(step.gradient) * math.sqrt(step.setting.width) / np.linalg.norm(step.second_layer))
    return mean_estimate(np.array(values), method=f"sqrt(N) ||G_0|| / ||a|| at d = {dimension}, {draws} draws")


CHECKER = Checker(
    theorem=spike_strength.THEOREM,
    simulation="sqrt(N) ||G_0|| / ||a|| over many draws",
    readers={"gradient-norm": read_gradient_norm},
)
