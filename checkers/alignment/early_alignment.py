"""Checker of early-alignment: Theorem 1 along one polar-form run from epsilon below its bound (28), from the
balanced start or (init = gaussian) from an unbalanced one (`checkers.alignment.unbalanced`)."""

from __future__ import annotations

import math

import numpy as np

from checkers.alignment.runs import (
    data,
    data_key,
    empirical_alignment_time,
    escape_end,
    fine_then_geometric,
    log_domain_weights,
    polar_run,
)
from checkers.alignment.unbalanced import unbalanced_run
from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured, Tightness
from theorems.alignment import early_alignment
from theorems.alignment.common import loss_values, region_codes
from theorems.alignment.early_alignment import constants_of
from theorems.errors import NumericalError
from theorems.statement import Instance

# The run goes on until alpha (t - t_escape) = FAR_RATE_TIME, so that final-rate reads the bound where its 1/t clause
# rules: there L(t2) alpha (t - t2) is about 10^4 L(t2), and the bound under 1% of L(t2) once L(t2) > 0.01 (on the
# reference data 0.6%; docs/derivations/alignment.md#early-alignment). The far part costs 400 grid times, and the
# adaptive solver's steps grow with t there.
FAR_RATE_TIME, FAR_POINTS = 1e4, 400


def _run(instance: Instance, budget: Budget):
    """The check's one run, from the instance's epsilon to well past the escape, and then far past it (`FAR_RATE_TIME`),
    and what every reader needs: with `signs` each neuron's sign(v_j) at every grid time (fixed from a balanced
    start)."""
    key, loss, log_epsilon = data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, directions, signs = data(key)
    constants = constants_of(instance)
    escaped = escape_end(x, y, log_epsilon, 40.0)
    far = np.geomspace(escaped, escaped + FAR_RATE_TIME / constants["alpha"], FAR_POINTS)[1:]
    times = fine_then_geometric(4.0, escaped, 8000 * 2 ** (budget.level // 2), extra=(constants["t1_bound"], *far))
    if instance["init"] == "gaussian":
        run = unbalanced_run(key, log_epsilon, loss, times, "gaussian")
        signs, start = run.signs(), f"an unbalanced start (|v_j|/||w_j|| = {_ratios(run.ratios[0])})"
    else:
        run, start = polar_run(key, log_epsilon, loss, times), "a balanced start"
        signs = np.broadcast_to(signs, run.log_norms.shape)
    aligned_at = empirical_alignment_time(run.times, run.directions, signs, x, y)
    method = f"polar flow from log epsilon {log_epsilon:g}, {start}, to t = {run.times[-1]:.5g}; empirical t1 = " \
             f"{aligned_at:.4g}, the theorem's t1 = {constants['t1_bound']:.5g}"
    return dict(run=run, x=x, y=y, directions=directions, signs=signs, constants=constants, aligned_at=aligned_at,
                method=method, codes=region_codes(run.directions, x, y), loss=loss, log_epsilon=log_epsilon)


def _ratios(values) -> str:
    return ", ".join(f"{abs(value):.2f}" for value in values)


def read_aligned_by_t1(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """Each neuron's region and sign(v_j) at the theorem's t1, and whether it activated a point of that sign's
    class at 0."""
    r = _run(instance, budget)
    y = r["y"]
    k = int(np.searchsorted(r["run"].times, r["constants"]["t1_bound"]))
    at, signs = r["codes"][k], np.asarray(r["signs"][k])
    activated_own = np.any((r["directions"] @ r["x"].T > 0) & ((y[None, :] * signs[:, None]) > 0), axis=1)
    return Measured({"regions": at, "signs": signs, "initial_signs": np.asarray(r["signs"][0]),
                     "activated_own": activated_own}, 0.0,
                    r["method"] + f"; regions at t1: {at.tolist()}, signs {signs.astype(int).tolist()}")


def read_alignment_time(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    r = _run(instance, budget)
    measured = {"aligned_at": r["aligned_at"], "t1_bound": r["constants"]["t1_bound"]}
    return Exact(observable(measured), 1e-12, r["method"],
                 tightness=Tightness(early_alignment.alignment_ratio(instance, measured),
                                     f"log epsilon = {r['log_epsilon']:g}"), witnesses={"the run": measured})


def read_stable_rank(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    r = _run(instance, budget)
    run = r["run"]
    scaled, top = log_domain_weights(run)
    singular = np.linalg.svd(scaled, compute_uv=False)
    after = run.times >= r["aligned_at"]
    frobenius, operator = np.sum(singular**2, axis=1)[after], singular[after, 0] ** 2
    width = run.log_norms.shape[1]
    extra = 4 * math.sqrt(width) * np.exp(2 * (r["log_epsilon"] - top[after])) * r["constants"]["w_max"] ** 2
    measured = {"operator": operator, "extra": extra, "frobenius": frobenius}
    ratios = frobenius / early_alignment.stable_rank_bound(instance, measured)
    at = int(np.argmax(ratios))
    return Exact(observable(measured), 1e-12,
                 r["method"] + f"; stable rank at most {np.max(frobenius / operator):.4f} after t1",
                 tightness=Tightness(float(ratios[at]), f"t = {run.times[after][at]:.6g}"),
                 witnesses={"the run": measured})


def read_final_rate(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    r = _run(instance, budget)
    run, x, y, codes = r["run"], r["x"], r["y"], r["codes"]
    losses = loss_values(r["loss"], y[None, :], run.outputs(x)).sum(axis=1)
    sub_outputs = {}
    for sign in (1, -1):
        chosen = (codes == sign)[..., None]
        outputs = np.einsum("thn,th->tn", np.maximum(run.weights @ x.T, 0.0) * chosen, run.output_weights)
        rows = outputs[:, (y > 0) if sign > 0 else (y < 0)]
        crossed = np.nonzero(np.max(np.abs(rows), axis=1) > 0.25)[0]
        if not len(crossed):
            raise NumericalError(f"the S{'+' if sign > 0 else '-'} sub-network never reached 1/4 within the run")
        sub_outputs[sign] = crossed[0]
    start = max(sub_outputs.values())
    measured = {"losses": losses[start:], "elapsed": run.times[start:] - run.times[start],
                "alpha": r["constants"]["alpha"]}
    bound = early_alignment.rate_bound(instance, measured)
    at = int(np.argmax(losses[start:] / bound))
    witness = f"t = {run.times[start + at]:.6g}" + (" (t = t2, equality by construction)" if at == 0 else "")
    return Exact(observable(measured), 1e-9,
                 r["method"] + f"; t2 = {run.times[start]:.6g}, L(t2) = {losses[start]:.4g}, L(end) = "
                 f"{losses[-1]:.3g}, the bound at the end {bound[-1] / losses[start]:.3g} of L(t2)",
                 tightness=Tightness(float(losses[start + at] / bound[at]), witness), witnesses={"the run": measured})


CHECKER = Checker(
    theorem=early_alignment.THEOREM,
    simulation="the polar-form flow (exact: balanced, or with the ratios v_j/||w_j|| from an unbalanced start)",
    readers={"aligned-by-t1": read_aligned_by_t1, "alignment-time": read_alignment_time,
             "final-rate": read_final_rate, "stable-rank": read_stable_rank},
    shared_draws=True,
    second_point={"configuration": "1", "log_epsilon": "-170000"},
)
