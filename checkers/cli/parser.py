"""The `thmcheck` command line's parser: every command's options, validated as they are read."""

from __future__ import annotations

import argparse
import os

from checkers.arrays import BACKENDS
from checkers.arrays import DEFAULT as DEFAULT_BACKEND
from checkers.budget import (
    DEFAULT_FALSE_FAIL_RATE,
    DEFAULT_SEEDS,
    FIDELITIES,
    MAX_CHECK_MINUTES,
    MAX_HERMITE_MINUTES,
    MAX_TASKS,
)
from checkers.executors import EXECUTORS
from checkers.outcome import EXIT_CODES
from theorems.domains import HERMITE_ROUTES as ROUTES
from theorems.domains import MAX_DEGREE, MAX_DIGITS, builtin_names
from theorems.errors import InvalidInput


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, no usage dump
        raise InvalidInput(f"{message} (see thmcheck {self.prog.split()[-1] if ' ' in self.prog else ''} --help)"
                           .replace("thmcheck thmcheck", "thmcheck").replace("  ", " "))


def _given(text: str) -> str:
    """A path, address or list the user typed: an empty one is refused, never read as "not given"."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value was given")
    return text


def _key_value(text: str) -> tuple[str, str]:
    name, separator, value = text.partition("=")
    if not separator or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


class _Assignments(argparse.Action):
    """A repeatable NAME=VALUE option whose names must differ: a second value for a name is refused, not silently
    kept in place of the first."""

    def __call__(self, parser, namespace, value, option_string=None):
        given = list(getattr(namespace, self.dest) or [])
        name = value[0]
        earlier = next((v for n, v in given if n == name), None)
        if earlier is not None:
            raise InvalidInput(f"{option_string} {name} given twice ({earlier} and {value[1]}); give it once")
        setattr(namespace, self.dest, given + [value])


def formula_as_positional(argv: list[str]) -> list[str]:
    """`thmcheck hermite -z ...`: a formula that starts with '-' (and is no option of hermite) is moved behind '--' at
    the end, where argparse reads it as the ACTIVATION it is, not as an unknown option."""
    if "hermite" not in argv:
        return argv
    index = argv.index("hermite") + 1
    options = {"-h", "--help", "--degree", "--digits", "--route", "--scale", "--normalized", "--json", "--plugin"}
    if index < len(argv) and argv[index].startswith("-") and argv[index].split("=")[0] not in options \
            and argv[index] != "--" and "--" not in argv:
        return argv[:index] + argv[index + 1:] + ["--", argv[index]]
    return argv


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


def _positive(unit: str):
    """An argument type: a positive, finite number of `unit`."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{unit} must be a number, got {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"{unit} must be positive and finite, got {text}")
        return value
    return parse


_minutes, _gigabytes = _positive("minutes"), _positive("gigabytes")


def _max_minutes(parser, default: float, what: str) -> None:
    parser.add_argument("--max-minutes", type=_minutes, default=default, metavar="M",
                        help=f"refuse, before it starts, {what} estimated to take longer than M minutes on this "
                             f"machine (default {default:g}); an estimate above a minute is printed first")


def _max_memory(parser, what: str) -> None:
    parser.add_argument("--max-memory", type=_gigabytes, metavar="GB",
                        help=f"refuse, before it starts, {what} whose process is estimated to need more than GB "
                             "gigabytes (default: the memory this machine has available)")


def build_parser() -> argparse.ArgumentParser:
    json_help = "print JSON instead of text"
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                        help="import MODULE (an importable module name or a .py path) and register its CHECKER "
                             "(repeatable)")
    parser = _Parser(prog="thmcheck", description="Check theorems about two-layer neural networks: exact "
                                                  "constants, calibrated Monte Carlo verdicts.",
                     epilog="Exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items())
                            + ".")
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
    listing.add_argument("--paper", metavar="KEY", type=_given,
                         help="one paper's theorems and its discussion's claims ledger (see thmcheck papers)")

    papers = commands.add_parser("papers", parents=[common],
                                 help="the source papers, their theorems and their discussions' claims")
    papers.add_argument("paper", nargs="?", metavar="KEY", help="one paper, with every claim of its discussion")
    papers.add_argument("--json", action="store_true", help=json_help)

    show = commands.add_parser("show", parents=[common], help="a theorem's statement, parameters, constants")
    show.add_argument("theorem", metavar="ID", help="a theorem id (see thmcheck list), or a paper's key (see "
                      "thmcheck papers)")
    show.add_argument("--param", action=_Assignments, type=_key_value, default=[], metavar="NAME=VALUE",
                      help="a parameter's value (repeatable; default: the theorem's defaults)")
    show.add_argument("--set", action=_Assignments, type=_key_value, default=[], metavar="CONSTANT=VALUE",
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
    _max_minutes(hermite, MAX_HERMITE_MINUTES, "a table whose mpmath quadrature is")
    hermite.add_argument("--max-memory", type=_gigabytes, metavar="GB",
                         help="refuse, before it starts, a table whose quadrature is estimated to need more than GB "
                              "gigabytes (default: the memory this machine has available)")
    hermite.add_argument("--json", action="store_true", help=json_help)

    check = commands.add_parser("check", parents=[common], help="check theorems and print verdicts")
    check.add_argument("theorems", nargs="*", metavar="ID", help="theorem ids (see thmcheck list)")
    check.add_argument("--all", action="store_true", help="check every registered theorem")
    check.add_argument("--param", action=_Assignments, type=_key_value, default=[], metavar="NAME=VALUE",
                       help="a parameter's value (repeatable; default: each theorem's defaults)")
    check.add_argument("--set", action=_Assignments, type=_key_value, default=[], metavar="CONSTANT=VALUE",
                       dest="overrides", help="override a named constant (conjecture mode; repeatable)")
    check.add_argument("--seed", type=_bounded_int("seed", 0, 2**63 - 1), default=0,
                       help="the root seed of the simulations (default 0)")
    check.add_argument("--fidelity", choices=list(FIDELITIES), default="default",
                       help="how hard to look: quick may leave a true statement inconclusive, default resolves "
                            "it, paper draws at the source's scale where a check offers it (`thmcheck show ID` says "
                            "what; with --all a check short of it runs at default) (default: default)")
    check.add_argument("--backend", choices=list(BACKENDS), default=DEFAULT_BACKEND,
                       help="the array library the simulation's matrix work runs on, on the same draws, for the "
                            "checks that offer it; each but numpy is installed by its extra, pip install -e "
                            "'.[torch]' (default: numpy)")
    check.add_argument("--false-fail-rate", type=_rate, default=DEFAULT_FALSE_FAIL_RATE,
                       help=f"false-fail rate of each theorem's check, split across its predictions (default "
                            f"{DEFAULT_FALSE_FAIL_RATE:g})")
    check.add_argument("--mutant", metavar="NAME", help="check a named wrong version of the theorem")
    check.add_argument("--workers", type=_bounded_int("workers", 1, 4096), default=usable_cores(),
                       help="worker processes, each check on one core; the numbers do not depend on it (default: "
                            f"every usable core, {usable_cores()} here)")
    _max_minutes(check, MAX_CHECK_MINUTES, "a check")
    _max_memory(check, "a check")
    check.add_argument("-v", "--verbose", action="store_true",
                       help="print the evidence of every check (by default, of those that did not pass)")
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
    tasks.add_argument("--scheduler", metavar="ADDRESS", type=_given,
                       help="a running dask scheduler (tcp://host:port), or 'local' to start a LocalCluster")
    _max_minutes(tasks, MAX_CHECK_MINUTES, "a task")
    _max_memory(tasks, "a task")

    sweep = commands.add_parser("sweep", parents=[common, tasks],
                                help="one theorem over a grid and many seeds, stored")
    sweep.add_argument("theorem", metavar="ID", help="a theorem id (see thmcheck list)")
    sweep.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                       help="swept parameter values (repeatable; values split at commas outside parentheses)")
    sweep.add_argument("--param", action=_Assignments, type=_key_value, default=[], metavar="NAME=VALUE",
                       help="a parameter held fixed (repeatable)")
    sweep.add_argument("--set", action=_Assignments, type=_key_value, default=[], metavar="CONSTANT=VALUE",
                       dest="overrides", help="override a named constant in every task (repeatable)")
    sweep.add_argument("--seeds", type=_bounded_int("seeds", 1, MAX_TASKS), default=1,
                       help="seeds per grid point (default 1)")
    sweep.add_argument("--mutant", metavar="NAME", help="sweep a named wrong version of the theorem")
    sweep.add_argument("--backend", choices=list(BACKENDS), default=DEFAULT_BACKEND,
                       help="the array library of the matrix work, on the same draws (as for check; default: numpy)")
    sweep.add_argument("--store", default="thmcheck-results.sqlite", metavar="PATH", type=_given,
                       help="SQLite result store; tasks this code already stored in it are skipped, those other code "
                            "stored are rerun (default thmcheck-results.sqlite)")
    sweep.add_argument("--json", action="store_true", help="print a JSON summary (and no progress bar)")

    # the committed calibration records, read by calibrate and calibration
    records = argparse.ArgumentParser(add_help=False)
    records.add_argument("--records", metavar="PATH", type=_given,
                         help="the records file (default: the project's docs/calibration.json)")

    calibrate = commands.add_parser("calibrate", parents=[common, tasks, records],
                                    help="the true statement and every mutant over many seeds: observed rates")
    calibrate.add_argument("theorems", nargs="*", metavar="ID", help="theorem ids (see thmcheck list)")
    calibrate.add_argument("--all", action="store_true", help="calibrate every registered theorem")
    calibrate.add_argument("--param", action=_Assignments, type=_key_value, default=[], metavar="NAME=VALUE",
                           help="calibrate at this parameter value instead of the default (repeatable; every "
                                "theorem named must take it)")
    calibrate.add_argument("--seeds", type=_bounded_int("seeds", 1, MAX_TASKS), default=DEFAULT_SEEDS,
                           help=f"seeds per version (default {DEFAULT_SEEDS})")
    calibrate.add_argument("--store", metavar="PATH", type=_given,
                           help="SQLite store, so a calibration resumes (default: a temporary file, not kept)")
    calibrate.add_argument("--paired", action="store_true",
                           help="run each mutant on the true statement's seeds, so simulations that do not depend "
                                "on the statement run once per seed (several times faster for the slow theorems; "
                                "each version's rate means the same)")
    calibrate.add_argument("--json", action="store_true", help="print the rates as JSON (and no progress bar)")
    calibrate.add_argument("--markdown", action="store_true",
                           help="print one row per theorem as a markdown table (docs/calibration.md's table)")
    calibrate.add_argument("--record", action="store_true",
                           help="write each calibration into the records file, in place of its row there")
    calibrate.add_argument("--stale", action="store_true",
                           help="rerun every row of the records file that is stale (its theorem changed since, or "
                                "it was measured before the records), at its own fidelity, point and seeds, and "
                                "record it; with theorem ids, only those theorems' rows")

    calibration = commands.add_parser("calibration", parents=[common, records],
                                      help="the recorded calibrations (docs/calibration.json): which rows are current")
    calibration.add_argument("--stale", action="store_true", help="only the rows whose theorem changed since")
    calibration.add_argument("--markdown", action="store_true", help="print docs/calibration.md's generated tables")
    calibration.add_argument("--write", metavar="DOCUMENT", nargs="?", const="",
                             help="rewrite the generated tables in DOCUMENT (default: the project's "
                                  "docs/calibration.md)")
    calibration.add_argument("--json", action="store_true", help=json_help)

    reproduce = commands.add_parser("reproduce", parents=[common],
                                    help="a paper's figure setting: the statement's theory and this project's "
                                         "simulations, as PNG and JSON")
    reproduce.add_argument("theorem", metavar="ID", help="giant-step-risk (Cui et al.), mixture-equivalence (Demir "
                                                         "and Dogan) or spike-outlier (Ba et al.)")
    reproduce.add_argument("--out", required=True, metavar="DIR", type=_given,
                           help="the folder for the figures, the JSON and the runs (runs.sqlite: a rerun resumes)")
    reproduce.add_argument("--fidelity", choices=list(FIDELITIES), default="default", help="(default: default)")
    reproduce.add_argument("--seeds", type=_bounded_int("seeds", 1, 1000), help="seeds a point (default: the "
                                                                                 "figure's, 3)")
    reproduce.add_argument("--values", metavar="V1,V2,...", type=_given,
                           help="the swept parameter's values instead of the figure's")
    reproduce.add_argument("--executor", choices=[e for e in EXECUTORS if e != "dask"],
                           help="default: a local process pool")
    reproduce.add_argument("--workers", type=_bounded_int("workers", 1, 4096),
                           help="worker processes (default: the CPU count)")
    _max_minutes(reproduce, MAX_CHECK_MINUTES, "a run")
    _max_memory(reproduce, "a run")
    reproduce.add_argument("--json", action="store_true", help="print the points and curves as JSON")

    tightness = commands.add_parser("tightness", parents=[common],
                                    help="how close each inequality of a theorem came to equality in its search")
    tightness.add_argument("theorem", metavar="ID", help="a theorem id (see thmcheck list)")
    tightness.add_argument("--param", action=_Assignments, type=_key_value, default=[], metavar="NAME=VALUE",
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
    oracle.add_argument("--param", action=_Assignments, type=_key_value, default=[], metavar="NAME=VALUE",
                        help="a parameter of the theorem held fixed (repeatable; see thmcheck show THEOREM)")
    oracle.add_argument("--dimension", type=_bounded_int("dimension", 2, 4000), default=200,
                        help="gaussian-equivalence: d of the drawn step (n = psi1 d, N = psi2 d; default 200)")
    oracle.add_argument("--seed", type=_bounded_int("seed", 0, 2**63 - 1), default=0,
                        help="gaussian-equivalence: seed of the drawn step (default 0)")
    oracle.add_argument("--plot", metavar="FILE", type=_given,
                        help="also draw the curve to a PNG file (needs matplotlib)")
    oracle.add_argument("--json", action="store_true", help="print the curve as JSON")

    contract = commands.add_parser("contract", parents=[common],
                                   help="the contract every checker meets (declarations, constants, a quick run, "
                                        "every mutant rejected), on built-ins or a plugin's")
    contract.add_argument("theorems", nargs="*", metavar="ID", help="theorem ids (see thmcheck list)")
    contract.add_argument("--all", action="store_true", help="every registered theorem")
    contract.add_argument("--no-runs", action="store_true",
                          help="the declarations only: leave out the quick check and the mutants' runs (seconds)")
    contract.add_argument("--snapshots", metavar="DIR", type=_given,
                          help="compare the constants with the snapshots in DIR (default for the built-ins: the "
                               "project's tests/snapshots, where it is there)")
    contract.add_argument("--update-snapshots", action="store_true",
                          help="write each theorem's snapshot (constants-ID.json) first; review the diff")
    contract.add_argument("--json", action="store_true", help="print each clause's problems as JSON")
    _max_minutes(contract, MAX_CHECK_MINUTES, "a theorem's runs (its quick check and every mutant's)")

    notebooks = commands.add_parser("notebooks", parents=[common],
                                    help="static pages of the teaching notebooks, which open with no network")
    notebooks.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                           help="notebook files (default: every notebook in the project's notebooks/)")
    notebooks.add_argument("--out", required=True, metavar="DIR", type=_given, help="the folder to write NAME.html to")

    review = commands.add_parser("review", parents=[common],
                                 help="a referee's review of one paper: every check of its theorems and of its "
                                      "discussion's claims, as index.html, review.md and review.json")
    review.add_argument("paper", metavar="KEY", help="a paper's key (see thmcheck papers)")
    review.add_argument("--out", required=True, metavar="DIR", type=_given,
                        help="the folder for the pages and, unless --store says otherwise, review.sqlite (a rerun "
                             "resumes from it)")
    review.add_argument("--store", metavar="FILE", type=_given, help="the sweep store the runs go to (default: "
                                                                       "DIR/review.sqlite)")
    review.add_argument("--fidelity", choices=list(FIDELITIES), default="paper",
                        help="paper (the default) runs each check at what paper fidelity reads for it (its paper's "
                             "sizes where it declares them), else at default; any other fidelity runs every check "
                             "there")
    review.add_argument("--param", action=_Assignments, type=_key_value, default=[], metavar="NAME=VALUE",
                        help="a parameter's value for every check whose theorem has it, in place of the ledger's "
                             "(repeatable)")
    review.add_argument("--set", action=_Assignments, type=_key_value, default=[], metavar="CONSTANT=VALUE",
                        dest="overrides", help="a conjecture: override a named constant in every check whose theorem "
                                               "has it (repeatable)")
    review.add_argument("--workers", type=_bounded_int("workers", 1, 4096),
                        help="worker processes (default: the CPU count; 2 for --scheduler local)")
    review.add_argument("--scheduler", metavar="ADDRESS", type=_given,
                        help="run on a dask scheduler (tcp://host:port), or 'local' to start a LocalCluster")
    _max_minutes(review, MAX_CHECK_MINUTES, "a review")
    _max_memory(review, "a review's check")
    review.add_argument("--json", action="store_true", help="print where the review went, as JSON")

    report = commands.add_parser("report", parents=[common], help="a static HTML page of verdicts and plots")
    report.add_argument("theorems", nargs="*", metavar="ID", help="theorem ids to check now (without --from)")
    report.add_argument("--all", action="store_true", help="check every registered theorem now")
    report.add_argument("--from", dest="store", metavar="STORE", type=_given, help="read verdicts from a sweep store")
    report.add_argument("--out", required=True, metavar="DIR", type=_given,
                        help="the folder to write index.html and figures to")
    report.add_argument("--fidelity", choices=list(FIDELITIES), default="quick",
                        help="fidelity of the checks run when there is no store (default quick)")
    report.add_argument("--seed", type=_bounded_int("seed", 0, 2**63 - 1), default=0,
                        help="seed of the checks run when there is no store (default 0)")
    report.add_argument("--json", action="store_true", help="print where the report went, as JSON")
    return parser
