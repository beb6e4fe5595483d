"""Theorem C: the condition number of the class means of the penultimate features is bracketed around kappa(W_L)
[derived].

Source: docs/derivations/collapse.md#nc2-bracket (derived for thmcheck), the explicit form of conclusion (4) of Jacot,
Sukenik, Wang and Mondelli (ICLR 2025) Theorem 3.1 (kappa of the means <~ kappa(W_L) + O(eps1 + sqrt(eps2)));
the paper's constants are not confirmed against the paper.

Statement. Let Zbar = Z_{L-1} B be the uncentred class means (B = (1/n)(I_K kron 1_n)), s_1 >= s_K the
extreme singular values of W_L and delta_2 = eps1/(sqrt(n) s_K) + sqrt(eps2) ||Z_{L-2} B||_op. Since
Zbar = W_L^+ (I_K + (Z_L - Y) B) + (I - P) W_{L-1} Z_{L-2} B, Weyl's inequality gives

    (1/s_K - delta_2)/(1/s_1 + delta_2) <= NC2_J = kappa(Zbar) <= (1/s_K + delta_2)/(1/s_1 - delta_2)

(the upper side when delta_2 < 1/s_1). At delta_2 = 0, kappa(Zbar) = kappa(W_L): the means form an
orthogonal frame (NC2_J = 1) only if W_L is perfectly conditioned. bound_scale multiplies delta_2;
whether the bracket is attained is not established (docs/derivations/collapse.md#nc2-bracket reports 0 violations, no
tight family), so no mutant narrows it by a factor. The search measures how much of the bracket NC2_J uses from its
centre kappa(W_L) (the share of delta_2's room): about 0.36 at quick fidelity and 0.4-0.55 at default, so a delta_2
too small by a factor 2 or more may be caught, a few percent never.
"""

from __future__ import annotations

import math

import mpmath

from theorems.collapse import bounds as collapse
from theorems.statement import Mutant, Nearness, Parameter, Prediction, ResolutionReason, Target, Theorem


def _orthogonal_frame(s_first, s_last, delta2):
    """The mutant: the bracket of a perfectly conditioned head, i.e. NC2_J -> 1 whatever kappa(W_L)."""
    return collapse.nc2_bracket(s_last, s_last, delta2)


def bracket_margin(instance, measured):
    """1 - the share of the bracket that NC2_J = kappa(Zbar) uses from its centre kappa(W_L) = s_1/s_K
    (`bounds.bracket_share`): >= 0 exactly where the bracket holds; -inf where NC2_J sits off a bracket of no width.
    A bracket that misses its centre (a mutant's) has no share: 0 where NC2_J lies in it, -inf where not."""
    delta2 = collapse.nc2_perturbation(measured["eps1"], measured["eps2"], instance["per_class"], measured["s_last"],
                                       measured["input_means_norm"]) * instance.constant("bound_scale")
    lower, upper = map(float, instance.definition("nc2_bracket")(measured["s_first"], measured["s_last"], delta2))
    centre, value = float(measured["s_first"] / measured["s_last"]), float(measured["nc2"])
    if not lower <= centre <= upper:
        return 0.0 if lower <= value <= upper else -math.inf
    share = collapse.bracket_share(lower, centre, value, upper)
    return 1 - share if math.isfinite(share) else -math.inf


def known_heads(instance):
    """Two heads whose NC2_J is known in closed form (docs/derivations/collapse.md#nc2-bracket): an exact one (eps1 =
    eps2 = 0), where NC2_J = kappa(W_L), here 3; and one with kappa(W_L) = 1, eps2 = 0 and an output error that only
    shrinks the class separation by c = eps1/sqrt(n(K-1)), whose means W_L^+ (I - c(I - 11^T/K)) have
    NC2_J = 1/(1 - c)."""
    eps1 = mpmath.mpf(1) / 2
    shrink = eps1 / collapse.between_class_norm(instance["per_class"], instance["classes"])
    return {"exact": {"eps1": 0, "eps2": 0, "s_first": 3, "s_last": 1, "input_means_norm": 1, "nc2": 3},
            "shrinking": {"eps1": eps1, "eps2": 0, "s_first": 1, "s_last": 1, "input_means_norm": 1,
                          "nc2": 1 / (1 - shrink)}}


def guard_digits(instance) -> int:
    """Digits the exact case carries beyond `digits`: its Gram matrices square kappa(W_L), 2 log10(kappa) of them."""
    return 2 * math.ceil(math.log10(float(instance["kappa"])))


def closed_bracket_distance(instance, measured):
    """At eps1 = eps2 = 0 (delta_2 = 0): the larger distance of kappa(Zbar) (`nc2`) to the bracket's two sides around
    s_1/s_K, relative to kappa(Zbar), in mpmath at `digits` plus the guard digits."""
    with mpmath.workdps(instance["digits"] + guard_digits(instance)):
        lower, upper = instance.definition("nc2_bracket")(measured["s_first"], measured["s_last"], 0)
        value = measured["nc2"]
        return max(abs(value - lower), abs(upper - value)) / value


def exact_head_of_kappa_three(instance):
    """An exact head (eps1 = eps2 = 0) with kappa(W_L) = 3: its class means are W_L^+, so kappa(Zbar) = 3."""
    return {"exact head": {"s_first": mpmath.mpf(3), "s_last": mpmath.mpf(1), "nc2": mpmath.mpf(3)}}


THEOREM = Theorem(
    id="nc2-bracket",
    title="NC2: kappa of the class means within O(eps1 + sqrt(eps2)) of kappa(W_L) (Theorem C)",
    source="derived for thmcheck (docs/derivations/collapse.md#nc2-bracket), explicit form of Jacot, Sukenik, Wang and "
           "Mondelli (ICLR 2025) Theorem 3.1 (4)",
    provenance="derived",
    statement="(1/s_K - delta_2)/(1/s_1 + delta_2) <= kappa(Z_{L-1} B) <= (1/s_K + delta_2)/(1/s_1 - delta_2), "
              "delta_2 = eps1/(sqrt(n) s_K) + sqrt(eps2) ||Z_{L-2} B||_op",
    parameters=collapse.SHAPE_PARAMETERS + (
        Parameter(name="kappa", description="kappa(W_L) of the exact instance", kind="real", default="3", lower=1.0,
                  upper=1e6),),
    assumptions=(),
    constants=(collapse.BOUND_SCALE,),
    predictions=(
        Prediction(name="bracket", kind="inequality",
                   statement="for every generated head, both sides of the bracket hold (measured eps1, eps2, s_1, s_K)",
                   predict=lambda instance: Target.at_least(0, note="smallest 1 - (share of the bracket "
                                                            "kappa(Zbar) uses, from its centre kappa(W_L))"),
                   observable=bracket_margin, references=known_heads,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the share of the bracket used is float64 linear algebra "
                                                      "(about 1e-13); 1e-6 leaves room; delta_2 is about 2x loose on "
                                                      "these heads (tightness 0.4), so only errors of its own scale "
                                                      "are rejected"),
                   resolution=lambda instance: 1e-6),
        Prediction(name="exact", kind="identity",
                   statement="at eps1 = eps2 = 0 the bracket closes: kappa(Zbar) / kappa(W_L) - 1 = 0 (mpmath at "
                             "`digits` digits); the observed value is the larger relative distance to the two sides",
                   predict=lambda instance: Target.point(0, note="relative distance to the closed bracket"),
                   observable=closed_bracket_distance, references=exact_head_of_kappa_three,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the exact case is evaluated in mpmath at `digits` digits "
                                                      "plus 2 log10(kappa) guard digits (its Gram matrices square "
                                                      "kappa); five digits are left for cancellation"),
                   resolution=lambda instance: 10.0 ** (5 - instance["digits"])),
    ),
    nearness=Nearness("tightness", "delta_2 is about 2x loose on these heads (share 0.4), so only errors of its own "
                                   "scale can be rejected"),
    mutants=(
        Mutant(name="orthogonal-frame-regardless",
               description="the means claimed to form an orthogonal frame (bracket around 1) "
               "whatever kappa(W_L)", definitions={"nc2_bracket": _orthogonal_frame}),
        Mutant(name="perturbation-dropped",
               description="kappa(Zbar) = kappa(W_L) claimed whatever eps1 and eps2 (delta_2 = 0)",
               constant_factors={"bound_scale": 0.0}),
    ),
    definitions={"nc2_bracket": collapse.nc2_bracket},
)
