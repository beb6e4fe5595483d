"""Dual kernels: Mehler series vs closed forms, the tail bound, guards at rho = +-1."""

import mpmath
import pytest
import sympy
from hypothesis import given, settings

from tests.strategies import correlations
from theorems.activations import activation
from theorems.hermite import hermite_coefficients, second_moment
from theorems.mehler import (
    arc_cosine_kernel,
    arc_cosine_kernel_mp,
    dual_kernel_closed_form,
    dual_kernel_series,
    evaluate_closed_form,
    rho,
)

CLOSED_FORM_ACTIVATIONS = ["relu", "abs", "leaky_relu:0.1", "erf", "poly:1,2,3", "2*relu(z) - z/3 + 1",
                           "erf(z/2)*3", "min(z, 0)"]


@pytest.mark.parametrize("name", CLOSED_FORM_ACTIVATIONS)
@given(correlation=correlations)
@settings(max_examples=12, deadline=None)
def test_series_interval_contains_closed_form(name, correlation):
    sigma = activation(name)
    kernel = dual_kernel_closed_form(sigma)
    assert kernel is not None
    series = dual_kernel_series(hermite_coefficients(sigma, 40, digits=30), second_moment(sigma), correlation)
    exact = evaluate_closed_form(kernel, correlation, 30)
    with mpmath.workdps(40):
        lower, upper = series.interval()
        slack = mpmath.mpf(10) ** -26
        assert lower - slack <= exact <= upper + slack


def test_no_closed_form_for_tanh_or_sigmoid():
    assert dual_kernel_closed_form(activation("tanh")) is None
    assert dual_kernel_closed_form(activation("sigmoid")) is None


def test_arc_cosine_kernel_values_and_guards():
    assert arc_cosine_kernel(sympy.Integer(1)) == sympy.Rational(1, 2)
    assert arc_cosine_kernel(sympy.Integer(-1)) == 0
    assert arc_cosine_kernel(sympy.Integer(0)) == 1 / (2 * sympy.pi)
    # Cho and Saul's k_1 carries a factor 2: E[relu relu] = k_1 / 2, so kappa(1) = E relu^2 = 1/2
    with mpmath.workdps(30):
        assert arc_cosine_kernel_mp(mpmath.mpf(1) + mpmath.mpf(10) ** -40) == mpmath.mpf(1) / 2
        assert mpmath.isfinite(arc_cosine_kernel_mp(-1 - mpmath.mpf(10) ** -40))


def test_arc_cosine_derivative_is_degree_zero_kernel():
    """kappa'(rho) = (pi - arccos rho) / (2 pi) (docs/derivations/kernels.md#dual-kernel)."""
    derivative = sympy.diff(arc_cosine_kernel(rho), rho)
    assert sympy.simplify(derivative - (sympy.pi - sympy.acos(rho)) / (2 * sympy.pi)) == 0


def test_relu_series_tail_at_rho_one_is_algebraic():
    """At rho = 1 the ReLU tail is about 0.0423 K^(-3/2) (docs/derivations/kernels.md#dual-kernel): slow, as
    documented."""
    relu = activation("relu")
    for degree in (40, 80):
        series = dual_kernel_series(hermite_coefficients(relu, degree), second_moment(relu), 1)
        tail = float(mpmath.mpf("0.5") - series.value)
        assert tail * degree**1.5 == pytest.approx(0.0423, rel=0.1)


def test_even_activation_kernel_is_even_in_rho():
    kernel = dual_kernel_closed_form(activation("abs"))
    for r in ("0.3", "0.9"):
        positive, negative = sympy.Rational(r), -sympy.Rational(r)
        assert evaluate_closed_form(kernel, positive, 30) == evaluate_closed_form(kernel, negative, 30)


def test_series_rejects_correlation_outside_unit_interval():
    from theorems.errors import InvalidInput

    with pytest.raises(InvalidInput):
        dual_kernel_series(hermite_coefficients("relu", 4), second_moment("relu"), 1.5)
