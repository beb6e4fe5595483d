"""Hermite engine: reference values, identities (Parseval, Stein, derivative), route cross-checks.

Reference values are the 30-digit table of docs/derivations/kernels.md#hermite-convention, computed independently for
the
spec with mpmath at 45 digits and a different quadrature (mpmath.quad split at 0, +-1, +-2, +-4, +-8).
"""

import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings

from tests.strategies import leaky_slopes
from theorems.activations import activation, from_expression, z
from theorems.errors import InvalidInput
from theorems.hermite import (
    derivative_second_moment,
    derivative_variance,
    hermite_coefficients,
    mu_star_squared,
    second_moment,
    square_integrability_failure,
)

SPEC_TABLE = {  # c_0 .. c_8, E sigma^2, mu_star^2, Var sigma'
    "relu": (["0.398942280401432677939946059934", "0.5", "0.199471140200716338969973029967", "0",
              "-0.0166225950167263615808310858306", "0", "0.00166225950167263615808310858306", "0",
              "-0.00014841602693505679982884898063"],
             "0.5", "0.0908450569081046642311162366275", "0.25"),
    "tanh": (["0", "0.605705509602158825583540227556", "0", "-0.0605992293801623582496613094117", "0",
              "0.00570978161257432406325499609702", "0", "-0.000442937165045062278442093994054", "0"],
             "0.394294490397841174416459772444", "0.0274153260354302571560236101086",
             "0.0975237380858573247115852987801"),
    "erf": (["0", "0.651470015870559895448512830451", "0", "-0.0723855573189510994942792033835", "0",
             "0.00723855573189510994942792033835", "0", "-0.000574488550150405551541898439551", "0"],
            "0.464559054397539978509532408118", "0.0401458728191524164591757057908",
            "0.144996853155354084731053438796"),
    "sigmoid": (["0.5", "0.206620964141907037262350828718", "0", "-0.0103994139932098655821908535086", "0",
                 "0.000536499777075367672245280619135", "0", "-0.0000243215151315330212987643694744", "0"],
                "0.293379035858092962737649171282", "0.000686813035161729042449865785458",
                "0.00214401852726313809738335279853"),
    "softplus": (["0.806059183347439784528228831504", "0.5", "0.103310482070953518631175414359", "0",
                  "-0.00259985349830246639554771337716", "0", "0.0000894166295125612787075467698558", "0",
                  "-0.0000030401893914416276623455461843"],
                 "0.921245908859300278677248686821", "0.0215145018005587318394939382301",
                 "0.0433790358580929627376491712819"),
}


def _close(value, reference: str, digits: int = 29) -> bool:
    with mpmath.workdps(50):
        reference = mpmath.mpf(reference)
        return abs(mpmath.mpf(value) - reference) <= mpmath.mpf(10) ** (-digits) * max(1, abs(reference))


@pytest.mark.parametrize("name", SPEC_TABLE)
def test_spec_table_to_30_digits(name):
    coefficients, moment, mu_star2, variance = SPEC_TABLE[name]
    table = hermite_coefficients(name, 8, digits=30)
    for k, reference in enumerate(coefficients):
        assert _close(table.coefficients[k], reference), (name, k)
    assert _close(second_moment(name).value, moment)
    assert _close(mu_star_squared(name).value, mu_star2)
    assert _close(derivative_variance(name).value, variance)


def test_routes_are_labelled():
    assert set(hermite_coefficients("relu", 10).routes) == {"exact"}
    assert hermite_coefficients("tanh", 3).routes == ("exact", "mpmath", "exact", "mpmath")  # parity is exact
    assert second_moment("erf").route == "exact"
    assert second_moment("erf").exact == 2 * sympy.asin(sympy.Rational(2, 3)) / sympy.pi


@pytest.mark.parametrize("name", ["relu", "abs", "erf", "gelu", "leaky_relu:0.2", "poly:1,-2,0,0.5"])
def test_exact_route_equals_mpmath_route_to_30_digits(name):
    exact = hermite_coefficients(name, 10, digits=30, route="exact")
    numeric = hermite_coefficients(name, 10, digits=30, route="mpmath")
    assert set(numeric.routes) == {"mpmath"}
    for k in range(11):
        scale = math.sqrt(float(second_moment(name).value) / math.factorial(k))
        with mpmath.workdps(40):
            difference = abs(exact.coefficients[k] - numeric.coefficients[k])
        assert difference <= mpmath.mpf(10) ** -30 * max(abs(exact.coefficients[k]), mpmath.mpf(10) ** -5 * scale)


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "softplus", "gelu", "silu", "erf"])
def test_float64_route_agrees_with_mpmath(name):
    fast = hermite_coefficients(name, 12, route="float64")
    precise = hermite_coefficients(name, 12, digits=20)
    assert set(fast.routes) == {"float64"}
    for a, b in zip(fast.coefficients, precise.coefficients):
        assert float(a) == pytest.approx(float(b), abs=1e-13)


def test_float64_route_refused_for_kinked_activations():
    with pytest.raises(InvalidInput, match="kinks"):
        hermite_coefficients("relu", 4, route="float64")


@pytest.mark.parametrize("name", ["relu", "tanh", "erf", "sigmoid", "softplus", "gelu", "silu", "abs"])
def test_parseval_partial_sums_increase_to_second_moment(name):
    table = hermite_coefficients(name, 16, digits=30)
    moment = second_moment(name).value
    with mpmath.workdps(40):
        partial = mpmath.fsum(mpmath.factorial(k) * c**2 for k, c in enumerate(table.coefficients))
    assert partial <= moment * (1 + mpmath.mpf(10) ** -28)
    assert partial >= moment * mpmath.mpf("0.99")  # spec: <= 1% left beyond degree 8 for all of these


@pytest.mark.parametrize("name", ["relu", "tanh", "erf", "sigmoid", "softplus", "gelu", "silu"])
def test_stein_c1_is_mean_derivative(name):
    """c_1 = E sigma'(Z) (Stein's lemma): coefficient route vs an independent mpmath.quad of sigma'."""
    sigma = activation(name)
    derivative = sigma.derivative()
    with mpmath.workdps(30):
        points = [-mpmath.inf, *[mpmath.mpf(float(k)) for k in sigma.kinks], mpmath.inf]
        mean = mpmath.quad(lambda t: derivative.mpmath(t) * mpmath.npdf(t), points)
    assert abs(hermite_coefficients(sigma, 1).coefficients[1] - mean) < 1e-25


@pytest.mark.parametrize("function, derivative", [("softplus", "sigmoid"), ("gelu", None), ("relu", None)])
def test_derivative_identity(function, derivative):
    """c_{k+1}(f) = c_k(f') / (k + 1) (docs/derivations/onestep.md#setting-and-normalization)."""
    sigma = activation(function)
    prime = activation(derivative) if derivative else sigma.derivative()
    upper = hermite_coefficients(sigma, 9).coefficients
    lower = hermite_coefficients(prime, 8).coefficients
    for k in range(8):
        with mpmath.workdps(40):
            assert abs(upper[k + 1] - lower[k] / (k + 1)) < mpmath.mpf(10) ** -28


@given(leaky_slopes)
@settings(max_examples=10, deadline=None)
def test_leaky_relu_is_linear_in_relu(slope):
    """leaky(z) = s z + (1 - s) relu(z), so c_k(leaky) = s [k == 1] + (1 - s) c_k(relu)."""
    s = sympy.Rational(slope.numerator, slope.denominator)
    leaky = hermite_coefficients(activation(f"leaky_relu:{s}"), 6).exact
    relu = hermite_coefficients("relu", 6).exact
    for k in range(7):
        assert sympy.simplify(leaky[k] - ((s if k == 1 else 0) + (1 - s) * relu[k])) == 0


def test_scaled_coefficients_of_homogeneous_relu():
    """relu(bz) = b relu(z), so E[relu(bZ) He_k(Z)]/k! = b c_k (Demir and Dogan's h_j at scale b)."""
    b = sympy.Rational(3, 2)
    scaled = hermite_coefficients(activation("relu").scaled(b), 8).exact
    plain = hermite_coefficients("relu", 8).exact
    assert all(sympy.simplify(s - b * p) == 0 for s, p in zip(scaled, plain))


def test_normalized_coefficients():
    table = hermite_coefficients("relu", 4)
    mu = table.normalized()
    assert float(mu[2]) == pytest.approx(math.sqrt(2) * float(table.coefficients[2]))


def test_high_precision_and_degree():
    table = hermite_coefficients("tanh", 21, digits=60)
    assert table.routes[21] == "mpmath"
    lower = hermite_coefficients("tanh", 21, digits=30)
    with mpmath.workdps(70):
        difference = abs(table.coefficients[21] - lower.coefficients[21])
        assert difference <= mpmath.mpf(10) ** -30 * abs(table.coefficients[21])


@pytest.mark.parametrize("options", [dict(degree=-1), dict(degree=401), dict(digits=0), dict(digits=1001),
                                     dict(route="magic"), dict(degree=2.5)])
def test_bad_options(options):
    arguments = dict(degree=4, digits=30, route="auto") | options
    with pytest.raises(InvalidInput):
        hermite_coefficients("relu", arguments.pop("degree"), **arguments)


def test_square_integrability():
    assert square_integrability_failure(activation("relu")) is None
    assert square_integrability_failure(activation("exp(z**2/4)")) is not None
    assert square_integrability_failure(activation("exp(z)")) is None


@pytest.mark.parametrize("function, reason", [("exp(z**2)", "appears infinite"),
                                              ("exp(exp(z))", "cannot be evaluated")])
def test_coefficients_of_a_function_outside_l2_are_refused_not_sent_to_quadrature(function, reason):
    # the Hermite expansion is one of L^2(N(0, 1)); the quadrature would spend its refinements and then fail
    with pytest.raises(InvalidInput, match=reason):
        hermite_coefficients(function, 2)


def test_builtin_tables_match_snapshot():
    """c_0..c_12 of every built-in at 30 digits, committed: a changed derivation shows up as a diff."""
    from tests.snapshots import check_snapshot
    from theorems.activations import BUILTINS

    data = {}
    for name in [*BUILTINS, "leaky_relu:0.1"]:
        table = hermite_coefficients(name, 12, digits=30)
        for k in range(13):
            exact = table.exact[k]
            data[f"{name} c{k}"] = {"value": table.decimals()[k], "route": table.routes[k],
                                    "exact": None if exact is None else str(exact)}
    check_snapshot("hermite-builtins", data)


@pytest.mark.parametrize("name", ["relu", "tanh", "erf"])
def test_the_derivatives_second_moment_is_its_variance_plus_c1_squared(name):
    """E sigma'^2 = Var sigma' + (E sigma')^2, and E sigma' = c_1 by Stein's lemma: the spec's Var sigma' and c_1
    give it (1/4 + 1/4 = 1/2 for relu, exactly)."""
    coefficients, _, _, variance = SPEC_TABLE[name]
    with mpmath.workdps(40):
        expected = mpmath.mpf(variance) + mpmath.mpf(coefficients[1]) ** 2
        assert abs(derivative_second_moment(name).value - expected) < mpmath.mpf("1e-28")


@pytest.mark.parametrize("nodes", [20, 100, 160, 240, 360])
def test_the_shared_gauss_hermite_rule_integrates_against_the_standard_normal(nodes):
    """E cos(a Z) = exp(-a^2/2) and E Z^2 = 1 to 1e-15 at every node count the readers use (scipy's asymptotic
    rule above 150 nodes is off by 1e-14, which once failed kappa_tanh's identity); the shared arrays are
    read-only, and node counts where numpy's weights overflow are refused."""
    from theorems.hermite import MAX_RULE_NODES, gauss_hermite_rule

    points, weights = gauss_hermite_rule(nodes)
    for a in (0.5, 1.0, 2.0):
        assert abs(weights @ np.cos(a * points) - math.exp(-a * a / 2)) < 1e-15
    assert abs(weights @ points**2 - 1) < 2e-15
    with pytest.raises(ValueError):
        weights[0] = 0.0
    with pytest.raises(ValueError, match="accurate in float64"):
        gauss_hermite_rule(MAX_RULE_NODES + 20)


@pytest.mark.parametrize("nodes", [1, 2, 7, 20, 21])
def test_the_mpmath_gauss_hermite_rule_is_mpmaths_own_to_its_digits(nodes):
    """Newton's roots and Christoffel's weights agree with mpmath's Golub-Welsch rule (physicists' weight, rescaled)
    to 1e-35, and the rule is exact for Z^(2k) = (2k - 1)!! up to degree 2 nodes - 1."""
    from theorems.hermite import gauss_hermite_rule_mpmath

    points, weights = gauss_hermite_rule_mpmath(nodes, 40)
    with mpmath.workdps(50):
        roots, masses = mpmath.gauss_quadrature(nodes, "hermite")
        assert max(abs(p - mpmath.sqrt(2) * r) for p, r in zip(points, roots)) < mpmath.mpf("1e-35")
        assert max(abs(w - m / mpmath.sqrt(mpmath.pi)) for w, m in zip(weights, masses)) < mpmath.mpf("1e-35")
        for k in range(nodes):
            moment = mpmath.fsum(w * p ** (2 * k) for p, w in zip(points, weights))
            assert abs(moment / mpmath.fac2(2 * k - 1) - 1) < mpmath.mpf("1e-35")


def test_a_root_kink_is_integrated_to_full_precision():
    """|z|^(1/2) has an infinite slope at its kink, where a Gauss-Legendre panel converges only algebraically; the
    panels at a kink are mapped flat at their ends, so E|Z|^(1/2) = 2^(1/4) Gamma(3/4) / sqrt(pi) comes out to 30
    digits (it was refused as possibly not square-integrable)."""
    table = hermite_coefficients("abs(z)**0.5", 2, digits=30)
    with mpmath.workdps(40):
        closed = mpmath.mpf(2) ** mpmath.mpf(0.25) * mpmath.gamma(mpmath.mpf(3) / 4) / mpmath.sqrt(mpmath.pi)
        assert abs(table.coefficients[0] - closed) < mpmath.mpf(10) ** -29


def test_a_quadrature_is_estimated_only_where_no_closed_form_covers_the_request():
    from theorems.hermite import arb_route_seconds, mpmath_route_seconds, quadrature_seconds
    assert quadrature_seconds("relu", 100, 1000) == 0.0  # every c_k and E sigma^2 in closed form
    assert quadrature_seconds("tanh", 20, 30, route="float64") == 0.0
    tanh = quadrature_seconds("tanh", 400, 30)  # the odd c_k by quadrature, the even ones and E sigma^2 too, in Arb
    assert tanh == arb_route_seconds(400, 30) + arb_route_seconds(0, 30)
    assert quadrature_seconds("erf", 20, 30, route="mpmath") > 0
    # Arb lacks asinh here: that quadrature runs in mpmath, and is estimated so
    inverse_sinh = from_expression(sympy.asinh(z))
    assert quadrature_seconds(inverse_sinh, 20, 30) == mpmath_route_seconds(20, 30) + mpmath_route_seconds(0, 30)


def test_the_estimate_grows_with_degree_and_digits():
    from theorems.hermite import arb_route_seconds, mpmath_route_seconds
    for seconds in (mpmath_route_seconds, arb_route_seconds):
        assert seconds(20, 30) < seconds(200, 30) < seconds(400, 30)
        assert seconds(20, 30) < seconds(20, 300) < seconds(20, 1000)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from Linux's /proc")
def test_the_memory_estimate_is_within_a_factor_of_two_of_a_tables_peak():
    """`quadrature_bytes`, on which `thmcheck hermite` refuses, against the peak of a fresh process that builds tanh's
    table to degree 60 (benchmarks/bench_hermite.py --memory measures larger ones)."""
    import subprocess
    import sys

    from theorems.hermite import quadrature_bytes

    child = ("from checkers.cost import peak_bytes\nfrom theorems.hermite import hermite_coefficients, second_moment\n"
             "hermite_coefficients('tanh', 60, digits=30)\nsecond_moment('tanh', digits=30)\nprint(peak_bytes())")
    measured = float(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True,
                                    timeout=120).stdout)
    assert 0.5 <= quadrature_bytes("tanh", 60, 30) / measured <= 2
