"""Checker of nc1-bound: Theorem A and Corollary A' searched over generated heads (`checkers.collapse.head_search`),
and attained on the adversarial head in mpmath."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact
from checkers.collapse.head_search import (
    EXPLICIT,
    build_head,
    head_settings,
    search_margin,
    tight_settings,
    upper_bound_ratio,
)
from checkers.collapse.heads import Mpmath, measure_head
from theorems.collapse import nc1_bound
from theorems.statement import Instance


def nc1_margin(instance: Instance, settings: dict, *, corollary: bool) -> float:
    head = build_head(instance, settings)
    measured = measure_head(head)
    classes, per_class = instance["classes"], instance["per_class"]
    if measured["eps1"] >= float(np.sqrt(per_class * (classes - 1))):
        return float("inf")  # outside the theorem's hypothesis: nothing is claimed
    if not corollary:
        bound = instance.definition("nc1_bound")(measured["eps1"], measured["eps2"], measured["s_first"],
                                                  measured["s_last"], measured["omega"], per_class, classes)
    else:
        if measured["eps1"] >= float(np.sqrt(per_class)):
            return float("inf")
        bound = instance.definition("nc1_bound_radius")(
            measured["eps1"], measured["eps2"], measured["radius"], per_class, classes, head.inputs.shape[0],
            classes * per_class)
    return float(instance.constant("bound_scale") - measured["nc1"] / bound)


def _read_search(*, corollary: bool):
    """A reader of the smallest margin of Theorem A, or (`corollary`) of Corollary A', over generated heads."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
        return search_margin(instance, budget, seed,
                             lambda settings: nc1_margin(instance, settings, corollary=corollary),
                             head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads",
                             ratio=upper_bound_ratio(instance), construction=tight_settings(),
                             construction_name="the adversarial head with kappa = 1, eps1 = 0")
    return read


def read_tight(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    digits = instance["digits"]
    with mpmath.workdps(digits):
        head = build_head(instance, tight_settings(), Mpmath)
        measured = measure_head(head, Mpmath)
        bound = instance.definition("nc1_bound")(measured["eps1"], measured["eps2"], measured["s_first"],
                                                  measured["s_last"], measured["omega"], instance["per_class"],
                                                  instance["classes"])
        ratio = measured["nc1"] / (instance.constant("bound_scale") * bound)
    return Exact(ratio, tolerance=10.0 ** (5 - digits),
                 method=f"adversarial head (kappa = 1, eps1 = 0) built and measured in mpmath at {digits} digits")


CHECKER = Checker(
    theorem=nc1_bound.THEOREM,
    simulation="Hypothesis over the spec's head generator (measured eps1, eps2); attained to 50 digits in mpmath",
    readers={"theorem-a": _read_search(corollary=False), "corollary-a-prime": _read_search(corollary=True),
             "tight": read_tight},
    claims_in_checker=frozenset({"denominator-eps1-dropped", "eps2-not-square-rooted", "halved", "loosened"}),
    second_point={"classes": "5", "per_class": "3"},
    calibration_seeds=50,
)
