"""Checker of nc3-bound: the per-sample bound and the Kantorovich floor searched over heads; the floor attained
in mpmath."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.collapse.head_search import EXPLICIT, build_head, head_settings, search_observable
from checkers.collapse.heads import Float64, Mpmath, measure_head, one_hot_targets
from theorems.collapse import nc3_bound
from theorems.statement import Instance


def sample_measurements(instance: Instance, settings: dict) -> dict:
    """Per sample of the head the settings generate: cos(z_ci, w_c), rho, ||w_c||, ||W_L^+ e_c||, ||z^{L-2}_ci||;
    and s_K, eps2."""
    head = build_head(instance, settings)
    measured = measure_head(head)
    targets, _ = one_hot_targets(head.classes, head.per_class)
    pinv = np.linalg.pinv(head.last)
    rows = head.last[head.labels]
    return {"cosines": np.einsum("ij,ji->i", rows, head.features) / (
                np.linalg.norm(rows, axis=1) * np.linalg.norm(head.features, axis=0)),
            "distances": np.linalg.norm(head.outputs - targets, axis=0),
            "row_norms": [np.linalg.norm(row) for row in rows],
            "pinv_norms": [np.linalg.norm(pinv[:, c]) for c in head.labels],
            "input_norms": [np.linalg.norm(head.inputs[:, i]) for i in range(len(head.labels))],
            "s_last": measured["s_last"],
            "eps2": measured["eps2"]}


def _exact_cosines(last, backend=Float64):
    """cos(W_L^+ e_c, w_c) for each class c."""
    pinv = backend.pinv(last)
    return [(last[c] @ pinv[:, c]) / backend.sqrt((last[c] @ last[c]) * (pinv[:, c] @ pinv[:, c]))
            for c in range(last.shape[0])]


def exact_measurements(instance: Instance, settings: dict) -> dict:
    """cos(W_L^+ e_c, w_c) per class and the measured kappa(W_L) of an exactly interpolating, balanced head."""
    rng = np.random.default_rng(settings["seed"])
    classes = instance["classes"]
    width = classes + settings["extra"]
    singular = settings["scale"] * settings["kappa"] ** -(np.arange(classes) / (classes - 1))
    last = Float64.orthonormal(rng.standard_normal((classes, classes))) * singular @ Float64.orthonormal(
        rng.standard_normal((width, classes))).T
    measured_singular = np.linalg.svd(last, compute_uv=False)
    return {"cosines": _exact_cosines(last), "kappa": measured_singular[0] / measured_singular[-1]}


def read_per_sample(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    # a lower bound: margin = cos/bound - bound_scale, so the sides' ratio is bound_scale bound / cos
    scale = float(instance.constant("bound_scale"))
    return search_observable(instance, budget, seed, observable,
                             lambda settings: sample_measurements(instance, settings),
                             head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads",
                             ratio=lambda margin: scale / (margin + scale))


def read_kantorovich_floor(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    # a lower bound: margin = cos/floor - 1, so the sides' ratio is floor / cos
    return search_observable(instance, budget, seed, observable,
                             lambda settings: exact_measurements(instance, settings),
                             head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "exact heads",
                             ratio=lambda margin: 1 / (1 + margin))


def read_attained(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    digits = instance["digits"]
    with mpmath.workdps(digits):
        last = _attaining_head(instance["classes"], instance["kappa"])
        value = min(_exact_cosines(last, Mpmath))
    return Exact(value, tolerance=10.0 ** (5 - digits),
                 method=f"W_L with e_0 = (u_1 + u_K)/sqrt(2), kappa = {instance['kappa']}, in mpmath at {digits} "
                        f"digits")


def _attaining_head(classes: int, kappa) -> np.ndarray:
    """W_L = U diag(s) V^T (mpf) whose extreme left singular vectors are (e_0 +- e_1)/sqrt(2)."""
    half = 1 / mpmath.sqrt(2)
    rotation = np.array([[mpmath.mpf(0)] * classes for _ in range(classes)], dtype=object)
    rotation[0, 0], rotation[1, 0] = half, half              # u_1
    rotation[0, classes - 1], rotation[1, classes - 1] = half, -half  # u_K
    for j in range(1, classes - 1):                          # e_2 .. e_{K-1} in between
        rotation[j + 1, j] = mpmath.mpf(1)
    kappa = mpmath.mpf(kappa)
    singular = np.array([kappa ** (-mpmath.mpf(i) / (classes - 1)) for i in range(classes)], dtype=object)
    right = Mpmath.orthonormal(np.random.default_rng(11).standard_normal((classes + 2, classes)))
    return (rotation * singular) @ right.T


CHECKER = Checker(
    theorem=nc3_bound.THEOREM,
    simulation="Hypothesis over generated heads; the attaining head in mpmath",
    readers={"per-sample": read_per_sample, "kantorovich-floor": read_kantorovich_floor, "attained": read_attained},
    second_point={"classes": "4", "kappa": "10"},
    calibration_seeds=50,
)
