"""Whitelist parser for activation formulas in one variable `z`; never calls eval, exec or sympify.

Grammar (precedence from low to high; `**` is right-associative and binds tighter than unary minus,
as in Python, so `-z**2` is `-(z**2)`):

    expression := term (("+" | "-") term)*
    term       := unary (("*" | "/") unary)*
    unary      := ("+" | "-") unary | power
    power      := atom ("**" unary)?
    atom       := NUMBER | "z" | CONSTANT | FUNCTION "(" expression ("," expression)* ")" | "(" expression ")"

Numbers are decimal literals (`0.1`, `2`, `1e-3`), turned into exact sympy rationals, so `0.1` means
1/10; the constants are `pi` and `e`. A number given for a parameter or a constant (`parse_number`) is the
same grammar without `z`: `sqrt(2/pi)`, `1/3`, `2*e`. The functions are exactly those in `FUNCTIONS`.
Inputs are bounded in length, nesting depth and integer powers so that no formula can make the parser or
sympy run away.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable

import mpmath
import sympy

from theorems.errors import InvalidInput

#: The variable of every activation formula (a real symbol, so that |z|, max(z, 0) simplify).
z = sympy.Symbol("z", real=True)

MAX_LENGTH = 500
MAX_DEPTH = 40
MAX_POWER = 64


def _sigmoid(u: sympy.Expr) -> sympy.Expr:
    # sigmoid(u) = 1/2 + tanh(u/2)/2: written this way its parity (constant + odd) is visible to the
    # exact Hermite route, which then knows c_0 = 1/2 and all even c_k (k >= 2) vanish.
    return sympy.Rational(1, 2) + sympy.tanh(u / 2) / 2


FUNCTIONS: dict[str, tuple[int, Callable[..., sympy.Expr]]] = {
    "exp": (1, sympy.exp),
    "log": (1, sympy.log),
    "sqrt": (1, sympy.sqrt),
    "abs": (1, sympy.Abs),
    "tanh": (1, sympy.tanh),
    "erf": (1, sympy.erf),
    "sigmoid": (1, _sigmoid),
    "relu": (1, lambda u: sympy.Max(u, 0)),
    "max": (2, sympy.Max),
    "min": (2, sympy.Min),
}

_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>\*\*|[-+*/(),]))"
)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise InvalidInput(f"formula {text!r}: unexpected character {text[position:].lstrip()[:1]!r} "
                               f"at position {position}; allowed are numbers, z, + - * / ** ( ) , "
                               f"and the functions {', '.join(sorted(FUNCTIONS))}")
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


NAMED_CONSTANTS = {"pi": sympy.pi, "e": sympy.E}


class _Parser:
    def __init__(self, text: str, *, variable: bool = True):
        self.text = text
        self.variable = variable  # whether z is allowed (a formula) or not (a number)
        self.tokens = _tokenize(text)
        self.position = 0
        self.depth = 0

    def fail(self, why: str) -> InvalidInput:
        return InvalidInput(f"{'formula' if self.variable else 'number'} {self.text!r}: {why}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise self.fail("ends too early" + (f"; expected {value!r}" if value else ""))
        if value is not None and token[1] != value:
            raise self.fail(f"expected {value!r} but found {token[1]!r}")
        self.position += 1
        return token

    def parse(self) -> sympy.Expr:
        if not self.tokens:
            raise self.fail("is empty")
        result = self.expression()
        if self.peek() is not None:
            raise self.fail(f"unexpected {self.peek()[1]!r} after a complete expression")
        return result

    def nested(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"nests deeper than {MAX_DEPTH} levels (each parenthesis, function call, sign and "
                            "exponent is one)")

    def expression(self) -> sympy.Expr:
        result = self.term()
        while (token := self.peek()) is not None and token[1] in "+-" and token[0] == "op":
            self.take()
            right = self.term()
            result = result + right if token[1] == "+" else result - right
        return result

    def term(self) -> sympy.Expr:
        result = self.unary()
        while (token := self.peek()) is not None and token[1] in ("*", "/"):
            self.take()
            right = self.unary()
            if token[1] == "/":
                if right == 0:
                    raise self.fail("divides by zero")
                result = result / right
            else:
                result = result * right
        return result

    def unary(self) -> sympy.Expr:
        token = self.peek()
        if token is not None and token[1] in ("+", "-"):
            self.take()
            self.nested()
            operand = self.unary()
            self.depth -= 1
            return -operand if token[1] == "-" else operand
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        token = self.peek()
        if token is not None and token[1] == "**":
            self.take()
            self.nested()
            exponent = self.unary()
            self.depth -= 1
            if exponent.free_symbols:
                raise self.fail("exponents must be numbers, not depend on z")
            if exponent.is_integer and abs(exponent) > MAX_POWER:
                raise self.fail(f"integer powers are limited to |n| <= {MAX_POWER}")
            if not exponent.is_integer and abs(float(exponent)) > MAX_POWER:
                raise self.fail(f"powers are limited to |p| <= {MAX_POWER}")
            return base**exponent
        return base

    def atom(self) -> sympy.Expr:
        kind, value = self.take()
        if kind == "number":
            number = sympy.Rational(value)
            if abs(number) > 10**12:
                raise self.fail(f"number {value} is larger than 1e12")
            return number
        if kind == "name":
            if value == "z" and self.variable:
                return z
            if value in NAMED_CONSTANTS:
                return NAMED_CONSTANTS[value]
            if value not in FUNCTIONS:
                allowed = "z, pi, e" if self.variable else "numbers, pi, e"
                raise self.fail(f"unknown name {value!r}; allowed are {allowed} and the functions "
                                f"{', '.join(sorted(FUNCTIONS))}")
            arity, function = FUNCTIONS[value]
            self.take("(")
            self.nested()
            arguments = [self.expression()]
            while self.peek() is not None and self.peek()[1] == ",":
                self.take()
                arguments.append(self.expression())
            self.take(")")
            self.depth -= 1
            if len(arguments) != arity:
                raise self.fail(f"{value}() takes {arity} argument{'s' if arity > 1 else ''}, got {len(arguments)}")
            return function(*arguments)
        if value == "(":
            self.nested()
            inner = self.expression()
            self.take(")")
            self.depth -= 1
            return inner
        raise self.fail(f"unexpected {value!r}")


def parse_formula(text: str, *, variable: bool = True) -> sympy.Expr:
    """Parse a formula in `z` into a sympy expression, accepting only the whitelisted grammar.

    Raises `InvalidInput` naming the problem for anything else (unknown names, attribute access,
    strings, lambdas, oversized input). The result contains no symbol but `z`.
    """
    if not isinstance(text, str):
        raise InvalidInput(f"formula must be a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise InvalidInput(f"formula is {len(text)} characters long; the limit is {MAX_LENGTH}")
    expression = _Parser(text, variable=variable).parse()
    if expression.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise InvalidInput(f"{'formula' if variable else 'number'} {text!r} is not finite")
    return expression


def exact_number(value) -> sympy.Expr:
    """A sympy number for a trusted numeric value (never a string): ints exactly, a float as its
    shortest decimal (0.7 means 7/10, not the binary double nearest to it), sympy numbers unchanged."""
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, (bool, str)) or not isinstance(value, (int, float, numbers.Real)):
        raise InvalidInput(f"expected a real number, got {value!r}")
    if isinstance(value, numbers.Integral):
        return sympy.Integer(int(value))
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise InvalidInput(f"expected a finite number, got {value}")
    return sympy.Rational(repr(value))


def to_mpf(value, digits: int) -> mpmath.mpf:
    """An exact number (sympy, int or float read as its decimal) as an mpf correct to `digits` + 10
    digits; the mpf keeps that precision after the call."""
    with mpmath.workdps(digits + 10):
        return mpmath.mpf(sympy.N(exact_number(value), digits + 10)._to_mpmath(mpmath.mp.prec))


def parse_number(text: str) -> sympy.Expr:
    """Parse a constant expression (no `z`), e.g. `0.51`, `1/2`, `sqrt(2/pi)`, as an exact sympy number."""
    expression = parse_formula(text, variable=False)
    value = complex(expression.evalf(30))
    if value.imag != 0 or value.real != value.real or abs(value.real) == float("inf"):
        raise InvalidInput(f"{text!r} is not a finite real number")
    return expression
