"""The claims table: what a statement, each of its mutants and a conjecture claim at one point, before any draw.

`Theorem.claims(parameters, overrides)` builds it. Each row is one version of the statement at its parameters:

    stated       the theorem as stated, at the given parameters
    conjecture   the same with the user's constant overrides (`--set`), the claim a check then tests
    a mutant     at its own parameters updated by the given ones (the user's values win), as its check runs it

A row gives, per prediction, whether it applies, its `Target` and its resolution, each evaluated once and kept (a
statement's error propagates to the caller, who decides what it means there). A mutant acts on the **claim** when
it changes what is predicted (a constant, a prediction, a definition), or on the **simulation** when it changes
the setting the check simulates (a parameter, a dropped assumption, the model it simulates: `Mutant.simulated`):
such a mutant is judged by its own run. A claim mutant's `moves` are, per prediction it moves, the distance from
the stated value to its claimed interval in the stated prediction's resolutions (for a prediction that owns its
observable, how far the mutant's observable lies outside its target on the statement's reference measurements);
the near mutants are those within `NEAR_RESOLUTIONS`. A check's power against each mutant is its comparison applied
to that mutant's row (`checkers.engine.mutant_power`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from theorems.errors import ThmcheckError

if TYPE_CHECKING:
    from theorems.statement import Instance, Target, Theorem

STATED, CONJECTURE = "as stated", "conjecture"
NEAR_RESOLUTIONS = 3 * (1 + 1e-12)  # a near mutant lies at most three resolutions from the truth (ratio rounding)


def near_moves(moves: Mapping[str, Mapping[str, float | None] | None]) -> dict[str, float]:
    """The near mutants among `moves` (mutant name -> resolutions it moves each predicted target, None where that
    is undefined): name -> its smallest move, for those whose smallest move is at most NEAR_RESOLUTIONS."""
    smallest = {name: min((v for v in (per_target or {}).values() if v is not None), default=math.inf)
                for name, per_target in moves.items()}
    return {name: value for name, value in smallest.items() if value <= NEAR_RESOLUTIONS}


def log_log_slope(sizes, values) -> float:
    """The least-squares slope of log(value) on log(size): the exponent b of value ~ C size^b."""
    import numpy as np

    x, y = np.log(np.asarray(sizes, dtype=float)), np.log(np.asarray(values, dtype=float))
    centred = x - x.mean()
    return float(centred @ (y - y.mean()) / (centred @ centred))


@dataclass
class Row:
    """One version of the statement at its parameters; its instance and each prediction's claim, built on first use
    (`built` says whether the instance can be built here, without raising)."""

    name: str
    theorem: "Theorem"
    parameters: Mapping[str, Any]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    digits: int = 30
    acts_on: str = "claim"
    _cache: dict = field(default_factory=dict, repr=False)

    @cached_property
    def instance(self) -> "Instance":
        return self.theorem.instance(self.parameters, self.overrides, digits=self.digits)

    def built(self) -> bool:
        """Whether the instance can be built here; a version that cannot claims nothing (no power, no move)."""
        try:
            self.instance
        except (ThmcheckError, ArithmeticError):
            return False
        return True

    def _once(self, what: str, prediction: str, compute):
        key = (what, prediction)
        if key not in self._cache:
            try:
                self._cache[key] = (compute(), None)
            except Exception as error:  # kept, and raised again at every read: the caller decides what it means
                self._cache[key] = (None, error)
        value, error = self._cache[key]
        if error is not None:
            raise error
        return value

    def applies(self, prediction: str) -> str | None:
        """None where the prediction applies here, else why not."""
        return self._once("applies", prediction, lambda: self.theorem.prediction(prediction).applies(self.instance))

    def target(self, prediction: str) -> "Target":
        return self._once("target", prediction, lambda: self.theorem.prediction(prediction).predict(self.instance))

    def resolution(self, prediction: str) -> float:
        return self._once("resolution", prediction,
                          lambda: float(self.theorem.prediction(prediction).resolution(self.instance)))

    def observe(self, prediction: str, measurements: Mapping[str, Any]):
        """This version's observable of `prediction` on measured quantities (`Prediction.observable`)."""
        return self.theorem.prediction(prediction).observable(self.instance, measurements)

    def references(self, prediction: str) -> Mapping[str, Mapping[str, Any]]:
        """The prediction's reference measurements here (`Prediction.references`), none where it states none."""
        declared = self.theorem.prediction(prediction).references
        return self._once("references", prediction, lambda: dict(declared(self.instance)) if declared else {})

    def claimed(self, prediction: str, measurements: Mapping[str, Any] | None = None) -> float:
        """How far this version's claim on `prediction` lies outside its own target, in the observable's units: on
        `measurements` for a prediction with an observable (the mean, where it gives one draw's terms; the fitted
        exponent, for a rate fitted across a size), else at `measurements["value"]` (0 inside the target)."""
        target, declared = self.target(prediction), self.theorem.prediction(prediction)
        value = self.observe(prediction, measurements) if declared.observable else measurements["value"]
        if declared.fitted_across is not None:
            value = log_log_slope(measurements[declared.fitted_across], value)
        elif hasattr(value, "mean"):
            value = value.mean()
        return float(max(target.lower - value, value - target.upper, 0))


@dataclass(frozen=True)
class ClaimsTable:
    """The rows of one theorem at one point: `stated`, `conjecture` (None without overrides) and one per mutant."""

    theorem: "Theorem"
    stated: Row
    conjecture: Row | None
    mutants: Mapping[str, Row]
    truths: Mapping[str, Row]  # per mutant, the statement at that mutant's parameters (the stated row where equal)

    @classmethod
    def build(cls, theorem: "Theorem", parameters: Mapping[str, Any] | None = None,
              overrides: Mapping[str, Any] | None = None, *, digits: int = 30) -> "ClaimsTable":
        """The table; the stated row's (and the conjecture's) parameters and overrides are validated at once, so bad
        input stops here (`InvalidInput`), before any row is evaluated."""
        parameters = dict(parameters or {})
        stated = Row(STATED, theorem, parameters, digits=digits)
        stated.instance
        conjecture = None
        if overrides:
            conjecture = Row(CONJECTURE, theorem, parameters, dict(overrides), digits=digits)
            conjecture.instance
        mutants, truths = {}, {}
        for mutant in theorem.mutants:
            own = theorem.mutant_parameters(mutant.name, parameters)
            mutants[mutant.name] = Row(mutant.name, theorem.mutated(mutant.name), own, digits=digits,
                                       acts_on=mutant.acts_on)
            truths[mutant.name] = stated if own == parameters else Row(STATED, theorem, own, digits=digits)
        return cls(theorem=theorem, stated=stated, conjecture=conjecture, mutants=mutants, truths=truths)

    @property
    def tested(self) -> Row:
        """The row a check of this table tests: the conjecture where there is one, else the statement."""
        return self.conjecture or self.stated

    def claim_mutants(self) -> dict[str, Row]:
        """The mutants that act on the claim and can be evaluated at this point."""
        return {name: row for name, row in self.mutants.items() if row.acts_on == "claim" and row.built()}

    def moves(self, mutant: str) -> dict[str, float]:
        """How far mutant `mutant` moves each prediction, in the stated prediction's resolutions, at the mutant's
        parameters, for the predictions that apply on both sides and that it moves. For a prediction with an
        observable, the farthest its claim lies outside its own target on the statement's reference measurements,
        beyond where the statement's own lies (its round-off there; none without references); else the distance from
        the stated value to the mutant's interval; inf where the prediction is a strict inequality, whose resolution is
        round-off. A statement's error propagates."""
        wrong, true = self.mutants[mutant], self.truths[mutant]
        distances = {}
        for prediction in self.theorem.predictions:
            name = prediction.name
            if true.applies(name) is not None or wrong.applies(name) is not None:
                continue
            if prediction.observable is not None:
                shift = max((wrong.claimed(name, measured) - true.claimed(name, measured)
                             for measured in true.references(name).values()), default=0.0)
            else:
                shift = wrong.claimed(name, {"value": true.target(name).value})
            if shift > 0:  # a strict inequality's resolution is round-off: any move is beyond it
                distances[name] = math.inf if true.target(name).strict else shift / true.resolution(name)
        return distances

    def near(self) -> dict[str, float]:
        """The mutants that move some predicted target by at most three resolutions: name -> the smallest move."""
        return near_moves({name: self.moves(name) for name in self.mutants})
