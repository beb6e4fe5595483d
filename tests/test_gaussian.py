"""Exact Gaussian rules: Hermite polynomials, truncated moments, and the moment rules vs quadrature."""

import math

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings

from tests.strategies import erf_scales, polynomial_coefficients
from theorems.formula import parse_formula, z
from theorems.gaussian import hermite_e_coefficients, hermite_moment, truncated_moments


@pytest.mark.parametrize("k", range(0, 12))
def test_hermite_e_coefficients_match_numpy(k):
    expected = np.polynomial.hermite_e.herme2poly([0] * k + [1])
    assert list(hermite_e_coefficients(k)) == [int(round(c)) for c in expected]


@pytest.mark.parametrize("lower, upper", [(-sympy.oo, 0), (0, sympy.oo), (sympy.Rational(-1, 2), 2),
                                          (-sympy.oo, sympy.oo), (1, sympy.oo)])
def test_truncated_moments_match_quadrature(lower, upper):
    exact = truncated_moments(lower, upper, 7)
    with mpmath.workdps(40):
        a = -mpmath.inf if lower == -sympy.oo else mpmath.mpf(float(lower))
        b = mpmath.inf if upper == sympy.oo else mpmath.mpf(float(upper))
        for j, value in enumerate(exact):
            numeric = mpmath.quad(lambda t: t**j * mpmath.npdf(t), [a, 0, b] if a < 0 < b else [a, b])
            assert abs(sympy.N(value, 40) - sympy.Float(str(numeric), 40)) < 1e-30


def test_relu_closed_form_phi0_he_km2_0():
    """E[relu He_k] = phi(0) He_{k-2}(0) for k >= 2 (docs/derivations/kernels.md#dual-kernel)."""
    relu = sympy.Max(z, 0)
    for k in range(2, 16):
        he_km2_at_0 = hermite_e_coefficients(k - 2)[0]
        assert sympy.simplify(hermite_moment(relu, k) - he_km2_at_0 / sympy.sqrt(2 * sympy.pi)) == 0


@given(erf_scales)
@settings(max_examples=8, deadline=None)
def test_erf_rule_matches_quadrature(a):
    a = sympy.Rational(a.numerator, a.denominator)
    expression = sympy.erf(a * z)
    for k in (1, 3, 5):
        with mpmath.workdps(25):
            numeric = mpmath.quad(lambda t: mpmath.erf(float(a) * t) * _he(k, t) * mpmath.npdf(t),
                                  [-mpmath.inf, -1, 0, 1, mpmath.inf])
        assert float(hermite_moment(expression, k)) == pytest.approx(float(numeric), abs=1e-13)


def _he(k, t):
    previous, current = 0, 1
    for j in range(k):
        previous, current = current, t * current - j * previous
    return current


@given(polynomial_coefficients)
@settings(max_examples=25, deadline=None)
def test_polynomial_moments_against_numpy_hermite_e(coefficients):
    """E[p He_k] = k! times the He_k-coordinate of p (numpy's poly2herme), for every k."""
    expression = sum(sympy.Rational(c.numerator, c.denominator) * z**i for i, c in enumerate(coefficients))
    herme = np.polynomial.hermite_e.poly2herme([float(c) for c in coefficients])
    for k in range(len(coefficients) + 2):
        expected = math.factorial(k) * (herme[k] if k < len(herme) else 0.0)
        assert float(hermite_moment(expression, k)) == pytest.approx(expected, abs=1e-12)


def test_rules_decline_rather_than_guess():
    assert hermite_moment(sympy.tanh(z), 1) is None  # no closed form: left to quadrature
    assert hermite_moment(sympy.tanh(z), 2) == 0  # but parity is exact
    assert hermite_moment(parse_formula("exp(z)"), 3) is None


def test_multiplication_by_z_rule():
    """E[z erf(z) He_2] through z He_k = He_{k+1} + k He_{k-1}, against quadrature."""
    value = float(hermite_moment(z * sympy.erf(z), 2))
    with mpmath.workdps(30):
        numeric = mpmath.quad(lambda t: t * mpmath.erf(t) * (t * t - 1) * mpmath.npdf(t), [-mpmath.inf, mpmath.inf])
    assert value == pytest.approx(float(numeric), abs=1e-14)
