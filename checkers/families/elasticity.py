"""Observing feature displacement after one step: the Elasticity by Monte Carlo against its exact law, and the
leading coefficients of the Elasticity, Cohesion and Separability extrapolated across sizes.

`elasticity-reference`: Monte Carlo over unseen x ~ N(mu, I) for several network draws, against the exact
per-neuron bivariate Gaussian law (2-D Gauss-Hermite), with common random numbers in mu and the
linearization sum_j (sigma'(u_j) v_j)^2 as a control variate (its mean comes from the same law).

Per draw: one step (Ba's normalization, n = d = N = `dimension`, eta = n^alpha), then T unseen samples
x = mu + g with the same g for every mu (common random numbers); the per-sample squared displacement
||sigma(W_1^T x) - sigma(W_0^T x)||^2 is heavy-tailed (spec 8.3: relative standard deviation ~1 per
sample); the control variate removes most of that, and the per-sample terms are pooled over draws.
"""

from __future__ import annotations


import numpy as np

from checkers.check import Budget, Checker, Unresolved
from checkers.simulate.onestep import OneStepSetting, one_step
from checkers.stats import extrapolate_limit, mean_estimate
from theorems import cohesion_separability, elasticity_polynomial, elasticity_reference
from theorems.cohesion_separability import cohesion, separability
from theorems.elasticity_reference import bivariate_expectation, coherent_and_bulk, neuron_laws
from theorems.statement import Instance

SAMPLES = 4000
CHUNK = 500


def _reference(instance: Instance, w0, delta, mu, zeta) -> tuple[float, float]:
    """(the reference Elasticity, the exact mean of the control variate sum_j (sigma'(u_j) v_j)^2)."""
    sigma, slope = instance["activation"], instance["activation"].derivative(1)
    laws = neuron_laws(w0, delta, mu, zeta, bulk_weight=float(instance.constant("bulk_weight")),
                       mean_shift=instance.definition("mean_shift"))
    exact_laws = neuron_laws(w0, delta, mu, zeta)  # the control variate's mean is a fact, not the claim
    reference = float(np.sum(bivariate_expectation(lambda u, v: (sigma(u + v) - sigma(u)) ** 2, *laws)))
    control = float(np.sum(bivariate_expectation(lambda u, v: (slope(u) * v) ** 2, *exact_laws)))
    return reference, control


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


def observe(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    size = instance["dimension"]
    draws = 16 * 2 ** (budget.level // 3)
    samples = SAMPLES * 2 ** (budget.level - budget.level // 2)
    sigma = instance["activation"]
    setting = OneStepSetting(samples=size, dimension=size, width=size, activation=sigma, teacher=instance["teacher"],
                             noise=float(instance["noise"]), learning_rate=size ** float(instance["alpha"]))
    terms = []
    for child in seed.spawn(draws):
        rng = np.random.default_rng(child)
        step = one_step(setting, rng)
        w0, w1 = step.initial_weights, step.updated_weights()
        zeta = step.zeta
        mu = float(instance["similarity"]) * zeta / (zeta @ zeta)
        zero = np.zeros_like(mu)
        reference_m, control_m = _reference(instance, w0, w1 - w0, mu, zeta)
        if prediction == "reference":
            residual = _monte_carlo(sigma, w0, w1, [mu], rng, samples)[:, 0]
            terms.append((residual + control_m - reference_m) / reference_m)
        else:
            reference_zero, control_zero = _reference(instance, w0, w1 - w0, zero, zeta)
            values = _monte_carlo(sigma, w0, w1, [zero, mu], rng, samples)
            difference = (values[:, 1] + control_m) - (values[:, 0] + control_zero)
            terms.append((difference - (reference_m - reference_zero)) / reference_zero)
    return mean_estimate(np.concatenate(terms), method=(
        f"{draws} network draws at n = d = N = {size}, {samples} unseen samples each, pooled"
        + (", common random numbers in mu" if prediction != "reference" else "")))


def _elasticity_step_part(instance: Instance, w0, w1, zeta, mu) -> tuple[float, float]:
    """(Elasticity(mu) - Elasticity(0), each from the exact per-neuron law; (zeta^T mu)^2 sum_j t_j^2)."""
    sigma = instance["activation"]

    def squared_displacement(u, v):
        return (sigma(u + v) - sigma(u)) ** 2

    coherent, _ = coherent_and_bulk(w1 - w0, zeta)
    change = (np.sum(bivariate_expectation(squared_displacement, *neuron_laws(w0, w1 - w0, mu, zeta)))
              - np.sum(bivariate_expectation(squared_displacement, *neuron_laws(w0, w1 - w0, 0 * mu, zeta))))
    return float(change), float((zeta @ mu) ** 2 * np.sum(coherent**2))


def _class_mean_step_part(metric):
    """(Delta_mu M(W_1) - Delta_mu M(W_0) for a class-mean metric M, Delta_mu M = M(mu) - M(0);
    sum_j [(w_j(1)^T mu)^2 - (w_j(0)^T mu)^2], the same for the linear mean features w_j^T mu)."""
    def step_part(instance: Instance, w0, w1, zeta, mu) -> tuple[float, float]:
        sigma = instance["activation"]
        change = (metric(sigma, w1, mu) - metric(sigma, w1, 0 * mu)) - (metric(sigma, w0, mu) - metric(sigma, w0, 0 * mu))
        return change, float(np.sum((mu @ w1) ** 2 - (mu @ w0) ** 2))
    return step_part


COEFFICIENT_SIZES = (250, 500, 1000)


def leading_coefficient_observer(step_parts):
    """An observer of lim_n (a metric's mu-dependence) / (its leading-order scale): per size, the ratio's mean
    over network draws (each exact given the weights); then extrapolated in n^(2 alpha - 1)
    (`checkers.stats.extrapolate_limit`). `step_parts` maps prediction names to functions
    (instance, w0, w1, zeta, mu) -> (the metric's mu-dependence, its scale)."""
    def observe_coefficient(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
        step_part = step_parts[prediction]
        alpha, similarity = float(instance["alpha"]), float(instance["similarity"])
        sizes = COEFFICIENT_SIZES + ((2000,) if budget.level >= 4 else ())
        draws = 16 * 2 ** (budget.level // 3)
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
        if 1 - 2 * alpha < 0.05:
            raise Unresolved(f"at alpha = {alpha:g} the finite-size terms, of order n^(2 alpha - 1), do not vanish "
                             "across the sizes, so no limit can be extrapolated; ratios "
                             + ", ".join(f"{e.value:.4g} +- {e.standard_error:.2g}" for e in estimates))
        return extrapolate_limit(sizes, estimates, exponent=1 - 2 * alpha, method=(
            f"{draws} network draws at each n = d = N in {sizes}, exact in x given the weights; ratios "
            + ", ".join(f"{e.value:.4g} +- {e.standard_error:.2g}" for e in estimates)
            + f"; extrapolated as limit + B n^({2 * alpha - 1:.3g})"))
    return observe_coefficient


CHECKERS = [
    Checker(elasticity_reference.THEOREM, observe),
    Checker(elasticity_polynomial.THEOREM, leading_coefficient_observer({"leading-coefficient": _elasticity_step_part})),
    Checker(cohesion_separability.THEOREM, leading_coefficient_observer({
        "cohesion-coefficient": _class_mean_step_part(cohesion),
        "separability-coefficient": _class_mean_step_part(separability)})),
]
