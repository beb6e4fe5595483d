"""Checker of alignment-time-flat: the empirical t1 at four small epsilons (its slope), and at three moderate ones
(the order of its epsilon correction), on a 5e-4 grid (halved at default fidelity; halved again, up to twice, where
the grid bounds the order less tightly than its resolution)."""

from __future__ import annotations

import math

import numpy as np

from checkers.alignment.runs import data, data_key, empirical_alignment_time, polar_run
from checkers.budget import Budget
from checkers.checker import Checker, Exact, Unresolved
from theorems.alignment import alignment_time_flat
from theorems.alignment.alignment_time_flat import ORDER_LOG_EPSILONS
from theorems.errors import NumericalError
from theorems.statement import Instance

# the epsilons at which the flow is run (natural logarithms); the statement holds as epsilon -> 0
LOG_EPSILONS = (-14.0, -28.0, -56.0, -112.0)
# Further halvings of the grid the order's reader takes while the grid's bound on the order exceeds the order's
# resolution. How far t1 still moves between log epsilon -3 and -4 depends on the data (0.0105 on the default data,
# 0.00075 on configuration 1 with the logistic loss, where default's grid bounds the order only to 0.44).
ORDER_REFINEMENTS = 2


def _alignment_times(instance: Instance, budget: Budget, log_epsilons,
                     refinement: int = 0) -> tuple[list[float], float]:
    key, loss = data_key(instance), instance["loss"]
    x, y, _, signs = data(key)
    spacing = 5e-4 / 2 ** (budget.level // 2 + refinement)
    times = np.arange(0.0, 4.0 + spacing / 2, spacing)
    alignment_times = []
    for log_epsilon in log_epsilons:
        try:
            alignment_times.append(empirical_alignment_time(
                times, polar_run(key, log_epsilon, loss, tuple(times)).directions, signs, x, y))
        except NumericalError as error:
            raise NumericalError(f"at log epsilon {log_epsilon:g}: {error} (t = {times[-1]:g})") from None
    return alignment_times, spacing


def read_correction_order(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    """p in t1(eps) - t1(0) ~ eps^p from three epsilons a unit of log apart: the log of the ratio of successive
    changes of t1. Each t1 is a grid time, within one spacing s of the true crossing, so each change is within s
    of its true value, and p lies in [ln((a - s)/(b + s)), ln((a + s)/(b - s))] for changes a > b > s. The grid is
    halved (at most ORDER_REFINEMENTS times) while that bound is wider than the order's resolution: the bound is
    rigorous at every spacing, so refining it adds no chance of a false fail."""
    resolution = instance.theorem.prediction("correction-order").resolution(instance)
    for refinement in range(ORDER_REFINEMENTS + 1):
        try:
            times, spacing = _alignment_times(instance, budget, ORDER_LOG_EPSILONS, refinement)
        except NumericalError as error:  # e.g. configuration 3, logistic loss: no alignment at log epsilon -2, -3
            raise Unresolved(f"{error}: these moderate epsilons are not yet small initializations for these data, "
                             "so the correction's order cannot be read at them") from None
        larger, smaller = abs(times[0] - times[1]), abs(times[1] - times[2])
        if smaller <= 2 * spacing:
            accuracy = math.inf
            continue
        order = float(np.log(larger / smaller))
        low, high = np.log((larger - spacing) / (smaller + spacing)), np.log((larger + spacing) / (smaller - spacing))
        accuracy = float(max(order - low, high - order))
        if accuracy <= resolution:
            break
    if not math.isfinite(accuracy):
        raise Unresolved(f"t1 moves by {smaller:.3g} between log epsilon {ORDER_LOG_EPSILONS[1]:g} and "
                         f"{ORDER_LOG_EPSILONS[2]:g}, within two grid spacings ({spacing:g})")
    return Exact(order, accuracy,
                 f"t1 = {', '.join(f'{t:.5f}' for t in times)} at log epsilon {ORDER_LOG_EPSILONS} (grid {spacing:g}); "
                 "accuracy from the grid's bound on each t1")


def read_flat(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    alignment_times, spacing = _alignment_times(instance, budget, LOG_EPSILONS)
    logs = -np.array(LOG_EPSILONS)
    slope = float(np.polyfit(logs, alignment_times, 1)[0])
    return Exact(slope, 2 * spacing / (logs[-1] - logs[0]), f"polar flow at log epsilon {LOG_EPSILONS}; t1 = "
                 + ", ".join(f"{t:.4f}" for t in alignment_times) + f" (grid {spacing:g})")


CHECKER = Checker(
    theorem=alignment_time_flat.THEOREM,
    simulation="t1 on a 5e-4 grid at four small epsilons (slope) and three moderate ones (order of the correction)",
    readers={"flat": read_flat, "correction-order": read_correction_order},
    second_point={"configuration": "1", "loss": "logistic"},
)
