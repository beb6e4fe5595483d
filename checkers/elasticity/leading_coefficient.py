"""Leading coefficients of feature-displacement metrics after one step, read across sizes and extrapolated.

Shared by the checkers of elasticity-polynomial and cohesion-separability: per size n = d = N, the
metric's mu-dependence divided by its leading-order scale, exact in x given the weights, averaged over
network draws, then extrapolated in n^(2 alpha - 1), the order of the terms the step's expansion leaves out, with
the exponent bounded within a factor two of it rather than assumed: the limits of the exponents the sizes accept
enter the test as a systematic bound (`checkers.convergence.bounded_extrapolation`). Only where the expansion's
parameter, the variance s^2 of a preactivation's shift (`theorems.onestep.common.shift_variance`), is at most
`checkers.convergence.CONTRACTION` at the smallest size: above it the ratios approach their limit too slowly for
the sizes (softplus + tanh with the teacher z + He_2/sqrt(2) at alpha = 0.4, s^2 = 1.3: ratios 0.75, 0.74, 0.78,
0.80 at n = 250..2000 against E sigma'^2 = 1.36, and a high-fidelity run failed the true statement;
docs/derivations/onestep.md#spike-count).
"""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.convergence import bounded_extrapolation, require_small_expansion_parameter
from checkers.onestep.draws import require_extrapolable_step
from checkers.onestep.simulation import OneStepSetting, one_step
from checkers.stats import mean_estimate
from theorems.elasticity.elasticity_reference import bivariate_expectation, coherent_and_bulk, neuron_laws
from theorems.statement import Instance


def elasticity_step_part(instance: Instance, w0, w1, zeta, mu) -> tuple[float, float]:
    """(Elasticity(mu) - Elasticity(0), each from the exact per-neuron law; (zeta^T mu)^2 sum_j t_j^2)."""
    sigma = instance["activation"]

    def squared_displacement(u, v):
        return (sigma(u + v) - sigma(u)) ** 2

    coherent, _ = coherent_and_bulk(w1 - w0, zeta)
    change = (np.sum(bivariate_expectation(squared_displacement, *neuron_laws(w0, w1 - w0, mu, zeta),
                                           kinks=sigma.kinks))
              - np.sum(bivariate_expectation(squared_displacement, *neuron_laws(w0, w1 - w0, 0 * mu, zeta),
                                             kinks=sigma.kinks)))
    return float(change), float((zeta @ mu) ** 2 * np.sum(coherent**2))


def class_mean_step_part(metric):
    """(Delta_mu M(W_1) - Delta_mu M(W_0) for a class-mean metric M, Delta_mu M = M(mu) - M(0);
    sum_j [(w_j(1)^T mu)^2 - (w_j(0)^T mu)^2], the same for the linear mean features w_j^T mu)."""
    def step_part(instance: Instance, w0, w1, zeta, mu) -> tuple[float, float]:
        sigma = instance["activation"]
        change = ((metric(sigma, w1, mu) - metric(sigma, w1, 0 * mu))
                  - (metric(sigma, w0, mu) - metric(sigma, w0, 0 * mu)))
        return change, float(np.sum((mu @ w1) ** 2 - (mu @ w0) ** 2))
    return step_part


COEFFICIENT_SIZES = (250, 500, 1000)


def leading_coefficient_reader(step_part):
    """An observer of lim_n (a metric's mu-dependence) / (its leading-order scale): per size, the ratio's mean
    over network draws (each exact given the weights); then extrapolated in n^(2 alpha - 1), the exponent bounded
    within a factor two of it, on the three or four sizes (`checkers.convergence.bounded_extrapolation`).
    `step_part` is a function (instance, w0, w1, zeta, mu) -> (the metric's mu-dependence, its scale)."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
        alpha, similarity = float(instance["alpha"]), float(instance["similarity"])
        sizes = COEFFICIENT_SIZES + ((2000,) if budget.level >= 4 else ())
        draws = budget.scaled(16, 2 ** (1 / 3))
        what = f"ratios over {draws} network draws at each n = d = N, exact in x given the weights"
        require_extrapolable_step(instance, sizes, what=what)
        # the class mean moves each neuron's preactivation by t_j m, t_j of variance mu1^2 n^(2 alpha - 1): the
        # metrics' series in it (docs/derivations/elasticity.md#cohesion-separability), read as the theorem derives
        # mu1, whatever a mutant states
        mu1 = float(instance.derived_constants["mu1"].value)
        require_small_expansion_parameter(similarity**2 * mu1**2 * sizes[0] ** (2 * alpha - 1), what=what,
                                          where=f"n = {sizes[0]}",
                                          parameter="the variance of a neuron's class-mean shift, m^2 mu1^2 "
                                                    "n^(2 alpha - 1),")
        estimates = []
        for size, size_seed in zip(sizes, seed.spawn(len(sizes))):
            setting = OneStepSetting(samples=size, dimension=size, width=size, activation=instance["activation"],
                                     teacher=instance["teacher"], noise=float(instance["noise"]),
                                     learning_rate=size ** alpha)
            ratios = []
            for child in size_seed.spawn(draws):
                step = one_step(setting, np.random.default_rng(child))
                w0, w1, zeta = step.initial_weights, step.updated_weights(), step.zeta
                change, scale = step_part(instance, w0, w1, zeta, similarity * zeta / (zeta @ zeta))
                ratios.append(change / scale)
            estimates.append(mean_estimate(np.array(ratios)))
        return bounded_extrapolation(sizes, estimates, exponent=1 - 2 * alpha, what=what, size_name="n")
    return read
