"""Checker of dead-class: one polar-form run from early-alignment's start with every V+ neuron moved into the dead
cone, read to far past the escape (early-alignment's horizon)."""

from __future__ import annotations

import numpy as np

from checkers.alignment.early_alignment import FAR_POINTS, FAR_RATE_TIME
from checkers.alignment.gradient_flow import balanced_start, polar_flow
from checkers.alignment.runs import absolute_tolerance, escape_end, fine_then_geometric, solve
from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured, Tightness
from checkers.shared_draws import cached
from theorems.alignment import dead_class
from theorems.alignment.common import instance_data, loss_values
from theorems.alignment.early_alignment import constants_of, rate_bound
from theorems.errors import NumericalError
from theorems.statement import Instance

RTOL = 1e-11


@cached(maxsize=8)
def _flow(parameters: tuple, level: int):
    instance = dead_class.THEOREM.instance(dict(parameters))
    x, y, _, signs = instance_data(instance)
    log_epsilon, constants = float(instance["log_epsilon"]), constants_of(instance)
    escaped = escape_end(x, y, log_epsilon, 40.0)
    far = np.geomspace(escaped, escaped + FAR_RATE_TIME / constants["alpha"], FAR_POINTS)[1:]
    times = fine_then_geometric(4.0, escaped, 8000 * 2 ** (level // 2), extra=tuple(far))
    u, r, s = balanced_start(dead_class.dead_start(instance), signs, log_epsilon)
    run = solve(polar_flow, x, y, u, r, s, instance["loss"], np.array(times), rtol=RTOL, atol=absolute_tolerance(RTOL))
    return run, u, r, s


def _run(instance: Instance, budget: Budget):
    run, u, r, s = _flow(tuple(sorted(instance.describe_parameters().items())), budget.level)
    x, y, _, _ = instance_data(instance)
    outputs = run.outputs(x)
    losses = loss_values(instance["loss"], y[None, :], outputs)
    live = s > 0
    moved = float(np.max(np.abs(run.directions[:, live] - u[live])) + np.max(np.abs(run.log_norms[:, live] - r[live])))
    method = (f"polar flow from log epsilon {float(instance['log_epsilon']):g}, {int(live.sum())} V+ neurons in the "
              f"dead cone (moved by {moved:.2g} over the run), to t = {run.times[-1]:.5g}")
    return run, x, y, outputs, losses, method


def read_plateau(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """L_+ at the end of the run, and the last time a positive output was not 0."""
    run, _, y, outputs, losses, method = _run(instance, budget)
    positive = y > 0
    nonzero = np.nonzero(np.any(outputs[:, positive] != 0, axis=1))[0]
    last = f"t = {run.times[nonzero[-1]]:.5g}" if len(nonzero) else "never"
    positive_loss, negative_loss = float(losses[-1, positive].sum()), float(losses[-1, ~positive].sum())
    return Measured({"positive_loss": positive_loss}, 0.0,
                    method + f"; a positive output last non-zero at {last}; L_+(end) = {positive_loss:.12g}, "
                             f"L_-(end) = {negative_loss:.3g}")


def read_negatives(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """L_- from t2-, the first time the S- sub-network's output exceeds 1/4 in size on a negative point."""
    run, x, y, outputs, losses, method = _run(instance, budget)
    negative = y < 0
    crossed = np.nonzero(np.max(np.abs(outputs[:, negative]), axis=1) > 0.25)[0]
    if not len(crossed):
        raise NumericalError("the S- sub-network never reached 1/4 within the run")
    start = crossed[0]
    negative_losses = losses[start:, negative].sum(axis=1)
    measured = {"losses": negative_losses, "elapsed": run.times[start:] - run.times[start],
                "alpha": constants_of(instance)["alpha"]}
    bound = rate_bound(instance, measured)
    at = int(np.argmax(negative_losses / bound))
    return Exact(observable(measured), 1e-9,
                 method + f"; t2- = {run.times[start]:.6g}, L_-(t2-) = {negative_losses[0]:.4g}, L_-(end) = "
                          f"{negative_losses[-1]:.3g}",
                 tightness=Tightness(float(negative_losses[at] / bound[at]), f"t = {run.times[start + at]:.6g}"),
                 witnesses={"the run": measured})


CHECKER = Checker(
    theorem=dead_class.THEOREM,
    simulation="the polar-form flow from early-alignment's start with the V+ neurons in the dead cone",
    readers={"plateau": read_plateau, "negatives-fitted": read_negatives},
    shared_draws=True,
    second_point={"configuration": "1", "log_epsilon": "-170000"},
)
