"""Gaussian equivalence after a small step: ridge on sigma(W_1^T x) has the risk of (mu1 W_1^T x + mu_star z)  [paper].

Statement (Ba, Erdogdu, Suzuki, Wang, Wu and Yang, NeurIPS 2022, Theorem 3; Hu and Lu 2023 for the random-features
case; docs/derivations/equivalence.md#gaussian-equivalence). Setting and normalization as in `theorems.onestep.common`:
x ~ N(0, I_d),
y = sigma*(<x, beta*>) + noise, one step W_1 = W_0 + eta sqrt(N) G_0 with eta = Theta(1), then ridge regression of
the second layer on fresh data (sample splitting), objective (1/n) ||y - Phi a||^2 + (lambda/N) ||a||^2.
For odd sigma (Assumption 1) and lambda > 0,

    |R_CK(lambda) - R_GE(lambda)| -> 0 in probability,

where R is the risk E (f*(x) - a^T phi(x))^2 against the noiseless teacher, and the features are:
- phi_CK(x) = sigma(W_1^T x)/sqrt(N);
- phi_GE(x) = (mu1 W_1^T x + mu_star z)/sqrt(N), with z ~ N(0, I_N) drawn fresh for every sample.
Here mu_star = sqrt(E sigma^2 - mu0^2 - mu1^2). Ba calls this mu_2, which is not the Hermite c_2
(docs/derivations/onestep.md#setting-and-normalization warns
about the name).

Check: per draw, CK and GE are read out on the same fresh data and test set, and the paired relative
difference (R_CK - R_GE)/R_GE is averaged. This is done at d in {48, 96} with n = psi1 d and N = psi2 d, and
extrapolated in 1/d. Measured (erf/erf, psi1 = 8, psi2 = 2, lambda = 1e-3, eta = 1): -5.5% +- 1.4% at d = 64 and
-2.5% +- 1.2% at d = 128; that trend extrapolates to about 0.
- Resolution: 20% of R_GE, which is what a few seconds of simulation resolve after extrapolation.
- The mutants are far outside it: mu_star = c_2 (0 for erf) moves the risk by about 90%, and
  mu_star = sqrt(E sigma^2) by about 200%.
"""

from __future__ import annotations

from dataclasses import replace

from theorems.hermite import combine, hermite_coefficients, mu_star_squared, second_moment, square_root
from theorems.onestep import common as onestep
from theorems.statement import Constant, Mutant, Parameter, Prediction, Target, Theorem

CONSTANTS = (
    Constant.of_parameters("mu1", lambda parameters, digits: hermite_coefficients(
        parameters["activation"], 1, digits=digits).quantity(1), "c_1(sigma)"),
    Constant.of_parameters("mu_star", lambda parameters, digits: combine(
        "mu_star", digits, [mu_star_squared(parameters["activation"], digits=digits)], square_root),
        "sqrt(E sigma^2 - c_0^2 - c_1^2)"),
)


def _second_coefficient(parameters, digits):
    return replace(hermite_coefficients(parameters["activation"], 2, digits=digits).quantity(2), name="mu_star")


def _root_second_moment(parameters, digits):
    return combine("mu_star", digits, [second_moment(parameters["activation"], digits=digits)], square_root)


THEOREM = Theorem(
    id="gaussian-equivalence",
    title="Gaussian equivalence after one small step: ridge on sigma(W_1^T x) matches (mu1 W_1^T x + mu_star z)",
    source="Ba, Erdogdu, Suzuki, Wang, Wu and Yang, 'High-dimensional asymptotics of feature learning: how one "
           "gradient "
           "step improves the representation', NeurIPS 2022, Theorem 3 (Hu and Lu 2023); "
           "docs/derivations/equivalence.md#gaussian-equivalence",
    provenance="paper",
    statement="for odd sigma, eta = Theta(1), lambda > 0: R_CK(lambda) - R_GE(lambda) -> 0, phi_GE = (mu1 W_1^T x + "
              "mu_star z)/sqrt(N), mu_star = sqrt(E sigma^2 - mu0^2 - mu1^2)",
    parameters=(
        *onestep.parameters(activation="erf", teacher="erf", noise="0.1", psi1="8", psi2="2", learning_rate="1"),
        Parameter(name="penalty", description="ridge lambda in (1/n)||y - Phi a||^2 + (lambda/N)||a||^2", kind="real",
                  default="1e-3", lower=1e-8, upper=1e3),
    ),
    assumptions=(*onestep.ba_assumption_1(),),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="risk", kind="limit",
                   statement="(R_CK - R_GE) / R_GE -> 0, paired per draw, extrapolated in 1/d",
                   predict=lambda instance: Target.point(0, note="relative risk difference"),
                       resolution=lambda instance: 0.2),
    ),
    mutants=(
        Mutant(name="mu-star-as-c2", description="mu_star replaced by the Hermite c_2 (the naming collision of "
                                "docs/derivations/onestep.md#setting-and-normalization)",
               constants={"mu_star": _second_coefficient}),
        Mutant(name="mu-star-as-root-moment", description="mu_star replaced by sqrt(E sigma^2)",
               constants={"mu_star": _root_second_moment}),
    ),
)
