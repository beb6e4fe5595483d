"""Theorem A and Corollary A': approximate interpolation and balancedness of the head bound NC1 of the penultimate
features  [derived].

Source: docs/derivations/collapse.md#nc1-bound (derived for thmcheck, tight), the explicit form of conclusion (2) of
Jacot, Sukenik, Wang and Mondelli (ICLR 2025), Theorem 3.1, which reviews describe as
NC1 = O((eps1 + sqrt(eps2))^2); the paper's own constants are not confirmed against the paper.

Statement. With eps1 = ||Z_L - Y||_F < sqrt(n(K-1)), eps2 = ||W_L^T W_L - W_{L-1} W_{L-1}^T||_op,
omega = ||Z_{L-2}(I - Pi)||_F and s_1 >= s_K the extreme singular values of W_L,

    NC1_J(Z_{L-1}) <= bound_scale * s_1^2 (eps1/s_K + sqrt(eps2) omega)^2 / (sqrt(n(K-1)) - eps1)^2,

and, under the paper's hypothesis ||Z_{L-2}||_op, ||Z_{L-1}||_op, ||W_L||_op <= r with eps1 < sqrt(n),

    NC1_J(Z_{L-1}) <= bound_scale * r^2 [eps1 r/(sqrt(n) - eps1) + r sqrt(eps2 min(p, N - K))]^2 / (sqrt(n(K-1)) -
    eps1)^2.

Proof in one line: Z_{L-1} = W_L^+ Z_L + (I - P) W_{L-1} Z_{L-2} with ||(I - P) W_{L-1}||_op^2 <= eps2.
The bound is attained (ratio 1) at kappa(W_L) = 1, eps1 = 0, with a rank-one within-class spread along
the imbalance outside the row space of W_L: the check evaluates that instance in mpmath at `digits`.

Each prediction's observable is a function of the measured quantities {eps1, eps2, s_first, s_last, omega, radius,
input_width, nc1}; the references are the shrinking heads of docs/derivations/collapse.md#nc1-bound.
"""

from __future__ import annotations

import math

import mpmath

from theorems.collapse import bounds as collapse
from theorems.statement import Mutant, Prediction, ResolutionReason, Target, Theorem


def _margin_target(instance):
    return Target.at_least(0, note="smallest margin bound_scale - NC1/bound over the searched heads")


def _tight_target(instance):
    return Target.point(1, note="NC1 / (bound_scale * bound) on the tight instance")


def _bound(instance, measured):
    return instance.definition("nc1_bound")(measured["eps1"], measured["eps2"], measured["s_first"],
                                            measured["s_last"], measured["omega"], instance["per_class"],
                                            instance["classes"])


def theorem_a_margin(instance, measured):
    """bound_scale - NC1_J / bound; +inf where eps1 >= sqrt(n(K-1)), outside the hypothesis (nothing is claimed)."""
    if measured["eps1"] >= math.sqrt(instance["per_class"] * (instance["classes"] - 1)):
        return mpmath.inf
    return instance.constant("bound_scale") - measured["nc1"] / _bound(instance, measured)


def corollary_margin(instance, measured):
    """bound_scale - NC1_J / (the bound in terms of r); +inf where eps1 >= sqrt(n), outside the hypothesis."""
    classes, per_class = instance["classes"], instance["per_class"]
    if measured["eps1"] >= math.sqrt(per_class):
        return mpmath.inf
    bound = instance.definition("nc1_bound_radius")(measured["eps1"], measured["eps2"], measured["radius"],
                                                    per_class, classes, measured["input_width"], classes * per_class)
    return instance.constant("bound_scale") - measured["nc1"] / bound


def tight_ratio(instance, measured):
    """NC1_J / (bound_scale * bound), at `digits` digits."""
    with mpmath.workdps(instance["digits"]):
        return measured["nc1"] / (instance.constant("bound_scale") * _bound(instance, measured))


def shrinking_heads(instance):
    """Heads with kappa(W_L) = 1 whose output error only shrinks the class separation (Z_L (I - Pi) = Y (I - Pi))
    and whose within-class spread lies on the imbalance outside W_L's row space: with s = s_1 = s_K,
    NC1_J = s^2 eps2 omega^2 / (sqrt(n(K-1)) - eps1)^2 (docs/derivations/collapse.md#nc1-bound). At eps1 = 0 this is
    the bound's equality case; at eps1 = sqrt(n(K-1))/20 it shows the -eps1 of the denominator."""
    with mpmath.workdps(instance["digits"]):
        separation = collapse.between_class_norm(instance["per_class"], instance["classes"])
        scale = mpmath.mpf(13) / 10
        eps2, omega = scale**2 / 10, mpmath.mpf(10)
        return {name: {"eps1": eps1, "eps2": eps2, "s_first": scale, "s_last": scale, "omega": omega,
                       "nc1": scale**2 * eps2 * omega**2 / (separation - eps1) ** 2}
                for name, eps1 in (("equality", mpmath.mpf(0)), ("shrinking", separation / 20))}


def _without_sqrt(eps1, eps2, s_first, s_last, omega, per_class, classes):
    return collapse.nc1_bound(eps1, mpmath.mpf(eps2) ** 2, s_first, s_last, omega, per_class, classes)


def _without_eps1_in_denominator(eps1, eps2, s_first, s_last, omega, per_class, classes):
    eps1 = mpmath.mpf(eps1)
    shrink = (collapse.between_class_norm(per_class, classes) - eps1) / collapse.between_class_norm(per_class, classes)
    return collapse.nc1_bound(eps1, eps2, s_first, s_last, omega, per_class, classes) * shrink**2


THEOREM = Theorem(
    id="nc1-bound",
    title="NC1 of the penultimate features from approximate interpolation and balancedness (Theorem A)",
    source="derived for thmcheck (docs/derivations/collapse.md#nc1-bound), explicit form of Jacot, Sukenik, Wang and "
           "Mondelli (ICLR 2025) Theorem 3.1 (2)",
    provenance="derived",
    statement="NC1_J(Z_{L-1}) <= s_1(W_L)^2 (eps1/s_K(W_L) + sqrt(eps2) ||Z_{L-2}(I - Pi)||_F)^2 / "
              "(sqrt(n(K-1)) - eps1)^2 when eps1 < sqrt(n(K-1)); Corollary A': the same in terms of r",
    parameters=collapse.SHAPE_PARAMETERS,
    assumptions=(),
    constants=(collapse.BOUND_SCALE,),
    predictions=(
        Prediction(name="theorem-a", kind="inequality",
                   statement="for every generated head (docs/derivations/collapse.md#nc1-bound, adversarial and tight "
                             "ones included), NC1_J <= bound_scale * bound, with eps1, eps2, s_1, s_K, omega measured "
                             "from the matrices",
                   predict=_margin_target, observable=theorem_a_margin, references=shrinking_heads,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the margin is float64 linear algebra on the searched instance "
                                                      "(about 1e-13); 1e-6 leaves room; the tight instance (in "
                                                      "mpmath) shows how close the bound comes"),
                   resolution=lambda instance: 1e-6),
        Prediction(name="corollary-a-prime", kind="inequality",
                   statement="the same heads with eps1 < sqrt(n): NC1_J <= bound_scale * (the bound in terms of r)",
                   predict=_margin_target, observable=corollary_margin,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the margin is float64 linear algebra on the searched instance "
                                                      "(about 1e-13); 1e-6 leaves room"),
                   resolution=lambda instance: 1e-6),
        Prediction(name="tight", kind="identity",
                   statement="at kappa(W_L) = 1, eps1 = 0 and adversarial within-class spread the bound is attained: "
                   "NC1_J / bound = 1 (mpmath at `digits` digits)",
                   predict=_tight_target, observable=tight_ratio,
                   references=lambda instance: {"equality": shrinking_heads(instance)["equality"]},
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "1%: the nearest plausible error of a sharp bound is a lossy "
                                                      "step, and the kept one (the bound 2% weaker, loosened) is two "
                                                      "resolutions away; the tight instance is evaluated in mpmath at "
                                                      "`digits` digits, far below it"),
                   resolution=lambda instance: 0.01),
    ),
    mutants=(
        Mutant(name="halved", description="the bound multiplied by 1/2", constant_factors={"bound_scale": 0.5}),
        Mutant(name="eps2-not-square-rooted", description="eps2 in place of sqrt(eps2)",
               definitions={"nc1_bound": _without_sqrt}),
        Mutant(name="denominator-eps1-dropped", description="denominator n(K-1) instead of (sqrt(n(K-1)) - eps1)^2",
               definitions={"nc1_bound": _without_eps1_in_denominator}),
        Mutant(name="loosened",
               description="a bound 2% weaker than the true one, which the tight instance shows is not sharp",
               constant_factors={"bound_scale": 1.02}),
    ),
    definitions={"nc1_bound": collapse.nc1_bound, "nc1_bound_radius": collapse.nc1_bound_radius},
)
