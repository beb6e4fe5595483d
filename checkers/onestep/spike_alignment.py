"""Checker of spike-alignment: cos^2(X^T y, beta_*) over many draws of X, y at three sizes, extrapolated in 1/d."""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker
from checkers.convergence import bounded_extrapolation
from checkers.onestep.draws import draw_generators, setting_for
from checkers.onestep.simulation import one_step, spike_direction_overlap
from checkers.stats import Estimate, mean_estimate
from theorems.onestep import spike_alignment
from theorems.statement import Instance

#: the sizes at every fidelity (higher levels draw more, which costs less than larger d: X is n x d)
SIZES = (250, 500, 1000)


def read_teacher_overlap(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
    """The overlap's limit. At finite d its mean carries an O(1/d) bias: the component of X^T y / n along beta_* has
    variance E[y^2 z^2]/n, the others E[y^2]/n, so where the limit is small (a teacher with mu1_star = 0, such as
    |z|) the bias of about E[y^2 z^2]/(d E[y^2]) outweighs the resolution. The overlap is therefore read at three
    sizes and extrapolated as L + B d^-e with e bounded around 1 (docs/derivations/onestep.md#spike-alignment)."""
    draws = 32 * 2**budget.level
    estimates = []
    for dimension, child in zip(SIZES, seed.spawn(len(SIZES))):
        values = [spike_direction_overlap(step.zeta, step.teacher_direction)
                  for step in (one_step(setting_for(instance, dimension), rng, keep=False, with_gradient=False)
                               for rng in draw_generators(child, draws))]
        estimates.append(mean_estimate(np.array(values), method=f"d = {dimension}"))
    return bounded_extrapolation(SIZES, estimates, exponent=1.0, what=f"cos^2(X^T y, beta_*), {draws} draws a size")


CHECKER = Checker(
    theorem=spike_alignment.THEOREM,
    simulation="many draws of X, y at three sizes, extrapolated in 1/d",
    readers={"teacher-overlap": read_teacher_overlap},
    second_point={"activation": "erf", "teacher": "relu", "psi1": "4", "psi2": "0.5"},
    calibration_seeds=200,
    array_api=True,
)
