"""The inspection commands: show, hermite and tightness (what a theorem states and how its check sees it)."""

from __future__ import annotations

import contextlib
import json
import math
import sys

import numpy as np
import sympy

from checkers import registry
from checkers.budget import ANNOUNCE_SECONDS
from checkers.cli.papers import discussion_claims, print_paper
from checkers.cost import available_bytes, duration, gibibytes
from checkers.engine import run_check
from checkers.outcome import EXIT_PASS
from checkers.paper_scales import paper_scale_words
from checkers.reasons import at_defaults, describe_here, mutant_moves, nearest
from checkers.verdict import describe_tightness, json_safe
from theorems.activations import Activation
from theorems.claims import near_moves
from theorems.errors import InvalidInput, WorkRefused
from theorems.formula import parse_number
from theorems.formula_size import bounded_activation
from theorems.hermite import CONVENTION, hermite_coefficients, quadrature_bytes, quadrature_seconds, second_moment
from theorems.papers import is_paper, papers_of
from theorems.statement import PROVENANCES


def _shown_digits(quantity, requested: int) -> int:
    """No more digits than the quantity is accurate to: its own `digits`, and 15 for a float64 route."""
    return min(requested, quantity.digits, 15 if quantity.route == "float64" else quantity.digits)


def show(arguments) -> int:
    if is_paper(arguments.theorem):
        return print_paper(arguments.theorem, as_json=arguments.json)
    checker = registry.checker(arguments.theorem)
    theorem = checker.theorem
    parameters = dict(arguments.param)
    if arguments.mutant is not None:
        parameters = theorem.mutant_parameters(arguments.mutant, parameters)
        theorem = theorem.mutated(arguments.mutant)
    claims = theorem.claims(parameters, dict(arguments.overrides), digits=arguments.digits)
    outside = claims.tested.instance.assumption_failures()
    # outside the assumptions an overflow is what the statement excludes, said by the failed assumptions and by
    # "undefined", not by numpy's warnings between the statement's lines (the engine's rule for a run)
    with np.errstate(all="ignore") if outside else contextlib.nullcontext():
        data = _shown(arguments, checker, theorem, claims, outside)
    if arguments.json:
        print(json.dumps(json_safe(data), indent=2, allow_nan=False))
        return EXIT_PASS
    _print_statement(theorem, data)
    print(f"  checked by: {data['simulation']} ({_where_checked(checker, data['family'])})")
    print(f"  at paper fidelity: {data['paper_scale']}")
    _print_constants(data, arguments.digits)
    _print_predictions(theorem, data)
    _print_mutants(data)
    if theorem.notes:
        print(f"  notes: {theorem.notes}")
    return EXIT_PASS


def _shown(arguments, checker, theorem, claims, outside) -> dict:
    """What `show` prints, as data: the statement, its constants and predictions at the point asked, the mutants'
    moves there, what was measured there and the papers it encodes."""
    instance = claims.tested.instance
    undefined = None
    try:
        constants, changed = instance.constants, instance.changed_constants
    except ArithmeticError as error:  # outside the assumptions a statement may be undefined; inside, it is a bug
        if not outside:
            raise
        constants, changed, undefined = {}, {}, str(error)
    if outside and not constants:  # the statement derives nothing where it is undefined, and claims nothing
        undefined = undefined or "; ".join(reason for _, reason in outside)
    moved = {name: None if undefined else mutant_moves(claims, name) for name in claims.mutants}
    here = arguments.mutant is None and not at_defaults(theorem, instance)  # a mutant's own view has no mutants
    simulated = {name: [] if undefined else _simulated_by(checker, theorem, claims, name) for name in claims.mutants}
    descriptions = {node.name: node.description for node in instance.graph}
    return {
        "id": theorem.id, "title": theorem.title, "source": theorem.source,
        "provenance": theorem.provenance, "provenance_meaning": PROVENANCES[theorem.provenance],
        "statement": theorem.statement,
        "parameters": [{"name": p.name, "description": p.description, "domain": p.domain(), "default": p.default,
                        "value": instance.describe_parameters()[p.name]} for p in theorem.parameters],
        "assumptions": [{"name": a.name, "statement": a.statement} for a in theorem.assumptions],
        "assumption_failures": [{"assumption": n, "reason": r} for n, r in outside],
        "family": registry.family(theorem.id), "simulation": checker.simulation,
        "paper_scale": paper_scale_words(checker),
        "constants": [{"name": name, "exact": None if q.exact is None else str(sympy.simplify(q.exact)),
                       "value": q.decimal(_shown_digits(q, arguments.digits)), "route": q.route,
                       "description": descriptions[name],
                       "depends_on": list(next(n.depends_on for n in instance.graph if n.name == name)),
                       "status": changed.get(name, "derived")} for name, q in constants.items()],
        "constants_undefined": undefined,
        "predictions": [{"name": p.name, "kind": p.kind, "statement": p.statement,
                         "resolution": _resolution_or_none(p, instance),
                         "resolution_reason": p.resolution_reason and p.resolution_reason.to_dict(),
                         "resolved_at": checker.resolved_at(p),
                         "nearest_here": nearest(moved, p.name) if here and not undefined else None}
                        for p in theorem.predictions],
        "measured_here": _measured_here(theorem, instance) if here else None,
        "mutants": [{"name": m.name, "description": m.description, "acts_on": m.acts_on, "moves": moved[m.name],
                     "simulated_at_its_constants": simulated[m.name]} for m in theorem.mutants],
        "near_mutants": near_moves(moved),
        "nearness": theorem.nearness and theorem.nearness.describe(),
        "measured_near": _measured_near(theorem),
        "notes": theorem.notes,
        "expected_failure": theorem.expected_failure or None,
        "papers": [{"key": p.key, "encodes": p.encodes[theorem.id]} for p in papers_of(theorem.id)],
        "discussion_claims": [{"paper": key, "label": claim.label, "status": str(claim.status),
                               "claim": claim.claim} for key, claim in discussion_claims(theorem.id)],
    }


def _print_statement(theorem, data: dict) -> None:
    """What is stated: the theorem, its source, parameters and assumptions (those that fail here marked)."""
    print(f"{theorem.id}: {theorem.title}")
    print(f"  provenance: {theorem.provenance} ({PROVENANCES[theorem.provenance]})")
    print(f"  source: {theorem.source}")
    for source in data["papers"]:
        print(f"  encodes {source['encodes']} of {source['key']} (thmcheck papers {source['key']})")
    for claim in data["discussion_claims"]:
        print(f"  answers {claim['paper']}'s discussion claim {claim['label']} ({claim['status']}): "
              f"{claim['claim']}")
    print(f"  statement: {theorem.statement}")
    if theorem.expected_failure:
        print(f"  known to fail its check: {theorem.expected_failure}")
    print("  parameters:")
    for p in data["parameters"]:
        print(f"    {p['name']} = {p['value']}  ({p['description']}; {p['domain']}; default {p['default']})")
    print("  assumptions:" + ("" if theorem.assumptions else " none"))
    for a in theorem.assumptions:
        print(f"    {a.name}: {a.statement}")
    for failure in data["assumption_failures"]:
        print(f"    ! {failure['assumption']} fails here: {failure['reason']}")


def _print_constants(data: dict, digits: int) -> None:
    print(f"  constants ({digits} digits; exact form where one exists):")
    if data["constants_undefined"] is not None:
        print(f"    undefined here, outside the assumptions: {data['constants_undefined']}")
    for c in data["constants"]:
        exact = f"  = {c['exact']}" if c["exact"] is not None else ""
        status = "" if c["status"] == "derived" else f"  ({c['status']})"
        print(f"    {c['name']} = {c['value']}  [{c['route']}]{exact}{status}")


def _print_predictions(theorem, data: dict) -> None:
    print("  predictions:")
    for p, shown in zip(theorem.predictions, data["predictions"]):
        print(f"    {p.name} ({p.kind}): {p.statement}")
        if shown["resolution"] is not None:
            why = p.resolution_reason.describe() if p.resolution_reason else "(its reason not stated)"
            print(f"      resolution {shown['resolution']:.3g} {why}; resolved from {shown['resolved_at']} "
                  "fidelity at the defaults")
            if shown["nearest_here"] is not None:
                print(f"      {describe_here(shown['nearest_here'])}")
    if data["measured_here"] is not None:
        print("  measured at this point: " + ("; ".join(
            f"{row['fidelity']} fidelity, {row['runs']} seeds: {row['passed']} passed, {row['inconclusive']} "
            f"inconclusive, {row['failed']} failed ({row['status']})" for row in data["measured_here"])
            or "not calibrated here, so which fidelity resolves each prediction here is not known before a run: a "
               "run's evidence gives what it could detect against each resolution"))


def _mutant_moves(mutant: dict) -> str:
    """Where a mutant acts, in words: the simulation, the targets it moves, or none."""
    moved = mutant["moves"]
    if moved is None:
        return ""
    if mutant["acts_on"] == "simulation":
        return "; acts on the simulation (judged by its own run)"
    if moved:
        return "; moves " + ", ".join(f"{name} by {value:.3g} resolutions" if math.isfinite(value) else
                                      f"{name} beyond any resolution" for name, value in moved.items())
    return "; moves no target (its claim lives in what the check computes)"


def _print_mutants(data: dict) -> None:
    print("  mutants (each must fail its check):")
    for m in data["mutants"]:
        print(f"    {m['name']}: {m['description']}{_mutant_moves(m)}")
        if m["simulated_at_its_constants"]:
            print(f"      ({', '.join(m['simulated_at_its_constants'])}: the simulation reads this mutant's constants, "
                  "so there it shows only in its own run, and the truth's run claims no power against it)")
    if data["near_mutants"]:
        print("  near mutants (at most three resolutions from a target): "
              + ", ".join(f"{name} ({value:.3g})" for name, value in data["near_mutants"].items()))
    if data["nearness"]:
        print(f"  near mutants: {data['nearness']}")
    if data["measured_near"]:
        m = data["measured_near"]
        print(f"  measured: {m['mutant']} moves {m['prediction']} by {m['mean']:+.2f} +- {m['standard_error']:.2f} "
              f"resolutions ({m['runs']} paired seeds at {m['fidelity']} fidelity; {m['status']})")


def _where_checked(checker, family: str) -> str:
    """The checker's module: its file in the family package, or a plugin's own file."""
    if family != "plugin":
        return f"checkers/{family}/{checker.id.replace('-', '_')}.py"
    import inspect
    reader = next(iter(checker.readers.values()))
    return inspect.getsourcefile(reader) or "a plugin"


def _simulated_by(checker, theorem, claims, name: str) -> list[str]:
    """The predictions whose simulation reads a constant that this mutant changes at the table's parameters
    (`Checker.simulations_changed`); none for a mutant's own statement or under an override, as in a check, and
    none where the statement is undefined outside its assumptions (the constants say so)."""
    if not checker.simulation_constants or theorem is not checker.theorem or claims.conjecture is not None:
        return []
    truth = claims.truths[name].instance
    try:
        return checker.simulations_changed(truth, claims.mutants[name].instance)
    except ArithmeticError:
        if not truth.assumption_failures():
            raise
        return []


def _resolution_or_none(prediction, instance) -> float | None:
    """The prediction's resolution here, or None where it does not apply (or its statement is undefined here)."""
    try:
        if prediction.applies(instance) is not None or not instance.constants:
            return None
        return float(prediction.resolution(instance))
    except (ArithmeticError, InvalidInput):
        return None


MEMORY_SHARE = 0.9  # of the memory available, what a table may take where --max-memory is not given


def _refuse_beyond_memory(sigma: Activation, arguments) -> None:
    """Refuse, before any quadrature, a table estimated to need more memory than --max-memory, or than this machine
    has available where none is given (`hermite.quadrature_bytes`)."""
    needed = quadrature_bytes(sigma, arguments.degree, arguments.digits, arguments.route)
    cap = None if arguments.max_memory is None else arguments.max_memory * 2**30
    where = "the cap of --max-memory"
    if cap is None and (available := available_bytes()) is not None:
        cap, where = MEMORY_SHARE * available, f"{MEMORY_SHARE:.0%} of what this machine has available"
    if cap is not None and needed > cap:
        raise WorkRefused(f"the quadrature of c_0..c_{arguments.degree} and E sigma^2 of {sigma.name} at "
                          f"{arguments.digits} digits would need about {gibibytes(needed)}, above {where} "
                          f"({gibibytes(cap)}); ask for a lower degree or fewer digits"
                          + (", or lift the cap (--max-memory)" if arguments.max_memory is not None else ""))


def hermite(arguments) -> int:
    sigma: Activation = bounded_activation(arguments.activation)
    if arguments.scale != "1":
        sigma = sigma.scaled(parse_number(arguments.scale))
    limit, estimate = 60 * arguments.max_minutes, quadrature_seconds(sigma, arguments.degree, arguments.digits,
                                                                      arguments.route)
    if estimate > limit:
        raise WorkRefused(f"the mpmath quadrature of c_0..c_{arguments.degree} and E sigma^2 of {sigma.name} at "
                          f"{arguments.digits} digits would take about {duration(estimate)} on one core, above the "
                          f"cap of {duration(limit)}; ask for a lower degree or fewer digits, or lift the cap "
                          "(--max-minutes)")
    _refuse_beyond_memory(sigma, arguments)
    if estimate > ANNOUNCE_SECONDS:
        print(f"thmcheck: the mpmath quadrature of c_0..c_{arguments.degree} and E sigma^2 of {sigma.name} at "
              f"{arguments.digits} digits takes about {duration(estimate)} and "
              f"{gibibytes(quadrature_bytes(sigma, arguments.degree, arguments.digits, arguments.route))}",
              file=sys.stderr, flush=True)
    # both refuse a square that is not integrable before any quadrature
    table = hermite_coefficients(sigma, arguments.degree, digits=arguments.digits, route=arguments.route)
    moment = second_moment(sigma, digits=arguments.digits, route=arguments.route)
    if arguments.json:
        data = {
            "activation": sigma.name, "expression": str(sigma.expression), "convention": CONVENTION,
            "scale": arguments.scale,
            "definition": "c_k = E[sigma(Z) He_k(Z)] / k!, Z ~ N(0,1), He_k probabilists' Hermite",
            "digits": table.digits, "degree": table.degree,
            "coefficients": table.decimals(),
            "exact": [None if e is None else str(e) for e in table.exact],
            "routes": list(table.routes),
            "second_moment": moment.decimal(), "second_moment_route": moment.route,
        }
        if arguments.normalized:
            data["normalized"] = [str(v) if c != "0" else "0" for v, c in
                                  zip(_normalized_decimals(table), table.decimals())]
        print(json.dumps(data, indent=2, allow_nan=False))
        return EXIT_PASS
    print(f"{sigma.name}: c_k = E[sigma(Z) He_k(Z)]/k! (probabilists' Hermite), {table.digits} digits")
    normalized = _normalized_decimals(table) if arguments.normalized else None
    for k, (value, route) in enumerate(zip(table.decimals(), table.routes)):
        extra = f"   mu_{k} = {normalized[k]}" if normalized else ""
        print(f"  c_{k:<3} = {value:>40}  [{route}]{extra}")
    print(f"  E sigma^2 = {moment.decimal()}  [{moment.route}]")
    return EXIT_PASS


def _normalized_decimals(table) -> list[str]:
    import mpmath

    return [mpmath.nstr(v, table.digits) if v != 0 else "0" for v in table.normalized()]


def tightness(arguments) -> int:
    """The best ratio of the two sides of each inequality a check searched, with its witness and the ratio a known
    construction attains; an inequality whose check does not measure that ratio says so."""
    checker = registry.checker(arguments.theorem)
    verdict = run_check(checker, dict(arguments.param), seed=arguments.seed, fidelity=arguments.fidelity)
    rows = []
    for prediction in verdict.predictions:
        if prediction.kind != "inequality":
            continue
        found = prediction.tightness or {}
        rows.append({"prediction": prediction.name, "outcome": str(prediction.outcome),
                     "best_ratio": found.get("best_ratio"), "witness": found.get("witness"),
                     "attainable": found.get("attainable"), "construction": found.get("construction") or None,
                     "statement": prediction.statement})
    if arguments.json:
        print(json.dumps({"theorem": checker.id, "fidelity": arguments.fidelity, "seed": arguments.seed,
                          "inequalities": rows}, indent=2, allow_nan=False))
        return EXIT_PASS
    if not rows:
        print(f"{checker.id} states no inequality")
        return EXIT_PASS
    for row in rows:
        print(f"{checker.id} {row['prediction']} ({row['outcome']}): {row['statement']}")
        if row["best_ratio"] is None:
            print("  best ratio: not measured (its check reports only a margin here)")
        else:
            print("  " + describe_tightness(row))
    return EXIT_PASS


def _measured_here(theorem, instance) -> list[dict]:
    from checkers import calibration_records
    return calibration_records.measured_at(theorem, instance)


def _measured_near(theorem) -> dict | None:
    """The recorded measurement of a near mutant that acts on the simulation (None for a plugin's, or unrecorded)."""
    from checkers import calibration_records, catalog

    if theorem.id not in (catalog.entries() or {}):
        return None
    return calibration_records.measured_near(theorem)


def calibration_command(arguments) -> int:
    """The recorded calibrations, with whether each row is current; --write regenerates the document's tables."""
    from pathlib import Path

    from checkers import calibration_records

    path = Path(arguments.records) if arguments.records else calibration_records.RECORDS
    if not path.is_file():  # `calibrate --record` starts a file; this command only reads one
        raise InvalidInput(f"no calibration records file at {path}")
    records = calibration_records.load(path)
    shown = calibration_records.stale(records) if arguments.stale else records
    if arguments.write is not None:
        document = Path(arguments.write) if arguments.write else calibration_records.DOCUMENT
        if not document.is_file():
            raise InvalidInput(f"no document at {document}")
        calibration_records.write_tables(document, records)
        print(f"thmcheck: wrote {len(records)} rows into {document}'s tables", file=sys.stderr)
    if arguments.json:
        print(json.dumps([{**r.to_dict(), "status": calibration_records.status(r)} for r in shown], indent=1,
                         allow_nan=False))
    elif arguments.markdown:
        print("\n\n".join(calibration_records.markdown_tables(shown).values()))
    elif arguments.write is None:
        for r in shown:
            point = ", ".join(f"{k}={v}" for k, v in r.parameters.items())
            print(f"{r.theorem}{f' ({point})' if point else ''}  {r.fidelity}  "
                  f"{r.seeds}{' paired' if r.paired else ''}  {calibration_records.status(r)}")
        if arguments.stale:
            print(f"{len(shown)} of {len(records)} rows stale; rerun them with: thmcheck calibrate --stale")
    return EXIT_PASS
