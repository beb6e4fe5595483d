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
from checkers.stats import Estimate, extrapolate_limit, extrapolation_fit

CONTRACTION = 0.5
MODEL_REJECTION = 1e-3  # a finite-size model whose chi-square p-value falls below this is rejected


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


def checked_extrapolation(sizes, estimates: list[Estimate], *, exponent: float, what: str,
                          size_name: str = "d") -> Estimate:
    """The limit L of value(size) = L + B size^-exponent from estimates at three or more sizes, after a chi-square
    check of that model on them (`checkers.stats.extrapolation_fit`): a model the estimates reject (p below
    MODEL_REJECTION) leaves the reading unresolved, since its limit would not be evidence. The evidence names each
    size's estimate."""
    described = "; ".join(f"{size_name} = {size}: {e.value:+.5g} +- {e.standard_error:.2g} ({e.samples} draws)"
                          for size, e in zip(sizes, estimates))
    model = f"L + B {size_name}^-{exponent:.3g}"
    p_value = extrapolation_fit(sizes, estimates, exponent=exponent)
    if p_value < MODEL_REJECTION:
        raise Unresolved(f"{what} does not follow {model} across the sizes (chi-square p = {p_value:.2g}): "
                         f"{described}")
    return extrapolate_limit(sizes, estimates, exponent=exponent, method=f"{what}: {described}; extrapolated as "
                                                                        f"{model}")
