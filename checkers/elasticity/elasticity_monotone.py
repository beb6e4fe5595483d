"""Checker of elasticity-monotone: network draws at one size, the exact Elasticity of each along the similarity ladder
(elasticity-reference's law, by quadrature), each step's relative rise pooled over the draws and claimed at every step
(`at_every_size`)."""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Pooled
from checkers.onestep.simulation import OneStepSetting, one_step
from checkers.shared_draws import cached
from checkers.stats import Estimate, at_every_size, mean_estimate
from theorems.elasticity import elasticity_monotone
from theorems.elasticity.elasticity_reference import bivariate_expectation, neuron_laws
from theorems.statement import Instance

FIRST_STAGE_DRAWS = 32


@cached(maxsize=1024)
def ladder(parameters: tuple[tuple[str, str], ...], entropy: tuple[int, ...]) -> dict[float, float]:
    """One network draw's exact Elasticity at m = +-|m| for every |m| of the ladder, at the theorem's `parameters`
    (as `describe_parameters` gives them, sorted)."""
    instance = elasticity_monotone.THEOREM.instance(dict(parameters))
    size, sigma = int(instance["dimension"]), instance["activation"]
    setting = OneStepSetting(samples=size, dimension=size, width=size, activation=sigma, teacher=instance["teacher"],
                             noise=float(instance["noise"]), learning_rate=size ** float(instance["alpha"]))
    step = one_step(setting, np.random.default_rng(np.random.SeedSequence(entropy)))
    w0, zeta = step.initial_weights, step.zeta
    delta = step.updated_weights() - w0
    similarities = sorted({side * m for side in elasticity_monotone.SIDES for m in elasticity_monotone.LADDER})
    return {m: float(np.sum(bivariate_expectation(lambda u, v: (sigma(u + v) - sigma(u)) ** 2,
                                                  *neuron_laws(w0, delta, m * zeta / (zeta @ zeta), zeta),
                                                  kinks=sigma.kinks)))
            for m in similarities}


def draws_at(budget: Budget) -> int:
    """FIRST_STAGE_DRAWS at quick fidelity, growing by sqrt 2 a level: 32, 64 and 128 at quick, default and high."""
    return budget.scaled(FIRST_STAGE_DRAWS, 2 ** 0.5)


def read_steps(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Pooled:
    """Every draw's ladder; any version's observable pooled per step, claimed at every step."""
    point, count = tuple(sorted(instance.describe_parameters().items())), draws_at(budget)
    entropies = [tuple(int(v) for v in np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, index))
                       .generate_state(4)) for index in range(count)]
    ladders = [ladder(point, entropy) for entropy in entropies]
    first = np.array([[(row[side * 0.5] - row[0.0]) / row[0.0] for side in elasticity_monotone.SIDES]
                      for row in ladders])
    method = (f"{count} network draws at n = d = N = {int(instance['dimension'])}, the exact law of each at m = 0, "
              f"+-0.5, +-1, +-2, +-4; the first steps (0 to +-0.5) fall on {int(np.sum(first[:, 0] < 0))} and "
              f"{int(np.sum(first[:, 1] < 0))} draws")

    def pool(observable) -> Estimate:
        return at_every_size([mean_estimate(np.array([float(observable({"inner": row[side * inner],
                                                                        "outer": row[side * outer],
                                                                        "at_zero": row[0.0], "side": side}))
                                                      for row in ladders]))
                              for side, inner, outer in elasticity_monotone.steps()], method)
    return Pooled(pool)


CHECKER = Checker(
    theorem=elasticity_monotone.THEOREM,
    simulation="network draws after one step; the exact Elasticity of each along m = 0, +-0.5, +-1, +-2, +-4; each "
               "step's mean rise with its standard error, claimed at every step",
    readers={"rises-away-from-zero": read_steps},
    second_point={"activation": "tanh", "teacher": "tanh", "alpha": "0.2", "dimension": "200"},
)
