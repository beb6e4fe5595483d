"""Mehler's formula: the dual kernel of an activation is the Hermite series sum_k k! c_k^2 rho^k.

Statement. Let (U, V) be standard normal with correlation rho in [-1, 1] and sigma square-integrable
under N(0, 1), with probabilists' Hermite coefficients c_k = E[sigma(Z) He_k(Z)] / k!. Then

    kappa(rho) := E[sigma(U) sigma(V)] = sum_{k >= 0} k! c_k^2 rho^k.

Source: Mehler's formula for the Hermite polynomials (1866), as used for random-feature and NTK kernels
(e.g. Daniely, Frostig and Singer 2016); closed forms: the degree-1 arc-cosine kernel of Cho and Saul
(2009), divided by 2, for ReLU-type activations, and Williams' (1997) arcsine kernel for erf. The
series and closed forms were checked term by term for this project (docs/derivations/kernels.md#dual-kernel, [D]).

Checked here: the series truncated at `degree`, with the Parseval bound on its tail
(`theorems.mehler.dual_kernel_series`), (i) equals the closed form to the requested digits where one
exists (identity), (ii) agrees with a randomized quasi-Monte Carlo estimate of E[sigma(U) sigma(V)]
(limit), and (iii) the tail bound holds at every correlation, searched by Hypothesis (inequality). The
weight k! c_k^2 is the named definition `mehler_weight`, so mutants can replace it. Named constants: c0, c1, ...,
c<degree> and second_moment (E sigma^2); overriding one of them
(`--set c1=0.51`) tests the corresponding conjecture.
"""

from __future__ import annotations

import mpmath

from theorems.hermite import hermite_coefficients, second_moment, square_integrability_failure
from theorems.mehler import dual_kernel_closed_form, evaluate_closed_form, mehler_series, mehler_weight
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


def _constants(parameters) -> tuple[Constant, ...]:
    """c_0..c_K (K = degree) and E sigma^2; none where E sigma^2 is infinite (the statement is undefined)."""
    sigma, degree = parameters["activation"], parameters["degree"]
    if square_integrability_failure(sigma):
        return ()

    def coefficient(k):
        return lambda values, digits: hermite_coefficients(sigma, degree, digits=digits).quantity(k)
    return tuple(Constant.of_parameters(f"c{k}", coefficient(k)) for k in range(degree + 1)) + (
        Constant.of_parameters("second_moment", lambda values, digits: second_moment(sigma, digits=digits)),)


def series_at(instance: Instance, correlation) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(S_K(rho), Parseval bound on |kappa(rho) - S_K(rho)|) from the instance's (possibly overridden)
    constants and its Mehler weight (a mutant may replace the weight)."""
    coefficients = [instance.constant(f"c{k}") for k in range(instance["degree"] + 1)]
    return mehler_series(coefficients, instance.constant("second_moment"), correlation, instance.digits,
                         weight=instance.definition("mehler_weight"))


def _series_target(instance: Instance) -> Target:
    """The truncated series with its Parseval tail bound, at the instance's rho."""
    value, tail = series_at(instance, instance["rho"])
    with mpmath.workdps(instance.digits + 10):
        slack = mpmath.mpf(10) ** (-instance.digits + 2) * (1 + abs(value))
        lower = value - slack if instance["rho"] >= 0 else value - tail - slack
        return Target(value=value, lower=lower, upper=value + tail + slack,
                      note=f"series to degree {instance['degree']}, tail <= {mpmath.nstr(tail, 3)}")


def tail_bound_terms(instance: Instance, correlation) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(bound(rho) - |kappa(rho) - S_K(rho)|, bound(rho)), kappa from the closed form: the margin is >= 0 wherever
    the claim holds."""
    value, tail = series_at(instance, correlation)
    kernel = dual_kernel_closed_form(instance["activation"])
    with mpmath.workdps(instance.digits + 10):
        exact = evaluate_closed_form(kernel, correlation, instance.digits)
        return tail - abs(exact - value), tail


def tail_bound_margin(instance: Instance, correlation) -> mpmath.mpf:
    """bound(rho) - |kappa(rho) - S_K(rho)|, kappa from the closed form: >= 0 wherever the claim holds."""
    return tail_bound_terms(instance, correlation)[0]


def _resolution(instance: Instance) -> float:
    # a check that passes must be able to see a 0.2% change of E sigma^2 (the kernel's scale)
    return 2e-3 * float(instance.constant("second_moment"))


def _closed_form_missing(instance: Instance) -> str | None:
    if dual_kernel_closed_form(instance["activation"]) is None:
        return f"no closed form is known here for {instance['activation'].name}"
    return None


def _square_integrable(instance: Instance) -> str | None:
    return square_integrability_failure(instance["activation"])


def closed_form_value(instance: Instance) -> mpmath.mpf:
    """kappa(rho) from the closed form (deterministic; used by the identity check)."""
    kernel = dual_kernel_closed_form(instance["activation"])
    return evaluate_closed_form(kernel, instance["rho"], instance.digits)


THEOREM = Theorem(
    id="dual-kernel",
    title="Mehler's formula for the dual kernel E[sigma(U) sigma(V)]",
    source="Mehler's formula (1866); arc-cosine kernel (Cho and Saul 2009); arcsine kernel (Williams 1997)",
    provenance="derived",
    statement="E[sigma(U) sigma(V)] = sum_k k! c_k^2 rho^k for standard normal (U, V) with correlation rho, "
              "c_k = E[sigma(Z) He_k(Z)]/k! (probabilists' Hermite polynomials)",
    parameters=(
        Parameter(name="activation", description="the activation sigma", kind="activation", default="relu"),
        Parameter(name="rho", description="correlation of U and V", kind="real", default="0.7", lower=-1.0, upper=1.0),
        Parameter(name="degree", description="truncation degree K of the series", kind="integer", default="24",
                  lower=1, upper=200),
    ),
    assumptions=(
        Assumption(name="square-integrable", statement="E sigma(Z)^2 < infinity", check=_square_integrable),
    ),
    constants=_constants,
    predictions=(
        Prediction(name="closed-form", kind="identity",
                   statement="the truncated series, with its tail bound, contains the closed-form kernel",
                   predict=_series_target,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.2% of E sigma^2, the kernel's scale: c_1 0.6% high (the kept "
                                                      "near mutant) moves the kernel by two resolutions at the "
                                                      "defaults"),
                   resolution=_resolution, applies=_closed_form_missing),
        Prediction(name="monte-carlo", kind="limit",
                   statement="the truncated series, with its tail bound, contains E[sigma(U) sigma(V)]",
                   predict=_series_target,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.2% of E sigma^2, the kernel's scale: c_1 0.6% high (the kept "
                                                      "near mutant) moves the kernel by two resolutions at the "
                                                      "defaults"),
                   resolution=_resolution),
        Prediction(name="tail-bound", kind="inequality",
                   statement="for every rho in [-1, 1], |kappa(rho) - S_K(rho)| <= |rho|^(K+1) (E sigma^2 - sum_k<=K "
                             "k! c_k^2) "
                   "(searched by Hypothesis; the smallest margin found must be >= 0)",
                   predict=lambda instance: Target.at_least(0, note="smallest margin over the searched correlations; "
                                                         "kappa from the closed form, else from a converged "
                                                         "quadrature"),
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the kernel (closed form, or converged quadrature) and the "
                                                      "truncated series are evaluated in mpmath at 30+ digits, so "
                                                      "the margin's error is far below the resolution, which is the "
                                                      "kernel's own (0.2% of E sigma^2)"),
                   resolution=_resolution),
    ),
    mutants=(
        Mutant(name="factorial-dropped", description="the k! weight dropped: sum_k c_k^2 rho^k",
               definitions={"mehler_weight": lambda k, c: c**2}),
        Mutant(name="coefficient-not-squared", description="c_k instead of c_k^2: sum_k k! c_k rho^k",
               definitions={"mehler_weight": lambda k, c: mpmath.factorial(k) * c}),
        Mutant(name="c1-nudged", description="c_1 0.6% high, a few of its digits lost (a near error)",
               constant_factors={"c1": 1.006}),
    ),
    definitions={"mehler_weight": mehler_weight},
)
