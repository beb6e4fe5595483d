"""Checker of spike-decomposition: ||G_0 - A||/||G_0|| across n = 100..800, fitted in log-log after the claimed
n^(1/2)/log^2 n scaling, and the spike coefficient at the largest sizes."""

from __future__ import annotations

import math

import numpy as np

from checkers.budget import Fidelity
from checkers.check import Budget, Checker
from checkers.cost import Cost, over_stages
from checkers.onestep.draws import draw_generators, setting_for, step_cost
from checkers.onestep.simulation import one_step, operator_norm
from checkers.shared_draws import draw_key, memoized
from checkers.stats import Estimate, fit_rate, mean_estimate
from theorems.onestep import spike_decomposition
from theorems.statement import Instance


def _decomposition_sizes(budget: Budget) -> tuple[list[int], int]:
    scale = 2 ** (budget.level // 2)
    return [100 * scale, 200 * scale, 400 * scale, 800 * scale], 3 * 2 ** (budget.level - budget.level // 2)


def cost(instance: Instance, fidelity: Fidelity) -> Cost:
    def at(budget: Budget) -> Cost:
        sizes, seeds = _decomposition_sizes(budget)
        return Cost.total(step_cost(setting_for(instance, size), seeds) for size in sizes)
    return over_stages(fidelity, at)


def _decomposition_draws(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    sizes, seeds = _decomposition_sizes(budget)
    mu1 = float(instance.constant("mu1"))
    direction = instance.definition("spike_direction")
    rows = []
    for size, children in zip(sizes, seed.spawn(len(sizes))):
        for rng in draw_generators(children, seeds):
            step = one_step(setting_for(instance, size), rng, keep=False)
            gradient, a = step.gradient, step.second_layer
            zeta = direction(step.zeta)
            width = gradient.shape[1]
            gradient_norm = operator_norm(gradient)
            coefficient = float((zeta / np.linalg.norm(zeta)) @ gradient @ (a / np.linalg.norm(a))
                                * math.sqrt(width) / (np.linalg.norm(zeta) * np.linalg.norm(a)))
            gradient -= (mu1 / math.sqrt(width)) * np.outer(zeta, a)
            rows.append((step.setting.samples, operator_norm(gradient) / gradient_norm, coefficient))
    return tuple(rows)


def _rows(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    direction = instance.definition("spike_direction")
    return memoized(draw_key(instance, budget, seed, str(instance.constant("mu1")), direction.__qualname__),
                    lambda: _decomposition_draws(instance, budget, seed))


def read_residual_rate(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
    rows = _rows(instance, budget, seed)
    samples = np.array([row[0] for row in rows], dtype=float)
    power = instance.definition("rate_power")
    ratios = np.array([row[1] for row in rows])
    scaled = ratios * samples**power / np.log(samples) ** 2
    fit = fit_rate(samples, scaled)
    return Estimate(fit.exponent, fit.standard_error, len(rows) - 2, len(rows),
                    f"log-log fit over n = {sorted(set(samples.astype(int).tolist()))}, "
                    f"{len(rows) // len(set(samples))} draws each (ratio at largest n: "
                    f"{np.mean(ratios[samples == samples.max()]):.4g})")


def read_spike_coefficient(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
    rows = _rows(instance, budget, seed)
    samples = np.array([row[0] for row in rows], dtype=float)
    # the two largest sizes, pooled: the coefficient's spread is already small there
    largest = samples >= np.unique(samples)[-2]
    coefficients = np.array([row[2] for row in rows])[largest]
    return mean_estimate(coefficients, method=f"spike coefficient at n >= {int(np.unique(samples)[-2])}, "
                                              f"{int(largest.sum())} draws")


CHECKER = Checker(
    theorem=spike_decomposition.THEOREM,
    simulation="exponent fitted across n; the spike coefficient -> mu1",
    readers={"residual-rate": read_residual_rate, "spike-coefficient": read_spike_coefficient},
    shared_draws=True,
    cost=cost,
    claims_in_checker=frozenset({"random-direction", "rate-n^-1"}),
    second_point={"activation": "erf", "teacher": "erf", "psi1": "4", "psi2": "0.5"},
    calibration_seeds=40,
)
