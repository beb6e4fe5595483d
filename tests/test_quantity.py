"""theorems.quantity: a derived number keeps its exact form while every part has one, and the weakest route of its
parts otherwise."""

import mpmath
import sympy

from theorems.quantity import Quantity, combine, decimal_string


def test_exact_parts_combine_exactly_and_simplify():
    half, third = Quantity.exactly("a", sympy.Rational(1, 2), 30), Quantity.exactly("b", sympy.Rational(1, 3), 30)
    total = combine("total", 30, [half, third], lambda a, b: a + b)
    assert total.route == "exact" and total.exact == sympy.Rational(5, 6)
    assert decimal_string(total.value, 12) == "0.833333333333"


def test_a_numeric_part_makes_the_result_numeric_at_its_route():
    exact = Quantity.exactly("a", 2, 30)
    numeric = Quantity(name="b", value=mpmath.mpf("0.25"), route="float64", digits=15)
    product = combine("product", 30, [exact, numeric], lambda a, b: a * b)
    assert product.route == "float64" and product.exact is None and float(product) == 0.5


def test_an_override_passes_its_label_on_and_a_mutant_wins_over_it():
    override = Quantity(name="a", value=mpmath.mpf(3), route="override", digits=30, exact=sympy.Integer(3))
    mutant = Quantity(name="b", value=mpmath.mpf(2), route="mutant", digits=30)
    assert combine("c", 30, [override], lambda a: 2 * a).route == "override"
    assert combine("c", 30, [override, mutant], lambda a, b: a * b).route == "mutant"
    assert decimal_string(mpmath.mpf(0), 5) == "0" and Quantity.exactly("z", 0, 30).decimal() == "0"
