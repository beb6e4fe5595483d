"""Shared statement pieces of the one-step family, in Ba et al.'s normalization
(docs/derivations/onestep.md#setting-and-normalization, 3).

Model: x ~ N(0, I_d); y = sigma_*(<x, beta_*>) + noise eps, ||beta_*|| = 1; f(x) = a^T sigma(W^T x)/sqrt(N);
sqrt(d) W_0 and sqrt(N) a iid N(0, 1); n/d -> psi1 and N/d -> psi2. Hermite convention: probabilists',
c_k = E[sigma He_k]/k!, so Ba's mu_1 = c_1(sigma), mu_1^* = c_1(sigma_*), and Ba's "mu_2" is the
remainder standard deviation mu_star = sqrt(E sigma^2 - c_0^2 - c_1^2) (not c_2).

Named constants shared by the family:
    mu1                    c_1(sigma)
    mu1_star               c_1(sigma_*), the teacher's linear coefficient
    teacher_second_moment  E[y^2] = E sigma_*(Z)^2 + noise^2
    zeta_norm              lim ||X^T y / n|| = sqrt(mu1_star^2 + E[y^2]/psi1)      [D]
    shift_scale            mu1^2 mu1_star^2 + E[y^2] E sigma'(Z)^2: with eta = n^alpha at n = d = N, a
                           fresh preactivation's shift has variance shift_scale n^(2 alpha - 1)  [D]
    alignment_limit        lim cos^2(X^T y, beta_*)  (`alignment_limit`)           [D]
"""

from __future__ import annotations

from dataclasses import replace

import mpmath

from theorems.activations import unbounded_derivative
from theorems.hermite import derivative_second_moment, hermite_coefficients, second_moment, square_root
from theorems.quantity import combine
from theorems.statement import Assumption, Constant, Instance, Parameter, parameter_quantity


def parameters(*, activation: str = "tanh", teacher: str = "tanh", noise: str = "0.1", psi1: str = "2",
               psi2: str = "1", learning_rate: str | None = None) -> tuple[Parameter, ...]:
    chosen = [
        Parameter(name="activation", description="the student's activation sigma", kind="activation",
                  default=activation),
        Parameter(name="teacher", description="the teacher's activation sigma_*", kind="activation", default=teacher),
        Parameter(name="noise", description="standard deviation of the label noise", kind="real", default=noise,
                  lower=0.0, upper=10.0),
        Parameter(name="psi1", description="samples per dimension, n/d", kind="real", default=psi1, lower=0.05,
                  upper=50.0),
        Parameter(name="psi2", description="width per dimension, N/d", kind="real", default=psi2, lower=0.05,
                  upper=50.0),
    ]
    if learning_rate is not None:
        chosen.append(Parameter(name="learning_rate", description="eta in W_1 = W_0 + eta sqrt(N) G_0", kind="real",
                                default=learning_rate,
                                lower=0.0, upper=1e4))
    return tuple(chosen)


def growing_step_parameters(alpha: str, *, largest_alpha: float = 0.5) -> tuple[Parameter, ...]:
    """Parameters of the eta = n^alpha family (Moniri et al.; docs/derivations/onestep.md#spike-count, 8): softplus +
    tanh, whose
    c_1, c_2, c_3 are all non-zero, and a teacher with a quadratic part, He_1 + He_2/sqrt(2)."""
    return (
        Parameter(name="activation", description="the student's activation sigma", kind="activation",
                  default="log(1 + exp(z)) + tanh(z)"),
        Parameter(name="teacher", description="the teacher's activation sigma_*", kind="activation",
                  default="z + (z**2 - 1)/sqrt(2)"),
        Parameter(name="noise", description="standard deviation of the label noise", kind="real", default="0.1",
                  lower=0.0, upper=10.0),
        Parameter(name="alpha", description="learning-rate exponent: eta = n^alpha", kind="real", default=alpha,
                  lower=0.0, upper=largest_alpha),
    )


def _first_coefficient(parameter: str):
    return lambda parameters, digits: hermite_coefficients(parameters[parameter], 1, digits=digits).quantity(1)


def _mu1() -> Constant:
    return Constant.of_parameters("mu1", _first_coefficient("activation"), "c_1(sigma)")


def teacher_first_coefficient() -> Constant:
    """mu1_star = c_1(sigma_*), the teacher's linear coefficient."""
    return Constant.of_parameters("mu1_star", _first_coefficient("teacher"), "c_1(sigma_*)")


def _teacher_constants() -> tuple[Constant, ...]:
    return (
        teacher_first_coefficient(),
        Constant(name="teacher_second_moment", description="E[y^2] = E sigma_*(Z)^2 + noise^2",
                 derive=lambda parameters, dependencies, digits: combine(
                     "teacher_second_moment", digits, [second_moment(parameters["teacher"], digits=digits),
                                                       parameter_quantity("noise", parameters, digits)],
                     lambda m, s: m + s**2)),
    )


def shift_constants() -> tuple[Constant, ...]:
    """mu1, mu1_star, teacher_second_moment, slope_second_moment and shift_scale for the eta = n^alpha family at
    n = d = N.

    Neuron j moves by eta a_j h_j, h_j = (1/n) sum_i x_i y_i sigma'(x_i^T w_j) (the network's own output is
    O(1/sqrt(N)) and drops out), and E ||h_j||^2 = ||E h_j||^2 + (d/n) E[y^2 sigma'^2] -> mu1^2 mu1_star^2 +
    E[y^2] E sigma'(Z)^2 (Stein's lemma for the mean; x^T w_j is independent of y in the limit). With E a_j^2 =
    1/N, a fresh preactivation's shift then has variance shift_scale n^(2 alpha - 1): the parameter of the
    expansion in the step (docs/derivations/onestep.md#spike-count). Of it, mu1^2 (mu1_star^2 + E[y^2]) is the
    coherent part t_j (X~ zeta)_i that makes the spikes."""
    return (
        _mu1(),
        *_teacher_constants(),
        Constant.of_parameters("slope_second_moment", lambda parameters, digits: replace(derivative_second_moment(
            parameters["activation"], digits=digits), name="slope_second_moment"), "E sigma'(Z)^2"),
        Constant.formula("shift_scale", ("mu1", "mu1_star", "teacher_second_moment", "slope_second_moment"),
                         lambda mu1, mu1_star, second, slope: mu1**2 * mu1_star**2 + second * slope,
                         description="mu1^2 mu1_star^2 + E[y^2] E sigma'(Z)^2: a fresh preactivation's shift after "
                                     "the step has variance shift_scale n^(2 alpha - 1) at n = d = N"),
    )


def step_shift_variance(parameters, learning_rate: float, width: int, *, digits: int = 20) -> float:
    """The variance of a fresh preactivation's shift after one step W_1 = W_0 + eta sqrt(N) G_0 at N = width:
    eta^2 (mu1^2 mu1_star^2 + E[y^2] E sigma'(Z)^2 / psi1) / N (as `shift_constants`, with d/n = 1/psi1 and
    E a_j^2 = 1/N). The parameter of the expansion in the step: where it is not small, the features are not yet
    their eta = Theta(1) limit at this width."""
    mu1 = hermite_coefficients(parameters["activation"], 1, digits=digits).quantity(1).value
    mu1_star = hermite_coefficients(parameters["teacher"], 1, digits=digits).quantity(1).value
    labels = second_moment(parameters["teacher"], digits=digits).value + parameters["noise"] ** 2
    slopes = derivative_second_moment(parameters["activation"], digits=digits).value
    scale = float(mu1**2 * mu1_star**2 + labels * slopes / parameters["psi1"])
    return float(learning_rate) ** 2 * scale / width


def shift_variance(instance: Instance, size: int) -> float:
    """s^2 = shift_scale n^(2 alpha - 1): the variance of a fresh preactivation's shift after the step at n = size."""
    return float(instance.constant("shift_scale")) * size ** (2 * float(instance["alpha"]) - 1)


def base_constants() -> tuple[Constant, ...]:
    """mu1, mu1_star, teacher_second_moment and zeta_norm: the family's shared constant graph."""
    return (
        _mu1(),
        *_teacher_constants(),
        Constant.formula("zeta_norm", ("mu1_star", "teacher_second_moment"), lambda m, e, p: square_root(m**2 + e / p),
                         parameters=("psi1",), description="lim ||X^T y / n|| = sqrt(mu1_star^2 + E[y^2]/psi1)"),
    )


def alignment_limit() -> Constant:
    """lim cos^2(X^T y, beta_*) = psi1 mu1_star^2 / (psi1 mu1_star^2 + E[y^2])
    (docs/derivations/onestep.md#spike-alignment)."""
    return Constant.formula("alignment_limit", ("mu1_star", "teacher_second_moment"),
                            lambda m, e, p: p * m**2 / (p * m**2 + e), parameters=("psi1",))


def ba_assumption_1() -> tuple[Assumption, ...]:
    """Ba et al.'s Assumption 1, in this project's notation: sigma smooth with bounded derivatives of orders 1 to
    3, centred (c_0 = 0), c_1 != 0 and mu_star != 0 (Ba's mu_1 and mu_2: their mu_2 is mu_star here, not c_2);
    the teacher Lipschitz with c_0(sigma_*) = 0 and c_1(sigma_*) != 0."""

    def student(instance: Instance) -> str | None:
        sigma = instance["activation"]
        reason = unbounded_derivative(sigma, 3)
        if reason:
            return reason
        c = hermite_coefficients(sigma, 2, digits=20).coefficients
        if abs(c[0]) > 1e-15:
            return f"{sigma.name} is not centred: c_0 = E sigma(Z) = {float(c[0]):.6g} != 0"
        if abs(c[1]) < 1e-15:
            return f"c_1({sigma.name}) = E sigma'(Z) = 0"
        moment = second_moment(sigma, digits=20).value
        if moment - c[0] ** 2 - c[1] ** 2 < 1e-15:
            return f"{sigma.name} is affine: mu_star = 0 (Ba's mu_2)"
        return None

    def teacher(instance: Instance) -> str | None:
        sigma_star = instance["teacher"]
        reason = unbounded_derivative(sigma_star, 1, allow_kinks=True)
        if reason:
            return f"the teacher is not Lipschitz: {reason}"
        c = hermite_coefficients(sigma_star, 1, digits=20).coefficients
        if abs(c[0]) > 1e-15:
            return f"the teacher {sigma_star.name} is not centred: c_0(sigma_*) = {float(c[0]):.6g} != 0"
        if abs(c[1]) < 1e-15:
            return "the teacher has c_1(sigma_*) = 0 (information exponent above 1)"
        return None

    return (
        Assumption(name="student-activation",
                   statement="sigma has bounded derivatives of orders 1 to 3; c_0 = 0; c_1 != 0 and mu_star != 0 "
                   "(Ba et al. Assumption 1, whose mu_1 and mu_2 are c_1 and mu_star here)", check=student),
        Assumption(name="teacher",
                   statement="sigma_* Lipschitz with c_0(sigma_*) = 0 and c_1(sigma_*) != 0 (Ba et al. Assumption 1's "
                   "mu_0^* and mu_1^*)",
                   check=teacher),
    )


def intermediate_step(instance: Instance) -> str | None:
    """alpha < 1/2 for eta = n^alpha: the per-neuron coherent shift n^(alpha - 1/2) vanishes."""
    if float(instance["alpha"]) >= 0.5:
        return f"alpha = {instance['alpha']} >= 1/2: the coherent shift no longer vanishes (eta = Theta(sqrt(n)) " \
               "is the large-step regime, where the Taylor form does not hold)"
    return None


def centring_failure(sigma, consequence: str, symbol: str = "mu0") -> str | None:
    """None when E sigma(Z) = 0 (mu0, the Hermite c_0), else the reason, with what a non-zero mean does to the
    statement."""
    mean = hermite_coefficients(sigma, 0, digits=15).coefficients[0]
    if abs(mean) > 1e-12:
        return f"{symbol} = E sigma(Z) = {float(mean):.6g} != 0: {consequence}"
    return None


def coefficient_vanishes(table, k: int, digits: int) -> bool:
    """Whether c_k of a Hermite table is 0: exactly where the table has a closed form, else below half its digits."""
    exact = table.exact[k]
    if exact is not None:
        return exact == 0
    return abs(table.coefficients[k]) < mpmath.mpf(10) ** (-digits // 2)


def requires_coefficient(k: int, reason: str, parameter: str = "activation"):
    """A check that returns `reason` where c_k of the activation `parameter` (the student's `activation` unless
    said) vanishes (as `coefficient_vanishes` reads it), else None."""
    def check(instance: Instance) -> str | None:
        table = hermite_coefficients(instance[parameter], k, digits=20)
        return reason if coefficient_vanishes(table, k, 20) else None
    return check


def first_coefficient() -> Assumption:
    """c_1(sigma) = mu1 = E sigma'(Z) != 0: the step's rank-one part (Ba et al.'s spike) is mu1 times the data's
    X^T y / n; without it there is no spike."""
    return Assumption(name="first-coefficient", statement="c_1(sigma) != 0", check=requires_coefficient(
        1, "c_1 = 0: the step has no spike to build on (the papers assume c_1 != 0)"))


def square_integrable_teacher() -> Assumption:
    from theorems.hermite import square_integrability_failure

    return Assumption(name="square-integrable-teacher", statement="E sigma_*(Z)^2 < infinity",
                      check=lambda instance: square_integrability_failure(instance["teacher"]))
