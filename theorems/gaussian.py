"""Exact Gaussian expectations E[f(Z) He_k(Z)], Z ~ N(0, 1), by symbolic rules (no `integrate`).

Convention: He_k are the probabilists' Hermite polynomials (He_0 = 1, He_1 = z, He_{k+1} = z He_k -
k He_{k-1}), orthogonal under the standard normal with E[He_j He_k] = k! delta_jk. The "Hermite
moment" of f is m_k(f) = E[f(Z) He_k(Z)] (= k! c_k in the notation of `theorems.hermite`).

Rules, tried in order (`hermite_moment` returns None when none applies, never a guess):
1. constants: m_k(c) = c delta_k0;
2. parity: m_k(f) = 0 when f is structurally odd and k even, or even and k odd;
3. linearity over sums and z-free factors;
4. multiplication by z: m_k(z g) = m_{k+1}(g) + k m_{k-1}(g) (from z He_k = He_{k+1} + k He_{k-1});
5. piecewise polynomials (relu, leaky relu, |z|, max/min of polynomials): integrate each polynomial
   piece against the Gaussian with the truncated moments M_j(a, b) = int_a^b t^j phi(t) dt, which obey
   M_j = (j - 1) M_{j-2} + a^{j-1} phi(a) - b^{j-1} phi(b);
6. erf(a z): m_{2j+1} = (2j+1)! (2a/sqrt(pi)) (1+2a^2)^(-1/2) (-a^2/(1+2a^2))^j / (j! (2j+1)),
   even moments zero (generating function E[exp(-a^2 Z^2) exp(tZ - t^2/2)], see
   docs/derivations/kernels.md#hermite-convention);
7. erf(a z) erf(b z) at k = 0: (2/pi) arcsin(2ab / sqrt((1+2a^2)(1+2b^2))).
"""

from __future__ import annotations

import functools

import sympy

from theorems.activations import expression_kinks, expression_pieces, parity
from theorems.formula import exact_number, z

SQRT_2PI = sympy.sqrt(2 * sympy.pi)


@functools.lru_cache(maxsize=None)
def hermite_e_coefficients(k: int) -> tuple[int, ...]:
    """Monomial coefficients (a_0, ..., a_k) of He_k, from He_{k+1} = z He_k - k He_{k-1}."""
    if k == 0:
        return (1,)
    if k == 1:
        return (0, 1)
    previous, current = hermite_e_coefficients(k - 2), hermite_e_coefficients(k - 1)
    shifted = (0, *current)
    lowered = (*previous, 0, 0)
    return tuple(shifted[i] - (k - 1) * lowered[i] for i in range(k + 1))


def standard_normal_density(x: sympy.Expr) -> sympy.Expr:
    return sympy.exp(-x**2 / 2) / SQRT_2PI


def standard_normal_cdf(x: sympy.Expr) -> sympy.Expr:
    if x == sympy.oo:
        return sympy.Integer(1)
    if x == -sympy.oo:
        return sympy.Integer(0)
    return (1 + sympy.erf(x / sympy.sqrt(2))) / 2


def truncated_moments(lower: sympy.Expr, upper: sympy.Expr, order: int) -> list[sympy.Expr]:
    """[M_0, ..., M_order] with M_j = int_lower^upper t^j phi(t) dt, exactly (bounds may be +-oo)."""

    lower, upper = exact_number(lower), exact_number(upper)

    def boundary(x, j):  # x^j phi(x), zero at infinity
        return sympy.Integer(0) if x in (sympy.oo, -sympy.oo) else x**j * standard_normal_density(x)

    moments = [standard_normal_cdf(upper) - standard_normal_cdf(lower)]
    if order >= 1:
        moments.append(boundary(lower, 0) - boundary(upper, 0))
    for j in range(2, order + 1):
        moments.append((j - 1) * moments[j - 2] + boundary(lower, j - 1) - boundary(upper, j - 1))
    return moments


def _polynomial_moment(polynomial: sympy.Poly, k: int, lower, upper) -> sympy.Expr:
    if polynomial.is_zero:
        return sympy.Integer(0)
    hermite = hermite_e_coefficients(k)
    product = [0] * (polynomial.degree() + k + 1)
    for (i,), a in polynomial.terms():
        for j, h in enumerate(hermite):
            if h:
                product[i + j] += a * h
    moments = truncated_moments(lower, upper, len(product) - 1)
    return sum((c * m for c, m in zip(product, moments) if c), sympy.Integer(0))


def _erf_argument(expression: sympy.Expr) -> sympy.Expr | None:
    """a if the expression is erf(a z) with a z-free, else None."""
    if isinstance(expression, sympy.erf):
        a = expression.args[0] / z
        if a.has(z):  # sympy cancels z in a z / z itself; simplify (slow to import and run) only where it did not
            a = sympy.simplify(a)
        if not a.has(z) and a != 0:
            return a
    return None


def _erf_moment(a: sympy.Expr, k: int) -> sympy.Expr:
    if k % 2 == 0:
        return sympy.Integer(0)
    j = (k - 1) // 2
    r = 1 + 2 * a**2
    c = (2 * a / sympy.sqrt(sympy.pi)) / sympy.sqrt(r) * (-a**2 / r) ** j / (sympy.factorial(j) * k)
    return sympy.factorial(k) * c


@functools.lru_cache(maxsize=4096)
def hermite_moment(expression: sympy.Expr, k: int) -> sympy.Expr | None:
    """E[f(Z) He_k(Z)] in closed form for f = `expression` (in z), or None if no rule applies."""
    if k < 0:
        return sympy.Integer(0)
    if not expression.has(z):
        return expression if k == 0 else sympy.Integer(0)
    expression_parity = parity(expression)
    if (expression_parity == "odd" and k % 2 == 0) or (expression_parity == "even" and k % 2 == 1):
        return sympy.Integer(0)
    if isinstance(expression, sympy.Add):
        total = sympy.Integer(0)
        for term in expression.args:
            part = hermite_moment(term, k)
            if part is None:
                return None
            total += part
        return total
    if isinstance(expression, sympy.Mul):
        scalar, rest = expression.as_independent(z, as_Add=False)
        if scalar != 1:
            part = hermite_moment(rest, k)
            return None if part is None else scalar * part
        rule = _product_rule(expression, k)
        if rule is not None:
            return rule
    if isinstance(expression, sympy.Pow) and expression.exp == 2 and k == 0:
        rule = _erf_pair_moment([expression])
        if rule is not None:
            return rule
    a = _erf_argument(expression)
    if a is not None:
        return _erf_moment(a, k)
    if expression.is_polynomial(z):
        return _polynomial_moment(sympy.Poly(expression, z), k, -sympy.oo, sympy.oo)
    return _piecewise_polynomial_moment(expression, k)


def _product_rule(expression: sympy.Mul, k: int) -> sympy.Expr | None:
    factors = list(expression.args)
    # z * g  ->  m_{k+1}(g) + k m_{k-1}(g)
    for index, factor in enumerate(factors):
        power = 1 if factor == z else (factor.exp if isinstance(factor, sympy.Pow) and factor.base == z
                                        and factor.exp.is_Integer and factor.exp > 0 else 0)
        if power:
            rest = sympy.Mul(*factors[:index], z ** (power - 1), *factors[index + 1:])
            up, down = hermite_moment(rest, k + 1), hermite_moment(rest, k - 1)
            if up is None or down is None:
                return None
            return up + k * down
    return _erf_pair_moment(factors) if k == 0 else None


def _erf_pair_moment(factors: list[sympy.Expr]) -> sympy.Expr | None:
    """E[erf(aZ) erf(bZ)] when the factors are exactly erf(a z) and erf(b z) (or erf(a z)**2)."""
    arguments = []
    for factor in factors:
        if isinstance(factor, sympy.Pow) and factor.exp == 2:
            arguments += [_erf_argument(factor.base)] * 2
        else:
            arguments.append(_erf_argument(factor))
    if len(arguments) != 2 or None in arguments:
        return None
    a, b = arguments
    return 2 / sympy.pi * sympy.asin(2 * a * b / sympy.sqrt((1 + 2 * a**2) * (1 + 2 * b**2)))


def _piecewise_polynomial_moment(expression: sympy.Expr, k: int) -> sympy.Expr | None:
    kinks = expression_kinks(expression)
    if not kinks:
        return None
    total = sympy.Integer(0)
    for lower, upper, piece in expression_pieces(expression, kinks):
        if not piece.is_polynomial(z):
            return None
        total += _polynomial_moment(sympy.Poly(piece, z), k, lower, upper)
    return total
