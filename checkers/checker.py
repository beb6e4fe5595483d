"""How one theorem is checked: the `Checker` and the vocabulary its readers answer in.

A reader measures one prediction, `reader(instance, budget, seed)`, or, for a prediction that owns its observable
(`theorems.statement.Prediction.observable`), `reader(instance, budget, seed, observable)` with the tested version's
observable (a search minimizes it). What it returns is a `Measurement`: one reading for any version's observable,
`reading(observable)`. `Given` wraps a reading the reader pooled itself (an `Estimate`, Monte Carlo; an `Exact`
value, deterministic); `Measured` holds deterministic named numbers, `Draws` per-draw ones pooled into a mean,
`Fitted` per-draw ones fitted across sizes, and `Pooled` per-draw ones pooled by the reader's own estimator. A reader
that cannot decide at the sizes it affords raises `Unresolved`.

This module imports neither the registry nor the engine (`checkers.engine` runs a check).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import mpmath
import numpy as np

from checkers.budget import FIDELITIES, PAPER, Budget, Fidelity
from checkers.cost import Cost
from checkers.stats import Estimate, fit_rate, mean_estimate
from theorems.claims import ClaimsTable, Row
from theorems.errors import DeclarationError, NumericalError
from theorems.statement import Instance, Prediction, Theorem

Observable = Callable[[Mapping[str, Any]], Any]


class Measurement:
    """What a reader measured for one prediction. `reading(observable)` pools it into the one `Estimate` or `Exact`
    that a version's observable gives (the identity where the prediction owns none); `observes` says whether a
    version's observable acts on it, so that every version of the claim is read on the same measurements."""

    observes = True

    def reading(self, observable: Observable | None) -> "Estimate | Exact":
        raise NotImplementedError


@dataclass(frozen=True)
class Tightness:
    """How close an inequality came to equality in the search: the largest ratio of its two sides attained
    (1 is equality), where (`witness`), and the ratio a known construction attains, where one is known."""

    best_ratio: float
    witness: str
    attainable: float | None = None
    construction: str = ""


@dataclass(frozen=True)
class Exact(Measurement):
    """A deterministic observation: `value`, correct to within `tolerance`; for an inequality, how tight it got; for
    a prediction that owns its observable, the measurements the value was attained on (`witnesses`, by name: the
    search's extreme example, a construction), on which every mutant's claim is judged as well."""

    value: mpmath.mpf
    tolerance: float
    method: str = ""
    tightness: Tightness | None = None
    witnesses: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    observes = False  # the value is the tested version's; other versions are judged on the witnesses

    def reading(self, observable: Observable | None) -> "Exact":
        return self


@dataclass(frozen=True)
class Given(Measurement):
    """A reading the reader pooled itself (an `Estimate` or an `Exact`): every version reads the same number."""

    value: "Estimate | Exact"

    observes = False

    def reading(self, observable: Observable | None) -> "Estimate | Exact":
        return self.value


@dataclass(frozen=True)
class Measured(Measurement):
    """Deterministic measurements (named numbers) for a prediction that owns its observable, accurate enough that
    the observable on them is correct to within `tolerance`; the measurements are the reading's one witness."""

    values: Mapping[str, Any]
    tolerance: float
    method: str = ""

    def reading(self, observable: Observable | None, witness: str = "measured") -> Exact:
        return Exact(observable(self.values), tolerance=self.tolerance, method=self.method,
                     witnesses={witness: self.values})


@dataclass(frozen=True)
class Draws(Measurement):
    """Per-draw measurements of a Monte Carlo prediction that owns its observable: the observable gives each draw's
    value (one number, or an array of independent terms), pooled into a mean with its standard error
    (`mean_estimate`)."""

    draws: tuple[Mapping[str, Any], ...]
    method: str = ""

    def reading(self, observable: Observable | None) -> Estimate:
        return mean_estimate(np.concatenate([np.atleast_1d(np.asarray(observable(draw), dtype=np.float64))
                                             for draw in self.draws]), method=self.method)


@dataclass(frozen=True)
class Fitted(Draws):
    """Per-draw measurements at several sizes of a rate prediction whose observable is fitted across a size
    (`Prediction.fitted_across`, the key of each draw's size): the reading is the fitted exponent of the
    observable's per-draw values in log-log (`fit_rate`: a t interval on draws - 2 degrees of freedom)."""

    size: str = "samples"

    def reading(self, observable: Observable | None) -> Estimate:
        sizes = [draw[self.size] for draw in self.draws]
        fit = fit_rate(sizes, [float(observable(draw)) for draw in self.draws])
        return Estimate(fit.exponent, fit.standard_error, len(sizes) - 2, len(sizes), self.method)


@dataclass(frozen=True)
class Pooled(Measurement):
    """Per-draw measurements of a Monte Carlo prediction that owns its observable, pooled by the reader's own
    estimator (parts extrapolated across sizes, a product of limits): `pool(observable)` gives the Estimate for any
    version's observable."""

    pool: Callable[[Observable], Estimate]

    def reading(self, observable: Observable | None) -> Estimate:
        return self.pool(observable)


def as_measurement(read: Any) -> Measurement:
    """A reader's answer as a Measurement: an Estimate it pooled itself is `Given`."""
    return Given(read) if isinstance(read, Estimate) else read


class Unresolved(Exception):
    """Raised by a reader when the affordable sizes cannot decide a prediction either way (for example a
    spike that has not yet separated from the bulk): the prediction is inconclusive, with this reason."""


# reader(instance, budget, seed) -> Measurement | Estimate, or, for a prediction that owns its observable,
# reader(instance, budget, seed, observable) with the tested version's observable (a search minimizes it)
Reader = Callable[..., "Measurement | Estimate"]


def stochastic(prediction: Prediction) -> bool:
    """Whether a prediction is read by sampling (in stages, at a share of the false-fail rate)."""
    return prediction.kind in ("limit", "rate", "event")


@dataclass(frozen=True, kw_only=True)
class Checker:
    """How one theorem is checked: its simulation, in words, and one reader per prediction.

    `readers` maps each prediction's name to its `Reader`. The keys must be exactly the theorem's prediction names:
    a checker that misses one, or names one the theorem does not have, is refused when it is built
    (`DeclarationError`), so a renamed prediction can never be read by another prediction's reader.

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
    long: the work its readers may spend, from the plan of sizes and draws they run, which its measured time
    (`checkers.cost_records`) prices at other sizes. A check estimated beyond the caller's cap is refused before any
    draw.

    What the contract (`checkers.contract`) and the calibration read of this check:
    `resolves_at`, the lowest fidelity whose samples resolve the true statement's stated resolution at the defaults
    (below it the check may be inconclusive, never failing), and `prediction_resolves_at`, a lower one for a
    prediction that its samples resolve earlier; `second_point`, the parameters of a second point the
    slow calibration runs at; `calibration_seeds`, its seeds per version at quick fidelity; `slow_mutants` and
    `slow_rerun`, where the mutants' runs (minutes at default) or a rerun (tens of seconds) belong to the slow tests.
    `paper_scale` says, for a Monte Carlo check that offers `--fidelity paper`, which sizes it reads there and which
    paper's scale they are; an exact check (`exact`) reads paper fidelity at default, and any other check without a
    paper scale refuses it. `array_api`: its simulation runs on any backend of
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
        for name in ("readers", "simulation_constants", "prediction_resolves_at"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        if self.second_point is not None:
            object.__setattr__(self, "second_point", MappingProxyType(dict(self.second_point)))
        problems = (_reader_problems(self) + _simulation_constant_problems(self) + _fidelity_problems(self)
                    + _second_point_problems(self))
        if problems:
            raise DeclarationError(f"checker of {self.theorem.id}: {problems[0]}")

    @property
    def id(self) -> str:
        return self.theorem.id

    @property
    def exact(self) -> bool:
        """Whether every prediction is an exact or deterministic observation (no sampled stage): its verdict does not
        grow sharper with sample sizes, so paper fidelity reads it at default."""
        return not any(stochastic(prediction) for prediction in self.theorem.predictions)

    def read(self, instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence,
             observable: Observable | None = None) -> Measurement:
        """What the reader of one prediction measured; with `observable` (the tested version's, for a prediction that
        owns it), the reader is given it."""
        reader = self.readers[prediction]
        read = reader(instance, budget, seed) if observable is None else reader(instance, budget, seed, observable)
        return as_measurement(read)

    def resolved_at(self, prediction: Prediction) -> str:
        """The lowest fidelity whose budget resolves `prediction` at the defaults: quick for an exact or deterministic
        one (its single stage), else its own in `prediction_resolves_at`, else the checker's `resolves_at`."""
        if not stochastic(prediction):
            return "quick"
        return self.prediction_resolves_at.get(prediction.name, self.resolves_at)

    def deciding_fidelity(self) -> str:
        """Where the check must decide, the true statement pass and a mutant that survives quick fidelity fail:
        default, or `resolves_at` where that is higher (below it the check may stay inconclusive)."""
        return self.resolves_at if FIDELITIES[self.resolves_at].level > FIDELITIES["default"].level else "default"

    def resolving_fidelity(self, current: str) -> str | None:
        """The fidelity above `current` to rerun an undecided check at: `resolves_at` where that is higher, else the
        next one up (paper only for a check that offers it); None above the highest it has."""
        higher = [name for name, fidelity in FIDELITIES.items() if fidelity.level > FIDELITIES[current].level
                  and (name != PAPER or self.paper_scale)]
        if not higher:
            return None
        return self.resolves_at if self.resolves_at in higher else higher[0]

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

    def observed_mutants(self, claims: ClaimsTable, prediction: Prediction) -> Iterator[tuple[str, Row]]:
        """(name, row) of the claim mutants a run of the statement can speak for on this prediction: none on a
        mutant's own run or under an override (the tested claim is not the statement), and none whose constants the
        simulation of this prediction reads (`simulation_constants`): their effect shows in their own runs."""
        if claims.conjecture is not None:
            return
        for name, row in claims.claim_mutants().items():
            if prediction.name not in self.simulations_changed(claims.stated.instance, row.instance):
                yield name, row


def _reader_problems(checker: Checker) -> list[str]:
    predictions = [prediction.name for prediction in checker.theorem.predictions]
    missing = [name for name in predictions if name not in checker.readers]
    unknown = [name for name in checker.readers if name not in predictions]
    if missing or unknown:
        problems = ([f"no reader for prediction(s) {', '.join(missing)}"] if missing else []) + (
            [f"reader(s) {', '.join(unknown)} name no prediction"] if unknown else [])
        return [f"{'; '.join(problems)} (its predictions are {', '.join(predictions)})"]
    return [f"the reader of {name} is not callable" for name, reader in checker.readers.items() if not callable(reader)]


def _simulation_constant_problems(checker: Checker) -> list[str]:
    predictions = [prediction.name for prediction in checker.theorem.predictions]
    unknown = [name for name in checker.simulation_constants if name not in predictions]
    declarations = checker.theorem.constants  # a tuple, or a function of the parameters (checked where it is read)
    read = {name for names in checker.simulation_constants.values() for name in names}
    unread = sorted(read - {constant.name for constant in declarations}) if isinstance(declarations, tuple) else []
    if unknown or unread:
        return [f"simulation_constants names {', '.join(unknown + unread)}, which are not its predictions or "
                "constants"]
    return [f"mutant {mutant.name} is declared simulated, but none of the constants it changes is in "
            "simulation_constants" for mutant in checker.theorem.mutants
            if mutant.simulated and not (set(mutant.constant_factors) | set(mutant.constants)) & read]


def _fidelity_problems(checker: Checker) -> list[str]:
    if checker.resolves_at not in FIDELITIES:
        return [f"resolves_at must be one of {', '.join(FIDELITIES)}, got {checker.resolves_at!r}"]
    predictions = [prediction.name for prediction in checker.theorem.predictions]
    return [f"prediction_resolves_at gives {name} {fidelity!r}; it must name a prediction and a fidelity no higher "
            f"than resolves_at ({checker.resolves_at})" for name, fidelity in checker.prediction_resolves_at.items()
            if name not in predictions or fidelity not in FIDELITIES
            or FIDELITIES[fidelity].level > FIDELITIES[checker.resolves_at].level]


def _second_point_problems(checker: Checker) -> list[str]:
    if checker.second_point is None:
        return []
    unknown = sorted(set(checker.second_point) - {parameter.name for parameter in checker.theorem.parameters})
    return [f"second_point names {', '.join(unknown)}, not its parameters"] if unknown else []


def not_a_number(reading: "Estimate | Exact") -> bool:
    """Whether a reading's value (or an estimate's standard error) is NaN."""
    numbers = [reading.value] + ([reading.standard_error] if isinstance(reading, Estimate) else [])
    return any(mpmath.isnan(number) if isinstance(number, mpmath.mpf) else math.isnan(float(number))
               for number in numbers)
