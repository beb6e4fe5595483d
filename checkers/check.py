"""Running a check: theorem instance -> observations -> calibrated comparisons -> verdict.

A `Checker` pairs a `Theorem` with one reader per prediction, `reader(instance, budget, seed)`, which
returns either an `Estimate` (Monte Carlo; compared with a t-test) or an `Exact` value (deterministic;
compared to its stated accuracy). `run_check` does the rest, in one direction:

1. build the claims table (`Theorem.claims`: the tested claim and every mutant's, before any draw; bad parameters
   or overrides raise `InvalidInput` before anything runs);
2. evaluate the assumptions (outside them the verdict says so, with reasons, but the predictions
   are still evaluated so that a user can see what happens);
3. for each prediction: its target interval, then observations in sequential stages (each stage draws fresh
   samples at a larger budget, only while the previous one was inconclusive, at the stage `checkers.planning`
   expects to decide it, and none where no stage could); where the prediction owns its observable, the reader
   measures and the statement's observable gives the value, for the tested claim and, on the same measurements, for
   every mutant;
4. the family false-fail rate is split (Bonferroni) over stochastic predictions x stages.

Errors are errors: an exception raised by a statement or a reader (other than the simulation's own
`NumericalError`, "no evidence", and `Unresolved`, "not resolved at these sizes") is re-raised as
`CheckError` naming the theorem and the prediction; it never becomes an inconclusive verdict. Outside the
assumptions a simulation may break down on what the statement excludes (an arithmetic, value or runtime error, or a
NaN): that prediction is not evaluated, with the error.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import mpmath
import numpy as np
from threadpoolctl import threadpool_limits

from checkers import arrays, planning
from checkers.budget import DEFAULT_FALSE_FAIL_RATE, FIDELITIES, MAX_CHECK_MINUTES, PAPER, Budget, Fidelity
from checkers.cost import Cost, refusal
from checkers.outcome import FAIL, INCONCLUSIVE, SKIPPED, overall_outcome
from checkers.seeds import seed_sequence
from checkers.stats import (
    Estimate,
    compare_exact,
    compare_to_target,
    distance_outside,
    fit_rate,
    mean_estimate,
    power_beyond,
    split_false_fail_rate,
)
from checkers.verdict import PredictionResult, Verdict
from theorems.claims import ClaimsTable
from theorems.errors import CheckError, DeclarationError, InvalidInput, NumericalError, ThmcheckError, WorkRefused
from theorems.statement import Instance, Prediction, Theorem


@dataclass(frozen=True)
class Tightness:
    """How close an inequality came to equality in the search: the largest ratio of its two sides attained
    (1 is equality), where (`witness`), and the ratio a known construction attains, where one is known."""

    best_ratio: float
    witness: str
    attainable: float | None = None
    construction: str = ""


@dataclass(frozen=True)
class Exact:
    """A deterministic observation: `value`, correct to within `tolerance`; for an inequality, how tight it got; for
    a prediction that owns its observable, the measurements the value was attained on (`witnesses`, by name: the
    search's extreme example, a construction), on which every mutant's claim is judged as well."""

    value: mpmath.mpf
    tolerance: float
    method: str = ""
    tightness: Tightness | None = None
    witnesses: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Measured:
    """Deterministic measurements (named numbers) for a prediction that owns its observable
    (`theorems.statement.Prediction.observable`), accurate enough that the observable on them is correct to within
    `tolerance`: `run_check` applies each version's observable."""

    values: Mapping[str, Any]
    tolerance: float
    method: str = ""

    def exact(self, observable: Callable[[Mapping[str, Any]], Any], witness: str = "measured") -> Exact:
        return Exact(observable(self.values), tolerance=self.tolerance, method=self.method,
                     witnesses={witness: self.values})


@dataclass(frozen=True)
class Draws:
    """Per-draw measurements of a Monte Carlo prediction that owns its observable: the observable gives each draw's
    value (one number, or an array of independent terms), and `estimate` pools them into a mean with its standard
    error (`mean_estimate`); `run_check` does so for the tested claim and, on the same draws, for every mutant."""

    draws: tuple[Mapping[str, Any], ...]
    method: str = ""

    def estimate(self, observable: Callable[[Mapping[str, Any]], Any]) -> Estimate:
        return mean_estimate(np.concatenate([np.atleast_1d(np.asarray(observable(draw), dtype=np.float64))
                                             for draw in self.draws]), method=self.method)


@dataclass(frozen=True)
class Fitted(Draws):
    """Per-draw measurements at several sizes of a rate prediction whose observable is fitted across a size
    (`Prediction.fitted_across`, the key of each draw's size): `estimate` fits the exponent of the observable's
    per-draw values in log-log (`fit_rate`: a t interval on draws - 2 degrees of freedom)."""

    size: str = "samples"

    def estimate(self, observable: Callable[[Mapping[str, Any]], Any]) -> Estimate:
        sizes = [draw[self.size] for draw in self.draws]
        fit = fit_rate(sizes, [float(observable(draw)) for draw in self.draws])
        return Estimate(fit.exponent, fit.standard_error, len(sizes) - 2, len(sizes), self.method)


@dataclass(frozen=True)
class Pooled:
    """Per-draw measurements of a Monte Carlo prediction that owns its observable, pooled by the reader's own
    estimator (parts extrapolated across sizes, a product of limits): `pool(observable)` gives the Estimate for any
    version's observable, so `run_check` applies it to the tested claim and, on the same draws, to every mutant."""

    pool: Callable[[Callable[[Mapping[str, Any]], Any]], Estimate]

    def estimate(self, observable: Callable[[Mapping[str, Any]], Any]) -> Estimate:
        return self.pool(observable)


Observation = Estimate | Exact


class Unresolved(Exception):
    """Raised by a reader when the affordable sizes cannot decide a prediction either way (for example a
    spike that has not yet separated from the bulk): the prediction is inconclusive, with this reason."""


# A reader: reader(instance, budget, seed) -> Observation; for a prediction that owns its observable,
# reader(instance, budget, seed, observable) -> Exact, Measured, Draws or Pooled, where observable(measurements) is the
# tested version's (a search minimizes it; `run_check` applies it to what a reader measured)
Reader = Callable[..., "Observation | Measured | Draws | Pooled"]


@dataclass(frozen=True, kw_only=True)
class Checker:
    """How one theorem is checked: its simulation, in words, and one reader per prediction.

    `readers` maps each prediction's name to `reader(instance, budget, seed) -> Observation`, or, for a prediction
    that owns its observable, `reader(instance, budget, seed, observable) -> Exact | Measured | Draws | Pooled`
    (`Reader`).
    The keys must be exactly the theorem's prediction names: a checker that misses one, or names one the theorem
    does not have, is refused when it is built (`DeclarationError`), so a renamed prediction can never be read by
    another prediction's reader.

    With `shared_draws`, every prediction of one check gets the same seed (per stage), so readers can
    share one simulation (see `checkers.shared_draws`). With `nested_stages`, every stage gets the first stage's
    seed, so a reader that draws the first k children of it, k growing with the stage, reads at each stage the
    previous stage's draws and as many new ones; where its draws are cached by seed, a doubling stage costs half of
    what fresh draws would. A later stage's test then depends on the earlier ones, which the false-fail rate's
    split over the stages (Bonferroni) allows.

    `simulation_constants` maps a prediction's name to the statement's constants that its simulation reads (a model
    drawn at the statement's own parameters, such as giant-step-risk's sRF at r, c, gamma). A mutant that changes
    one of them changes what is observed, not only what is predicted, so the truth's run claims no power against
    it for that prediction; its own run shows its effect.

    `cost(instance, fidelity) -> Cost` (`checkers.cost`), where a parameter or the fidelity can make the check
    long: the most its readers may spend, from the plan of sizes and draws they run. A check estimated beyond the
    caller's cap is refused before any draw.

    What the contract (`checkers.contract`) and the calibration read of this check:
    `resolves_at`, the lowest fidelity whose samples resolve the true statement's stated resolution at the defaults
    (below it the check may be inconclusive, never failing), and `prediction_resolves_at`, a lower one for a
    prediction that its samples resolve earlier; `second_point`, the parameters of a second point the
    slow calibration runs at; `calibration_seeds`, its seeds per version at quick fidelity; `slow_mutants` and
    `slow_rerun`, where the mutants' runs (minutes at default) or a rerun (tens of seconds) belong to the slow tests.
    `paper_scale` says, for a check that offers `--fidelity paper`, which sizes it reads there and which paper's
    scale they are; a check without one refuses that fidelity. `array_api`: its simulation runs on any backend of
    `checkers.arrays` (`check --backend`); a check without it runs on numpy only.
    """

    theorem: Theorem
    simulation: str
    readers: Mapping[str, Reader]
    shared_draws: bool = False
    nested_stages: bool = False
    simulation_constants: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    cost: Callable[[Instance, Fidelity], Cost] | None = None
    resolves_at: str = "quick"
    prediction_resolves_at: Mapping[str, str] = field(default_factory=dict)
    second_point: Mapping[str, str] | None = None
    calibration_seeds: int = 20
    slow_mutants: bool = False
    slow_rerun: bool = False
    paper_scale: str = ""
    array_api: bool = False

    def __post_init__(self):
        if not isinstance(self.theorem, Theorem):
            raise DeclarationError(f"a Checker's theorem must be a Theorem, got {type(self.theorem).__name__}")
        object.__setattr__(self, "readers", MappingProxyType(dict(self.readers)))
        predictions = [prediction.name for prediction in self.theorem.predictions]
        missing = [name for name in predictions if name not in self.readers]
        unknown = [name for name in self.readers if name not in predictions]
        if missing or unknown:
            problems = ([f"no reader for prediction(s) {', '.join(missing)}"] if missing else []) + (
                [f"reader(s) {', '.join(unknown)} name no prediction"] if unknown else [])
            raise DeclarationError(f"checker of {self.theorem.id}: {'; '.join(problems)} (its predictions are "
                                   f"{', '.join(predictions)})")
        for name, reader in self.readers.items():
            if not callable(reader):
                raise DeclarationError(f"checker of {self.theorem.id}: the reader of {name} is not callable")
        object.__setattr__(self, "simulation_constants", MappingProxyType(dict(self.simulation_constants)))
        unknown = [name for name in self.simulation_constants if name not in predictions]
        declarations = self.theorem.constants  # a tuple, or a function of the parameters (checked where it is read)
        declared = {constant.name for constant in declarations} if isinstance(declarations, tuple) else None
        unread = sorted({name for names in self.simulation_constants.values() for name in names} - declared
                        ) if declared is not None else []
        if unknown or unread:
            raise DeclarationError(f"checker of {self.theorem.id}: simulation_constants names "
                                   f"{', '.join(unknown + unread)}, which are not its predictions or constants")
        read = {name for names in self.simulation_constants.values() for name in names}
        for mutant in self.theorem.mutants:
            if mutant.simulated and not (set(mutant.constant_factors) | set(mutant.constants)) & read:
                raise DeclarationError(f"checker of {self.theorem.id}: mutant {mutant.name} is declared simulated, but "
                                       "none of the constants it changes is in simulation_constants")
        if self.resolves_at not in FIDELITIES:
            raise DeclarationError(f"checker of {self.theorem.id}: resolves_at must be one of "
                                   f"{', '.join(FIDELITIES)}, got {self.resolves_at!r}")
        object.__setattr__(self, "prediction_resolves_at", MappingProxyType(dict(self.prediction_resolves_at)))
        for name, fidelity in self.prediction_resolves_at.items():
            if name not in predictions or fidelity not in FIDELITIES or (
                    FIDELITIES[fidelity].level > FIDELITIES[self.resolves_at].level):
                raise DeclarationError(f"checker of {self.theorem.id}: prediction_resolves_at gives {name} "
                                       f"{fidelity!r}; it must name a prediction and a fidelity no higher than "
                                       f"resolves_at ({self.resolves_at})")
        if self.second_point is not None:
            object.__setattr__(self, "second_point", MappingProxyType(dict(self.second_point)))
            names = {parameter.name for parameter in self.theorem.parameters}
            if set(self.second_point) - names:
                raise DeclarationError(f"checker of {self.theorem.id}: second_point names "
                                       f"{', '.join(sorted(set(self.second_point) - names))}, not its parameters")

    @property
    def id(self) -> str:
        return self.theorem.id

    def read(self, instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence,
             observable: Callable[[Mapping[str, Any]], Any] | None = None) -> Observation | Measured | Draws:
        """What the reader of one prediction returns; with `observable` (the tested version's, for a prediction that
        owns it), the reader measures and the observable makes the value (`observed`)."""
        reader = self.readers[prediction]
        return reader(instance, budget, seed) if observable is None else reader(instance, budget, seed, observable)

    def resolved_at(self, prediction: Prediction) -> str:
        """The lowest fidelity whose budget resolves `prediction` at the defaults: quick for an exact or deterministic
        one (its single stage), else its own in `prediction_resolves_at`, else the checker's `resolves_at`."""
        if not _stochastic(prediction):
            return "quick"
        return self.prediction_resolves_at.get(prediction.name, self.resolves_at)

    def simulations_changed(self, truth: Instance, version: Instance) -> list[str]:
        """The predictions whose simulation reads a constant (`simulation_constants`) that `version` (a mutant's
        instance) gives another value than `truth`. A constant whose numeric route fails for the version
        (`NumericalError`, the one error that says a value is out of reach there) counts as changed: its run would
        not draw what the truth's draws, and only a power claim is withheld. Any other error, on either side, is a
        bug and propagates (exit 4)."""
        def differs(constant: str) -> bool:
            value = truth.constant(constant)
            try:
                return version.constant(constant) != value
            except NumericalError:
                return True
        return [prediction for prediction, constants in self.simulation_constants.items()
                if any(differs(constant) for constant in constants)]


def _tightness(observation: Exact) -> dict | None:
    """The tightness as the verdict records it; none where the ratio is not finite (a bound of 0, claimed by a
    mutant: the margin already says how it failed)."""
    if observation.tightness is None or not math.isfinite(observation.tightness.best_ratio):
        return None
    return {"best_ratio": observation.tightness.best_ratio, "witness": observation.tightness.witness,
            "attainable": observation.tightness.attainable, "construction": observation.tightness.construction}


def _stochastic(prediction: Prediction) -> bool:
    return prediction.kind in ("limit", "rate", "event")


def estimated_cost(checker: Checker, parameters: Mapping[str, Any] | None = None, *, fidelity: str = "default",
                   mutant: str | None = None, max_minutes: float | None = None) -> Cost | None:
    """The most a check at these parameters may spend (`Checker.cost`), before any draw; None where its checker
    declares no cost. With `max_minutes`, a cost beyond it (or beyond the memory available) is refused, as the check
    itself would refuse it (`WorkRefused`). Bad parameters raise `InvalidInput`, as the check would."""
    if checker.cost is None:
        return None
    given = dict(parameters or {})
    parameters = checker.theorem.mutant_parameters(mutant, given) if mutant is not None else given
    cost = checker.cost(checker.theorem.instance(parameters), fidelity_for(checker, fidelity))
    what = f"{checker.id} at {', '.join(f'{k}={v}' for k, v in given.items())}" if given else checker.id
    if max_minutes is not None and (reason := refusal(what, cost, 60 * max_minutes)):
        raise WorkRefused(reason)
    return cost


def fidelity_for(checker: Checker, name: str) -> Fidelity:
    """The fidelity `name` for `checker`; bad input where there is none by that name, or where it is paper and the check
    declares no paper scale."""
    if name not in FIDELITIES:
        raise InvalidInput(f"fidelity must be one of {', '.join(FIDELITIES)}, got {name!r}")
    if name == PAPER and not checker.paper_scale:
        from checkers import registry  # the list of checks that offer it, for the message only
        offered = [other.id for other in registry.all_checkers() if other.paper_scale]
        raise InvalidInput(f"{checker.id} has no paper-scale setting; fidelity paper is offered by "
                           f"{', '.join(offered) or 'no check'}")
    return FIDELITIES[name]


def backend_for(checker: Checker, name: str) -> str:
    """The backend `name` for `checker`; bad input where it is unknown or not installed, or where the check's
    simulation runs on numpy only."""
    arrays.require(name)
    if name != arrays.DEFAULT and not checker.array_api:
        from checkers import registry  # the list of checks that run on other backends, for the message only
        offered = [other.id for other in registry.all_checkers() if other.array_api]
        raise InvalidInput(f"{checker.id} runs on numpy only; backend {name} is offered by {', '.join(offered)}")
    return name


def run_check(checker: Checker, parameters: Mapping[str, Any] | None = None,
              overrides: Mapping[str, Any] | None = None, *, seed: int = 0, fidelity: str = "default",
              false_fail_rate: float = DEFAULT_FALSE_FAIL_RATE, mutant: str | None = None,
              max_minutes: float = MAX_CHECK_MINUTES, backend: str = arrays.DEFAULT,
              outcome_only: bool = False) -> Verdict:
    """Check one theorem at one parameter point and return the verdict with its evidence. A check whose declared
    cost (`Checker.cost`) is estimated above `max_minutes` here, or above the memory available, is refused before
    any draw (`WorkRefused`).

    `outcome_only`, for a caller that reads only the outcome (the contract's runs of a mutant): where the readers
    share their draws, every prediction's first stage is read before any later one, and a failure there ends the
    check with the predictions read so far. The outcome is the full run's: a prediction's first stage is the same
    reading in both, and one failure fails the check.

    The linear algebra runs on one BLAS thread: a multi-threaded BLAS splits its sums by the number of
    threads, so its last digits would depend on the machine's core count and on how many checks share it.
    Parallelism is across checks (`thmcheck check --workers`, sweeps), where it is exact. On another `backend`
    (`checkers.arrays`) the simulation's matrix work runs on that library, on the same draws."""
    with threadpool_limits(1, user_api="blas"), arrays.using(backend_for(checker, backend)):
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
    if checker.cost is not None and (reason := refusal(theorem.id, checker.cost(instance, chosen), 60 * max_minutes)):
        raise WorkRefused(reason)
    failures = instance.assumption_failures()
    stochastic_count = sum(_stochastic(p) for p in theorem.predictions)
    rate_each = split_false_fail_rate(false_fail_rate, stochastic_count * chosen.stages)
    stated = mutant is None and not instance.overrides

    drawn: set[int] = set()  # the stages whose draws a prediction has read: free to the others, where shared

    def evaluate(stages: int | None = None) -> list[PredictionResult]:
        return [_check_prediction(checker, claims, prediction, chosen, seed, rate_each, bool(failures),
                                  stated=stated, stages=stages, drawn=drawn if checker.shared_draws else set())
                for prediction in theorem.predictions]
    results = evaluate(1) if outcome_only and checker.shared_draws and chosen.stages > 1 else []
    if not any(result.outcome == FAIL for result in results):
        results = evaluate()
    return Verdict(
        theorem=theorem.id, title=theorem.title, provenance=theorem.provenance,
        outcome=overall_outcome((r.outcome for r in results), not failures),
        predictions=tuple(results), parameters=instance.describe_parameters(),
        overrides=instance.describe_overrides(),
        assumption_failures=tuple(failures), seed=seed, fidelity=fidelity, false_fail_rate=false_fail_rate,
        elapsed_seconds=time.perf_counter() - started, mutant=mutant, expected_failure=theorem.expected_failure)


def _not_a_number(observation: Estimate | Exact) -> bool:
    """Whether an observation's value (or an estimate's standard error) is NaN."""
    numbers = [observation.value] + ([observation.standard_error] if isinstance(observation, Estimate) else [])
    return any(mpmath.isnan(number) if isinstance(number, mpmath.mpf) else math.isnan(float(number))
               for number in numbers)


def observed_mutants(checker: Checker, claims: ClaimsTable, prediction: Prediction):
    """(name, row) of the claim mutants a run of the statement can claim power against on this prediction: none on a
    mutant's own run or under an override (the tested claim is not the statement), and none whose constants the
    simulation of this prediction reads (`Checker.simulation_constants`): their effect shows in their own runs."""
    if claims.conjecture is not None:
        return
    for name, row in claims.claim_mutants().items():
        if prediction.name not in checker.simulations_changed(claims.stated.instance, row.instance):
            yield name, row


def _power_against_mutants(checker: Checker, claims: ClaimsTable, prediction: Prediction,
                           interval: tuple[float, float], observation: Estimate, rate: float) -> dict:
    """The power fields of a result, for each claim mutant (`observed_mutants`) whose row places this prediction
    outside the tested interval: `power`, the probability that the test, at this standard error, rejects it (the
    false-pass rate is one minus it), with the reading's mean taken on the statement's target; `mutant_shifts`, how
    far the mutant's target lies beyond the interval (+ above it, - below), from which the power at any other mean
    follows; and `stage_false_fail_rate`, the `rate` the power is computed at."""
    powers, shifts = {}, {}
    for name, row in observed_mutants(checker, claims, prediction):
        try:
            target = row.target(prediction.name)
        except (ThmcheckError, ArithmeticError):  # not evaluable for this mutant: no power is claimed
            continue
        above, below = float(target.lower) - interval[1], interval[0] - float(target.upper)
        shift = max(above, below, 0.0)
        if shift > 0:  # a bias up to the test's allowance may pull the observation toward the truth
            powers[name] = power_beyond(shift, observation, *interval, rate)
            shifts[name] = shift if above > 0 else -shift
    return {"power": powers or None, "mutant_shifts": shifts or None, "stage_false_fail_rate": rate if shifts else None}


def _observed(read, observable) -> Observation:
    """The observation a reader's return makes: Measured, Draws and Pooled through the tested version's observable."""
    if isinstance(read, Measured):
        return read.exact(observable)
    if isinstance(read, (Draws, Pooled)):
        return read.estimate(observable)
    return read


def _power_on_draws(checker: Checker, claims: ClaimsTable, prediction: Prediction, draws: Draws | Pooled,
                    observation: Estimate, rate: float) -> dict[str, float] | None:
    """For a Monte Carlo prediction that owns its observable: per claim mutant (`observed_mutants`) whose
    observable, pooled over the same draws, lies farther outside its own target than the statement's `observation`
    lies outside the statement's (as the claims table's moves count), the probability that the test at that
    standard error rejects it."""
    stated = claims.stated.target(prediction.name)
    powers = {}
    for name, row in observed_mutants(checker, claims, prediction):
        try:
            estimate = draws.estimate(lambda measured, row=row: row.observe(prediction.name, measured))
            target = row.target(prediction.name)
        except (ThmcheckError, ArithmeticError):  # not evaluable for this mutant: no power is claimed
            continue
        lower, upper = float(target.lower), float(target.upper)
        if observation.parts:  # a claim at every size: the mutant is rejected where one size rejects it
            claimed = [_power_beyond(part, own_part, lower, upper, stated, rate / len(observation.parts))
                       for part, own_part in zip(estimate.parts, observation.parts)]
            power = max((value for value in claimed if value is not None), default=None)
        else:
            power = _power_beyond(estimate, observation, lower, upper, stated, rate)
        if power is not None:
            powers[name] = power
    return powers or None


def _power_beyond(estimate: Estimate, own: Estimate, lower: float, upper: float, stated, rate: float) -> float | None:
    """The power of the test at `rate` against a version whose observable (`estimate`, on the same draws) lies farther
    outside its own [lower, upper] than the statement's (`own`) lies outside the `stated` target; None where it does
    not."""
    shift = (distance_outside(estimate.value, lower, upper)
             - distance_outside(own.value, float(stated.lower), float(stated.upper)))
    if shift <= 0:
        return None
    return power_beyond(shift, estimate, lower, upper, rate)


def _rejected_by_witnesses(claims: ClaimsTable, prediction: Prediction, observation: Exact) -> dict[str, float] | None:
    """For a prediction that owns its observable: 1 for each claim mutant whose observable lies outside its own target
    on this run's witnesses by more than the observation's tolerance: this run rejects it (its own run searches its
    own observable). None on a mutant's own run, under an override, or without witnesses."""
    if claims.conjecture is not None or not observation.witnesses or prediction.observable is None:
        return None
    powers = {}
    for name, row in claims.claim_mutants().items():
        try:
            shift = max(row.claimed(prediction.name, measured) for measured in observation.witnesses.values())
        except (ThmcheckError, ArithmeticError):  # not evaluable for this mutant: no power is claimed
            continue
        if shift > observation.tolerance:
            powers[name] = 1.0
    return powers or None


def _described(error: BaseException) -> str:
    """An error's message, or what it is where it has none (mpmath divides by zero without a word)."""
    if str(error):
        return str(error)
    if isinstance(error, ZeroDivisionError):
        return "the statement divides by a quantity that is 0 here"
    return type(error).__name__


# What a simulation raises when its arithmetic has nothing to work on (a zero matrix, identical draws, an overflow);
# DeclarationError and the other errors of a wrong program are not among them. Inside the assumptions each is a bug.
SIMULATION_BREAKDOWNS = (ArithmeticError, ValueError, RuntimeError)


class SimulationBreakdown(Exception):
    """A simulation outside the assumptions that broke down, with the error it raised."""

    def __init__(self, error: BaseException):
        super().__init__(f"the simulation breaks down here ({_described(error)})")


def _not_evaluated(error: BaseException, common: dict) -> PredictionResult:
    """A prediction skipped outside the assumptions, where `error` says the statement is undefined."""
    return PredictionResult(outcome=SKIPPED, message=f"not evaluated outside the assumptions: {_described(error)}",
                            **common)


def _check_prediction(checker: Checker, claims: ClaimsTable, prediction: Prediction, fidelity: Fidelity,
                      seed: int, rate_each: float, outside: bool, *, stated: bool = True,
                      stages: int | None = None, drawn: set[int] | None = None) -> PredictionResult:
    """One prediction's result, read in the fidelity's sequential stages (at most `stages` of them), the next one
    chosen by `checkers.planning`, or one already `drawn` (shared draws read by another prediction: free) before it."""
    drawn = set() if drawn is None else drawn
    common = dict(name=prediction.name, kind=prediction.kind, statement=prediction.statement,
                  resolution_reason=prediction.resolution_reason and prediction.resolution_reason.to_dict())
    tested = claims.tested
    instance = tested.instance
    try:
        reason = tested.applies(prediction.name)
        if reason:
            return PredictionResult(outcome=SKIPPED, message=reason, **common)
        if outside and not instance.constants:  # the statement derives nothing where it is undefined
            return PredictionResult(outcome=SKIPPED, message="not evaluated outside the assumptions: the "
                                    "statement's constants are undefined here", **common)
        target = tested.target(prediction.name)
        resolution = tested.resolution(prediction.name)
    except ArithmeticError as error:
        # outside its assumptions a statement may not even be defined (mu1 = 0 divides): say so. Inside
        # them a numeric route that says it cannot reach its accuracy (NumericalError) leaves the claim
        # unresolved; any other arithmetic error is a bug in the statement, reported as one
        if outside:
            return _not_evaluated(error, common)
        if isinstance(error, NumericalError):
            return PredictionResult(outcome=INCONCLUSIVE, message=f"prediction could not be computed: {error}",
                                    **common)
        raise CheckError(instance.theorem.id, prediction.name, error) from error
    except InvalidInput as error:
        if outside:  # e.g. E sigma^2 of an activation whose square is not integrable: undefined here
            return _not_evaluated(error, common)
        raise
    except Exception as error:  # DeclarationError included: a misnamed constant is a bug of this prediction
        raise CheckError(instance.theorem.id, prediction.name, error) from error
    if stated and not (math.isfinite(resolution) and resolution > 0):
        # a resolution relative to a constant that vanishes here (3% of a zero spike): no sample size meets it, so
        # "inconclusive, more samples would resolve it" would be false. Outside the assumptions that is the
        # statement being undefined there; inside them, a bug of the statement, which must say where it applies.
        # A mutant or a user's override that zeroes a constant is a claim under test, not the statement: it can
        # still be rejected, and is checked as before (`stated` is false)
        unmeetable = f"its resolution is {resolution:g} here, which no number of samples can meet"
        if outside:
            return _not_evaluated(ValueError(unmeetable), common)
        raise CheckError(instance.theorem.id, prediction.name,
                         ValueError(f"{unmeetable}; a statement must give a resolution that does not vanish or say "
                                    "where the prediction does not apply"))
    lower, upper = float(target.lower), float(target.upper)
    stages = min(fidelity.stages, stages or fidelity.stages) if _stochastic(prediction) else 1
    notes = [target.note]  # and why stages were skipped or left undrawn (`checkers.planning`)
    stage = 0
    while True:
        budget = Budget(fidelity, stage)
        scope = () if checker.shared_draws else (prediction.name,)
        observable = (lambda measured: tested.observe(prediction.name, measured)) if prediction.observable else None
        try:
            # outside the assumptions overflow is what the statement excludes, reported through the reading it
            # spoils (a NaN: not evaluated), not as numpy's warnings between the verdict table's rows
            with np.errstate(all="ignore") if outside else contextlib.nullcontext():
                read = checker.read(instance, prediction.name, budget, seed_sequence(
                    seed, instance.theorem.id, *scope, 0 if checker.nested_stages else stage), observable)
                if isinstance(read, Fitted) and read.size != prediction.fitted_across:
                    raise DeclarationError(f"the reader fits across {read.size!r}, the prediction states "
                                           f"{prediction.fitted_across!r}")
                observation = _observed(read, observable)
        except NumericalError as error:  # a simulation that diverged, said so by the simulation: no evidence
            return PredictionResult(outcome=INCONCLUSIVE, message=f"no observation: {error}", **common)
        except Unresolved as reason:
            return PredictionResult(outcome=INCONCLUSIVE, message=f"not resolved at these sizes: {reason}", **common)
        except InvalidInput as error:
            if outside:  # a setting that does not exist outside the assumptions (m* orthonormal teachers in d < m*)
                return _not_evaluated(error, common)
            raise  # inside them a request the check refuses (a run of hours, a matrix past memory): bad input
        except SIMULATION_BREAKDOWNS as error:
            if outside:  # a simulation of what the statement excludes may break down: a constant activation steps
                # by exactly 0, so ARPACK has no starting vector and every draw's error is the same
                return _not_evaluated(SimulationBreakdown(error), common)
            raise CheckError(instance.theorem.id, prediction.name, error) from error
        except Exception as error:  # DeclarationError included
            raise CheckError(instance.theorem.id, prediction.name, error) from error
        drawn.add(stage)
        if not isinstance(observation, (Estimate, Exact)):
            raise CheckError(instance.theorem.id, prediction.name,
                             TypeError(f"the reader returned {type(observation).__name__}, not an Estimate or Exact"))
        if _not_a_number(observation):  # NaN compares false with every bound, so it would pass: a reader whose
            # arithmetic broke down says so (NumericalError, with the reason); a NaN that reaches here is a bug,
            # unless the simulation ran outside the assumptions
            if outside:
                return _not_evaluated(SimulationBreakdown(ValueError(f"the reader returned NaN "
                                                                     f"({observation.method})")), common)
            raise CheckError(instance.theorem.id, prediction.name,
                             ValueError(f"the reader returned NaN ({observation.method})"))
        if isinstance(observation, Exact):
            comparison = compare_exact(observation.value, target.lower, target.upper,
                                       tolerance=observation.tolerance, resolution=resolution, strict=target.strict)
            return PredictionResult(
                outcome=comparison.outcome, predicted=float(target.value), predicted_interval=(lower, upper),
                observed=float(observation.value), method=observation.method, distance=float(comparison.distance),
                statistic=comparison.statistic, p_value=comparison.p_value, detectable=comparison.detectable,
                resolution=resolution, false_fail_rate=0.0, stages=1, message=target.note,
                tolerance=float(observation.tolerance), tightness=_tightness(observation),
                power=_rejected_by_witnesses(claims, prediction, observation), **common)
        comparison = compare_to_target(observation, lower, upper, false_fail_rate=rate_each, resolution=resolution,
                                       strict=target.strict)
        if comparison.outcome != INCONCLUSIVE:
            break
        plan = planning.plan_next(observation, lower, upper, strict=target.strict, false_fail_rate=rate_each,
                                  resolution=resolution, stage=stage, stages=stages,
                                  stage_work=checker.cost(instance, fidelity).stage_work if checker.cost else ())
        free = [later for later in drawn if stage < later < stages
                and (plan.next_stage is None or later < plan.next_stage)]
        if free:
            stage = min(free)
            continue
        notes.append(plan.note)
        if plan.next_stage is None:
            break
        stage = plan.next_stage
    return PredictionResult(
        outcome=comparison.outcome, predicted=float(target.value), predicted_interval=(lower, upper),
        observed=observation.value, standard_error=observation.standard_error, systematic=observation.systematic,
        degrees_of_freedom=observation.degrees_of_freedom, samples=observation.samples, method=observation.method,
        distance=comparison.distance, statistic=comparison.statistic, p_value=comparison.p_value,
        detectable=comparison.detectable, resolution=resolution, false_fail_rate=rate_each * stages,
        stages=stage + 1, message="; ".join(filter(None, notes)), **common,
        **({"power": _power_on_draws(checker, claims, prediction, read, observation, rate_each)}
           if isinstance(read, (Draws, Pooled)) else
           _power_against_mutants(checker, claims, prediction, (lower, upper), observation, rate_each)))
