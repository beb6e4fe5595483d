"""The geometry of orthogonally separable data: Lemmas 5 and 11 of Min, Mallada and Vidal  [paper].

Setting (ICLR 2024, arXiv 2307.12851; docs/derivations/alignment.md#alignment-geometry). Data x_i with labels y_i = +-1
and signed
data z_i = y_i x_i satisfy Assumption 1 when mu = min_{i,j} cos(z_i, z_j) > 0. Then:
- Lemma 5: cos(z1, z2) >= mu for all non-zero z1, z2 in the cone K = cone{z_i}.
- Lemma 11: the signed activated sum x_a(w) = sum_{i: <x_i, w> > 0} y_i x_i satisfies
  ||x_a(w)|| >= sqrt(mu) n_a(w) X_min, with n_a(w) the number of points w activates and X_min = min_i ||x_i||.
  (||x_a||^2 = sum_{i,k active} <z_i, z_k> >= X_min^2 (mu n_a^2 + (1 - mu) n_a); [D].)

Both are searched for counterexamples with Hypothesis over data drawn inside random cones: random
spreads, norms and labels, filtered on mu > 0. For Lemma 5, z1, z2 are random sparse conic combinations; for
Lemma 11, w is random. The tight cases are always tried:
- Lemma 5 is attained at the pair defining mu.
- Lemma 11 is attained by a single point of norm X_min (ratio 1).
- Lemma 11 is nearly attained by many equal-norm points with all pairwise cosines mu
  (ratio sqrt(mu + (1 - mu)/n_a)/sqrt(mu)).
Named constants: `mu_power` (1/2 in Lemma 11), `cone_power` (1 in Lemma 5), `bound_scale` (1) multiplying
Lemma 11's right-hand side. Lemma 11 with mu in place of sqrt(mu) is a *weaker* statement (mu <= sqrt(mu)),
so no data can reject it. The mutants are stronger versions, and the data do reject those.
"""

from __future__ import annotations

import math

import sympy

from theorems.quantity import Quantity
from theorems.statement import Constant, Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem

CONSTANTS = (
    Constant.exactly("mu_power", sympy.Rational(1, 2), "the power of mu in Lemma 11"),
    Constant.exactly("cone_power", 1, "the power of mu in Lemma 5"),
    Constant.exactly("bound_scale", 1, "the factor on Lemma 11's bound"),
)



def _margin(note):
    return lambda instance: Target.at_least(0, note=note)


def lemma_5_margin(instance, measured):
    """min(cos(z1, z2), the smallest pairwise cosine) - mu^cone_power; +inf where mu <= 0 (outside Assumption 1)."""
    mu = measured["mu"]
    if mu <= 0:
        return math.inf
    return min(measured["cosine"], measured["extreme"]) - mu ** float(instance.constant("cone_power"))


def lemma_11_margin(instance, measured):
    """The smallest ||x_a(w)|| / (mu^mu_power n_a(w) X_min) - bound_scale over the measured w (activated-sum norms
    and counts); +inf where mu <= 0 or no w activates a point."""
    mu = measured["mu"]
    if mu <= 0:
        return math.inf
    power, scale = float(instance.constant("mu_power")), float(instance.constant("bound_scale"))
    return min((norm / (mu**power * count * measured["x_min"]) - scale
                for norm, count in zip(measured["norms"], measured["counts"]) if count), default=math.inf)


def equal_cosines(instance):
    """Lemma 5 at the pair defining mu (cos = mu = 1/4); Lemma 11 at one point of norm X_min (ratio 1) and at 100
    unit points with all pairwise cosines mu = 1/100 activated together: ||x_a||^2 = n_a + n_a (n_a - 1) mu
    (docs/derivations/alignment.md#alignment-geometry)."""
    mu, count = 0.01, 100
    return {"lemma-5": {"defining pair": {"cosine": 0.25, "extreme": 0.25, "mu": 0.25}},
            "lemma-11": {"one point": {"norms": [2.0], "counts": [1], "mu": 1.0, "x_min": 2.0},
                         "equal cosines": {"norms": [math.sqrt(count + count * (count - 1) * mu)], "counts": [count],
                                           "mu": mu, "x_min": 1.0}}}


THEOREM = Theorem(
    id="alignment-geometry",
    title="Orthogonally separable data: cos >= mu on the signed cone (Lemma 5), ||x_a(w)|| >= sqrt(mu) n_a X_min "
          "(Lemma 11)",
    source="Min, Mallada and Vidal, ICLR 2024 (arXiv 2307.12851), Lemmas 5 and 11; "
           "docs/derivations/alignment.md#alignment-geometry",
    provenance="paper",
    statement="for mu = min cos(y_i x_i, y_j x_j) > 0: cos(z1, z2) >= mu^cone_power on cone{y_i x_i}, and "
              "||x_a(w)|| >= bound_scale mu^mu_power n_a(w) X_min for every w",
    parameters=(
        Parameter(name="max_points", description="largest number of data points searched", kind="integer",
                  default="10", lower=1, upper=40),
        Parameter(name="max_dimension", description="largest input dimension searched", kind="integer", default="6",
                  lower=2, upper=20),
    ),
    assumptions=(),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="lemma-5", kind="inequality",
                   statement="min over searched cones and pairs of cos(z1, z2) - mu^cone_power >= 0",
                   predict=_margin("smallest margin found"), observable=lemma_5_margin,
                   references=lambda instance: equal_cosines(instance)["lemma-5"],
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.9%: the power of mu nudged to 0.95 (the kept near mutant) "
                                                      "moves the margin by 0.018 at the pair defining mu = 1/4, where "
                                                      "the lemma is attained: two resolutions. The margin is float64 "
                                                      "arithmetic on unit vectors (errors near 1e-15)"),
                   resolution=lambda instance: 0.009),
        Prediction(name="lemma-11", kind="inequality",
                   statement="min over searched data and w of ||x_a(w)|| / (mu^mu_power n_a X_min) - bound_scale >= 0",
                   predict=_margin("smallest relative margin found"), observable=lemma_11_margin,
                   references=lambda instance: equal_cosines(instance)["lemma-11"],
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the relative margin is exact arithmetic in float64 (errors "
                                                      "near 1e-15); 1e-6 leaves room, and how close the search came "
                                                      "to equality is reported as tightness"),
                   resolution=lambda instance: 1e-6),
    ),
    mutants=(
        Mutant(name="lemma-11-quarter-power", description="mu^(1/4) in place of sqrt(mu) (a stronger claim)",
               constants={"mu_power": lambda p, d: Quantity.exactly("mu_power", sympy.Rational(1, 4), d)}),
        Mutant(name="lemma-11-scaled", description="the right-hand side 5% larger",
               constant_factors={"bound_scale": 1.05}),
        Mutant(name="lemma-5-power-nudged", description="cos >= mu^0.95 on the cone (a near error: the pair "
               "defining mu attains mu)",
               constants={"cone_power": lambda p, d: Quantity.exactly("cone_power", sympy.Rational(19, 20), d)}),
        Mutant(name="lemma-5-sqrt", description="cos >= sqrt(mu) on the cone",
               constants={"cone_power": lambda p, d: Quantity.exactly("cone_power", sympy.Rational(1, 2), d)}),
    ),
)
