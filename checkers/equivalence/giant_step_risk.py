"""Checker of giant-step-risk: one giant step and a ridge readout in Cui et al.'s conventions, at three sizes,
against Result 3.3 in the limit and on each draw's own first layer.

Per draw (`_simulated`): the step (`checkers.equivalence.spiked_features.spiked_step`), the readout on
n = alpha p fresh samples with noisy labels, its training error, and its test error against the noiseless
teacher: exact given the readout for erf features and an erf teacher (`checkers.equivalence.exact_risk`), else
on TEST_SAMPLES fresh inputs; beside them what Result 3.3 reads off W_1 (r, c, gamma and Omega's spectrum). Each
reading is averaged per size and extrapolated as L + B/d by weighted least squares, after a chi-square check of
that model on the three sizes (rejected at the 1e-3 level: the reading is unresolved).
"""

from __future__ import annotations

import math

import numpy as np

from checkers.check import Budget, Checker
from checkers.convergence import checked_extrapolation
from checkers.equivalence.exact_risk import erf_feature_moments, readout_risk
from checkers.equivalence.ridge import fit_ridge
from checkers.equivalence.spiked_features import spiked_step
from checkers.equivalence.srf_constants import expected_direction_energy
from checkers.shared_draws import cached
from checkers.stats import Estimate, control_variate_estimate, mean_estimate
from theorems.equivalence import giant_step_risk
from theorems.equivalence.giant_step_oracle import realized_errors, realized_features
from theorems.statement import Instance

SIZES = (100, 200, 400)
# Draws per size at budget level 0, doubled per level. Measured per-draw s.d. (tanh/tanh defaults, after the
# control variates) 12%, 8%, 5% of the test error and 7.7%, 5.1%, 3.5% of the realized gap, at 0.05, 0.09 and
# 0.24 s a draw: this allocation gives the three sizes about equal standard errors (2.1%, 2.0%, 1.8% of the test
# error at level 0). More draws do not make this check pass more often: the simulated test error sits about 2.5%
# above the limit at every size (half a resolution), and 12 draws at d = 400 made default fidelity reject it on 3
# seeds of 14 (README, "Reading the table"; the limit is the equivalence family's open question).
DRAWS = {100: 32, 200: 16, 400: 8}
TEST_SAMPLES = 10_000


@cached(maxsize=4096)
def _simulated(parameters: tuple, dimension: int, entropy, spawn_key):
    """One draw: (test error, training error, W_1's realized features, n, (||Z^T y/n_0||^2, <Z^T y/n_0, theta>)).
    It reads none of the statement's
    constants, so a mutant reuses it and recomputes only Result 3.3 on its features."""
    instance = giant_step_risk.THEOREM.instance(dict(parameters))
    sigma, teacher, noise = instance["activation"], instance["teacher"], float(instance["noise"])
    width = max(1, round(float(instance["width_ratio"]) * dimension))
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=spawn_key))
    step = spiked_step(dimension, width, float(instance["alpha0"]), float(instance["eta"]), sigma, teacher, noise, rng)
    weights, theta = step.updated_weights, step.teacher
    samples = max(2, round(float(instance["sample_ratio"]) * width))
    x = rng.standard_normal((samples, dimension))
    y = teacher(x @ theta) + noise * rng.standard_normal(samples)
    features = sigma(x @ weights.T) / math.sqrt(width)
    # Cui's ||y - X a/sqrt(p)||^2 + lambda_C ||a||^2 is the Ba-normalized ridge at lambda_Ba = lambda_C p/n
    readout = fit_ridge(features, y, float(instance["penalty"]) * width / samples)
    train = float(np.mean((y - features @ readout) ** 2))
    if sigma.name == "erf" and teacher.name == "erf":
        test = readout_risk(readout, *erf_feature_moments(weights.T, theta))
    else:
        x = rng.standard_normal((TEST_SAMPLES, dimension))
        test = float(np.mean((teacher(x @ theta) - sigma(x @ weights.T) @ readout / math.sqrt(width)) ** 2))
    return (test, train, realized_features(weights, step.direction, theta), samples,
            (step.direction_energy(), step.teacher_projection()))


def _draws(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    parameters = tuple(sorted(instance.describe_parameters().items()))
    factor = 2 ** budget.level
    return {dimension: [_simulated(parameters, dimension, child.entropy, child.spawn_key)
                        for child in size_seed.spawn(DRAWS[dimension] * factor)]
            for dimension, size_seed in zip(SIZES, seed.spawn(len(SIZES)))}


def _read_error(column: int, what: str):
    """The mean of column 0 (test error) or 1 (training error) per size, with the control variates
    ||Z^T y/n_0||^2 and <Z^T y/n_0, theta> of the step, whose finite-size means are exact (they carry much of
    the spike's draw-to-draw spread, and with it a third of the errors' spread)."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
        teacher, noise = instance["teacher"], float(instance["noise"])
        estimates = []
        for dimension, draws in _draws(instance, budget, seed).items():
            means = expected_direction_energy(teacher, noise, dimension,
                                              max(1, round(float(instance["alpha0"]) * dimension)))
            controls = np.array([draw[4] for draw in draws]) - np.array(means)
            estimates.append(control_variate_estimate(np.array([draw[column] for draw in draws]), controls))
        return checked_extrapolation(SIZES, estimates, exponent=1.0,
                                     what=what + " (control variates ||Z^T y/n_0||^2, <Z^T y/n_0, theta>)")
    return read


def read_realized_gap(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
    sigma, teacher = instance["activation"], instance["teacher"]
    ridge, noise = float(instance.constant("solver_penalty")), float(instance.constant("readout_noise"))
    test_noise = float(instance.constant("test_noise"))
    estimates = []
    for draws in _draws(instance, budget, seed).values():
        estimates.append(mean_estimate(np.array([
            test / (realized_errors(sigma, teacher, features, sample_ratio=samples / len(features.spectrum.eigenvalues),
                                    ridge=ridge, noise=noise).test_error + test_noise) - 1
            for test, _, features, samples, _ in draws])))
    return checked_extrapolation(SIZES, estimates, exponent=1.0,
                                 what="test error / Result 3.3 on the draw's W_1 - 1, paired")


CHECKER = Checker(
    theorem=giant_step_risk.THEOREM,
    simulation="one giant step and a ridge readout at d = 100, 200, 400 (p = (p/d) d), against Result 3.3 in the "
               "limit and on each draw's W_1, extrapolated in 1/d",
    readers={"test-error": _read_error(0, "simulated test error"),
             "train-error": _read_error(1, "simulated training error"),
             "realized-test-error": read_realized_gap},
    shared_draws=True,
)
