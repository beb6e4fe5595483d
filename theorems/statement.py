"""The statement model: a theorem as parameters, assumptions, named constants, predictions, mutants.

A `Theorem` is what a paper claims, with no randomness and no I/O. `Theorem.instance(...)` validates
parameters against their domains (raising `InvalidInput` with the parameter's name) and yields an
`Instance`: the constants derived (sympy exact where possible, mpmath otherwise) with any user
overrides applied (conjecture mode, `--set mu1=0.45`), the assumptions evaluated, and each prediction
turned into a `Target`: the interval in which the theorem places an observable.

Named constants form a graph (`Constant`): each is derived from the parameters and from the constants it
declares in `depends_on`, in declaration order. An override or a mutant changes one node, and the
instance recomputes every node downstream of it; a theorem module never handles overrides itself.
Names are checked when a theorem is built: a mutant naming a prediction, assumption, parameter,
definition or constant that does not exist, or a constant depending on one not declared before it, is a
`DeclarationError`.

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
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

import mpmath
import sympy

from theorems.activations import Activation
from theorems.errors import DeclarationError, InvalidInput, UnknownName
from theorems.formula import exact_number, parse_number, to_mpf
from theorems.formula_size import bounded_activation
from theorems.quantity import Quantity, combine

if TYPE_CHECKING:
    from theorems.claims import ClaimsTable

# names a user may try for a size the check draws at (where a theorem has such a parameter, it is used instead)
SIZE_NAMES = frozenset({"d", "n", "N", "m", "k", "p", "size", "sizes", "dimension", "samples", "width", "draws",
                        "seeds", "runs"})

PROVENANCES = {
    "paper": "as the paper states it",
    "derived": "an explicit version derived and checked for this project",
    "secondary": "known only from secondary sources, not confirmed against the paper",
    "code": "taken from the authors' public code (the repository is named in the source)",
    "rebuttal": "claimed by the authors or a reviewer in the paper's peer discussion, not in the paper "
                "(its ledger entry says who and where: thmcheck papers KEY)",
}


class Kind(StrEnum):
    """What a prediction is (see the module docstring); a str, so it prints and serializes as its value."""

    IDENTITY = "identity"
    INEQUALITY = "inequality"
    LIMIT = "limit"
    RATE = "rate"
    EVENT = "event"


KINDS = tuple(Kind)


@dataclass(frozen=True, kw_only=True)
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
                return bounded_activation(raw if isinstance(raw, (str, Activation)) else str(raw))
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


@dataclass(frozen=True, kw_only=True)
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
    return Assumption(name=f"integer-{name}", statement=f"{name} an integer in {lower}..{upper}", check=check)


@dataclass(frozen=True, kw_only=True)
class Constant:
    """A named constant of a statement: a node of the theorem's constant graph.

    `derive(parameters, dependencies, digits)` returns the constant as a `Quantity`, where
    `dependencies` holds exactly the constants named in `depends_on` (reading any other raises
    `DeclarationError`), as they stand in this instance: derived, overridden (`--set`) or nudged by a
    mutant. The statement model evaluates the graph in declaration order, so an override or a mutant
    reaches every constant derived from it, and no theorem handles overrides itself.
    """

    name: str
    derive: Callable[[Mapping[str, Any], Mapping[str, Quantity], int], Quantity]
    depends_on: tuple[str, ...] = ()
    description: str = ""

    @classmethod
    def exactly(cls, name: str, value, description: str = "") -> "Constant":
        """A constant known in closed form (an int or a sympy number), the same at every parameter."""
        return cls(name=name, derive=lambda parameters, dependencies, digits: Quantity.exactly(name, value, digits),
                   description=description)

    @classmethod
    def formula(cls, name: str, depends_on: tuple[str, ...], formula, *, parameters: tuple[str, ...] = (),
                description: str = "") -> "Constant":
        """formula(*constants, *parameters): arithmetic valid for sympy and mpmath numbers alike, exact when
        every input is (`theorems.hermite.combine`). Real parameters enter as exact numbers."""
        def derive(values, dependencies, digits):
            parts = [dependencies[d] for d in depends_on] + [parameter_quantity(p, values, digits) for p in parameters]
            return combine(name, digits, parts, formula)
        return cls(name=name, derive=derive, depends_on=tuple(depends_on), description=description)

    @classmethod
    def of_parameters(cls, name: str, derive: Callable[[Mapping[str, Any], int], Quantity],
                      description: str = "") -> "Constant":
        """A constant computed from the parameters alone: derive(parameters, digits) -> Quantity."""
        return cls(name=name, derive=lambda parameters, dependencies, digits: derive(parameters, digits),
                   description=description)


def parameter_quantity(name: str, parameters: Mapping[str, Any], digits: int) -> Quantity:
    """A real parameter as an exact Quantity, to enter `combine` formulas."""
    value = exact_number(parameters[name])
    return combine(name, digits, [Quantity(name=name, value=0, route="exact", digits=digits, exact=value)], lambda v: v)


class _Dependencies(Mapping):
    """The declared dependencies of one constant; any other name is a declaration error."""

    def __init__(self, theorem: str, constant: str, values: Mapping[str, Quantity], declared: tuple[str, ...]):
        self._theorem, self._constant, self._values, self._declared = theorem, constant, values, declared

    def __getitem__(self, name: str) -> Quantity:
        if name not in self._declared:
            raise DeclarationError(f"{self._theorem}: constant {self._constant} reads {name!r} without declaring it "
                                   f"in depends_on ({', '.join(self._declared) or 'none'})")
        return self._values[name]

    def __iter__(self):
        return iter(self._declared)

    def __len__(self) -> int:
        return len(self._declared)


@dataclass(frozen=True, kw_only=True)
class Target:
    """Where the theorem places an observable: the closed interval [lower, upper] around `value`, or with `strict`
    the open half-line (lower, inf) of a strict inequality, whose nearest error is equality."""

    value: mpmath.mpf
    lower: mpmath.mpf
    upper: mpmath.mpf
    note: str = ""
    strict: bool = False

    @classmethod
    def point(cls, value, note: str = "") -> "Target":
        """A point prediction; an mpf keeps its own precision (mpmath.mpf() would round it to the context's)."""
        value = value if isinstance(value, mpmath.mpf) else mpmath.mpf(value)
        return cls(value=value, lower=value, upper=value, note=note)

    @classmethod
    def around(cls, value, half_width, note: str = "") -> "Target":
        """A band [value - half_width, value + half_width] (a truncation bound, a claimed closeness); an mpf keeps
        its own precision, as in `point`, and the ends are formed exactly: at the context's precision a band
        narrower than the value's last digit there would round to the value itself."""
        value = value if isinstance(value, mpmath.mpf) else mpmath.mpf(value)
        half_width = half_width if isinstance(half_width, mpmath.mpf) else mpmath.mpf(half_width)
        # exactly: abs() or a minus sign would round it to the context's precision
        half_width = mpmath.fneg(half_width, exact=True) if half_width < 0 else half_width
        return cls(value=value, lower=mpmath.fsub(value, half_width, exact=True),
                   upper=mpmath.fadd(value, half_width, exact=True), note=note)

    @classmethod
    def at_least(cls, bound, note: str = "") -> "Target":
        """A one-sided prediction: the observable is >= bound (for an inequality, bound 0 on its margin)."""
        bound = bound if isinstance(bound, mpmath.mpf) else mpmath.mpf(bound)  # an mpf keeps its precision
        return cls(value=bound, lower=bound, upper=mpmath.mpf("inf"), note=note)

    @classmethod
    def above(cls, bound, note: str = "") -> "Target":
        """A strict inequality: the observable is > bound. A check confirms it only where its interval excludes
        equality."""
        bound = bound if isinstance(bound, mpmath.mpf) else mpmath.mpf(bound)  # an mpf keeps its precision
        return cls(value=bound, lower=bound, upper=mpmath.mpf("inf"), note=note, strict=True)

    @property
    def width(self) -> mpmath.mpf:
        return self.upper - self.lower


# What a resolution rests on: the three reasons a resolution may have (what a budget affords is none of them: where
# it cannot reach the resolution, the check is inconclusive)
RESOLUTION_BASES = {
    "paper": "a criterion from the paper or its authors' experiments",
    "nearest-error": "the distance of the nearest plausible derivation error",
    "numerical-accuracy": "the accuracy of an exact or deterministic computation",
    "ours": "a rule of this project's, where no paper states a criterion and no named error sets the distance",
}


# Where a theorem's near mutants show when none moves a predicted target (`Theorem.nearness`)
NEARNESS_KINDS = {
    "exact": "exact counts and identities: any error moves a count by at least 1 (two resolutions of 0.5) or leaves "
             "a residual far above round-off, so a distance in resolutions does not apply",
    "tightness": "an inequality's near mutant is a nudge of its bound, and whether it can be rejected is what the "
                 "tightness shows (thmcheck tightness)",
    "simulation": "the near mutant acts on what the check computes, not on a predicted target",
    "none-near": "no mutant lies within three resolutions",
}


@dataclass(frozen=True)
class Nearness:
    """Where a theorem's near mutants show when no mutant moves a predicted target: a kind (a key of NEARNESS_KINDS)
    and the detail for this theorem (the mutant and what shows it, or why none is near)."""

    kind: str
    detail: str = ""
    mutant: str = ""  # for "simulation": the mutant, acting on the simulation, whose paired runs measure its distance

    def __post_init__(self):
        if self.kind not in NEARNESS_KINDS:
            raise DeclarationError(f"a nearness kind must be one of {', '.join(NEARNESS_KINDS)}, got {self.kind!r}")
        if self.kind != "exact" and not self.detail.strip():
            raise DeclarationError(f"a nearness of kind {self.kind!r} must name its mutant or its reason")
        if (self.kind == "simulation") != bool(self.mutant):
            raise DeclarationError("a nearness of kind 'simulation' names its mutant (mutant=...), and only it does")

    def describe(self) -> str:
        return NEARNESS_KINDS[self.kind] + (f": {self.detail}" if self.detail else "")

    def summary(self) -> str:
        """A short form for a table cell."""
        if self.kind == "exact":
            return "exact counts and identities"
        if self.kind == "tightness":
            return f"by tightness: {self.detail}"
        if self.kind == "simulation":
            return f"{self.mutant}: acts on the simulation, measured at its own parameters"
        return self.detail.split(";", 1)[0]


@dataclass(frozen=True)
class ResolutionReason:
    """Why a prediction's resolution is what it is: its basis (a key of RESOLUTION_BASES) and the reason in words
    (the criterion cited, the error named with its distance, or how the accuracy was obtained)."""

    basis: str
    reason: str

    def __post_init__(self):
        if self.basis not in RESOLUTION_BASES:
            raise DeclarationError(f"a resolution's basis must be one of {', '.join(RESOLUTION_BASES)}, "
                                   f"got {self.basis!r}")
        if not self.reason.strip():
            raise DeclarationError("a resolution's reason must say something")

    def describe(self) -> str:
        """'(basis: nearest error): the reason', to follow the resolution's value."""
        return f"(basis: {self.basis.replace('-', ' ')}): {self.reason}"

    def to_dict(self) -> dict:
        return {"basis": self.basis, "reason": self.reason}


@dataclass(frozen=True, kw_only=True)
class Prediction:
    """One checkable consequence of the theorem.

    `predict(instance)` gives the `Target`. `resolution(instance)` is the smallest discrepancy the
    check must be able to detect to pass rather than be inconclusive; `resolution_reason` says why it is that
    (every registered theorem states one: a contract test). `applies(instance)` returns None when the
    prediction applies, else why not (e.g. no closed form to compare with).

    Where the statement owns its formula, `observable(instance, measurements)` is the value the target bounds (a
    margin, a ratio, a gap), computed from named quantities the checker measures (`measurements`, a mapping of
    numbers); a mutant that changes the formula's constants or definitions then changes this value, not the
    checker. `references(instance)` names measurements known without a draw (an equality case, a construction in
    closed form, derived in docs/derivations): the claims table evaluates every version's observable there, so how
    far a mutant's claim lies is known before any check runs. For a rate, `fitted_across` names the measured size
    across which the claimed exponent is fitted: the observable then gives one draw's value at its size (arrays
    give many), and the compared value is its log-log slope against that size (`theorems.claims.log_log_slope`).
    """

    name: str
    kind: str
    statement: str
    predict: Callable[["Instance"], Target]
    resolution: Callable[["Instance"], float]
    resolution_reason: ResolutionReason | None = None
    applies: Callable[["Instance"], str | None] = lambda instance: None
    observable: Callable[["Instance", Mapping[str, Any]], Any] | None = None
    references: Callable[["Instance"], Mapping[str, Mapping[str, Any]]] | None = None
    fitted_across: str | None = None

    def __post_init__(self):
        if self.fitted_across is not None and (self.kind != "rate" or self.observable is None):
            raise DeclarationError(f"prediction {self.name}: only a rate's observable is fitted across a size")
        if self.references is not None and self.observable is None:
            raise DeclarationError(f"prediction {self.name}: references are measurements for an observable, and it "
                                   "has none")
        if self.kind not in KINDS:
            raise DeclarationError(f"prediction {self.name}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        object.__setattr__(self, "kind", Kind(self.kind))


@dataclass(frozen=True, kw_only=True)
class Mutant:
    """A named wrong version of a theorem, which its check must reject. `simulated`: what it changes (a constant) is
    the model the check simulates (a surrogate of another degree), so only its own run shows it; its checker must
    list that constant among those its simulation reads (`Checker.simulation_constants`)."""

    name: str
    description: str
    constant_factors: Mapping[str, float] = field(default_factory=dict)
    predictions: Mapping[str, Callable[["Instance"], Target]] = field(default_factory=dict)
    dropped_assumptions: tuple[str, ...] = ()
    parameters: Mapping[str, str] = field(default_factory=dict)
    definitions: Mapping[str, Any] = field(default_factory=dict)
    constants: Mapping[str, "Constant | Callable[[Mapping[str, Any], int], Quantity]"] = field(default_factory=dict)
    simulated: bool = False

    @property
    def acts_on(self) -> str:
        """"simulation" for a mutant that changes the simulated setting (a parameter, a dropped assumption, the model
        the check simulates), else "claim" (see `theorems.claims`)."""
        return "simulation" if self.parameters or self.dropped_assumptions or self.simulated else "claim"


@dataclass(frozen=True, kw_only=True)
class Theorem:
    """A theorem as the paper states it (or as derived), with its provenance.

    `constants` is the constant graph: a tuple of `Constant` nodes, each declared after the constants
    it depends on; or, where the names depend on a parameter (c_0..c_K of a degree K), a function
    parameters -> that tuple. The statement model applies overrides and mutants to it (see
    `Instance.constants`).

    `definitions` are named pieces of the statement (a bound as a function of measured quantities, the direction
    of a spike) that its targets and observables read, and a mutant may replace; a checker asks the statement's
    functions, never a definition.
    """

    id: str
    title: str
    source: str
    provenance: str
    statement: str
    parameters: tuple[Parameter, ...]
    assumptions: tuple[Assumption, ...]
    constants: tuple[Constant, ...] | Callable[[Mapping[str, Any]], tuple[Constant, ...]]
    predictions: tuple[Prediction, ...]
    mutants: tuple[Mutant, ...] = ()
    notes: str = ""
    # where the statement, as its source states it, is known to fail its check (a secondary source's form that a
    # derivation of this project corrects): why, naming the corrected statement. The check still runs and fails;
    # the verdict carries this, and `thmcheck check` counts such a failure as expected (a pass as unexpected)
    expected_failure: str = ""
    # where this theorem's near mutants show when no mutant moves a predicted target within three resolutions
    # (`mutant_distance`): exact counts, an inequality's nudge against its tightness, a mutant acting through the
    # simulation, or why none is near. Empty when a near mutant moves a target (a contract test checks both ways)
    nearness: Nearness | None = None
    definitions: Mapping[str, Any] = field(default_factory=dict)
    constant_factors: Mapping[str, float] = field(default_factory=dict)
    constant_replacements: Mapping[str, "Constant | Callable[[Mapping[str, Any], int], Quantity]"] = field(
        default_factory=dict)

    def __post_init__(self):
        if self.provenance not in PROVENANCES:
            raise DeclarationError(f"{self.id}: provenance must be one of {list(PROVENANCES)}")
        if not self.id or not all(part.isalnum() and part.islower() for part in self.id.split("-")):
            raise DeclarationError(f"theorem id {self.id!r} must be lowercase words joined by '-'")
        self._validate_names()

    def _validate_names(self) -> None:
        """Every name a mutant uses must exist in the statement (constants are checked when derived)."""
        def unique(kind: str, names: list[str]) -> set[str]:
            repeated = sorted({name for name in names if names.count(name) > 1})
            if repeated:
                raise DeclarationError(f"{self.id}: {kind} {', '.join(repeated)} declared twice")
            return set(names)

        predictions = unique("prediction", [p.name for p in self.predictions])
        assumptions = unique("assumption", [a.name for a in self.assumptions])
        parameters = unique("parameter", [p.name for p in self.parameters])
        unique("mutant", [m.name for m in self.mutants])
        if not callable(self.constants):
            self.validate_graph(self.constants)
        for mutant in self.mutants:
            for kind, used, known in (("prediction", mutant.predictions, predictions),
                                      ("assumption", mutant.dropped_assumptions, assumptions),
                                      ("parameter", mutant.parameters, parameters),
                                      ("definition", mutant.definitions, set(self.definitions))):
                unknown = sorted(set(used) - known)
                if unknown:
                    raise DeclarationError(f"{self.id}: mutant {mutant.name} names {kind}(s) "
                                           f"{', '.join(unknown)}, which the theorem does not have "
                                           f"(its {kind}s: {', '.join(sorted(known)) or 'none'})")
        if self.nearness and self.nearness.mutant and self.mutants:  # a mutated theorem keeps no mutants
            named = next((m for m in self.mutants if m.name == self.nearness.mutant), None)
            if named is None or named.acts_on != "simulation":
                raise DeclarationError(f"{self.id}: its nearness names {self.nearness.mutant!r}, which is not one of "
                                       "its mutants that act on the simulation")

    def validate_graph(self, nodes: tuple[Constant, ...]) -> None:
        """Names unique; each dependency declared earlier; every constant a mutant names exists."""
        declared: list[str] = []
        for node in nodes:
            if not isinstance(node, Constant):
                raise DeclarationError(f"{self.id}: constants must be Constant nodes, got {type(node).__name__}")
            if node.name in declared:
                raise DeclarationError(f"{self.id}: constant {node.name} declared twice")
            missing = [name for name in node.depends_on if name not in declared]
            if missing:
                raise DeclarationError(f"{self.id}: constant {node.name} depends on {', '.join(missing)}, not "
                                       f"declared before it")
            declared.append(node.name)
        for mutant in self.mutants:
            unknown = sorted((set(mutant.constant_factors) | set(mutant.constants)) - set(declared))
            if unknown:
                raise DeclarationError(f"{self.id}: mutant {mutant.name} names constant(s) {', '.join(unknown)}, "
                                       f"which the theorem does not have (its constants: {', '.join(declared)})")
            for name, replacement in mutant.constants.items():
                if isinstance(replacement, Constant):
                    earlier = declared[:declared.index(name)]
                    missing = [d for d in replacement.depends_on if d not in earlier]
                    if missing:
                        raise DeclarationError(f"{self.id}: mutant {mutant.name}'s {name} depends on "
                                               f"{', '.join(missing)}, not declared before {name}")

    def constant_graph(self, parameters: Mapping[str, Any]) -> tuple[Constant, ...]:
        """The constant nodes at these (parsed) parameters."""
        if not callable(self.constants):
            return self.constants
        nodes = tuple(self.constants(parameters))
        if nodes:  # none where the statement is undefined (e.g. E sigma^2 infinite): nothing to validate
            self.validate_graph(nodes)
        return nodes

    def parameter(self, name: str) -> Parameter:
        return self._named("parameter", self.parameters, name)

    def prediction(self, name: str) -> Prediction:
        return self._named("prediction", self.predictions, name)

    def mutant(self, name: str) -> Mutant:
        return self._named("mutant", self.mutants, name)

    def _named(self, kind: str, items, name: str):
        """The item called `name`, or UnknownName listing the names there are."""
        for item in items:
            if item.name == name:
                return item
        raise UnknownName(f"{self.id} has no {kind} {name!r}; its {kind}s are {', '.join(i.name for i in items)}")

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

    def claims(self, parameters: Mapping[str, Any] | None = None, overrides: Mapping[str, Any] | None = None, *,
               digits: int = 30) -> "ClaimsTable":
        """The claims table at these parameters (`theorems.claims`): the statement, a conjecture under `overrides`,
        and every mutant, each prediction's target and resolution, before any draw."""
        from theorems.claims import ClaimsTable

        return ClaimsTable.build(self, parameters, overrides, digits=digits)

    def near_mutants(self, parameters: Mapping[str, Any] | None = None) -> dict[str, float]:
        """The mutants that move some predicted target by at most three resolutions: name -> the smallest move."""
        return self.claims(parameters).near()

    def mutant_parameters(self, name: str, parameters: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The parameters a check of mutant `name` runs at: the mutant's own, updated by `parameters` (the user's
        values win)."""
        return {**self.mutant(name).parameters, **(parameters or {})}

    def mutant_is_void(self, name: str, parameters: Mapping[str, Any] | None = None) -> bool:
        """Whether mutant `name` is the theorem itself at `parameters`: it changes nothing but parameters (and the
        assumptions they need dropped), `parameters` sets every one of them (`mutant_parameters` adds nothing), and
        the point meets every assumption, so dropping some changes nothing (conservation-law's tanh-conserved at
        another homogeneous activation)."""
        mutant = self.mutant(name)
        given = dict(parameters or {})
        if any((mutant.constant_factors, mutant.predictions, mutant.definitions, mutant.constants)) \
                or not mutant.parameters or self.mutant_parameters(name, given) != given:
            return False
        return not self.instance(given).assumption_failures()

    def mutant_distance(self, name: str, parameters: Mapping[str, Any] | None = None) -> dict[str, float]:
        """How far mutant `name` moves each prediction's target, in that prediction's resolutions, at the mutant's
        own parameters updated by `parameters` (`theorems.claims.ClaimsTable.moves`)."""
        self.mutant(name)
        return self.claims(parameters).moves(name)

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
            unknown = sorted(given)[0]
            sizes = "" if unknown not in SIZE_NAMES else (
                f"; a check draws at the sizes its fidelity sets (--fidelity quick, default, high or paper; "
                f"thmcheck show {self.id} describes what it draws under 'checked by')")
            raise UnknownName(f"{self.id} has no parameter {unknown!r}; its parameters are "
                              f"{', '.join(p.name for p in self.parameters)}{sizes}")
        parsed_overrides = {}
        for name, raw in (overrides or {}).items():
            try:
                number = parse_number(raw) if isinstance(raw, str) else exact_number(raw)
            except InvalidInput as error:
                raise InvalidInput(f"--set {name}: {error}") from None
            parsed_overrides[name] = number
        instance = Instance(theorem=self, parameters=values, overrides=parsed_overrides, digits=digits, labels=labels)
        names = [node.name for node in instance.graph]
        unknown = set(parsed_overrides) - set(names)
        if unknown:
            raise UnknownName(f"{self.id} has no constant {sorted(unknown)[0]!r}; its constants are "
                              f"{', '.join(names) or 'none'}")
        return instance


@dataclass(frozen=True, kw_only=True)
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
    def graph(self) -> tuple[Constant, ...]:
        return self.theorem.constant_graph(self.parameters)

    @cached_property
    def derived_constants(self) -> dict[str, Quantity]:
        """The constants as the theorem derives them, before overrides and mutant nudges."""
        return self._evaluate({}, {}, {})[0]

    @cached_property
    def constants(self) -> dict[str, Quantity]:
        """The constant graph evaluated with user overrides (route "override"), mutant factors and mutant
        replacements (route "mutant") applied, and everything that depends on them recomputed."""
        return self._evaluated[0]

    @cached_property
    def changed_constants(self) -> dict[str, str]:
        """name -> "overridden", "mutant" or "recomputed" for each constant that differs from its derivation
        because of an override or a mutant (itself, or a constant it depends on)."""
        return self._evaluated[1]

    @cached_property
    def _evaluated(self) -> tuple[dict[str, Quantity], dict[str, str]]:
        return self._evaluate(self.overrides, self.theorem.constant_factors, self.theorem.constant_replacements)

    def _evaluate(self, overrides, factors, replacements) -> tuple[dict[str, Quantity], dict[str, str]]:
        names = [node.name for node in self.graph]
        unknown = sorted((set(factors) | set(replacements)) - set(names))
        if unknown and names:  # none derive where the statement is undefined
            raise DeclarationError(f"{self.theorem.title}: names constant(s) {', '.join(unknown)}, which "
                                   f"{self.theorem.id} does not derive")
        values: dict[str, Quantity] = {}
        changed: dict[str, str] = {}
        for node in self.graph:
            name = node.name
            if name in overrides:
                number = overrides[name]
                values[name] = Quantity(name=name, value=to_mpf(number, self.digits), route="override",
                                        digits=self.digits, exact=number)
                changed[name] = "overridden"
                continue
            if name in replacements:
                replacement = replacements[name]
                if isinstance(replacement, Constant):  # a node of its own, over earlier constants
                    dependencies = _Dependencies(self.theorem.id, name, values, replacement.depends_on)
                    quantity = replacement.derive(self.parameters, dependencies, self.digits)
                else:
                    quantity = replacement(self.parameters, self.digits)
                quantity = replace(quantity, name=name, route="mutant")
                changed[name] = "mutant"
            else:
                dependencies = _Dependencies(self.theorem.id, name, values, node.depends_on)
                quantity = replace(node.derive(self.parameters, dependencies, self.digits), name=name)
                if any(dependency in changed for dependency in node.depends_on):
                    changed[name] = "recomputed"
            if name in factors:
                with mpmath.workdps(self.digits + 10):
                    quantity = Quantity(name=name, value=quantity.value * mpmath.mpf(factors[name]), route="mutant",
                                        digits=self.digits)
                changed[name] = "mutant"
            values[name] = quantity
        return values, changed

    def definition(self, name: str):
        """A named piece of the statement; an unknown name is a bug in the caller (`DeclarationError`)."""
        try:
            return self.theorem.definitions[name]
        except KeyError:
            raise DeclarationError(f"{self.theorem.id} has no definition {name!r}; its definitions are "
                                   f"{', '.join(self.theorem.definitions) or 'none'}") from None

    def constant(self, name: str) -> mpmath.mpf:
        """A named constant's value; an unknown name is a bug in the caller (`DeclarationError`)."""
        try:
            return self.constants[name].value
        except KeyError:
            raise DeclarationError(f"{self.theorem.id} has no constant {name!r}; its constants are "
                                   f"{', '.join(self.constants) or 'none'}") from None

    def assumption_failures(self) -> list[tuple[str, str]]:
        """(name, reason) for each assumption that does not hold here. A check that cannot be evaluated (an
        ArithmeticError: a constant undefined here, like a degree unbounded at beta = 1) counts as failing, with
        the error as its reason, only where another assumption fails plainly; where none does it is a bug and
        propagates."""
        failures, undefined = [], []
        for assumption in self.theorem.assumptions:
            try:
                reason = assumption.check(self)
            except ArithmeticError as error:
                undefined.append((assumption.name, error))
                failures.append((assumption.name, f"undefined here: {error}"))
                continue
            if reason:
                failures.append((assumption.name, reason))
        if undefined and len(undefined) == len(failures):
            raise undefined[0][1]
        return failures

    def describe_parameters(self) -> dict[str, str]:
        return {name: self.labels.get(name) or (value.name if isinstance(value, Activation) else str(value))
                for name, value in self.parameters.items()}

    def describe_overrides(self) -> dict[str, str]:
        """The user's constant overrides as a verdict records them."""
        return {name: str(value) for name, value in self.overrides.items()}
