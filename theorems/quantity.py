"""A derived number: its value, the route that produced it (exact, mpmath, float64, or a user's override or a
mutant's change), its exact sympy form where one exists, and its accuracy in digits; and `combine`, which computes one
from others by a formula valid for sympy and mpmath numbers alike, exact when every part is.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import sympy

from theorems.formula import to_mpf


@dataclass(frozen=True, kw_only=True)
class Quantity:
    """A number with the route that produced it, its exact sympy form if any, and its accuracy."""

    name: str
    value: mpmath.mpf
    route: str
    digits: int
    exact: sympy.Expr | None = None

    def __post_init__(self):
        if isinstance(self.value, (int, float)):  # a float64 result: hold it as an mpf (exactly), as every route does
            object.__setattr__(self, "value", mpmath.mpf(self.value))

    @classmethod
    def exactly(cls, name: str, value, digits: int) -> "Quantity":
        """A constant known in closed form (a sympy number, int or rational): route "exact", value to `digits`."""
        value = sympy.Integer(value) if isinstance(value, int) else value
        return cls(name=name, value=to_mpf(value, digits), route="exact", digits=digits, exact=value)

    def decimal(self, digits: int | None = None) -> str:
        return decimal_string(self.value, digits or self.digits)

    def __float__(self) -> float:
        return float(self.value)


def decimal_string(value: mpmath.mpf, digits: int) -> str:
    """`value` to `digits` significant digits, trailing zeros kept (0 as "0")."""
    if value == 0:
        return "0"
    return mpmath.nstr(value, digits, strip_zeros=False, min_fixed=-4, max_fixed=digits)


def combine(name: str, digits: int, parts: list[Quantity], formula) -> Quantity:
    """A Quantity computed from others by `formula` (arithmetic and `**`, valid for sympy and mpmath
    numbers alike): exact when every part is exact, else numeric with the weakest route of its parts
    ("override" and "mutant" parts pass their label on)."""
    routes = {part.route for part in parts}
    route = next((label for label in ("mutant", "override", "float64", "mpmath") if label in routes), "exact")
    if route in ("mutant", "override") and any(part.exact is None for part in parts):
        exact = None
    else:
        exact = formula(*[part.exact for part in parts]) if all(part.exact is not None for part in parts) else None
    with mpmath.workdps(digits + 10):
        value = to_mpf(exact, digits) if exact is not None else formula(*[part.value for part in parts])
    if route in ("exact", "override") and exact is not None:
        exact = sympy.simplify(exact) if route == "exact" else exact
    return Quantity(name=name, value=value, route=route, digits=digits, exact=exact)
