"""The paper's polynomial form of the Elasticity after one step, tested at its leading coefficient  [secondary].

Claim (ICLR 2025 submission "Emergence of alignment and local elasticity in two-layer neural networks",
OpenReview oeLB25A9oO, Theorems 1.4/5.4 as the reviews report them;
docs/derivations/elasticity.md#elasticity-polynomial, [S]): after one
step with eta = n^alpha the Elasticity E_x ||F(x) - F_0(x)||^2 on unseen x ~ N(mu, Sigma) is an even
polynomial in the train-unseen similarity |beta^T mu| of degree 2 ell, a double sum over Hermite orders
k, k' <= ell with coefficients c_k c_k'.

In the spec's derived form (8.3, [D]), with t_j = Delta w_j^T zeta / ||zeta||^2 the coherent shift of neuron
j, m = zeta^T mu and M_p(m, s^2) = E (m + s g)^p,

    Elasticity(mu) - const = sum_{k,k'=1}^{ell} e_kk' (sum_j t_j^(k+k')) M_(k+k')(m, s^2) (1 + o(1)),

and the coefficient of a *second-moment* metric is e_kk' = E[sigma^(k)(Z) sigma^(k')(Z)] / (k! k'!), not the
paper's c_k c_k' (sigma^(k) -> k! c_k is a mean replacement, valid in operator norm, not per sample).
Relative to the m^2 term the terms of order k + k' = p >= 4 are O(n^((p/2 - 1)(2 alpha - 1))) for every
alpha < 1/2, so in the limit the claim is decided by its leading coefficient:

    lim_{n -> infinity} [Elasticity(m) - Elasticity(0)] / (m^2 sum_j t_j^2) = e_11 = E sigma'(Z)^2,

while the paper's coefficients make it c_1^2 = (E sigma'(Z))^2, smaller by Var sigma'(Z) (Jensen). Taking
the constant term away also removes the bulk's mu-independent contribution
(docs/derivations/elasticity.md#elasticity-polynomial), which the
paper's form lacks; `elasticity-reference` checks that constant.

Check: per network draw the Elasticity's mu-dependence is computed exactly given the weights (the
per-neuron bivariate Gaussian law of `theorems.elasticity.elasticity_reference`, itself checked against Monte Carlo),
the ratio above is averaged over draws at n = d = N in several sizes, and the finite-n value is
extrapolated to n -> infinity with the model ratio(n) = limit + B n^(2 alpha - 1) (the order of the
neglected Taylor and bulk terms, (t_j h)^2 ~ b_j^2 ~ n^(2 alpha - 1)). Resolution 5% of e_11; the
paper's c_1^2 is 21% below it for tanh.

Measured (tanh student and teacher, alpha = 0.2, m = 1, 6 draws; relative error of the e_11 ratio):
-0.059, -0.045, -0.030, -0.020, -0.013 at n = 125 ... 2000, which extrapolates to 0 within 0.002;
the c_1^2 form's error settles near +0.27 = E sigma'^2 / c_1^2 - 1. With softplus + tanh the approach is
slower and noisier (-0.078 and -0.074 +- 0.007 at n = 1000, 2000): the check is then inconclusive or
fails at the default sizes, which says the sizes, not the claim, are at fault; run at higher fidelity.
"""

from __future__ import annotations

from theorems.hermite import combine, hermite_coefficients, second_moment
from theorems.onestep import common as onestep
from theorems.statement import Assumption, Constant, Instance, Mutant, Parameter, Prediction, Target, Theorem

CONSTANTS = (
    Constant.of_parameters("leading_coefficient", lambda parameters, digits: combine(
        "leading_coefficient", digits, [second_moment(parameters["activation"].derivative(), digits=digits)],
        lambda m: m), "e_11 = E sigma'(Z)^2 (docs/derivations/elasticity.md#elasticity-polynomial); the paper's c_k "
                      "c_k' would make it c_1^2"),
)


def _paper_coefficient(parameters, digits):
    c1 = hermite_coefficients(parameters["activation"], 1, digits=digits).quantity(1)
    return combine("leading_coefficient", digits, [c1], lambda c: c**2)


def _leading(instance: Instance) -> Target:
    return Target.point(instance.constant("leading_coefficient"),
                        note="lim [E(m) - E(0)] / (m^2 sum_j t_j^2), extrapolated in n^(2 alpha - 1)")


THEOREM = Theorem(
    id="elasticity-polynomial",
    title="Elasticity after one step as a polynomial in the train-unseen similarity (leading coefficient)",
    source="ICLR 2025 submission 'Emergence of alignment and local elasticity in two-layer neural networks' "
           "(OpenReview oeLB25A9oO), Theorems 1.4 / 5.4 as reported by its reviews; corrected coefficient "
           "from docs/derivations/elasticity.md#elasticity-polynomial",
    provenance="secondary",
    statement="Elasticity(mu) - const = sum_{k,k' <= ell} e_kk' (sum_j t_j^(k+k')) M_(k+k')(zeta^T mu, s^2) (1 + "
              "o(1)); "
              "the limit of its leading coefficient is e_11 = E sigma'(Z)^2. The paper's c_k c_k' (c_1^2 here) is "
              "kept as the mutant 'paper-coefficients', which the check rejects",
    parameters=(
        Parameter(name="activation", description="the student's activation sigma", kind="activation", default="tanh"),
        Parameter(name="teacher", description="the teacher's activation sigma_*", kind="activation", default="tanh"),
        Parameter(name="noise", description="standard deviation of the label noise", kind="real", default="0.1",
                  lower=0.0, upper=10.0),
        Parameter(name="alpha", description="learning-rate exponent: eta = n^alpha", kind="real", default="0.2",
                  lower=0.0, upper=0.5),
        Parameter(name="similarity", description="m = zeta^T mu, the train-unseen similarity", kind="real",
                  default="1", lower=0.05, upper=10.0),
    ),
    assumptions=(Assumption(name="intermediate-step", statement="alpha < 1/2", check=onestep.intermediate_step),
                 onestep.square_integrable_teacher()),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="leading-coefficient", kind="limit",
                   statement="[Elasticity(m) - Elasticity(0)] / (m^2 sum_j t_j^2) -> leading_coefficient as n -> "
                             "infinity",
                   predict=_leading,
                       resolution=lambda instance: 0.05 * float(instance.constant("leading_coefficient"))),
    ),
    mutants=(
        Mutant(name="paper-coefficients",
               description="the paper's c_k c_k' in place of E[sigma^(k) sigma^(k')]/(k! k'!): the leading "
               "coefficient c_1^2", constants={"leading_coefficient": _paper_coefficient}),
        Mutant(name="coefficient-nudged", description="the leading coefficient 10% too large",
               constant_factors={"leading_coefficient": 1.1}),
    ),
)
