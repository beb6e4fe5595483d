"""Checker of balanced-collapse: the log-log slope of NC1 against (eps1 + sqrt(eps2))^power on two paths to 0."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact
from checkers.collapse.head_search import build_head, tight_settings
from checkers.collapse.heads import measure_head
from theorems.collapse import balanced_collapse
from theorems.statement import Instance

ORDER_PATH = (1e-1, 1e-2, 1e-3, 1e-4)


def read_order(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    """Slopes of log NC1_J against log shape between consecutive t, on two paths: eps1 = t with
    eps2 = t^4 (the eps1 term dominates) and eps1 = t^2 with eps2 = t^2 (the sqrt(eps2) term dominates)."""
    shape = instance.definition("shape")
    between = float(np.sqrt(instance["per_class"] * (instance["classes"] - 1)))
    finals, changes, described = [], [], []
    for name, eps1_of, eps2_of in (("eps1 = t, eps2 = t^4", lambda t: t, lambda t: t**4),
                                   ("eps1 = t^2, eps2 = t^2", lambda t: t**2, lambda t: t**2)):
        logs = []
        for t in ORDER_PATH:
            settings = tight_settings(eps1_fraction=eps1_of(t) / between,
                                      eps2_exponent=float(np.log10(eps2_of(t) / 1.3**2)), error="random")
            measured = measure_head(build_head(instance, settings))
            value = shape(measured["eps1"], measured["eps2"], instance.constant("power"))
            logs.append((np.log(float(value)), np.log(measured["nc1"])))
        slopes = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(logs, logs[1:])]
        finals.append(slopes[-1])
        changes.append(abs(slopes[-1] - slopes[-2]))
        described.append(f"{name}: slopes " + ", ".join(f"{s:.4f}" for s in slopes))
    return Exact(mpmath.mpf(min(finals)), tolerance=float(max(changes)),
                 method="; ".join(described) + f" (t = {ORDER_PATH})")


CHECKER = Checker(
    theorem=balanced_collapse.THEOREM,
    simulation="log-log slope of NC1 against the shape on two paths to 0",
    readers={"order": read_order},
)
