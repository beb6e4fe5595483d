"""A sweep's verdict: at each point, each prediction's seeds pooled, in groups just large enough to resolve its
claim, where the test allows it; read seed by seed (the worst) where it does not.

Seeds at one point (the same parameters, version, fidelity, false-fail rate and backend) are independent runs of
one design. Where every seed read a prediction as one Monte Carlo estimate of the same quantity (`pools`: not an
exact reading, nor a claim at every size read at its worst size), not a strict inequality (which each seed decides
by its own margin), against the same target and resolution, a group of seeds pools into one estimate: the
samples-weighted mean, its standard error sqrt(sum (w_i se_i)^2) with weights w_i summing to one, Welch and
Satterthwaite's degrees of freedom, and the systematic bound sum w_i b_i (the most a weighted mean of readings each
biased by at most b_i can be). Samples weight the mean, not the estimated standard errors, so the weights do not
depend on the readings' own noise. A group is compared to the target by the engine's one comparison
(`checkers.stats.compare_to_target`) at the false-fail rate of one stage's comparison in a run: each seed's reading
is the stage its run stopped at, chosen by what it read, and a group of one seed then reads as that run did.

Why groups, and not all the seeds at once (docs/derivations/statistics.md#pooling-seeds): a check vouches for its
readings' bias at the precision its own design reaches, so k seeds pooled at once would turn a finite-size bias no
run sees into a failure. The seeds, ordered by their seed values (the same order on any executor), are split into
consecutive groups of the fewest seeds at which every group's pooled reading resolves the claim, chosen from the
standard errors alone, the remainder joining the last group; where no smaller size does, all of them form one group.
The prediction fails at the point where a group fails, passes where a group passes and none fails, and is
inconclusive otherwise.

Otherwise the point's outcome for that prediction is the worst seed's (`checkers.outcome.pooled_outcome`), and the
verdict says why it was not pooled.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from checkers.outcome import ERROR, FAIL, INCONCLUSIVE, OUTSIDE, PASS, SKIPPED, overall_outcome, pooled_outcome
from checkers.stats import Comparison, Estimate, compare_to_target, welch_freedom
from checkers.verdict import PredictionResult, Verdict, json_safe

POOLED, PER_SEED = "seeds pooled", "worst seed"  # the two ways a prediction's outcome at a point is reached
COMPARED = (PASS, FAIL, INCONCLUSIVE)


@dataclass(frozen=True)
class Group:
    """One group of seeds pooled into one reading, and its comparison with the target."""

    seeds: int
    estimate: Estimate
    comparison: Comparison
    members: tuple[int, ...] = ()  # the seeds of the runs pooled, where given

    def to_dict(self) -> dict:
        return json_safe({"seeds": self.seeds, "members": list(self.members), "outcome": str(self.comparison.outcome),
                          "observed": self.estimate.value, "standard_error": self.estimate.standard_error,
                          "systematic": self.estimate.systematic,
                          "degrees_of_freedom": self.estimate.degrees_of_freedom,
                          "samples": self.estimate.samples, "detectable": self.comparison.detectable})


@dataclass(frozen=True)
class PooledPrediction:
    """One prediction at one point over its seeds: the outcome, how it was reached (its pooled groups, or why it was
    not pooled), and the seeds' own outcomes."""

    name: str
    outcome: str
    per_seed: dict[str, int]
    why_not_pooled: str = ""
    groups: tuple[Group, ...] = ()
    resolution: float | None = None
    predicted_interval: tuple[float, float] | None = None

    @property
    def group_size(self) -> int:
        """The seeds a pooled group takes (the last may hold a few more); 0 where not pooled."""
        return self.groups[0].seeds if self.groups else 0

    def describe(self) -> str:
        """How the outcome was reached, in words."""
        if not self.groups:
            return f"{PER_SEED}: {self.why_not_pooled}"
        if self.group_size == 1:
            return "each seed resolves it alone: read seed by seed, decided where none fails"
        return (f"{POOLED} in {len(self.groups)} group{'s' if len(self.groups) > 1 else ''} of {self.group_size}, "
                "the fewest at which every group resolves it")

    def to_dict(self) -> dict:
        data = {"prediction": self.name, "outcome": str(self.outcome), "how": self.describe(),
                "per_seed": dict(self.per_seed)}
        if self.groups:
            data |= {"resolution": self.resolution, "predicted_interval": list(self.predicted_interval),
                     "groups": [group.to_dict() for group in self.groups]}
        return json_safe(data)


@dataclass(frozen=True)
class PointVerdict:
    """A point's verdict over its seeds: the outcome, each prediction's, and the seeds' own outcomes."""

    parameters: dict
    seeds: int
    outcome: str
    per_seed: dict[str, int]
    predictions: tuple[PooledPrediction, ...] = field(default_factory=tuple)
    key: str = ""  # its runs' `point_key`, where pooled from several points' runs

    @property
    def pooled(self) -> bool:
        """Whether any prediction here was read on seeds pooled in groups of more than one."""
        return any(p.group_size > 1 for p in self.predictions)

    def to_dict(self) -> dict:
        return {"parameters": self.parameters, "seeds": self.seeds, "outcome": str(self.outcome),
                "per_seed": dict(self.per_seed), "predictions": [p.to_dict() for p in self.predictions]}


def why_not_pooled(results: list[PredictionResult]) -> str:
    """Why these seeds' readings of one prediction cannot be pooled ("" where they can)."""
    if len(results) < 2:
        return "one seed"
    if any(r.outcome not in COMPARED for r in results):
        return "a seed did not compare it"
    if any(r.tolerance is not None for r in results):
        return "its reading is exact (a computed value or a search's extreme), which seeds do not average"
    if any(r.pools is None or r.stage_false_fail_rate is None for r in results):
        return "a seed was stored before runs recorded whether their readings pool"
    if not all(r.pools for r in results):
        return "it is claimed at every size and read at the size nearest failing, which seeds do not average"
    if any(r.strict for r in results):
        return "it is a strict inequality, which each seed decides by its own margin"
    if any(r.standard_error is None or not math.isfinite(r.standard_error) or r.standard_error <= 0
           or r.observed is None or not math.isfinite(r.observed) for r in results):
        return "a seed's reading has no finite standard error"
    if len({(tuple(r.predicted_interval or ()), r.resolution, r.stage_false_fail_rate) for r in results}) > 1:
        return "the seeds' targets, resolutions or false-fail rates differ"
    return ""


def pooled_estimate(results: list[PredictionResult]) -> Estimate:
    """The seeds' readings as one estimate, weighted by their samples (the module docstring)."""
    samples = np.array([r.samples or 1 for r in results], dtype=np.float64)
    weights = samples / samples.sum()
    values = np.array([r.observed for r in results], dtype=np.float64)
    errors = np.array([r.standard_error for r in results], dtype=np.float64)
    bounds = np.array([r.systematic or 0.0 for r in results], dtype=np.float64)
    terms = [float(term) for term in weights * errors]
    freedom = welch_freedom(terms, [math.inf if r.degrees_of_freedom is None else r.degrees_of_freedom
                                    for r in results])
    return Estimate(float(weights @ values), math.sqrt(sum(term**2 for term in terms)),
                    math.inf if freedom is None else float(freedom), int(samples.sum()),
                    f"{len(results)} seeds pooled", float(weights @ bounds))


def _compared(results: list[PredictionResult], members: tuple[int, ...] = ()) -> Group:
    first = results[0]
    estimate = pooled_estimate(results)
    comparison = compare_to_target(estimate, *first.predicted_interval, false_fail_rate=first.stage_false_fail_rate,
                                   resolution=first.resolution)
    return Group(len(results), estimate, comparison, members)


def groups_of(results: list, size: int) -> list[list]:
    """The results in consecutive groups of `size`, the remainder joining the last group."""
    count = max(len(results) // size, 1)
    bounds = [index * size for index in range(count)] + [len(results)]
    return [results[start:stop] for start, stop in zip(bounds, bounds[1:])]


def group_size(results: list[PredictionResult]) -> int:
    """The fewest seeds per group at which every group resolves the claim (all of them where no smaller size does):
    read from the standard errors alone, since a comparison's detectable discrepancy does not depend on the value."""
    resolution = results[0].resolution
    return next((size for size in range(1, len(results))
                 if all(_compared(group).comparison.detectable <= resolution
                        for group in groups_of(results, size))), len(results))


def pool_prediction(name: str, results: list[PredictionResult], seeds: tuple[int, ...] = ()) -> PooledPrediction:
    """One prediction's outcome at one point from its seeds' results, given in the order of their `seeds` (named in
    each group, where given)."""
    per_seed = dict(Counter(str(r.outcome) for r in results))
    reason = why_not_pooled(results)
    if reason:
        return PooledPrediction(name, pooled_outcome(r.outcome for r in results), per_seed, reason)
    size = group_size(results)
    members = groups_of(list(seeds), size) if seeds else [()] * len(groups_of(results, size))
    groups = tuple(_compared(group, tuple(seeds_of)) for group, seeds_of in zip(groups_of(results, size), members))
    outcomes = {group.comparison.outcome for group in groups}
    outcome = FAIL if FAIL in outcomes else PASS if PASS in outcomes else INCONCLUSIVE
    return PooledPrediction(name, outcome, per_seed, "", groups, results[0].resolution,
                            tuple(results[0].predicted_interval))


def pool_point(verdicts: list[Verdict]) -> PointVerdict:
    """The verdict of one point's seeds (same parameters and version): outside the assumptions and an error in any
    seed stand as they are; otherwise each prediction pooled (`pool_prediction`) and the check's outcome read from
    theirs as one run's is (`checkers.outcome.overall_outcome`)."""
    per_seed = dict(Counter(str(v.outcome) for v in verdicts))
    parameters = dict(verdicts[0].parameters)
    if any(v.outcome == ERROR or v.error for v in verdicts):
        return PointVerdict(parameters, len(verdicts), ERROR, per_seed)
    verdicts = sorted(verdicts, key=lambda verdict: verdict.seed)  # the grouping's order: the same on any executor
    names = list(dict.fromkeys(p.name for v in verdicts for p in v.predictions))
    predictions = []
    for name in names:
        applied = [(v.seed, p) for v in verdicts for p in v.predictions if p.name == name and p.outcome != SKIPPED]
        if applied:
            predictions.append(pool_prediction(name, [p for _, p in applied], tuple(seed for seed, _ in applied)))
    if any(v.outcome == OUTSIDE for v in verdicts):
        return PointVerdict(parameters, len(verdicts), OUTSIDE, per_seed, tuple(predictions))
    if not predictions:  # nothing applied here: nothing was under-resolved either
        return PointVerdict(parameters, len(verdicts), SKIPPED, per_seed)
    outcome = overall_outcome((p.outcome for p in predictions), assumptions_hold=True)
    return PointVerdict(parameters, len(verdicts), outcome, per_seed, tuple(predictions))


def point_key(verdict: Verdict) -> str:
    """What makes seeds runs of one design: the theorem, parameters, version, fidelity, false-fail rate and backend."""
    return json.dumps([verdict.theorem, verdict.parameters, verdict.overrides, verdict.mutant, verdict.fidelity,
                       verdict.false_fail_rate, verdict.backend], sort_keys=True, default=str)


def pool_points(verdicts: Iterable[Verdict]) -> list[PointVerdict]:
    """Each point's verdict over its seeds, in the order the points first appear."""
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        groups[point_key(verdict)].append(verdict)
    return [replace(pool_point(group), key=key) for key, group in groups.items()]


def sweep_outcome(points: list[PointVerdict]) -> str:
    """A version's outcome over its points, each pooled over its seeds: an error where a seed raised one, else fail
    where a point fails, pass where every point passes (`checkers.outcome.pooled_outcome`), points where nothing
    applied aside ("not applicable" where nothing applied anywhere)."""
    if any(p.outcome == ERROR for p in points):
        return ERROR
    applied = [p.outcome for p in points if p.outcome != SKIPPED]
    return pooled_outcome(applied) if applied or not points else SKIPPED


def how_read(points: list[PointVerdict]) -> str:
    """In words, how the points' verdicts were reached: seeds pooled at how many points, the worst seed elsewhere."""
    several = [p for p in points if p.seeds > 1]
    if not several:
        return "one seed per point"
    pooled = sum(p.pooled for p in several)
    if pooled == len(several):
        return f"{POOLED} at every point" if len(several) > 1 else POOLED
    if not pooled:
        return "no reading needed or allowed pooling: read seed by seed"
    return f"{POOLED} at {pooled} of {len(several)} points, read seed by seed at the others"
