"""The check engine: one theorem at one point, from its claims table to a verdict, every row compared one way.

`run_check` builds the claims table (`Theorem.claims`: the tested claim and every mutant's, before any draw; bad
parameters or overrides raise `InvalidInput` before anything runs) and evaluates the assumptions (outside them the
predictions are still evaluated, so that a user sees what happens). Then, per prediction:

1. **claim**: whether it applies, its target interval and its resolution, from the tested row;
2. **measure**: the checker's reader, once per stage (`Checker.read`: a `Measurement`), in the fidelity's sequential
   stages, each at a larger budget, only while the previous one was inconclusive, at the stage `checkers.planning`
   expects to decide it; the tested row's observable pools it into a reading;
3. **compare**: the reading against the target (`checkers.stats`), and each mutant row the run can speak for
   (`Checker.observed_mutants`) through `mutant_power` on the same measurement: the power of this test against it.

The family false-fail rate is split (Bonferroni) over stochastic predictions x stages. An error raised in the claim
or the measurement ends that prediction as `ERRORS` says, by phase and by whether the point lies inside the
assumptions: a statement's or a reader's bug is re-raised as `CheckError` naming the theorem and the prediction,
never an inconclusive verdict; outside the assumptions, what the statement excludes may break the simulation down,
and that prediction is not evaluated, with the error.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from checkers import arrays, planning, stopping
from checkers.budget import DEFAULT_FALSE_FAIL_RATE, MAX_CHECK_MINUTES, Budget, Fidelity
from checkers.checker import Checker, Exact, Fitted, Measurement, Unresolved, not_a_number, stochastic
from checkers.cost import estimate, refusal
from checkers.offers import backend_for, fidelity_for
from checkers.outcome import FAIL, INCONCLUSIVE, SKIPPED, overall_outcome
from checkers.reasons import nearest_by_prediction
from checkers.seeds import seed_sequence
from checkers.stats import (
    Estimate,
    compare_exact,
    compare_to_target,
    distance_outside,
    power_beyond,
    split_false_fail_rate,
)
from checkers.threads import one_blas_thread
from checkers.verdict import PredictionResult, Verdict
from theorems.claims import ClaimsTable, Row
from theorems.errors import CheckError, DeclarationError, InvalidInput, NumericalError, ThmcheckError, WorkRefused
from theorems.statement import Prediction, Target

CLAIM, MEASURE = "claim", "measure"


class Settled(Exception):
    """A prediction's outcome reached before its comparison (skipped, inconclusive, not evaluated), with why."""

    def __init__(self, outcome: str, message: str):
        super().__init__(message)
        self.outcome, self.message = outcome, message


class Unmeetable(ValueError):
    """A resolution that vanishes here (3% of a zero spike): no number of samples meets it, so "inconclusive, more
    samples would resolve it" would be false."""

    def __init__(self, resolution: float):
        super().__init__(f"its resolution is {resolution:g} here, which no number of samples can meet")


@dataclass(frozen=True)
class Bug:
    """The outcome of an error that is this project's (or a plugin's) bug: re-raised as `CheckError`, with advice."""

    advice: str = ""


BUG, USERS = Bug(), "the user's"  # USERS: re-raised as it is (bad input, exit 2)
NOT_EVALUATED, BREAKS_DOWN = "not evaluated", "breaks down"


@dataclass(frozen=True)
class Rule:
    """What an error raised in one phase of a prediction means, inside and outside the assumptions: `BUG`, `USERS`,
    `NOT_EVALUATED` (the statement is undefined there), `BREAKS_DOWN` (its simulation is), or an inconclusive
    outcome whose message starts with the given words."""

    phase: str
    error: type[BaseException] | tuple[type[BaseException], ...]
    inside: Bug | str
    outside: Bug | str


# What a simulation raises when its arithmetic has nothing to work on (a zero matrix, identical draws, an overflow);
# DeclarationError and the other errors of a wrong program are not among them. Inside the assumptions each is a bug.
SIMULATION_BREAKDOWNS = (ArithmeticError, ValueError, RuntimeError)

# The first rule whose phase and error match decides; an error no rule names is a bug.
ERRORS = (
    # a numeric route that says it cannot reach its accuracy leaves the claim unresolved
    Rule(CLAIM, NumericalError, "prediction could not be computed", NOT_EVALUATED),
    Rule(CLAIM, ArithmeticError, BUG, NOT_EVALUATED),  # outside: mu1 = 0 divides; inside: the statement's bug
    Rule(CLAIM, InvalidInput, USERS, NOT_EVALUATED),  # outside: E sigma^2 of a square that is not integrable
    Rule(CLAIM, Unmeetable, Bug("a statement must give a resolution that does not vanish or say where the "
                                "prediction does not apply"), NOT_EVALUATED),
    Rule(MEASURE, NumericalError, "no observation", "no observation"),  # a simulation that diverged, said so
    Rule(MEASURE, Unresolved, "not resolved at these sizes", "not resolved at these sizes"),
    # inside: a request the check refuses (a run of hours); outside: a setting that does not exist there
    Rule(MEASURE, InvalidInput, USERS, NOT_EVALUATED),
    # outside: a constant activation steps by exactly 0, so ARPACK has no starting vector
    Rule(MEASURE, SIMULATION_BREAKDOWNS, BUG, BREAKS_DOWN),
)


def _described(error: BaseException) -> str:
    """An error's message, or what it is where it has none (mpmath divides by zero without a word)."""
    if str(error):
        return str(error)
    if isinstance(error, ZeroDivisionError):
        return "the statement divides by a quantity that is 0 here"
    return type(error).__name__


def settle(error: Exception, phase: str, outside: bool, theorem: str, prediction: str) -> Exception:
    """The exception that ends a prediction whose `phase` raised `error` (`ERRORS`): `Settled`, `CheckError`, or
    `error` itself where it is the user's."""
    outcome = next((rule.outside if outside else rule.inside for rule in ERRORS
                    if rule.phase == phase and isinstance(error, rule.error)), BUG)
    if outcome == USERS:
        return error
    if isinstance(outcome, Bug):
        cause = ValueError(f"{error}; {outcome.advice}") if outcome.advice else error
        return CheckError(theorem, prediction, cause)
    if outcome == NOT_EVALUATED:
        return Settled(SKIPPED, f"not evaluated outside the assumptions: {_described(error)}")
    if outcome == BREAKS_DOWN:
        return Settled(SKIPPED, "not evaluated outside the assumptions: the simulation breaks down here "
                                f"({_described(error)})")
    return Settled(INCONCLUSIVE, f"{outcome}: {error}")


@dataclass(frozen=True)
class Run:
    """One check's settings, shared by its predictions: `rate` is each stochastic prediction's share of the
    false-fail rate per stage; `stated`, whether the tested claim is the statement (no mutant, no override); `drawn`,
    the stages whose shared draws a prediction has read (free to the others)."""

    checker: Checker
    claims: ClaimsTable
    fidelity: Fidelity
    seed: int
    rate: float
    outside: bool
    stated: bool
    drawn: set[int] = field(default_factory=set)
    nearest_here: dict = field(default_factory=dict)  # away from the defaults (`reasons.nearest_by_prediction`)

    @property
    def tested(self) -> Row:
        return self.claims.tested

    @contextlib.contextmanager
    def phase(self, phase: str, prediction: Prediction):
        """Errors raised within, settled as `ERRORS` says; a stop dropped before or within, raised
        (`checkers.stopping`)."""
        stopping.raise_dropped()
        try:
            yield
        except Settled:
            raise
        except Exception as error:
            stop = stopping.arrived()
            if stop is not None:  # a stop that a library turned into an error of its own (`checkers.stopping`)
                raise stop from error
            settled = settle(error, phase, self.outside, self.tested.instance.theorem.id, prediction.name)
            if settled is error:
                raise
            raise settled from error
        stopping.raise_dropped()


def claim(run: Run, prediction: Prediction) -> tuple[Target, float]:
    """The tested row's target and resolution for `prediction`; `Settled` where it does not apply here."""
    tested = run.tested
    with run.phase(CLAIM, prediction):
        reason = tested.applies(prediction.name)
        if reason:
            raise Settled(SKIPPED, reason)
        if run.outside and not tested.instance.constants:  # the statement derives nothing where it is undefined
            raise Settled(SKIPPED, "not evaluated outside the assumptions: the statement's constants are undefined "
                                   "here")
        target, resolution = tested.target(prediction.name), tested.resolution(prediction.name)
        # a mutant or a user's override that zeroes a constant is a claim under test, not the statement: it can still
        # be rejected, so only the statement's resolution must not vanish
        if run.stated and not (math.isfinite(resolution) and resolution > 0):
            raise Unmeetable(resolution)
    return target, resolution


def measure(run: Run, prediction: Prediction, stage: int) -> tuple[Measurement, Estimate | Exact]:
    """The reader's measurement at `stage` and the tested row's reading of it."""
    checker, instance = run.checker, run.tested.instance
    scope = () if checker.shared_draws else (prediction.name,)
    observable = (lambda measured: run.tested.observe(prediction.name, measured)) if prediction.observable else None
    with run.phase(MEASURE, prediction):
        # outside the assumptions overflow is what the statement excludes, reported through the reading it spoils (a
        # NaN: not evaluated), not as numpy's warnings between the verdict table's rows
        with np.errstate(all="ignore") if run.outside else contextlib.nullcontext():
            measurement = checker.read(instance, prediction.name, Budget(run.fidelity, stage), seed_sequence(
                run.seed, instance.theorem.id, *scope, 0 if checker.nested_stages else stage), observable)
            if not isinstance(measurement, Measurement):
                raise TypeError(f"the reader returned {type(measurement).__name__}, not a Measurement")
            if isinstance(measurement, Fitted) and measurement.size != prediction.fitted_across:
                raise DeclarationError(f"the reader fits across {measurement.size!r}, the prediction states "
                                       f"{prediction.fitted_across!r}")
            reading = measurement.reading(observable)
        run.drawn.add(stage)
        if not_a_number(reading):  # NaN compares false with every bound, so it would pass: a reader whose
            # arithmetic broke down says so (NumericalError, with the reason); a NaN here is a bug inside the
            # assumptions, a breakdown outside them
            raise ValueError(f"the reader returned NaN ({reading.method})")
    return measurement, reading


def power_at_shift(shift: float, reading: Estimate, interval: tuple[float, float], rate: float,
                   offset: float = 0.0) -> float:
    """The power of the test of `reading` against `interval` at `rate` against a version whose claim lies `shift`
    beyond the interval (+ above it, - below), the reading's mean taken `offset` from the interval (an offset toward
    the version's side brings it nearer). The one power computation of check and calibrate alike."""
    nearer = offset if shift > 0 else -offset
    return power_beyond(abs(shift) - nearer, reading, *interval, rate)


def judges_mutants(prediction: Prediction, reading: Estimate | Exact) -> bool:
    """Whether a reading can reject a mutant: a Monte Carlo one always; an exact one only on witnesses of a prediction
    that owns its observable (its value is the tested version's alone)."""
    return not isinstance(reading, Exact) or bool(reading.witnesses and prediction.observable)


def mutant_power(run: Run, prediction: Prediction, row: Row, measurement: Measurement, reading: Estimate | Exact,
                 interval: tuple[float, float]) -> tuple[float, float | None] | None:
    """The power of this prediction's test against mutant `row`, and the shift it was computed at where it comes from
    the row's target alone; None where the test cannot reject the row here, or the row is not evaluable.

    On witnesses (an exact reading of a prediction that owns its observable), the row is rejected where its
    observable lies outside its own target by more than the tolerance. On measurements that every version's
    observable reads (draws), the row's own reading on the same draws is compared with its own target, against how
    far the statement's lies outside the statement's. Otherwise the reading is one number for every version, and
    the row's target is compared with the tested interval, the reading's mean taken on the statement's target."""
    if not judges_mutants(prediction, reading):
        return None
    try:
        if isinstance(reading, Exact):
            shift = max(row.claimed(prediction.name, measured) for measured in reading.witnesses.values())
            return (1.0, None) if shift > reading.tolerance else None
        target = row.target(prediction.name)
        own = measurement.reading(lambda measured: row.observe(prediction.name, measured)) \
            if measurement.observes else None
    except (ThmcheckError, ArithmeticError, Unresolved):  # not evaluable for this row: no power is claimed
        return None
    if own is None:
        above, below = float(target.lower) - interval[1], interval[0] - float(target.upper)
        shift = above if above > 0 else -max(below, 0.0)
        return (power_at_shift(shift, reading, interval, run.rate), shift) if shift else None
    stated, own_interval = run.claims.stated.target(prediction.name), (float(target.lower), float(target.upper))
    # a claim at every size is rejected where one size rejects it, each at its share of the rate
    pairs = tuple(zip(own.parts, reading.parts)) if reading.parts else ((own, reading),)
    powers = [power for mine, statement in pairs if (power := _power_on_same_draws(
        mine, statement, own_interval, stated, run.rate / max(len(reading.parts), 1))) is not None]
    return (max(powers), None) if powers else None


def _power_on_same_draws(own: Estimate, statement: Estimate, interval: tuple[float, float], stated: Target,
                         rate: float) -> float | None:
    """The power against a version from its reading `own` on the draws the statement's reading `statement` came
    from; None where the version does not lie outside its `interval`. Where the statement claims a point, its
    reading's miss of it is these draws' noise, and `own` less that miss is where the version's reading lies on
    average if the statement holds: the power is the test's at that distance outside `interval`, whichever way these
    draws missed. Against a claimed interval the miss is unknown (any point inside may be the truth), so the version
    is taken only as far outside its interval as its reading lies beyond the statement's outside the `stated` one."""
    if stated.lower == stated.upper:
        shift = distance_outside(own.value - (statement.value - float(stated.value)), *interval)
    else:
        shift = (distance_outside(own.value, *interval)
                 - distance_outside(statement.value, float(stated.lower), float(stated.upper)))
    return power_at_shift(shift, own, interval, rate) if shift > 0 else None


def power_fields(run: Run, prediction: Prediction, measurement: Measurement, reading: Estimate | Exact,
                 interval: tuple[float, float]) -> dict:
    """A result's power fields over the mutants the run speaks for: `power`, the chance the test rejects each (the
    false-pass rate is one minus it); `mutant_shifts`, for those whose power comes from their target alone, how far
    it lies beyond the tested interval, from which the power at any other mean follows; `stage_false_fail_rate`,
    the rate of each stage's comparison, at which those powers are computed (and seeds pooled, `checkers.pooling`)."""
    powers, shifts = {}, {}
    rows = run.checker.observed_mutants(run.claims, prediction) if judges_mutants(prediction, reading) else ()
    for name, row in rows:
        found = mutant_power(run, prediction, row, measurement, reading, interval)
        if found is not None:
            powers[name], shift = found
            if shift is not None:
                shifts[name] = shift
    return {"power": powers or None, "mutant_shifts": shifts or None,
            "stage_false_fail_rate": run.rate}


def _tightness(reading: Exact) -> dict | None:
    """The tightness as the verdict records it; none where the ratio is not finite (a bound of 0, claimed by a
    mutant: the margin already says how it failed)."""
    if reading.tightness is None or not math.isfinite(reading.tightness.best_ratio):
        return None
    return {"best_ratio": reading.tightness.best_ratio, "witness": reading.tightness.witness,
            "attainable": reading.tightness.attainable, "construction": reading.tightness.construction}


def _exact_result(run: Run, prediction: Prediction, target: Target, resolution: float, measurement: Measurement,
                  reading: Exact, common: dict) -> PredictionResult:
    interval = (float(target.lower), float(target.upper))
    comparison = compare_exact(reading.value, target.lower, target.upper, tolerance=reading.tolerance,
                               resolution=resolution, strict=target.strict)
    return PredictionResult(
        outcome=comparison.outcome, predicted=float(target.value), predicted_interval=interval,
        observed=float(reading.value), method=reading.method, distance=float(comparison.distance),
        statistic=comparison.statistic, p_value=comparison.p_value, detectable=comparison.detectable,
        resolution=resolution, false_fail_rate=0.0, stages=1, message=target.note,
        tolerance=float(reading.tolerance), tightness=_tightness(reading), strict=target.strict, pools=False,
        power=power_fields(run, prediction, measurement, reading, interval)["power"], **common)


def staged(run: Run, prediction: Prediction, target: Target, resolution: float, stages: int | None,
           common: dict) -> PredictionResult:
    """The prediction read in the fidelity's sequential stages (at most `stages`), the next one chosen by
    `checkers.planning`, or one already drawn (shared draws read by another prediction: free) before it."""
    interval = (float(target.lower), float(target.upper))
    stages = min(run.fidelity.stages, stages or run.fidelity.stages) if stochastic(prediction) else 1
    notes = [target.note]  # and why stages were skipped or left undrawn (`checkers.planning`)
    stage = 0
    while True:
        measurement, reading = measure(run, prediction, stage)
        if isinstance(reading, Exact):
            return _exact_result(run, prediction, target, resolution, measurement, reading, common)
        comparison = compare_to_target(reading, *interval, false_fail_rate=run.rate, resolution=resolution,
                                       strict=target.strict)
        if comparison.outcome != INCONCLUSIVE:
            break
        next_stage, note = _next_stage(run, prediction, reading, target, resolution, stage, stages)
        notes.append(note)
        if next_stage is None:
            break
        stage = next_stage
    return PredictionResult(
        outcome=comparison.outcome, predicted=float(target.value), predicted_interval=interval,
        observed=reading.value, standard_error=reading.standard_error, systematic=reading.systematic,
        degrees_of_freedom=reading.degrees_of_freedom, samples=reading.samples, method=reading.method,
        distance=comparison.distance, statistic=comparison.statistic, p_value=comparison.p_value,
        detectable=comparison.detectable, resolution=resolution, false_fail_rate=run.rate * stages,
        stages=stage + 1, message="; ".join(filter(None, notes)), strict=target.strict, pools=not reading.parts,
        **common,
        **power_fields(run, prediction, measurement, reading, interval))


def _next_stage(run: Run, prediction: Prediction, reading: Estimate, target: Target, resolution: float, stage: int,
                stages: int) -> tuple[int | None, str]:
    """The stage to read after an inconclusive `stage` and the planner's note: a stage another prediction already
    drew before the planned one is free (and needs no note)."""
    checker, instance = run.checker, run.tested.instance
    plan = planning.plan_next(reading, float(target.lower), float(target.upper), strict=target.strict,
                              false_fail_rate=run.rate, resolution=resolution, stage=stage, stages=stages,
                              stage_work=checker.cost(instance, run.fidelity).stage_work if checker.cost else ())
    free = [later for later in run.drawn if stage < later < stages
            and (plan.next_stage is None or later < plan.next_stage)]
    if free:
        return min(free), ""
    return plan.next_stage, plan.note


def _from_stated(run: Run, prediction: Prediction, target: Target) -> dict:
    """For a conjecture, how far its claimed interval lies from the statement's (the claims table's, before any
    draw); nothing where the statement's is not evaluable here."""
    if run.claims.conjecture is None:
        return {}
    try:
        stated = run.claims.stated.target(prediction.name)
    except (ThmcheckError, ArithmeticError):
        return {}
    return {"from_stated": float(max(target.lower - stated.upper, stated.lower - target.upper, 0))}


def check_prediction(run: Run, prediction: Prediction, stages: int | None = None) -> PredictionResult:
    """One prediction's result: its claim, then its measurements and their comparison."""
    common = dict(name=prediction.name, kind=prediction.kind, statement=prediction.statement,
                  resolution_reason=prediction.resolution_reason and prediction.resolution_reason.to_dict(),
                  nearest_here=run.nearest_here.get(prediction.name))
    try:
        target, resolution = claim(run, prediction)
        return staged(run, prediction, target, resolution, stages, common | _from_stated(run, prediction, target))
    except Settled as settled:
        return PredictionResult(outcome=settled.outcome, message=settled.message, **common)


def run_check(checker: Checker, parameters: Mapping[str, Any] | None = None,
              overrides: Mapping[str, Any] | None = None, *, seed: int = 0, fidelity: str = "default",
              false_fail_rate: float = DEFAULT_FALSE_FAIL_RATE, mutant: str | None = None,
              max_minutes: float = MAX_CHECK_MINUTES, backend: str = arrays.DEFAULT,
              outcome_only: bool = False) -> Verdict:
    """Check one theorem at one parameter point and return the verdict with its evidence. A check estimated
    (`checkers.cost.estimate`) above `max_minutes` here, or above the memory available, is refused before any draw
    (`WorkRefused`).

    `outcome_only`, for a caller that reads only the outcome (the contract's runs of a mutant): where the readers
    share their draws, every prediction's first stage is read before any later one, and a failure there ends the
    check with the predictions read so far. The outcome is the full run's: a prediction's first stage is the same
    reading in both, and one failure fails the check.

    The linear algebra runs on one BLAS thread: a multi-threaded BLAS splits its sums by the number of
    threads, so its last digits would depend on the machine's core count and on how many checks share it.
    Parallelism is across checks (`thmcheck check --workers`, sweeps), where it is exact. On another `backend`
    (`checkers.arrays`) the simulation's matrix work runs on that library, on the same draws."""
    with one_blas_thread(), arrays.using(backend_for(checker, backend)):
        return _run_check(checker, parameters, overrides, seed=seed, fidelity=fidelity,
                          false_fail_rate=false_fail_rate, mutant=mutant, max_minutes=max_minutes,
                          outcome_only=outcome_only)


def _run_check(checker: Checker, parameters: Mapping[str, Any] | None, overrides: Mapping[str, Any] | None, *,
               seed: int, fidelity: str, false_fail_rate: float, mutant: str | None, max_minutes: float,
               outcome_only: bool = False) -> Verdict:
    chosen = fidelity_for(checker, fidelity)
    if not 0 < false_fail_rate < 1:
        raise InvalidInput(f"false-fail rate must lie in (0, 1), got {false_fail_rate}")
    started = time.perf_counter()
    theorem = checker.theorem
    parameters = dict(parameters or {})
    if mutant is not None:
        parameters = theorem.mutant_parameters(mutant, parameters)
        theorem = theorem.mutated(mutant)  # a mutated theorem has no mutants of its own: its table has none
    claims = theorem.claims(parameters, overrides)
    instance = claims.tested.instance
    if (found := estimate(checker, instance, chosen)) and (reason := refusal(theorem.id, found, 60 * max_minutes)):
        raise WorkRefused(reason)
    failures = instance.assumption_failures()
    rate = split_false_fail_rate(false_fail_rate, sum(map(stochastic, theorem.predictions)) * chosen.stages)
    run = Run(checker, claims, chosen, seed, rate, outside=bool(failures),
              stated=mutant is None and not instance.overrides,
              nearest_here=nearest_by_prediction(theorem, claims) if mutant is None and not failures else {})

    def evaluate(stages: int | None = None) -> list[PredictionResult]:
        return [check_prediction(run if checker.shared_draws else replace(run, drawn=set()), prediction, stages)
                for prediction in theorem.predictions]
    results = evaluate(1) if outcome_only and checker.shared_draws and chosen.stages > 1 else []
    if not any(result.outcome == FAIL for result in results):
        results = evaluate()
    return Verdict(
        theorem=theorem.id, title=theorem.title, provenance=theorem.provenance,
        outcome=overall_outcome((r.outcome for r in results), not failures),
        predictions=tuple(results), parameters=instance.describe_parameters(),
        overrides=instance.describe_overrides(),
        assumption_failures=tuple(failures), seed=seed, fidelity=chosen.name, false_fail_rate=false_fail_rate,
        elapsed_seconds=time.perf_counter() - started, mutant=mutant, expected_failure=theorem.expected_failure,
        backend=arrays.current(), device=arrays.device_name(), dtype=arrays.dtype_name())
