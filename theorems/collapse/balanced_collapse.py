"""Theorem 3.1 (2) of Jacot, Sukenik, Wang and Mondelli, in the shape the reviews report: NC1 = O((eps1 + sqrt(eps2))^2)
 [secondary].

Source: Jacot, Sukenik, Wang and Mondelli, "Wide neural networks trained with weight decay provably
exhibit neural collapse" (ICLR 2025; arXiv 2410.04887), Theorem 3.1, conclusion (2). Its hypotheses
(approximate interpolation ||Z_L - Y||_F <= eps1, approximate balancedness of the linear head
||W_{l+1}^T W_{l+1} - W_l W_l^T||_op <= eps2, bounded representations and weights) are confirmed in
structure; its constants are not confirmed against the paper (docs/derivations/collapse.md#balanced-collapse), so only
the
shape is encoded here. The explicit, tight version is `nc1-bound` (derived).

Check: along two paths of heads from the spec's generator (bounded weights, kappa(W_L) = 1,
adversarial hidden spread), t = 10^-1 ... 10^-4, one where eps1 = t dominates (eps2 = t^4) and one
where sqrt(eps2) = t dominates (eps1 = t^2), NC1_J(Z_{L-1}) = O(shape(eps1, eps2)) means the log-log
slope of NC1 against the shape stays >= 1 as t -> 0; the smaller of the two limiting slopes is compared with 1.
Each limit is the last slope with a bound on what remains: the geometric tail of the last two changes, after a
check that they contract by at least 2 (else the reading is unresolved; `checkers.convergence`).
"""

from __future__ import annotations

import mpmath

from theorems.collapse import bounds as collapse
from theorems.statement import Constant, Mutant, Prediction, ResolutionReason, Target, Theorem


def reported_shape(eps1, eps2, power=2):
    """(eps1 + sqrt(eps2))^power; power 2 is the order the reviews give for the paper's NC1 bound."""
    return (mpmath.mpf(eps1) + mpmath.sqrt(mpmath.mpf(eps2))) ** power


def slope(instance, measured):
    """The log-log slope of NC1_J against shape(eps1, eps2) between two heads: each entry of `measured` (eps1, eps2,
    nc1) is a pair, the first head's value and the second's."""
    shape = instance.definition("shape")
    logs = [(mpmath.log(shape(eps1, eps2, instance.constant("power"))), mpmath.log(nc1))
            for eps1, eps2, nc1 in zip(measured["eps1"], measured["eps2"], measured["nc1"])]
    return (logs[1][1] - logs[0][1]) / (logs[1][0] - logs[0][0])


def exact_paths(instance):
    """Two pairs of heads with kappa(W_L) = 1 (docs/derivations/collapse.md#balanced-collapse), t = 1/10 then 1/100:
    on the eps1 path (eps2 = 0, a within-class output error) NC1_J = eps1^2/(n(K-1)); on the eps2 path (eps1 = 0, the
    shrinking heads of nc1-bound) NC1_J = s^2 eps2 omega^2/(n(K-1)), here with s omega = 1. Both give slope 1."""
    separation = mpmath.mpf(instance["per_class"] * (instance["classes"] - 1))
    t = (mpmath.mpf(1) / 10, mpmath.mpf(1) / 100)
    return {"eps1 path": {"eps1": t, "eps2": (0, 0), "nc1": tuple(x**2 / separation for x in t)},
            "eps2 path": {"eps1": (0, 0), "eps2": tuple(x**2 for x in t), "nc1": tuple(x**2 / separation for x in t)}}


CONSTANTS = (Constant.exactly("power", 2, "the exponent in O((eps1 + sqrt(eps2))^power), 2 as reported"),)


THEOREM = Theorem(
    id="balanced-collapse",
    title="Balancedness and interpolation imply NC1 = O((eps1 + sqrt(eps2))^2) (Jacot et al., Theorem 3.1)",
    source="Jacot, Sukenik, Wang and Mondelli (ICLR 2025; arXiv 2410.04887), Theorem 3.1 (2), as secondary "
           "sources report it",
    provenance="secondary",
    statement="NC1_J(Z_{L-1}) = O((eps1 + sqrt(eps2))^2) for bounded weights and representations "
              "(constants not confirmed against the paper)",
    parameters=collapse.SHAPE_PARAMETERS,
    assumptions=(),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="order", kind="rate",
                   statement="the log-log slope of NC1_J against shape(eps1, eps2) as eps1, sqrt(eps2) -> 0 together "
                             "is >= 1",
                   predict=lambda instance: Target.at_least(1, note="limiting slope of log NC1 against log shape; "
                                                         "resolution 0.05: the order's exponent 5% off (2.1 for 2) "
                                                         "moves the slope by 0.048"),
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "the order's exponent 5% off (2.1 for 2) moves the fitted "
                                                      "slope by 0.048, one resolution; the kept near mutant (2.2) "
                                                      "lies 1.8 resolutions away"),
                   observable=slope, references=exact_paths,
                   resolution=lambda instance: 0.05),
    ),
    mutants=(
        Mutant(name="eps2-unrooted", description="NC1 = O((eps1 + eps2)^2)",
               definitions={"shape": lambda eps1, eps2, power: (mpmath.mpf(eps1) + mpmath.mpf(eps2)) ** power}),
        Mutant(name="cubic", description="NC1 = O((eps1 + sqrt(eps2))^3)",
               constant_factors={"power": 1.5}),
        Mutant(name="power-ten-percent-high", description="NC1 = O((eps1 + sqrt(eps2))^2.2): the order 10% too "
               "high, a near error (the slope falls to 0.91, 1.8 resolutions below 1)",
               constant_factors={"power": 1.1}),
    ),
    definitions={"shape": reported_shape},
)
