"""Assumptions on an activation parameter that statements of several families need: square-integrable under N(0, 1),
and not constant."""

from __future__ import annotations

import functools

import sympy

from theorems.activations import Activation
from theorems.formula import z
from theorems.statement import Assumption


def square_integrable(parameter: str = "activation", symbol: str = "sigma") -> Assumption:
    """E sigma(Z)^2 < infinity, by `theorems.hermite.square_integrability_failure`'s tail test: the second moments
    a statement is built on exist."""
    from theorems.hermite import square_integrability_failure

    return Assumption(name=f"square-integrable-{parameter}", statement=f"E {symbol}(Z)^2 < infinity",
                      check=lambda instance: square_integrability_failure(instance[parameter]))


@functools.lru_cache(maxsize=256)
def constancy(sigma: Activation) -> str | None:
    """The reason sigma is constant (its derivative simplifies to 0: a proof, for the formula language's continuous,
    piecewise-smooth functions), or None."""
    if sympy.simplify(sympy.diff(sigma.expression, z)) == 0:
        return f"{sigma.name} is constant, so the step moves no weight and every feature is the same number"
    return None


def not_constant(parameter: str = "activation", symbol: str = "sigma") -> Assumption:
    """sigma is not constant: a constant activation's gradient is exactly 0, so there is no spike, remainder or
    feature change to measure, and every draw reads the same value."""
    return Assumption(name=f"non-constant-{parameter}", statement=f"{symbol} is not constant",
                      check=lambda instance: constancy(instance[parameter]))
