"""Checker of local-recovery: staged GD on the exact regularized population loss, read off at the last stage.

One run per check, shared by the predictions (`shared_draws`). Each observation is deterministic given the
start, so it is an `Exact` value with an accuracy: the bound of `checkers.convergence.settled_limit` on the
quantity at 1/2, 3/4 and the end of the last stage (GD must contract geometrically there, which is checked),
with round-off (1e-12 of the quantity's scale) as its floor.
"""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.convergence import settled_limit
from checkers.elasticity.recovery import local_start, run_stages
from checkers.shared_draws import cached
from theorems.elasticity import local_recovery
from theorems.elasticity.local_recovery import teacher_layout
from theorems.errors import NumericalError
from theorems.statement import Instance

STEP_SIZE = 0.5
NEAR_ANGLE = 0.3
ROUND_OFF = 1e-12


@cached(maxsize=8)
def _run(key: tuple, entropy: tuple, steps: int):
    """The staged run; its records' metrics take T_i up to sign, as the statement does (the predictions that own
    their observable recompute theirs from the stored networks)."""
    settings = dict(key)
    a_star, teacher = teacher_layout(settings["teacher_width"], settings["dimension"], settings["teacher_signs"])
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    a, weights = local_start(a_star, teacher, students_per_teacher=settings["students_per_teacher"],
                             far_neurons=settings["far_neurons"], start_angle=settings["start_angle"], rng=rng)
    try:
        return a_star, run_stages(a, weights, a_star, teacher, regularization=settings["regularization"],
                                  stages=settings["stages"], steps=steps, step_size=STEP_SIZE,
                                  near_angle=NEAR_ANGLE, up_to_sign=True, layer_ratio=settings["layer_ratio"])
    except FloatingPointError as error:
        raise NumericalError(str(error)) from None


def _settle(final: float, before: float, halfway: float, scale: float = 1.0) -> tuple[float, float]:
    """(final, the bound on |limit - final|) for a quantity at 1/2, 3/4 and the end of the last stage."""
    return settled_limit(halfway, before, final, floor=ROUND_OFF * scale, what="GD in the last stage")


def _reader(settle):
    """A reader of `settle(a_star, records, instance, observable) -> (value, accuracy, witnesses)` from the check's
    one staged run."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable=None) -> Exact:
        key = tuple((name, float(instance[name]) if name in ("start_angle", "regularization", "layer_ratio")
                     else str(instance[name]) if name == "teacher_signs" else int(instance[name]))
                    for name in ("teacher_width", "dimension", "students_per_teacher", "far_neurons", "start_angle",
                                 "regularization", "stages", "teacher_signs", "layer_ratio"))
        steps = 2000 * 2 ** (budget.fidelity.level // 2)
        a_star, records = _run(key, (seed.entropy, *seed.spawn_key), steps)
        method = f"{len(records)} stages of {steps} GD steps (step {STEP_SIZE}), lambda " \
                 f"{records[0].regularization:g} halved to {records[-1].regularization:g}"
        value, accuracy, witnesses = settle(a_star, records, instance, observable)
        return Exact(value, accuracy, method, witnesses=witnesses)
    return read


def statement_at_the_last_stage(a_star, records, instance, observable):
    """The statement's observable on the network at the end, 3/4 of the way through and halfway through the last
    stage, settled; the final network is the witness."""
    teacher = teacher_layout(len(a_star), records[-1].states[0][1].shape[1])[1]
    measured = [{"a": a, "weights": weights, "a_star": a_star, "teacher": teacher, "near_angle": NEAR_ANGLE}
                for a, weights in records[-1].states]
    return (*_settle(*(float(observable(m)) for m in measured)), {"the last stage's end": measured[0]})


def mass_deficit_at_the_last_stage(a_star, records, instance, observable):
    """Each teacher's settled mass gap (a*_i - s_i)/lambda and the sign of a*_i; the statement's observable signs
    them and picks the one it judges, whose accuracy is the reading's."""
    last = records[-1]
    scale = float(np.max(np.abs(a_star))) / last.regularization
    settled = [_settle(*(float(value) for value in values), scale) for values in
               zip((a_star - last.mass) / last.regularization, (a_star - last.mass_before) / last.regularization,
                   (a_star - last.mass_halfway) / last.regularization)]
    measured = {"gaps": tuple(value for value, _ in settled), "signs": tuple(float(s) for s in np.sign(a_star))}
    value = observable(measured)
    judged = next(i for i, gap in enumerate(measured["gaps"]) if abs(gap) == abs(value))
    return value, settled[judged][1], {"the last stage's end": measured}


def excess_loss_at_the_last_stage(a_star, records, instance, observable):
    # L is a difference of O(sum a*^2) kernel sums: its round-off is relative to those, not to L
    last = records[-1]
    lam2 = last.regularization**2
    return (*_settle(last.loss / lam2, last.loss_before / lam2, last.loss_halfway / lam2,
                     float(a_star @ a_star) / lam2), {})


def _loss_rate(a_star, records, instance, observable):
    """Least-squares slope of log L on log lambda over the stages, from each stage's settled loss: a stage that has
    not settled leaves the slope unresolved, and each settled loss's bound carries into the slope's (its
    coefficient in the fit times the relative bound)."""
    logs = np.log([r.regularization for r in records])
    # L is a difference of O(sum a*^2) kernel sums: its round-off is relative to those, not to L
    settled = [_settle(r.loss, r.loss_before, r.loss_halfway, float(a_star @ a_star)) for r in records]
    losses = np.array([loss for loss, _ in settled])
    weights = (logs - logs.mean()) / np.sum((logs - logs.mean()) ** 2)
    slope = float(weights @ np.log(losses))
    accuracy = float(np.abs(weights) @ (np.array([bound for _, bound in settled]) / losses))
    return slope, accuracy, {}


CHECKER = Checker(
    theorem=local_recovery.THEOREM,
    simulation="staged GD on the regularized exact population loss (debiased ReLU) with lambda halved, no "
               "sampling; deterministic to round-off",
    readers={"directions": _reader(statement_at_the_last_stage), "far-mass": _reader(statement_at_the_last_stage),
             "mass-deficit": _reader(mass_deficit_at_the_last_stage),
             "excess-loss": _reader(excess_loss_at_the_last_stage),
             "loss-rate": _reader(_loss_rate)},
    shared_draws=True,
    second_point={"teacher_width": "2", "dimension": "12"},
)
