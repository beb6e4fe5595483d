"""Checker of nc2-bracket: Theorem C's bracket searched over generated heads, attained on two constructed heads,
approached on its hidden side by two more, and closed at eps1 = eps2 = 0, all in mpmath."""

from __future__ import annotations

import math

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured
from checkers.collapse.head_search import EXPLICIT, build_head, exact_head, head_settings, search_observable
from checkers.collapse.heads import Float64, Head, Mpmath, generate_head, hidden_head, measure_head
from theorems.collapse import nc2_bracket
from theorems.statement import Instance


def _mean_condition(head: Head, backend=Float64):
    means = np.stack([head.features[:, head.labels == c].sum(axis=1) / head.per_class
                      for c in range(head.classes)], axis=1)
    singular = backend.singular_values(means)
    return singular[0] / singular[head.classes - 1]


def attaining_settings(instance: Instance, error: str) -> dict:
    """The search's settings of a head near the attaining ones: eps2 = 1e-6 scale^2, the least the float64 search
    takes, widens the bracket by a few parts in 1e7."""
    fraction = float(nc2_bracket.ATTAINING_BUDGET) / math.sqrt(instance["classes"] - 1)  # eps1 = sqrt(n)/10
    return dict(seed=1, extra=2, input_extra=1, kappa=float(nc2_bracket.ATTAINING_KAPPA), scale=1.3,
                eps1_fraction=fraction, eps2_exponent=-6.0, spread=2.0, adversarial=False, error=error, imbalance=0.0)


def head_measurements(instance: Instance, settings: dict) -> dict:
    """eps1, eps2, s_1, s_K, ||Z_{L-2} B||_op and NC2_J of the head the settings generate. The statement's margin is
    measured from the bracket's centre, so the search is steered towards heads that use the bracket, not towards
    its ends (docs/derivations/collapse.md#nc2-bracket)."""
    head = build_head(instance, settings)
    return {**measure_head(head), "nc2": _mean_condition(head)}


def read_bracket(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    attaining = tuple(attaining_settings(instance, error) for error in ("stretch", "squeeze"))
    return search_observable(instance, budget, seed, observable, lambda settings: head_measurements(instance, settings),
                             head_settings(instance["classes"], instance["per_class"]), EXPLICIT + attaining, "heads",
                             ratio=lambda margin: 1 - margin)


def read_attained(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """The stretched and the squeezed heads (`nc2_bracket.attaining_heads`), built and measured in mpmath at
    `digits`."""
    classes, per_class, digits = instance["classes"], instance["per_class"], instance["digits"]
    measured = {}
    with mpmath.workdps(digits):
        for name, error in (("stretched", "stretch"), ("squeezed", "squeeze")):
            head = generate_head(np.random.default_rng(11), Mpmath, classes=classes, per_class=per_class,
                                 width=classes + 2, input_width=classes + 3, kappa=nc2_bracket.ATTAINING_KAPPA,
                                 scale=1.1, eps1=nc2_bracket.ATTAINING_BUDGET * mpmath.sqrt(per_class), eps2=0.0,
                                 spread=2.0, adversarial=False, error=error)
            measured[name] = {**measure_head(head, Mpmath), "nc2": _mean_condition(head, Mpmath)}
    return Measured(measured, tolerance=10.0 ** (5 - digits),
                    method=f"stretched and squeezed heads (kappa(W_L) = {nc2_bracket.ATTAINING_KAPPA}, eps2 = 0) "
                           f"built and measured in mpmath at {digits} digits")


def read_hidden(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """The two hidden heads (`nc2_bracket.hidden_heads`), built and measured in mpmath at `digits`."""
    digits = instance["digits"]
    measured = {}
    with mpmath.workdps(digits):
        for name, side in (("hidden stretched", "stretch"), ("hidden squeezed", "squeeze")):
            head = hidden_head(instance["classes"], instance["per_class"], nc2_bracket.ATTAINING_KAPPA,
                               nc2_bracket.HIDDEN_LIFT, nc2_bracket.HIDDEN_IMBALANCE, side)
            measured[name] = {**measure_head(head, Mpmath), "nc2": _mean_condition(head, Mpmath)}
    return Measured(measured, tolerance=10.0 ** (5 - digits),
                    method=f"hidden heads (kappa(W_L) = {nc2_bracket.ATTAINING_KAPPA}, eps1 = 0, eps2 = "
                           f"{mpmath.nstr(nc2_bracket.HIDDEN_IMBALANCE ** 2, 3)}) built and measured in mpmath at "
                           f"{digits} digits")


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
    simulation="Hypothesis over generated heads; the bracket is attained by two constructed heads and closes at "
               "eps1 = eps2 = 0 (mpmath)",
    readers={"bracket": read_bracket, "attained": read_attained, "hidden-side": read_hidden, "exact": read_exact},
    second_point={"classes": "4", "kappa": "10"},
    calibration_seeds=50,
)
