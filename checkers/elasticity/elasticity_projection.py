"""Checker of elasticity-projection: network draws after one step, each with a unit vector orthogonal to its zeta;
the statement's change of the exact Elasticity per draw, pooled over the draws."""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Draws
from checkers.onestep.simulation import OneStepSetting, one_step
from theorems.elasticity import elasticity_projection
from theorems.statement import Instance

FIRST_STAGE_DRAWS = 32


def read_change(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Draws:
    """Per draw: W_0, the step's displacement, zeta and a uniformly drawn unit vector orthogonal to zeta."""
    size, sigma = int(instance["dimension"]), instance["activation"]
    setting = OneStepSetting(samples=size, dimension=size, width=size, activation=sigma, teacher=instance["teacher"],
                             noise=float(instance["noise"]), learning_rate=size ** float(instance["alpha"]))
    count = budget.scaled(FIRST_STAGE_DRAWS, 2 ** 0.5)
    draws = []
    for child in seed.spawn(count):
        rng = np.random.default_rng(child)
        step = one_step(setting, rng)
        zeta = step.zeta
        direction = rng.standard_normal(size)
        direction -= (direction @ zeta) / (zeta @ zeta) * zeta
        draws.append({"w0": step.initial_weights, "delta": step.updated_weights() - step.initial_weights,
                      "zeta": zeta, "orthogonal": direction / np.linalg.norm(direction)})
    return Draws(tuple(draws), f"{count} network draws at n = d = N = {size}, the exact law of each at m and at the "
                               "orthogonally shifted mean")


CHECKER = Checker(
    theorem=elasticity_projection.THEOREM,
    simulation="network draws after one step; the exact Elasticity of each with and without a mean part orthogonal "
               "to zeta, pooled",
    readers={"projection-only": read_change},
    second_point={"activation": "tanh", "teacher": "tanh", "alpha": "0.2", "dimension": "200"},
)
