"""The `thmcheck` command: list, show, hermite, check, sweep, report.

Exit codes: 0 every verdict passes; 1 any fails; 2 bad input or usage (one line on stderr, no
traceback); 3 inconclusive or outside assumptions, none failing; 4 an error in a theorem, a checker or
thmcheck itself (a bug: one line naming the theorem and the prediction; `--debug` or THMCHECK_DEBUG=1
prints the traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import shlex
import signal
import sys
import threading
import traceback
from pathlib import Path

import sympy

from checkers import registry
from checkers.calibrate import calibrate, format_calibration, markdown_calibration
from checkers.check import DEFAULT_FALSE_FAIL_RATE, FIDELITIES, run_check
from checkers.report import build_report, pyplot
from checkers.stats import FAIL, INCONCLUSIVE, PASS
from checkers.sweep import ERROR, EXECUTORS, parse_grid, plan, progress_bar, sweep
from checkers.verdict import (
    Verdict,
    describe_tightness,
    format_header,
    format_table,
    format_verdict_row,
    table_widths,
)
from theorems.activations import Activation, activation, builtin_names
from theorems.errors import CheckError, DeclarationError, InvalidInput, ThmcheckError
from theorems.formula import parse_number
from theorems.hermite import (
    CONVENTION,
    MAX_DEGREE,
    MAX_DIGITS,
    ROUTES,
    hermite_coefficients,
    second_moment,
)
from theorems.statement import PROVENANCES, near_moves

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_UNDECIDED, EXIT_INTERNAL = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, no usage dump
        raise InvalidInput(f"{message} (see thmcheck {self.prog.split()[-1] if ' ' in self.prog else ''} --help)"
                           .replace("thmcheck thmcheck", "thmcheck").replace("  ", " "))


def _key_value(text: str) -> tuple[str, str]:
    name, separator, value = text.partition("=")
    if not separator or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def _rerun_command(arguments, theorems: list[str], fidelity: str) -> str:
    """The same `thmcheck check` at another fidelity: its parameters, overrides, seed, mutant and rate kept."""
    words = ["thmcheck", "check", *theorems]
    words += [word for name, value in arguments.param for word in ("--param", f"{name}={value}")]
    words += [word for name, value in arguments.overrides for word in ("--set", f"{name}={value}")]
    if arguments.seed:
        words += ["--seed", str(arguments.seed)]
    if arguments.mutant:
        words += ["--mutant", arguments.mutant]
    if arguments.false_fail_rate != DEFAULT_FALSE_FAIL_RATE:
        words += ["--false-fail-rate", repr(arguments.false_fail_rate)]
    return shlex.join(words + ["--fidelity", fidelity])


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, else the CPU count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _bounded_int(name: str, lower: int, upper: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if not lower <= value <= upper:
            raise argparse.ArgumentTypeError(f"{name} must lie in [{lower}, {upper}], got {value}")
        return value
    return parse


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"false-fail rate must be a number, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"false-fail rate must lie in (0, 1), got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    json_help = "print JSON instead of text"
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                        help="import MODULE (an importable module name or a .py path) and register its CHECKER "
                             "(repeatable)")
    parser = _Parser(prog="thmcheck", description="Check theorems about two-layer neural networks: exact "
                                                  "constants, calibrated Monte Carlo verdicts.",
                     epilog="Exit codes: 0 every verdict passes; 1 any fails; 2 bad input; 3 inconclusive or outside "
                            "assumptions, none failing; 4 an error in a theorem, a checker or thmcheck (a bug); "
                            "130 interrupted.")
    # the same option before the command; argparse would let the subcommand's default overwrite it
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE", dest="plugins_before",
                        help="import MODULE (an importable module name or a .py path) and register its CHECKER")
    parser.add_argument("--debug", action="store_true",
                        help="on an internal error (exit 4), print the traceback (same as THMCHECK_DEBUG=1)")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    listing = commands.add_parser("list", parents=[common], help="theorem ids, titles, provenance")
    listing.add_argument("--json", action="store_true", help=json_help)
    listing.add_argument("--markdown", action="store_true",
                         help="the README's table of theorems (id, family, provenance, claim, how it is checked)")

    show = commands.add_parser("show", parents=[common], help="a theorem's statement, parameters, constants")
    show.add_argument("theorem", metavar="ID", help="a theorem id (see thmcheck list)")
    show.add_argument("--param", action="append", type=_key_value, default=[], metavar="NAME=VALUE",
                      help="a parameter's value (repeatable; default: the theorem's defaults)")
    show.add_argument("--set", action="append", type=_key_value, default=[], metavar="CONSTANT=VALUE",
                      dest="overrides", help="override a named constant and see what it changes (repeatable)")
    show.add_argument("--mutant", metavar="NAME", help="show a named wrong version of the theorem")
    show.add_argument("--digits", type=_bounded_int("digits", 1, MAX_DIGITS), default=30,
                      help=f"digits of the constants, 1..{MAX_DIGITS} (default 30)")
    show.add_argument("--json", action="store_true", help=json_help)

    hermite = commands.add_parser("hermite", parents=[common], help="Hermite coefficients of an activation")
    hermite.add_argument("activation", metavar="ACTIVATION",
                         help=f"a built-in ({', '.join(builtin_names())}) or a formula in z")
    hermite.add_argument("--degree", type=_bounded_int("degree", 0, MAX_DEGREE), default=8,
                         help=f"the highest k of c_k, 0..{MAX_DEGREE} (default 8)")
    hermite.add_argument("--digits", type=_bounded_int("digits", 1, MAX_DIGITS), default=30,
                         help=f"significant digits, 1..{MAX_DIGITS} (default 30)")
    hermite.add_argument("--route", choices=ROUTES, default="auto",
                         help="exact (sympy), mpmath (quadrature), float64 (Gauss-Hermite, smooth activations "
                              "only), or auto: the best available per coefficient (default auto)")
    hermite.add_argument("--scale", default="1", metavar="B",
                         help="preactivation scale b: coefficients E[sigma(bZ) He_k(Z)]/k! (default 1)")
    hermite.add_argument("--normalized", action="store_true", help="also print mu_k = sqrt(k!) c_k")
    hermite.add_argument("--json", action="store_true", help=json_help)

    check = commands.add_parser("check", parents=[common], help="check theorems and print verdicts")
    check.add_argument("theorems", nargs="*", metavar="ID", help="theorem ids (see thmcheck list)")
    check.add_argument("--all", action="store_true", help="check every registered theorem")
    check.add_argument("--param", action="append", type=_key_value, default=[], metavar="NAME=VALUE",
                       help="a parameter's value (repeatable; default: each theorem's defaults)")
    check.add_argument("--set", action="append", type=_key_value, default=[], metavar="CONSTANT=VALUE",
                       dest="overrides", help="override a named constant (conjecture mode; repeatable)")
    check.add_argument("--seed", type=_bounded_int("seed", 0, 2**63 - 1), default=0,
                       help="the root seed of the simulations (default 0)")
    check.add_argument("--fidelity", choices=list(FIDELITIES), default="default",
                       help="how hard to look: quick may leave a true statement inconclusive, default resolves "
                            "it (default: default)")
    check.add_argument("--false-fail-rate", type=_rate, default=DEFAULT_FALSE_FAIL_RATE,
                       help=f"false-fail rate of each theorem's check, split across its predictions (default "
                            f"{DEFAULT_FALSE_FAIL_RATE:g})")
    check.add_argument("--mutant", metavar="NAME", help="check a named wrong version of the theorem")
    check.add_argument("--workers", type=_bounded_int("workers", 1, 4096), default=usable_cores(),
                       help="worker processes, each check on one core; the numbers do not depend on it (default: "
                            f"every usable core, {usable_cores()} here)")
    check.add_argument("--json", action="store_true", help=json_help)

    # the options of the sweep machinery, shared by sweep and calibrate
    tasks = argparse.ArgumentParser(add_help=False)
    tasks.add_argument("--root-seed", type=_bounded_int("root seed", 0, 2**63 - 1), default=0,
                       help="the root seed; each task's seed is spawned from it at the task's identity (default 0)")
    tasks.add_argument("--fidelity", choices=list(FIDELITIES), default="quick", help="(default: quick)")
    tasks.add_argument("--false-fail-rate", type=_rate, default=DEFAULT_FALSE_FAIL_RATE,
                       help=f"per check (default {DEFAULT_FALSE_FAIL_RATE:g})")
    tasks.add_argument("--executor", choices=list(EXECUTORS),
                       help="default: dask with --scheduler, else a local process pool")
    tasks.add_argument("--workers", type=_bounded_int("workers", 1, 4096),
                       help="worker processes (default: the CPU count; 2 for --scheduler local)")
    tasks.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running dask scheduler (tcp://host:port), or 'local' to start a LocalCluster")

    sweep = commands.add_parser("sweep", parents=[common, tasks],
                                help="one theorem over a grid and many seeds, stored")
    sweep.add_argument("theorem", metavar="ID", help="a theorem id (see thmcheck list)")
    sweep.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                       help="swept parameter values (repeatable; values split at commas outside parentheses)")
    sweep.add_argument("--param", action="append", type=_key_value, default=[], metavar="NAME=VALUE",
                       help="a parameter held fixed (repeatable)")
    sweep.add_argument("--set", action="append", type=_key_value, default=[], metavar="CONSTANT=VALUE",
                       dest="overrides", help="override a named constant in every task (repeatable)")
    sweep.add_argument("--seeds", type=_bounded_int("seeds", 1, 10**6), default=1,
                       help="seeds per grid point (default 1)")
    sweep.add_argument("--mutant", metavar="NAME", help="sweep a named wrong version of the theorem")
    sweep.add_argument("--store", default="thmcheck-results.sqlite", metavar="PATH",
                       help="SQLite result store; tasks already in it are skipped (default thmcheck-results.sqlite)")
    sweep.add_argument("--json", action="store_true", help="print a JSON summary (and no progress bar)")

    calibrate = commands.add_parser("calibrate", parents=[common, tasks],
                                    help="the true statement and every mutant over many seeds: observed rates")
    calibrate.add_argument("theorems", nargs="*", metavar="ID", help="theorem ids (see thmcheck list)")
    calibrate.add_argument("--all", action="store_true", help="calibrate every registered theorem")
    calibrate.add_argument("--param", action="append", type=_key_value, default=[], metavar="NAME=VALUE",
                           help="calibrate at this parameter value instead of the default (repeatable; every "
                                "theorem named must take it)")
    calibrate.add_argument("--seeds", type=_bounded_int("seeds", 1, 10**6), default=20,
                           help="seeds per version (default 20)")
    calibrate.add_argument("--store", metavar="PATH",
                           help="SQLite store, so a calibration resumes (default: a temporary file, not kept)")
    calibrate.add_argument("--paired", action="store_true",
                           help="run each mutant on the true statement's seeds, so simulations that do not depend "
                                "on the statement run once per seed (several times faster for the slow theorems; "
                                "each version's rate means the same)")
    calibrate.add_argument("--json", action="store_true", help="print the rates as JSON (and no progress bar)")
    calibrate.add_argument("--markdown", action="store_true",
                           help="print one row per theorem as a markdown table (the README's calibration table)")

    tightness = commands.add_parser("tightness", parents=[common],
                                    help="how close each inequality of a theorem came to equality in its search")
    tightness.add_argument("theorem", metavar="ID", help="a theorem id (see thmcheck list)")
    tightness.add_argument("--param", action="append", type=_key_value, default=[], metavar="NAME=VALUE",
                           help="a parameter's value (repeatable)")
    tightness.add_argument("--fidelity", choices=tuple(FIDELITIES), default="default",
                           help="the search budget (default: default)")
    tightness.add_argument("--seed", type=_bounded_int("seed", 0, 2**63 - 1), default=0, help="seed (default 0)")
    tightness.add_argument("--json", action="store_true", help=json_help)

    oracle = commands.add_parser("oracle", parents=[common],
                                 help="the exact curve of ridge errors after one step against a parameter")
    oracle.add_argument("theorem", nargs="?", default="gaussian-equivalence",
                        choices=("gaussian-equivalence", "giant-step-risk"),
                        help="gaussian-equivalence (default): the GE model's deterministic equivalent given a drawn "
                             "step; giant-step-risk: Cui et al.'s Result 3.3 in the limit")
    oracle.add_argument("--vary", required=True, metavar="NAME=START:STOP:COUNT[:log]",
                        help="gaussian-equivalence: learning_rate, penalty (the ridge lambda) or ridge_ratio (ridge "
                             "samples per dimension); giant-step-risk: sample_ratio (n/p), penalty (lambda_C), "
                             "width_ratio (p/d), eta or alpha0")
    oracle.add_argument("--param", action="append", type=_key_value, default=[], metavar="NAME=VALUE",
                        help="a parameter of the theorem held fixed (repeatable; see thmcheck show THEOREM)")
    oracle.add_argument("--dimension", type=_bounded_int("dimension", 2, 4000), default=200,
                        help="gaussian-equivalence: d of the drawn step (n = psi1 d, N = psi2 d; default 200)")
    oracle.add_argument("--seed", type=_bounded_int("seed", 0, 2**63 - 1), default=0,
                        help="gaussian-equivalence: seed of the drawn step (default 0)")
    oracle.add_argument("--plot", metavar="FILE", help="also draw the curve to a PNG file (needs matplotlib)")
    oracle.add_argument("--json", action="store_true", help="print the curve as JSON")

    report = commands.add_parser("report", parents=[common], help="a static HTML page of verdicts and plots")
    report.add_argument("theorems", nargs="*", metavar="ID", help="theorem ids to check now (without --from)")
    report.add_argument("--all", action="store_true", help="check every registered theorem now")
    report.add_argument("--from", dest="store", metavar="STORE", help="read verdicts from a sweep store")
    report.add_argument("--out", required=True, metavar="DIR", help="the folder to write index.html and figures to")
    report.add_argument("--fidelity", choices=list(FIDELITIES), default="quick",
                        help="fidelity of the checks run when there is no store (default quick)")
    report.add_argument("--seed", type=_bounded_int("seed", 0, 2**63 - 1), default=0,
                        help="seed of the checks run when there is no store (default 0)")
    report.add_argument("--json", action="store_true", help="print where the report went, as JSON")
    return parser


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl-C (a BaseException, so no handler of errors takes it), so that what
    finished is kept and worker processes are stopped."""


def _terminate(signum, frame):
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    debug = bool(os.environ.get("THMCHECK_DEBUG"))
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if on_main_thread else None
    try:
        return _main(argv, debug)
    except Terminated:
        print("thmcheck: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str] | None, debug: bool) -> int:
    try:
        arguments = build_parser().parse_args(argv)
        debug = debug or arguments.debug
        for module in arguments.plugins_before + arguments.plugin:
            registry.load_plugin(module)
        commands = {"list": _list, "show": _show, "hermite": _hermite, "check": _check, "sweep": _sweep,
                    "calibrate": _calibrate, "oracle": _oracle, "tightness": _tightness,
                    "report": _report}
        return commands[arguments.command](arguments)
    except ThmcheckError as error:
        print(f"thmcheck: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("thmcheck: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader closed the pipe (`thmcheck list | head`): end quietly, as SIGPIPE would
        with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the final flush must not complain
        return 128 + 13
    except (CheckError, DeclarationError) as error:  # a bug in a theorem or a checker, named
        if debug:
            traceback.print_exc()
        print(f"thmcheck: internal error in {error} (run with --debug for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as error:  # a bug: say so in one line unless debugging
        if debug:
            traceback.print_exc()
        print(f"thmcheck: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL


# --- commands ---------------------------------------------------------------------------------

def _list(arguments) -> int:
    checkers = registry.all_checkers()
    if arguments.json:
        print(json.dumps([{"id": c.theorem.id, "title": c.theorem.title, "provenance": c.theorem.provenance,
                           "source": c.theorem.source} for c in checkers], indent=2))
        return EXIT_PASS
    if arguments.markdown:
        print(markdown_table(checkers))
        return EXIT_PASS
    width = max(len(c.id) for c in checkers)
    for c in checkers:
        print(f"{c.id.ljust(width)}  {c.theorem.provenance:9}  {c.theorem.title}")
    return EXIT_PASS


def _shown_digits(quantity, requested: int) -> int:
    """No more digits than the quantity is accurate to: its own `digits`, and 15 for a float64 route."""
    return min(requested, quantity.digits, 15 if quantity.route == "float64" else quantity.digits)


def markdown_table(checkers) -> str:
    """The README's theorem table: one row per check, in family order, from the statements and checkers."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    rows = ["| id | family | provenance | claim | how |", "|---|---|---|---|---|"]
    for checker in sorted(checkers, key=lambda c: (registry.family(c.id), c.id)):
        theorem = checker.theorem
        rows.append(f"| `{theorem.id}` | {registry.family(theorem.id)} | {theorem.provenance} | "
                    f"{cell(theorem.statement)} | {cell(checker.simulation)} |")
    return "\n".join(rows)


def _show(arguments) -> int:
    checker = registry.checker(arguments.theorem)
    theorem = checker.theorem
    parameters = dict(arguments.param)
    if arguments.mutant is not None:
        parameters = theorem.mutant_parameters(arguments.mutant, parameters)
        theorem = theorem.mutated(arguments.mutant)
    instance = theorem.instance(parameters, dict(arguments.overrides), digits=arguments.digits)
    undefined = None
    try:
        constants, changed = instance.constants, instance.changed_constants
    except ArithmeticError as error:  # outside the assumptions a statement may be undefined; inside, it is a bug
        if not instance.assumption_failures():
            raise
        constants, changed, undefined = {}, {}, str(error)
    moved = {m.name: _mutant_distance(theorem, m.name) for m in theorem.mutants}
    simulated = {m.name: _simulated_by(checker, theorem, instance, m.name) for m in theorem.mutants}
    descriptions = {node.name: node.description for node in instance.graph}
    data = {
        "id": theorem.id, "title": theorem.title, "source": theorem.source,
        "provenance": theorem.provenance, "provenance_meaning": PROVENANCES[theorem.provenance],
        "statement": theorem.statement,
        "parameters": [{"name": p.name, "description": p.description, "domain": p.domain(), "default": p.default,
                        "value": instance.describe_parameters()[p.name]} for p in theorem.parameters],
        "assumptions": [{"name": a.name, "statement": a.statement} for a in theorem.assumptions],
        "assumption_failures": [{"assumption": n, "reason": r} for n, r in instance.assumption_failures()],
        "family": registry.family(theorem.id), "simulation": checker.simulation,
        "constants": [{"name": name, "exact": None if q.exact is None else str(sympy.simplify(q.exact)),
                       "value": q.decimal(_shown_digits(q, arguments.digits)), "route": q.route,
                       "description": descriptions[name],
                       "depends_on": list(next(n.depends_on for n in instance.graph if n.name == name)),
                       "status": changed.get(name, "derived")} for name, q in constants.items()],
        "constants_undefined": undefined,
        "predictions": [{"name": p.name, "kind": p.kind, "statement": p.statement,
                         "resolution": _resolution_or_none(p, instance),
                         "resolution_reason": p.resolution_reason and p.resolution_reason.to_dict()}
                        for p in theorem.predictions],
        "mutants": [{"name": m.name, "description": m.description, "resolutions_moved": moved[m.name],
                     "simulated_at_its_constants": simulated[m.name]} for m in theorem.mutants],
        "near_mutants": near_moves(moved),
        "nearness": theorem.nearness and theorem.nearness.describe(),
        "notes": theorem.notes,
        "expected_failure": theorem.expected_failure or None,
    }
    if arguments.json:
        print(json.dumps(data, indent=2, allow_nan=False))
        return EXIT_PASS
    print(f"{theorem.id}: {theorem.title}")
    print(f"  provenance: {theorem.provenance} ({PROVENANCES[theorem.provenance]})")
    print(f"  source: {theorem.source}")
    print(f"  statement: {theorem.statement}")
    if theorem.expected_failure:
        print(f"  known to fail its check: {theorem.expected_failure}")
    print("  parameters:")
    for p in data["parameters"]:
        print(f"    {p['name']} = {p['value']}  ({p['description']}; {p['domain']}; default {p['default']})")
    print("  assumptions:")
    for a in theorem.assumptions:
        print(f"    {a.name}: {a.statement}")
    for failure in data["assumption_failures"]:
        print(f"    ! {failure['assumption']} fails here: {failure['reason']}")
    print(f"  checked by: {data['simulation']} (checkers/{data['family']}/)")
    print(f"  constants ({arguments.digits} digits; exact form where one exists):")
    if undefined is not None:
        print(f"    undefined here, outside the assumptions: {undefined}")
    for c in data["constants"]:
        exact = f"  = {c['exact']}" if c["exact"] is not None else ""
        status = "" if c["status"] == "derived" else f"  ({c['status']})"
        print(f"    {c['name']} = {c['value']}  [{c['route']}]{exact}{status}")
    print("  predictions:")
    for p, shown in zip(theorem.predictions, data["predictions"]):
        print(f"    {p.name} ({p.kind}): {p.statement}")
        if shown["resolution"] is not None:
            why = p.resolution_reason.describe() if p.resolution_reason else "(its reason not stated)"
            print(f"      resolution {shown['resolution']:.3g} {why}")
    print("  mutants (each must fail its check):")
    for m in data["mutants"]:
        moved = m["resolutions_moved"]
        where = ("; moves " + ", ".join(f"{name} by {value:.3g}" for name, value in moved.items())
                 + " resolutions") if moved else "; moves no target (it acts on what the check computes)"
        print(f"    {m['name']}: {m['description']}{where if moved is not None else ''}")
        if m["simulated_at_its_constants"]:
            print(f"      ({', '.join(m['simulated_at_its_constants'])}: the simulation reads this mutant's constants, "
                  "so there it shows only in its own run, and the truth's run claims no power against it)")
    if data["near_mutants"]:
        print("  near mutants (at most three resolutions from a target): "
              + ", ".join(f"{name} ({value:.3g})" for name, value in data["near_mutants"].items()))
    if data["nearness"]:
        print(f"  near mutants: {data['nearness']}")
    if theorem.notes:
        print(f"  notes: {theorem.notes}")
    return EXIT_PASS


def _simulated_by(checker, theorem, instance, name: str) -> list[str]:
    """The predictions whose simulation reads a constant that this mutant changes at the instance's parameters
    (`Checker.simulations_changed`); none for a mutant's own statement or under an override, as in a check."""
    if not checker.simulation_constants or theorem is not checker.theorem or instance.overrides:
        return []
    other = theorem.mutated(name).instance(theorem.mutant_parameters(name, instance.describe_parameters()))
    return checker.simulations_changed(instance, other)


def _mutant_distance(theorem, name: str) -> dict[str, float] | None:
    """How far the mutant moves each prediction's target, in resolutions (None where its statement is undefined
    at its parameters; a bug in it still propagates as an internal error)."""
    try:
        return {prediction: value if math.isfinite(value) else None
                for prediction, value in theorem.mutant_distance(name).items()}
    except (ArithmeticError, InvalidInput):
        return None


def _resolution_or_none(prediction, instance) -> float | None:
    """The prediction's resolution here, or None where it does not apply (or its statement is undefined here)."""
    try:
        if prediction.applies(instance) is not None or not instance.constants:
            return None
        return float(prediction.resolution(instance))
    except (ArithmeticError, InvalidInput):
        return None


def _hermite(arguments) -> int:
    sigma: Activation = activation(arguments.activation)
    if arguments.scale != "1":
        sigma = sigma.scaled(parse_number(arguments.scale))
    # E sigma^2 is printed beside the coefficients; both refuse a square that is not integrable before any quadrature
    moment = second_moment(sigma, digits=arguments.digits, route=arguments.route)
    table = hermite_coefficients(sigma, arguments.degree, digits=arguments.digits, route=arguments.route)
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


def _check(arguments) -> int:
    """Run the checks, printing each verdict's row as it finishes (on `--workers` processes; the numbers do
    not depend on how many), then the evidence. Ctrl-C keeps what finished: it is printed, and the exit is 130."""
    if arguments.all and arguments.theorems:
        raise InvalidInput("give theorem ids or --all, not both")
    if not arguments.all and not arguments.theorems:
        raise InvalidInput("name at least one theorem id, or --all (see thmcheck list)")
    checkers = registry.all_checkers() if arguments.all else [registry.checker(i) for i in arguments.theorems]
    jobs = _check_jobs(checkers, dict(arguments.param), dict(arguments.overrides))
    options = dict(seed=arguments.seed, fidelity=arguments.fidelity, false_fail_rate=arguments.false_fail_rate,
                   mutant=arguments.mutant)
    plugins = tuple(arguments.plugins_before + arguments.plugin)
    suffix = f" [mutant {arguments.mutant}]" if arguments.mutant else ""
    widths = table_widths([checker.id + suffix for checker, _, _ in jobs])
    verdicts: dict[str, Verdict] = {}
    bar = _progress(len(jobs), enabled=not arguments.json)
    if not arguments.json:
        print(format_header(widths), flush=True)

    def finished(verdict: Verdict) -> None:
        verdicts[verdict.theorem] = verdict
        if not arguments.json:
            bar.clear()
            print(format_verdict_row(verdict, widths), flush=True)
        bar.update(1)

    workers = min(arguments.workers, len(jobs))
    try:
        if workers == 1:
            for checker, parameters, overrides in jobs:
                finished(run_check(checker, parameters, overrides, **options))
        else:
            _run_on_processes(jobs, options, plugins, workers, finished)
    except KeyboardInterrupt:
        bar.close()
        _print_verdicts(arguments, [verdicts[c.id] for c, _, _ in jobs if c.id in verdicts], with_table=False)
        print(f"thmcheck: interrupted; {len(verdicts)} of {len(jobs)} checks finished (printed above)",
              file=sys.stderr)
        return 130
    bar.close()
    ordered = [verdicts[checker.id] for checker, _, _ in jobs]
    _print_verdicts(arguments, ordered, with_table=False)
    inconclusive = [v for v in ordered if v.outcome == INCONCLUSIVE]
    # an inconclusive prediction with an observation had too few samples for its resolution, which a higher
    # fidelity adds; one without was left unresolved for a reason it states (sizes where an expansion has not
    # settled, a diverged run), which more samples need not change
    undecided = [v.theorem for v in inconclusive
                 if any(p.outcome == INCONCLUSIVE and p.observed is not None for p in v.predictions)]
    unresolved = [v.theorem for v in inconclusive
                  if any(p.outcome == INCONCLUSIVE and p.observed is None for p in v.predictions)]
    if undecided and arguments.fidelity != "high":
        sharper = "default" if arguments.fidelity == "quick" else "high"
        print(f"thmcheck: {len(undecided)} check(s) inconclusive at {arguments.fidelity} fidelity: their samples do "
              f"not resolve the stated resolution there (a true statement may be inconclusive, never fails); "
              f"rerun with more: {_rerun_command(arguments, undecided, sharper)}", file=sys.stderr)
    if unresolved:
        print(f"thmcheck: {len(unresolved)} check(s) left a prediction unresolved for the reason printed with it (an "
              f"expansion not yet settled at the sizes, a diverged run), which more samples need not change: "
              f"{' '.join(unresolved)}", file=sys.stderr)
    expected = [v for v in ordered if v.expected_failure and v.mutant is None and v.outcome == FAIL]
    if expected:
        print(f"thmcheck: {len(expected)} check(s) failed as expected (a source's form that this project corrects): "
              + "; ".join(f"{v.theorem}: {v.expected_failure}" for v in expected), file=sys.stderr)
    if not all(v.as_expected for v in ordered):
        return EXIT_FAIL
    if all(v.outcome == PASS or v in expected for v in ordered):
        return EXIT_PASS
    return EXIT_UNDECIDED


def _check_jobs(checkers, parameters: dict, overrides: dict) -> list[tuple]:
    """(checker, its parameters, its overrides): with several theorems each gets the names it has, and a name
    that no selected theorem has is an error."""
    if len(checkers) == 1:
        return [(checkers[0], parameters, overrides)]
    own_parameters = {checker.id: {name: value for name, value in parameters.items()
                                   if any(p.name == name for p in checker.theorem.parameters)} for checker in checkers}
    constants = {checker.id: {node.name for node in checker.theorem.instance(own_parameters[checker.id]).graph}
                 for checker in checkers}
    for kind, names, known in (("parameter", parameters, own_parameters), ("constant", overrides, constants)):
        for name in names:
            if not any(name in owned for owned in known.values()):
                raise InvalidInput(f"no selected theorem has a {kind} {name!r}")
    return [(checker, own_parameters[checker.id],
             {name: value for name, value in overrides.items() if name in constants[checker.id]})
            for checker in checkers]


def _check_in_worker(theorem_id: str, parameters: dict, overrides: dict, options: dict, plugins: tuple) -> Verdict:
    """One check in a worker process (which imports the registry, and the plugins, itself)."""
    for plugin in plugins:
        registry.load_plugin(plugin)
    return run_check(registry.checker(theorem_id), parameters, overrides, **options)


def _run_on_processes(jobs, options: dict, plugins: tuple, workers: int, finished) -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = [pool.submit(_check_in_worker, checker.id, parameters, overrides, options, plugins)
                   for checker, parameters, overrides in jobs]
        for future in as_completed(futures):
            finished(future.result())
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _print_verdicts(arguments, verdicts: list[Verdict], *, with_table: bool) -> None:
    if arguments.json:
        print(json.dumps({"results": [v.to_dict() for v in verdicts]}, indent=2, allow_nan=False))
        return
    if with_table:
        print(format_table(verdicts))
    for verdict in verdicts:
        print()
        print(verdict.explain())


def _progress(total: int, *, enabled: bool):
    """A progress bar on stderr where stderr is a terminal (tqdm), else nothing."""
    return progress_bar(total, enabled and sys.stderr.isatty(), "check")


def _executor(arguments) -> str:
    """The sweep machinery's executor: dask with --scheduler, else a local process pool, unless chosen."""
    executor = arguments.executor or ("dask" if arguments.scheduler else "processes")
    if arguments.scheduler and executor != "dask":
        raise InvalidInput("--scheduler needs the dask executor")
    return executor


def _sweep(arguments) -> int:
    executor = _executor(arguments)
    tasks = plan(arguments.theorem, parse_grid(arguments.grid), arguments.seeds, fixed=dict(arguments.param),
                 fidelity=arguments.fidelity, false_fail_rate=arguments.false_fail_rate,
                 root_seed=arguments.root_seed, overrides=dict(arguments.overrides), mutant=arguments.mutant,
                 plugins=arguments.plugins_before + arguments.plugin)
    summary = sweep(tasks, arguments.store, executor=executor, workers=arguments.workers,
                    scheduler=arguments.scheduler, progress=not arguments.json)
    if arguments.json:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        counts = ", ".join(f"{count} {outcome}" for outcome, count in sorted(summary.outcomes.items()))
        print(f"{summary.total} tasks ({summary.skipped} already stored, {summary.ran} run) in {summary.store}: "
              f"{counts or 'none'}")
    if summary.outcomes.get(ERROR):
        print(f"thmcheck: {summary.outcomes[ERROR]} task(s) raised an error (stored with their message; a rerun "
              "retries them)", file=sys.stderr)
        return EXIT_INTERNAL
    expected_failure = registry.checker(arguments.theorem).theorem.expected_failure
    if expected_failure and not arguments.mutant:  # a source's form known to fail: fails are expected, a pass is not
        if summary.outcomes.get(FAIL):
            print(f"thmcheck: {summary.outcomes[FAIL]} task(s) failed as expected ({expected_failure})",
                  file=sys.stderr)
        if summary.outcomes.get(PASS):
            print(f"thmcheck: {summary.outcomes[PASS]} task(s) of a statement known to fail passed", file=sys.stderr)
            return EXIT_FAIL
        return EXIT_PASS if set(summary.outcomes) <= {FAIL} else EXIT_UNDECIDED
    if summary.outcomes.get(FAIL):
        return EXIT_FAIL
    if set(summary.outcomes) <= {PASS}:
        return EXIT_PASS
    return EXIT_UNDECIDED


def _calibrate(arguments) -> int:
    """Calibrate the theorems; exit 1 where a true statement fails more often than stated, or (at default fidelity
    or above) a mutant survives a run; 4 where a task raised an error."""
    import tempfile

    if arguments.all and arguments.theorems:
        raise InvalidInput("give theorem ids or --all, not both")
    if not arguments.all and not arguments.theorems:
        raise InvalidInput("name at least one theorem id, or --all (see thmcheck list)")
    theorems = [c.id for c in registry.all_checkers()] if arguments.all else \
        [registry.checker(i).id for i in arguments.theorems]
    executor = _executor(arguments)
    with tempfile.TemporaryDirectory() as scratch:
        store = arguments.store or str(Path(scratch) / "calibration.sqlite")
        results = calibrate(theorems, store, seeds=arguments.seeds, fidelity=arguments.fidelity,
                            false_fail_rate=arguments.false_fail_rate, root_seed=arguments.root_seed,
                            executor=executor, workers=arguments.workers, scheduler=arguments.scheduler,
                            progress=not arguments.json, plugins=arguments.plugins_before + arguments.plugin,
                            paired=arguments.paired, parameters=dict(arguments.param))
    if arguments.json:
        print(json.dumps([c.to_dict() for c in results], indent=2, allow_nan=False))
    elif arguments.markdown:
        print(markdown_calibration(results))
    else:
        print(format_calibration(results))
    if any(c.true_statement.errors or any(m.errors for m in c.mutants) for c in results):
        return EXIT_INTERNAL
    return EXIT_PASS if all(c.contract_holds for c in results) else EXIT_FAIL


def _oracle(arguments) -> int:
    from checkers.equivalence.oracle_curve import THEOREMS, oracle_curve, parse_range

    variable, values = parse_range(arguments.vary, THEOREMS[arguments.theorem])
    if arguments.theorem == "giant-step-risk":
        return _giant_step_oracle(arguments, variable, values)
    points = oracle_curve(variable, values, dict(arguments.param), dimension=arguments.dimension,
                          seed=arguments.seed)
    if arguments.plot:
        _plot_curve(arguments.plot, variable, [p.value for p in points],
                    {"risk (noiseless teacher)": [p.risk for p in points],
                     "train error": [p.train_error for p in points]}, "deterministic equivalent (dimensionless)",
                    f"Gaussian-equivalent ridge after one step, d = {arguments.dimension}, seed {arguments.seed}")
    if arguments.json:
        print(json.dumps({"variable": variable, "dimension": arguments.dimension, "seed": arguments.seed,
                          "parameters": dict(arguments.param),
                          "points": [vars(p) for p in points]}, indent=2, allow_nan=False))
        return EXIT_PASS
    print(f"deterministic equivalent of ridge on the Gaussian-equivalent features after one step (d = "
          f"{arguments.dimension}, seed {arguments.seed}); risk against the noiseless teacher")
    print(f"{variable:>14}  {'risk':>12}  {'test error':>12}  {'train error':>12}  {'kappa':>12}")
    for p in points:
        print(f"{p.value:>14.6g}  {p.risk:>12.8g}  {p.test_error:>12.8g}  {p.train_error:>12.8g}  {p.kappa:>12.6g}")
    return EXIT_PASS


def _tightness(arguments) -> int:
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


def _plot_curve(path: str, variable: str, values: list[float], curves: dict[str, list[float]], ylabel: str,
                title: str) -> None:
    """An oracle curve to a PNG file: the first curve solid, the others dashed."""
    plt = pyplot("plots")
    figure, axis = plt.subplots(figsize=(6.4, 4))
    for index, (label, series) in enumerate(curves.items()):
        axis.plot(values, series, "-" if index == 0 else "--", label=label)
    axis.set_xlabel(variable)
    axis.set_ylabel(ylabel)
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _giant_step_oracle(arguments, variable: str, values: list[float]) -> int:
    from checkers.equivalence.oracle_curve import giant_step_curve

    points = giant_step_curve(variable, values, dict(arguments.param))
    if arguments.plot:
        _plot_curve(arguments.plot, variable, [p.value for p in points],
                    {"test error (noiseless teacher)": [p.test_error for p in points],
                     "train error": [p.train_error for p in points]}, "Result 3.3 in the limit (dimensionless)",
                    "ridge after one giant step: Cui et al.'s Result 3.3")
    if arguments.json:
        print(json.dumps({"theorem": "giant-step-risk", "variable": variable, "parameters": dict(arguments.param),
                          "points": [vars(p) for p in points]}, indent=2, allow_nan=False))
        return EXIT_PASS
    print("Cui et al.'s Result 3.3 in the limit after one giant step; test error against the noiseless teacher")
    print(f"{variable:>14}  {'test error':>12}  {'train error':>12}  {'iterations':>10}")
    for p in points:
        iterations = str(p.iterations) if p.iterations else "-"
        print(f"{p.value:>14.6g}  {p.test_error:>12.8g}  {p.train_error:>12.8g}  {iterations:>10}")
    return EXIT_PASS


def _report(arguments) -> int:
    if arguments.all and arguments.theorems:
        raise InvalidInput("give theorem ids or --all, not both")
    if not arguments.all and not arguments.theorems and not arguments.store:
        raise InvalidInput("name theorem ids, --all, or --from STORE")
    ids = None if arguments.all or not arguments.theorems else arguments.theorems
    if arguments.store and not Path(arguments.store).is_file():
        raise InvalidInput(f"no sweep store at {arguments.store!r}")
    page = build_report(arguments.out, ids, store=arguments.store, fidelity=arguments.fidelity, seed=arguments.seed)
    if arguments.json:
        print(json.dumps({"report": str(page), "out": str(arguments.out)}, indent=2))
    else:
        print(f"report written to {page}")
    return EXIT_PASS


if __name__ == "__main__":
    sys.exit(main())
