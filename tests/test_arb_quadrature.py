"""The Hermite moments' quadrature pass in Arb against the mpmath pass it stands in for."""

import mpmath
import pytest
import sympy

from theorems import arb_quadrature, hermite
from theorems.activations import activation, expression_kinks, expression_pieces, from_expression, z


def both_passes(expression, degree=12, digits=30):
    kinks = tuple(expression_kinks(expression))
    pieces = tuple(piece for _, _, piece in expression_pieces(expression, kinks))
    dps, nodes, half_width = hermite._pass_sizes(degree, digits)
    arguments = (pieces, kinks, degree, dps, nodes, half_width, mpmath.mpf(1))
    return arb_quadrature.gaussian_pass(*arguments), hermite._mpmath_pass(*arguments), dps


@pytest.mark.parametrize("expression", [
    activation("relu").expression, activation("tanh").expression, activation("softplus").expression,
    activation("gelu").expression,
    sympy.Max(0, z - sympy.sqrt(2)) * sympy.tanh(z),  # a kink at an irrational point
    sympy.Float("0.3") * z + sympy.exp(-z**2 / 3),  # a binary float, exactly
    sympy.Abs(z) ** sympy.Rational(3, 2),  # a rational power, and a kink where it is only C^1
    sympy.atan(z) * sympy.cos(z) + sympy.log(3),  # a constant that is not a number
], ids=str)
def test_the_arb_pass_gives_the_mpmath_pass_numbers_to_its_working_precision(expression):
    in_arb, in_mpmath, dps = both_passes(expression)
    assert in_arb is not None
    (arb_moments, arb_square), (mpmath_moments, mpmath_square) = in_arb, in_mpmath
    with mpmath.workdps(dps):
        for a, b in zip([*arb_moments, arb_square], [*mpmath_moments, mpmath_square]):
            # the mpmath pass's fixed-point sums round at 2^-(bits) times He_k's size; 30 digits need 1e-31
            assert abs(a - b) <= mpmath.mpf(10) ** -(dps - 25) * max(1, abs(b))


def test_an_operation_arb_lacks_here_leaves_the_pass_to_mpmath():
    assert arb_quadrature.arb_function(sympy.asinh(z)) is None
    assert arb_quadrature.arb_function(sympy.tanh(z) + sympy.asinh(z)) is None
    in_arb, in_mpmath, _ = both_passes(sympy.asinh(z), degree=4)
    assert in_arb is None and in_mpmath is not None
    # and the table is still computed, by mpmath: c_1 = E asinh'(Z) = E (1 + Z^2)^(-1/2)
    expected = mpmath.quad(lambda x: mpmath.npdf(x) / mpmath.sqrt(1 + x * x), [-mpmath.inf, 0, mpmath.inf])
    table = hermite.hermite_coefficients(from_expression(sympy.asinh(z)), 2, digits=20)
    assert abs(table.coefficients[1] - expected) < mpmath.mpf(10) ** -15


def test_exp_of_a_huge_argument_is_refused_as_mpmath_refuses_it():
    """exp(exp(exp(z))) at z = 3 needs exp of 5e8: refused before Arb builds a number of 10^8 digits."""
    import flint
    triple = arb_quadrature.arb_function(sympy.exp(sympy.exp(sympy.exp(z))))
    assert float(triple([flint.arb(1)])[0]) == pytest.approx(float(mpmath.exp(mpmath.exp(mpmath.e))))
    with pytest.raises(OverflowError):
        triple([flint.arb(3)])


def test_the_pass_leaves_the_working_precisions_as_it_found_them():
    import flint
    before_arb, before_mpmath = flint.ctx.prec, mpmath.mp.prec
    both_passes(activation("sigmoid").expression, degree=4)
    assert (flint.ctx.prec, mpmath.mp.prec) == (before_arb, before_mpmath)
