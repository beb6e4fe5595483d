"""Checker of nc1-bound: Theorem A and Corollary A' searched over generated heads (`checkers.collapse.head_search`),
and attained on the adversarial head in mpmath."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured
from checkers.collapse.head_search import (
    EXPLICIT,
    build_head,
    head_settings,
    search_observable,
    tight_settings,
    upper_bound_ratio,
)
from checkers.collapse.heads import Mpmath, measure_head
from theorems.collapse import nc1_bound
from theorems.statement import Instance


def head_measurements(instance: Instance, settings: dict) -> dict:
    """What the statement's observables read, measured on the head the settings generate."""
    head = build_head(instance, settings)
    return {**measure_head(head), "input_width": head.inputs.shape[0]}


def read_search(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """The smallest margin over generated heads, the tight head among them."""
    return search_observable(instance, budget, seed, observable, lambda settings: head_measurements(instance, settings),
                             head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads",
                             ratio=upper_bound_ratio(instance), construction=tight_settings(),
                             construction_name="the adversarial head with kappa = 1, eps1 = 0")


def read_tight(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    digits = instance["digits"]
    with mpmath.workdps(digits):
        measured = measure_head(build_head(instance, tight_settings(), Mpmath), Mpmath)
    return Measured(measured, tolerance=10.0 ** (5 - digits),
                    method=f"adversarial head (kappa = 1, eps1 = 0) built and measured in mpmath at {digits} digits")


CHECKER = Checker(
    theorem=nc1_bound.THEOREM,
    simulation="Hypothesis over the spec's head generator (measured eps1, eps2); attained to 50 digits in mpmath",
    readers={"theorem-a": read_search, "corollary-a-prime": read_search, "tight": read_tight},
    second_point={"classes": "5", "per_class": "3"},
    calibration_seeds=50,
)
