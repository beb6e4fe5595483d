"""Checker of escape-time: each class's loss half-time at four epsilons down to e^-160, slope against log(1/eps)."""

from __future__ import annotations

import numpy as np

from checkers.alignment.runs import class_norms, data, data_key, half_time, polar_run
from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.convergence import settled_limit
from theorems.alignment import escape_time
from theorems.statement import Instance

# the epsilons at which the flow is run (natural logarithms); the statement holds as epsilon -> 0
LOG_EPSILONS = (-20.0, -40.0, -80.0, -160.0)


def _read(*, positive: bool):
    """A reader of the slope of one class's loss half-time against log(1/epsilon), times that class's ||x||."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
        return _slope(instance, budget, positive=positive)
    return read


def _slope(instance: Instance, budget: Budget, *, positive: bool) -> Exact:
    key, loss = data_key(instance), instance["loss"]
    x, y, _, _ = data(key)
    positive_norm, negative_norm = class_norms(x, y)
    norm, rows = (positive_norm, y > 0) if positive else (negative_norm, y < 0)
    points = 20000 * 2 ** (budget.level // 2)
    halves, spacing = [], 0.0
    for log_epsilon in LOG_EPSILONS:
        end = -log_epsilon / min(positive_norm, negative_norm) + 5.0
        times = np.linspace(0.0, end, points + 1)
        run = polar_run(key, log_epsilon, loss, tuple(times))
        halves.append(half_time(run.times, run.losses(x, y, loss)[:, rows].sum(axis=1)))
        spacing = max(spacing, end / points)
    logs = -np.array(LOG_EPSILONS)
    # the slopes between neighbouring epsilons converge as epsilon -> 0; each half-time is exact to the grid
    # spacing (the crossing lies in its grid interval), so a slope over a step Delta L is exact to 2 spacing/Delta L
    local = np.diff(np.array(halves)) / np.diff(logs) * norm
    floor = 2 * spacing / float(np.min(np.diff(logs))) * norm
    value, accuracy = settled_limit(*local[-3:], floor=floor, what="the slope of t_half")
    return Exact(value, accuracy, f"polar flow at log epsilon {LOG_EPSILONS}; t_half = "
                 + ", ".join(f"{t:.4f}" for t in halves) + f"; ||x|| = {norm:.5g}; local slopes x ||x|| "
                 + ", ".join(f"{v:.7f}" for v in local))


CHECKER = Checker(
    theorem=escape_time.THEOREM,
    simulation="four epsilons down to e^-160; slope times ||x+-|| = 1 to 1e-7",
    readers={"positive-class": _read(positive=True), "negative-class": _read(positive=False)},
    shared_draws=True,
    second_point={"configuration": "1", "loss": "logistic"},
)
