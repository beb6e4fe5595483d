"""Checker of activation-monotonicity: activation switches counted on a fine grid of one run through fitting, each
confirmed at the solver's own step ends."""

from __future__ import annotations

import numpy as np

from checkers.alignment.runs import (
    data,
    data_key,
    describe_confirmation,
    empirical_alignment_time,
    escape_end,
    fine_then_geometric,
    polar_run,
    switches_at_step_ends,
)
from checkers.budget import Budget
from checkers.checker import Checker, Measured
from theorems.alignment import activation_monotonicity
from theorems.alignment.common import activation_pattern, region_codes
from theorems.statement import Instance


def forbidden_switches(patterns, signs, y, times, until: float, own_class_gains_allowed: bool) -> np.ndarray:
    """The grid's switches against (7)/(8) up to `until`, as a mask (T - 1, h, n): a neuron losing a point of its
    own class (y_i s_j > 0) or gaining one of the other class; optionally also gaining one of its own class."""
    stop = max(int(np.searchsorted(times, until, side="right")), 1)  # an empty window (T <= 0) has no switches
    before, after = patterns[:-1], patterns[1:]
    own = (y[None, :] * signs[:, None]) > 0  # (h, n)
    forbidden = (before & ~after & own) | (~before & after & ~own)
    if not own_class_gains_allowed:
        forbidden |= ~before & after & own
    forbidden[stop - 1:] = False
    return forbidden


def _run(instance: Instance, budget: Budget):
    key, loss, log_epsilon = data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, directions, signs = data(key)
    window = float(instance.constant("window"))
    times = fine_then_geometric(max(4.0, window), escape_end(x, y, log_epsilon, 10.0), 8000 * 2 ** (budget.level // 2))
    return polar_run(key, log_epsilon, loss, times), x, y, signs, window


def read_keeps_own_class(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """The switches against (7)/(8) for t <= T, and apart the own-class gains (7) allows, each counted where it holds
    at the solver's own step ends (the grid is read off the dense output, which can wiggle across a switch)."""
    run, x, y, signs, window = _run(instance, budget)
    patterns = activation_pattern(run.directions, x)
    forbidden = forbidden_switches(patterns, signs, y, run.times, window, own_class_gains_allowed=True)
    own_gains = forbidden_switches(patterns, signs, y, run.times, window, own_class_gains_allowed=False) & ~forbidden
    confirm = lambda events: switches_at_step_ends(  # noqa: E731
        data_key(instance), float(instance["log_epsilon"]), instance["loss"], run.times, patterns, x, events)
    (count, on_grid), (gained, gains_on_grid) = confirm(forbidden), confirm(own_gains)
    return Measured({"forbidden": count, "own gained": gained}, 0.0,
                    f"polar flow, log epsilon {float(instance['log_epsilon']):g}, {len(run.times)} grid times; "
                    f"switches counted for t <= T = {window:.4g}: {describe_confirmation(on_grid, count)}; own-class "
                    f"gains: {describe_confirmation(gains_on_grid, gained)}")


def read_trapped_after_alignment(instance: Instance, budget: Budget, seed: np.random.SeedSequence,
                                 observable) -> Measured:
    """Region changes through fitting, counted from the empirical t1 and from t = 0. A region changes only through a
    switch of one of its neuron's indicators: those switches, confirmed at the solver's step ends."""
    run, x, y, signs, window = _run(instance, budget)
    log_epsilon = float(instance["log_epsilon"])
    patterns = activation_pattern(run.directions, x)
    codes = region_codes(run.directions, x, y)
    aligned = int(np.searchsorted(run.times, empirical_alignment_time(run.times, run.directions, signs, x, y)))
    counts = {}
    for name, start in (("from t1", aligned), ("from start", 0)):
        moved = codes[1:] != codes[:-1]  # (T - 1, h)
        moved[:start] = False
        switched = (patterns[1:] != patterns[:-1]) & moved[..., None]
        counts[name] = switches_at_step_ends(data_key(instance), log_epsilon, instance["loss"], run.times, patterns,
                                             x, switched)
    described = "; ".join(f"from t = {run.times[start]:.4g}: {describe_confirmation(counts[name][1], counts[name][0])}"
                          for name, start in (("from t1", aligned), ("from start", 0)))
    return Measured({name: count for name, (count, _) in counts.items()}, 0.0,
                    f"polar flow, log epsilon {log_epsilon:g}, to t = {run.times[-1]:.4g} (through fitting); region "
                    f"changes, through the switches that make them, {described}")


CHECKER = Checker(
    theorem=activation_monotonicity.THEOREM,
    simulation="switches counted on a fine grid of one run through fitting",
    readers={"keeps-own-class": read_keeps_own_class, "trapped-after-alignment": read_trapped_after_alignment},
    shared_draws=True,
    second_point={"configuration": "1", "loss": "logistic"},
)
