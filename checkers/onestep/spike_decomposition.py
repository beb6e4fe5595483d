"""Checker of spike-decomposition: ||G_0 - A||/||G_0|| across n = 100..800, fitted in log-log after the claimed
n^(1/2)/log^2 n scaling, and the spike coefficient at the largest sizes."""

from __future__ import annotations

import numpy as np

from checkers.arrays import to_backend, to_numpy
from checkers.budget import Budget, Fidelity
from checkers.checker import Checker, Draws, Fitted
from checkers.cost import Cost, over_stages
from checkers.onestep.draws import draw_generators, setting_for, step_cost
from checkers.onestep.simulation import one_step, operator_norm
from checkers.shared_draws import draw_key, memoized
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
    """Per draw: n, ||G_0 - A||_op / ||G_0||_op with the statement's spike A, and what the spike coefficient reads
    (zeta = X^T y / n, G_0 a/||a||, ||a||, N)."""
    sizes, seeds = _decomposition_sizes(budget)
    rows = []
    for size, children in zip(sizes, seed.spawn(len(sizes))):
        for rng in draw_generators(children, seeds):
            step = one_step(setting_for(instance, size), rng, keep=False)
            gradient, a, zeta = step.gradient, to_numpy(step.second_layer), to_numpy(step.zeta)
            gradient_norm = operator_norm(gradient)
            a_norm = np.linalg.norm(a)
            along_a = to_numpy(gradient @ to_backend(a / a_norm, like=gradient))
            scale, left, right = spike_decomposition.spike(instance, zeta, a)
            residual = gradient - to_backend(scale * np.outer(left, right), like=gradient)
            rows.append({"samples": step.setting.samples, "ratio": operator_norm(residual) / gradient_norm,
                         "zeta": zeta, "gradient_along_a": along_a, "second_layer_norm": a_norm,
                         "width": gradient.shape[1]})
    return tuple(rows)


def _rows(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    # the key holds the statement's constants and definitions: the residual subtracts its spike
    return memoized(draw_key(instance, budget, seed), lambda: _decomposition_draws(instance, budget, seed))


def read_residual_rate(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Fitted:
    rows = _rows(instance, budget, seed)
    samples = np.array([row["samples"] for row in rows], dtype=float)
    ratios = np.array([row["ratio"] for row in rows])
    own = np.polyfit(np.log(samples), np.log(ratios), 1)[0]
    return Fitted(rows, f"log-log fit over n = {sorted(set(samples.astype(int).tolist()))}, "
                        f"{len(rows) // len(set(samples))} draws each (ratio at largest n: "
                        f"{np.mean(ratios[samples == samples.max()]):.4g}; the ratio's own exponent {own:.3f})")


def read_spike_coefficient(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Draws:
    rows = _rows(instance, budget, seed)
    # the two largest sizes, pooled: the coefficient's spread is already small there
    second = sorted({row["samples"] for row in rows})[-2]
    largest = tuple(row for row in rows if row["samples"] >= second)
    return Draws(largest, f"spike coefficient at n >= {int(second)}, {len(largest)} draws")


CHECKER = Checker(
    theorem=spike_decomposition.THEOREM,
    simulation="exponent fitted across n; the spike coefficient -> mu1",
    readers={"residual-rate": read_residual_rate, "spike-coefficient": read_spike_coefficient},
    shared_draws=True,
    cost=cost,
    # the rate's resolution is below what quick fidelity's sizes detect (its reason, in the statement)
    resolves_at="default",
    prediction_resolves_at={"spike-coefficient": "quick"},
    second_point={"activation": "erf", "teacher": "erf", "psi1": "4", "psi2": "0.5"},
    calibration_seeds=40,
    array_api=True,
)
