"""Checker of pseudo-inverse-features: the bound searched over generated heads, and exact at eps2 = 0 in mpmath."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.collapse.head_search import (
    EXPLICIT,
    build_head,
    exact_head,
    head_settings,
    search_observable,
    upper_bound_ratio,
)
from checkers.collapse.heads import Mpmath, measure_head
from theorems.collapse import pseudo_inverse_features
from theorems.statement import Instance


def head_measurements(instance: Instance, settings: dict) -> dict:
    """eps2, ||Z_{L-2}||_F and the residual ||Z_{L-1} - W_L^+ Z_L||_F of the head the settings generate."""
    head = build_head(instance, settings)
    return {"eps2": measure_head(head)["eps2"], "input_norm": np.linalg.norm(head.inputs),
            "residual": np.linalg.norm(head.features - np.linalg.pinv(head.last) @ head.outputs)}


def read_bound(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    return search_observable(instance, budget, seed, observable, lambda settings: head_measurements(instance, settings),
                             head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads",
                             ratio=upper_bound_ratio(instance))


def read_exact_balance(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    digits = instance["digits"]
    with mpmath.workdps(digits):
        head = exact_head(instance, Mpmath, kappa=2.0)
        residual = Mpmath.frobenius(head.features - Mpmath.pinv(head.last) @ head.outputs)
        value = residual / Mpmath.frobenius(head.features)
    return Exact(value, tolerance=10.0 ** (5 - digits),
                 method=f"exactly balanced head (eps2 = 0, eps1 > 0) in mpmath at {digits} digits")


CHECKER = Checker(
    theorem=pseudo_inverse_features.THEOREM,
    simulation="Hypothesis over generated heads; exact at eps2 = 0 in mpmath",
    readers={"bound": read_bound, "exact-balance": read_exact_balance},
    second_point={"classes": "4", "per_class": "3"},
    calibration_seeds=50,
)
