"""Demir and Dogan (ICLR 2025), Lemma 1: under Gaussian-mixture data with spiked covariances, the first gradient is rank
one plus a smaller remainder, at rates set by the data spread  [secondary].

Statement as the reviews report it (docs/derivations/onestep.md#mixture-spike, [S]; not confirmed against the paper).
Data: two equally weighted zero-mean components, Sigma_c = I + theta Gamma_c Gamma_c^T with rank-one
Gamma_c and theta = n^(beta (1 - alpha)), so ||Sigma|| ~ n^(beta(1-alpha)); labels y = f(xi^T x) with
||xi|| = 1/sqrt(||Sigma||). Network f(x) = w^T sigma(F x)/sqrt(k), F entries N(0, 1/Tr Sigma_c), w entries
N(0, 1/k); n = m = k. With t = 1 - beta (1 - alpha), the gradient G (Ba's G_0, transposed) satisfies

    G = u v^T + Delta,   ||u v^T||_op = O~(k^(-t/2)),   ||Delta||_op = O~(k^(-t)).

For isotropic data (alpha = 1, t = 1) this is Ba et al.'s Proposition 2 (spike k^(-1/2), remainder k^(-1)).

Conventions here. u v^T is taken in Ba's form, mu1 X^T y a^T / (m sqrt(k)) with mu1 = E sigma'(Z) (the
preactivations have unit variance at initialization); Delta = G - u v^T. The rates are upper bounds
(O~): the check passes when the fitted exponents are at most the claimed ones. The teacher direction xi
is spike-aligned by default, (Gamma_1 + Gamma_2) normalized, where the rates are close to tight; the
authors' code draws xi at random ("random"), where the label signal is ~1/||Sigma|| and both norms decay
faster than claimed, so the upper bounds hold with room and the mutants below are not seen there.
Named constants: spike_exponent = -t/2 and remainder_exponent = -t.
"""

from __future__ import annotations

import mpmath
import sympy

from theorems.activation_assumptions import not_constant
from theorems.formula import exact_number
from theorems.onestep import common as onestep
from theorems.quantity import Quantity
from theorems.statement import Constant, Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem

CONSTANTS = (
    Constant.formula("spike_exponent", (), lambda alpha, beta: -(1 - beta * (1 - alpha)) / 2,
                     parameters=("alpha", "beta"), description="-t/2, t = 1 - beta (1 - alpha)"),
    Constant.formula("remainder_exponent", (), lambda alpha, beta: -(1 - beta * (1 - alpha)),
                     parameters=("alpha", "beta"), description="-t"),
)


def _upper_bound(name):
    def target(instance):
        claim = instance.constant(name)
        return Target(value=claim, lower=mpmath.mpf("-inf"), upper=claim,
                      note=f"claimed O~(k^{mpmath.nstr(claim, 4)}): the fitted exponent is at most that")
    return target


# Of the spike's exponent: the nearest named error, the spread at its standard deviation's scale, moves the claim by
# beta (1 - alpha)/4 (0.125 at the defaults)
SPIKE_RESOLUTION = 0.1


def _spread_exponent(parameters):
    return exact_number(parameters["beta"]) * (1 - exact_number(parameters["alpha"]))


def _isotropic(parameters, digits):
    return {"spike_exponent": Quantity.exactly("spike_exponent", sympy.Rational(-1, 2), digits),
            "remainder_exponent": Quantity.exactly("remainder_exponent", sympy.Integer(-1), digits)}


# The spike u v^T carries the factor mu1 = E sigma'(Z): where it is 0 (He_3, say) u v^T vanishes identically, the
# bound holds trivially, and there is no norm whose rate could be fitted.
_spike_exists = onestep.requires_coefficient(
    1, "mu1 = E sigma'(Z) = 0: the spike u v^T is identically 0, so its bound holds trivially")


THEOREM = Theorem(
    id="mixture-spike",
    title="Rank-one gradient under Gaussian-mixture data with structure (Demir and Dogan, Lemma 1)",
    source="Demir and Dogan, 'Asymptotic analysis of two-layer neural networks after one gradient step under "
           "Gaussian mixtures data with structure', ICLR 2025 (arXiv 2503.00856), Lemma 1, as reviews report it; "
           "code KU-MLIP/2-Layer-NNs-with-Gaussian-Mixtures-Data",
    provenance="secondary",
    statement="G = u v^T + Delta with ||u v^T|| = O~(k^(-t/2)), ||Delta|| = O~(k^(-t)), t = 1 - beta(1 - alpha)",
    parameters=(
        Parameter(name="activation", description="the student's activation sigma", kind="activation", default="tanh"),
        Parameter(name="teacher", description="the label function f", kind="activation", default="relu"),
        Parameter(name="alpha",
                  description="share of the strength in the learning rate (data spread n^(beta(1-alpha)))", kind="real",
                  default="0", lower=0.0, upper=1.0),
        Parameter(name="beta", description="strength: eta ||Sigma|| ~ n^beta", kind="real", default="1/2", lower=0.0,
                  upper=1.0),
        Parameter(name="teacher_direction", description="xi spike-aligned, or random as in the authors' code",
                  kind="choice",
                  default="spike-aligned", choices=("spike-aligned", "random")),
    ),
    assumptions=(not_constant(),),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="spike-rate", kind="rate",
                   statement="fitted exponent of ||u v^T||_op over k = n = m is <= spike_exponent",
                   predict=_upper_bound("spike_exponent"),
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.1 in the exponent: the spread taken at its standard "
                                                      "deviation's scale (t = 1 - beta(1 - alpha)/2: -0.375 for "
                                                      "-0.25 at the defaults) lies 1.25 resolutions away, the spike "
                                                      "at the remainder's rate and the isotropic rate 2.5"),
                   resolution=lambda instance: SPIKE_RESOLUTION, applies=_spike_exists),
        Prediction(name="remainder-rate", kind="rate",
                   statement="fitted exponent of ||G - u v^T||_op over k = n = m is <= remainder_exponent",
                   predict=_upper_bound("remainder_exponent"),
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.25 in the exponent: the isotropic rate (-1 for -1/2) lies "
                                                      "two resolutions away, the remainder at twice its rate four"),
                   resolution=lambda instance: 0.25),
    ),
    mutants=(
        Mutant(name="spread-ignored", description="the isotropic rates k^(-1/2), k^(-1) claimed for spread data",
               constants={"spike_exponent": lambda p, d: _isotropic(p, d)["spike_exponent"],
                          "remainder_exponent": lambda p, d: _isotropic(p, d)["remainder_exponent"]}),
        Mutant(name="spike-at-remainder-rate", description="the spike claimed to decay like the remainder, k^(-t)",
               constants={"spike_exponent": lambda p, d: Quantity.exactly(
                   "spike_exponent", -(1 - exact_number(p["beta"]) * (1 - exact_number(p["alpha"]))), d)}),
        Mutant(name="spread-as-standard-deviation",
               description="the spread's growth taken at the data's standard deviation, k^(beta(1 - alpha)/2), "
                           "for its covariance norm's: t = 1 - beta(1 - alpha)/2",
               constants={"spike_exponent": lambda p, d: Quantity.exactly(
                   "spike_exponent", -(1 - _spread_exponent(p) / 2) / 2, d),
                          "remainder_exponent": lambda p, d: Quantity.exactly(
                   "remainder_exponent", -(1 - _spread_exponent(p) / 2), d)}),
        Mutant(name="remainder-at-twice-the-rate",
               description="the remainder claimed O~(k^(-2t)), at alpha = beta = 1/2 (t = 3/4)",
               parameters={"alpha": "1/2"},
               constants={"remainder_exponent": lambda p, d: Quantity.exactly(
                   "remainder_exponent", -2 * (1 - exact_number(p["beta"]) * (1 - exact_number(p["alpha"]))), d)}),
    ),
)
