"""Checker of random-features-floor: local-recovery's staged run on the exact population loss, its last stage's
settled excess loss, against the floor of the best second layer on the start's first layer (exact linear algebra)."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Tightness
from checkers.convergence import settled_limit
from checkers.elasticity.local_recovery import NEAR_ANGLE, ROUND_OFF, STEP_SIZE
from checkers.elasticity.recovery import local_start, run_stages
from checkers.shared_draws import cached
from theorems.elasticity import random_features_floor
from theorems.elasticity.local_recovery import population_loss_and_gradient, teacher_layout
from theorems.errors import NumericalError
from theorems.statement import Instance


def frozen_floor(a_star, teacher, weights) -> float:
    """min over a of the population loss with the first layer fixed at `weights`: L is a^T K a/2 - a^T c + L(0), and
    dL/da = K a - c is read at a = 0 and at each unit vector."""
    width = len(weights)
    at_zero, gradient_zero, _ = population_loss_and_gradient(np.zeros(width), weights, a_star, teacher)
    kernel = np.column_stack([population_loss_and_gradient(column, weights, a_star, teacher)[1] - gradient_zero
                              for column in np.eye(width)])
    kernel = (kernel + kernel.T) / 2
    best = np.linalg.lstsq(kernel, -gradient_zero, rcond=1e-12)[0]
    return float(at_zero + gradient_zero @ best / 2)


@cached(maxsize=8)
def _run(key: tuple, entropy: tuple, steps: int):
    """(L_RF at the start, the last stage's settled loss and its bound, the last stage's lambda); the full run is
    local-recovery's, with its step, near angle and round-off."""
    settings = dict(key)
    a_star, teacher = teacher_layout(settings["teacher_width"], settings["dimension"])
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    a, weights = local_start(a_star, teacher, students_per_teacher=settings["students_per_teacher"],
                             far_neurons=settings["far_neurons"], start_angle=settings["start_angle"], rng=rng)
    floor = frozen_floor(a_star, teacher, weights)
    try:
        records = run_stages(a, weights, a_star, teacher, regularization=settings["regularization"],
                             stages=settings["stages"], steps=steps, step_size=STEP_SIZE, near_angle=NEAR_ANGLE,
                             up_to_sign=True)
    except FloatingPointError as error:
        raise NumericalError(str(error)) from None
    last = records[-1]
    loss, bound = settled_limit(last.loss_halfway, last.loss_before, last.loss,
                                floor=ROUND_OFF * float(a_star @ a_star), what="GD in the last stage")
    return floor, loss, bound, last.regularization


def read_floor(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    key = tuple((name, float(instance[name]) if name in ("start_angle", "regularization") else int(instance[name]))
                for name in ("teacher_width", "dimension", "students_per_teacher", "far_neurons", "start_angle",
                             "regularization", "stages"))
    steps = 2000 * 2 ** (budget.fidelity.level // 2)
    floor, loss, bound, last = _run(key, (seed.entropy, *seed.spawn_key), steps)
    measured = {"full": loss, "floor": floor}
    return Exact(mpmath.mpf(observable(measured)), bound / floor,
                 f"{int(instance['stages'])} stages of {steps} GD steps, lambda down to {last:g}: L_full = {loss:.4g}, "
                 f"L_RF = {floor:.4g} with the start's first layer frozen",
                 tightness=Tightness(loss / floor, "the last stage"), witnesses={"the run": measured})


CHECKER = Checker(
    theorem=random_features_floor.THEOREM,
    simulation="local-recovery's staged GD on the exact population loss; the frozen first layer's floor by exact "
               "linear algebra",
    readers={"below-the-floor": read_floor},
    shared_draws=True,
    second_point={"teacher_width": "2", "dimension": "12"},
)
