"""Checker of nc2-bracket: Theorem C's bracket searched over generated heads, and closed at eps1 = eps2 = 0 in
mpmath."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact, Measured
from checkers.collapse.head_search import EXPLICIT, build_head, exact_head, head_settings, search_observable
from checkers.collapse.heads import Float64, Head, Mpmath, measure_head
from theorems.collapse import nc2_bracket
from theorems.statement import Instance


def _mean_condition(head: Head, backend=Float64):
    means = np.stack([head.features[:, head.labels == c].sum(axis=1) / head.per_class
                      for c in range(head.classes)], axis=1)
    singular = backend.singular_values(means)
    return singular[0] / singular[head.classes - 1]


def head_measurements(instance: Instance, settings: dict) -> dict:
    """eps1, eps2, s_1, s_K, ||Z_{L-2} B||_op and NC2_J of the head the settings generate. The statement's margin is
    measured from the bracket's centre, so the search is steered towards heads that use delta_2, not towards the
    bracket's ends (docs/derivations/collapse.md#nc2-bracket)."""
    head = build_head(instance, settings)
    return {**measure_head(head), "nc2": _mean_condition(head)}


def read_bracket(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    return search_observable(instance, budget, seed, observable, lambda settings: head_measurements(instance, settings),
                             head_settings(instance["classes"], instance["per_class"]), EXPLICIT, "heads",
                             ratio=lambda margin: 1 - margin)


def read_exact(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """The extreme singular values of W_L and kappa(Zbar) of an exact head (eps1 = eps2 = 0), in mpmath at `digits`
    and the statement's guard digits (at kappa = 1e6 and 50 digits without them the residual was 3.7e-40, and the
    true identity failed)."""
    digits, guard = instance["digits"], nc2_bracket.guard_digits(instance)
    with mpmath.workdps(digits + guard):
        head = exact_head(instance, Mpmath, kappa=float(instance["kappa"]), eps1=0.0)
        singular = Mpmath.singular_values(head.last)
        measured = {"s_first": singular[0], "s_last": singular[head.classes - 1], "nc2": _mean_condition(head, Mpmath)}
    return Measured(measured, tolerance=10.0 ** (5 - digits),
                    method=f"exact head (eps1 = eps2 = 0, kappa(W_L) = {instance['kappa']}) in mpmath at {digits} "
                           f"digits and {guard} guard digits")


CHECKER = Checker(
    theorem=nc2_bracket.THEOREM,
    simulation="Hypothesis over generated heads; the bracket closes at eps1 = eps2 = 0 (mpmath)",
    readers={"bracket": read_bracket, "exact": read_exact},
    second_point={"classes": "4", "kappa": "10"},
    calibration_seeds=50,
)
