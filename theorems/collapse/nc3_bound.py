"""Theorem D: features align with their class's classifier row, above the Kantorovich floor 2 kappa/(1 + kappa^2)
[derived].

Source: docs/derivations/collapse.md#nc3-bound (derived for thmcheck), the explicit form of conclusion (5) of Jacot,
Sukenik, Wang and Mondelli (ICLR 2025) Theorem 3.1 (NC3 >~ f(kappa(W_L)) - O(eps1 + sqrt(eps2)));
the paper's constants are not confirmed against the paper.

Statement. Exact case (eps1 = eps2 = 0): z_ci = W_L^+ e_c, and with M = W_L W_L^T,
cos(z_ci, w_c) = 1/sqrt(e_c^T M e_c e_c^T M^{-1} e_c) >= 2 kappa/(1 + kappa^2), kappa = kappa(W_L), by
Kantorovich's inequality, with equality when e_c = (u_1 + u_K)/sqrt(2) (u: left singular vectors).
Per sample, with rho = ||z^L_ci - e_c|| < 1,

    cos(z_ci, w_c) >= (1 - rho) / (||w_c|| (||W_L^+ e_c|| + rho/s_K + sqrt(eps2) ||z^{L-2}_ci||)).

NC3_J (the mean cosine) = 1 needs only W_L W_L^T diagonal; NC2 needs kappa -> 1. bound_scale
multiplies the per-sample bound.
"""

from __future__ import annotations

import mpmath

from theorems.collapse import bounds as collapse
from theorems.statement import Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem


def _floor_target(instance):
    with mpmath.workdps(instance["digits"] + 10):
        floor = instance.definition("kantorovich_floor")(instance["kappa"])
    return Target.point(floor, note="2 kappa/(1 + kappa^2), attained")


def per_sample_margin(instance, measured):
    """min over samples with rho < 1 of cos(z_ci, w_c)/bound - bound_scale; +inf where no sample has rho < 1. Each
    entry of `measured` but s_last and eps2 is a per-sample sequence: cosines, distances (rho), row_norms (||w_c||),
    pinv_norms (||W_L^+ e_c||), input_norms (||z^{L-2}_ci||)."""
    bound = instance.definition("nc3_sample_bound")
    margins = [cosine / float(bound(distance, row, pinv, measured["s_last"], measured["eps2"], norm))
               for cosine, distance, row, pinv, norm in zip(measured["cosines"], measured["distances"],
                                                            measured["row_norms"], measured["pinv_norms"],
                                                            measured["input_norms"])
               if distance < 1]
    return min(margins) - instance.constant("bound_scale") if margins else mpmath.inf


def floor_margin(instance, measured):
    """min_c cos(W_L^+ e_c, w_c) / floor(kappa(W_L)) - 1, kappa measured."""
    return min(measured["cosines"]) / instance.definition("kantorovich_floor")(measured["kappa"]) - 1


def exact_heads(instance):
    """At eps1 = eps2 = 0 (rho = 0), z = W_L^+ e_c and w_c . z = 1, so cos = 1/(||w_c|| ||W_L^+ e_c||) and the
    per-sample bound holds with equality (docs/derivations/collapse.md#nc3-bound); here ||w_c|| = 2, ||W_L^+ e_c|| =
    3/4."""
    return {"equality": {"cosines": [mpmath.mpf(2) / 3], "distances": [0], "row_norms": [2],
                         "pinv_norms": [mpmath.mpf(3) / 4], "input_norms": [1], "s_last": 1, "eps2": 0}}


def _inverse_square_floor(kappa):
    return 1 / mpmath.mpf(kappa) ** 2 + mpmath.mpf("0.01")


THEOREM = Theorem(
    id="nc3-bound",
    title="NC3: cosine of features and classifier rows above the Kantorovich floor (Theorem D)",
    source="derived for thmcheck (docs/derivations/collapse.md#nc3-bound), explicit form of Jacot, Sukenik, Wang and "
           "Mondelli (ICLR 2025) Theorem 3.1 (5); Kantorovich's inequality",
    provenance="derived",
    statement="exact case: cos(W_L^+ e_c, w_c) >= 2 kappa/(1 + kappa^2), attained; per sample: cos(z_ci, w_c) >= "
              "(1 - rho)/(||w_c|| (||W_L^+ e_c|| + rho/s_K + sqrt(eps2) ||z^{L-2}_ci||))",
    parameters=collapse.SHAPE_PARAMETERS + (
        Parameter(name="kappa", description="kappa(W_L) of the attaining instance", kind="real", default="3",
                  lower=1.0, upper=1e6),),
    assumptions=(),
    constants=(collapse.BOUND_SCALE,),
    predictions=(
        Prediction(name="per-sample", kind="inequality",
                   statement="for every generated head and every sample with rho < 1: cos(z_ci, w_c) >= bound_scale * "
                             "bound",
                   predict=lambda instance: Target.at_least(0, note="smallest margin cos/bound - bound_scale"),
                   observable=per_sample_margin, references=exact_heads,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "2.5%: the bound 5% high (the kept near mutant) is two "
                                                      "resolutions away at the exact heads, where the bound is an "
                                                      "equality; the margin is float64 linear algebra (about 1e-13) "
                                                      "and the search reaches 0.997 of the bound"),
                   resolution=lambda instance: 0.025),
        Prediction(name="kantorovich-floor", kind="inequality",
                   statement="for every exactly interpolating, exactly balanced head: min_c cos(W_L^+ e_c, w_c) >= "
                   "floor(kappa(W_L))",
                   predict=lambda instance: Target.at_least(0, note="smallest margin cos/floor - 1"),
                   observable=floor_margin,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the margin is float64 arithmetic on the searched instance "
                                                      "(about 1e-13); 1e-6 leaves room"),
                   resolution=lambda instance: 1e-6),
        Prediction(name="attained", kind="identity",
                   statement="with e_c = (u_1 + u_K)/sqrt(2), min_c cos(W_L^+ e_c, w_c) equals the floor at kappa "
                   "(mpmath at `digits` digits)", predict=_floor_target,
                       resolution_reason=ResolutionReason("numerical-accuracy",
                                                          "the attaining instance is evaluated in mpmath at `digits` "
                                                          "digits; five digits are left for cancellation"),
                       resolution=lambda instance: 10.0 ** (5 - instance["digits"])),
    ),
    mutants=(
        Mutant(name="inverse-square-floor", description="the floor replaced by 1/kappa^2 + 0.01",
               definitions={"kantorovich_floor": _inverse_square_floor}),
        Mutant(name="perfect-alignment", description="cos = 1 claimed whatever kappa(W_L) (NC3 without conditioning)",
               definitions={"kantorovich_floor": lambda kappa: mpmath.mpf(1)}),
        Mutant(name="doubled", description="the per-sample bound doubled", constant_factors={"bound_scale": 2.0}),
        Mutant(name="five-percent-high", description="the per-sample bound 5% higher (a near error: the search "
               "reaches 0.997 of it)", constant_factors={"bound_scale": 1.05}),
    ),
    definitions={"kantorovich_floor": collapse.kantorovich_floor, "nc3_sample_bound": collapse.nc3_sample_bound},
)
