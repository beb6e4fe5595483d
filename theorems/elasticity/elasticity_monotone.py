"""The expected Elasticity rises with |beta^T mu| on either side of 0: every step of a ladder in the similarity has a
positive mean over network draws  [rebuttal; read as an expectation, as the authors read their theorems].

Source: the authors of the ICLR 2025 submission "Emergence of alignment and local elasticity in two-layer neural
networks", in their reply to r1 W3: both metrics increase monotonically with beta^T mu; and, replying to r4 and r5,
their Theorems 5.3 and 5.4 are statements about the expectation over the parameters
(docs/derivations/elasticity.md#elasticity-monotone).

Setting: elasticity-reference's (one step in Ba's normalization, n = d = N = `dimension`, eta = n^alpha; unseen
x ~ N(mu, I) with mu = m zeta/||zeta||^2, so zeta^T mu = m). Elasticity(m) is the exact per-neuron bivariate Gaussian
law of one network draw (`elasticity-reference`), a fact of the draw computed by quadrature.

Claim. Along the ladder 0 < 0.5 < 1 < 2 < 4 of |m|, on the right (m > 0) and on the left (m < 0), each step
[E(+-m_(k+1)) - E(+-m_k)] / E(0) has a positive mean over network draws: eight strict inequalities, each read at its
share of the false-fail rate. One network need not follow (docs/derivations/elasticity.md#elasticity-monotone): the
claim is the expectation's, as the authors say of their theorems.

Mutants: `increasing-in-m`, the authors' words read literally, increasing in the signed similarity (on the left the
steps towards -4 would fall); `flat-in-similarity`, no dependence at all, the equality that a strict rise must reject.
"""

from __future__ import annotations

from theorems.activation_assumptions import not_constant, square_integrable
from theorems.onestep import common as onestep
from theorems.statement import Mutant, Nearness, Parameter, Prediction, ResolutionReason, Target, Theorem

LADDER = (0.0, 0.5, 1.0, 2.0, 4.0)
SIDES = (1, -1)


def steps() -> list[tuple[int, float, float]]:
    """(side, inner |m|, outer |m|) for every step of the ladder on both sides, the right first."""
    return [(side, inner, outer) for side in SIDES for inner, outer in zip(LADDER, LADDER[1:])]


def relative_step(instance, measured) -> float:
    """One draw's step as the claim reads it: direction(side) (E(outer) - E(inner)) / E(0), where measured holds E at
    the step's inner and outer similarity (`inner`, `outer`), E(0) (`at_zero`) and the side (+1 or -1); the claimed
    direction of a rise away from 0 is `direction(side)`."""
    direction = instance.definition("direction")(measured["side"])
    return direction * (measured["outer"] - measured["inner"]) / measured["at_zero"]


def even_law(instance):
    """E(m) = 1 + m^2, even and increasing in |m|: its first left step (0 to -0.5) rises by 1/4."""
    return {"even law": {"inner": 1.0, "outer": 1.25, "at_zero": 1.0, "side": -1}}


THEOREM = Theorem(
    id="elasticity-monotone",
    title="The expected Elasticity rises with |zeta^T mu| on either side of 0 (the authors' monotonicity, as an "
          "expectation)",
    source="the authors of 'Emergence of alignment and local elasticity in two-layer neural networks' (ICLR 2025 "
           "submission, OpenReview oeLB25A9oO), replies to r1 W3, r4 and r5 [rebuttal]; the law per draw: "
           "elasticity-reference; docs/derivations/elasticity.md#elasticity-monotone",
    provenance="rebuttal",
    statement="for each step of 0 < 0.5 < 1 < 2 < 4 in |m| = |zeta^T mu|, on both sides, the mean over network draws "
              "of [E(+-m_(k+1)) - E(+-m_k)] / E(0) is positive, E the exact Elasticity of one draw",
    parameters=(
        *onestep.growing_step_parameters("0.3"),
        Parameter(name="dimension", description="n = d = N", kind="integer", default="120", lower=20, upper=1000),
    ),
    assumptions=(square_integrable(), onestep.square_integrable_teacher(), not_constant()),
    constants=(),
    predictions=(
        Prediction(name="rises-away-from-zero", kind="limit",
                   statement="mean over draws of direction(side) [E(+-m_(k+1)) - E(+-m_k)] / E(0) > 0 at every step "
                             "of the ladder, both sides",
                   predict=lambda instance: Target.above(0, note="mean relative step, at each step"),
                   observable=relative_step, references=even_law,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "a strict rise, whose nearest error is no dependence on the "
                                                      "similarity (the mutant flat-in-similarity): a pass rejects "
                                                      "equality at every step however small the rise, so no band is "
                                                      "allowed beyond the quadrature's round-off"),
                   resolution=lambda instance: 1e-12),
    ),
    mutants=(
        Mutant(name="increasing-in-m", description="the Elasticity increasing in the signed similarity m: on the "
               "left, the steps towards m = -4 fall", definitions={"direction": lambda side: side}),
        Mutant(name="flat-in-similarity", description="the expected Elasticity independent of the similarity: every "
               "step 0", predictions={"rises-away-from-zero": lambda instance: Target.point(0)}),
    ),
    nearness=Nearness("none-near", "a strict rise has no bound to nudge: its nearest error is equality, "
                      "flat-in-similarity, which a pass rejects at every step"),
    definitions={"direction": lambda side: 1},
)
