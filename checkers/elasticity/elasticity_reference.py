"""Checker of elasticity-reference: Monte Carlo over unseen x ~ N(mu, I) for several network draws, against the exact
per-neuron bivariate Gaussian law (2-D Gauss-Hermite), with common random numbers in mu and the
linearization sum_j (sigma'(u_j) v_j)^2 as a control variate (its mean comes from the same law).

Per draw: one step (Ba's normalization, n = d = N = `dimension`, eta = n^alpha), then T unseen samples
x = mu + g with the same g for every mu (common random numbers); the per-sample squared displacement
||sigma(W_1^T x) - sigma(W_0^T x)||^2 is heavy-tailed (docs/derivations/elasticity.md#elasticity-polynomial: relative
standard deviation ~1 per
sample); the control variate removes most of that, and the per-sample terms are pooled over draws.
"""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Draws
from checkers.onestep.simulation import OneStepSetting, one_step
from theorems.elasticity import elasticity_reference
from theorems.elasticity.elasticity_reference import bivariate_expectation, neuron_laws
from theorems.statement import Instance

SAMPLES = 4000
CHUNK = 500


def _control_mean(instance: Instance, w0, delta, mu, zeta) -> float:
    """The exact mean of the control variate sum_j (sigma'(u_j) v_j)^2 under the exact law (a fact of the draw, not
    the claim)."""
    sigma, slope = instance["activation"], instance["activation"].derivative(1)
    exact_laws = neuron_laws(w0, delta, mu, zeta)
    return float(np.sum(bivariate_expectation(lambda u, v: (slope(u) * v) ** 2, *exact_laws, kinks=sigma.kinks)))


def _monte_carlo(sigma, w0, w1, shifts, rng, samples: int) -> np.ndarray:
    """Per sample (rows) and shift (columns): ||sigma(W_1^T x) - sigma(W_0^T x)||^2 minus its linearization
    sum_j (sigma'(u_j) v_j)^2 (a control variate whose mean is known exactly), at x = shift + g with the same g
    for every shift (common random numbers)."""
    slope = sigma.derivative(1)
    delta = w1 - w0
    values = np.empty((samples, len(shifts)))
    for start in range(0, samples, CHUNK):
        base = rng.standard_normal((min(CHUNK, samples - start), w0.shape[0]))
        for index, shift in enumerate(shifts):
            x = base + shift
            u, v = x @ w0, x @ delta
            values[start:start + len(base), index] = np.sum((sigma(u + v) - sigma(u)) ** 2 - (slope(u) * v) ** 2,
                                                            axis=1)
    return values


def _read(*, dependence: bool):
    """A reader of the per-sample squared displacements at mu of each network draw, or (`dependence`) of their change
    from mu = 0 to mu, each with its control variate's exact mean added."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Draws:
        return _observe(instance, budget, seed, dependence=dependence)
    return read


def _observe(instance: Instance, budget: Budget, seed: np.random.SeedSequence, *, dependence: bool) -> Draws:
    size = instance["dimension"]
    draws = budget.scaled(16, 2 ** (1 / 3))
    samples = SAMPLES * 2 ** (budget.level - budget.level // 2)
    sigma = instance["activation"]
    setting = OneStepSetting(samples=size, dimension=size, width=size, activation=sigma, teacher=instance["teacher"],
                             noise=float(instance["noise"]), learning_rate=size ** float(instance["alpha"]))
    measured = []
    for child in seed.spawn(draws):
        rng = np.random.default_rng(child)
        step = one_step(setting, rng)
        w0, w1 = step.initial_weights, step.updated_weights()
        zeta = step.zeta
        mu = float(instance["similarity"]) * zeta / (zeta @ zeta)
        zero = np.zeros_like(mu)
        draw = {"w0": w0, "delta": w1 - w0, "mu": mu, "zeta": zeta}
        control_m = _control_mean(instance, w0, w1 - w0, mu, zeta)
        if not dependence:
            residual = _monte_carlo(sigma, w0, w1, [mu], rng, samples)[:, 0]
            measured.append({**draw, "displacement": residual + control_m})
        else:
            control_zero = _control_mean(instance, w0, w1 - w0, zero, zeta)
            values = _monte_carlo(sigma, w0, w1, [zero, mu], rng, samples)
            measured.append({**draw, "difference": (values[:, 1] + control_m) - (values[:, 0] + control_zero)})
    return Draws(tuple(measured), f"{draws} network draws at n = d = N = {size}, {samples} unseen samples each, "
                                  "pooled" + (", common random numbers in mu" if dependence else ""))


CHECKER = Checker(
    theorem=elasticity_reference.THEOREM,
    simulation="Monte Carlo over unseen x with a control variate and common random numbers in mu, against the "
               "exact bivariate Gaussian law per neuron",
    readers={"reference": _read(dependence=False), "similarity-dependence": _read(dependence=True)},
    second_point={"activation": "tanh", "teacher": "tanh", "alpha": "0.2", "dimension": "200"},
    calibration_seeds=50,
)
