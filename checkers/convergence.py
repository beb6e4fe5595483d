"""The accuracy of a limit read off a converging deterministic computation, with its convergence model checked.

A deterministic observation (GD run to a fixed point, local exponents or slopes as epsilon -> 0) is the last
term x_2 of a sequence x_0, x_1, x_2 that converges to the quantity the theorem speaks of. The model: its changes
shrink at least geometrically from here on, each at most CONTRACTION times the one before. It is checked where it
can be, not assumed: the observed ratio q = |x_2 - x_1| / |x_1 - x_0| must be at most CONTRACTION (else the
reading is unresolved: the sequence has not reached its geometric regime, and a finer computation would resolve
it). Under the model what remains is at most |x_2 - x_1| CONTRACTION / (1 - CONTRACTION), the last change itself:
the observed q is one pair's ratio, and later ratios may be larger (peak-alignment's local exponents at 16 points
showed ratios 0.19, 0.24, 0.26, so the tail with q = 0.19 came out below the distance that remained). A change
already below the computation's own accuracy `floor` (round-off, grid spacing) means the sequence has settled;
then `floor` is the accuracy. The accuracy is thus a stated bound under a checked model.

A Monte Carlo limit read across sizes is extrapolated in a finite-size model L + B size^-e with e only bounded
(`bounded_extrapolation`): the spread of the limits the sizes accept is the reading's systematic bound, and the
comparison weighs it against the resolution. No reading states its exponent.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from checkers.checker import Unresolved
from checkers.stats import Estimate, extrapolate_limit, extrapolation_fit

CONTRACTION = 0.5
MODEL_REJECTION = 1e-3  # a finite-size model whose fit p-value (`extrapolation_fit`) falls below this is rejected
EXPONENT_GRID = 49  # exponents tried between the bounds of `bounded_extrapolation`, evenly spaced in log
# A derivation names its leading correction, of order eps (eps = n^(2 alpha - 1), 1/d, ...). The orders next to it
# are eps^(1/2) (a fluctuation, or a shift of the preactivations: n^(alpha - 1/2) beside n^(2 alpha - 1)) and eps^2
# (the leading term cancelling), so the exponent is bounded within this factor of the derived one either way.
EXPONENT_FACTOR = 2.0
# Below this exponent a correction shrinks by under 10% across a factor eight in size (7% across a factor four):
# its limit and its coefficient cannot be told apart, and the reading is refused rather than left to a huge bound.
SLOWEST_EXPONENT = 0.05
UNIT_ROUNDOFF = 2.0**-53  # float64's unit round-off u, for the bounds of rounding the checks state


def settled_limit(earlier: float, previous: float, last: float, *, floor: float, what: str) -> tuple[float, float]:
    """(last, a bound on |limit - last|) for the three last terms of a converging sequence. `floor`, the
    computation's own accuracy, is a size: a negative one is a bug (it once subtracted from the bound)."""
    if not floor >= 0:
        raise ValueError(f"{what}: the accuracy floor must be a non-negative size, not {floor!r}")
    first, second = abs(previous - earlier), abs(last - previous)
    if second <= floor:
        return last, floor
    ratio = second / first if first > 0 else math.inf
    if ratio > CONTRACTION:
        raise Unresolved(f"{what} has not settled: its last changes are {first:.3g} then {second:.3g} (ratio "
                         f"{ratio:.2f} > {CONTRACTION}, not yet geometric); a higher fidelity would resolve it")
    return last, second * CONTRACTION / (1 - CONTRACTION) + floor


def _described(sizes, estimates: list[Estimate], size_name: str) -> str:
    """Each size's estimate, for the evidence of an extrapolation."""
    return "; ".join(f"{size_name} = {size}: {e.value:+.5g} +- {e.standard_error:.2g} ({e.samples} draws)"
                     for size, e in zip(sizes, estimates))


def require_decaying_correction(exponent: float, sizes, *, what: str, size_name: str = "d",
                                described: str = "") -> None:
    """Unresolved where a correction of order size^-exponent hardly decays across the sizes (exponent below
    SLOWEST_EXPONENT): a reader may call it before drawing anything."""
    if exponent < SLOWEST_EXPONENT:
        raise Unresolved(f"{what}: the derived correction, of order {size_name}^-{exponent:.3g}, hardly decays across "
                         f"{size_name} = {min(sizes)}..{max(sizes)}, so no limit can be extrapolated"
                         + (f": {described}" if described else ""))


def require_small_expansion_parameter(value: float, *, what: str, parameter: str, where: str) -> None:
    """Unresolved where the parameter of the expansion behind a finite-size model exceeds CONTRACTION at the
    smallest size: the corrections, a series in it, do not yet fall off geometrically there (the ratio test that
    `settled_limit` applies to a sequence), so no single power L + B size^-e describes them and an extrapolation's
    bounds need not bracket the limit."""
    if value > CONTRACTION:
        raise Unresolved(f"{what}: {parameter} is {value:.2g} at {where}, above {CONTRACTION}: the corrections, a "
                         "series in it, do not yet fall off geometrically across the sizes, so no limit can be "
                         "extrapolated from them (larger sizes would resolve it)")


def with_round_off(estimate: Estimate) -> Estimate:
    """The estimate with its standard error at least samples x u x |value|, the worst-case float64 rounding of the
    mean of `samples` values (u = 2^-53). Draws that agree to their last bits (eta = 0 in srf-constants: the bulk
    inflation is 1 on every draw, to an ulp) have a standard error near 1e-17, below the rounding that sets their
    sizes' means apart by an ulp or two; a chi-square on those would reject every finite-size model. Monte Carlo
    standard errors lie many orders above the floor, which leaves them as they are."""
    floor = estimate.samples * UNIT_ROUNDOFF * abs(estimate.value)
    if not 0 < estimate.standard_error < floor:  # a standard error of zero stays the caller's error to refuse
        return estimate
    return replace(estimate, standard_error=floor)


def bounded_extrapolation(sizes, estimates: list[Estimate], *, exponent: float, what: str, size_name: str = "d",
                          bounds: tuple[float, float] | None = None) -> Estimate:
    """The limit L of value(size) = L + B size^-e, read at the derivation's exponent e = `exponent` with e only
    bounded, bounds[0] <= e <= bounds[1] (by default within EXPONENT_FACTOR of `exponent` either way), from
    estimates at three or more sizes. An exponent below SLOWEST_EXPONENT leaves the reading unresolved.

    Each exponent of a grid over the bounds is fitted by weighted least squares and its fit checked
    (`checkers.stats.extrapolation_fit`); the exponents whose p-value is at least MODEL_REJECTION are the models
    the sizes accept. The reading is the limit at the derivation's exponent where the sizes accept it, else at the
    best-fitting accepted one, with that fit's standard error; its `systematic` bound is the farthest any accepted
    model's limit lies from it. What the sizes cannot tell apart thus enters the test, and a comparison passes only
    where that spread is small against the resolution. (Reading the best-fitting exponent's limit instead is biased:
    the choice follows the noise, docs/derivations/equivalence.md#srf-constants.) Estimates that reject every
    exponent in the bounds leave the reading unresolved. No standard error is taken below the rounding of the mean
    it belongs to (`with_round_off`), so readings equal to round-off, as at a step of zero, are not told apart by
    their last bits."""
    estimates = [with_round_off(estimate) for estimate in estimates]
    require_decaying_correction(exponent, sizes, what=what, size_name=size_name,
                                described=_described(sizes, estimates, size_name))
    lower, upper = bounds if bounds is not None else (exponent / EXPONENT_FACTOR, exponent * EXPONENT_FACTOR)
    if len(estimates) < 3 or len(set(sizes)) < 3:
        raise ValueError("a bounded extrapolation needs estimates at three or more distinct sizes")
    if not 0 < lower <= exponent <= upper:
        raise ValueError(f"need 0 < lower <= exponent <= upper, got {exponent} within {bounds}")
    described = _described(sizes, estimates, size_name)
    model = f"L + B {size_name}^-e, {lower:.3g} <= e <= {upper:.3g}"
    grid = sorted({exponent, *np.geomspace(lower, upper, EXPONENT_GRID).tolist()})
    fits = {e: extrapolation_fit(sizes, estimates, exponent=e) for e in grid}
    accepted = [e for e in grid if fits[e] >= MODEL_REJECTION]
    if not accepted:
        best = max(grid, key=fits.get)
        raise Unresolved(f"{what} does not follow {model} across the sizes (best fit p = {fits[best]:.2g}, at "
                         f"e = {best:.3g}): {described}")
    limits = {e: extrapolate_limit(sizes, estimates, exponent=e) for e in accepted}
    read = exponent if exponent in limits else max(accepted, key=fits.get)
    reading = limits[read]
    spread = max(abs(limit.value - reading.value) for limit in limits.values())
    return replace(reading, systematic=spread, method=(
        f"{what}: {described}; extrapolated as {model}, read at e = {read:.3g} (fit p = {fits[read]:.2g}); "
        f"the sizes accept e in [{min(accepted):.3g}, {max(accepted):.3g}], whose limits lie within {spread:.2g} "
        "of it"))
