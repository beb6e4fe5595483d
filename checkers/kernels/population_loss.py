"""Checker of population-loss: RQMC over x ~ N(0, I_d) for the loss, dL/da_1 and dL/dw_1 along a fixed
direction; the closed form for the identity with the Hermite series."""

from __future__ import annotations

import math

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.qmc import rqmc_gaussian_mean
from theorems.kernels import population_loss
from theorems.statement import Instance

BASE_POINTS = 2**12
REPLICATES = 16


def _network(coefficients, weights, debiased: bool):
    norms = np.linalg.norm(weights, axis=1)

    def evaluate(x):
        preactivations = x @ weights.T
        features = np.maximum(preactivations, 0)
        if debiased:  # relu(w.x) - ||w||/sqrt(2 pi) - w.x/2
            features = features - norms / math.sqrt(2 * math.pi) - preactivations / 2
        return features @ coefficients, features

    return evaluate


def read_hermite_series(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    value = population_loss.population_loss(instance)
    return Exact(value, tolerance=float(mpmath.mpf(10) ** (-instance.digits + 3)),
                 method=f"closed form at {instance.digits} digits")


def _rqmc_reader(integrand_of):
    """A reader: RQMC of `integrand_of(residual, features, x, setting)` over x ~ N(0, I_d)."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
        a, weights, a_star, teacher = population_loss.configuration(
            instance["student_width"], instance["teacher_width"], instance["dimension"], instance["configuration"])
        debiased = instance["model"] == "debiased"
        student, target = _network(a, weights, debiased), _network(a_star, teacher, debiased)
        setting = dict(a=a, first=weights[0], debiased=debiased,
                       direction=population_loss.probe_direction(instance.parameters))

        def integrand(x):
            f, features = student(x)
            return integrand_of(f - target(x)[0], features, x, setting)
        return rqmc_gaussian_mean(integrand, instance["dimension"], budget.scaled(BASE_POINTS), REPLICATES, seed)
    return read


def _loss(residual, features, x, setting):
    return 0.5 * residual**2


def _second_layer_gradient(residual, features, x, setting):
    return residual * features[:, 0]


def _neuron_gradient(residual, features, x, setting):
    # d s(w.x)/dw along the direction: 1{w.x > 0} x.e (debiased: - w.e/(|w| sqrt(2 pi)) - x.e/2)
    first, direction = setting["first"], setting["direction"]
    projection = x @ direction
    slope = (x @ first > 0) * projection
    if setting["debiased"]:
        slope = slope - first @ direction / (np.linalg.norm(first) * math.sqrt(2 * math.pi)) - projection / 2
    return residual * setting["a"][0] * slope


CHECKER = Checker(
    theorem=population_loss.THEOREM,
    simulation="RQMC of the loss and of dL/da_1 and dL/dw_1 over x ~ N(0, I_d); the Hermite series with its tail bound",
    readers={"monte-carlo": _rqmc_reader(_loss), "gradient": _rqmc_reader(_second_layer_gradient),
             "neuron-gradient": _rqmc_reader(_neuron_gradient), "hermite-series": read_hermite_series},
    second_point={"model": "debiased", "student_width": "5", "teacher_width": "3", "dimension": "10"},
    calibration_seeds=200,
)
