"""Hermite engine: coefficients and Gaussian moments of an activation, each labelled with its route.

Convention (the only one in this package)
-----------------------------------------
He_k are the probabilists' Hermite polynomials, orthogonal under Z ~ N(0, 1) with E[He_j He_k] =
k! delta_jk. The Hermite coefficients of sigma are

    c_k = E[sigma(Z) He_k(Z)] / k!,   so   sigma = sum_k c_k He_k   and   E sigma(Z)^2 = sum_k k! c_k^2.

Papers that use orthonormal polynomials work with mu_k = sqrt(k!) c_k (`HermiteTable.normalized`).
Ba et al.'s mu_0 = c_0, mu_1 = c_1 (Stein: c_1 = E sigma'(Z)), and their "mu_2" is NOT c_2 but the
remainder standard deviation mu_star = sqrt(E sigma^2 - c_0^2 - c_1^2) (`mu_star_squared`).

Contents
--------
Tables:     `hermite_coefficients`, `HermiteTable` (c_k, mu_k, decimal strings, routes)
Moments:    `second_moment` (E sigma^2), `mu_star_squared`, `derivative_variance` (Var sigma'(Z)),
            (each a `theorems.quantity.Quantity`: a number with its exact form and route)
Quadrature: `gauss_hermite_rule` (float64 points and weights for E f(Z), shared by the float64 readers),
            `gauss_hermite_rule_mpmath` (the same rule at any number of digits)
Scale:      `hermite_coefficients(activation.scaled(b), ...)` gives E[sigma(bZ) He_k(Z)] / k!

Routes (tried in this order by `route="auto"`, each number labelled with the one that produced it)
------------------------------------------------------------------------------------------------
1. "exact": sympy closed forms by the rules of `theorems.gaussian` (piecewise polynomials through
   truncated Gaussian moments, erf(a z), polynomials, parity, multiplication by z).
2. "mpmath": composite Gauss-Legendre quadrature on [-L, L] with a panel boundary at every kink, at
   working precision digits + 15 + log10(sqrt(K!)) (the last term covers the cancellation in He_K);
   each pass runs in Arb (`theorems.arb_quadrature`) where Arb has every operation of the activation, else
   in mpmath with the He_k recursion in fixed-point integer arithmetic for speed. The pass is
   repeated at 15 more digits with more nodes and a wider range; the two must agree to the requested
   digits (relative, or absolute on the scale E|sigma He_k|/k! for coefficients that vanish to that
   scale) or the panels are refined, up to three times, before `NumericalError`.
3. "float64": Gauss-Hermite (`gauss_hermite_rule`, 150 nodes), for smooth activations
   only (refused for kinked ones, where it converges only algebraically). About 1e-14 absolute.

Limits: degrees up to 400 and digits up to 1000 are accepted. The mpmath route's time grows with both
(`arb_route_seconds`: 0.05 s at degree 20 and 30 digits, about 2.5 min at degree 400 and 30 digits;
`mpmath_route_seconds` for the passes left to mpmath, 0.3 s and 6 min); `quadrature_seconds` estimates what a
request would run, so that a caller can refuse it before it starts.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

from theorems import arb_quadrature
from theorems.activations import Activation, expression_kinks, expression_pieces, mpmath_function
from theorems.activations import activation as _activation
from theorems.domains import HERMITE_ROUTES as ROUTES
from theorems.domains import MAX_DEGREE, MAX_DIGITS
from theorems.errors import InvalidInput, NumericalError
from theorems.formula import to_mpf
from theorems.gaussian import hermite_moment
from theorems.quantity import Quantity, combine, decimal_string

CONVENTION = "probabilists"


@dataclass(frozen=True)
class HermiteTable:
    """c_0..c_K of one activation, with the exact forms (None where numeric) and routes."""

    activation: str
    digits: int
    coefficients: tuple[mpmath.mpf, ...]
    exact: tuple[sympy.Expr | None, ...]
    routes: tuple[str, ...]

    @property
    def degree(self) -> int:
        return len(self.coefficients) - 1

    def normalized(self) -> tuple[mpmath.mpf, ...]:
        """mu_k = sqrt(k!) c_k = E[sigma He_k / sqrt(k!)], the orthonormal-basis coefficients."""
        with mpmath.workdps(self.digits + 10):
            return tuple(mpmath.sqrt(mpmath.factorial(k)) * c for k, c in enumerate(self.coefficients))

    def decimals(self, digits: int | None = None) -> list[str]:
        return [decimal_string(c, digits or self.digits) if e != 0 else "0"
                for c, e in zip(self.coefficients, self.exact)]

    def quantity(self, k: int) -> Quantity:
        return Quantity(name=f"c{k}", value=self.coefficients[k], route=self.routes[k], digits=self.digits,
                        exact=self.exact[k])


def _check_options(degree: int, digits: int, route: str) -> None:
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or not 0 <= degree <= MAX_DEGREE:
        raise InvalidInput(f"degree must be an integer in [0, {MAX_DEGREE}], got {degree!r}")
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or not 1 <= digits <= MAX_DIGITS:
        raise InvalidInput(f"digits must be an integer in [1, {MAX_DIGITS}], got {digits!r}")
    if route not in ROUTES:
        raise InvalidInput(f"route must be one of {', '.join(ROUTES)}, got {route!r}")


# --- public API -------------------------------------------------------------------------------

def hermite_coefficients(sigma: Activation | str, degree: int = 8, *, digits: int = 30,
                         route: str = "auto") -> HermiteTable:
    """c_0..c_degree of sigma, each to `digits` significant digits, with its route. The Hermite expansion is one
    of L^2(N(0, 1)): an activation whose square is not integrable is refused at once, as by `second_moment`."""
    sigma = _activation(sigma)
    _check_options(degree, digits, route)
    reason = square_integrability_failure(sigma)
    if reason:
        raise InvalidInput(f"{sigma.name}: {reason}")
    return _table(sigma, int(degree), int(digits), route)


def second_moment(sigma: Activation | str, *, digits: int = 30, route: str = "auto") -> Quantity:
    """E sigma(Z)^2, Z ~ N(0, 1) (= sum_k k! c_k^2 by Parseval). An activation whose square is not integrable
    is refused at once (`InvalidInput`, with the reason) instead of sending the quadrature after it."""
    sigma = _activation(sigma)
    _check_options(0, digits, route)
    reason = square_integrability_failure(sigma)
    if reason:
        raise InvalidInput(f"{sigma.name}: {reason}")
    return _second_moment(sigma, int(digits), route)


# The mpmath pass's time per node of its two passes, fitted to timings of a logistic activation on one core of the
# development machine (docs/derivations/kernels.md#cost-of-the-mpmath-route): an activation value at the working
# precision, and the fixed-point sums of He_0..He_degree, whose numbers grow with the degree.
_SECONDS_PER_VALUE = 6.2e-8     # times dps^1.5
_SECONDS_PER_SUM = 1.05e-8      # times (degree + 1) limbs^1.6, limbs = 64-bit words of one fixed-point He_k


# The same passes in Arb (`theorems.arb_quadrature`), fitted to timings of tanh at degrees 8 to 150 and 30 to 500
# digits, within a factor of two (docs/derivations/kernels.md#arb-quadrature): an activation value, and the Hermite
# recursion's terms at each node, whose numbers grow with the degree.
_ARB_SECONDS_PER_VALUE = 9.2e-8   # times dps
_ARB_SECONDS_PER_TERM = 5.5e-8    # times (degree + 1) limbs


def _pass_work(degree: int, digits: int) -> tuple[int, int, float]:
    """The two passes' nodes in all, the first pass's working digits, and the 64-bit words of one He_k there."""
    dps, nodes, half_width = _pass_sizes(degree, digits)
    total_nodes = 2 * half_width * nodes + 2 * (half_width + 2) * (nodes + 12)
    return total_nodes, dps, (dps * math.log2(10) + degree * math.log2(half_width)) / 64


def mpmath_route_seconds(degree: int, digits: int) -> float:
    """An estimate of the mpmath pass's time for E[sigma He_k], k <= degree, at `digits` digits: its two passes'
    nodes times the cost of one node (within a factor of 3 of the timings, which it fits from 0.3 s to 23 s)."""
    total_nodes, dps, limbs = _pass_work(degree, digits)
    return total_nodes * (_SECONDS_PER_VALUE * dps**1.5 + _SECONDS_PER_SUM * (degree + 1) * limbs**1.6)


def arb_route_seconds(degree: int, digits: int) -> float:
    """The same estimate for the passes in Arb, which serve every activation whose operations Arb has."""
    total_nodes, dps, limbs = _pass_work(degree, digits)
    return total_nodes * (_ARB_SECONDS_PER_VALUE * dps + _ARB_SECONDS_PER_TERM * (degree + 1) * limbs)


def quadrature_seconds(sigma: Activation | str, degree: int, digits: int, route: str = "auto") -> float:
    """The estimated time of the quadrature that `hermite_coefficients(sigma, degree)` and `second_moment` at
    `digits` digits would run: none where closed forms cover them (they are sought first, and cached, as those
    functions do) or the route is exact or float64; in Arb where it has every operation of sigma, else in mpmath."""
    sigma = _activation(sigma)
    _check_options(degree, digits, route)
    if route in ("exact", "float64"):
        return 0.0
    table = route == "mpmath" or any(_exact_coefficient(sigma.expression, k) is None for k in range(degree + 1))
    moment = route == "mpmath" or hermite_moment(sympy.expand(sigma.expression**2), 0) is None
    _, pieces = _smooth_pieces(sigma.expression)
    seconds = arb_route_seconds if arb_quadrature.covers(pieces) else mpmath_route_seconds
    return table * seconds(degree, digits) + moment * seconds(0, digits)


# the peak memory of a quadrature: the interpreter with sympy, mpmath and flint loaded, and the passes' Hermite
# matrix He_k(x_i), k <= degree, over their nodes, each value about _BYTES_PER_VALUE bytes and _BYTES_PER_WORD more
# per 64-bit word of its precision (fitted to the peaks of tanh at degree 50, 100 and 200 at 30 digits and degree
# 100 at 100 digits, 0.14 to 1.2 GB, each within 10%: benchmarks/bench_hermite.py --memory)
_PROCESS_BYTES = 100 * 2**20
_BYTES_PER_VALUE, _BYTES_PER_WORD = 100, 2.5


def quadrature_bytes(sigma: Activation | str, degree: int, digits: int, route: str = "auto") -> float:
    """The estimated peak memory of the process that runs the quadrature `quadrature_seconds` times (the process
    alone where closed forms cover the request)."""
    if quadrature_seconds(sigma, degree, digits, route) == 0:
        return _PROCESS_BYTES
    total_nodes, _, limbs = _pass_work(degree, digits)
    return _PROCESS_BYTES + total_nodes * (degree + 1) * (_BYTES_PER_VALUE + _BYTES_PER_WORD * limbs)


def mu_star_squared(sigma: Activation | str, *, digits: int = 30) -> Quantity:
    """mu_star^2 = E sigma^2 - c_0^2 - c_1^2, the variance of sigma beyond its affine part
    (Ba et al.'s mu_2^2; Hu and Lu's mu_*^2)."""
    sigma = _activation(sigma)
    table = hermite_coefficients(sigma, 1, digits=digits)
    moment = second_moment(sigma, digits=digits)
    return combine("mu_star_squared", digits, [moment, table.quantity(0), table.quantity(1)],
                   lambda m, c0, c1: m - c0**2 - c1**2)


def derivative_second_moment(sigma: Activation | str, *, digits: int = 30) -> Quantity:
    """E sigma'(Z)^2, Z ~ N(0, 1), with sigma' the piecewise derivative (`Activation.first_derivative`)."""
    sigma = _activation(sigma)
    return second_moment(sigma.first_derivative, digits=digits)


def derivative_variance(sigma: Activation | str, *, digits: int = 30) -> Quantity:
    """Var sigma'(Z) = E sigma'(Z)^2 - c_1^2 (Cui et al.'s bulk-inflation constant needs it)."""
    sigma = _activation(sigma)
    table = hermite_coefficients(sigma, 1, digits=digits)
    moment = derivative_second_moment(sigma, digits=digits)
    return combine("derivative_variance", digits, [moment, table.quantity(1)], lambda m, c1: m - c1**2)


# --- routes -----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def _table(sigma: Activation, degree: int, digits: int, route: str) -> HermiteTable:
    exact: list[sympy.Expr | None] = [None] * (degree + 1)
    if route in ("auto", "exact"):
        exact = [_exact_coefficient(sigma.expression, k) for k in range(degree + 1)]
        if route == "exact" and None in exact:
            missing = [k for k, e in enumerate(exact) if e is None]
            raise InvalidInput(f"no exact form for c_k of {sigma.name} at k = {missing[:5]}"
                               f"{'...' if len(missing) > 5 else ''}; use route auto or mpmath")
    values: list[mpmath.mpf | None] = [None if e is None else to_mpf(e, digits) for e in exact]
    routes = ["exact" if e is not None else "" for e in exact]
    if None in values:
        if route == "float64":
            numeric = [mpmath.mpf(m) / math.factorial(k) for k, m in enumerate(_gauss_hermite(sigma, degree))]
            label = "float64"
        else:
            moments, _ = _mpmath_moments(sigma.expression, degree, digits)
            with mpmath.workdps(digits + 10):
                numeric = [m / mpmath.factorial(k) for k, m in enumerate(moments)]
            label = "mpmath"
        for k in range(degree + 1):
            if values[k] is None:
                values[k], routes[k] = numeric[k], label
    return HermiteTable(sigma.name, digits if route != "float64" else 15, tuple(values), tuple(exact),
                        tuple(routes))


@functools.lru_cache(maxsize=4096)
def _exact_coefficient(expression: sympy.Expr, k: int) -> sympy.Expr | None:
    moment = hermite_moment(expression, k)
    return None if moment is None else moment / sympy.factorial(k)


@functools.lru_cache(maxsize=256)
def _second_moment(sigma: Activation, digits: int, route: str) -> Quantity:
    if route in ("auto", "exact"):
        exact = hermite_moment(sympy.expand(sigma.expression**2), 0)
        if exact is not None:
            return Quantity(name="second_moment", value=to_mpf(exact, digits), route="exact", digits=digits,
                            exact=exact)
        if route == "exact":
            raise InvalidInput(f"no exact form for E sigma^2 of {sigma.name}; use route auto or mpmath")
    if route == "float64":
        nodes, weights = gauss_hermite_rule()
        value = float(np.dot(weights, sigma(nodes) ** 2))
        return Quantity(name="second_moment", value=mpmath.mpf(value), route="float64", digits=15)
    _, square = _mpmath_moments(sigma.expression, 0, digits)
    return Quantity(name="second_moment", value=square, route="mpmath", digits=digits)


#: numpy's Gauss-Hermite weights overflow to NaN from about 380 nodes on
MAX_RULE_NODES = 360


@functools.lru_cache(maxsize=32)
def gauss_hermite_rule(nodes: int = 150) -> tuple[np.ndarray, np.ndarray]:
    """The `nodes`-point Gauss-Hermite rule for E f(Z), Z ~ N(0, 1), in float64: points z_i and weights w_i with
    sum_i w_i f(z_i) exact for polynomials f of degree below 2 nodes (the probabilists' weight exp(-z^2/2), the
    weights divided by their sum, so constants integrate exactly). numpy's `hermegauss` (the Jacobi matrix's
    eigenvalues with a Newton polish): E cos(a Z) = exp(-a^2/2) comes out within 1e-15 up to 360 nodes, where scipy's
    `roots_hermitenorm` switches to an asymptotic rule above 150 nodes and is off by 1e-14. The arrays are shared,
    so they are read-only."""
    if not 1 <= nodes <= MAX_RULE_NODES:
        raise ValueError(f"a Gauss-Hermite rule of {nodes} nodes: 1 to {MAX_RULE_NODES} are accurate in float64")
    points, weights = np.polynomial.hermite_e.hermegauss(nodes)
    weights = weights / weights.sum()
    points.setflags(write=False)
    weights.setflags(write=False)
    return points, weights


@functools.lru_cache(maxsize=8)
def gauss_hermite_rule_mpmath(nodes: int, digits: int) -> tuple[tuple[mpmath.mpf, ...], tuple[mpmath.mpf, ...]]:
    """The `nodes`-point Gauss-Hermite rule for E f(Z), Z ~ N(0, 1), at `digits` digits: the roots z_i of He_n and
    the weights 1 / (n p_(n-1)(z_i)^2), p_k = He_k / sqrt(k!) the orthonormal polynomials (Christoffel-Darboux at a
    root of p_n). Each root is Newton's on p_n (p_n' = sqrt(n) p_(n-1)), started from numpy's float64 rule: each step
    doubles the digits, so two or three steps reach 30 digits where mpmath's own rule (the Jacobi matrix's
    eigenvalues in mpmath) takes seconds at 200 nodes. Points in ascending order."""
    if not 1 <= nodes <= MAX_RULE_NODES:
        raise ValueError(f"a Gauss-Hermite rule of {nodes} nodes: 1 to {MAX_RULE_NODES} are started from float64")
    starts = np.polynomial.hermite_e.hermegauss(nodes)[0][nodes // 2:]  # the non-negative half, ascending
    with mpmath.workdps(digits + 10):
        tolerance = mpmath.mpf(10) ** (-digits - 5)
        roots = [mpmath.sqrt(k) for k in range(nodes + 1)]
        half = []
        for start in starts:
            z = mpmath.mpf(float(start))
            for _ in range(100):
                previous, current = mpmath.mpf(0), mpmath.mpf(1)
                for k in range(nodes):  # p_(k+1) = (z p_k - sqrt(k) p_(k-1)) / sqrt(k + 1)
                    previous, current = current, (z * current - roots[k] * previous) / roots[k + 1]
                step = current / (roots[nodes] * previous)
                z -= step
                if abs(step) < tolerance * max(1, abs(z)):
                    break
            half.append((z, 1 / (nodes * previous**2)))
        if nodes % 2:  # the root at 0 (numpy's start there may be off by round-off)
            half[0] = (mpmath.mpf(0), half[0][1])
        rule = [(-z, w) for z, w in reversed(half[nodes % 2:])] + half
        return tuple(+z for z, _ in rule), tuple(+w for _, w in rule)


def _gauss_hermite(sigma: Activation, degree: int) -> list[float]:
    if not sigma.smooth:
        raise InvalidInput(f"the float64 Gauss-Hermite route is refused for {sigma.name}: it has kinks at "
                           f"{', '.join(map(str, sigma.kinks))}, where Gauss-Hermite converges only "
                           f"algebraically; use route exact or mpmath")
    x, w = gauss_hermite_rule()
    weighted = w * sigma(x)
    moments, previous, current = [], np.zeros_like(x), np.ones_like(x)
    for k in range(degree + 1):
        moments.append(float(np.dot(weighted, current)))
        previous, current = current, x * current - k * previous
    return moments


# --- mpmath route -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def _legendre_rule(nodes: int, dps: int) -> tuple[tuple[mpmath.mpf, ...], tuple[mpmath.mpf, ...]]:
    """Gauss-Legendre nodes and weights on [-1, 1] at `dps` digits (Newton on P_n, from numpy's float64 rule: each
    step doubles the digits, so starting from 16 of them saves the steps a start from the asymptotic cosine needs)."""
    starts = np.polynomial.legendre.leggauss(nodes)[0][::-1][:(nodes + 1) // 2]  # the non-negative half, descending
    with mpmath.workdps(dps + 10):
        xs, ws = [], []
        for start in starts:
            x = mpmath.mpf(float(start))
            for _ in range(100):
                p0, p1 = mpmath.mpf(1), x
                for n in range(2, nodes + 1):
                    p0, p1 = p1, ((2 * n - 1) * x * p1 - (n - 1) * p0) / n
                derivative = nodes * (x * p1 - p0) / (x**2 - 1)
                step = p1 / derivative
                x -= step
                if abs(step) < mpmath.mpf(10) ** (-dps - 5):
                    break
            weight = 2 / ((1 - x**2) * derivative**2)
            xs += [x, -x] if abs(x) > mpmath.mpf(10) ** (-dps) else [x]
            ws += [weight, weight] if abs(x) > mpmath.mpf(10) ** (-dps) else [weight]
        return tuple(xs), tuple(ws)


def _panels(kinks: list[mpmath.mpf], half_width: int, panel: mpmath.mpf) -> list[tuple]:
    count = int(mpmath.ceil(2 * half_width / panel))
    edges = {-half_width + i * panel for i in range(count + 1)}
    edges |= {k for k in kinks if -half_width < k < half_width}
    edges = sorted(edges)
    return list(zip(edges[:-1], edges[1:]))


@functools.lru_cache(maxsize=64)
def _weighted_nodes(kinks: tuple[sympy.Expr, ...], dps: int, nodes: int, half_width: int, panel: mpmath.mpf,
                    bits: int, degree: int) -> tuple[tuple[int, mpmath.mpf, mpmath.mpf, tuple[int, ...]], ...]:
    """The quadrature rule of one pass under the normal weight, shared by every activation with these kinks (all the
    smooth ones): per node, the index of the piece between kinks it lies in, x, its weight w phi(x) (the panel's
    width and the normal density folded in), and He_0(x) .. He_degree(x) in fixed point (times 2^bits), by the
    recursion He_(k+1) = x He_k - k He_(k-1) on x 2^bits rounded down."""
    with mpmath.workdps(dps):
        kink_values = [to_mpf(k, dps) for k in kinks]
        unit_nodes, unit_weights = _legendre_rule(nodes, dps)
        normal = 1 / mpmath.sqrt(2 * mpmath.pi)
        rule = []
        for a, b in _panels(kink_values, half_width, panel):
            piece = sum(k <= (a + b) / 2 for k in kink_values)
            middle, radius = (a + b) / 2, (b - a) / 2
            at_kink = any(k in (a, b) for k in kink_values)
            for t, w in zip(unit_nodes, unit_weights):
                if at_kink:  # x = a + (b - a)(3 s^2 - 2 s^3), flat at both ends: |x - kink|^(1/2) becomes smooth
                    s = (t + 1) / 2
                    x, width = a + (b - a) * s * s * (3 - 2 * s), 3 * (b - a) * s * (1 - s)
                else:
                    x, width = middle + radius * t, radius
                x_fixed = int(mpmath.floor(mpmath.ldexp(x, bits)))
                previous, current, hermite = 0, 1 << bits, []
                for k in range(degree + 1):
                    hermite.append(current)
                    previous, current = current, ((x_fixed * current) >> bits) - k * previous
                rule.append((piece, x, w * width * normal * mpmath.exp(-x * x / 2), tuple(hermite)))
        return tuple(rule)


def _gaussian_pass(expression: sympy.Expr, degree: int, dps: int, nodes: int, half_width: int,
                   panel: mpmath.mpf):
    """One quadrature pass: (E[f He_k] for k <= degree, E f^2) at `dps` digits, in Arb where every operation of
    the expression is one Arb has (`theorems.arb_quadrature`), else in mpmath (`_mpmath_pass`)."""
    kinks, pieces = _smooth_pieces(expression)
    in_arb = arb_quadrature.gaussian_pass(pieces, kinks, degree, dps, nodes, half_width, panel)
    return in_arb if in_arb is not None else _mpmath_pass(pieces, kinks, degree, dps, nodes, half_width, panel)


def _smooth_pieces(expression: sympy.Expr) -> tuple[tuple[sympy.Expr, ...], tuple[sympy.Expr, ...]]:
    """The expression's kinks, and its smooth expression between each two consecutive ones."""
    kinks = tuple(expression_kinks(expression))
    return kinks, tuple(piece for _, _, piece in expression_pieces(expression, kinks))


def _mpmath_pass(pieces: tuple[sympy.Expr, ...], kinks: tuple[sympy.Expr, ...], degree: int, dps: int, nodes: int,
                 half_width: int, panel: mpmath.mpf):
    """One quadrature pass in mpmath, for `pieces` (one smooth expression between consecutive kinks).

    The He_k recursion and the sums run in fixed point (Python integers scaled by 2^bits), which is
    exact integer arithmetic with one rounding per product: absolute error about 2^-bits times the
    size of He_k, which the guard digits of `_mpmath_moments` cover.
    """
    with mpmath.workdps(dps):
        bits = mpmath.mp.prec + 16
        functions = [mpmath_function(piece) for piece in pieces]
        moments = [0] * (degree + 1)
        square = mpmath.mpf(0)
        for piece, x, weight, hermite in _weighted_nodes(kinks, dps, nodes, half_width, panel, bits, degree):
            fx = mpmath.mpf(functions[piece](x))
            weighted = weight * fx
            square += weighted * fx
            weighted_fixed = int(mpmath.floor(mpmath.ldexp(weighted, bits)))
            moments = [m + ((weighted_fixed * h) >> bits) for m, h in zip(moments, hermite)]
        return [mpmath.ldexp(mpmath.mpf(m), -bits) for m in moments], square


def _pass_sizes(degree: int, digits: int) -> tuple[int, int, int]:
    """The first pass's working digits, Gauss-Legendre nodes per panel and half-width L of the range."""
    guard = int(math.ceil(math.lgamma(degree + 1) / (2 * math.log(10))))
    dps = digits + 15 + guard
    nodes = int(dps / 1.6) + 12
    # smallest L with L^(degree+2) phi(L) < 10^-(dps+2): the tail beyond +-L is below the working precision
    half_width = 4
    while (degree + 2) * math.log(half_width) - half_width**2 / 2 > -(dps + 2) * math.log(10):
        half_width += 1
    return dps, nodes, half_width


@functools.lru_cache(maxsize=256)
def _mpmath_moments(expression: sympy.Expr, degree: int, digits: int):
    """E[f He_k] (k <= degree) and E f^2 to `digits` digits, by two passes that must agree."""
    dps, nodes, half_width = _pass_sizes(degree, digits)
    panel = mpmath.mpf(1)
    for _attempt in range(4):
        first = _gaussian_pass(expression, degree, dps, nodes, half_width, panel)
        second = _gaussian_pass(expression, degree, dps + 15, nodes + 12, half_width + 2, panel)
        if _agree(first, second, digits):
            return second[0], second[1]
        nodes, panel = 2 * nodes, panel / 2
    raise NumericalError(f"mpmath quadrature of the Hermite moments of {expression} did not reach "
                         f"{digits} digits (two precisions disagree after refining the panels): the function "
                         f"may vary too fast, or be too rough at a kink (a power of |z| below 1/2 there), or not be "
                         f"square-integrable under N(0, 1); ask for fewer digits or another route")


def _agree(first, second, digits: int) -> bool:
    tolerance = mpmath.mpf(10) ** (-digits - 1)
    floor = mpmath.mpf(10) ** (-digits - 5)
    # Cauchy-Schwarz: |E[f He_k]| <= sqrt(E f^2 k!), the natural scale of the k-th moment
    scales = [mpmath.sqrt(abs(second[1]) * mpmath.factorial(k)) for k in range(len(second[0]))]
    pairs = list(zip(first[0], second[0], scales)) + [(first[1], second[1], second[1])]
    for a, b, scale in pairs:
        difference = abs(a - b)
        if difference > tolerance * max(abs(a), abs(b)) and difference > floor * scale:
            return False
    return all(mpmath.isfinite(v) for v in second[0]) and mpmath.isfinite(second[1])


@functools.lru_cache(maxsize=256)
def square_integrability_failure(sigma: Activation) -> str | None:
    """None when sigma(Z)^2 is integrable under N(0, 1) by a tail test, else the reason.

    Test: the tail integrand g(x) = sigma(x)^2 x^2 phi(x) must be small and shrinking at x = +-40,
    +-80, +-160 (true for every function of polynomial or sub-Gaussian growth; false for growth like
    exp(z^2/4) or faster, where E sigma^2 is infinite).
    """
    with mpmath.workdps(30):
        for sign in (1, -1):
            values = []
            for x in (40, 80, 160):
                point = mpmath.mpf(sign * x)
                try:
                    value = sigma.mpmath(point) ** 2 * point**2 * mpmath.npdf(point)
                except (OverflowError, ValueError, ZeroDivisionError):
                    return f"sigma cannot be evaluated at z = {sign * x}"
                values.append(abs(value))
            if not (values[0] < mpmath.mpf(10) ** -100 and values[2] <= values[1] <= values[0]):
                return (f"E sigma(Z)^2 appears infinite: sigma(z)^2 phi(z) does not vanish as z -> "
                        f"{'+' if sign > 0 else '-'}infinity (at z = {sign * 40}: {mpmath.nstr(values[0], 3)})")
    return None


def square_root(x):
    """sqrt for `combine` formulas: exact for sympy numbers, mpmath otherwise."""
    return sympy.sqrt(x) if isinstance(x, sympy.Basic) else mpmath.sqrt(x)
