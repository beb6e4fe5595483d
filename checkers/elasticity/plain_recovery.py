"""Checker of plain-recovery: one stage of GD at a fixed lambda from a small random balanced start, on the exact
population loss, read at its end as local-recovery reads its last stage."""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.convergence import settled_limit
from checkers.elasticity.local_recovery import (
    NEAR_ANGLE,
    ROUND_OFF,
    STEP_SIZE,
    excess_loss_at_the_last_stage,
    mass_deficit_at_the_last_stage,
    statement_at_the_last_stage,
)
from checkers.elasticity.recovery import run_stages
from checkers.shared_draws import cached
from theorems.elasticity import plain_recovery
from theorems.elasticity.local_recovery import teacher_layout
from theorems.errors import NumericalError
from theorems.statement import Instance


def small_random_start(width: int, dimension: int, scale: float, rng: np.random.Generator):
    """(a, W): `width` neurons in uniformly random directions with ||w_j|| = scale and a_j = +-scale (balanced)."""
    directions = rng.standard_normal((width, dimension))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    return rng.choice([-1.0, 1.0], size=width) * scale, directions * scale


@cached(maxsize=8)
def _run(teacher_width: int, dimension: int, width: int, init_scale: float, regularization: float,
         entropy: tuple, steps: int):
    """(a*, the one stage's record) of plain GD at the fixed lambda."""
    a_star, teacher = teacher_layout(teacher_width, dimension)
    a, weights = small_random_start(width, dimension, init_scale, np.random.default_rng(np.random.SeedSequence(
        entropy)))
    try:
        return a_star, run_stages(a, weights, a_star, teacher, regularization=regularization, stages=1, steps=steps,
                                  step_size=STEP_SIZE, near_angle=NEAR_ANGLE, up_to_sign=True)
    except FloatingPointError as error:
        raise NumericalError(str(error)) from None


def _require_settled(a_star, record) -> None:
    """Unresolved unless every recorded quantity of the run (loss, far mass, angular error, each teacher's mass) has
    settled: one quantity's three values can look geometric while the run is still escaping from the start."""
    scale = float(a_star @ a_star)
    for name, values in (("the loss", (record.loss_halfway, record.loss_before, record.loss)),
                         ("the far mass", (record.far_mass_halfway, record.far_mass_before, record.far_mass)),
                         ("the angular error", (record.angular_error_halfway, record.angular_error_before,
                                                record.angular_error)),
                         *((f"the mass near w*_{i + 1}", values) for i, values in
                           enumerate(zip(record.mass_halfway, record.mass_before, record.mass)))):
        settled_limit(*(float(value) for value in values), floor=ROUND_OFF * scale, what=f"GD ({name})")


def _reader(settle):
    """A reader of local-recovery's last-stage reading `settle` on the check's one run, once the whole run has
    settled."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable=None) -> Exact:
        steps = 2000 * 2 ** (budget.fidelity.level // 2)
        a_star, records = _run(int(instance["teacher_width"]), int(instance["dimension"]), int(instance["width"]),
                               float(instance["init_scale"]), float(instance["regularization"]),
                               (seed.entropy, *seed.spawn_key), steps)
        _require_settled(a_star, records[-1])
        value, accuracy, witnesses = settle(a_star, records, instance, observable)
        return Exact(value, accuracy, f"{steps} GD steps (step {STEP_SIZE}) at lambda {records[0].regularization:g} "
                                      f"from {int(instance['width'])} random neurons of norm "
                                      f"{instance.describe_parameters()['init_scale']}", witnesses=witnesses)
    return read


CHECKER = Checker(
    theorem=plain_recovery.THEOREM,
    simulation="plain GD at one fixed lambda on the regularized exact population loss (debiased ReLU) from a small "
               "random balanced start, no sampling; deterministic to round-off",
    readers={"directions": _reader(statement_at_the_last_stage), "far-mass": _reader(statement_at_the_last_stage),
             "mass-deficit": _reader(mass_deficit_at_the_last_stage),
             "excess-loss": _reader(excess_loss_at_the_last_stage)},
    shared_draws=True,
    second_point={"teacher_width": "2", "dimension": "12"},
)
