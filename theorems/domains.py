"""What the engine accepts, importable without sympy or scipy: the built-in activation names, the Hermite routes,
degrees and digits. The command line offers these before any numerics load; `theorems.activations` and
`theorems.hermite` enforce them."""

from __future__ import annotations

#: the built-in activations that take no parameter, in the order they are listed
BUILTIN_ACTIVATIONS = ("relu", "abs", "tanh", "erf", "sigmoid", "softplus", "gelu", "silu")
#: the built-ins with a parameter, and how to write them
PARAMETRIZED_ACTIVATIONS = {
    "leaky_relu": "leaky_relu:SLOPE, max(z, 0) + SLOPE min(z, 0) (SLOPE defaults to 0.01)",
    "poly": "poly:a0,a1,...,aK, the polynomial a0 + a1 z + ... + aK z^K",
}

HERMITE_ROUTES = ("auto", "exact", "mpmath", "float64")
MAX_DEGREE = 400
MAX_DIGITS = 1000


def builtin_names() -> list[str]:
    return [*BUILTIN_ACTIVATIONS, *PARAMETRIZED_ACTIVATIONS]
