"""The accuracy of a limit read off a converging deterministic computation, with its convergence model checked.

A deterministic observation (GD run to a fixed point, local exponents or slopes as epsilon -> 0) is the last
term x_2 of a sequence x_0, x_1, x_2 that converges to the quantity the theorem speaks of. If the changes shrink
geometrically, |x_2 - x_1| = q |x_1 - x_0| with q < 1, what remains is at most |x_2 - x_1| q / (1 - q). That
model is checked, not assumed: q must be at most CONTRACTION (else the reading is unresolved: the sequence has
not reached its geometric regime, and a finer computation would resolve it). A change already below the
computation's own accuracy `floor` (round-off, grid spacing) means the sequence has settled; then `floor` is the
accuracy. The accuracy is thus a stated bound under a verified model, never a multiple of the last change.
"""

from __future__ import annotations

import math

from checkers.check import Unresolved

CONTRACTION = 0.5


def settled_limit(earlier: float, previous: float, last: float, *, floor: float, what: str) -> tuple[float, float]:
    """(last, a bound on |limit - last|) for the three last terms of a converging sequence."""
    first, second = abs(previous - earlier), abs(last - previous)
    if second <= floor:
        return last, floor
    ratio = second / first if first > 0 else math.inf
    if ratio > CONTRACTION:
        raise Unresolved(f"{what} has not settled: its last changes are {first:.3g} then {second:.3g} (ratio "
                         f"{ratio:.2f} > {CONTRACTION}, not yet geometric); a higher fidelity would resolve it")
    return last, second * ratio / (1 - ratio) + floor
