"""Which sequential stage a prediction reads next, judged from the stage just read before any later one is drawn.

The sequential design reads a prediction in stages of growing budget and stops at the first conclusive one. The budget
follows the resolution: after an inconclusive stage, the next stage read is the first one expected to decide the
prediction, one way or the other, and the stages before it are skipped:

- pass: the least discrepancy that stage could detect is within the resolution (for a strict inequality, the reading's
  margin could clear its critical multiple of that stage's standard error);
- fail: the reading lies far enough outside the predicted interval that that stage could reject the claim.

"Expected" scales this stage's standard error by the square root of the ratio of the two stages' declared work. Where
no stage is expected to decide, the last is read if it still might; where not even the last might, no stage is drawn
and the prediction stays inconclusive at once, naming the fidelity that resolves it as before. "Might" leans toward
going on, so that a stop takes away no outcome the full design would plausibly reach: the last stage's standard error
is this stage's at the lower end of its 99.9% interval (chi-square on its degrees of freedom), scaled by the work; a
systematic bound is taken as gone, since a larger budget may remove it; the critical value is the normal one, below
Student's; and the reading may lie MARGIN of its own standard errors farther from the claim than it does.

Scaling by 1/sqrt(work) is right where a checker's declared cost (`Checker.cost`, per stage from
`checkers.cost.over_stages`) is the work of its draws, each counted, with no fixed part: more draws at the same sizes
shrink a standard error exactly so, and larger sizes buy precision at a higher price (a draw's work grows like d^3,
its variance falls like 1/d at best). A checker that declares no cost reads every stage in turn, as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import scipy.special

from checkers.stats import Estimate, allowance, critical_value, detectable_discrepancy, distance_outside

LOWER_LEVEL = 1e-3   # a standard error is taken no larger than the lower end of its 1 - LOWER_LEVEL interval
MARGIN = 1.0         # standard errors of the reading by which it may lie nearer to failing than observed


def standard_error_floor(estimate: Estimate, work_ratio: float, *, lower_end: bool = True) -> float:
    """The standard error a stage of `work_ratio` times this stage's work can be expected to give: this estimate's
    divided by sqrt(work_ratio), and at its least (`lower_end`) taken at the lower end of its two-sided
    1 - LOWER_LEVEL interval first."""
    degrees = estimate.degrees_of_freedom
    shrink = 1.0 if math.isinf(degrees) or not lower_end else math.sqrt(
        degrees / scipy.special.chdtri(degrees, LOWER_LEVEL / 2))
    return estimate.standard_error * shrink / math.sqrt(work_ratio)


def _could_pass(part: Estimate, lower: float, upper: float, *, rate: float, resolution: float, floor: float,
                strict: bool) -> bool:
    if strict:
        return part.value - lower + MARGIN * part.standard_error > critical_value(rate) * floor
    width = upper - lower if math.isfinite(upper - lower) else 0.0
    best = width + allowance(replace(part, systematic=0.0), lower, upper) + detectable_discrepancy(floor, math.inf,
                                                                                                  rate)
    return best <= resolution


def _could_fail(part: Estimate, lower: float, upper: float, *, rate: float, floor: float) -> bool:
    return distance_outside(part.value, lower, upper) + MARGIN * part.standard_error > critical_value(rate) * floor


@dataclass(frozen=True)
class Plan:
    """The stage to read next (None: none, the prediction stays inconclusive) and why stages were left out."""

    next_stage: int | None
    note: str | None = None


def plan_next(estimate: Estimate, lower: float, upper: float, *, strict: bool, false_fail_rate: float,
              resolution: float, stage: int, stages: int, stage_work: tuple[float, ...]) -> Plan:
    """After an inconclusive reading at `stage` (0-based, of `stages`): the first later stage expected to decide the
    prediction (its standard error scaled by the work, `lower_end` off), else the last one where it still might
    (`lower_end` on: the test that stops), else none. Where the work of the stages is not declared, the next stage.
    `false_fail_rate` is what each stage's test spends, split over an estimate's parts as
    `checkers.stats.compare_to_target` splits it."""
    following = Plan(stage + 1 if stage + 1 < stages else None)
    parts = estimate.parts or (estimate,)
    if (following.next_stage is None or len(stage_work) < stages or not stage_work[stage] > 0
            or not all(part.degrees_of_freedom > 0 and math.isfinite(part.standard_error) for part in parts)):
        return following
    rate = false_fail_rate / len(parts)

    def decides(later: int, lower_end: bool) -> bool:
        floors = [standard_error_floor(part, stage_work[later] / stage_work[stage], lower_end=lower_end)
                  for part in parts]
        return (any(_could_fail(part, lower, upper, rate=rate, floor=floor) for part, floor in zip(parts, floors))
                or all(_could_pass(part, lower, upper, rate=rate, resolution=resolution, floor=floor, strict=strict)
                       for part, floor in zip(parts, floors)))
    last = stages - 1
    if not decides(last, lower_end=True):
        floor = max(standard_error_floor(part, stage_work[last] / stage_work[stage]) for part in parts)
        reach = (f"its margin could not clear {critical_value(rate):.3g} standard errors of at least {floor:.3g}"
                 if strict else f"it could detect no discrepancy below "
                                f"{detectable_discrepancy(floor, math.inf, rate):.3g}, against the resolution "
                                f"{resolution:.3g}")
        return Plan(None, f"{_named(stage + 1, last)} not drawn: at {stage_work[last] / stage_work[stage]:.3g} "
                          f"times this stage's work the last one's standard error would be at least {floor:.3g}, so "
                          f"{reach}, and the reading lies too near the claim for it to fail"
                          + ("" if strict else _needed(parts, lower, upper, rate, resolution)))
    expected = next((later for later in range(stage + 1, stages) if decides(later, lower_end=False)), None)
    chosen = last if expected is None else expected
    if chosen == stage + 1:
        return following
    why = (f"expected to decide it only at stage {chosen + 1}" if expected is not None
           else "only the last stage might decide it")
    ratio = stage_work[chosen] / stage_work[stage]
    return Plan(chosen, f"{_named(stage + 1, chosen - 1)} skipped: {why}, at {ratio:.3g} times the work of stage "
                        f"{stage + 1}")


def _needed(parts, lower: float, upper: float, rate: float, resolution: float) -> str:
    """The work that would resolve the prediction, in units of this stage's: the least discrepancy detectable at this
    stage's standard error over what the resolution leaves beside the interval's width, squared (the expected scaling,
    as `checkers.stats.samples_needed` counts samples)."""
    width = upper - lower if math.isfinite(upper - lower) else 0.0
    room = min(resolution - width - allowance(replace(part, systematic=0.0), lower, upper) for part in parts)
    if room <= 0:
        return "; no budget resolves it: the predicted interval is as wide as the resolution"
    needed = max(detectable_discrepancy(part.standard_error, math.inf, rate) for part in parts) / room
    return f"; the resolution needs about {needed**2:.2g} times this stage's work"


def _named(first: int, last: int) -> str:
    """Stages first..last (0-based) in words, counted from 1."""
    return f"stage {first + 1}" if first == last else f"stages {first + 1}-{last + 1}"
