"""Checker of balanced-collapse: the log-log slope of NC1 against (eps1 + sqrt(eps2))^power on two paths to 0."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact
from checkers.collapse.head_search import build_head, tight_settings
from checkers.collapse.heads import measure_head
from checkers.convergence import settled_limit
from theorems.collapse import balanced_collapse
from theorems.statement import Instance

ORDER_PATH = (1e-1, 1e-2, 1e-3, 1e-4)
# round-off of a slope between two decades of t: NC1 and the shape are float64 values of relative accuracy ~1e-13 at
# worst (NC1 ~ t^2 down to 1e-8, built from norms of order 1), divided by log(10)
SLOPE_ROUND_OFF = 1e-12


def read_order(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """The statement's slope between consecutive t, on two paths: eps1 = t with eps2 = t^4 (the eps1 term dominates)
    and eps1 = t^2 with eps2 = t^2 (the sqrt(eps2) term dominates); each path's limit extrapolated."""
    between = float(np.sqrt(instance["per_class"] * (instance["classes"] - 1)))
    finals, accuracies, described = [], [], []
    for name, eps1_of, eps2_of in (("eps1 = t, eps2 = t^4", lambda t: t, lambda t: t**4),
                                   ("eps1 = t^2, eps2 = t^2", lambda t: t**2, lambda t: t**2)):
        heads = [measure_head(build_head(instance, tight_settings(
            eps1_fraction=eps1_of(t) / between, eps2_exponent=float(np.log10(eps2_of(t) / 1.3**2)), error="random")))
            for t in ORDER_PATH]
        slopes = [float(observable({name: (a[name], b[name]) for name in ("eps1", "eps2", "nc1")}))
                  for a, b in zip(heads, heads[1:])]
        # the slope as t -> 0, bounded by the geometric tail of its changes (checked to contract; else unresolved)
        final, accuracy = settled_limit(*slopes[-3:], floor=SLOPE_ROUND_OFF, what=f"the slope on the path {name}")
        finals.append(final)
        accuracies.append(accuracy)
        described.append(f"{name}: slopes " + ", ".join(f"{s:.6f}" for s in slopes) + f" (limit within {accuracy:.2g})")
    worst = int(np.argmin(finals))
    return Exact(mpmath.mpf(finals[worst]), tolerance=float(accuracies[worst]),
                 method="; ".join(described) + f" (t = {ORDER_PATH})")


CHECKER = Checker(
    theorem=balanced_collapse.THEOREM,
    simulation="log-log slope of NC1 against the shape on two paths to 0",
    readers={"order": read_order},
    second_point={"classes": "4", "per_class": "3"},
)
