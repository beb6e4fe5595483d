"""Checker of alignment-time-flat: the empirical t1 at four epsilons, on a 5e-4 grid."""

from __future__ import annotations

import numpy as np

from checkers.alignment.runs import data, data_key, empirical_alignment_time, polar_run
from checkers.check import Budget, Checker, Exact
from theorems.alignment import alignment_time_flat
from theorems.statement import Instance

# the epsilons at which the flow is run (natural logarithms); the statement holds as epsilon -> 0
LOG_EPSILONS = (-14.0, -28.0, -56.0, -112.0)


def read_flat(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    key, loss = data_key(instance), instance["loss"]
    x, y, _, signs = data(key)
    spacing = 5e-4 / 2 ** (budget.level // 2)
    times = np.arange(0.0, 4.0 + spacing / 2, spacing)
    alignment_times = [empirical_alignment_time(times, polar_run(key, e, loss, tuple(times)).directions, signs, x, y)
                       for e in LOG_EPSILONS]
    logs = -np.array(LOG_EPSILONS)
    slope = float(np.polyfit(logs, alignment_times, 1)[0])
    return Exact(slope, 2 * spacing / (logs[-1] - logs[0]), f"polar flow at log epsilon "
                                                            f"{LOG_EPSILONS}; t1 = "
                 + ", ".join(f"{t:.4f}" for t in alignment_times) + f" (grid {spacing:g})")


CHECKER = Checker(
    theorem=alignment_time_flat.THEOREM,
    simulation="four epsilons, t1 on a 5e-4 grid",
    readers={"flat": read_flat},
)
