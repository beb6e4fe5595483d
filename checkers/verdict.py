"""Verdicts with evidence: pass / fail / inconclusive / outside assumptions, as text and as JSON."""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import asdict, dataclass, field

from checkers.outcome import (
    PASS,
    SKIPPED,
    VERDICT_OUTCOMES,
    Claim,
    Outcome,
    as_expected,
    claim_of,
    failed_as_expected,
    reading,
)
from checkers.reasons import describe_here


def _number(value) -> float | str | None:
    """A JSON-safe number: floats as they are, infinities and NaN as the strings "inf", "-inf", "nan"
    (strict JSON has no such literals)."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else str(number)


# the fields of a PredictionResult that are numbers (JSON writes their infinities as strings)
NUMBERS = ("predicted", "observed", "standard_error", "systematic", "degrees_of_freedom", "distance", "statistic",
           "p_value", "detectable", "resolution", "false_fail_rate", "tolerance", "stage_false_fail_rate",
           "from_stated")


def json_safe(value):
    """`value` with every float JSON-safe (`_number`), through lists, tuples and dicts."""
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class PredictionResult:
    """One prediction's test: what was predicted, what was observed, and the comparison."""

    name: str
    kind: str
    statement: str
    outcome: str
    predicted: float | None = None
    predicted_interval: tuple[float, float] | None = None
    observed: float | None = None
    standard_error: float | None = None
    systematic: float | None = None  # a bound on the observation's bias beyond its standard error (a model's spread)
    degrees_of_freedom: float | None = None
    samples: int | None = None
    method: str = ""
    distance: float | None = None
    statistic: float | None = None
    p_value: float | None = None
    detectable: float | None = None
    resolution: float | None = None
    resolution_reason: dict | None = None  # why the resolution is what it is: {"basis": ..., "reason": ...}
    false_fail_rate: float | None = None
    stages: int = 0
    message: str = ""
    tolerance: float | None = None  # the stated accuracy of an exact (deterministic) observation
    power: dict[str, float] | None = None  # per mutant whose prediction differs: the chance this test rejects it
    # per mutant whose power comes from its target alone (not its observable on these draws): how far that target
    # lies beyond the tested interval, + above it and - below; calibrate recomputes the power at the readings'
    # measured offset from these and the false-fail rate of the test at the stage read, at which `power` is computed
    mutant_shifts: dict[str, float] | None = None
    stage_false_fail_rate: float | None = None
    # for an inequality: best_ratio of its two sides attained in the search (1 = equality), witness, and the ratio
    # a known construction attains (attainable, construction), where one is known
    tightness: dict | None = None
    # for a conjecture: how far its claimed interval lies from the statement's (0 where they meet), known before any
    # draw; below `detectable`, a run cannot tell the two apart, whatever it reads
    from_stated: float | None = None
    # away from the defaults, where a resolution's reason computed its distances: the mutants nearest this
    # prediction's target at the point run, in its resolutions there (`checkers.reasons`); None at the defaults
    nearest_here: dict[str, float] | None = None
    # the target is the open half-line (lower, inf) of a strict inequality, passed only where equality is rejected
    strict: bool = False
    # the reading is one Monte Carlo estimate of the claimed quantity (not a claim at every size, read at its worst
    # part, nor an exact value): independent seeds' readings at one point pool into one (`checkers.pooling`); None
    # where not known (a result stored before this was recorded, or one never compared)
    pools: bool | None = None

    @property
    def indistinguishable(self) -> bool:
        """A conjecture's claim nearer the statement's than this run could detect: its reading says nothing between
        the two."""
        return self.from_stated is not None and self.detectable is not None and self.from_stated < self.detectable

    def to_dict(self) -> dict:
        return json_safe(asdict(self))

    @classmethod
    def from_dict(cls, data: dict) -> "PredictionResult":
        """The result `to_dict` wrote; the strings "inf", "-inf" and "nan" of a number come back as floats."""
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        for name in NUMBERS:
            if known.get(name) is not None:
                known[name] = float(known[name])
        if known.get("predicted_interval") is not None:
            known["predicted_interval"] = tuple(float(end) for end in known["predicted_interval"])
        if known.get("power") is not None:
            known["power"] = {mutant: float(value) for mutant, value in known["power"].items()}
        if known.get("mutant_shifts") is not None:
            known["mutant_shifts"] = {mutant: float(value) for mutant, value in known["mutant_shifts"].items()}
        return cls(**known | {"outcome": Outcome(known["outcome"])})


@dataclass(frozen=True)
class Verdict:
    """The result of checking one theorem at one parameter point."""

    theorem: str
    title: str
    provenance: str
    outcome: str
    predictions: tuple[PredictionResult, ...]
    parameters: dict[str, str]
    overrides: dict[str, str] = field(default_factory=dict)
    assumption_failures: tuple[tuple[str, str], ...] = ()
    seed: int = 0
    fidelity: str = "default"
    false_fail_rate: float = 1e-6
    elapsed_seconds: float = 0.0
    mutant: str | None = None
    expected_failure: str = ""  # the theorem's `expected_failure`: why this statement is known to fail its check
    error: str = ""  # a sweep task whose check raised a bug (outcome "error"): what it raised
    backend: str = "numpy"  # the array library the simulation's matrix work ran on (`checkers.arrays`)
    device: str = "cpu"  # where that library computed
    dtype: str | None = None  # what it computed in, on a backend other than numpy (`checkers.arrays.dtype_name`)

    @property
    def place(self) -> str:
        """The device and, where known, the dtype its backend computed in ("cpu, float64")."""
        return ", ".join(filter(None, (self.device, self.dtype)))

    @property
    def passed(self) -> bool:
        return self.outcome == PASS

    @property
    def claim(self) -> Claim:
        """What this run tested: the statement as stated, a mutant, or a conjecture (`checkers.outcome`)."""
        return claim_of(self.mutant, self.overrides)

    @property
    def reading(self) -> str:
        """The outcome in the words of its claim (`checkers.outcome.reading`)."""
        return reading(self.outcome, self.claim, bool(self.expected_failure))

    @property
    def as_expected(self) -> bool:
        """False for the outcomes that make `thmcheck check` exit 1 (`checkers.outcome.standing`)."""
        return as_expected(self.outcome, self.claim, bool(self.expected_failure))

    def to_dict(self) -> dict:
        return {
            "theorem": self.theorem,
            "title": self.title,
            "provenance": self.provenance,
            "outcome": self.outcome,
            "expected_failure": self.expected_failure or None,
            "mutant": self.mutant,
            "parameters": self.parameters,
            "overrides": self.overrides,
            "assumption_failures": [{"assumption": name, "reason": reason}
                                    for name, reason in self.assumption_failures],
            "seed": self.seed,
            "fidelity": self.fidelity,
            "false_fail_rate": _number(self.false_fail_rate),
            "elapsed_seconds": round(self.elapsed_seconds, 3),
            "backend": self.backend,
            "device": self.device,
            "dtype": self.dtype,
            "predictions": [prediction.to_dict() for prediction in self.predictions],
        } | ({"error": self.error} if self.error else {})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    @classmethod
    def from_dict(cls, data: dict) -> "Verdict":
        """The verdict `to_dict` wrote (a sweep store's row, a `--json` result); infinities come back as floats. A
        row stored before the outcome's key was named `outcome` names it `verdict`."""
        return cls(
            theorem=data["theorem"], title=data.get("title", data["theorem"]), provenance=data.get("provenance", "?"),
            outcome=Outcome(data["outcome"] if "outcome" in data else data["verdict"]),
            predictions=tuple(PredictionResult.from_dict(p) for p in data.get("predictions", [])),
            parameters=dict(data.get("parameters", {})), overrides=dict(data.get("overrides") or {}),
            assumption_failures=tuple((f["assumption"], f["reason"]) for f in data.get("assumption_failures", [])),
            seed=data.get("seed", 0), fidelity=data.get("fidelity", "default"),
            false_fail_rate=float(data.get("false_fail_rate", 1e-6)),
            elapsed_seconds=data.get("elapsed_seconds", 0.0), mutant=data.get("mutant"),
            expected_failure=data.get("expected_failure") or "", error=data.get("error") or "",
            backend=data.get("backend", "numpy"), device=data.get("device", "cpu"), dtype=data.get("dtype"))

    def explain(self) -> str:
        """A few lines a person can read: the verdict, then each prediction's evidence, numbers at the digits their
        standard errors (or stated accuracies) support, long lines folded."""
        parameters = ", ".join(f"{k}={v}" for k, v in self.parameters.items())
        tested = f" [mutant {self.mutant}]" if self.mutant else ""
        where = "" if self.backend == "numpy" else f" on {self.backend} ({self.place})"
        lines = [f"{self.theorem}{tested} [{self.provenance}] ({parameters}){where}: {self.reading.upper()}"]
        if self.expected_failure:
            lines.append(f"  expected to fail: {self.expected_failure}")
        if self.overrides:
            lines.append("  constants overridden: " + ", ".join(f"{k}={v}" for k, v in self.overrides.items()))
        for name, reason in self.assumption_failures:
            lines.append(f"  assumption {name} fails: {reason}")
        for p in self.predictions:
            lines.append(f"  - {p.name} ({p.kind}): {reading(p.outcome, self.claim, False)}")
            if p.indistinguishable:
                lines.append(f"      this run cannot tell the conjecture from the statement: their claims lie "
                             f"{p.from_stated:.2g} apart, under the {p.detectable:.2g} it could detect")
            if p.predicted_interval is not None and p.observed is not None:
                lines += _comparison_lines(p)
            if p.tightness:
                lines.append("      tightness: " + describe_tightness(p.tightness))
            if p.power:
                lines.append("      power against mutants (chance of rejecting each at these samples): "
                             + ", ".join(f"{name} {value:.2f}" for name, value in p.power.items()))
            if p.message:
                lines.append(f"      {p.message}")
        return "\n".join(_folded(line) for line in lines)


def _comparison_lines(p: PredictionResult) -> list[str]:
    """A compared prediction's evidence: predicted and observed, the distance against what was detectable, and the
    resolution with its reason (and, away from the defaults, the nearest errors there)."""
    lines = []
    lower, upper = p.predicted_interval
    scale = p.standard_error if p.standard_error else p.tolerance
    predicted = shown(lower, scale) if lower == upper else f"[{shown(lower, scale)}, {shown(upper, scale)}]"
    observed = shown(p.observed, scale)
    if p.standard_error is not None:
        systematic = f"; systematic +- {p.systematic:.2g}" if p.systematic else ""
        observed += f" +- {p.standard_error:.2g} (se{systematic}, {p.samples} samples, {p.method})"
    elif p.method:
        observed += f" ({p.method})"
    beyond = max(lower - p.observed, p.observed - upper)
    if p.standard_error is None and beyond > 0 and p.outcome == PASS:
        observed += (f"; {beyond:.2g} beyond the interval, within its stated accuracy "
                     f"{p.tolerance:.2g}: at the bound to round-off, not past it")
    lines.append(f"      predicted {predicted}; observed {observed}")
    # the resolution is printed once: with its reason where it states one, else here
    resolution = "" if p.resolution_reason else f" (resolution {p.resolution:.3g})"
    lines.append(f"      off by {p.distance:.3g}; detectable {p.detectable:.3g}{resolution}; "
                 f"false-fail rate {p.false_fail_rate:.2g}")
    if (p.outcome == "pass" and p.standard_error and p.p_value is not None
            and p.p_value < NOTABLE_P_VALUE):
        lines.append(f"      note: off by {p.statistic:.2g} standard errors (p = {p.p_value:.2g}), below "
                     "the critical value this test uses at its false-fail rate; if the difference is "
                     "real, it lies inside the resolution, which this pass does not claim to see")
    if p.resolution_reason:
        lines.append(f"      resolution {p.resolution:.3g} (basis: "
                     f"{p.resolution_reason['basis'].replace('-', ' ')}): {p.resolution_reason['reason']}")
        if p.nearest_here is not None:
            lines.append(f"      {describe_here(p.nearest_here)}")
    return lines


FOLD_WIDTH = 116


def _folded(line: str) -> str:
    """A long evidence line folded at FOLD_WIDTH, its continuation indented under its text."""
    if len(line) <= FOLD_WIDTH:
        return line
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.fill(line, FOLD_WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def shown(value: float, scale: float | None) -> str:
    """A number at the digits its uncertainty supports: to the second significant digit of `scale` (a standard
    error, a stated accuracy), at most 12 significant digits (the evidence is read in float64), 6 where there is
    no scale."""
    if not math.isfinite(value):
        return f"{value:g}"
    if scale is None or not math.isfinite(scale) or scale <= 0:
        return f"{value:.6g}"
    magnitude = math.floor(math.log10(abs(value))) if value else math.floor(math.log10(scale))
    digits = min(max(magnitude - math.floor(math.log10(scale)) + 2, 2), 12)
    return f"{value:.{digits}g}"


# A passing Monte Carlo prediction whose estimate lies this improbably far from the prediction says so: a real
# discrepancy smaller than the resolution (a finite-size bias, a small error) shows first like this
NOTABLE_P_VALUE = 1e-3


# Below this best ratio an inequality is loose where it was checked: its pass rejects only errors of its bound by a
# factor beyond 1/ratio, not the near errors (a few percent) that a sharp check rejects
LOOSE_RATIO = 0.5


def describe_tightness(tightness: dict) -> str:
    """The best ratio of an inequality's two sides, where it was attained, and the known attainable ratio; a loose
    one says what its pass can and cannot reject."""
    ratio = tightness["best_ratio"]
    text = f"best ratio {ratio:.6g} of the two sides (1 = equality) at {tightness['witness']}"
    if tightness.get("attainable") is not None:
        text += f"; a known construction attains {tightness['attainable']:.6g} ({tightness['construction']})"
    if ratio < LOOSE_RATIO and tightness.get("attainable") is None:
        factor = f"{1 / ratio:.3g} times" if ratio > 0 else "any factor"  # 0: the smaller side vanished here
        text += (f"; loose here: the larger side could be {factor} smaller and the inequality would "
                 "still hold, so this pass rejects only errors beyond that factor, not a near error of a few percent")
    return text


TABLE_HEADER = ("theorem", "provenance", "verdict", "evidence")


def tested_name(theorem: str, mutant: str | None, overrides) -> str:
    """A theorem's name in the table, tagged with the claim a run tested: a mutant, or a conjecture's constants."""
    if mutant:
        return f"{theorem} [mutant {mutant}]"
    if overrides:
        return f"{theorem} [conjecture {', '.join(f'{k}={v}' for k, v in dict(overrides).items())}]"
    return theorem


def _row(verdict: Verdict) -> tuple[str, str, str, str]:
    evidence = "; ".join(f"{p.name}: {reading(p.outcome, verdict.claim, False)}"
                         + (" (cannot be told from the statement at these samples)" if p.indistinguishable else "")
                         for p in verdict.predictions if p.outcome != SKIPPED)
    if verdict.assumption_failures:
        evidence = "; ".join(reason for _, reason in verdict.assumption_failures)
    name = tested_name(verdict.theorem, verdict.mutant, verdict.overrides)
    if failed_as_expected(verdict.outcome, verdict.claim, bool(verdict.expected_failure)):
        evidence = "as expected: " + evidence
    elif verdict.claim == Claim.STATED and verdict.expected_failure and not verdict.as_expected:
        evidence = "UNEXPECTED, this statement is known to fail: " + evidence
    shown_outcome = str(verdict.outcome) if verdict.claim == Claim.STATED else verdict.reading
    return name, verdict.provenance, shown_outcome, evidence


def table_widths(names: list[str]) -> tuple[int, int, int]:
    """Column widths that fit these theorem names (with any mutant suffix) and every provenance and outcome, so
    that rows printed one at a time, as checks finish, line up."""
    return (max([len(TABLE_HEADER[0]), *map(len, names)]), max(len(TABLE_HEADER[1]), 9),
            max(len(str(outcome)) for outcome in VERDICT_OUTCOMES))


def format_row(row: tuple[str, str, str, str], widths: tuple[int, int, int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths)) + "  " + row[3]


def format_header(widths: tuple[int, int, int]) -> str:
    return format_row(TABLE_HEADER, widths) + "\n" + "  ".join("-" * width for width in widths) + "  " + "-" * 8


def format_verdict_row(verdict: Verdict, widths: tuple[int, int, int]) -> str:
    return format_row(_row(verdict), widths)


def format_table(verdicts: list[Verdict]) -> str:
    """A fixed-width table: theorem, provenance, verdict, and one line of evidence."""
    rows = [_row(verdict) for verdict in verdicts]
    widths = tuple(max(len(row[i]) for row in [TABLE_HEADER, *rows]) for i in range(3))
    return "\n".join([format_header(widths)] + [format_row(row, widths) for row in rows])
