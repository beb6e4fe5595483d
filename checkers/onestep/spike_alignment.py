"""Checker of spike-alignment: cos^2(X^T y, beta_*) over many draws of X, y."""

from __future__ import annotations

import numpy as np

from checkers.check import Budget, Checker
from checkers.onestep.draws import draw_generators, setting_for
from checkers.onestep.simulation import one_step, spike_direction_overlap
from checkers.stats import Estimate, mean_estimate
from theorems.onestep import spike_alignment
from theorems.statement import Instance


def read_teacher_overlap(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
    dimension, draws = 500 * 2 ** (budget.level // 2), 32 * 2 ** (budget.level - budget.level // 2)
    values = []
    for rng in draw_generators(seed, draws):
        step = one_step(setting_for(instance, dimension), rng, keep=False, with_gradient=False)
        values.append(spike_direction_overlap(step.zeta, step.teacher_direction))
    return mean_estimate(np.array(values), method=f"cos^2(X^T y, beta_*) at d = {dimension}, {draws} draws")


CHECKER = Checker(
    theorem=spike_alignment.THEOREM,
    simulation="many draws of X, y",
    readers={"teacher-overlap": read_teacher_overlap},
)
