"""What a user's formula may build once parsed: the parser bounds each integer power it reads by MAX_POWER, but nested
powers multiply, so ((z**64)**64)**64 parses to z**262144, whose expansion then runs out of memory, and
(((2**64)**64)**64)**64 to an integer that sympy cannot even print.

Where a user's activation formula enters (a parameter, `thmcheck hermite`), it is read through `bounded_activation`:
an integer power above MAX_POWER, a polynomial factor of degree above MAX_POWER, or a number of more than MAX_BITS
bits is the user's input, refused in one line (`InvalidInput`). (A number alone, `formula.parse_number`, is refused
where it is not a finite real.) The bound lives here, not in the parser, because the parser's module is part of
every calibration row's key (checkers/calibration_records.py): a change there stales the rows."""

from __future__ import annotations

import sympy

from theorems.activations import Activation, activation
from theorems.errors import InvalidInput
from theorems.formula import MAX_POWER, z

MAX_BITS = 4096  # 2**4096, 1234 digits: (2**64)**64 is the first nested power past it


def size_failure(expression: sympy.Expr) -> str | None:
    """Why `expression` is too large to work with, or None."""
    for power in expression.atoms(sympy.Pow):
        if not power.exp.is_Integer:
            continue
        exponent = abs(int(power.exp))
        if power.base.has(z) and power.base.is_polynomial(z):
            degree = exponent * int(sympy.degree(power.base, z))
            if degree > MAX_POWER:
                return f"it builds a polynomial of degree {degree}, above {MAX_POWER}"
        elif exponent > MAX_POWER:
            return f"it builds the power {exponent} of {power.base}, above {MAX_POWER}"
    for number in expression.atoms(sympy.Rational):
        if max(abs(int(number.p)).bit_length(), int(number.q).bit_length()) > MAX_BITS:
            return f"it builds a number of more than {MAX_BITS} bits"
    return None


def _refused(text: str, why: str) -> InvalidInput:
    return InvalidInput(f"formula {text!r}: {why}; nested powers multiply, and each is limited to {MAX_POWER}")


def bounded_activation(spec: str | Activation) -> Activation:
    """`activations.activation(spec)`, refused where the formula builds powers or numbers too large to work with."""
    if isinstance(spec, Activation):
        return spec
    try:
        sigma = activation(spec)
    except ValueError as error:  # sympy's own refusal of a huge integer (InvalidInput is a ValueError too)
        if isinstance(error, InvalidInput):
            raise
        raise _refused(str(spec), "it builds a number too large to hold") from None
    why = size_failure(sigma.expression)
    if why:
        raise _refused(str(spec), why)
    return sigma
