"""Checker of orthogonal-frozen: activation indicators and inner products on a fine grid of one run."""

from __future__ import annotations

import numpy as np

from checkers.alignment.runs import data, data_key, describe_confirmation, escape_end, polar_run, switches_at_step_ends
from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured
from theorems.alignment import orthogonal_frozen
from theorems.alignment.common import activation_pattern
from theorems.statement import Instance

RTOL = 1e-11  # the run's relative tolerance


def _run(instance: Instance, budget: Budget):
    key, loss, log_epsilon = data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, _, _ = data(key)
    points = 4000 * 2 ** (budget.level // 2)
    times = tuple(np.linspace(0.0, escape_end(x, y, log_epsilon, 15.0), points + 1))
    run = polar_run(key, log_epsilon, loss, times, RTOL)
    method = f"polar flow, {instance['data']} data, log epsilon {log_epsilon:g}, to t = {times[-1]:.4g}"
    return run, x, activation_pattern(run.directions, x), method


def read_no_activation_gained(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    run, x, patterns, method = _run(instance, budget)
    # the grid is read off the dense output, which can wiggle across a switch: a gain counts where it holds at
    # the solver's own step ends
    gained = ~patterns[:-1] & patterns[1:]
    confirmed, on_grid = switches_at_step_ends(data_key(instance), float(instance["log_epsilon"]), instance["loss"],
                                               run.times, patterns, x, gained, RTOL)
    lost = int(np.sum(patterns[:-1] & ~patterns[1:]))
    return Measured({"gained": confirmed, "lost": lost}, 0.0,
                    method + f"; switches on: {describe_confirmation(on_grid, confirmed)}; {lost} off")


def read_inactive_frozen(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    run, x, patterns, method = _run(instance, budget)
    # <w_j, x_k> / (max_t ||w_j|| ||x_k||), formed in the log domain: at log epsilon = -1000 both e^r_j and the
    # products underflow to 0, and 0/0 left those neurons out of the maximum below
    relative_norms = np.exp(run.log_norms - np.max(run.log_norms, axis=0))  # (T, h)
    products = (run.directions @ x.T) * relative_norms[..., None] / np.linalg.norm(x, axis=1)
    inactive = ~patterns
    # a stretch of inactivity starts where the indicator is off and was on (or at t = 0)
    starts = inactive & np.concatenate([np.ones_like(inactive[:1]), ~inactive[:-1]], axis=0)
    anchor = np.where(starts, products, np.nan)
    for k in range(1, len(anchor)):  # carry the value at the start of each stretch forward (times only)
        anchor[k] = np.where(inactive[k] & ~starts[k], anchor[k - 1], anchor[k])
    change = np.where(inactive, np.abs(products - anchor), 0.0)
    return Exact(float(np.max(change)), 1e-8, method + "; tolerance 1e-8 (solver, rtol 1e-11)")


CHECKER = Checker(
    theorem=orthogonal_frozen.THEOREM,
    simulation="indicators and inner products on a fine grid",
    readers={"no-activation-gained": read_no_activation_gained, "inactive-frozen": read_inactive_frozen},
    shared_draws=True,
    second_point={"configuration": "1", "loss": "exponential"},
)
