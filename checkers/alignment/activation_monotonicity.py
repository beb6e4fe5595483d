"""Checker of activation-monotonicity: activation switches counted on a fine grid of one run through fitting."""

from __future__ import annotations

import numpy as np

from checkers.alignment.runs import data, data_key, empirical_alignment_time, escape_end, fine_then_geometric, polar_run
from checkers.check import Budget, Checker, Exact
from theorems.alignment import activation_monotonicity
from theorems.alignment.common import activation_pattern, region_codes
from theorems.statement import Instance


def switch_counts(patterns, signs, y, times, until: float, own_class_gains_allowed: bool) -> int:
    """Activation switches against (7)/(8) on the grid up to `until`: a neuron losing a point of its own class
    (y_i s_j > 0) or gaining one of the other class; optionally also gaining one of its own class."""
    stop = max(int(np.searchsorted(times, until, side="right")), 1)  # an empty window (T <= 0) has no switches
    before, after = patterns[: stop - 1], patterns[1:stop]
    own = (y[None, :] * signs[:, None]) > 0  # (h, n)
    lost_own = before & ~after & own
    gained_other = ~before & after & ~own
    count = int(lost_own.sum() + gained_other.sum())
    if not own_class_gains_allowed:
        count += int((~before & after & own).sum())
    return count


def _run(instance: Instance, budget: Budget):
    key, loss, log_epsilon = data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, directions, signs = data(key)
    window = float(instance.constant("window"))
    times = fine_then_geometric(max(4.0, window), escape_end(x, y, log_epsilon, 10.0), 8000 * 2 ** (budget.level // 2))
    return polar_run(key, log_epsilon, loss, times), x, y, signs, window


def read_keeps_own_class(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    run, x, y, signs, window = _run(instance, budget)
    patterns = activation_pattern(run.directions, x)
    count = switch_counts(patterns, signs, y, run.times, window, instance.definition("own_class_gains_allowed"))
    return Exact(count, 0.0, f"polar flow, log epsilon {float(instance['log_epsilon']):g}, {len(run.times)} grid "
                 f"times; switches counted for t <= T = {window:.4g}")


def read_trapped_after_alignment(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    run, x, y, signs, window = _run(instance, budget)
    log_epsilon = float(instance["log_epsilon"])
    codes = region_codes(run.directions, x, y)
    start = 0 if instance.definition("trapped_from") == "start" else int(np.searchsorted(
        run.times, empirical_alignment_time(run.times, run.directions, signs, x, y)))
    changes = int(np.sum(codes[start + 1:] != codes[start:-1]))
    return Exact(changes, 0.0, f"polar flow, log epsilon {log_epsilon:g}, to t = {run.times[-1]:.4g} (through "
                               f"fitting); "
                 f"region changes counted from t = {run.times[start]:.4g}")


CHECKER = Checker(
    theorem=activation_monotonicity.THEOREM,
    simulation="switches counted on a fine grid of one run through fitting",
    readers={"keeps-own-class": read_keeps_own_class, "trapped-after-alignment": read_trapped_after_alignment},
    shared_draws=True,
)
