"""The penultimate features are the pseudo-inverse of the head applied to the outputs, up to sqrt(eps2)  [derived].

Source: docs/derivations/collapse.md#pseudo-inverse-features (derived for thmcheck): the key step behind Jacot, Sukenik,
Wang and
Mondelli (ICLR 2025) Theorem 3.1, whose proof works with W_L^+ and the projection onto W_L's row space.

Statement. With P = W_L^+ W_L and eps2 = ||W_L^T W_L - W_{L-1} W_{L-1}^T||_op,

    Z_{L-1} - W_L^+ Z_L = (I - P) W_{L-1} Z_{L-2},   so   ||Z_{L-1} - W_L^+ Z_L||_F <= sqrt(eps2) ||Z_{L-2}||_F,

and at exact balance (eps2 = 0) Z_{L-1} = W_L^+ Z_L exactly: when Z_L = Y the features are W_L^+ Y,
with no within-class spread.
"""

from __future__ import annotations

import mpmath

from theorems.collapse import bounds as collapse
from theorems.statement import Mutant, Prediction, ResolutionReason, Target, Theorem


def bound_margin(instance, measured):
    """bound_scale - ||Z_{L-1} - W_L^+ Z_L||_F / (sqrt(eps2) ||Z_{L-2}||_F)."""
    bound = instance.definition("pseudo_inverse_bound")(measured["eps2"], measured["input_norm"])
    return instance.constant("bound_scale") - measured["residual"] / bound


def unseen_input(instance):
    """A head whose input Z_{L-2} lies wholly in the directions W_{L-1} maps outside W_L's row space, each at the
    imbalance's full norm: Z_L = 0 and the residual is sqrt(eps2) ||Z_{L-2}||_F, the bound's equality case
    (docs/derivations/collapse.md#pseudo-inverse-features)."""
    eps2, input_norm = mpmath.mpf(1) / 100, mpmath.mpf(3)
    return {"equality": {"eps2": eps2, "input_norm": input_norm, "residual": mpmath.sqrt(eps2) * input_norm}}


def _without_sqrt(eps2, input_frobenius_norm):
    return mpmath.mpf(eps2) * mpmath.mpf(input_frobenius_norm)


THEOREM = Theorem(
    id="pseudo-inverse-features",
    title="Penultimate features equal W_L^+ Z_L up to sqrt(eps2) ||Z_{L-2}||_F",
    source="derived for thmcheck (docs/derivations/collapse.md#pseudo-inverse-features), a step of Jacot, Sukenik, "
           "Wang and Mondelli (ICLR 2025)",
    provenance="derived",
    statement="||Z_{L-1} - W_L^+ Z_L||_F <= sqrt(eps2) ||Z_{L-2}||_F, with equality to zero at exact balance",
    parameters=collapse.SHAPE_PARAMETERS,
    assumptions=(),
    constants=(collapse.BOUND_SCALE,),
    predictions=(
        Prediction(name="bound", kind="inequality",
                   statement="for every generated head: ||Z_{L-1} - W_L^+ Z_L||_F <= bound_scale sqrt(eps2) "
                             "||Z_{L-2}||_F (eps2 measured)",
                   predict=lambda instance: Target.at_least(0, note="smallest margin bound_scale - residual/bound"),
                   observable=bound_margin, references=unseen_input,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "2.5%: the bound 5% low (the kept near mutant) is two "
                                                      "resolutions away at the equality case; the margin is float64 "
                                                      "linear algebra (about 1e-13) and the search reaches 0.99997 of "
                                                      "the bound"),
                   resolution=lambda instance: 0.025),
        Prediction(name="exact-balance", kind="identity",
                   statement="at eps2 = 0 (mpmath at `digits` digits): ||Z_{L-1} - W_L^+ Z_L||_F / ||Z_{L-1}||_F = 0",
                   predict=lambda instance: Target.point(0, note="relative residual at exact balance"),
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the balanced instance is evaluated in mpmath at `digits` "
                                                      "digits; five digits are left for cancellation"),
                   resolution=lambda instance: 10.0 ** (5 - instance["digits"])),
    ),
    mutants=(
        Mutant(name="eps2-not-square-rooted", description="eps2 in place of sqrt(eps2)",
               definitions={"pseudo_inverse_bound": _without_sqrt}),
        Mutant(name="halved", description="the bound multiplied by 1/2", constant_factors={"bound_scale": 0.5}),
        Mutant(name="five-percent-low", description="the bound 5% smaller (a near error: the search reaches "
               "0.99997 of it)", constant_factors={"bound_scale": 0.95}),
    ),
    definitions={"pseudo_inverse_bound": collapse.pseudo_inverse_bound},
)
