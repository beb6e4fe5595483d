"""Calibration: a theorem's true statement and each of its mutants over many seeds, and what the rates say.

For each theorem, the true statement and every mutant run over `seeds` seeds on the sweep machinery (so a
calibration is stored task by task, resumes where it stopped, and runs on local processes or a dask cluster).
Each version draws its own data by default. `paired` runs every mutant on the true statement's seed of the same
index instead (common random numbers), so a simulation that does not depend on the statement is computed once per
seed for all versions: the slow theorems calibrate several times faster. Each version's rate is a binomial over
independent seeds either way, so its interval is the same; only the versions' outcomes on one seed are no longer
independent of each other, which no reported number assumes.
Reported per version:
- the true statement: its observed false-fail rate (fails / runs) with the exact (Clopper-Pearson) binomial 95%
  interval, beside the stated false-fail rate the checks were run at; and its inconclusive rate;
- each mutant: its kill rate (fails / runs), with the same interval, beside the rate its power predicts (the power
  each run reports against it, `predicted_kill_rates`), and where that power assumes the reading centred on the
  target, the rate at the readings' pooled offset (a bias inside the systematic bound moves the mutant's target
  nearer or farther than the run assumes); in a paired calibration, also its reading against the true
  statement's on the same seed, in resolutions (`MeasuredMove`), the distance of a mutant that acts on the
  simulation.
- each Monte Carlo prediction of the true statement with a point target: its offset from the predicted value,
  pooled over the runs (`PooledOffset`). One run tests the prediction to its resolution; the pooled offset is
  sqrt(runs) times finer, so it shows a systematic discrepancy that lies inside the resolution (a finite-size
  bias, or a small real error), which no single pass claims to see. It is a diagnostic, not a verdict. Runs read
  through a finite-size model whose exponent is only bounded carry a systematic bound; it enters the weights (one
  run cannot dominate through a small standard error) and is reported beside the offset, since pooling does
  not shrink it.
- each Monte Carlo prediction of the true statement with a point target: its standardized discrepancies
  z = (estimate - predicted) / standard error, one per run (`Standardized`). Counting fails over 50 seeds cannot
  tell a false-fail rate of 1e-6 from 1e-2; whether each standard error is right can be measured: if it is, z
  follows Student's t on the run's degrees of freedom. Reported: z's mean and standard deviation with 95%
  intervals, a Kolmogorov-Smirnov test of the runs' t probabilities against uniform, and the implied false-fail
  rate, the chance under the fitted mean and spread that |z| passes the test's threshold (its critical value plus
  its systematic allowance in standard errors).
A true statement is miscalibrated when the interval's lower end lies above the stated rate (its checks fail
more often than they claim to), or when a prediction's standard errors are off: the spread of z outside
SPREAD_RANGE times the standard deviation of the t law the check assumes (1.07 on 15 degrees of freedom), with its
95% interval excluding that. A mutant that survives a run at default fidelity or above breaks the
contract that every mutant fails there; at quick fidelity a surviving mutant is reported, not counted against.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

from checkers import probe, registry
from checkers.budget import DEFAULT_FALSE_FAIL_RATE, FIDELITIES, MAX_CHECK_MINUTES
from checkers.engine import power_at_shift
from checkers.outcome import ERROR, FAIL, INCONCLUSIVE, OUTSIDE, PASS, miscalibrated
from checkers.stats import Estimate, beyond_either_side, critical_value, pooled_mean
from checkers.store import ResultStore
from checkers.sweep import Task, plan, sweep
from checkers.verdict import PredictionResult, Verdict
from theorems.claims import NEAR_RESOLUTIONS, STATED
from theorems.errors import UnknownName

AS_STATED = STATED


def point_label(theorem: str, parameters: dict[str, str]) -> str:
    """A theorem's id, with the parameters where they are not the defaults."""
    point = ", ".join(f"{name}={value}" for name, value in parameters.items())
    return f"{theorem} ({point})" if point else theorem


@dataclass(frozen=True)
class VersionRates:
    """The outcomes of one version (the theorem as stated, or a mutant) over the seeds."""

    version: str
    runs: int
    passed: int
    failed: int
    inconclusive: int
    outside: int
    errors: int

    @property
    def fail_rate(self) -> float:
        return self.failed / self.runs if self.runs else float("nan")

    @property
    def fail_interval(self) -> tuple[float, float]:
        """The exact binomial 95% interval of the fail rate."""
        if not self.runs:
            return (0.0, 1.0)
        import scipy.stats  # here, not at the top: `show` reads records without it

        interval = scipy.stats.binomtest(self.failed, self.runs).proportion_ci(0.95, method="exact")
        return (float(interval.low), float(interval.high))

    def to_dict(self) -> dict:
        return {**asdict(self), "fail_rate": self.fail_rate, "fail_interval": list(self.fail_interval)}


@dataclass(frozen=True)
class PooledOffset:
    """One Monte Carlo prediction's offset (observed - predicted) pooled over the true statement's runs: the
    weighted mean of the runs' offsets (`checkers.stats.pooled_mean`: weights 1/(se^2 + systematic^2), the
    inverse-variance mean where no run has a systematic bound), its sampling standard error, and the chi-square of
    the runs around it on their standard errors (near runs - 1 when those are right and no run is biased).

    `systematic` is the median of the runs' systematic bounds (0 for runs read without a finite-size model whose
    exponent is only bounded). Pooling shrinks the standard error, not that bound: an offset within it is what the
    model of each run allows, however large its z.

    The checks' sequential design stops at a pass, which pulls the pooled offset slightly toward zero, so a large
    |z| is evidence of a systematic offset and a small one is not proof of none."""

    prediction: str
    runs: int
    offset: float
    standard_error: float
    chi_square: float
    resolution: float
    systematic: float = 0.0

    @property
    def z(self) -> float:
        return self.offset / self.standard_error

    @property
    def in_resolutions(self) -> float:
        return self.offset / self.resolution

    @property
    def within_systematic(self) -> bool:
        return abs(self.offset) <= self.systematic

    def describe(self) -> str:
        bound = (f"; systematic bound +- {self.systematic:.2g} per run (median), "
                 f"{'within' if self.within_systematic else 'beyond'} it" if self.systematic > 0 else "")
        return (f"{self.prediction} {self.offset:+.3g} +- {self.standard_error:.2g} (z {self.z:+.1f}; "
                f"{self.in_resolutions:+.2f} resolutions; chi-square {self.chi_square:.1f} on {self.runs - 1}{bound})")

    def to_dict(self) -> dict:
        return {**asdict(self), "z": self.z, "in_resolutions": self.in_resolutions}


def pooled_offsets(verdicts: list[Verdict]) -> tuple[PooledOffset, ...]:
    """The pooled offset of every prediction that carries a Monte Carlo estimate (a positive standard error) and a
    point target in the runs' verdicts, in the order the predictions appear."""
    readings: dict[str, list[tuple[float, float, float, float]]] = {}
    for verdict in verdicts:
        for prediction in verdict.predictions:
            offset = _point_offset(prediction)
            error, resolution = prediction.standard_error, prediction.resolution
            if offset is None or not error or error <= 0 or resolution is None:
                continue
            readings.setdefault(prediction.name, []).append(
                (offset, error, prediction.systematic or 0.0, resolution))
    pooled = []
    for name, rows in readings.items():
        offsets, errors, bounds, resolutions = zip(*rows)
        offset, standard_error, chi_square = pooled_mean(offsets, errors, bounds)
        pooled.append(PooledOffset(prediction=name, runs=len(rows), offset=offset, standard_error=standard_error,
                                   chi_square=chi_square, resolution=float(resolutions[0]),
                                   systematic=float(statistics.median(bounds))))
    return tuple(pooled)


# A standard error right to within this range of factors passes; at 50 seeds the 95% interval of a sample standard
# deviation is about 0.8 to 1.2 times it, so a spread outside the range with an interval excluding the reference
# (Student t's standard deviation) is an error.
# Fewer runs are reported, not judged: at 29 runs, spike-strength's z read sd 1.32 [1.05, 1.78] on one set of seeds
# and 80 runs on another read 1.08, its standard errors right and a bias of 0.6 se inside its systematic bound.
SPREAD_RANGE = (0.8, 1.25)
MIN_RUNS_TO_JUDGE = 50
# Where a check's implied false-fail rate exceeds this, the calibration says so beside its row.
IMPLIED_RATE_WARNING = 1e-3


@dataclass(frozen=True)
class Standardized:
    """One Monte Carlo prediction's standardized discrepancies z = (estimate - predicted) / se over the true
    statement's runs that stopped at the same sequential stage (the most common one: runs at other stages draw other
    sizes and numbers of draws, whose finite-size bias is another share of their standard error, and a mixture of
    them would inflate the spread whatever the standard errors), summarized: mean and standard deviation with 95%
    intervals (Student t and chi-square), the p-value of a Kolmogorov-Smirnov test of the runs' probabilities
    F_t(z - mean; dof) against uniform (Student t on each run's degrees of freedom, the law the check assumes,
    centred: a bias within the systematic bound shifts z), the median systematic bound in standard errors (the bias
    a run's test allows: pooling does not shrink it), and the implied false-fail rate: under z ~ mean + sd t(dof),
    the mean over the runs of P(|z| > the run's threshold), its critical value plus its allowance in standard
    errors: one test's, beside the rate one test states."""

    prediction: str
    runs: int
    stage: int  # the sequential stage these runs stopped at (1 = the first)
    mean: float
    mean_interval: tuple[float, float]
    spread: float
    spread_interval: tuple[float, float]
    fit_p_value: float
    systematic: float
    implied_false_fail_rate: float
    stated_false_fail_rate: float  # of one test of this prediction (its share of the check's rate, per stage)
    # the standard deviation of the law the check assumes for z: Student t's sqrt(dof / (dof - 2)), root mean square
    # over the runs (1 on infinite degrees of freedom; None where some dof <= 2, whose t has none); a record that
    # lacks it was judged against 1, and is read so
    reference_spread: float | None = 1.0

    @property
    def miscalibrated(self) -> bool:
        """Standard errors off: at MIN_RUNS_TO_JUDGE runs or more, a spread outside SPREAD_RANGE times the reference
        spread, with a 95% interval that excludes it (none is judged where the reference has no variance)."""
        low, high = self.spread_interval
        reference = self.reference_spread
        return (self.runs >= MIN_RUNS_TO_JUDGE and reference is not None
                and not SPREAD_RANGE[0] * reference <= self.spread <= SPREAD_RANGE[1] * reference
                and not low <= reference <= high)

    def describe(self) -> str:
        bound = f"; systematic +- {self.systematic:.2g} se (median)" if self.systematic > 0 else ""
        flag = " MISCALIBRATED standard errors" if self.miscalibrated else (
            f" (the spread is judged from {MIN_RUNS_TO_JUDGE} runs on)" if self.runs < MIN_RUNS_TO_JUDGE else "")
        warning = " (above 1e-3)" if self.implied_false_fail_rate > IMPLIED_RATE_WARNING else ""
        reference = ("" if self.reference_spread == 1 else " (not judged: Student t on 2 or fewer degrees of freedom "
                     "has no variance)" if self.reference_spread is None else
                     f" (Student t's {self.reference_spread:.2f})")
        return (f"{self.prediction}: z mean {self.mean:+.2f} [{self.mean_interval[0]:+.2f}, "
                f"{self.mean_interval[1]:+.2f}], sd {self.spread:.2f} [{self.spread_interval[0]:.2f}, "
                f"{self.spread_interval[1]:.2f}]{reference} over the {self.runs} runs that stopped at stage "
                f"{self.stage}; fit to Student t p = {self.fit_p_value:.2g}; implied false-fail rate "
                f"{self.implied_false_fail_rate:.1e} per test (stated {self.stated_false_fail_rate:.1e})"
                f"{warning}{bound}{flag}")

    def to_dict(self) -> dict:
        return {**asdict(self), "mean_interval": list(self.mean_interval),
                "spread_interval": list(self.spread_interval), "miscalibrated": self.miscalibrated}


def standardized(verdicts: list[Verdict]) -> tuple[Standardized, ...]:
    """The standardized discrepancies of every prediction with a Monte Carlo estimate and a point target in the
    runs' verdicts, in the order they appear; a prediction with fewer than three runs is left out."""
    import scipy.stats

    readings: dict[str, list[tuple[float, float, float, float]]] = {}
    for verdict in verdicts:
        for prediction in verdict.predictions:
            offset, error = _point_offset(prediction), prediction.standard_error
            if offset is None or not error or error <= 0:
                continue
            dof = prediction.degrees_of_freedom
            dof = math.inf if dof is None or not math.isfinite(float(dof)) else float(dof)
            # a prediction's stated rate is its share of the check's, over every stage its fidelity allows
            stages = FIDELITIES.get(verdict.fidelity, FIDELITIES["quick"]).stages
            rate = float(prediction.false_fail_rate or DEFAULT_FALSE_FAIL_RATE) / stages
            systematic = prediction.systematic or 0.0
            threshold = critical_value(rate, dof) + systematic / error
            readings.setdefault((prediction.name, int(prediction.stages or 1)), []).append(
                (offset / error, dof, threshold, systematic / error, rate))
    summaries = []
    for name in dict.fromkeys(name for name, _ in readings):
        stage, rows = max(((stage, rows) for (own, stage), rows in readings.items() if own == name),
                          key=lambda item: (len(item[1]), -item[0]))
        if len(rows) < 3:
            continue
        zs, dofs, thresholds, bounds, rates = (list(column) for column in zip(*rows))
        runs = len(zs)
        mean, spread = statistics.fmean(zs), statistics.stdev(zs)
        half = critical_value(0.05, runs - 1) * spread / math.sqrt(runs)
        spread_interval = (spread * math.sqrt((runs - 1) / float(scipy.stats.chi2.isf(0.025, runs - 1))),
                           spread * math.sqrt((runs - 1) / float(scipy.stats.chi2.isf(0.975, runs - 1))))
        probabilities = [float(scipy.stats.norm.cdf(z) if math.isinf(dof) else scipy.stats.t.cdf(z, dof))
                         for z, dof in zip(zs, dofs)]
        fit = float(scipy.stats.kstest(probabilities, "uniform").pvalue)
        scale = max(spread, 1e-12)  # z ~ mean + spread T: |z| > threshold is |mean/spread + T| > threshold/spread
        implied = statistics.fmean(beyond_either_side(threshold / scale, mean / scale, dof)
                                   for threshold, dof in zip(thresholds, dofs))
        reference = (math.sqrt(statistics.fmean(1.0 if math.isinf(dof) else dof / (dof - 2) for dof in dofs))
                     if all(dof > 2 for dof in dofs) else None)
        summaries.append(Standardized(prediction=name, runs=runs, stage=stage, mean=mean,
                                      mean_interval=(mean - half, mean + half),
                                      spread=spread, spread_interval=spread_interval, fit_p_value=fit,
                                      systematic=float(statistics.median(bounds)),
                                      implied_false_fail_rate=implied, stated_false_fail_rate=max(rates),
                                      reference_spread=reference))
    return tuple(summaries)


@dataclass(frozen=True)
class MeasuredMove:
    """How far one mutant's reading of one prediction lies from the true statement's on the same seed, in the
    prediction's resolutions: ((observed - target) of the mutant - (observed - target) of the statement) /
    resolution, over the seeds both read (paired calibrations, point targets). For a mutant that only moves a target
    it is minus the claims table's move; for one that acts on the simulation it is the only measure of its
    distance. Where the two stopped at different sequential stages the difference also holds their sizes'."""

    mutant: str
    prediction: str
    runs: int
    mean: float
    standard_error: float

    def describe(self) -> str:
        return f"{self.mutant} on {self.prediction}: {self.mean:+.2f} +- {self.standard_error:.2f} resolutions"

    def to_dict(self) -> dict:
        return asdict(self)


def _point_offset(prediction: PredictionResult) -> float | None:
    """observed - target of a prediction whose target is a finite point and whose reading is finite; None
    otherwise."""
    interval, observed = prediction.predicted_interval, prediction.observed
    if interval is None or observed is None or None in interval:
        return None
    observed, low, high = float(observed), float(interval[0]), float(interval[1])
    if low != high or not math.isfinite(observed) or not math.isfinite(low):
        return None
    return observed - low


def _offsets(verdict: Verdict) -> dict[str, tuple[float, float]]:
    """Each point-target prediction's (observed - target, resolution) in one verdict."""
    offsets = {}
    for prediction in verdict.predictions:
        offset, resolution = _point_offset(prediction), prediction.resolution
        if offset is not None and resolution:
            offsets[prediction.name] = (offset, float(resolution))
    return offsets


def measured_moves(stated: dict[int, Verdict], mutants: dict[str, dict[int, Verdict]]) -> tuple[MeasuredMove, ...]:
    """Every mutant's `MeasuredMove` on every prediction, from the verdicts by seed index of the true
    statement and of each mutant; a pair read on fewer than two seeds is left out."""
    moves = []
    for mutant, by_seed in mutants.items():
        readings: dict[str, list[float]] = {}
        for index, verdict in by_seed.items():
            if index not in stated:
                continue
            own, reference = _offsets(verdict), _offsets(stated[index])
            for name in own.keys() & reference.keys():
                readings.setdefault(name, []).append((own[name][0] - reference[name][0]) / reference[name][1])
        for name, values in readings.items():
            if len(values) >= 2:
                moves.append(MeasuredMove(mutant, name, len(values), statistics.fmean(values),
                                          statistics.stdev(values) / math.sqrt(len(values))))
    return tuple(sorted(moves, key=lambda move: (move.mutant, move.prediction)))


def predicted_kill_rates(verdicts: list[Verdict], offsets: dict[str, float] | None = None) -> dict[str, float]:
    """Per mutant, the kill rate the claims table predicts from the true statement's runs: the mean over the runs of
    1 - prod over predictions of (1 - the power reported against it), the predictions taken as independent.

    With `offsets` (per prediction, the readings' pooled offset from the target, `PooledOffset.offset`), a power
    computed from a mutant's target alone (`PredictionResult.mutant_shifts`) is recomputed with the reading's mean
    moved by that offset: a bias toward the mutant within the systematic bound brings it nearer than the reported
    power assumes. Powers read off the mutant's observable on the run's own draws already include the offset."""
    chances: dict[str, list[float]] = {}
    for verdict in verdicts:
        survive: dict[str, float] = {}
        for prediction in verdict.predictions:
            for mutant, power in (prediction.power or {}).items():
                if offsets is not None:
                    power = _power_at_offset(prediction, mutant, offsets.get(prediction.name), power)
                survive[mutant] = survive.get(mutant, 1.0) * (1.0 - float(power))
        for mutant, chance in survive.items():
            chances.setdefault(mutant, []).append(1.0 - chance)
    return {mutant: statistics.fmean(values) for mutant, values in chances.items()}


def _power_at_offset(prediction: PredictionResult, mutant: str, offset: float | None, reported: float) -> float:
    """The power of one run's test of `prediction` against `mutant` with the reading's mean `offset` from the
    target; the `reported` power where the run gives no shift for the mutant or there is no offset."""
    shift = (prediction.mutant_shifts or {}).get(mutant)
    if shift is None or offset is None:
        return reported
    reading = Estimate(value=prediction.observed, standard_error=prediction.standard_error,
                       degrees_of_freedom=prediction.degrees_of_freedom, samples=prediction.samples or 0,
                       systematic=prediction.systematic or 0.0)
    return power_at_shift(shift, reading, prediction.predicted_interval, prediction.stage_false_fail_rate, offset)


def power_withheld(theorem: str, parameters: dict[str, str]) -> tuple[str, ...]:
    """The claim mutants against which the true statement's runs claim no power on some prediction, whose simulation
    reads a constant they change (the check's own rule, `Checker.observed_mutants`): their own runs may be
    rejected there, so the kill rate predicted from the reported power is a lower bound. None is named outside the
    assumptions, where the statement's constants may be undefined (`thmcheck show` treats them alike)."""
    checker = registry.checker(theorem)
    if not checker.simulation_constants:
        return ()
    claims = checker.theorem.claims(parameters)
    if claims.stated.instance.assumption_failures():
        return ()
    observed = [{name for name, _ in checker.observed_mutants(claims, prediction)}
                for prediction in checker.theorem.predictions]
    return tuple(name for name in claims.claim_mutants() if any(name not in names for names in observed))


@dataclass(frozen=True)
class Calibration:
    theorem: str
    fidelity: str
    seeds: int
    stated_false_fail_rate: float
    true_statement: VersionRates
    mutants: tuple[VersionRates, ...]
    expected_failure: str = ""  # the theorem is a source's form known to fail (`Theorem.expected_failure`)
    pooled: tuple[PooledOffset, ...] = ()  # the true statement's Monte Carlo offsets pooled over its runs
    paired: bool = False  # the mutants ran on the true statement's seeds
    parameters: dict[str, str] = field(default_factory=dict)  # the point calibrated, where not the defaults
    standardized: tuple[Standardized, ...] = ()  # the true statement's z per Monte Carlo prediction
    moves: tuple[MeasuredMove, ...] = ()  # each mutant's reading against the statement's, paired calibrations only
    predicted_kills: dict[str, float] = field(default_factory=dict)  # per mutant, from the runs' reported power
    # the mutants whose predicted kill rate is a lower bound: some prediction's simulation reads a constant they
    # change, so the true statement's runs claim no power against them there (`Checker.simulation_constants`)
    predicted_at_least: tuple[str, ...] = ()
    # per mutant whose runs give its shifts, the same with each reading's mean at its prediction's pooled offset:
    # the kill rate its runs should show, which `kill_rates_disagree` holds them to
    predicted_at_offset: dict[str, float] = field(default_factory=dict)
    # each version's mean seconds a run, and the machine probe's seconds where they ran (`checkers.probe`): a later
    # calibration of the same row is estimated from them, since a paired mutant that reads the statement's draws
    # from the memo costs a fraction of a check, which the check's own estimate cannot know
    run_seconds: dict[str, float] = field(default_factory=dict)
    probe_seconds: float | None = None

    @property
    def label(self) -> str:
        return point_label(self.theorem, self.parameters)

    @property
    def miscalibrated(self) -> bool:
        """The true statement fails more often than its stated rate allows (95% interval above it), or the spread of
        a prediction's standardized discrepancies says its standard errors are off; a statement known to fail is
        miscalibrated when it ever passes."""
        return miscalibrated(bool(self.expected_failure), self.true_statement.passed,
                             self.true_statement.fail_interval[0], self.stated_false_fail_rate) or (
            not self.expected_failure and any(s.miscalibrated for s in self.standardized))

    @property
    def surviving_mutants(self) -> list[str]:
        return [m.version for m in self.mutants if m.failed < m.runs]

    @property
    def idle_mutants(self) -> dict[str, str]:
        """The surviving mutants whose survival at this calibration's parameters says nothing against the check,
        each with why: it changes only parameters that this point sets (`Theorem.mutant_is_void`); the point
        overrides one of the mutant's own parameters, so it ran away from its own claim (the user's values win,
        `Theorem.mutant_parameters`: mixture-equivalence's beta = 0.45 mutant at beta = 0.74); or it moves some
        predicted target at the defaults but none here (spike-outlier's threshold far above both thresholds).
        Empty at the defaults, or for a theorem no longer registered."""
        if not self.parameters:
            return {}
        try:
            theorem = registry.checker(self.theorem).theorem
        except UnknownName:
            return {}
        idle = {}
        for version in self.surviving_mutants:
            try:
                own = theorem.mutant(version).parameters
                overridden = [f"{name} = {self.parameters[name]}, not its own {value}" for name, value in own.items()
                              if name in self.parameters and str(self.parameters[name]) != str(value)]
                if theorem.mutant_is_void(version, self.parameters):
                    idle[version] = "the statement itself here"
                elif overridden:
                    idle[version] = "ran at " + "; ".join(overridden)
                elif theorem.mutant_distance(version) and not theorem.mutant_distance(version, self.parameters):
                    idle[version] = "moves no target here"
            except UnknownName:  # a mutant since renamed or removed
                continue
        return idle

    @property
    def errors(self) -> int:
        """The runs, of any version, whose check raised a bug."""
        return self.true_statement.errors + sum(m.errors for m in self.mutants)

    @property
    def contract_holds(self) -> bool:
        """No miscalibration, no error, and (at default fidelity or above) every mutant killed in every run."""
        strict = self.fidelity != "quick"
        return not self.miscalibrated and not self.errors and not (strict and self.surviving_mutants)

    def to_dict(self) -> dict:
        return {"theorem": self.theorem, "parameters": dict(self.parameters), "fidelity": self.fidelity,
                "seeds": self.seeds, "paired": self.paired,
                "stated_false_fail_rate": self.stated_false_fail_rate,
                "true_statement": self.true_statement.to_dict(), "mutants": [m.to_dict() for m in self.mutants],
                "miscalibrated": self.miscalibrated, "surviving_mutants": self.surviving_mutants,
                "idle_mutants": self.idle_mutants,
                "contract_holds": self.contract_holds, "expected_failure": self.expected_failure or None,
                "pooled_offsets": [p.to_dict() for p in self.pooled],
                "standardized": [s.to_dict() for s in self.standardized],
                "measured_moves": [m.to_dict() for m in self.moves],
                "predicted_kill_rates": dict(self.predicted_kills),
                "predicted_at_least": list(self.predicted_at_least),
                "predicted_at_offset": dict(self.predicted_at_offset),
                "kill_rates_disagree": self.kill_rates_disagree,
                "run_seconds": {version: round(seconds, 3) for version, seconds in self.run_seconds.items()},
                "probe_seconds": None if self.probe_seconds is None else round(self.probe_seconds, 5)}

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        """The calibration `to_dict` wrote (the derived entries recomputed, not read)."""
        def fields_of(kind, values):
            names = {f.name for f in dataclasses.fields(kind)}
            return kind(**{name: tuple(value) if isinstance(value, list) else value
                           for name, value in values.items() if name in names})

        return cls(theorem=data["theorem"], fidelity=data["fidelity"], seeds=data["seeds"],
                   stated_false_fail_rate=data["stated_false_fail_rate"],
                   true_statement=fields_of(VersionRates, data["true_statement"]),
                   mutants=tuple(fields_of(VersionRates, m) for m in data["mutants"]),
                   expected_failure=data.get("expected_failure") or "",
                   pooled=tuple(fields_of(PooledOffset, p) for p in data.get("pooled_offsets", [])),
                   paired=data.get("paired", False), parameters=dict(data.get("parameters", {})),
                   standardized=tuple(fields_of(Standardized, z) for z in data.get("standardized", [])),
                   moves=tuple(fields_of(MeasuredMove, m) for m in data.get("measured_moves", [])),
                   predicted_kills=dict(data.get("predicted_kill_rates", {})),
                   predicted_at_least=tuple(data.get("predicted_at_least", ())),
                   predicted_at_offset=dict(data.get("predicted_at_offset", {})),
                   run_seconds=dict(data.get("run_seconds", {})),
                   probe_seconds=data.get("probe_seconds"))

    @property
    def kill_rates_disagree(self) -> list[str]:
        """The mutants whose kill rate predicted from the reported power (at the readings' measured offset where
        there is one: `predicted_at_offset`) lies outside the observed rate's 95% interval (above it, for a
        prediction that is a lower bound: `predicted_at_least`)."""
        observed = {m.version: m for m in self.mutants}
        return [name for name, predicted in (self.predicted_kills | self.predicted_at_offset).items()
                if name in observed and observed[name].runs
                and not (0.0 if name in self.predicted_at_least else observed[name].fail_interval[0])
                <= predicted <= observed[name].fail_interval[1]]

    def nearest_measured(self) -> dict[str, MeasuredMove]:
        """Per mutant, its smallest measured move among those told apart from zero (|mean| above two standard
        errors): how near it comes to a target that sees it, as the claims table's smallest move."""
        best: dict[str, MeasuredMove] = {}
        for move in self.moves:
            if abs(move.mean) > 2 * move.standard_error and (
                    move.mutant not in best or abs(move.mean) < abs(best[move.mutant].mean)):
                best[move.mutant] = move
        return best

    @property
    def most_significant_offset(self) -> PooledOffset | None:
        """The pooled offset farthest from zero in standard errors (None without Monte Carlo predictions)."""
        return max(self.pooled, key=lambda p: abs(p.z), default=None)


def calibration_tasks(theorem: str, seeds: int, *, fidelity: str = "quick",
                      false_fail_rate: float = DEFAULT_FALSE_FAIL_RATE, root_seed: int = 0,
                      plugins=(), paired: bool = False, parameters: dict[str, str] | None = None,
                      max_minutes: float = MAX_CHECK_MINUTES, max_memory: float | None = None,
                      measured: Calibration | None = None) -> list[Task]:
    """The true statement's tasks and each mutant's, at `parameters` (the rest at their defaults), `seeds` seeds each
    (the mutants on the statement's seeds when `paired`). Where `measured`, an earlier calibration of the same row
    run the same way, timed its versions' runs, their tasks are estimated from those times (`timed_estimates`)."""
    tasks = plan(theorem, {}, seeds, fixed=parameters, fidelity=fidelity, false_fail_rate=false_fail_rate,
                 root_seed=root_seed, plugins=plugins, max_minutes=max_minutes, max_memory=max_memory)
    for mutant in registry.checker(theorem).theorem.mutants:
        tasks += plan(theorem, {}, seeds, fixed=parameters, fidelity=fidelity, false_fail_rate=false_fail_rate,
                      root_seed=root_seed, mutant=mutant.name, plugins=plugins, paired=paired,
                      max_minutes=max_minutes, max_memory=max_memory)
    return timed_estimates(tasks, measured) if measured is not None and measured.paired == paired else tasks


def timed_estimates(tasks: list[Task], measured: Calibration, here: float | None = None) -> list[Task]:
    """`tasks` with each version's estimate replaced by its mean run in `measured`, scaled from the probe there to
    the probe `here` (this machine's, by default); a version it did not time keeps the check's estimate. The
    refusals of work beyond --max-minutes stay the check's: they judge a run alone."""
    if not measured.run_seconds or not measured.probe_seconds:
        return tasks
    if here is None:
        here = probe.here().seconds
    return [dataclasses.replace(task, estimated_seconds=measured.run_seconds[version] * here
                                                          / measured.probe_seconds)
            if (version := task.mutant or AS_STATED) in measured.run_seconds else task for task in tasks]


def _rates(version: str, outcomes: list[str]) -> VersionRates:
    return VersionRates(version=version, runs=len(outcomes), passed=outcomes.count(PASS),
                        failed=outcomes.count(FAIL), inconclusive=outcomes.count(INCONCLUSIVE),
                        outside=outcomes.count(OUTSIDE), errors=outcomes.count(ERROR))


def calibrate(theorems: list[str], store: str | Path, *, seeds: int, fidelity: str = "quick",
              false_fail_rate: float = DEFAULT_FALSE_FAIL_RATE, root_seed: int = 0, executor: str = "processes",
              workers: int | None = None, scheduler: str | None = None, progress: bool = True,
              plugins=(), paired: bool = False, parameters: dict[str, str] | None = None,
              max_minutes: float = MAX_CHECK_MINUTES, max_memory: float | None = None,
              measured: dict[str, Calibration] | None = None) -> list[Calibration]:
    """Run (or resume) the calibration of each theorem in `store`, and summarise it. `parameters` sets a point other
    than the defaults (every theorem named must take them); a mutant's contract is the same there. `measured` holds,
    by theorem, an earlier calibration of the same row, whose timed runs estimate this one's (`calibration_tasks`)."""
    parameters, measured = dict(parameters or {}), dict(measured or {})
    planned = {theorem: calibration_tasks(theorem, seeds, fidelity=fidelity, false_fail_rate=false_fail_rate,
                                          root_seed=root_seed, plugins=plugins, paired=paired, parameters=parameters,
                                          max_minutes=max_minutes, max_memory=max_memory,
                                          measured=measured.get(theorem))
               for theorem in theorems}  # every theorem's point validated before any task runs
    results = []
    for theorem, tasks in planned.items():
        sweep(tasks, store, executor=executor, workers=workers, scheduler=scheduler, progress=progress)
        wanted = {task.key: task.mutant or AS_STATED for task in tasks}
        by_version: dict[str, list[str]] = {version: [] for version in dict.fromkeys(wanted.values())}
        verdicts: dict[str, dict[int, Verdict]] = {version: {} for version in by_version}
        with ResultStore(store) as opened:
            for record in opened.records([theorem]):
                if record.task_key in wanted:
                    by_version[wanted[record.task_key]].append(record.outcome)
                    verdicts[wanted[record.task_key]][record.seed_index] = record.verdict
        run_seconds = {version: statistics.fmean(v.elapsed_seconds for v in runs.values())
                       for version, runs in verdicts.items() if runs}
        stated = verdicts.pop(AS_STATED)
        as_stated = list(stated.values())
        pooled = pooled_offsets(as_stated)
        predicted = predicted_kill_rates(as_stated)
        at_offset = predicted_kill_rates(as_stated, {p.prediction: p.offset for p in pooled})
        results.append(Calibration(
            theorem=theorem, fidelity=fidelity, seeds=seeds, stated_false_fail_rate=false_fail_rate,
            true_statement=_rates(AS_STATED, by_version.pop(AS_STATED)),
            mutants=tuple(_rates(version, outcomes) for version, outcomes in by_version.items()),
            expected_failure=registry.checker(theorem).theorem.expected_failure, pooled=pooled,
            paired=paired, parameters=parameters, standardized=standardized(as_stated),
            moves=measured_moves(stated, verdicts) if paired else (), predicted_kills=predicted,
            predicted_at_least=power_withheld(theorem, parameters),
            predicted_at_offset={mutant: rate for mutant, rate in at_offset.items() if rate != predicted[mutant]},
            run_seconds=run_seconds, probe_seconds=probe.here().seconds))
    return results


def format_calibration(calibrations: list[Calibration]) -> str:
    """A fixed-width table: one row per version, the true statement first."""
    header = ("theorem", "version", "runs", "pass", "fail", "inconcl.", "fail rate [95% interval]", "reading")
    rows = []
    for c in calibrations:
        idle = c.idle_mutants
        for rates in (c.true_statement, *c.mutants):
            low, high = rates.fail_interval
            if rates.version == AS_STATED and c.expected_failure:
                reading = "known to fail: " + ("PASSED in some runs" if c.miscalibrated else "never passed")
            elif rates.version == AS_STATED:
                reading = (f"false-fail rate stated {c.stated_false_fail_rate:g}: "
                           + ("MISCALIBRATED" if c.miscalibrated else "consistent"))
            else:
                reading = "killed in every run" if rates.failed == rates.runs else (
                    f"survived {rates.runs - rates.failed} run(s)")
                if rates.version in c.predicted_kills:
                    at_least = "at least " if rates.version in c.predicted_at_least else ""
                    reading += f"; predicted {at_least}{c.predicted_kills[rates.version]:.2f}" + (
                        f", {c.predicted_at_offset[rates.version]:.2f} at the measured offset" if
                        f"{c.predicted_at_offset.get(rates.version, c.predicted_kills[rates.version]):.2f}"
                        != f"{c.predicted_kills[rates.version]:.2f}" else "") + (
                        " (OUTSIDE the observed interval)" if rates.version in c.kill_rates_disagree else "")
                if rates.version in idle:
                    reading += "; " + idle[rates.version]
            if rates.errors:
                reading += f"; {rates.errors} error(s)"
            rows.append((c.label, rates.version, str(rates.runs), str(rates.passed), str(rates.failed),
                         str(rates.inconclusive), f"{rates.fail_rate:.3f} [{low:.3f}, {high:.3f}]", reading))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    pooled = [(c.label, p) for c in calibrations for p in c.pooled]
    if pooled:
        lines += ["", "Offsets of the true statements' Monte Carlo estimates from their predictions, pooled over the "
                      "runs (a diagnostic finer than any one run; not a verdict):"]
        lines += [f"  {theorem}: {p.describe()}" for theorem, p in pooled]
    moves = [(c.label, m) for c in calibrations for m in c.moves]
    if moves:
        lines += ["", "Each mutant's reading against the true statement's on the same seed, in resolutions (mean +- "
                      "standard error over the paired seeds):"]
        lines += [f"  {theorem}: {m.describe()}" for theorem, m in moves]
    spreads = [(c.label, s) for c in calibrations for s in c.standardized]
    if spreads:
        lines += ["", "Standardized discrepancies z = (estimate - predicted)/se of the true statements' Monte Carlo "
                      "estimates (Student t on each run's degrees of freedom if the standard errors are right):"]
        lines += [f"  {theorem}: {s.describe()}" for theorem, s in spreads]
    return "\n".join(lines)


MARKDOWN_HEADER = ("| theorem | fidelity | seeds | as stated: pass / inconcl. / fail | false-fail rate [95% interval] "
                   "| mutants killed in every run | near mutants (resolutions) | pooled offset, largest \\|z\\| |")


def markdown_calibration(calibrations: list[Calibration]) -> str:
    """One row per theorem, for docs/calibration.md: the true statement's outcomes and false-fail rate with its
    interval, how many of its mutants were killed in every run (the survivors named), its near mutants, and its most
    significant pooled offset."""
    return "\n".join([MARKDOWN_HEADER, "|---|---|---|---|---|---|---|---|",
                      *(markdown_row(c, near_column(c)) for c in calibrations)])


def markdown_cells(c: Calibration) -> list[str]:
    """A calibration's row in the markdown table after its near-mutant cell's place: (label, fidelity, seeds,
    outcomes, rate, killed) and (pooled)."""
    rates = c.true_statement
    low, high = rates.fail_interval
    if c.expected_failure:
        rate = "known to fail: " + ("passed in some runs" if c.miscalibrated else "never passed")
    else:
        rate = f"{rates.fail_rate:.2f} [{low:.2f}, {high:.2f}]" + (" MISCALIBRATED" if c.miscalibrated else "")
    survivors = c.surviving_mutants
    idle = c.idle_mutants
    named = [f"{name} [{idle[name]}]" if name in idle else name for name in survivors]
    killed = f"{len(c.mutants) - len(survivors)} of {len(c.mutants)}" + (
        f" (not every run: {', '.join(named)})" if survivors else "")
    errors = rates.errors + sum(m.errors for m in c.mutants)
    seeds = f"{c.seeds} paired" if c.paired else str(c.seeds)
    return [c.label, c.fidelity, seeds,
            f"{rates.passed} / {rates.inconclusive} / {rates.failed}{f' ({errors} errors)' if errors else ''}", rate,
            killed]


def markdown_row(c: Calibration, near: str) -> str:
    return "| " + " | ".join([*markdown_cells(c), near, pooled_column(c)]) + " |"


def pooled_column(calibration: Calibration) -> str:
    """The most significant pooled offset: its prediction, its size in resolutions and in standard errors, and the
    runs' systematic bound in resolutions where they have one."""
    offset = calibration.most_significant_offset
    if offset is None:
        return "no Monte Carlo estimate"
    bound = f"; systematic +- {offset.systematic / offset.resolution:.2f} res." if offset.systematic > 0 else ""
    return f"{offset.prediction}: {offset.in_resolutions:+.2f} res. (z {offset.z:+.1f}{bound})"


def near_column(calibration: Calibration, table: list[str] | None = None) -> str:
    """The theorem's near mutants at the calibration's point: those the claims table puts within three resolutions
    (`table_near`, or `table` as recorded), and those that act on the simulation whose measured move is within
    three (paired calibrations), or where its nearness shows."""
    try:
        theorem = registry.checker(calibration.theorem).theorem
    except UnknownName:  # a calibration read back for a theorem no longer registered
        return "unknown"
    near = table_near(calibration) if table is None else list(table)
    # a simulated mutant's move is its distance where it ran at the statement's point: its own parameters are this
    # calibration's (mixture-equivalence's degree-one-short runs at beta = 0.45)
    simulated = {m.name for m in theorem.mutants if m.acts_on == "simulation"
                 and all(str(calibration.parameters.get(k)) == str(v) for k, v in m.parameters.items())}
    near += [f"{name} ({abs(move.mean):.2g} +- {move.standard_error:.1g}, measured)"
             for name, move in calibration.nearest_measured().items()
             if name in simulated and abs(move.mean) <= NEAR_RESOLUTIONS]
    if near:
        return ", ".join(near)
    if theorem.expected_failure:
        return "(a source's form known to fail)"
    return theorem.nearness.summary() if theorem.nearness else "none"


def table_near(calibration: Calibration) -> list[str]:
    """The near mutants the claims table gives at the calibration's point, each with its move in resolutions."""
    try:
        theorem = registry.checker(calibration.theorem).theorem
    except UnknownName:
        return []
    return [f"{name} ({value:.3g})" for name, value in theorem.near_mutants(calibration.parameters).items()]
