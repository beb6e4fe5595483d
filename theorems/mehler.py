"""Dual kernels kappa(rho) = E[sigma(U) sigma(V)], (U, V) standard normal with correlation rho.

Mehler's formula (probabilists' He_k, c_k = E[sigma He_k]/k!, see `theorems.hermite`):

    kappa(rho) = sum_k k! c_k^2 rho^k.

`dual_kernel_series` truncates at degree K and states a rigorous bound on the tail: by Parseval
sum_{k>K} k! c_k^2 = E sigma^2 - sum_{k<=K} k! c_k^2, and every tail term is at most |rho|^(K+1)
times its coefficient, so |kappa - S_K| <= |rho|^(K+1) (E sigma^2 - sum_{k<=K} k! c_k^2). For rho >= 0
the tail is also non-negative. At |rho| = 1 the series converges only algebraically (ReLU: the tail is
about 0.0423 K^(-3/2), docs/derivations/kernels.md#dual-kernel); use the closed form there when one exists.

`dual_kernel_closed_form` recognizes, by the structure of the sympy expression:
- sigma = a + b z + g relu(z) (relu, leaky relu, |z| = 2 relu(z) - z, shifted/scaled versions), through
  the degree-1 arc-cosine kernel of Cho and Saul (2009) with their factor 2 removed:
  E[relu(U) relu(V)] = (sqrt(1 - rho^2) + (pi - arccos rho) rho) / (2 pi);
- sigma = g erf(a z): E[erf(aU) erf(aV)] = (2/pi) arcsin(2 a^2 rho / (1 + 2 a^2)) (Williams 1997);
- polynomials: the Mehler sum is finite, hence exact.
Closed forms take rho in [-1, 1]; the square root and arccos are guarded at rho = +-1.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import mpmath
import sympy

from theorems.activations import Activation
from theorems.errors import InvalidInput
from theorems.formula import exact_number, to_mpf, z
from theorems.hermite import HermiteTable
from theorems.quantity import Quantity

rho = sympy.Symbol("rho", real=True)


def arc_cosine_kernel(correlation: sympy.Expr) -> sympy.Expr:
    """E[relu(U) relu(V)] for unit-variance U, V with correlation `correlation` (sympy, guarded)."""
    if correlation == 1:
        return sympy.Rational(1, 2)
    if correlation == -1:
        return sympy.Integer(0)
    return (sympy.sqrt(1 - correlation**2) + (sympy.pi - sympy.acos(correlation)) * correlation) / (2 * sympy.pi)


def arc_cosine_kernel_mp(correlation) -> mpmath.mpf:
    """The same kernel in mpmath, with correlation clipped to [-1, 1] so that rounding cannot give NaN."""
    r = max(mpmath.mpf(-1), min(mpmath.mpf(1), mpmath.mpf(correlation)))
    return (mpmath.sqrt(max(0, 1 - r * r)) + (mpmath.pi - mpmath.acos(r)) * r) / (2 * mpmath.pi)


@dataclass(frozen=True)
class SeriesValue:
    """A truncated Mehler series S_K(rho) with a rigorous bound on |kappa(rho) - S_K(rho)|."""

    value: mpmath.mpf
    truncation_bound: mpmath.mpf
    degree: int
    tail_nonnegative: bool  # rho >= 0: kappa lies in [S_K, S_K + bound]

    def interval(self) -> tuple[mpmath.mpf, mpmath.mpf]:
        lower = self.value if self.tail_nonnegative else self.value - self.truncation_bound
        return lower, self.value + self.truncation_bound


def mehler_weight(k: int, c: mpmath.mpf) -> mpmath.mpf:
    """The weight of rho^k in Mehler's series: k! c_k^2."""
    return mpmath.factorial(k) * c**2


def mehler_series(coefficients, second_moment: mpmath.mpf, correlation, digits: int,
                  weight=mehler_weight) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(S_K(rho), |rho|^(K+1) (E sigma^2 - sum_{k<=K} k! c_k^2)) for c_0..c_K: the truncated series and
    its Parseval tail bound (the bound always uses k! c_k^2; `weight` is the series' own term weight)."""
    with mpmath.workdps(digits + 10):
        r = to_mpf(correlation, digits)
        value = mpmath.fsum(weight(k, c) * r**k for k, c in enumerate(coefficients))
        remainder = max(mpmath.mpf(0), second_moment - mpmath.fsum(
            mehler_weight(k, c) for k, c in enumerate(coefficients)))
        return value, abs(r) ** len(coefficients) * remainder


def dual_kernel_series(table: HermiteTable, moment: Quantity, correlation) -> SeriesValue:
    """S_K(rho) = sum_{k<=K} k! c_k^2 rho^k with the Parseval tail bound (see module docstring)."""
    with mpmath.workdps(table.digits + 10):
        r = to_mpf(correlation, table.digits)
        if not -1 <= r <= 1:
            raise InvalidInput(f"correlation must lie in [-1, 1], got {mpmath.nstr(r, 6)}")
        value, bound = mehler_series(table.coefficients, moment.value, correlation, table.digits)
        # the numbers themselves carry relative error 10^-digits
        bound += mpmath.mpf(10) ** (-table.digits) * (abs(value) + moment.value)
        return SeriesValue(value, bound, table.degree, r >= 0)


@functools.lru_cache(maxsize=256)
def dual_kernel_closed_form(sigma: Activation) -> sympy.Lambda | None:
    """kappa as a sympy Lambda of rho when sigma has a recognized closed form, else None."""
    expression = sigma.expression.replace(sympy.Min, lambda a, b: a + b - sympy.Max(a, b))
    expression = sympy.expand(expression.replace(sympy.Abs, lambda u: 2 * sympy.Max(u, 0) - u))
    if expression.is_polynomial(z):
        from theorems.gaussian import hermite_moment

        degree = sympy.Poly(expression, z).degree()
        terms = [hermite_moment(expression, k) ** 2 / sympy.factorial(k) * rho**k for k in range(degree + 1)]
        return sympy.Lambda(rho, sympy.expand(sum(terms)))
    relu_ = sympy.Max(z, 0)
    gain = expression.coeff(relu_)
    affine = sympy.expand(expression - gain * relu_)
    if not gain.has(z) and affine.is_polynomial(z) and sympy.degree(affine, z) <= 1 and gain != 0:
        slope, offset = affine.coeff(z, 1), affine.coeff(z, 0)
        if not (slope.has(z) or offset.has(z)):
            mean_relu = 1 / sympy.sqrt(2 * sympy.pi)
            kernel = (offset**2 + 2 * offset * gain * mean_relu + slope**2 * rho + slope * gain * rho
                      + gain**2 * arc_cosine_kernel(rho))
            return sympy.Lambda(rho, kernel)
    scale, rest = expression.as_independent(z, as_Add=False)
    if isinstance(rest, sympy.erf):
        a = sympy.simplify(rest.args[0] / z)
        if not a.has(z):
            return sympy.Lambda(rho, scale**2 * 2 / sympy.pi * sympy.asin(2 * a**2 * rho / (1 + 2 * a**2)))
    return None


def evaluate_closed_form(kernel: sympy.Lambda, correlation, digits: int) -> mpmath.mpf:
    """kappa(rho) to `digits` digits, guarded at rho = +-1 (exact substitution, then evalf)."""
    value = kernel(exact_number(correlation))
    value = value.replace(sympy.acos, lambda u: sympy.acos(sympy.Max(-1, sympy.Min(1, u))))
    return to_mpf(value, digits)
