"""The statement model: a theorem as parameters, assumptions, named constants, predictions, mutants.

A `Theorem` is what a paper claims, with no randomness and no I/O. `Theorem.instance(...)` validates
parameters against their domains (raising `InvalidInput` with the parameter's name) and yields an
`Instance`: the constants derived (sympy exact where possible, mpmath otherwise) with any user
overrides applied (conjecture mode, `--set mu1=0.45`), the assumptions evaluated, and each prediction
turned into a `Target`: the interval in which the theorem places an observable.

Prediction kinds:
    identity    exact, checked against a deterministic value to many digits
    inequality  deterministic, property-tested over generated instances
    limit       a Monte Carlo estimate against the predicted value
    rate        an exponent fitted across sizes against the claimed one
    event       the probability of an event against a claimed bound

A `Mutant` is a named wrong version of the statement (a constant nudged, a prediction replaced, an
assumption dropped), kept so that tests can assert every check is able to fail.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import mpmath
import sympy

from theorems.activations import Activation, activation
from theorems.errors import InvalidInput, UnknownName
from theorems.formula import exact_number, parse_number, to_mpf
from theorems.hermite import Quantity

PROVENANCES = {
    "paper": "as the paper states it",
    "derived": "an explicit version derived and checked for this project",
    "secondary": "known only from secondary sources, not confirmed against the paper",
    "code": "taken from the authors' public code (the repository is named in the source)",
}
KINDS = ("identity", "inequality", "limit", "rate", "event")


@dataclass(frozen=True)
class Parameter:
    """A validated input of a theorem. `kind` is "real", "integer", "activation" or "choice"."""

    name: str
    description: str
    kind: str
    default: str
    lower: float | None = None
    upper: float | None = None
    choices: tuple[str, ...] = ()

    def parse(self, raw: Any) -> Any:
        """The parameter's value from a user string (or a Python value), checked against its domain."""
        where = f"parameter {self.name}"
        if self.kind == "activation":
            try:
                return activation(raw if isinstance(raw, (str, Activation)) else str(raw))
            except InvalidInput as error:
                raise type(error)(f"{where}: {error}") from None
        if self.kind == "choice":
            if str(raw) not in self.choices:
                raise InvalidInput(f"{where} must be one of {', '.join(self.choices)}, got {raw!r}")
            return str(raw)
        try:
            value = parse_number(raw) if isinstance(raw, str) else exact_number(raw)
        except (InvalidInput, TypeError, ValueError, sympy.SympifyError) as error:
            raise InvalidInput(f"{where}: {error}") from None
        if self.kind == "integer":
            if not value.is_integer:
                raise InvalidInput(f"{where} must be an integer, got {raw}")
            value = int(value)
        elif self.kind != "real":
            raise AssertionError(f"unknown parameter kind {self.kind}")
        number = float(value)
        if not math.isfinite(number):
            raise InvalidInput(f"{where} must be finite, got {raw}")
        if (self.lower is not None and number < self.lower) or (self.upper is not None and number > self.upper):
            raise InvalidInput(f"{where} = {raw} is outside its domain {self.domain()}")
        return value

    def domain(self) -> str:
        if self.kind == "choice":
            return "{" + ", ".join(self.choices) + "}"
        if self.kind == "activation":
            return "a built-in activation name or a formula in z"
        lower = "-inf" if self.lower is None else f"{self.lower:g}"
        upper = "inf" if self.upper is None else f"{self.upper:g}"
        return f"{'integers' if self.kind == 'integer' else 'reals'} in [{lower}, {upper}]"


@dataclass(frozen=True)
class Assumption:
    """A hypothesis of the theorem. `check(instance)` returns None when it holds, else the reason."""

    name: str
    statement: str
    check: Callable[["Instance"], str | None]


def integer_constant(name: str, lower: int, upper: int) -> Assumption:
    """The assumption that the named constant (a degree, a count) is an integer in lower..upper."""
    def check(instance: "Instance") -> str | None:
        value = float(instance.constant(name))
        if value != int(value) or not lower <= value <= upper:
            return f"{name} = {value} must be an integer in {lower}..{upper}"
        return None
    return Assumption(f"integer-{name}", f"{name} an integer in {lower}..{upper}", check)


@dataclass(frozen=True)
class Target:
    """Where the theorem places an observable: the closed interval [lower, upper] around `value`."""

    value: mpmath.mpf
    lower: mpmath.mpf
    upper: mpmath.mpf
    note: str = ""

    @classmethod
    def point(cls, value, note: str = "") -> "Target":
        """A point prediction; an mpf keeps its own precision (mpmath.mpf() would round it to the context's)."""
        value = value if isinstance(value, mpmath.mpf) else mpmath.mpf(value)
        return cls(value, value, value, note)

    @classmethod
    def at_least(cls, bound, note: str = "") -> "Target":
        """A one-sided prediction: the observable is >= bound (for an inequality, bound 0 on its margin)."""
        bound = mpmath.mpf(bound)
        return cls(bound, bound, mpmath.mpf("inf"), note)

    @property
    def width(self) -> mpmath.mpf:
        return self.upper - self.lower


@dataclass(frozen=True)
class Prediction:
    """One checkable consequence of the theorem.

    `predict(instance)` gives the `Target`. `resolution(instance)` is the smallest discrepancy the
    check must be able to detect to pass rather than be inconclusive. `applies(instance)` returns None
    when the prediction applies, else why not (e.g. no closed form to compare with).
    """

    name: str
    kind: str
    statement: str
    predict: Callable[["Instance"], Target]
    resolution: Callable[["Instance"], float]
    applies: Callable[["Instance"], str | None] = lambda instance: None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"prediction kind must be one of {KINDS}, got {self.kind!r}")


@dataclass(frozen=True)
class Mutant:
    """A named wrong version of a theorem, which its check must reject."""

    name: str
    description: str
    constant_factors: Mapping[str, float] = field(default_factory=dict)
    predictions: Mapping[str, Callable[["Instance"], Target]] = field(default_factory=dict)
    dropped_assumptions: tuple[str, ...] = ()
    parameters: Mapping[str, str] = field(default_factory=dict)
    definitions: Mapping[str, Any] = field(default_factory=dict)
    constants: Mapping[str, Callable[[Mapping[str, Any], int], Quantity]] = field(default_factory=dict)


@dataclass(frozen=True)
class Theorem:
    """A theorem as the paper states it (or as derived), with its provenance.

    `constants(parameters, digits, given)` derives the named constants as `Quantity` objects (a
    mapping name -> Quantity); `given` maps names to values fixed from outside (user overrides, mutant
    nudges), and a constant derived from another must use the given value when there is one, so that
    an override propagates. A theorem may have constants whose number depends on a parameter.

    `definitions` are named pieces of the statement that a checker uses to build its observable (for
    example the direction of a spike); a mutant may replace them.
    """

    id: str
    title: str
    source: str
    provenance: str
    statement: str
    parameters: tuple[Parameter, ...]
    assumptions: tuple[Assumption, ...]
    constants: Callable[[Mapping[str, Any], int], dict[str, Quantity]]
    predictions: tuple[Prediction, ...]
    mutants: tuple[Mutant, ...] = ()
    notes: str = ""
    definitions: Mapping[str, Any] = field(default_factory=dict)
    constant_factors: Mapping[str, float] = field(default_factory=dict)
    constant_replacements: Mapping[str, Callable[[Mapping[str, Any], int], Quantity]] = field(default_factory=dict)

    def __post_init__(self):
        if self.provenance not in PROVENANCES:
            raise ValueError(f"{self.id}: provenance must be one of {list(PROVENANCES)}")
        if not self.id or not all(part.isalnum() for part in self.id.split("-")):
            raise ValueError(f"theorem id {self.id!r} must be lowercase words joined by '-'")

    def parameter(self, name: str) -> Parameter:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise UnknownName(f"{self.id} has no parameter {name!r}; its parameters are "
                          f"{', '.join(p.name for p in self.parameters)}")

    def mutant(self, name: str) -> Mutant:
        for mutant in self.mutants:
            if mutant.name == name:
                return mutant
        raise UnknownName(f"{self.id} has no mutant {name!r}; its mutants are "
                          f"{', '.join(m.name for m in self.mutants)}")

    def mutated(self, name: str) -> "Theorem":
        """The theorem with mutant `name` applied (for tests asserting that every check can fail)."""
        mutant = self.mutant(name)
        predictions = tuple(replace(p, predict=mutant.predictions[p.name]) if p.name in mutant.predictions else p
                            for p in self.predictions)
        assumptions = tuple(a for a in self.assumptions if a.name not in mutant.dropped_assumptions)
        definitions = {**self.definitions, **mutant.definitions}
        return replace(self, title=f"{self.title} [mutant: {name}]", predictions=predictions,
                       assumptions=assumptions, constant_factors=dict(mutant.constant_factors), mutants=(),
                       definitions=definitions, constant_replacements=dict(mutant.constants))

    def instance(self, parameters: Mapping[str, Any] | None = None, overrides: Mapping[str, Any] | None = None,
                 *, digits: int = 30) -> "Instance":
        """Validate parameters and constant overrides; raise `InvalidInput` naming the first bad one."""
        given = dict(parameters or {})
        values, labels = {}, {}
        for parameter in self.parameters:
            raw = given.pop(parameter.name, parameter.default)
            values[parameter.name] = parameter.parse(raw)
            labels[parameter.name] = values[parameter.name].name if isinstance(values[parameter.name], Activation) \
                else str(raw).strip()
        if given:
            raise UnknownName(f"{self.id} has no parameter {sorted(given)[0]!r}; its parameters are "
                              f"{', '.join(p.name for p in self.parameters)}")
        parsed_overrides = {}
        for name, raw in (overrides or {}).items():
            try:
                number = parse_number(raw) if isinstance(raw, str) else exact_number(raw)
            except InvalidInput as error:
                raise InvalidInput(f"--set {name}: {error}") from None
            parsed_overrides[name] = number
        instance = Instance(self, values, parsed_overrides, digits, labels)
        unknown = set(parsed_overrides) - set(instance.derived_constants)
        if unknown:
            raise UnknownName(f"{self.id} has no constant {sorted(unknown)[0]!r}; its constants are "
                              f"{', '.join(instance.derived_constants)}")
        return instance


@dataclass(frozen=True)
class Instance:
    """A theorem at given parameters: constants derived (and overridden), assumptions evaluated."""

    theorem: Theorem
    parameters: Mapping[str, Any]
    overrides: Mapping[str, sympy.Expr]
    digits: int = 30
    labels: Mapping[str, str] = field(default_factory=dict)  # parameters as the user wrote them

    def __getitem__(self, name: str) -> Any:
        return self.parameters[name]

    @cached_property
    def derived_constants(self) -> dict[str, Quantity]:
        """The constants as the theorem derives them, before overrides and mutant nudges."""
        return self.theorem.constants(self.parameters, self.digits, {})

    @cached_property
    def constants(self) -> dict[str, Quantity]:
        """Derived constants, with mutant factors and user overrides (route "override") applied and
        propagated to the constants derived from them."""
        given: dict[str, Quantity] = {name: replace(derive(self.parameters, self.digits), name=name, route="mutant")
                                      for name, derive in self.theorem.constant_replacements.items()}
        with mpmath.workdps(self.digits + 10):
            for name, factor in self.theorem.constant_factors.items():
                base = self.derived_constants[name]
                given[name] = Quantity(name, base.value * mpmath.mpf(factor), "mutant", self.digits)
            for name, number in self.overrides.items():
                value = to_mpf(number, self.digits)
                given[name] = Quantity(name, value, "override", self.digits, number)
        if not given:
            return dict(self.derived_constants)
        constants = self.theorem.constants(self.parameters, self.digits, given)
        constants.update({name: quantity for name, quantity in given.items() if name in constants})
        return constants

    def definition(self, name: str):
        return self.theorem.definitions[name]

    def constant(self, name: str) -> mpmath.mpf:
        return self.constants[name].value

    def assumption_failures(self) -> list[tuple[str, str]]:
        """(name, reason) for each assumption that does not hold here."""
        failures = []
        for assumption in self.theorem.assumptions:
            reason = assumption.check(self)
            if reason:
                failures.append((assumption.name, reason))
        return failures

    def describe_parameters(self) -> dict[str, str]:
        return {name: self.labels.get(name) or (value.name if isinstance(value, Activation) else str(value))
                for name, value in self.parameters.items()}
