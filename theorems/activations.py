"""Activation functions: one object holding the sympy expression, numpy and mpmath functions, kinks.

Every activation is a real function of one variable `z` (see `theorems.formula.z`). It is built either
by name (`relu`, `leaky_relu:0.1`, `poly:0,1,0.5`, ...; see `BUILTINS`) or from a formula parsed by
the whitelist parser (`"tanh(z) + 0.1*z**2"`); `activation("...")` accepts both.

Conventions:
- `kinks` are the exact points where the activation or one of its derivatives jumps; between them the
  expression is smooth. Derivatives are taken piecewise (the value at a kink is immaterial for every
  Gaussian expectation in this package).
- The numpy function is vectorized and keeps float32 inputs in float32.
- `pieces()` gives, for each interval between kinks, the smooth expression that equals the
  activation there; the exact and mpmath Hermite routes integrate piece by piece.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy

from theorems.domains import PARAMETRIZED_ACTIVATIONS, builtin_names
from theorems.errors import InvalidInput, UnknownName
from theorems.formula import exact_number, parse_formula, parse_number, z

_NON_SMOOTH = (sympy.Max, sympy.Min, sympy.Abs, sympy.Heaviside, sympy.sign)
_ODD_FUNCTIONS = (sympy.tanh, sympy.erf, sympy.sinh, sympy.sin, sympy.atan, sympy.asinh, sympy.sign)
_EVEN_FUNCTIONS = (sympy.Abs, sympy.cosh, sympy.cos)


@dataclass(frozen=True)
class Activation:
    """A named activation sigma(z) with its symbolic, numpy and mpmath forms."""

    name: str
    expression: sympy.Expr
    numpy_function: Callable[[np.ndarray], np.ndarray] = field(compare=False, hash=False, repr=False)
    description: str = ""
    # optional fused (sigma(x) into `out`, sigma'(x) over x) for speed; built-ins provide one
    numpy_value_and_derivative: Callable | None = field(default=None, compare=False, hash=False, repr=False)

    # --- evaluation -------------------------------------------------------------------------
    def __call__(self, x):
        """Evaluate on a numpy array (vectorized; float32 stays float32)."""
        x = np.asarray(x)
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            value = np.asarray(self.numpy_function(x))
        if value.shape != x.shape:  # a constant expression (e.g. the derivative of a linear function)
            return np.full(x.shape, value, dtype=x.dtype)
        return value.astype(x.dtype, copy=False)

    def value_and_derivative(self, x: np.ndarray, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Writes sigma(x) into `out` and sigma'(x) over x (callers pass a block they no longer need);
        returns (out, x). One fused pass for the built-ins, with no temporaries of the block's size
        (allocating them costs more than the arithmetic)."""
        with np.errstate(over="ignore", invalid="ignore"):
            if self.numpy_value_and_derivative is not None:
                self.numpy_value_and_derivative(x, out)
            else:
                out[...] = self(x)
                x[...] = self.first_derivative(x)
        return out, x

    def mpmath(self, x) -> mpmath.mpf:
        """Evaluate at one point with mpmath at the current working precision."""
        x = mpmath.mpf(x)
        for lower, upper, piece in self.pieces():
            if lower <= x <= upper:
                return mpmath_function(piece)(x)
        raise AssertionError("pieces cover the real line")

    # --- structure --------------------------------------------------------------------------
    @property
    def key(self) -> str:
        """A canonical identity of the mathematical function (used for caching)."""
        return sympy.srepr(self.expression)

    @functools.cached_property
    def kinks(self) -> tuple[sympy.Expr, ...]:
        """Sorted exact points where the activation (or a derivative) is not smooth."""
        return expression_kinks(self.expression)

    @property
    def smooth(self) -> bool:
        return not self.kinks

    def pieces(self) -> tuple[tuple[sympy.Expr, sympy.Expr, sympy.Expr], ...]:
        """`(lower, upper, smooth_expression)` for each interval between consecutive kinks."""
        return expression_pieces(self.expression, self.kinks)

    @functools.cached_property
    def parity(self) -> str | None:
        """`"even"`, `"odd"` or None, decided structurally (so a claimed parity is a proof)."""
        return parity(self.expression)

    @functools.cached_property
    def first_derivative(self) -> Activation:
        """sigma', built once: `value_and_derivative` runs per block of rows, in worker threads."""
        return self.derivative(1)

    def derivative(self, order: int = 1) -> Activation:
        """The piecewise derivative sigma^(order), as an activation."""
        if order < 0:
            raise InvalidInput(f"derivative order must be >= 0, got {order}")
        expression = sympy.diff(self.expression, z, order) if order else self.expression
        return from_expression(expression, name=f"d{order}({self.name})" if order else self.name)

    def scaled(self, scale) -> Activation:
        """sigma(b z): the activation seen by a preactivation of standard deviation b."""
        b = exact_number(scale)
        if not (b.is_real and b.is_positive):
            raise InvalidInput(f"preactivation scale must be a positive number, got {scale}")
        if b == 1:
            return self
        return from_expression(self.expression.subs(z, b * z), name=f"{self.name}@{b}")


# --- structural analysis ----------------------------------------------------------------------

def parity(expression: sympy.Expr) -> str | None:
    """Structural parity of an expression in `z`: "even", "odd", or None when not evident."""
    if not expression.has(z):
        return "even"
    if expression == z:
        return "odd"
    if isinstance(expression, sympy.Add):
        parities = {parity(term) for term in expression.args}
        return parities.pop() if len(parities) == 1 else None
    if isinstance(expression, sympy.Mul):
        odd_count = 0
        for factor in expression.args:
            factor_parity = parity(factor)
            if factor_parity is None:
                return None
            odd_count += factor_parity == "odd"
        return "odd" if odd_count % 2 else "even"
    if isinstance(expression, sympy.Pow):
        base_parity, exponent = parity(expression.base), expression.exp
        if base_parity == "even" and not exponent.has(z):
            return "even"
        if base_parity == "odd" and exponent.is_integer:
            return "odd" if exponent.is_odd else "even"
        return None
    if isinstance(expression, _EVEN_FUNCTIONS):
        return "even" if parity(expression.args[0]) is not None else None
    if isinstance(expression, _ODD_FUNCTIONS):
        return parity(expression.args[0])
    if all(parity(argument) == "even" for argument in expression.args):
        return "even"
    return None


def _switch_points(expression: sympy.Expr) -> set[sympy.Expr]:
    points: set[sympy.Expr] = set()
    for atom in expression.atoms(*_NON_SMOOTH):
        if isinstance(atom, (sympy.Max, sympy.Min)):
            if len(atom.args) != 2:
                raise InvalidInput(f"{atom}: max/min take exactly two arguments")
            arguments = [atom.args[0] - atom.args[1]]
        else:
            arguments = [atom.args[0]]
        for argument in arguments:
            solutions = sympy.solveset(sympy.Eq(argument, 0), z, domain=sympy.S.Reals)
            if solutions is sympy.S.EmptySet:
                continue
            if not isinstance(solutions, sympy.FiniteSet):
                raise InvalidInput(f"cannot locate the kinks of {expression}: {argument} = 0 has solutions {solutions}")
            points.update(solutions)
    return points


def expression_kinks(expression: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Sorted exact kinks of an expression in z (what `Activation.kinks` gives for an activation)."""
    points = _switch_points(expression)
    for point in points:
        if not point.is_real or not point.is_finite:
            raise InvalidInput(f"kink of {expression} at {point} is not a finite real number")
    return tuple(sorted(points, key=lambda point: float(point)))


def _resolve(expression: sympy.Expr, at: sympy.Expr) -> sympy.Expr:
    """Replace each non-smooth atom by the smooth branch it takes near the point `at`."""

    def branch(atom):
        if isinstance(atom, (sympy.Max, sympy.Min)):
            first, second = atom.args
            difference = float((first - second).subs(z, at))
            pick_first = difference > 0 if isinstance(atom, sympy.Max) else difference < 0
            return first if pick_first else second
        value = float(atom.args[0].subs(z, at))
        if isinstance(atom, sympy.Abs):
            return atom.args[0] if value > 0 else -atom.args[0]
        if isinstance(atom, sympy.Heaviside):
            return sympy.Integer(1 if value > 0 else 0)
        return sympy.Integer(1 if value > 0 else -1)  # sign

    previous = None
    while previous != expression and expression.has(*_NON_SMOOTH):
        previous = expression
        # innermost first: resolve atoms whose own arguments are already smooth
        expression = expression.replace(
            lambda node: isinstance(node, _NON_SMOOTH) and not any(
                argument.has(*_NON_SMOOTH) for argument in node.args),
            branch)
    return expression


@functools.lru_cache(maxsize=512)
def expression_pieces(expression: sympy.Expr, kinks: tuple[sympy.Expr, ...]):
    """(lower, upper, smooth expression) between consecutive kinks (what `Activation.pieces` gives)."""
    edges = [-sympy.oo, *kinks, sympy.oo]
    pieces = []
    for lower, upper in zip(edges[:-1], edges[1:]):
        if lower == -sympy.oo and upper == sympy.oo:
            inside = sympy.Integer(0)
        elif lower == -sympy.oo:
            inside = upper - 1
        elif upper == sympy.oo:
            inside = lower + 1
        else:
            inside = (lower + upper) / 2
        pieces.append((lower, upper, sympy.expand(_resolve(expression, inside))))
    return tuple(pieces)


#: exp of a larger positive argument is refused (OverflowError): no activation a theorem can use needs it on
#: the range the quadrature visits (|z| <= 160), while exp(exp(exp(z))) at z = 30 would need an exponent of
#: 10^(10^13) digits and never return. A very negative argument underflows harmlessly and is allowed.
MAX_EXP_ARGUMENT = 10**8


def _bounded_exp(x):
    if mpmath.re(x) > MAX_EXP_ARGUMENT:  # a very negative argument underflows harmlessly
        raise OverflowError(f"exp of {mpmath.nstr(x, 3)}, beyond {MAX_EXP_ARGUMENT:.0e}")
    return mpmath.exp(x)


@functools.lru_cache(maxsize=1024)
def mpmath_function(expression: sympy.Expr):
    return sympy.lambdify(z, expression, modules=[{"exp": _bounded_exp}, "mpmath"])


# --- construction ---------------------------------------------------------------------------

def from_expression(expression: sympy.Expr, *, name: str | None = None,
                    numpy_function: Callable | None = None, description: str = "",
                    value_and_derivative: Callable | None = None) -> Activation:
    """Build an activation from a sympy expression in `z` (already trusted: no parsing here)."""
    expression = sympy.sympify(expression) if not isinstance(expression, sympy.Basic) else expression
    if expression.free_symbols - {z}:
        raise InvalidInput(f"activation {expression} has symbols other than z")
    if numpy_function is None:
        numpy_function = sympy.lambdify(z, expression, modules=[{"Heaviside": _heaviside}, "scipy", "numpy"])
    activation_ = Activation(name or str(expression), expression, numpy_function, description,
                             value_and_derivative)
    _validate(activation_)
    return activation_


def _heaviside(x, *_):
    return np.where(x > 0, 1.0, 0.0).astype(np.result_type(x, np.float32))


# mpmath's working precision is one process-wide setting: two threads inside workdps at once restore each other's
# saved precision out of order and leave the process at the wrong one (20 digits here, found as last-bit drift in
# later float results). Activations are built in worker threads (the one-step simulation's blocks), so the probe
# takes this lock.
_PRECISION_LOCK = threading.Lock()


def _validate(activation_: Activation) -> None:
    """Refuse activations that are complex or non-finite somewhere on the real line."""
    activation_.kinks  # noqa: B018 - raises InvalidInput when the kinks cannot be located
    probes = [mpmath.mpf(x) / 4 for x in range(-40, 41)] + [mpmath.mpf(x) for x in (-30, -17, 17, 30)]
    with _PRECISION_LOCK, mpmath.workdps(20):
        for x in probes:
            try:
                value = activation_.mpmath(x)
            except (ValueError, ZeroDivisionError, OverflowError) as error:
                reason = str(error) or type(error).__name__.replace("Error", " error").lower()
                raise InvalidInput(f"activation {activation_.name} cannot be evaluated at z = "
                                   f"{mpmath.nstr(x, 4)} ({reason})") from None
            if isinstance(value, mpmath.mpc) or not mpmath.isfinite(value):
                raise InvalidInput(f"activation {activation_.name} is not real and finite at z = "
                                   f"{mpmath.nstr(x, 4)} (value {mpmath.nstr(value, 6)})")


def _relu(x):
    return np.maximum(x, 0)


def _leaky_relu(slope: sympy.Expr):
    slope_value = float(slope)
    return lambda x: np.where(x > 0, x, x * np.asarray(slope_value, dtype=x.dtype))


def _tanh_pair(x, out):
    np.tanh(x, out=out)
    np.multiply(out, out, out=x)
    np.subtract(1, x, out=x)


def _special():
    """scipy.special, imported where an activation first needs it (erf, the logistic, Phi): the Hermite engine and
    the command line do not."""
    import scipy.special

    return scipy.special


def _erf(x, **keywords):
    return _special().erf(x, **keywords)


def _expit(x, **keywords):
    return _special().expit(x, **keywords)


def _erf_pair(x, out):
    _erf(x, out=out)
    np.square(x, out=x)
    np.negative(x, out=x)
    np.exp(x, out=x)
    x *= x.dtype.type(2 / np.sqrt(np.pi))


def _sigmoid_pair(x, out):
    _expit(x, out=out)
    np.subtract(1, out, out=x)
    x *= out


def _softplus_pair(x, out):
    np.logaddexp(np.zeros((), dtype=x.dtype), x, out=out)
    _expit(x, out=x)


def _relu_pair(x, out):
    np.maximum(x, 0, out=out)
    np.greater(x, 0, out=x)  # stores 1.0 / 0.0 in the float array


_PAIRS = {"tanh": _tanh_pair, "erf": _erf_pair, "sigmoid": _sigmoid_pair, "softplus": _softplus_pair,
          "relu": _relu_pair}


def _softplus(x):
    return np.logaddexp(np.zeros((), dtype=x.dtype), x)


def _gelu(x):
    return x * _special().ndtr(x)


def _silu(x):
    return x * _expit(x)


_half = sympy.Rational(1, 2)
#: name -> (sympy expression, numpy function, description). Expressions are written so that their
#: parity is structural (sigmoid = 1/2 + tanh(z/2)/2, softplus = z/2 + log(2 cosh(z/2))).
BUILTINS: dict[str, tuple[sympy.Expr, Callable, str]] = {
    "relu": (sympy.Max(z, 0), _relu, "max(z, 0)"),
    "abs": (sympy.Abs(z), np.abs, "|z|"),
    "tanh": (sympy.tanh(z), np.tanh, "tanh(z)"),
    "erf": (sympy.erf(z), _erf, "erf(z)"),
    "sigmoid": (_half + sympy.tanh(z / 2) / 2, _expit, "1/(1 + e^-z) = 1/2 + tanh(z/2)/2"),
    "softplus": (z / 2 + sympy.log(2 * sympy.cosh(z / 2)), _softplus,
                 "log(1 + e^z) = z/2 + log(2 cosh(z/2))"),
    "gelu": (z * (1 + sympy.erf(z / sympy.sqrt(2))) / 2, _gelu, "z Phi(z), the exact GELU"),
    "silu": (z * (_half + sympy.tanh(z / 2) / 2), _silu, "z sigmoid(z)"),
}
PARAMETRIZED = PARAMETRIZED_ACTIVATIONS


@functools.lru_cache(maxsize=256)
def activation(spec: str) -> Activation:
    """The activation named by `spec`: a built-in name (with `:params`) or a whitelisted formula in z."""
    if isinstance(spec, Activation):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInput("activation must be a non-empty string (a name or a formula in z)")
    spec = spec.strip()
    name, _, argument = spec.partition(":")
    if name in BUILTINS and not argument:
        expression, numpy_function, description = BUILTINS[name]
        return from_expression(expression, name=name, numpy_function=numpy_function, description=description,
                               value_and_derivative=_PAIRS.get(name))
    if name == "leaky_relu":
        slope = parse_number(argument) if argument else sympy.Rational(1, 100)
        expression = sympy.Max(z, 0) + slope * sympy.Min(z, 0)
        return from_expression(expression, name=f"leaky_relu:{argument or '0.01'}",
                               numpy_function=_leaky_relu(slope), description=f"max(z,0) + {slope} min(z,0)")
    if name == "poly":
        if not argument:
            raise InvalidInput("poly needs coefficients, e.g. poly:0,1,0.5 for z + z**2/2")
        coefficients = [parse_number(part) for part in argument.split(",")]
        expression = sum(c * z**k for k, c in enumerate(coefficients))
        return from_expression(expression, name=spec, description=str(expression))
    if name in BUILTINS:
        raise InvalidInput(f"activation {name!r} takes no parameter (got {argument!r})")
    if ":" in spec or (spec.isidentifier() and spec != "z"):
        raise UnknownName(f"unknown activation {spec!r}; built-ins are {', '.join(builtin_names())}, "
                          f"or give a formula in z such as 'tanh(z) + 0.1*z**2'")
    return from_expression(parse_formula(spec), name=spec, description="user formula")


def unbounded_derivative(sigma: Activation, order: int, *, allow_kinks: bool = False) -> str | None:
    """None when sigma is smooth with sigma', ..., sigma^(order) bounded on the real line, else why not.
    With `allow_kinks`, piecewise derivatives are probed instead (order 1: Lipschitz, as for relu).

    Deterministic probe: the derivatives' largest magnitude on |z| in [100, 200] may not exceed twice
    their largest magnitude on [-20, 20] (any polynomial growth fails this; tanh, erf, sigmoid,
    softplus and GELU pass).
    """
    if sigma.kinks and not allow_kinks:
        return (f"{sigma.name} is not smooth (kinks at {', '.join(map(str, sigma.kinks))}), so it has no "
                f"bounded derivatives of order 1..{order}")
    inner = np.linspace(-20, 20, 801)
    outer = np.concatenate([np.linspace(-200, -100, 101), np.linspace(100, 200, 101)])
    for k in range(1, order + 1):
        derivative = sigma.derivative(k)
        with np.errstate(all="ignore"):
            near, far = np.abs(derivative(inner)), np.abs(derivative(outer))
        if not (np.all(np.isfinite(near)) and np.all(np.isfinite(far))) or far.max() > 2 * max(near.max(), 1e-12):
            return f"the derivative of order {k} of {sigma.name} is unbounded"
    return None
