"""Activations: numpy, mpmath and sympy forms agree; kinks, parity, derivatives, scaling, refusals."""

from concurrent.futures import ThreadPoolExecutor

import mpmath
import numpy as np
import pytest
import scipy.special
import sympy

from theorems.activations import BUILTINS, PARAMETRIZED, activation, from_expression, parity
from theorems.domains import BUILTIN_ACTIVATIONS, PARAMETRIZED_ACTIVATIONS
from theorems.errors import InvalidInput, UnknownName
from theorems.formula import z

REFERENCE = {  # independent float64 formulas
    "relu": lambda x: np.maximum(x, 0),
    "abs": np.abs,
    "tanh": np.tanh,
    "erf": scipy.special.erf,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "gelu": lambda x: x * 0.5 * (1 + scipy.special.erf(x / np.sqrt(2))),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "leaky_relu:0.1": lambda x: np.where(x > 0, x, 0.1 * x),
    "poly:1,0,-0.5": lambda x: 1 - 0.5 * x**2,
    "tanh(z) + 0.1*z**2": lambda x: np.tanh(x) + 0.1 * x**2,
}
POINTS = np.linspace(-6, 6, 49)


def test_the_names_the_command_line_offers_are_the_built_ins():
    assert tuple(BUILTINS) == BUILTIN_ACTIVATIONS and PARAMETRIZED == PARAMETRIZED_ACTIVATIONS


@pytest.mark.parametrize("name", REFERENCE)
def test_numpy_and_mpmath_forms_match_reference(name):
    sigma = activation(name)
    np.testing.assert_allclose(sigma(POINTS), REFERENCE[name](POINTS), rtol=1e-13, atol=1e-14)
    with mpmath.workdps(30):
        values = [float(sigma.mpmath(x)) for x in POINTS]
    np.testing.assert_allclose(values, REFERENCE[name](POINTS), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", REFERENCE)
def test_float32_stays_float32(name):
    out = activation(name)(POINTS.astype(np.float32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, REFERENCE[name](POINTS), rtol=2e-6, atol=2e-6)


def test_numerically_stable_far_out():
    x = np.array([-800.0, 800.0])
    assert np.all(np.isfinite(activation("softplus")(x)))
    np.testing.assert_allclose(activation("sigmoid")(x), [0.0, 1.0])


@pytest.mark.parametrize("name, kinks", [("relu", [0]), ("abs", [0]), ("leaky_relu:0.2", [0]), ("tanh", []),
                                         ("max(z, 1) + abs(z + 2)", [-2, 1]), ("gelu", [])])
def test_kinks(name, kinks):
    assert [float(k) for k in activation(name).kinks] == kinks


@pytest.mark.parametrize("name, expected", [("tanh", "odd"), ("erf", "odd"), ("abs", "even"), ("relu", None),
                                            ("sigmoid", None), ("z**2*tanh(z)", "odd"), ("z*erf(z)", "even")])
def test_structural_parity(name, expected):
    assert activation(name).parity == expected


@pytest.mark.parametrize("name", list(BUILTINS) + ["leaky_relu:0.3"])
def test_declared_parity_is_true(name):
    """A structural parity claim must hold numerically (it licenses exact zero coefficients)."""
    sigma = activation(name)
    claimed = parity(sigma.expression)
    x = POINTS
    if claimed == "odd":
        np.testing.assert_allclose(sigma(-x), -sigma(x), atol=1e-14)
    if claimed == "even":
        np.testing.assert_allclose(sigma(-x), sigma(x), atol=1e-14)


def test_builtin_expressions_equal_their_usual_forms():
    e = sympy.exp
    assert sympy.simplify((BUILTINS["sigmoid"][0] - 1 / (1 + e(-z))).rewrite(sympy.exp)) == 0
    difference = (BUILTINS["softplus"][0] - sympy.log(1 + e(z))).rewrite(sympy.exp)
    assert abs(sympy.N(difference.subs(z, sympy.Rational(7, 3)), 40)) < 1e-35


def test_derivative_and_scaling():
    relu = activation("relu")
    np.testing.assert_allclose(relu.derivative()(np.array([-1.0, 2.0])), [0.0, 1.0])
    np.testing.assert_allclose(activation("tanh").derivative()(POINTS), 1 - np.tanh(POINTS) ** 2, atol=1e-14)
    scaled = activation("tanh").scaled(sympy.Rational(3, 2))
    np.testing.assert_allclose(scaled(POINTS), np.tanh(1.5 * POINTS), atol=1e-14)
    assert [float(k) for k in activation("max(z, 1)").scaled(2).kinks] == [0.5]


@pytest.mark.parametrize("bad, error", [("sqrt(z)", InvalidInput), ("log(z)", InvalidInput),
                                        ("1/z", InvalidInput), ("nosuch", UnknownName),
                                        ("relu:2", InvalidInput), ("poly:", InvalidInput),
                                        ("leaky_relu:abc", InvalidInput), ("", InvalidInput)])
def test_bad_activations_are_refused(bad, error):
    with pytest.raises(error):
        activation(bad)


@pytest.mark.parametrize("name", ["tanh", "erf", "sigmoid", "softplus", "relu", "gelu", "tanh(z) + 0.1*z**2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_value_and_derivative(name, dtype):
    """The fused pass used by the simulations equals sigma and its derivative."""
    sigma = activation(name)
    x = POINTS.astype(dtype)
    value, derivative = sigma.value_and_derivative(x.copy(), np.empty_like(x))
    tolerance = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(value, sigma(x), rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(derivative, sigma.derivative()(x), rtol=tolerance, atol=tolerance)


def test_outputs_are_writable_arrays():
    for name in ["relu", "tanh", "poly:1,2", "poly:3"]:
        out = activation(name)(POINTS)
        out += 1.0  # would raise on a read-only broadcast view
        assert out.shape == POINTS.shape
    assert np.all(activation("poly:0,2").derivative()(POINTS) == 2.0)


def test_building_activations_in_threads_leaves_mpmath_precision_alone():
    """mpmath's precision is process-wide; activations are validated under a temporary precision and are built in
    the one-step simulation's worker threads. Unlocked, 8 threads left the process at 20 digits in 20 runs of 20 (a
    later float computation then drifted in its last bits)."""
    before = mpmath.mp.prec
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: from_expression(z**2 / (i + 2) + sympy.tanh(z)), range(16)))
    assert mpmath.mp.prec == before


def test_the_first_derivative_is_built_once():
    sigma = activation("log(1 + exp(z)) + tanh(z)")
    assert sigma.first_derivative is sigma.first_derivative
    x = np.linspace(-3, 3, 7)
    value, derivative = sigma.value_and_derivative(x.copy(), np.empty_like(x))
    assert np.allclose(derivative, 1 / (1 + np.exp(-x)) + 1 - np.tanh(x) ** 2, rtol=1e-14)
