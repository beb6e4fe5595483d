"""Checker of local-recovery: staged GD on the exact regularized population loss, read off at the last stage.

One run per check, shared by the predictions (`shared_draws`). Each observation is deterministic given the
start, so it is an `Exact` value with a tolerance. The tolerance is twice the change over the stage's last
quarter (GD converges geometrically here), plus round-off (1e-12 of the quantity's scale).
"""

from __future__ import annotations

import numpy as np

from checkers.check import Budget, Checker, Exact
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
def _run(key: tuple, up_to_sign: bool, entropy: tuple, steps: int):
    settings = dict(key)
    a_star, teacher = teacher_layout(settings["teacher_width"], settings["dimension"])
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    a, weights = local_start(a_star, teacher, students_per_teacher=settings["students_per_teacher"],
                             far_neurons=settings["far_neurons"], start_angle=settings["start_angle"], rng=rng)
    try:
        return a_star, run_stages(a, weights, a_star, teacher, regularization=settings["regularization"],
                                  stages=settings["stages"], steps=steps, step_size=STEP_SIZE,
                                  near_angle=NEAR_ANGLE, up_to_sign=up_to_sign)
    except FloatingPointError as error:
        raise NumericalError(str(error)) from None


def _settle(value: float, before: float, scale: float = 1.0) -> tuple[float, float]:
    return value, 2 * abs(value - before) + ROUND_OFF * scale


def _reader(settle):
    """A reader of `settle(a_star, records) -> (value, tolerance)` from the check's one staged run."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
        key = tuple((name, float(instance[name]) if name in ("start_angle", "regularization") else int(instance[name]))
                    for name in ("teacher_width", "dimension", "students_per_teacher", "far_neurons", "start_angle",
                                 "regularization", "stages"))
        steps = 2000 * 2 ** (budget.fidelity.level // 2)
        a_star, records = _run(key, instance.definition("up_to_sign"), (seed.entropy, *seed.spawn_key), steps)
        method = f"{len(records)} stages of {steps} GD steps (step {STEP_SIZE}), lambda " \
                 f"{records[0].regularization:g} halved to {records[-1].regularization:g}"
        return Exact(*settle(a_star, records), method)
    return read


def _directions(a_star, records):
    return _settle(records[-1].angular_error, records[-1].angular_error_before)


def _far_mass(a_star, records):
    return _settle(records[-1].far_mass, records[-1].far_mass_before)


def _mass_deficit(a_star, records):
    last = records[-1]
    deficits = (a_star - last.mass) / last.regularization
    before = (a_star - last.mass_before) / last.regularization
    value, tolerance = _settle(float(np.mean(deficits)), float(np.mean(before)), float(np.max(np.abs(deficits))))
    return value, tolerance + float(np.max(deficits) - np.min(deficits))  # the teachers must agree too


def _excess_loss(a_star, records):
    # L is a difference of O(sum a*^2) kernel sums: its round-off is relative to those, not to L
    last = records[-1]
    return _settle(last.loss / last.regularization**2, last.loss_before / last.regularization**2,
                   float(a_star @ a_star) / last.regularization**2)


def _loss_rate(a_star, records):
    """Least-squares slope of log L on log lambda over the stages."""
    logs = np.log([r.regularization for r in records])
    slope = float(np.polyfit(logs, np.log([r.loss for r in records]), 1)[0])
    slope_before = float(np.polyfit(logs, np.log([r.loss_before for r in records]), 1)[0])
    # each log L carries round-off ~ (sum a*^2 / L) x machine precision
    return _settle(slope, slope_before, float(a_star @ a_star) / min(r.loss for r in records))


CHECKER = Checker(
    theorem=local_recovery.THEOREM,
    simulation="staged GD on the regularized exact population loss (debiased ReLU) with lambda halved, no "
               "sampling; deterministic to round-off",
    readers={"directions": _reader(_directions), "far-mass": _reader(_far_mass),
             "mass-deficit": _reader(_mass_deficit), "excess-loss": _reader(_excess_loss),
             "loss-rate": _reader(_loss_rate)},
    shared_draws=True,
)
