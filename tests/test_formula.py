"""The whitelist formula parser: what it accepts, what it refuses, and that nothing is evaluated."""

import builtins
import os

import pytest
import sympy

from theorems.errors import InvalidInput
from theorems.formula import parse_formula, parse_number, z


def test_numbers_are_exact_rationals():
    assert parse_formula("0.1*z") == sympy.Rational(1, 10) * z
    assert parse_number("1e-3") == sympy.Rational(1, 1000)


def test_precedence_follows_python():
    assert parse_formula("-z**2") == -(z**2)
    assert parse_formula("2**3**2") == 2**9
    assert parse_formula("1 - 2 - 3") == -4
    assert parse_formula("8/2/2") == 2


@pytest.mark.parametrize("text, expected", [
    ("relu(z)", sympy.Max(z, 0)),
    ("max(z, 0.5)", sympy.Max(z, sympy.Rational(1, 2))),
    ("min(z, 0)", sympy.Min(z, 0)),
    ("abs(z)", sympy.Abs(z)),
    ("sigmoid(z)", sympy.Rational(1, 2) + sympy.tanh(z / 2) / 2),
    ("sqrt(2)*erf(z)", sympy.sqrt(2) * sympy.erf(z)),
    ("exp(-z**2) + log(1 + z**2)", sympy.exp(-z**2) + sympy.log(1 + z**2)),
])
def test_whitelisted_functions(text, expected):
    assert sympy.simplify(parse_formula(text) - expected) == 0


@pytest.mark.parametrize("hostile", [
    "__import__('os').system('touch /tmp/thmcheck_pwned')",
    "z.__class__.__mro__",
    "exec('1')",
    "eval('z')",
    "lambda: 0",
    "open('/etc/passwd')",
    "[z for z in ()]",
    "z; import os",
    "Symbol('x')",
    "x + 1",
    "sin(z)",
    "z if z else 0",
    "'z'",
    "z**10**10",
    "z**z",
    "(" * 100 + "z" + ")" * 100,
    "z" * 600,
    "max(z)",
    "1/0",
    "",
    "   ",
])
def test_hostile_or_malformed_input_is_refused(hostile):
    with pytest.raises(InvalidInput):
        parse_formula(hostile)
    assert not os.path.exists("/tmp/thmcheck_pwned")


def test_parser_never_calls_eval_or_sympify(monkeypatch):
    parse_formula("tanh(z) + 0.1*z**2 - sigmoid(z)/3 + max(z, 1e-3)")  # warm sympy's lazy imports

    def forbidden(*args, **kwargs):
        raise AssertionError("eval/sympify was called on user input")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(sympy, "sympify", forbidden)
    monkeypatch.setattr(sympy, "parse_expr", forbidden)
    assert parse_formula("tanh(z) + 0.1*z**2").has(sympy.tanh)


def test_numbers_must_be_constant_and_finite():
    with pytest.raises(InvalidInput, match="unknown name 'z'; allowed are numbers, pi, e and the functions"):
        parse_number("z")
    assert parse_number("sqrt(2/pi)") == sympy.sqrt(2) / sympy.sqrt(sympy.pi)
    assert parse_number("2*e") == 2 * sympy.E
    with pytest.raises(InvalidInput, match="not finite|not a finite real"):
        parse_number("log(0 * 1)")
    with pytest.raises(InvalidInput):
        parse_number("sqrt(-1)")


def test_the_nesting_limit_counts_what_a_reader_sees():
    """The limit of MAX_DEPTH levels is one per parenthesis (it read 40 levels and stopped at 19 parentheses)."""
    from theorems.formula import MAX_DEPTH

    assert parse_formula("(" * MAX_DEPTH + "z" + ")" * MAX_DEPTH) == z
    with pytest.raises(InvalidInput, match=f"nests deeper than {MAX_DEPTH} levels"):
        parse_formula("(" * (MAX_DEPTH + 1) + "z" + ")" * (MAX_DEPTH + 1))
