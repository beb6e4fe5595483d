"""Checker of pseudo-inverse-features: the bound searched over generated heads, and exact at eps2 = 0 in mpmath."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact
from checkers.collapse.head_search import (
    EXPLICIT,
    build_head,
    exact_head,
    head_settings,
    search_margin,
    upper_bound_ratio,
)
from checkers.collapse.heads import Mpmath, measure_head
from theorems.collapse import pseudo_inverse_features
from theorems.statement import Instance


def pseudo_inverse_margin(instance: Instance, settings: dict) -> float:
    head = build_head(instance, settings)
    measured = measure_head(head)
    residual = np.linalg.norm(head.features - np.linalg.pinv(head.last) @ head.outputs)
    bound = instance.definition("pseudo_inverse_bound")(measured["eps2"], np.linalg.norm(head.inputs))
    return float(instance.constant("bound_scale") - residual / bound)


def read_bound(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    return search_margin(instance, budget, seed, lambda settings: pseudo_inverse_margin(instance, settings),
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
    claims_in_checker=frozenset({"eps2-not-square-rooted", "five-percent-low", "halved"}),
    second_point={"classes": "4", "per_class": "3"},
    calibration_seeds=50,
)
