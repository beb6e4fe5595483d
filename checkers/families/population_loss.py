"""Observing the population loss: RQMC over x ~ N(0, I_d) for the loss and dL/da_1; the closed form for
the identity with the Hermite series."""

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

    def integrand(x):
        f, features = student(x)
        residual = f - target(x)[0]
        return 0.5 * residual**2 if prediction == "monte-carlo" else residual * features[:, 0]

    return rqmc_gaussian_mean(integrand, instance["dimension"], budget.scaled(BASE_POINTS), REPLICATES, seed)


CHECKER = Checker(population_loss.THEOREM, observe)
