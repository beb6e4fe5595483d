"""The thmcheck command: its contract (outputs, JSON keys, exit codes) and its handling of bad input."""

import json
import os
import re
import subprocess
import sys

import mpmath
import pytest

from checkers import registry
from checkers.cli import main
from checkers.executors import Terminated
from tests.main_job import MAIN_JOB

HOSTILE = "__import__('os').system('touch /tmp/thmcheck_cli_pwned')"


def run(capsys, *arguments):
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list(capsys):
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    entries = json.loads(out)
    assert {"id", "title", "provenance"} <= set(entries[0])
    assert "dual-kernel" in {e["id"] for e in entries}


def test_show(capsys):
    code, out, _ = run(capsys, "show", "dual-kernel")
    assert code == 0 and "provenance: derived" in out and "c1 = 0.5" in out
    code, out, _ = run(capsys, "show", "dual-kernel", "--json", "--param", "activation=erf")
    data = json.loads(out)
    c1 = next(c for c in data["constants"] if c["name"] == "c1")
    assert c1["route"] == "exact" and c1["exact"] == "2*sqrt(3)/(3*sqrt(pi))"


def test_show_says_which_mutants_a_simulation_is_drawn_at(capsys):
    """giant-step-risk draws the sRF at the statement's r, c, gamma: a mutant that changes them is observed there
    in its own run only, and `show` says so; a mutant of the readout's constants leaves the sRF's draws alone."""
    code, out, _ = run(capsys, "show", "giant-step-risk", "--json")
    simulated = {m["name"]: m["simulated_at_its_constants"] for m in json.loads(out)["mutants"]}
    assert code == 0 and simulated["no-spike"] == ["srf-test-error", "srf-train-error"]
    assert "srf-test-error" not in simulated["noise-in-test-error"]
    code, out, _ = run(capsys, "show", "giant-step-risk")
    assert "srf-test-error, srf-train-error: the simulation reads this mutant's constants" in out


def test_hermite_tanh_degree_20_digits_30(capsys):
    code, out, _ = run(capsys, "hermite", "tanh", "--degree", "20", "--digits", "30", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["activation"] == "tanh" and data["convention"] == "probabilists"
    assert len(data["coefficients"]) == 21 and len(data["routes"]) == 21
    # independent reference: mpmath.quad at 50 digits of E[tanh(Z) He_k(Z)]/k!
    with mpmath.workdps(50):
        for k in (1, 3, 19):
            def integrand(t, k=k):
                previous, current = 0, 1
                for j in range(k):
                    previous, current = current, t * current - j * previous
                return mpmath.tanh(t) * current * mpmath.npdf(t)
            reference = mpmath.quad(integrand, mpmath.linspace(-30, 30, 61)) / mpmath.factorial(k)
            value = mpmath.mpf(data["coefficients"][k])
            assert abs(value - reference) <= mpmath.mpf(10) ** -29 * abs(reference), k
        assert data["coefficients"][2] == "0"
        assert abs(mpmath.mpf(data["second_moment"]) - mpmath.mpf("0.394294490397841174416459772444")) < 1e-29


def test_hermite_text_output(capsys):
    code, out, _ = run(capsys, "hermite", "relu", "--degree", "3", "--normalized")
    assert code == 0 and "[exact]" in out and "mu_2" in out


def test_check_passes_and_conjecture_fails(capsys):
    code, out, _ = run(capsys, "check", "dual-kernel", "--param", "activation=relu", "--param", "rho=0.7")
    assert code == 0 and "pass" in out
    code, out, _ = run(capsys, "check", "dual-kernel", "--param", "activation=relu", "--param", "rho=0.7",
                       "--set", "c1=0.51", "--json")
    assert code == 1
    result = json.loads(out)["results"][0]
    assert result["theorem"] == "dual-kernel" and result["outcome"] == "fail"
    assert {p["name"] for p in result["predictions"]} == {"closed-form", "monte-carlo", "tail-bound"}


@MAIN_JOB
def test_check_all_quick(capsys, main_job_verdicts):
    """The README's main job. Its per-theorem verdicts are the session's (tests/main_job.py), computed at exactly
    the arguments the command passes; the command's dispatch, table, explanations and exit code run for real."""
    code, out, error = run(capsys, "check", "--all", "--fidelity", "quick", "--workers", "1")
    lines = out.splitlines()
    assert all(any(line.startswith(f"{checker.id} ") for line in lines) for checker in registry.all_checkers())
    # the evidence of what did not pass, then one line of counts and time, as pytest ends
    assert "elasticity-polynomial [secondary]" in out and "dual-kernel [derived]" not in out
    count = len(registry.all_checkers())  # the built-ins, and a plugin an earlier test in this worker registered
    assert re.fullmatch(rf"{count} checks: \d+ passed, 1 failed as expected(, \d+ inconclusive)? in \d+ s", lines[-1])
    assert f"thmcheck: {count} checks to run, about" in error  # the estimate of the whole, before the table
    # nothing fails; the checks whose resolution needs default fidelity are inconclusive (exit 3), and the
    # command says how to resolve them
    ids = {checker.id for checker in registry.all_checkers()}
    resolved_only_later = {checker.id for checker in registry.all_checkers() if checker.resolves_at != "quick"}
    rows = [line.split() for line in out.splitlines()]
    inconclusive = {row[0] for row in rows if len(row) > 2 and row[0] in ids and row[2] == "inconclusive"}
    assert inconclusive <= resolved_only_later, out
    assert code == (3 if inconclusive else 0), out
    if inconclusive:
        assert "--fidelity default" in error and all(theorem in error for theorem in inconclusive)


@MAIN_JOB
def test_the_tests_that_share_the_main_job_run_in_one_worker(request):
    """Under `--dist loadgroup` a test of the main job's group carries the group in its id, which is what keeps the
    group in one worker and its verdicts computed once; a pytest on which the grouping stops (pytest-xdist#1386)
    fails here instead of doubling the main job's time."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not distributed by group")
    assert request.node.nodeid.endswith("@main_job")


def test_the_checks_start_dearest_first_and_the_summary_keeps_the_registrys_order(capsys):
    """spike-strength declares a cost and dual-kernel none: spike-strength starts first (its row prints first with one
    worker), while the table of what did not pass and the JSON list the checks in the order they were named."""
    code, out, _ = run(capsys, "check", "dual-kernel", "spike-strength", "--fidelity", "quick", "--workers", "1")
    rows = [line.split()[0] for line in out.splitlines() if line.split() and line.split()[0] in
            ("dual-kernel", "spike-strength")]
    assert code == 0 and rows == ["spike-strength", "dual-kernel"]
    code, out, _ = run(capsys, "check", "dual-kernel", "spike-strength", "--fidelity", "quick", "--workers", "1",
                       "--json")
    assert [result["theorem"] for result in json.loads(out)["results"]] == ["dual-kernel", "spike-strength"]


def test_mutant_from_the_command_line(capsys):
    code, _, _ = run(capsys, "check", "dual-kernel", "--mutant", "factorial-dropped")
    assert code == 1


def test_outside_assumptions_exit_code(capsys):
    code, out, _ = run(capsys, "check", "dual-kernel", "--param", "activation=exp(z**2)")
    assert code == 3 and "outside assumptions" in out


@pytest.mark.parametrize("arguments, fragment", [
    (["hermite", HOSTILE], "formula"),
    (["hermite", "nosuch"], "unknown activation"),
    (["hermite", "relu", "--degree", "-1"], "degree"),
    (["hermite", "relu", "--digits", "0"], "digits"),
    (["hermite", "relu", "--digits", "1001"], "digits"),
    (["hermite", "relu", "--route", "float64"], "kinks"),
    (["check", "nosuch"], "unknown theorem"),
    (["check"], "at least one"),
    (["check", "dual-kernel", "--param", "rho=1.5"], "rho"),
    (["check", "dual-kernel", "--param", "rho=nan"], "rho"),
    (["check", "dual-kernel", "--param", "rho"], "NAME=VALUE"),
    (["check", "dual-kernel", "--param", f"activation={HOSTILE}"], "activation"),
    (["check", "dual-kernel", "--set", "c99=1"], "no constant"),
    (["check", "dual-kernel", "--set", "c1=z"], "c1"),
    (["check", "dual-kernel", "--fidelity", "extreme"], "fidelity"),
    (["check", "dual-kernel", "--seed", "-3"], "seed"),
    (["check", "dual-kernel", "--mutant", "nosuch"], "mutant"),
    (["show", "nosuch"], "unknown theorem"),
    (["--plugin", "no_such_module_xyz", "list"], "cannot import"),
    ([], "command"),
])
def test_bad_input_exits_2_with_one_line(capsys, arguments, fragment):
    code, out, err = run(capsys, *arguments)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("thmcheck: error:") and fragment in err
    assert "Traceback" not in err
    assert not os.path.exists("/tmp/thmcheck_cli_pwned")


def test_console_script_end_to_end():
    """The installed entry point, as a user runs it: exit codes and no traceback on hostile input."""
    result = subprocess.run([sys.executable, "-m", "checkers.cli", "hermite", HOSTILE], capture_output=True,
                            text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert not os.path.exists("/tmp/thmcheck_cli_pwned")


def test_hermite_at_preactivation_scale(capsys):
    code, out, _ = run(capsys, "hermite", "relu", "--scale", "3/2", "--degree", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["coefficients"][1] == "0.750000000000000000000000000000"
    code, _, err = run(capsys, "hermite", "relu", "--scale", "-1")
    assert code == 2 and "scale" in err


@MAIN_JOB
def test_json_is_strict(capsys, main_job_verdicts):
    """No NaN or Infinity literals (a one-sided rate target has an infinite end): strict parsers accept it."""
    def refuse(constant):
        raise ValueError(constant)

    code, out, _ = run(capsys, "check", "spike-decomposition", "dual-kernel", "--fidelity", "quick", "--json",
                       "--workers", "1")
    data = json.loads(out, parse_constant=refuse)
    rate = next(p for r in data["results"] for p in r["predictions"] if p["name"] == "residual-rate")
    assert rate["predicted_interval"][0] == "-inf"


def test_set_on_a_named_constant_flips_the_verdict(capsys):
    code, out, _ = run(capsys, "check", "srf-constants", "--set", "gamma=0.85", "--fidelity", "quick", "--json")
    assert code == 1, out                                        # the derived gamma is 0.8065
    assert json.loads(out)["results"][0]["outcome"] == "fail"


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`thmcheck list | head -1`: once the reader is gone, no traceback and no 'internal error'."""
    import subprocess
    import sys
    script = ("import sys\nfrom checkers.cli import main\nclass Closed:\n    def write(self, text):\n"
              "        raise BrokenPipeError\n    def flush(self):\n        pass\nsys.stdout = Closed()\n"
              "raise SystemExit(main(['list']))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 141 and result.stderr == ""


def test_numbers_accept_pi_e_and_functions_and_say_so_without_z(capsys):
    code, out, _ = run(capsys, "show", "dual-kernel", "--set", "c1=sqrt(2/pi)", "--digits", "8", "--json")
    [c1] = [c for c in json.loads(out)["constants"] if c["name"] == "c1"]
    assert code == 0 and c1["value"] == "0.79788456" and c1["status"] == "overridden"
    code, _, error = run(capsys, "check", "dual-kernel", "--param", "rho=nan")
    assert code == 2 and "unknown name 'nan'" in error and "z" not in error.split("allowed are")[1].split("and")[0]


@pytest.mark.parametrize("formula", ["exp(exp(z))", "exp(exp(exp(z)))"])
def test_hermite_refuses_what_cannot_be_integrated_within_seconds(capsys, formula):
    import time
    started = time.perf_counter()
    code, _, error = run(capsys, "hermite", formula, "--degree", "2")
    assert code == 2 and formula in error and time.perf_counter() - started < 20


def test_an_activation_undefined_at_a_point_says_why(capsys):
    code, _, error = run(capsys, "hermite", "1/z")
    assert code == 2 and error.strip().endswith("(zerodivision error)")


def test_a_statement_undefined_outside_its_assumptions_is_reported_not_refused(capsys):
    code, out, _ = run(capsys, "check", "spike-strength", "--param", "teacher=exp(z**2)", "--fidelity", "quick")
    assert code == 3 and "outside assumptions" in out and "appears infinite" in out


def test_every_option_has_help_and_states_its_default():
    import argparse

    from checkers.cli import build_parser
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{name} {action.dest} has no help text"
            has_default = action.default not in (None, False, [], argparse.SUPPRESS) and not action.required
            if has_default and action.option_strings:
                assert "default" in action.help, f"{name} {action.option_strings[0]} does not state its default"


def test_report_json_and_a_missing_store_leaves_nothing_behind(capsys, tmp_path):
    out = tmp_path / "rep"
    code, _, error = run(capsys, "report", "--from", str(tmp_path / "nosuch.sqlite"), "--out", str(out))
    assert code == 2 and "no sweep store" in error and not out.exists()


def test_check_streams_rows_and_gives_the_same_numbers_on_several_workers(capsys):
    ids = ["stationary-balanced", "balancedness-identity", "conservation-law"]
    code, serial, _ = run(capsys, "check", *ids, "--fidelity", "quick", "--workers", "1", "--json")
    code2, parallel, _ = run(capsys, "check", *ids, "--fidelity", "quick", "--workers", "2", "--json")

    def numbers(text):
        return [{k: v for k, v in result.items() if k != "elapsed_seconds"} for result in json.loads(text)["results"]]
    assert code == code2 == 0 and numbers(serial) == numbers(parallel)
    code, out, _ = run(capsys, "check", *ids, "--fidelity", "quick", "--workers", "2")
    lines = out.splitlines()
    assert lines[0].startswith("theorem") and lines[1].startswith("---")
    assert sorted(line.split()[0] for line in lines[2:5]) == sorted(ids)  # one row per check, in finishing order


@pytest.mark.parametrize("stop, code, word", [(KeyboardInterrupt, 130, "interrupted"), (Terminated, 143, "terminated")],
                         ids=("SIGINT", "SIGTERM"))
def test_interrupted_check_keeps_what_finished(capsys, monkeypatch, stop, code, word):
    """Ctrl-C or SIGTERM after the first check: what finished is printed, and one line says so."""
    from checkers.cli import running as cli
    real_run_check = cli.run_check
    calls = []

    def interrupted(checker, parameters, overrides, **options):
        calls.append(checker.id)
        if len(calls) == 2:
            raise stop
        return real_run_check(checker, parameters, overrides, **options)

    monkeypatch.setattr(cli, "run_check", interrupted)
    exit_code, out, error = run(capsys, "check", "stationary-balanced", "balancedness-identity", "--fidelity",
                                "quick", "--workers", "1")
    assert exit_code == code and "stationary-balanced" in out
    assert error == f"thmcheck: {word}; 1 of 2 checks finished (printed above)\n"


def test_show_prints_no_more_digits_than_a_constant_is_accurate_to(capsys):
    code, out, _ = run(capsys, "show", "large-step-beats-linear", "--json")
    constants = {c["name"]: c for c in json.loads(out)["constants"]}
    # the float64 root of tau': 13 digits, checked by the mpmath route of tanh-kappa-root (a root of tau' computed
    # separately in mpmath with nested Gauss-Hermite rules gave 1.58826795092912279 at 160 nodes per axis)
    assert constants["kappa_tanh"]["value"] == "1.588267950929"
    assert len(constants["kappa_star"]["value"]) > 30  # sqrt(3), exact


@MAIN_JOB
def test_a_statement_known_to_fail_fails_as_expected_and_does_not_fail_the_run(capsys, main_job_verdicts):
    # elasticity-polynomial states the paper's c_1^2, which its check refutes: the verdict is fail, the row says
    # it was expected, the exit code is that of a pass; its corrected form passes beside it
    code, out, error = run(capsys, "check", "elasticity-polynomial", "elasticity-leading-coefficient",
                           "--fidelity", "quick", "--workers", "1")
    assert code == 0, out + error
    assert "as expected" in out and "failed as expected" in error and "elasticity-leading-coefficient" in error
    code, out, _ = run(capsys, "check", "elasticity-polynomial", "--fidelity", "quick", "--json")
    assert json.loads(out)["results"][0]["expected_failure"]


def test_tightness_reports_the_best_ratio_beside_the_known_construction(capsys):
    code, out, _ = run(capsys, "tightness", "head-conditioning", "--fidelity", "quick", "--json")
    rows = {row["prediction"]: row for row in json.loads(out)["inequalities"]}
    assert code == 0 and set(rows) == {"weyl", "condition-bound"}
    weyl = rows["weyl"]
    assert weyl["attainable"] > 0.999 and weyl["best_ratio"] >= 0.95 * weyl["attainable"]  # the 5%
    assert weyl["best_ratio"] <= 1 and "graded" in weyl["construction"]
    code, out, _ = run(capsys, "tightness", "dual-kernel", "--fidelity", "quick")  # attained at rho = +-1
    assert code == 0 and "best ratio 1 " in out
    code, out, _ = run(capsys, "tightness", "dual-kernel", "--fidelity", "quick", "--param", "activation=z**2")
    assert code == 0 and "not measured" in out  # an exact series: no tail to compare with
    code, out, _ = run(capsys, "tightness", "spike-strength", "--fidelity", "quick")
    assert code == 0 and "states no inequality" in out


def test_the_closing_line_suggests_more_samples_only_where_samples_were_short(capsys):
    """An inconclusive reading with an observation was short of samples: the rerun it suggests keeps the point's
    parameters and seed (it once dropped them, so a user rerunning checked the defaults). A prediction left
    unresolved for a stated reason (an expansion not settled at the sizes) is named apart, with no such promise."""
    code, _, err = run(capsys, "check", "spike-strength", "--param", "psi2=0.05", "--seed", "3", "--fidelity",
                       "quick", "--workers", "1")
    assert code == 3
    assert "rerun with more: thmcheck check spike-strength --param psi2=0.05 --seed 3 --fidelity default" in err
    code, _, err = run(capsys, "check", "spike-count", "--param", "alpha=0.5", "--fidelity", "quick", "--workers",
                       "1")
    assert code == 3 and "rerun with more" not in err
    assert "left a prediction unresolved for the reason printed with it" in err and err.rstrip().endswith("spike-count")


def test_show_json_says_what_each_mutant_acts_on_and_how_far_it_moves_each_target(capsys):
    code, out, _ = run(capsys, "show", "spike-strength", "--json")
    shown = json.loads(out)
    mutants = {m["name"]: m for m in shown["mutants"]}
    assert code == 0 and all(m["acts_on"] in ("claim", "simulation") for m in mutants.values())
    assert mutants["mu1-five-percent"]["moves"] == {"gradient-norm": pytest.approx(1.25, rel=1e-12)}
    assert shown["near_mutants"] == {"mu1-five-percent": pytest.approx(1.25, rel=1e-12)}


def test_show_where_the_statement_is_undefined_says_why_and_claims_nothing(capsys):
    """exp(z^2) is not square-integrable, so dual-kernel derives no c_k there: `show` names the failing assumption
    where the constants would be, and no mutant moves a target (as the check skips every prediction)."""
    code, out, _ = run(capsys, "show", "dual-kernel", "--param", "activation=exp(z**2)", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["constants"] == [] and "appears infinite" in shown["constants_undefined"]
    assert [m["moves"] for m in shown["mutants"]] == [None] * 3 and shown["near_mutants"] == {}
    assert all(p["resolution"] is None for p in shown["predictions"])


@pytest.mark.parametrize("theorem_id", sorted(checker.id for checker in registry.builtin_checkers() if any(
    parameter.name == "activation" for parameter in checker.theorem.parameters)))
def test_show_with_an_activation_outside_every_assumption_is_the_users_not_an_internal_error(capsys, theorem_id):
    """`show` at exp(z^2) (E sigma(Z)^2 infinite): the statement (exit 0: outside its assumptions, or one whose
    constants do not read the activation) or a one-line refusal (exit 2), never an internal error (exit 4). A slow
    test in tests/test_domain_edges.py runs `show` at every point its sweep checks."""
    code, _, err = run(capsys, "show", theorem_id, "--param", "activation=exp(z**2)")
    assert code in (0, 2), err


def test_show_json_gives_each_prediction_its_resolution_basis_and_the_fidelity_that_resolves_it(capsys):
    """giant-step-risk's Monte Carlo limits resolve from paper fidelity, on named errors' distances; the network's
    bands on a rule of ours around the authors' closeness; none rests on a budget."""
    from theorems.statement import RESOLUTION_BASES
    code, out, _ = run(capsys, "show", "giant-step-risk", "--json")
    predictions = {p["name"]: p for p in json.loads(out)["predictions"]}
    assert code == 0 and predictions["srf-test-error"]["resolved_at"] == "paper"
    assert predictions["srf-test-error"]["resolution_reason"]["basis"] == "nearest-error"
    assert predictions["test-error"]["resolution_reason"]["basis"] == "ours"
    assert all(p["resolution"] > 0 and p["resolution_reason"]["basis"] in RESOLUTION_BASES
               for p in predictions.values())


def test_an_undecided_check_is_sent_to_the_fidelity_that_resolves_it_and_none_beyond_the_highest():
    from checkers import registry
    giant, dual = registry.checker("giant-step-risk"), registry.checker("dual-kernel")
    hermite = registry.checker("hermite-equivalence")
    assert hermite.resolves_at == "default" and hermite.resolving_fidelity("quick") == "default"
    assert hermite.resolving_fidelity("default") == "high" and dual.resolving_fidelity("quick") == "default"
    assert hermite.resolving_fidelity("high") is None
    assert registry.checker("spike-outlier").resolving_fidelity("high") == "paper"
    assert giant.resolves_at == "paper" and giant.resolving_fidelity("quick") == "paper"


def test_paper_fidelity_is_bad_input_for_a_check_short_of_its_sources_scale(capsys):
    code, _, error = run(capsys, "check", "mixture-means", "--fidelity", "paper")
    assert code == 2 and "mixture-means at paper fidelity: not offered, short of its source's scale" in error
    assert "n = m = k = 1000" in error and "--all --fidelity paper" in error
    assert len(error.strip().splitlines()) == 1


def test_paper_fidelity_reads_an_exact_check_at_default_and_says_so(capsys):
    """An exact check's verdict does not sharpen with sample sizes, and dual-kernel's source has no experiment: at
    paper fidelity each runs, and reports, default."""
    from checkers import registry

    assert registry.checker("nc2-bracket").exact and not registry.checker("dual-kernel").exact
    for theorem in ("nc2-bracket", "dual-kernel"):
        code, out, _ = run(capsys, "check", theorem, "--fidelity", "paper", "--json")
        assert code == 0 and json.loads(out)["results"][0]["fidelity"] == "default"


def test_a_formula_starting_with_a_minus_is_the_activation_not_an_option(capsys):
    code, out, _ = run(capsys, "hermite", "-z", "--degree", "1", "--json")
    assert code == 0 and json.loads(out)["coefficients"][1].startswith("-1.0")


HEAVY = ("numpy", "scipy", "sympy", "mpmath", "hypothesis", "matplotlib", "theorems.statement", "checkers.checker",
         "checkers.engine")


@pytest.mark.parametrize("command", [["--help"], ["list"], ["list", "--markdown"], ["list", "--json"]],
                         ids=" ".join)
def test_printing_the_help_or_the_list_loads_no_numerics(command):
    """What makes them start in a tenth of a second (benchmarks/bench_startup.py times it): a fresh interpreter that
    runs the command has imported none of the numeric packages or the check engine."""
    probe = ("import sys, contextlib, io\nfrom checkers.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    try:\n        code = main({command!r})\n    except SystemExit as stop:\n        code = stop.code\n"
             f"print(code, [m for m in {HEAVY!r} if m in sys.modules])")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.split(maxsplit=1) == ["0", "[]\n"]


def test_showing_a_theorem_loads_no_statistics_it_does_not_print():
    """`show` derives the constants (sympy) and reads the theorem's calibration record, but the record's intervals and
    spreads, which need scipy.stats, are not printed, so a fresh interpreter that runs it has not imported it."""
    probe = ("import sys, contextlib, io\nfrom checkers.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    code = main(['show', 'collapse-training'])\n"
             "print(code, 'scipy.stats' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["0", "False"]


def test_the_catalog_reads_every_builtin_as_the_registry_builds_it():
    from checkers import catalog, registry
    entries = catalog.entries()
    assert entries is not None and set(entries) == {c.id for c in registry.builtin_checkers()}
    for checker in registry.builtin_checkers():
        entry, theorem = entries[checker.id], checker.theorem
        assert (entry.family, entry.title, entry.provenance, entry.source, entry.statement, entry.simulation) == (
            registry.family(checker.id), theorem.title, theorem.provenance, theorem.source, theorem.statement,
            checker.simulation)


def test_a_hermite_table_beyond_its_cap_is_refused_before_it_starts_with_the_estimate(capsys):
    from theorems.hermite import arb_route_seconds
    code, out, err = run(capsys, "hermite", "tanh", "--degree", "400", "--digits", "1000")
    assert code == 2 and not out
    minutes = (arb_route_seconds(400, 1000) + arb_route_seconds(0, 1000)) / 60  # tanh's quadrature runs in Arb
    assert f"about {minutes:.0f} min" in err and "cap of 10 min" in err and "--max-minutes" in err
    code, _, err = run(capsys, "hermite", "relu", "--degree", "60", "--digits", "200", "--max-minutes", "0.001")
    assert code == 0 and not err  # closed forms: no quadrature to cap


def test_a_hermite_table_over_a_minute_is_announced(capsys, monkeypatch):
    from checkers.cli import inspection
    monkeypatch.setattr(inspection, "quadrature_seconds", lambda *arguments: 90.0)  # a cheap table, announced
    monkeypatch.setattr(inspection, "quadrature_bytes", lambda *arguments: 1.5 * 2**30)
    code, _, err = run(capsys, "hermite", "tanh", "--degree", "4")
    assert code == 0 and "takes about 90 s and 1.5 GiB" in err


@MAIN_JOB
def test_the_evidence_of_every_check_with_verbose_and_a_summary_line(capsys, main_job_verdicts):
    code, out, _ = run(capsys, "check", "dual-kernel", "stationary-balanced", "--fidelity", "quick", "--workers", "1")
    assert code == 0 and "dual-kernel [derived]" not in out  # a pass prints its row, not its evidence
    assert re.fullmatch(r"2 checks: 2 passed in \d+ s", out.splitlines()[-1])
    code, out, _ = run(capsys, "check", "dual-kernel", "stationary-balanced", "--fidelity", "quick", "-v",
                       "--workers", "1")
    assert code == 0 and "dual-kernel [derived]" in out and "stationary-balanced [derived]" in out


def test_a_conjecture_is_tagged_and_read_as_rejected(capsys):
    code, out, _ = run(capsys, "check", "dual-kernel", "--param", "activation=relu", "--set", "c1=0.51",
                       "--fidelity", "quick")
    assert code == 1
    assert re.search(r"^dual-kernel \[conjecture c1=51/100\]\s+derived\s+rejected", out, flags=re.M)
    assert "1 check: 1 rejected in" in out.splitlines()[-1]


def test_numbers_are_shown_at_the_digits_their_errors_support():
    from checkers.verdict import shown
    assert shown(1.2194729844483123, 0.0014074) == "1.2195"
    assert shown(0.12776262809873867, 0.0017225) == "0.1278"
    assert shown(-1.53e-10, 1e-9) == "-1.5e-10"
    assert shown(0.375045204626635, 1e-30) == "0.375045204627"  # float64 evidence: 12 digits at most
    assert shown(0.5, None) == "0.5"


def test_more_workers_than_usable_cores_are_clamped_with_a_note(capsys, monkeypatch):
    """sweep --workers 1000 started a process per task on two cores and passed 4 GB."""
    import checkers.cli

    monkeypatch.setattr(checkers.cli, "usable_cores", lambda: 2)
    code, _, error = run(capsys, "check", "dual-kernel", "--fidelity", "quick", "--workers", "1000")
    assert code == 0 and "--workers 1000 is more than the 2 usable cores here; running 2" in error


def test_contract_prints_each_theorem_as_it_finishes_and_what_finished_on_an_interrupt(capsys, monkeypatch):
    from checkers import contract

    real_check, calls = contract.check, []

    def interrupted_on_the_second(checker, **options):
        calls.append(checker.id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_check(checker, **options)

    monkeypatch.setattr(contract, "check", interrupted_on_the_second)
    code, out, error = run(capsys, "contract", "dual-kernel", "nc1-bound", "conservation-law", "--no-runs")
    assert code == 130 and out.startswith("dual-kernel: holds") and "nc1-bound" not in out
    assert "interrupted; 1 of 3 theorems finished (printed above)" in error


def test_contract_refuses_runs_beyond_its_cap_before_any_run(capsys):
    """giant-step-risk declares its cost: every mutant drawn to paper fidelity's last stage may take hours."""
    code, out, error = run(capsys, "contract", "dual-kernel", "giant-step-risk", "--max-minutes", "1")
    assert code == 2 and out == "" and "giant-step-risk (about" in error and "--no-runs" in error
    assert "dual-kernel" not in error and error.count("\n") == 1


def test_hermite_refuses_a_table_beyond_its_memory_cap_before_any_quadrature(capsys):
    code, out, error = run(capsys, "hermite", "tanh", "--degree", "200", "--max-memory", "0.5")
    assert code == 2 and out == "" and error.count("\n") == 1
    assert "would need about 1.2 GiB, above the cap of --max-memory (0.5 GiB)" in error
