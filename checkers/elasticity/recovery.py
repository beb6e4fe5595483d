"""Gradient descent on the exact regularized population loss of a debiased-ReLU teacher-student pair, in stages.

No sampling: the loss and its gradient come from the kernel (`theorems.elasticity.local_recovery`). The only
randomness is the local start (directions perturbed around the teachers, random signs, small far
neurons). The start is balanced (|a_j| = ||w_j||), and weight decay keeps it balanced. Within a stage, lambda
is fixed and plain GD runs a fixed number of steps; values are also recorded three quarters of the way
through, so the caller can bound how far each stage still was from convergence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorems.elasticity.local_recovery import population_loss_and_gradient, recovery_metrics


@dataclass(frozen=True)
class StageRecord:
    regularization: float
    loss: float
    mass: np.ndarray
    far_mass: float
    angular_error: float
    loss_before: float  # the same quantities 3/4 of the way through the stage
    mass_before: np.ndarray
    far_mass_before: float
    angular_error_before: float
    loss_halfway: float  # and halfway through it
    mass_halfway: np.ndarray
    far_mass_halfway: float
    angular_error_halfway: float
    # the network (a, W) at the end, 3/4 of the way through and halfway through the stage
    states: tuple = ()


def local_start(a_star, teacher, *, students_per_teacher: int, far_neurons: int, start_angle: float,
                rng: np.random.Generator):
    """(a, W): per teacher, neurons at +-(w*_i + start_angle g / sqrt(d)) (random sign, normalized) sharing
    the teacher's output weight equally, with its sign, balanced; plus `far_neurons` small neurons orthogonal to
    every teacher where d allows (else random), with output weight +-0.3 ||w||."""
    teacher_width, dimension = teacher.shape
    index = np.repeat(np.arange(teacher_width), students_per_teacher)
    directions = teacher[index] + start_angle * rng.standard_normal((len(index), dimension)) / np.sqrt(dimension)
    directions *= rng.choice([-1.0, 1.0], size=len(index))[:, None]
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    share = a_star[index] / students_per_teacher
    weights, a = directions * np.sqrt(np.abs(share))[:, None], np.sign(share) * np.sqrt(np.abs(share))
    far = 0.3 * rng.standard_normal((far_neurons, dimension))
    if dimension > teacher_width:
        far -= (far @ teacher.T) @ teacher  # away from every teacher
    far_norms = np.linalg.norm(far, axis=1)
    a_far = rng.choice([-1.0, 1.0], size=far_neurons) * far_norms
    return np.concatenate([a, a_far]), np.vstack([weights, far])


def run_stages(a, weights, a_star, teacher, *, regularization: float, stages: int, steps: int, step_size: float,
               near_angle: float, up_to_sign: bool, layer_ratio: float = 1.0) -> list[StageRecord]:
    """GD on L + (lambda sqrt(r) ||a||^2 + (lambda / sqrt(r)) ||W||^2)/2, r = `layer_ratio`, lambda halved after each
    of `stages` stages of `steps` steps; each record's `regularization` is that stage's lambda."""
    a, weights = a.copy(), weights.copy()
    root = np.sqrt(layer_ratio)
    records, lam = [], regularization
    for _ in range(stages):
        checkpoints, states = {}, {}
        for step in range(steps):
            loss, gradient_a, gradient_w = population_loss_and_gradient(a, weights, a_star, teacher)
            if step in (steps // 2, (3 * steps) // 4):
                checkpoints[step] = (loss, *recovery_metrics(a, weights, a_star, teacher, near_angle=near_angle,
                                                             up_to_sign=up_to_sign))
                states[step] = (a.copy(), weights.copy())
            a = a - step_size * (gradient_a + lam * root * a)
            weights = weights - step_size * (gradient_w + lam / root * weights)
            if not (np.all(np.isfinite(a)) and np.all(np.isfinite(weights))):
                raise FloatingPointError("gradient descent diverged")
        loss = population_loss_and_gradient(a, weights, a_star, teacher)[0]
        mass, far, angular = recovery_metrics(a, weights, a_star, teacher, near_angle=near_angle, up_to_sign=up_to_sign)
        records.append(StageRecord(lam, loss, mass, far, angular, *checkpoints[(3 * steps) // 4],
                                   *checkpoints[steps // 2],
                                   states=((a.copy(), weights.copy()), states[(3 * steps) // 4], states[steps // 2])))
        lam /= 2
    return records
