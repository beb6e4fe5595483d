"""The contract every checker meets, built-in or a plugin's: each clause a function that returns what is wrong.

In the spirit of scikit-learn's estimator checks, one set of clauses runs against any `Checker`:

    declared      the statement names its provenance, source, claim, predictions and mutants; the checker's own
                  declarations (`resolves_at`, `second_point`) name what exists
    builds        the statement and every mutant build at the defaults: each target an ordered interval around its
                  value, each of the statement's resolutions positive and finite, and the statement's observables
                  within their targets on its own reference measurements (else they are no true measurements)
    reasons       every resolution states what it rests on, in words
    near-mutant   a plausible error at most three resolutions from a target, computed from the claims table, or the
                  theorem's `nearness` note saying where its near mutant shows instead (never both); a built-in's
                  near mutant that acts on the simulation must be measured within three resolutions by a recorded
                  paired calibration (docs/calibration.json)
    claims-move   every mutant acting on the claim moves a predicted target
    bad-input     each parameter refuses values outside its domain, unknown parameters and unknown constants, by name
    constants     the constants derive, finite, and (given a folder of snapshots) match the committed decimals
    quick         the true statement never fails at quick fidelity, and is inconclusive there only where its
                  checker says a higher fidelity resolves it (`resolves_at`); a statement known to fail never passes
    mutants       every mutant fails: at quick fidelity, else at default or, where the checker says a higher
                  fidelity resolves it, there (`Checker.deciding_fidelity`)

`check(checker)` returns {clause: problems}; the last two clauses run checks (`runs=False` leaves them out).
`thmcheck contract` prints it, and `checkers.testing.assert_contract` asserts it in a user's test suite.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path

import mpmath

from checkers import calibration_records, catalog
from checkers.checker import Checker
from checkers.engine import run_check
from checkers.files import write_atomically
from checkers.outcome import FAIL, INCONCLUSIVE, PASS
from checkers.verdict import Verdict
from theorems.claims import NEAR_RESOLUTIONS, STATED
from theorems.errors import EnvironmentFault, InvalidInput
from theorems.statement import PROVENANCES

MIN_REASON_WORDS = 5
RUNS = ("quick", "mutants")
SNAPSHOT_DIGITS = 30


def _declared(checker: Checker, **_) -> list[str]:
    theorem, problems = checker.theorem, []
    if theorem.provenance not in PROVENANCES:
        problems.append(f"provenance {theorem.provenance!r} is not one of {', '.join(PROVENANCES)}")
    problems += [f"no {field}" for field in ("title", "source", "statement") if not getattr(theorem, field)]
    if not theorem.predictions:
        problems.append("no predictions: it checks nothing")
    if not theorem.mutants:
        problems.append("no mutants: nothing shows that its check can fail")
    if theorem.expected_failure and theorem.provenance != "secondary":
        problems.append("only a secondary source's form may be declared known to fail")
    return problems


def _builds(checker: Checker, **_) -> list[str]:
    theorem, problems = checker.theorem, []
    versions = [(STATED, theorem, {})] + [(m.name, theorem.mutated(m.name), dict(m.parameters))
                                               for m in theorem.mutants]
    for name, version, parameters in versions:
        instance = version.instance(parameters)
        for prediction in version.predictions:
            if prediction.applies(instance) is not None:
                continue
            target = prediction.predict(instance)
            if not target.lower <= target.value <= target.upper:
                problems.append(f"{name}: {prediction.name}'s target {target.value} lies outside its interval")
            resolution = float(prediction.resolution(instance))
            if not math.isfinite(resolution) or (version is theorem and resolution <= 0):
                problems.append(f"{name}: {prediction.name}'s resolution is {resolution:g}")
    stated = theorem.claims().stated
    for prediction in theorem.predictions:
        if stated.applies(prediction.name) is None:
            for reference, measured in stated.references(prediction.name).items():
                if (off := stated.claimed(prediction.name, measured)) > stated.resolution(prediction.name):
                    problems.append(f"{prediction.name}: the statement's own observable on its reference {reference} "
                                    f"lies {off:g} outside its target")
    return problems


def _reasons(checker: Checker, **_) -> list[str]:
    problems = []
    for prediction in checker.theorem.predictions:
        reason = prediction.resolution_reason
        if reason is None:
            problems.append(f"{prediction.name}: its resolution states no reason")
        elif len(reason.reason.split()) < MIN_REASON_WORDS:
            problems.append(f"{prediction.name}: its resolution's reason {reason.reason!r} says too little")
    return problems


def _near_mutant(checker: Checker, **_) -> list[str]:
    theorem = checker.theorem
    near = theorem.near_mutants()
    if theorem.expected_failure:  # a source's form: its corrected statement keeps the near mutants
        return [] if any(theorem.mutant_distance(m.name) for m in theorem.mutants) else \
            ["no mutant moves a target: not even the known-to-fail form shows its check can reject an error"]
    if theorem.nearness and near:
        return [f"near mutants by its targets ({near}): its nearness note is not needed"]
    if theorem.nearness and theorem.nearness.mutant and checker.id in (catalog.entries() or {}):
        measured = calibration_records.measured_near(theorem)
        if measured is None:
            return [f"its near mutant {theorem.nearness.mutant} acts on the simulation and no paired calibration at "
                    "its parameters is recorded: run thmcheck calibrate --paired --record"]
        if abs(measured["mean"]) > NEAR_RESOLUTIONS:
            return [f"its near mutant {theorem.nearness.mutant} measured {measured['mean']:+.2f} resolutions on "
                    f"{measured['prediction']} ({measured['fidelity']}): not near"]
        return []
    if theorem.nearness:
        return []
    if near:
        return []
    distances = {m.name: theorem.mutant_distance(m.name) for m in theorem.mutants}
    return [f"no mutant within three resolutions of a target (moves: {distances}); keep a plausible near error as a "
            "mutant, or state where one shows (Theorem.nearness)"]


def _claims_move(checker: Checker, **_) -> list[str]:
    claims = checker.theorem.claims()
    unmoved = {name for name, row in claims.mutants.items() if row.acts_on == "claim" and not claims.moves(name)}
    return [f"mutant {name} acts on the claim but moves no predicted target: its prediction should own the observable "
            "it changes, with references that tell the mutant apart" for name in sorted(unmoved)]


def _bad_values(parameter) -> list[str]:
    if parameter.kind == "activation":
        return ["nosuch", "__import__('os')", "sqrt(z)"]
    if parameter.kind == "choice":
        return ["not-a-choice"]
    values = ["nan", "inf", "abc", ""]
    if parameter.upper is not None:
        values.append(str(parameter.upper + 1))
    if parameter.lower is not None:
        values.append(str(parameter.lower - 1))
    if parameter.kind == "integer":
        values.append("2.5")
    return values


def _refuses(build: Callable[[], object], words: str) -> bool:
    try:
        build()
    except InvalidInput as error:
        return words in str(error)
    return False


def _bad_input(checker: Checker, **_) -> list[str]:
    theorem, problems = checker.theorem, []
    for parameter in theorem.parameters:
        for value in _bad_values(parameter):
            if not _refuses(lambda: theorem.instance({parameter.name: value}), parameter.name):
                problems.append(f"{parameter.name} = {value!r} is not refused as bad input naming the parameter")
    if not _refuses(lambda: theorem.instance({"no_such_parameter": "1"}), "no parameter"):
        problems.append("an unknown parameter is not refused")
    if not _refuses(lambda: theorem.instance(overrides={"no_such_constant": "1"}), "no constant"):
        problems.append("an unknown constant is not refused")
    return problems


def snapshot_of(checker: Checker) -> dict[str, dict]:
    """The constants at the defaults, as a snapshot records them: decimals, route and exact form."""
    return {name: {"value": q.decimal(min(SNAPSHOT_DIGITS, q.digits)), "route": q.route,
                   "exact": None if q.exact is None else str(q.exact)}
            for name, q in checker.theorem.instance().constants.items()}


def snapshot_differences(stored: Mapping[str, dict], current: Mapping[str, dict]) -> list[str]:
    """How a snapshot and the current constants differ: entries, routes, exact forms, and values beyond what the route
    reproduces (28 digits; a float64 route, a minimizer or a Gauss-Hermite rule, 8 digits, its last ones moving
    with the machine's BLAS)."""
    if sorted(stored) != sorted(current):
        return [f"the constants are {sorted(current)}, the snapshot has {sorted(stored)}"]
    problems = []
    for key, entry in current.items():
        old = stored[key]
        if (old["route"], old["exact"]) != (entry["route"], entry["exact"]):
            problems.append(f"{key}: route and exact form {entry['route']}, {entry['exact']} (snapshot: {old['route']},"
                            f" {old['exact']})")
            continue
        tolerance = mpmath.mpf(10) ** (-8 if entry["route"] == "float64" else -28)
        with mpmath.workdps(40):
            a, b = mpmath.mpf(old["value"]), mpmath.mpf(entry["value"])
            if abs(a - b) > tolerance * max(1, abs(a)):
                problems.append(f"{key} = {entry['value']} (snapshot: {old['value']})")
    return problems


def _constants(checker: Checker, *, snapshots: Path | None = None, **_) -> list[str]:
    instance = checker.theorem.instance()
    problems = [f"{failure[0]} fails at the defaults: {failure[1]}" for failure in instance.assumption_failures()]
    if not instance.constants and instance.graph:
        problems.append("no constants derive at the defaults")
    problems += [f"{name} = {q.value} is not finite" for name, q in instance.constants.items()
                 if not mpmath.isfinite(q.value)]
    if snapshots is not None:
        path = Path(snapshots) / f"constants-{checker.id}.json"
        if not path.is_file():
            problems.append(f"no snapshot {path} (write it with thmcheck contract {checker.id} --update-snapshots)")
        else:
            problems += snapshot_differences(read_snapshot(path), snapshot_of(checker))
    return problems


def read_snapshot(path: Path) -> dict[str, dict]:
    """A constants snapshot as `write_snapshot` wrote it; a file that is not one is the user's (`EnvironmentFault`
    naming it), never an internal error."""
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise EnvironmentFault(f"the snapshot {str(path)!r} cannot be read as one ({type(error).__name__}: "
                               f"{error})") from None
    if not isinstance(stored, dict) or not all(isinstance(entry, dict) and {"value", "route", "exact"} <= set(entry)
                                                for entry in stored.values()):
        raise EnvironmentFault(f"the snapshot {str(path)!r} is not a constants snapshot (each constant needs its "
                               "value, route and exact form)")
    return stored


def write_snapshot(checker: Checker, folder: Path) -> Path:
    path = Path(folder) / f"constants-{checker.id}.json"
    write_atomically(path, json.dumps(snapshot_of(checker), indent=1, sort_keys=True) + "\n")
    return path


def _quick(checker: Checker, *, quick_verdict: Callable[[Checker], Verdict] | None = None, **_) -> list[str]:
    verdict = (quick_verdict or (lambda c: run_check(c, seed=0, fidelity="quick")))(checker)
    if checker.theorem.expected_failure:
        return [] if verdict.outcome in (FAIL, INCONCLUSIVE) else [
            f"the statement known to fail passed at quick fidelity:\n{verdict.explain()}"]
    if verdict.outcome == FAIL:
        return [f"the true statement failed at quick fidelity:\n{verdict.explain()}"]
    if verdict.outcome == INCONCLUSIVE and checker.resolves_at == "quick":
        return [f"inconclusive at quick fidelity, which its checker says resolves it (resolves_at):\n"
                f"{verdict.explain()}"]
    if verdict.outcome not in (PASS, INCONCLUSIVE):
        return [f"the true statement is {verdict.outcome} at its defaults:\n{verdict.explain()}"]
    return []


def _mutants(checker: Checker, **_) -> list[str]:
    problems = []
    fidelity = checker.deciding_fidelity()
    for mutant in checker.theorem.mutants:
        if run_check(checker, seed=0, fidelity="quick", mutant=mutant.name, outcome_only=True).outcome == FAIL:
            continue
        verdict = run_check(checker, seed=0, fidelity=fidelity, mutant=mutant.name, outcome_only=True)
        if verdict.outcome != FAIL:
            problems.append(f"mutant {mutant.name} was not rejected at {fidelity} fidelity:\n{verdict.explain()}")
    return problems


CLAUSES: dict[str, Callable[..., list[str]]] = {
    "declared": _declared, "builds": _builds, "reasons": _reasons, "near-mutant": _near_mutant,
    "claims-move": _claims_move, "bad-input": _bad_input, "constants": _constants, "quick": _quick,
    "mutants": _mutants,
}


def check(checker: Checker, *, runs: bool = True, snapshots: Path | None = None,
          quick_verdict: Callable[[Checker], Verdict] | None = None) -> dict[str, list[str]]:
    """Every clause's problems (an empty list where it holds); with `runs`, the quick check and the mutants' runs
    too; with `snapshots`, the constants against the snapshot in that folder. `quick_verdict` supplies the quick
    check's verdict where the caller has it already."""
    clauses = [name for name in CLAUSES if runs or name not in RUNS]
    return {name: CLAUSES[name](checker, snapshots=snapshots, quick_verdict=quick_verdict) for name in clauses}

