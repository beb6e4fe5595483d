"""One pass of the Hermite moments' panel quadrature in Arb's ball arithmetic (python-flint), for the activations
whose every operation Arb has; `theorems.hermite` falls back to its mpmath pass for the others.

The rule is `theorems.hermite`'s: Gauss-Legendre on panels of the given width over [-L, L], the panels that end at
a kink mapped by x = a + (b - a)(3 s^2 - 2 s^3), the normal density folded into the weights. Arb evaluates the
activation at every node and forms E[f He_k] = sum_i w_i f(x_i) He_k(x_i) as one product of a row by the nodes'
Hermite matrix, in C, where the mpmath pass loops in Python: the same numbers to the working precision, 3 to 12 times
faster at degree 20 and 30 digits (docs/derivations/kernels.md#arb-quadrature). The pass returns the balls'
midpoints; the quadrature's own error is what the two passes' agreement in `theorems.hermite` measures.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

import flint
import mpmath
import sympy

from theorems.activations import MAX_EXP_ARGUMENT, z

# Arb's working precision is one process-wide setting (flint.ctx), as mpmath's is: a pass holds this lock while it
# sets and restores it
_PRECISION_LOCK = threading.Lock()

Points = list  # of flint.arb numbers


def _exp(values: Points) -> Points:
    if any(value > MAX_EXP_ARGUMENT for value in values):  # as the mpmath route refuses it (`_bounded_exp`)
        raise OverflowError(f"exp of an argument beyond {MAX_EXP_ARGUMENT:.0e}")
    return [value.exp() for value in values]


_FUNCTIONS: dict[type, Callable[[Points], Points]] = {
    sympy.exp: _exp,
    sympy.log: lambda values: [value.log() for value in values],
    sympy.tanh: lambda values: [value.tanh() for value in values],
    sympy.sinh: lambda values: [value.sinh() for value in values],
    sympy.cosh: lambda values: [value.cosh() for value in values],
    sympy.sin: lambda values: [value.sin() for value in values],
    sympy.cos: lambda values: [value.cos() for value in values],
    sympy.atan: lambda values: [value.atan() for value in values],
    sympy.erf: lambda values: [value.erf() for value in values],
    sympy.erfc: lambda values: [value.erfc() for value in values],
    sympy.Abs: lambda values: [abs(value) for value in values],
}


def _constant(expression: sympy.Expr) -> Callable[[], flint.arb] | None:
    """A numeric constant at the working precision (a binary float exactly), made when the pass runs, after the
    precision is set."""
    if expression.is_Rational:
        numerator, denominator = int(expression.p), int(expression.q)
        return lambda: flint.arb(numerator) / denominator
    if expression.is_Float:
        sign, mantissa, exponent, _ = expression._mpf_  # (-1)^sign mantissa 2^exponent, exactly
        return lambda: (-1) ** sign * flint.arb(mantissa) * flint.arb(2) ** exponent
    if expression is sympy.pi:
        return flint.arb.pi
    if expression is sympy.E:
        return lambda: flint.arb(1).exp()
    return None


def _compile(expression: sympy.Expr) -> Callable[[Points], Points] | None:
    """The expression as a function of a list of points, or None where it uses an operation Arb lacks here."""
    if expression == z:
        return lambda values: values
    if expression.is_Atom:
        constant = _constant(expression)
        if constant is None:
            return None
        return lambda values: [constant()] * len(values)
    function = _operation(expression)
    if function is None or expression.free_symbols:
        return function
    return lambda values: function([flint.arb(0)]) * len(values)  # a constant such as log(2): once, then repeated


def _operation(expression: sympy.Expr) -> Callable[[Points], Points] | None:
    """A compound expression as a function of a list of points, from its arguments'."""
    arguments = [_compile(argument) for argument in expression.args]
    if any(argument is None for argument in arguments):
        return None
    if isinstance(expression, sympy.Add):
        def add(values):
            terms = [argument(values) for argument in arguments]
            return [sum(column[1:], column[0]) for column in zip(*terms)]
        return add
    if isinstance(expression, sympy.Mul):
        def multiply(values):
            factors = [argument(values) for argument in arguments]
            products = factors[0]
            for factor in factors[1:]:
                products = [a * b for a, b in zip(products, factor)]
            return products
        return multiply
    if isinstance(expression, sympy.Pow):
        base, exponent = arguments
        if expression.exp.is_Integer:
            power = int(expression.exp)
            return lambda values: [value**power for value in base(values)]
        return lambda values: [b**e for b, e in zip(base(values), exponent(values))]
    function = _FUNCTIONS.get(expression.func)
    if function is None or len(arguments) != 1:
        return None
    (argument,) = arguments
    return lambda values: function(argument(values))


@functools.lru_cache(maxsize=1024)
def arb_function(expression: sympy.Expr) -> Callable[[Points], Points] | None:
    """`expression` in z evaluated by Arb over a list of points, or None where it uses an operation Arb lacks here
    (the caller then uses mpmath)."""
    return _compile(expression)


def covers(pieces: tuple[sympy.Expr, ...]) -> bool:
    """Whether Arb has every operation of these pieces, so that `gaussian_pass` runs them."""
    return all(arb_function(piece) is not None for piece in pieces)


@functools.lru_cache(maxsize=64)
def _legendre(nodes: int, precision: int) -> tuple[tuple[flint.arb, flint.arb], ...]:
    """Gauss-Legendre nodes and weights on [-1, 1] (Arb's certified roots of P_n), at the current precision."""
    return tuple(flint.arb.legendre_p_root(nodes, k, weight=True) for k in range(nodes))


@functools.lru_cache(maxsize=64)
def _rule(kinks: tuple[sympy.Expr, ...], precision: int, nodes: int, half_width: int, panel_twice: int,
          degree: int) -> tuple[tuple[int, ...], tuple[Points, ...], Points, flint.arb_mat]:
    """The pass's rule, shared by every activation with these kinks: per piece between kinks, the indices of its
    nodes; the nodes; their weights w phi(x) (the panel's width and the normal density folded in); and the
    nodes' Hermite matrix He_k(x_i), k <= degree, by He_(k+1) = x He_k - k He_(k-1). `panel_twice` is the panel's
    width as the integer 2 / width (1, 2, 4, ...: the widths the refinement halves to)."""
    kink_values = [flint.arb(str(sympy.N(kink, precision // 3 + 10))) for kink in kinks]
    width = flint.arb(2) / panel_twice
    count = half_width * panel_twice  # 2 L / width panels
    edges = {float(edge): edge for edge in (flint.arb(-half_width) + i * width for i in range(count + 1))}
    edges.update({float(kink): kink for kink in kink_values if abs(float(kink)) < half_width})
    edges = [edges[key] for key in sorted(edges)]
    normal = 1 / (2 * flint.arb.pi()).sqrt()
    unit = _legendre(nodes, precision)
    pieces, points, weights = [], [], []
    for a, b in zip(edges[:-1], edges[1:]):
        middle, radius = (a + b) / 2, (b - a) / 2
        pieces.append(sum(float(k) <= float(middle) for k in kink_values))
        at_kink = any(float(k) in (float(a), float(b)) for k in kink_values)
        for t, w in unit:
            if at_kink:
                s = (t + 1) / 2
                x, stretch = a + (b - a) * s * s * (3 - 2 * s), 3 * (b - a) * s * (1 - s)
            else:
                x, stretch = middle + radius * t, radius
            points.append(x)
            weights.append(w * stretch * normal * (-x * x / 2).exp())
    hermite = flint.arb_mat(len(points), degree + 1)
    for i, x in enumerate(points):
        previous, current = flint.arb(0), flint.arb(1)
        for k in range(degree + 1):
            hermite[i, k] = current
            previous, current = current, x * current - k * previous
    node_pieces = tuple(piece for piece in pieces for _ in range(len(unit)))
    return node_pieces, tuple(points), weights, hermite


def gaussian_pass(pieces: tuple[sympy.Expr, ...], kinks: tuple[sympy.Expr, ...], degree: int, dps: int, nodes: int,
                  half_width: int, panel: mpmath.mpf) -> tuple[list[mpmath.mpf], mpmath.mpf] | None:
    """(E[f He_k] for k <= degree, E f^2) for f given by `pieces` (one smooth expression between consecutive
    kinks) at `dps` digits, as mpmath numbers (the balls' midpoints), or None where a piece uses an operation Arb
    lacks here."""
    if not covers(pieces):
        return None
    functions = [arb_function(piece) for piece in pieces]
    panel_twice = int(round(2 / float(panel)))
    with _PRECISION_LOCK:
        saved = flint.ctx.prec
        try:
            flint.ctx.dps = dps
            node_pieces, points, weights, hermite = _rule(kinks, flint.ctx.prec, nodes, half_width, panel_twice,
                                                          degree)
            values: list = [None] * len(points)
            for piece, function in enumerate(functions):
                chosen = [i for i, p in enumerate(node_pieces) if p == piece]
                for i, value in zip(chosen, function([points[i] for i in chosen])):
                    values[i] = value
            weighted = [w * f for w, f in zip(weights, values)]
            row = flint.arb_mat([weighted])
            moments = row * hermite
            square = sum((w * f for w, f in zip(weighted, values)), flint.arb(0))
            return [_to_mpf(moments[0, k]) for k in range(degree + 1)], _to_mpf(square)
        finally:
            flint.ctx.prec = saved


def _to_mpf(ball: flint.arb) -> mpmath.mpf:
    """The ball's midpoint, exactly (at a precision that holds all its bits, whatever mpmath's current one)."""
    mantissa, exponent = (int(part) for part in ball.mid().man_exp())
    with mpmath.workprec(max(53, mantissa.bit_length())):
        return mpmath.mpf((mantissa, exponent))
