"""Checker of stationary-balanced: Lemma F at random points of the small network
(`checkers.collapse.small_network`) and its bound along a run towards a stationary point."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured, Tightness
from checkers.collapse.small_network import FLOOR_STEPS, STATIONARY_STEP, descend, gradients, imbalance, network
from theorems.collapse import stationary_balanced
from theorems.statement import Instance


def _regularized(instance: Instance, current, grads):
    return [g + float(instance["weight_decay"]) * w for g, w in zip(grads, current)]


def read_identity(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """D and the two terms at random weights. lambda D is their difference, much smaller than each at small lambda
    (3.4e5 times at lambda = 1e-6), so the statement measures the residual against the larger of the two scales."""
    weights, x, y = network(instance, seed)
    grads = _regularized(instance, weights, gradients(weights, x, y, instance["between"], np))
    difference = imbalance(weights)
    upper, lower = weights[1].T @ grads[1], grads[0] @ weights[0].T
    terms = np.linalg.norm(upper) + np.linalg.norm(lower)
    scale = float(instance["weight_decay"]) * np.linalg.norm(difference)
    return Measured({"D": difference, "upper": upper, "lower": lower}, tolerance=1e-12,
                    method=f"random weights in float64, against the larger of lambda ||D|| and the two terms "
                           f"({terms / scale:.3g} times it)")


def read_near_stationary_bound(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    weights, x, y = network(instance, seed)
    lam = float(instance["weight_decay"])
    margins, ratios, witnesses = [], [], {}

    def visit(current, grads) -> float | None:
        """Record the statement's margin at a point; return the ratio ||D|| / bound there (None where the bound is
        0)."""
        full = _regularized(instance, current, grads)
        measured = {"D_norm": np.linalg.norm(imbalance(current)), "upper_norm": np.linalg.norm(current[1], 2),
                    "upper_gradient": np.linalg.norm(full[1]), "lower_norm": np.linalg.norm(current[0], 2),
                    "lower_gradient": np.linalg.norm(full[0])}
        margin = float(observable(measured))
        witnesses["last visited"] = measured
        if margin == np.inf:
            return None
        if not margins or margin < min(margins):
            witnesses["smallest margin"] = measured
        margins.append(margin)
        if margin == -np.inf:
            return None
        ratios.append((1 - margin, len(margins) - 1))
        return 1 - margin

    step = min(STATIONARY_STEP, 0.5 / lam)  # eta lambda <= 1/2: the decay factor stays in (0, 1)
    descend(instance, weights, x, y, step, FLOOR_STEPS, visit)
    ratio, at = max(ratios, default=(None, None))  # the run's tightest step, before the attaining point is added
    attaining = attaining_point(weights)
    attained = visit(attaining, gradients(attaining, x, y, instance["between"], np))
    witnesses["attaining point"] = witnesses.pop("last visited")
    return Exact(mpmath.mpf(min(margins, default=0.0)), tolerance=1e-12, witnesses=witnesses,
                 method=f"{FLOOR_STEPS} GD steps (eta = {step:g}) towards a stationary point, and the point where "
                        "the bound is attained",
                 tightness=None if ratio is None else Tightness(
                     float(ratio), f"step {at}", None if attained is None else float(attained),
                     "W_l = 0 and W_{l+1} of rank one"))


def attaining_point(weights):
    """A point where the bound is attained: W_l = 0 and W_{l+1} its own top singular term. There W_l's output is 0,
    so grad W_{l+1} L_lambda = lambda W_{l+1} and lambda D = W_{l+1}^T (lambda W_{l+1}), whose Frobenius norm is
    ||W_{l+1}||_op ||lambda W_{l+1}||_F exactly when W_{l+1} has rank one; the term of W_l vanishes."""
    left, singular, right = np.linalg.svd(weights[1])
    return [np.zeros_like(weights[0]), singular[0] * np.outer(left[:, 0], right[0]), *weights[2:]]


CHECKER = Checker(
    theorem=stationary_balanced.THEOREM,
    simulation="random points in float64; the bound along a GD run towards a stationary point",
    readers={"identity": read_identity, "near-stationary-bound": read_near_stationary_bound},
    second_point={"weight_decay": "0.5", "width": "12"},
    calibration_seeds=200,
)
