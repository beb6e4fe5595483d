"""Directional dynamics in the alignment phase: eq. (4) and its error bounds (Lemmas 1, 3 and 4)  [paper].

Setting: Min, Mallada and Vidal (ICLR 2024, arXiv 2307.12851; docs/derivations/alignment.md#directional-dynamics),
gradient flow from a balanced
start W(0) = epsilon W0 (`theorems.alignment.common`). The approximation (4) is
d/dt (w_j/||w_j||) ~ s_j P_{w_j} x_a(w_j), with x_a the signed activated sum (eq. (5)).
- Lemma 4 (pointwise, any state with max_i |f(x_i)| <= 1, for the exponential and the paper's logistic loss):
  ||d/dt w^_j - s_j P_{w_j} x_a(w_j)|| <= 2 n X_max max_i |f(x_i)|.
- Lemma 3: if epsilon <= 1/(4 sqrt(h) X_max W_max^2), then for t <= T = log(1/(sqrt(h) epsilon))/(4 n X_max),
  max_j ||w_j(t)||^2 <= 2 epsilon W_max^2 / sqrt(h) and max_i |f(x_i; t)| <= 2 epsilon sqrt(h) X_max W_max^2.
- Lemma 1: for t <= T, the error of (4) is at most 4 epsilon n sqrt(h) X_max^2 W_max^2.
The exact direction field under balancedness [D] is d/dt w^_j = s_j P_{w_j} sum_i 1{<x_i, w_j> > 0} g_i x_i,
with g_i = -ell'(y_i, f(x_i)). Equation (4) replaces every g_i by y_i.

Predictions:
- `lemma-4`: min over a Hypothesis search of 1 - error / (lemma4_constant n X_max max|f|) >= 0. The states are
  drawn in random cones (as in `alignment-geometry`), at weight scales 1e-4 to 1; states with max|f| > 1 are
  left out. Beside the search, a construction comes within 1e-6 of the lemma's supremum [D]: with
  g - y = y (e^(-y f) - 1) for the exponential loss, |g - y| / |f| peaks at y f = -1 at e - 1, and one point
  with f = -1 and a tiny neuron active on it at a right angle (nearly) give error (e - 1) X_max: a ratio (e - 1)/2
  = 0.859 of the bound (1/4 for the paper's logistic loss, where |g - y| = tanh(|f|/2)).
- `lemma-3`: along the polar-form run, for t <= T, the smaller of the two relative margins is >= 0, on the
  instance's run and on the construction below.
- `lemma-1`: along the same runs, for t <= T, lemma1_scale - max_j error / (4 eps n sqrt(h) X_max^2 W_max^2) >= 0,
  with lemma1_scale = 1.
Resolutions: 1e-6 for Lemmas 1 and 3, a numerical accuracy with room; 0.5% for Lemma 4, half the distance of its
kept near mutant at the lemma's supremum. The margins are deterministic: 1e-12 for the pointwise Lemma 4, 1e-9
along the run (100 times the solver's rtol). What errors a bound can reject is its slack,
reported as its tightness (Lemma 4 0.859 by the construction).
Along the instance's own run Lemmas 1 and 3 are loose by 1/epsilon^(3/4) or so (below 1e-3 at the defaults), so
beside it Lemmas 1 and 3 are read along a constructed run where they are within 10x [D]: one point x = e_1, h =
CONSTRUCTION_WIDTH neurons, all but one along x with ||W0_j|| = 1, epsilon at the lemmas' largest value
1/(4 sqrt(h) X_max W_max^2), and one neuron of negligible norm active on x at a near right angle. Its output obeys
dF/dt = 2 g(1, F) F, in closed form (`aligned_output`), and reaches 0.24 of Lemma 3's bounds by T; the tiny neuron
misses (4) by |g - 1| sin(angle), 0.105 of Lemma 1's bound for the exponential loss (0.057 for the paper's
logistic). So the h-dependence of both bounds is tested: Lemma 3's output bound without its sqrt(h), and Lemma 1
without it or read off its O-form O(eps n / sqrt(h)), are rejected (docs/derivations/alignment.md#directional-dynamics).
Lemma 4's constant 1.7 for 2 is rejected by its own construction. The other mutants are stronger claims:
- "the norms and outputs do not grow during alignment": bounds at their t = 0 values, eps^2 W_max^2 and
  h eps^2 X_max W_max^2;
- Lemma 4 with the constant 2 replaced by 1/2 (the worst ratio the spec saw is 0.476, and the search
  finds ratios above 1/4);
- "(4) is exact during alignment" (lemma1_scale = 0): the factors e^(-y_i f_i) do move the directions.

`leak` = alpha > 0 is the authors' claim in the discussion (reply r4), not the paper's: for the alpha-leaky ReLU
max(z, alpha z), positively 1-homogeneous, the lemmas hold with sigma' in place of the indicator in eq. (4) and in
the exact field, and with the same bounds (|sigma(z)| <= |z| and sigma' in [alpha, 1] are all their proofs use of
the ReLU, docs/derivations/alignment.md#directional-dynamics). The construction's neurons are all active on its one
point, where the leaky ReLU is the identity, so it serves every alpha.
"""

from __future__ import annotations

import math

import mpmath
import sympy

from theorems.alignment.common import (
    LINEAR_EPSILON_LOWER,
    SEPARABLE,
    flow_parameters,
    instance_data,
    negative_loss_derivative,
)
from theorems.statement import (
    Assumption,
    Constant,
    Instance,
    Mutant,
    Parameter,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
)


def _small_enough(instance: Instance) -> str | None:
    import math

    import numpy as np
    x, _, directions, _ = instance_data(instance)
    limit = 1 / (4 * math.sqrt(len(directions)) * np.max(np.linalg.norm(x, axis=1))
                 * np.max(np.linalg.norm(directions, axis=1)) ** 2)
    if float(instance["log_epsilon"]) > math.log(limit):
        return f"epsilon = e^{instance['log_epsilon']} > 1/(4 sqrt(h) X_max W_max^2) = {limit:.4g} (Lemma 3)"
    return None


def _lemma4_loss(instance: Instance) -> str | None:
    if instance["loss"] == "plain-logistic":
        return "the plain logistic loss halves (4): Lemmas 1 and 4 are stated for exp and 2 x logistic (and square)"
    return None


CONSTANTS = (
    Constant.exactly("lemma4_constant", 2, "the 2 of Lemma 4"),
    Constant.exactly("lemma1_scale", 1, "the factor on Lemma 1's bound"),
    Constant.exactly("output_width_power", sympy.Rational(1, 2), "the power of h in Lemma 3's output bound"),
    Constant.exactly("lemma1_width_power", sympy.Rational(1, 2), "the power of h in Lemma 1's bound"),
)

# The construction where Lemmas 1 and 3 are within 10x (module docstring): its width, and the cosine of its tiny
# neuron to the point (its W0 row has norm CONSTRUCTION_TINY)
CONSTRUCTION_WIDTH = 1024
CONSTRUCTION_COSINE = 1e-3
CONSTRUCTION_TINY = 1e-9
CONSTRUCTION_LOSSES = ("exponential", "logistic", "square")  # those whose output there has a closed form



def _margin(note):
    return lambda instance: Target.at_least(0, note=note)


def lemma_4_margin(instance: Instance, measured):
    """1 - the largest error of (4) over the neurons / (lemma4_constant n X_max max_i |f(x_i)|) at one state; +inf
    outside the lemma (mu <= 0, max |f| > 1, or f = 0)."""
    largest = measured["largest"]
    if measured["mu"] <= 0 or largest > 1 or largest == 0:
        return math.inf
    return 1 - measured["error"] / (float(instance.constant("lemma4_constant")) * measured["n"] * measured["x_max"]
                                    * largest)


def lemma_4_supremum(instance: Instance):
    """The limit of the construction of this module's docstring: one point x = e_1 with f = -1 and a neuron active on
    it at a right angle, error |g(1, -1) - 1| X_max (n = X_max = 1)."""
    error = abs(float(negative_loss_derivative(instance["loss"], 1.0, -1.0)) - 1)
    return {"one point at f = -1": {"mu": 1.0, "error": error, "n": 1, "x_max": 1.0, "largest": 1.0}}


def lemma_3_bounds(instance: Instance, measured) -> tuple[float, float]:
    """Lemma 3's bounds on max_j ||w_j||^2 and max_i |f(x_i)|: 2 eps W_max^2 / sqrt(h) and 2 eps sqrt(h) X_max W_max^2
    (under `no-growth`, their t = 0 sizes eps^2 W_max^2 and h eps^2 X_max W_max^2)."""
    epsilon, width, x_max, w_max = (measured[name] for name in ("epsilon", "width", "x_max", "w_max"))
    if instance.definition("growth_allowed"):
        power = float(instance.constant("output_width_power"))
        return 2 * epsilon * w_max**2 / math.sqrt(width), 2 * epsilon * width**power * x_max * w_max**2
    return epsilon**2 * w_max**2, width * epsilon**2 * x_max * w_max**2


def lemma_3_margin(instance: Instance, measured):
    """The smaller of 1 - max ||w_j||^2 / its bound and 1 - max |f| / its bound along the run."""
    norm_bound, output_bound = lemma_3_bounds(instance, measured)
    return min(1 - measured["squared_norm"] / norm_bound, 1 - measured["output"] / output_bound)


def one_neuron_grown(instance: Instance):
    """One point x = e_1 (y = 1) and one neuron along it started at norm eps = 1/100, once its squared norm (and so
    its output) has grown by 1% from eps^2."""
    epsilon = 0.01
    return {"one neuron grown 1%": {"squared_norm": 1.01 * epsilon**2, "output": 1.01 * epsilon**2,
                                    "epsilon": epsilon, "width": 1, "x_max": 1.0, "w_max": 1.0}}


def lemma_1_bound(instance: Instance, measured) -> float:
    """Lemma 1's 4 eps n h^lemma1_width_power X_max^2 W_max^2 (the power 1/2), before lemma1_scale."""
    power = float(instance.constant("lemma1_width_power"))
    return 4 * measured["epsilon"] * measured["n"] * measured["width"] ** power * measured["x_max"] ** 2 \
        * measured["w_max"] ** 2


def lemma_1_margin(instance: Instance, measured):
    """lemma1_scale - the largest error of (4) along the run / (4 eps n sqrt(h) X_max^2 W_max^2)."""
    return float(instance.constant("lemma1_scale")) - max(measured["errors"]) / lemma_1_bound(instance, measured)


def one_neuron_start(instance: Instance):
    """The start of a flow with one point x = e_1 (y = 1) and one neuron of norm eps = 1/100 at 45 degrees to it: f =
    eps^2 cos(45), and (4) misses by |g(1, f) - 1| sin(45), which is not 0."""
    epsilon, angle = 0.01, math.pi / 4
    output = epsilon**2 * math.cos(angle)
    error = abs(float(negative_loss_derivative(instance["loss"], 1.0, output)) - 1) * math.sin(angle)
    return {"one neuron at 45 degrees": {"errors": [error], "epsilon": epsilon, "n": 1, "width": 1, "x_max": 1.0,
                                         "w_max": 1.0}}


def aligned_output(loss: str, start, elapsed):
    """F(t) for dF/dt = 2 g(1, F) F from F(0) = start > 0 (n = X_max = 1): the output on x = e_1 of neurons along it,
    each of whose squared norms grows at 2 g. Closed forms: Ei(F) for the exponential loss, log F + Ei(F) (rate 4)
    for the paper's logistic, F/(1 - F) for the square loss (start < 1)."""
    start, elapsed = mpmath.mpf(start), mpmath.mpf(elapsed)
    if loss == "square":
        grown = start / (1 - start) * mpmath.exp(2 * elapsed)
        return grown / (1 + grown)
    if loss == "exponential":
        primitive, rate = mpmath.ei, 2
    elif loss == "logistic":
        primitive, rate = (lambda value: mpmath.log(value) + mpmath.ei(value)), 4
    else:
        raise ValueError(f"no closed form for the {loss} loss")
    # g <= 1 on F > 0, so F(t) lies between F(0) and F(0) e^(2t)
    level = primitive(start) + rate * elapsed
    return mpmath.findroot(lambda value: primitive(value) - level, (start, start * mpmath.exp(2 * elapsed)),
                           solver="anderson")


def construction_epsilon():
    """The construction's epsilon: the lemmas' largest, 1/(4 sqrt(h) X_max W_max^2) with X_max = W_max = 1."""
    return 1 / (4 * mpmath.sqrt(CONSTRUCTION_WIDTH))


def construction(instance: Instance) -> dict:
    """The module docstring's construction at t = T, in closed form: Lemma 3's largest squared norm and output, and
    Lemma 1's error of (4) on the tiny neuron, whose angle phi to x obeys d tan(phi/2)/dt = -g tan(phi/2), so
    tan(phi(t)/2) = tan(phi(0)/2) sqrt(F(0)/F(t))."""
    loss, width = instance["loss"], CONSTRUCTION_WIDTH
    epsilon = construction_epsilon()
    window = mpmath.log(1 / (mpmath.sqrt(width) * epsilon)) / 4
    start = (width - 1) * epsilon**2
    output = aligned_output(loss, start, window)
    angle = 2 * mpmath.atan(mpmath.tan(mpmath.acos(CONSTRUCTION_COSINE) / 2) * mpmath.sqrt(start / output))
    error = abs(float(negative_loss_derivative(loss, 1.0, float(output))) - 1) * float(mpmath.sin(angle))
    shared = {"epsilon": float(epsilon), "width": width, "x_max": 1.0, "w_max": 1.0}
    return {"lemma-3": {"squared_norm": float(output) / (width - 1), "output": float(output), **shared},
            "lemma-1": {"errors": [error], "n": 1, **shared}}


def _with_construction(references, prediction: str):
    """A prediction's references with the construction's measurements beside them."""
    def both(instance: Instance):
        named = dict(references(instance))
        if instance["loss"] in CONSTRUCTION_LOSSES:
            named[f"{CONSTRUCTION_WIDTH} neurons at epsilon's bound"] = construction(instance)[prediction]
        return named
    return both


RUN_MARGINS_ACCURACY = ResolutionReason("numerical-accuracy",
                                        "the margins are read along a polar-form ODE run at rtol 1e-11 (stated "
                                        "accuracy 1e-9, 100x rtol); 1e-6 leaves room over that; the lemma's slack is "
                                        "reported as tightness")


THEOREM = Theorem(
    id="directional-dynamics",
    title="Eq. (4) during alignment: Lemma 4's pointwise error, Lemma 3's norm and output bounds, Lemma 1",
    source="Min, Mallada and Vidal, ICLR 2024 (arXiv 2307.12851), eq. (4), Lemmas 1, 3 and 4",
    provenance="paper",
    statement="||d/dt w^_j - s_j P x_a(w_j)|| <= 2 n X_max max|f| when max|f| <= 1; for t <= T: ||w_j||^2 <= 2 eps "
              "W_max^2/sqrt(h), |f| <= 2 eps sqrt(h) X_max W_max^2, error of (4) <= 4 eps n sqrt(h) X_max^2 W_max^2",
    parameters=(*flow_parameters(log_epsilon="-10", log_epsilon_lower=LINEAR_EPSILON_LOWER),
                Parameter(name="leak", kind="real", default="0", lower=0.0, upper=1.0,
                          description="alpha of the activation max(z, alpha z): 0 is the paper's ReLU; alpha > 0 is "
                                      "the authors' claim in the discussion that the lemmas extend to the leaky ReLU")),
    assumptions=(SEPARABLE,
                 Assumption(name="small-initialization", statement="epsilon <= 1/(4 sqrt(h) X_max W_max^2)",
                            check=_small_enough),
                 Assumption(name="loss", statement="exponential, the paper's logistic or the square loss",
                            check=_lemma4_loss)),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="lemma-4", kind="inequality",
                   statement="min over searched states, and a construction near the lemma's supremum, of 1 - "
                             "error/(lemma4_constant n X_max max|f|) >= 0",
                   predict=_margin("smallest margin found"), observable=lemma_4_margin, references=lemma_4_supremum,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.5%: the constant 1.7 for 2 (the kept near mutant) moves the "
                                                      "margin by 0.011 at the lemma's supremum for the exponential "
                                                      "loss (one point with f = -1 attains (e - 1)/2 = 0.859 of the "
                                                      "bound): two resolutions. The margin is float64 arithmetic on "
                                                      "unit vectors"),
                   resolution=lambda instance: 0.005),
        Prediction(name="lemma-3", kind="inequality", statement="min over t <= T of the norm and output margins >= 0",
                   predict=_margin("smallest relative margin along the run"), observable=lemma_3_margin,
                   references=_with_construction(one_neuron_grown, "lemma-3"),
                   resolution_reason=RUN_MARGINS_ACCURACY,
                   resolution=lambda instance: 1e-6),
        Prediction(name="lemma-1", kind="inequality",
                   statement="min over t <= T of lemma1_scale - error of (4) / (4 eps n sqrt(h) X_max^2 W_max^2) >= 0",
                   predict=_margin("smallest relative margin along the run"), observable=lemma_1_margin,
                   references=_with_construction(one_neuron_start, "lemma-1"),
                   resolution_reason=RUN_MARGINS_ACCURACY,
                   resolution=lambda instance: 1e-6),
    ),
    mutants=(
        Mutant(name="no-growth", description="norms and outputs stay at their t = 0 size during alignment",
               definitions={"growth_allowed": False}),
        Mutant(name="lemma-4-constant-quarter", description="Lemma 4 with 1/2 in place of 2",
               constants={"lemma4_constant": Constant.exactly("lemma4_constant", sympy.Rational(1, 2))}),
        Mutant(name="lemma-4-constant-nudged",
               description="Lemma 4 with 1.7 in place of 2: 15% lower, 1% below the e - 1 that one point attains "
                           "(a near error)",
               constants={"lemma4_constant": Constant.exactly("lemma4_constant", sympy.Rational(17, 10))}),
        Mutant(name="equation-4-exact", description="the approximation (4) exact while t <= T",
               constant_factors={"lemma1_scale": 0.0}),
        Mutant(name="output-bound-without-sqrt-h",
               description="Lemma 3's output bound 2 eps X_max W_max^2, its sqrt(h) (the sum over the neurons) dropped",
               constants={"output_width_power": Constant.exactly("output_width_power", 0)}),
        Mutant(name="lemma-1-without-sqrt-h",
               description="Lemma 1's bound 4 eps n X_max^2 W_max^2, its sqrt(h) dropped",
               constants={"lemma1_width_power": Constant.exactly("lemma1_width_power", 0)}),
        Mutant(name="lemma-1-as-o-notation",
               description="Lemma 1's bound read off the paper's O(eps n / sqrt(h)): 4 eps n X_max^2 W_max^2 / sqrt(h)",
               constants={"lemma1_width_power": Constant.exactly("lemma1_width_power", sympy.Rational(-1, 2))}),
    ),
    definitions={"growth_allowed": True},
)
