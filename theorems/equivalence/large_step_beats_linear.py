"""A large first step beats the linear bound: tau_* and the risk at eta = sqrt(N) (Ba et al., Lemma 6, Theorem 7, Cor.
8)  [paper].

Statement (Ba, Erdogdu, Suzuki, Wang, Wu and Yang, NeurIPS 2022;
docs/derivations/equivalence.md#large-step-beats-linear). With xi1, xi2 iid N(0, 1),

    tau_* = inf_kappa E_xi1 [(sigma*(xi1) - E_xi2 sigma(kappa xi1 + xi2))^2].

For eta = Theta(sqrt(N)) and n/d large, the ridge risk obeys R_1 <= 10 tau_* + C(sqrt(tau_*) sqrt(d/n) + d/n)
(Theorem 7). Corollary 8:
- for sigma = sigma* = erf, R_1 = O(d/n);
- for tanh/tanh, R_1 falls below the linear bound ||P_{>1} f*||^2 = E sigma*^2 - mu0*^2 - mu1*^2.
The Gaussian-equivalent model cannot do that: R_GE >= ||P_{>1} f*||^2 always (Fact 4).

Exact parts [D]:
- E_xi2 erf(a + xi2) = erf(a/sqrt(3)). sympy proves it: both sides are odd in a, so they vanish at a = 0, and
  their a-derivatives agree, since d/da E erf(a + Z) = (2/sqrt(pi)) E exp(-(a + Z)^2) = (2/sqrt(3 pi)) exp(-a^2/3).
  Hence at kappa_* = sqrt(3), E_xi2 erf(kappa_* xi1 + xi2) = erf(xi1), and tau_* = 0 for erf/erf. The check
  computes tau(sqrt 3) by a two-dimensional quadrature that never uses the identity (it finds 0 to 1e-13); the
  identity route `tau_erf` is kept as the tests' second route to tau.
- tanh/tanh: tau_* = 9.4527e-5 at kappa = 1.58827. This is a numeric minimum: Gauss-Hermite on both
  expectations, then a bounded scalar search. It lies well below ||P_{>1} tanh||^2 / 10 = 0.00274.

Theorem 7 needs n/d above a constant psi1_* that the paper does not give. At erf/erf the network's risk is about
0.28 d/n at these settings (0.070 at n/d = 4, 0.035 at 8), so it beats the linear bound only from n/d of about 7:
below n/d = 8 the verdict is "outside assumptions" (`large-sample-ratio`), with the predictions still evaluated.
That crossover is known only at the measured setting (erf/erf, noise 0.1, psi2 = 2, penalty 1e-3): elsewhere
psi1_* moves (the risk stayed above the bound at n/d = 8 at noise 1, psi2 = 0.32 or 10, a ridge of 1), so
beats-linear is claimed there only (`MEASURED_SETTING`) and is "not applicable" elsewhere, with the reason.

Simulated part (erf/erf, psi1 = 8, psi2 = 2, lambda = 1e-3, eta = N^(1/2), sample splitting), at d, 2d and 4d
(d = `dimension`, 128 by default; d and 2d at quick fidelity): the network's risk is below the linear bound 0.04015
at every size, strictly (Corollary 8), so a pass rejects equality at each, the nearest error; the
Gaussian-equivalent model's risk is at or above it (Fact 4; 0.063 measured), read against the nearest error of its
bound, ||P_>=1 f*||^2 for ||P_>1 f*||^2.
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy

from theorems.hermite import (
    Quantity,
    gauss_hermite_rule,
    gauss_hermite_rule_mpmath,
    hermite_coefficients,
    mu_star_squared,
)
from theorems.onestep import common as onestep
from theorems.statement import (
    Assumption,
    Constant,
    Mutant,
    Parameter,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
)

_a, _z = sympy.symbols("a z", real=True)


def smoothing_identity_residual(variance: int = 3) -> sympy.Expr:
    """d/da E_Z erf(a + Z) - d/da erf(a/sqrt(variance)), simplified (0 for variance 3)."""
    density = sympy.exp(-_z**2 / 2) / sympy.sqrt(2 * sympy.pi)
    integrand = 2 / sympy.sqrt(sympy.pi) * sympy.exp(-(_a + _z) ** 2) * density
    derivative = sympy.integrate(integrand, (_z, -sympy.oo, sympy.oo))
    return sympy.simplify(derivative - sympy.diff(sympy.erf(_a / sympy.sqrt(variance)), _a))


def tau_erf(kappa, digits: int) -> mpmath.mpf:
    """E_xi [(erf(xi) - erf(kappa xi / sqrt(3)))^2]: tau for erf/erf through the identity, in mpmath (a second
    route to tau for the tests; the check does not use it)."""
    with mpmath.workdps(digits + 10):
        kappa = mpmath.mpf(kappa)

        def integrand(x):
            return (mpmath.erf(x) - mpmath.erf(kappa * x / mpmath.sqrt(3))) ** 2 * mpmath.npdf(x)
        return mpmath.quad(integrand, [-mpmath.inf, 0, mpmath.inf])


def tau_numeric(sigma, teacher, kappa: float, nodes: int = 100) -> float:
    """E_xi1 [(sigma*(xi1) - E_xi2 sigma(kappa xi1 + xi2))^2] by Gauss-Hermite on both expectations."""
    z, weights = gauss_hermite_rule(nodes)
    inner = sigma(kappa * z[:, None] + z[None, :]) @ weights
    return float(weights @ (teacher(z) - inner) ** 2)


ROOT_NODES = 240  # Gauss-Hermite nodes per axis for the root of tau': 200, 240 and 300 nodes agree to 1e-15
KAPPA_TANH_DIGITS = 13
TAU_TANH_DIGITS = 10
# the mpmath route's nodes: tau(kappa_tanh) is 9.4526506650e-5, 9.4526506634e-5 and 9.45265066328e-5 with 140, 160
# and 200 nodes; at 200 it agrees with the float64 route's 240 nodes to 2e-17, and tau' there is 2e-17
MPMATH_NODES = 200
# the mpmath route's accuracy: its 160- and 200-node values of tau differ by 1.5e-15 and the error shrinks
# geometrically with the nodes, so at 200 nodes tau is good to 1e-16 and the Newton distance to 1e-15
MPMATH_TAU_ACCURACY = 1e-16
MPMATH_ROOT_ACCURACY = 1e-15


def half_unit_of_last_digit(value: float, digits: int) -> float:
    """Half a unit in the last of `digits` significant digits of `value`: how far a value stated to that many
    digits may lie from the truth."""
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)


def _digits_band(name: str, digits: int, note: str):
    """The target of "constant `name` is right to its `digits` digits": a difference within half a unit of the
    last digit, either side."""
    return lambda instance: Target.around(0, half_unit_of_last_digit(float(instance.constant(name)), digits),
                                          note=note)


def _digits_resolution(name: str, digits: int, accuracy: float):
    """The band's width plus the reference route's accuracy: what the comparison resolves."""
    return lambda instance: 2 * half_unit_of_last_digit(float(instance.constant(name)), digits) + accuracy


def tau_derivative(sigma, sigma_derivative, teacher, kappa: float, nodes: int = ROOT_NODES) -> float:
    """d tau / d kappa = -2 E_xi1[(sigma*(xi1) - g(kappa xi1)) xi1 g'(kappa xi1)], g(a) = E sigma(a + xi2) and
    g'(a) = E sigma'(a + xi2), by Gauss-Hermite on both expectations."""
    z, weights = gauss_hermite_rule(nodes)
    preactivation = kappa * z[:, None] + z[None, :]
    inner = sigma(preactivation) @ weights
    slope = sigma_derivative(preactivation) @ weights
    return float(-2 * weights @ ((teacher(z) - inner) * z * slope))


def tanh_derivative(u):
    """tanh'(u) = sech(u)^2."""
    return 1 / np.cosh(u) ** 2


@functools.lru_cache(maxsize=1)
def tanh_minimum() -> tuple[float, float]:
    """(kappa, tau_*) for sigma = sigma* = tanh: the root of tau' (Brent's method, to 1e-15) and tau there, both by
    Gauss-Hermite with ROOT_NODES nodes per axis."""
    import scipy.optimize
    kappa = scipy.optimize.brentq(lambda k: tau_derivative(np.tanh, tanh_derivative, np.tanh, k), 1.0, 2.5,
                                  xtol=1e-15, rtol=1e-15)
    return float(kappa), tau_numeric(np.tanh, np.tanh, kappa, ROOT_NODES)


@functools.lru_cache(maxsize=4)
def tanh_tau_mpmath(kappa: str, digits: int = 30, nodes: int = MPMATH_NODES) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(tau(kappa), tau'(kappa)) for tanh/tanh in mpmath at `digits`: the Gauss-Hermite rule at `digits` + 5
    (`gauss_hermite_rule_mpmath`) on both expectations, and the outer sum over the symmetric half of the nodes (the
    integrands are even in xi1). A route independent of the float64 one: its rule's digits, its arithmetic and its
    derivative."""
    z, w = gauss_hermite_rule_mpmath(nodes, digits + 5)
    with mpmath.workdps(digits + 5):
        k = mpmath.mpf(kappa)
        tau = derivative = mpmath.mpf(0)
        for zi, wi in zip(z, w):
            if zi < 0:
                continue
            factor = wi if zi == 0 else 2 * wi
            a = k * zi
            inner = mpmath.fsum(wj * mpmath.tanh(a + zj) for zj, wj in zip(z, w))
            slope = mpmath.fsum(wj * mpmath.sech(a + zj) ** 2 for zj, wj in zip(z, w))
            residual = mpmath.tanh(zi) - inner
            tau += factor * residual**2
            derivative -= 2 * factor * residual * zi * slope
        return +tau, +derivative


CONSTANTS = (
    Constant.exactly("kappa_star", sympy.sqrt(3), "the minimizer of tau for erf"),
    # the root of tau' in float64 (240-node Gauss-Hermite, Brent to 1e-15): the quadrature's convergence leaves
    # about 1e-14, so 13 digits are claimed; the tanh-kappa-root prediction checks them by an mpmath route
    Constant.of_parameters("kappa_tanh", lambda parameters, digits: Quantity(
        name="kappa_tanh", value=mpmath.mpf(tanh_minimum()[0]), route="float64",
        digits=min(digits, KAPPA_TANH_DIGITS)), "the minimizer of tau for tanh: the root of tau'"),
    Constant.of_parameters("tau_tanh", lambda parameters, digits: Quantity(
        name="tau_tanh", value=mpmath.mpf(tanh_minimum()[1]), route="float64", digits=min(digits, TAU_TANH_DIGITS)),
        "tau_* for tanh: tau at kappa_tanh"),
    Constant.of_parameters("linear_bound", lambda parameters, digits: mu_star_squared(
        parameters["teacher"], digits=digits), "||P_{>1} f*||^2"),
    onestep.teacher_first_coefficient(),
)


def _degree_one_kept(parameters, digits: int) -> Quantity:
    """||P_>=1 f*||^2 = ||P_>1 f*||^2 + mu1*^2: the linear bound with its degree-one term kept."""
    mu1_star = hermite_coefficients(parameters["teacher"], 1, digits=digits).quantity(1).value
    value = mu_star_squared(parameters["teacher"], digits=digits).value + mu1_star**2
    return Quantity(name="linear_bound", value=value, route="mutant", digits=digits)


# Theorem 7 holds for n/d > psi1_*, a constant the paper does not give. At erf/erf the network's risk measured is
# about 0.28 d/n (0.070 at psi1 = 4 and 0.035 at psi1 = 8, d = 128, three paired seeds each), so it is below the
# linear bound 0.040 only from n/d of about 7; the simulated claims are checked from n/d = 8
SMALLEST_SAMPLE_RATIO = 8.0


def _large_sample_ratio(instance) -> str | None:
    psi1 = float(instance["psi1"])
    if psi1 < SMALLEST_SAMPLE_RATIO:
        return (f"n/d = {psi1:g} is below {SMALLEST_SAMPLE_RATIO:g}: Theorem 7 needs n/d above a constant psi1_* "
                "that the paper does not give, and at erf/erf the network's risk, measured about 0.28 d/n, stays above "
                "the linear bound 0.040 below n/d of about 7 (docs/derivations/equivalence.md#large-step-beats-linear)")
    return None


# Where psi1_* has been measured (below SMALLEST_SAMPLE_RATIO): the defaults. Elsewhere Theorem 7's psi1_*, which
# depends on the activations, the noise, N/d and the ridge, is not known, and n/d >= 8 need not exceed it: at noise
# 1, psi2 = 0.32 or 10, or a ridge of 1 (interior points of the domains) and at noise 10, psi2 = 0.05 or a ridge of
# 1000 (their ends) the network's risk stayed above the linear bound at n/d = 8
MEASURED_SETTING = (("activation", "erf"), ("teacher", "erf"), ("noise", "1/10"), ("psi2", "2"), ("penalty", "1/1000"))


def _beats_linear_applies(instance) -> str | None:
    """beats-linear is claimed where n/d >= 8 is known to exceed psi1_*: at the measured setting only."""
    for name, value in MEASURED_SETTING:
        given = instance[name]
        same = given.name == value if hasattr(given, "name") else sympy.Rational(given) == sympy.Rational(value)
        if not same:
            return (f"{name} = {instance.describe_parameters()[name]}: Theorem 7 beats the linear bound only for n/d "
                    "above a psi1_* that the paper does not give and that moves with the activations, the noise, "
                    "N/d and the ridge; it is measured (about 7) only at erf/erf, noise 0.1, psi2 = 2, penalty "
                    "1e-3 (docs/derivations/equivalence.md#large-step-beats-linear)")
    return None


def smoothing_defect(instance, measured) -> int:
    """1 where the smoothing identity at the statement's variance does not simplify to 0 (sympy; nothing is
    measured), else 0."""
    return 0 if smoothing_identity_residual(instance.definition("smoothing_variance")) == 0 else 1


def tau_at_kappa_star(instance, measured) -> float:
    """tau(kappa_star) by the measured route to tau for erf/erf (a function of kappa)."""
    return measured["tau"](float(instance.constant("kappa_star")))


def tau_through_the_identity(instance):
    """tau for erf/erf through the smoothing identity, E_xi[(erf(xi) - erf(kappa xi/sqrt 3))^2], in mpmath
    (`tau_erf`): 0 at sqrt 3 and positive elsewhere."""
    return {"the identity's tau": {"tau": lambda kappa: float(tau_erf(kappa, 20))}}


def tanh_tau_ratio(instance, measured) -> float:
    """10 tau(kappa_tanh) / ||P_>1 tanh||^2, by the measured route to tau for tanh/tanh (a function of kappa)."""
    return 10 * measured["tau"](float(instance.constant("kappa_tanh"))) / measured["beyond_linear"]


def tanh_tau_margin(instance, measured) -> float:
    """1 - `tanh_tau_ratio`: Corollary 8's tanh case holds where it is >= 0."""
    return 1 - tanh_tau_ratio(instance, measured)


def tanh_at_its_bound(instance):
    """A tau that is a tenth of ||P_>1 tanh||^2 (here 1) at every kappa: Corollary 8's tanh case with equality."""
    return {"at the bound": {"tau": lambda kappa: 0.1, "beyond_linear": 1.0}}


def newton_distance(instance, measured) -> float:
    """tau'/tau'' at kappa_tanh: the Newton distance measured at kappa = `at`, moved to the statement's kappa_tanh
    to first order (exact across the digits in question; far away, as for kappa = 1, it says only that the root is
    not there)."""
    return measured["distance"] + (float(instance.constant("kappa_tanh")) - measured["at"])


def float64_root(instance):
    """The float64 route's root of tau' (`tanh_minimum`), taken as exact: no Newton step from it."""
    return {"the float64 root": {"at": tanh_minimum()[0], "distance": 0.0}}


def tau_difference(instance, measured) -> float:
    """tau at kappa_tanh, measured, minus the stated tau_tanh."""
    return measured["tau"] - float(instance.constant("tau_tanh"))


def float64_tau(instance):
    """The float64 route's tau at its root (`tanh_minimum`), taken as exact."""
    return {"the float64 value": {"tau": tanh_minimum()[1]}}


def network_margin(instance, measured) -> float:
    """One draw's linear_bound - R_network."""
    return float(instance.constant("linear_bound")) - measured["network"]


def equivalent_margin(instance, measured) -> float:
    """One draw's R_GE - linear_bound."""
    return measured["equivalent"] - float(instance.constant("linear_bound"))


def network_references(instance):
    """A network whose risk is the linear bound (equality, which beats-linear excludes), and Theorem 7's limit for
    erf/erf, where tau_* = 0 and the risk C d/n vanishes as n/d grows (the noiseless teacher's risk)."""
    return {"at the linear bound": {"network": float(instance.constant("linear_bound"))},
            "Theorem 7 as n/d -> infinity (erf/erf)": {"network": 0.0}}


def equivalent_at_the_bound(instance):
    """A Gaussian-equivalent model whose risk is the linear bound: Fact 4's equality."""
    return {"at the linear bound": {"equivalent": float(instance.constant("linear_bound"))}}


def _unit(name):
    return lambda parameters, digits: Quantity.exactly(name, 1, digits)


def _last_digit_off(name: str, index: int, stated_digits: int):
    """Constant `name` (entry `index` of `tanh_minimum()`) rounded to its `stated_digits` digits and then one unit
    of the last higher: the nearest error a value stated to that many digits can carry."""
    def constant(parameters, digits):
        value = mpmath.mpf(tanh_minimum()[index])
        unit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(value))) - stated_digits + 1)
        return Quantity(name=name, value=mpmath.nint(value / unit) * unit + unit, route="float64",
                        digits=min(digits, stated_digits))
    return constant


THEOREM = Theorem(
    id="large-step-beats-linear",
    title="A step eta = sqrt(N) beats the linear bound; tau_* = 0 for erf at kappa = sqrt(3), 9.45e-5 for tanh",
    source="Ba, Erdogdu, Suzuki, Wang, Wu and Yang, NeurIPS 2022, Lemma 6, Theorem 7 and Corollary 8; exact values "
           "docs/derivations/equivalence.md#large-step-beats-linear",
    provenance="paper",
    statement="E_xi2 erf(a + xi2) = erf(a/sqrt 3), so tau_*(erf) = 0 at kappa_star = sqrt 3; tau_*(tanh) < "
              "||P_>1 tanh||^2/10; at eta = N^(1/2) the network's ridge risk < ||P_>1 f*||^2 <= the GE model's",
    parameters=(
        *onestep.parameters(activation="erf", teacher="erf", noise="0.1", psi1="8", psi2="2"),
        Parameter(name="penalty", description="ridge lambda in (1/n)||y - Phi a||^2 + (lambda/N)||a||^2", kind="real",
                  default="1e-3", lower=1e-8, upper=1e3),
        Parameter(name="dimension", description="d of the simulation", kind="integer", default="128", lower=16,
                  upper=2048),
    ),
    assumptions=(*onestep.ba_assumption_1(),
                 Assumption(name="large-sample-ratio", statement=f"n/d >= {SMALLEST_SAMPLE_RATIO:g} (Theorem 7's "
                                                                  "n/d > psi1_*, a constant not given)",
                            check=_large_sample_ratio)),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="smoothing-identity", kind="identity",
                   statement="d/da [E erf(a + Z) - erf(a/sqrt 3)] simplifies to 0 (sympy)",
                   predict=lambda instance: Target.point(0), observable=smoothing_defect,
                   references=lambda instance: {"symbolic": {}},
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "sympy simplifies the derivative of the difference "
                                                      "symbolically: exactly 0 or not, so 0.5 separates the two"),
                   resolution=lambda instance: 0.5),
        Prediction(name="erf-tau-star", kind="identity",
                   statement="tau(kappa_star) for erf/erf: 0 (by two-dimensional quadrature, to 1e-13)",
                   predict=lambda instance: Target.point(0), observable=tau_at_kappa_star,
                   references=tau_through_the_identity,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "tau(sqrt 3) by two-dimensional quadrature that never uses the "
                                                      "identity is 0 to 1e-13; 1e-6 leaves room"),
                   resolution=lambda instance: 1e-6),
        Prediction(name="tanh-tau-star", kind="inequality",
                   statement="1 - 10 tau(kappa_tanh) / ||P_>1 tanh||^2 >= 0 (Corollary 8's tanh case)",
                   predict=lambda instance: Target.at_least(0), observable=tanh_tau_margin,
                   references=tanh_at_its_bound,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the margin 1 - 10 tau_*/||P_>1 tanh||^2 is computed by "
                                                      "quadrature accurate to about 1e-13; 1e-6 leaves room"),
                   resolution=lambda instance: 1e-6),
        Prediction(name="tanh-kappa-root", kind="identity",
                   statement="kappa_tanh is the root of tau' to its 13 digits: tau'/tau'' at kappa_tanh, by an "
                             "mpmath route (200-node Gauss-Hermite at 30 digits), within half a unit of the 13th digit",
                   predict=_digits_band("kappa_tanh", KAPPA_TANH_DIGITS, "Newton distance to the root of tau'"),
                   observable=newton_distance, references=float64_root,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the digits kappa_tanh is stated to: half a unit of its 13th "
                                                      "digit either side (5e-13), plus the mpmath route's accuracy "
                                                      "(1e-15; its error shrinks geometrically with the nodes)"),
                   resolution=_digits_resolution("kappa_tanh", KAPPA_TANH_DIGITS, MPMATH_ROOT_ACCURACY)),
        Prediction(name="tanh-tau-value", kind="identity",
                   statement="tau_tanh is tau at kappa_tanh to its 10 digits: the mpmath route's tau minus tau_tanh, "
                             "within half a unit of the 10th digit",
                   predict=_digits_band("tau_tanh", TAU_TANH_DIGITS, "difference of the two routes"),
                   observable=tau_difference, references=float64_tau,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the digits tau_tanh is stated to: half a unit of its 10th digit "
                                                      "either side (5e-15), plus the mpmath route's accuracy (1e-16)"),
                   resolution=_digits_resolution("tau_tanh", TAU_TANH_DIGITS, MPMATH_TAU_ACCURACY)),
        Prediction(name="beats-linear", kind="limit",
                   statement="linear_bound - R_CK at eta = N^(1/2) > 0 at every size read (d, 2d, 4d; d and 2d at "
                             "quick fidelity)",
                   predict=lambda instance: Target.above(0, note="risk margin, at each size"),
                   observable=network_margin,
                   references=network_references,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "Corollary 8's inequality is strict, and its nearest error is "
                                                      "equality (the mutant risk-equals-the-bound): a pass rejects "
                                                      "equality at every size, however small the margin, so no band "
                                                      "is allowed beyond float64 round-off of the bound"),
                   resolution=lambda instance: 1e-12, applies=_beats_linear_applies),
        Prediction(name="equivalent-stays-linear", kind="limit",
                   statement="R_GE - linear_bound at eta = N^(1/2) >= 0 at every size read (Fact 4)",
                   predict=lambda instance: Target.at_least(0, note="risk margin, at each size"),
                   observable=equivalent_margin, references=equivalent_at_the_bound,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "the bound's nearest error keeps the degree-one term, "
                                                      "||P_>=1 f*||^2 (the mutant degree-one-kept), which moves it by "
                                                      "mu1*^2 (0.42 for erf); half of that puts it two resolutions "
                                                      "away"),
                   resolution=lambda instance: float(instance.constant("mu1_star")) ** 2 / 2),
    ),
    mutants=(
        Mutant(name="kappa-one", description="tau_* claimed at kappa = 1 (for erf and tanh)",
               constants={"kappa_star": _unit("kappa_star"), "kappa_tanh": _unit("kappa_tanh")}),
        Mutant(name="smoothing-variance-two", description="E erf(a + Z) = erf(a/sqrt 2)",
               definitions={"smoothing_variance": 2}),
        Mutant(name="linear-bound-halved", description="the linear bound at half its value",
               constant_factors={"linear_bound": 0.5}),
        Mutant(name="risk-equals-the-bound", description="the network's risk at the linear bound, not below it",
               predictions={"beats-linear": lambda instance: Target.point(0, note="risk margin, at each size")}),
        Mutant(name="degree-one-kept", description="the bound ||P_>=1 f*||^2 = E sigma*^2 - mu0*^2: the linear "
                                                   "term kept",
               constants={"linear_bound": _degree_one_kept}),
        Mutant(name="rate-term-dropped", description="Theorem 7 without its C(sqrt(tau_*) sqrt(d/n) + d/n) term: the "
                                                     "network's risk below 10 tau_* = 0 for erf",
               constants={"linear_bound": lambda parameters, digits: Quantity.exactly("linear_bound", 0, digits)}),
        Mutant(name="kappa-tanh-last-digit", description="kappa_tanh one unit high in its 13th (last stated) digit",
               constants={"kappa_tanh": _last_digit_off("kappa_tanh", 0, KAPPA_TANH_DIGITS)}),
        Mutant(name="tau-tanh-last-digit", description="tau_tanh one unit high in its 10th (last stated) digit",
               constants={"tau_tanh": _last_digit_off("tau_tanh", 1, TAU_TANH_DIGITS)}),
    ),
    definitions={"smoothing_variance": 3},
)
