"""Checker of peak-alignment: local exponents of 1 - peak cos(w_j, x+) at eps = e^-7..e^-13."""

from __future__ import annotations

import numpy as np

from checkers.alignment.runs import data, data_key, polar_run
from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.convergence import settled_limit
from theorems.alignment import peak_alignment
from theorems.alignment.common import class_directions, region_codes
from theorems.errors import NumericalError
from theorems.statement import Instance

# the epsilons at which the flow is run (natural logarithms); the statement holds as epsilon -> 0
LOG_EPSILONS = (-7.0, -9.0, -11.0, -13.0)


def peak_gap(key: tuple, log_epsilon: float, loss: str, points: int) -> tuple[float, float]:
    """(1 - max_t min_{j in V+ ending in S+} cos(w_j, x+), its refinement error): on a coarse grid to the end
    of the escape, then on a fine grid around the coarse peak."""

    x, y, _, signs = data(key)
    positive, _ = class_directions(x, y)
    unit = positive / np.linalg.norm(positive)
    end = -log_epsilon / np.linalg.norm(positive) + 3.0

    def gaps(times):
        run = polar_run(key, log_epsilon, loss, tuple(times), rtol=1e-12)
        chosen = (signs > 0) & (region_codes(run.directions[-1], x, y) == 1)
        if not np.any(chosen):
            raise NumericalError("no V+ neuron ends in S+")
        return 1 - np.min(run.directions[:, chosen] @ unit, axis=1)

    coarse = np.linspace(0.0, end, points + 1)
    k = int(np.argmin(gaps(coarse)))
    fine = np.linspace(coarse[max(k - 1, 0)], coarse[min(k + 1, points)], points + 1)
    fine_gaps = gaps(np.concatenate([[0.0], fine]))[1:]
    best = float(np.min(fine_gaps))
    # between fine grid points the gap is quadratic: its minimum moves by at most the local second difference
    j = int(np.argmin(fine_gaps))
    curvature = abs(fine_gaps[max(j - 1, 0)] - 2 * fine_gaps[j] + fine_gaps[min(j + 1, points)])
    return best, float(curvature)


def read_exponent(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    key, loss = data_key(instance), instance["loss"]
    points = 2000 * 2 ** (budget.level // 2)
    results = [peak_gap(key, e, loss, points) for e in LOG_EPSILONS]
    gaps = np.array([gap for gap, _ in results])
    if np.any(gaps <= 0):
        raise NumericalError("the gap reached round-off: use larger epsilons")
    logs = np.array(LOG_EPSILONS)
    # local exponents between neighbouring epsilons converge as epsilon -> 0: the last is the observation, with
    # the geometric-tail bound of its last changes (the model checked), on the floor of the peak's refinement
    local = np.diff(np.log(gaps)) / np.diff(logs)
    refinement = 2 * max(error / gap for gap, error in results) / float(np.min(np.abs(np.diff(logs))))
    value, accuracy = settled_limit(*local[-3:], floor=refinement, what="the local exponent")
    return Exact(value, accuracy,
                 f"polar flow at log epsilon {LOG_EPSILONS}, rtol 1e-12; gaps "
                 + ", ".join(f"{g:.3e}" for g in gaps)
                 + "; local exponents " + ", ".join(f"{e:.4f}" for e in local))


CHECKER = Checker(
    theorem=peak_alignment.THEOREM,
    simulation="local exponents at eps = e^-7..e^-13",
    readers={"exponent": read_exponent},
    second_point={"configuration": "1"},
)
