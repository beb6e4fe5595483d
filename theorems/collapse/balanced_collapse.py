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
from theorems.statement import Constant, Mutant, Nearness, Prediction, ResolutionReason, Target, Theorem


def reported_shape(eps1, eps2, power=2):
    """(eps1 + sqrt(eps2))^power; power 2 is the order the reviews give for the paper's NC1 bound."""
    return (mpmath.mpf(eps1) + mpmath.sqrt(mpmath.mpf(eps2))) ** power


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
                   resolution=lambda instance: 0.05),
    ),
    nearness=Nearness("simulation", "power-ten-percent-high acts through the fitted slope: 1.8 resolutions, measured"),
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
