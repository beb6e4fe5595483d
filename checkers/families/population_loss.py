"""Observing the population loss: RQMC over x ~ N(0, I_d) for the loss, dL/da_1 and dL/dw_1 along a fixed
direction; the closed form for the identity with the Hermite series."""

from __future__ import annotations

import math

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact
from checkers.qmc import rqmc_gaussian_mean
from theorems import population_loss
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


def observe(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    if prediction == "hermite-series":
        value = population_loss.population_loss(instance)
        return Exact(value, tolerance=float(mpmath.mpf(10) ** (-instance.digits + 3)),
                     method=f"closed form at {instance.digits} digits")
    a, weights, a_star, teacher = population_loss.configuration(
        instance["student_width"], instance["teacher_width"], instance["dimension"], instance["configuration"])
    debiased = instance["model"] == "debiased"
    student, target = _network(a, weights, debiased), _network(a_star, teacher, debiased)

    direction = population_loss.probe_direction(instance.parameters)
    first = weights[0]

    def integrand(x):
        f, features = student(x)
        residual = f - target(x)[0]
        if prediction == "monte-carlo":
            return 0.5 * residual**2
        if prediction == "gradient":
            return residual * features[:, 0]
        # d s(w.x)/dw along the direction: 1{w.x > 0} x.e (debiased: - w.e/(|w| sqrt(2 pi)) - x.e/2)
        projection = x @ direction
        slope = (x @ first > 0) * projection
        if debiased:
            slope = slope - first @ direction / (np.linalg.norm(first) * math.sqrt(2 * math.pi)) - projection / 2
        return residual * a[0] * slope

    return rqmc_gaussian_mean(integrand, instance["dimension"], budget.scaled(BASE_POINTS), REPLICATES, seed)


CHECKER = Checker(population_loss.THEOREM, observe)
