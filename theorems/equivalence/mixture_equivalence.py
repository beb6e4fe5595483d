"""Gaussian-mixture data: after one step the Hermite model at scale b reproduces the network's ridge errors
(Demir and Dogan, Thms 3-4)  [secondary].

Claim (Demir and Dogan, ICLR 2025, arXiv 2503.00856; docs/derivations/equivalence.md#mixture-equivalence, from reviews
[S] and the authors' code
[C]). Data come from a two-component Gaussian mixture with zero means and spiked covariances I + theta g_c g_c^T,
theta = n^(beta (1 - alpha)); the learning rate is eta = n^(alpha beta), so eta ||Sigma|| ~ n^beta. After one step,
ridge regression on the network's features sigma(F^ x) and on the Hermite model's features give the same training
error, and under an extra assumption (A.9, not confirmed) the same generalization error. The Hermite model is

    sigma^(u) = sum_{j <= D} c_j(b) He_j(u/b) + h*(b) z,   b = sqrt(n / Tr Sigma_c),   D = ceil(beta/(1 - beta)),

with c_j(b) = E[sigma(b Z) He_j(Z)]/j! (probabilists' Hermite polynomials), h*(b)^2 = E sigma(b Z)^2 - sum_j j! c_j(b)^2
and z independent N(0, 1). It replaces sigma in the ridge stage only.

Why the scale b (Theorem 3's mechanism, [S], explained here and not claimed: nothing in the check measures it):
conditionally on the mixture component and on the structural coordinates g_c^T x, the features are
Gaussian-equivalent, and the bulk part of F^ x has variance b^2. Conventions of the experiment:
`checkers.equivalence.mixture_readout`.

Named constants: `degree` = D, and `rest` = h*_D at unit scale (the limit of h*(b) as b = 1 - O(n^(beta(1-alpha) - 1))
tends to 1). The simulation uses h*(b) times rest / h*_D, so `--set rest=0` drops the Gaussian rest.

Check: the paired relative gaps (Hermite - network)/network of the generalization and the train error at n = m = k =
125, 250 and 500 (four and two times as many draws at the smaller sizes, which cost a tenth and a third as much), and
at paper fidelity also at 1000, the size of Demir and Dogan's Fig. 1.
- `generalization-gap`, `train-gap` (limits): the theorem's claim. No rate is derived (the paper gives none), so the
  gaps are extrapolated as L + B n^-e with e only bounded, 1/2 <= e <= 2 around the nominal 1/n, and the spread of
  the limits the sizes accept is a systematic bound in the test (`checkers.convergence.bounded_extrapolation`).
- `generalization-gap-at-500`, `train-gap-at-500` (finite n): the reference protocol's criterion, |gap| <= 3% at
  n = 500 (spec protocol P-D1, [S]: its source is not confirmed against the paper), read at n = 500 as it is.
The model without the linear term (`degree-one-short`) runs at beta = 0.45, inside D = 1's interval (0, 1/2).
Theorem 4's intervals (l - 2)/(l - 1) < beta < (l - 1)/l are open: beta = 1/2, 2/3 and 3/4, where D changes, are
outside the statement.

Measurements behind the defaults (the ridge penalty, the degree rule, how weak the comparison is by nature):
docs/derivations/equivalence.md#mixture-equivalence.
"""

from __future__ import annotations

import functools
import math

import mpmath
import sympy

from theorems.activations import Activation, from_expression, z
from theorems.hermite import hermite_coefficients, second_moment, square_root
from theorems.quantity import Quantity, combine
from theorems.statement import (
    Assumption,
    Constant,
    Instance,
    Mutant,
    Nearness,
    Parameter,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
    integer_constant,
)

MAX_DEGREE = 4


def hermite_degree(beta: float) -> int:
    """D = ceil(beta/(1 - beta)), the authors' code's rule: degree D for beta in ((D - 1)/D, D/(D + 1)] (at least 1),
    whose interior is Theorem 4's open interval; unbounded at beta = 1 (OverflowError, which the degree's assumption
    reports)."""
    if beta >= 1:
        raise OverflowError(f"ceil(beta/(1 - beta)) is unbounded at beta = {beta:g}")
    return max(math.ceil(beta / (1 - beta) - 1e-12), 1)


def _round_off_to_zero(variance):
    """A numeric variance a few ulps below zero (sigma a polynomial of degree <= D) is zero; exact ones pass."""
    return max(variance, mpmath.mpf(0)) if isinstance(variance, mpmath.mpf) else variance


@functools.lru_cache(maxsize=32)
def scaled_activation(sigma: Activation, scale: float) -> Activation:
    """u -> sigma(b u): the activation seen by a preactivation of variance b^2 (sigma itself at b = 1)."""
    if scale == 1:
        return sigma
    return from_expression(sigma.expression.subs(z, sympy.Float(scale, 30) * z), name=f"{sigma.name} at scale {scale}")


def hermite_model(sigma: Activation, degree: int, digits: int, scale: float = 1.0) -> tuple[list[Quantity], Quantity]:
    """(c_0(b) .. c_degree(b), h*(b)): c_j(b) = E[sigma(b Z) He_j(Z)]/j! (probabilists' He_j) and the rest
    h*(b) = sqrt(E sigma(b Z)^2 - sum_{j <= degree} j! c_j(b)^2), exact where sympy finds a closed form (b = 1)."""
    scaled = scaled_activation(sigma, scale)
    route = "auto" if scale == 1 else "mpmath"
    table = hermite_coefficients(scaled, max(degree, 0), digits=digits, route=route)
    coefficients = [table.quantity(j) for j in range(degree + 1)]
    rest = combine("rest", digits, [second_moment(scaled, digits=digits, route=route)] + coefficients,
                   lambda moment, *c: square_root(_round_off_to_zero(moment - sum(math.factorial(j) * cj**2
                                                                                  for j, cj in enumerate(c)))))
    return coefficients, rest


def _rest(parameters, dependencies, digits):
    """h*_degree at unit scale; a degree outside 0..4 is reported by the integer-degree assumption, and the rest
    is then taken at degree 0."""
    degree = dependencies["degree"].value
    whole = int(degree) if degree == int(degree) and 0 <= degree <= MAX_DEGREE else 0
    return hermite_model(parameters["activation"], whole, digits)[1]


CONSTANTS = (
    Constant.of_parameters("degree", lambda parameters, digits: Quantity.exactly(
        "degree", hermite_degree(float(parameters["beta"])), digits), "ceil(beta/(1 - beta))"),
    Constant(name="rest", derive=_rest, depends_on=("degree",), description="h*_degree at unit scale"),
)


# The boundaries of Theorem 4's open intervals (l - 2)/(l - 1) < beta < (l - 1)/l, where the degree D = l - 1 changes
INTERVAL_ENDS = tuple(sympy.Rational(degree, degree + 1) for degree in range(1, MAX_DEGREE))


def _strength(instance: Instance) -> str | None:
    beta = sympy.Rational(str(instance["beta"]))
    if not 0 < beta < sympy.Rational(MAX_DEGREE, MAX_DEGREE + 1):
        return (f"beta = {instance['beta']} outside (0, 4/5): Theorem 4's intervals start at 0, and above 4/5 D > 4, "
                "beyond the authors' code, which caps the degree at 4 (their Fig. 1 caps it for numerical stability)")
    if beta in INTERVAL_ENDS:
        below = int(beta / (1 - beta))
        return (f"beta = {beta} is the boundary between D = {below} and D = {below + 1}: Theorem 4's intervals "
                "(l - 2)/(l - 1) < beta < (l - 1)/l are open")
    return None


LIMIT_RESOLUTION = 0.03
LIMIT_REASON = ("3%: the reference protocol's criterion for equal errors (|gap| <= 3% at n = 500, spec P-D1, a "
                "secondary source's; the paper states no tolerance) taken as the limit's resolution; the nearest "
                "named error, the degree one short (at beta = 0.45), moves the train gap's limit by +9.5%, three "
                "resolutions (seed 0), while its generalization gap falls like log n and is mostly unresolved as a "
                "limit")
# The reference protocol's band for the gap at n = 500 (spec P-D1, [S]), and what the draws there resolve beside it
# (measured: 1.1-2.0% at quick fidelity over 20 seeds, 0.7-1.0% at default over 6)
PROTOCOL_BAND = 0.03
PROTOCOL_SIZE = 500
BAND_RESOLUTION = 2 * PROTOCOL_BAND + 0.02
BAND_REASON = (f"{BAND_RESOLUTION:.0%}: the band, {2 * PROTOCOL_BAND:.0%} wide (the reference protocol P-D1's "
               f"criterion, a secondary source's, not the paper's), and what the draws at n = {PROTOCOL_SIZE} "
               "resolve beside it: up to 2.0% at quick fidelity, 1% at default")


def _gap(instance: Instance) -> Target:
    return Target.point(0, note=(
        "relative gap (Hermite - network)/network as n = m = k grows, extrapolated from n = 125, 250, 500 (and 1000 "
        "at paper fidelity) with the exponent bounded in [1/2, 2]"))


def _protocol_band(instance: Instance) -> Target:
    return Target.around(0, PROTOCOL_BAND, note=(
        f"relative gap (Hermite - network)/network at n = m = k = {PROTOCOL_SIZE}, within the reference protocol's "
        f"+-{PROTOCOL_BAND:.0%} (spec P-D1, secondary)"))


THEOREM = Theorem(
    id="mixture-equivalence",
    title="Gaussian mixtures: the Hermite model at scale b and degree ceil(beta/(1-beta)) reproduces the NN's errors",
    source="Demir and Dogan, 'Asymptotic analysis of two-layer neural networks after one gradient step under "
           "Gaussian mixtures data with structure', ICLR 2025 (arXiv 2503.00856), Theorems 3-4 as reviews report them; "
           "conventions from KU-MLIP/2-Layer-NNs-with-Gaussian-Mixtures-Data",
    provenance="secondary",
    statement="ridge train and generalization errors with sigma^(u) = sum_{j <= D} c_j(b) He_j(u/b) + h*(b) z equal "
              "those of the network after one step as n = m = k grows, D = ceil(beta/(1 - beta)), b = sqrt(n/Tr "
              "Sigma_c). Checked as a limit from n = 125, 250, 500 (and 1000 at paper fidelity) to 3%, and at "
              "n = 500 against the reference protocol's +-3%: a model without the linear term, or with the unreduced "
              "variance as its rest, is rejected, and at the paper's lambda = 1e-4 one without the Gaussian rest",
    parameters=(
        Parameter(name="activation", description="the student's activation sigma", kind="activation", default="tanh"),
        Parameter(name="alpha", description="share of the strength in the learning rate: eta = n^(alpha beta)",
                  kind="real", default="1/2", lower=0.0, upper=1.0),
        Parameter(name="beta", description="strength: eta ||Sigma|| ~ n^beta", kind="real", default="0.6", lower=0.0,
                  upper=1.0),
        Parameter(name="penalty", description="their ridge lambda in (R R^T + lambda m I); the paper uses 1e-4",
                  kind="real", default="1e-3",
                  lower=1e-8, upper=10.0),
    ),
    assumptions=(Assumption(name="strength", statement="beta in an open interval (l - 2)/(l - 1) < beta < (l - 1)/l, "
                                                      "l = 2..5 (D = l - 1 <= 4)", check=_strength),
                 integer_constant("degree", 0, MAX_DEGREE)),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="generalization-gap", kind="limit",
                   statement="(Hermite - network) generalization error / network's -> 0 (extrapolated, exponent "
                             "bounded)",
                   predict=_gap,
                   resolution_reason=ResolutionReason("ours", LIMIT_REASON),
                   resolution=lambda instance: LIMIT_RESOLUTION),
        Prediction(name="train-gap", kind="limit",
                   statement="(Hermite - network) train error / network's -> 0 (extrapolated, exponent bounded)",
                   predict=_gap,
                   resolution_reason=ResolutionReason("ours", LIMIT_REASON),
                   resolution=lambda instance: LIMIT_RESOLUTION),
        *(Prediction(name=f"{error}-gap-at-{PROTOCOL_SIZE}", kind="limit",
                     statement=f"|(Hermite - network) {error} error / network's| <= {PROTOCOL_BAND:.0%} at n = m = k = "
                               f"{PROTOCOL_SIZE} (the reference protocol's criterion)",
                     predict=_protocol_band,
                     resolution_reason=ResolutionReason("ours", BAND_REASON),
                     resolution=lambda instance: BAND_RESOLUTION)
          for error in ("generalization", "train")),
    ),
    nearness=Nearness("simulation", "degree-one-short changes the surrogate the check simulates: its paired runs "
                                    "measure its distance (docs/calibration.json)", mutant="degree-one-short"),
    mutants=(
        Mutant(name="degree-one-short",
               description="one degree fewer than ceil(beta/(1 - beta)), at beta = 0.45 (D = 1: no linear term)",
               parameters={"beta": "0.45"},
               constants={"degree": lambda p, d: Quantity.exactly("degree", hermite_degree(float(p["beta"])) - 1, d)}),
        Mutant(name="rest-not-reduced",
               description="the rest's variance E sigma(Z)^2, without subtracting the polynomial part's "
                           "sum_j j! c_j^2 (the whole activation's variance added as noise)",
               constants={"rest": lambda p, d: combine("rest", d, [second_moment(p["activation"], digits=d)],
                                                    square_root)},
               simulated=True),
        Mutant(name="no-gaussian-rest",
               description="the polynomial part alone, without the Gaussian rest h*(b) z, at the paper's lambda = 1e-4 "
                           "(at lambda = 1e-3 the ridge's own penalty hides the rest: gap -1.7% at n = 500)",
               parameters={"penalty": "1e-4"},
               constants={"rest": lambda p, d: Quantity.exactly("rest", 0, d)},
               simulated=True),
    ),
    notes="What the data support (tanh, beta = 0.6, lambda = 1e-3): the claim, as a limit. At alpha = 1/2 the gaps are "
          "a "
          "few tenths of a percent at n = 250..1000; at alpha = 0 the train gap is -1.5% and -0.8% at n = 250 and 500 "
          "and extrapolates to -0.1% +- 0.3%. The spec's systematic -1..-3% gap at alpha = 1/2 is not reproduced. The "
          "comparison is weak by nature: the network's error is 0.88 of the null error, and as a limit a model "
          "without the Gaussian rest also approaches the network (gaps shrinking like n^(-3/4) at lambda = 1e-3, "
          "about n^(-1/2) at 1e-4). At n = 500 the protocol's band rejects it at lambda = 1e-4 (-7% generalization, "
          "+6% train), where the ridge's penalty no longer hides the rest, and rejects the unreduced rest at the "
          "defaults (+19%).",
)
