"""The contract as it ships (`thmcheck contract`, `checkers.testing`): on a plugin, on a broken plugin, and on a
theorem added from nothing in the three files the README names."""

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checkers import registry
from checkers.testing import assert_clause, assert_contract, contract_cases

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "stein_plugin.py"


def thmcheck(*arguments: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checkers.cli", *arguments], capture_output=True, text=True,
                          timeout=600, **options)


def test_the_example_plugin_meets_the_contract():
    result = thmcheck("--plugin", str(EXAMPLE), "contract", "stein-lemma")
    assert result.returncode == 0 and result.stdout.startswith("stein-lemma: holds"), result.stdout + result.stderr


BROKEN = """
import dataclasses
import importlib.util

from checkers.checker import Checker

spec = importlib.util.spec_from_file_location("stein_example", {example!r})
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
theorem = example.THEOREM
{change}
CHECKER = Checker(theorem=theorem, simulation=example.CHECKER.simulation, readers=example.CHECKER.readers)
"""


def _broken_plugin(tmp_path: Path, change: str) -> Path:
    """The example plugin with one declaration changed (`change`, a statement rebinding `theorem`)."""
    path = tmp_path / "broken_plugin.py"
    path.write_text(BROKEN.format(example=str(EXAMPLE), change=change))
    return path


def test_a_plugin_whose_resolution_states_no_reason_fails_naming_it(tmp_path):
    path = _broken_plugin(tmp_path, "theorem = dataclasses.replace(theorem, predictions=(dataclasses.replace("
                                    "theorem.predictions[0], resolution_reason=None),))")
    result = thmcheck("--plugin", str(path), "contract", "stein-lemma", "--no-runs")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "reasons: first-moment: its resolution states no reason" in result.stdout


def test_a_plugin_whose_mutant_moves_nothing_fails_naming_it(tmp_path):
    path = _broken_plugin(tmp_path, "theorem = dataclasses.replace(theorem, mutants=(dataclasses.replace("
                                    "theorem.mutants[1], constant_factors={'second_moment': 1.05}),))")
    result = thmcheck("--plugin", str(path), "contract", "stein-lemma", "--no-runs")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "claims-move: mutant c1-five-percent-high acts on the claim but moves no predicted target" in result.stdout


THEOREM = '''
    """mean-of-square: E[Z^2 sigma(Z)] = 2 c_2 + c_0, stated for thmcheck (docs/derivation.md#mean-of-square)."""

    from theorems.hermite import hermite_coefficients

    from theorems.quantity import combine
    from theorems.statement import Constant, Mutant, Parameter, Prediction, ResolutionReason, Target, Theorem

    def _moment(parameters, digits):
        table = hermite_coefficients(parameters["activation"], 2, digits=digits)
        return combine("moment", digits, [table.quantity(0), table.quantity(2)], lambda c0, c2: c0 + 2 * c2)

    THEOREM = Theorem(
        id="mean-of-square", title="E[Z^2 sigma(Z)] = c_0 + 2 c_2", source="docs/derivation.md#mean-of-square",
        provenance="derived", statement="E[Z^2 sigma(Z)] = c_0 + 2 c_2 for Z ~ N(0, 1)",
        parameters=(Parameter(name="activation", description="sigma", kind="activation", default="softplus"),),
        assumptions=(),
        constants=(Constant.of_parameters("moment", _moment),),
        predictions=(Prediction(
            name="moment", kind="limit", statement="E[Z^2 sigma(Z)] equals c_0 + 2 c_2",
            predict=lambda instance: Target.point(instance.constant("moment")),
            resolution=lambda instance: 0.02 * abs(float(instance.constant("moment"))),
            resolution_reason=ResolutionReason("nearest-error", "2% of the moment: c_2 in place of 2 c_2 is the "
                                                                "plausible slip, several resolutions away")),),
        mutants=(Mutant(name="moment-three-percent-high", description="the moment 3% high, a near error",
                        constant_factors={"moment": 1.03}),),
    )
'''
CHECKER = '''
    """Checker of mean-of-square: E[Z^2 sigma(Z)] by plain Monte Carlo in 64 batches."""

    import numpy as np

    from checkers.checker import Checker
    from checkers.stats import mean_estimate
    from scratchpkg.theorem import THEOREM

    def read_moment(instance, budget, seed):
        z = np.random.default_rng(seed).standard_normal((64, budget.scaled(50_000)))
        return mean_estimate(np.mean(z**2 * instance["activation"](z), axis=1), samples_per_replicate=z.shape[1])

    CHECKER = Checker(theorem=THEOREM, simulation="E[Z^2 sigma(Z)] by Monte Carlo in 64 batches",
                      readers={"moment": read_moment})
'''
DERIVATION = '''
    # mean-of-square

    Z^2 = He_2(Z) + He_0(Z), so E[Z^2 sigma(Z)] = E[He_2 sigma] + E[sigma] = 2! c_2 + c_0.
'''


def test_a_theorem_added_in_three_files_meets_the_contract(tmp_path):
    """A theorem of one's own, from nothing: its theorem module, its checker module and its derivation; the snapshot
    is written by the contract command itself, and the whole contract then holds (quick run and mutant included)."""
    package = tmp_path / "scratchpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "theorem.py").write_text(textwrap.dedent(THEOREM))
    (package / "checker.py").write_text(textwrap.dedent(CHECKER))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "derivation.md").write_text(textwrap.dedent(DERIVATION))
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    environment = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"}
    result = thmcheck("--plugin", "scratchpkg.checker", "contract", "mean-of-square", "--snapshots",
                      str(snapshots), "--update-snapshots", env=environment, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (snapshots / "constants-mean-of-square.json").is_file()
    again = thmcheck("--plugin", "scratchpkg.checker", "contract", "mean-of-square", "--snapshots", str(snapshots),
                     "--no-runs", env=environment, cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr


def test_the_pytest_helpers_run_each_clause(tmp_path):
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        from checkers import registry
        [checker] = registry.load_plugin(str(EXAMPLE))
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    cases = contract_cases(checker, runs=False)
    assert [clause for _, clause in cases] == ["declared", "builds", "reasons", "near-mutant", "claims-move",
                                                "bad-input", "constants"]
    for case_checker, clause in cases:
        assert_clause(case_checker, clause)
    assert_contract(checker, runs=False)


def test_the_contract_of_every_theorem_is_estimated_and_refused_beyond_its_cap_before_any_run():
    """Every built-in theorem has an estimate now (`docs/costs.json`): `contract --all` weighs each one's runs and
    refuses the whole command, in one line, before it runs or prints any of them."""
    result = thmcheck("contract", "--all", "--max-minutes", "0.01")
    assert result.returncode == 2 and not result.stdout and result.stderr.count("\n") == 1, result.stderr
    assert "may take longer than the cap of 1 s" in result.stderr and "spike-count (about" in result.stderr
    assert "--no-runs" in result.stderr


@pytest.mark.parametrize("stop, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
                         ids=("SIGINT", "SIGTERM"))
def test_a_stopped_contract_of_every_theorem_says_how_many_finished_in_one_line(stop, code, word):
    """`contract --all` prints each theorem's result as it finishes; stopped after the first, it says how many of
    all finished (printed above) in one line after its announcement of the work ahead, and exits as a stop does
    (the cap is lifted: at most, the runs of every theorem take longer than the default cap)."""
    process = subprocess.Popen([sys.executable, "-m", "checkers.cli", "contract", "--all", "--max-minutes", "1e5"],
                               cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = process.stdout.readline()  # the first theorem's result, printed as it finished
    process.send_signal(stop)
    rest, error = process.communicate(timeout=120)
    finished = [line for line in (first + rest).splitlines() if not line.startswith(" ")]
    assert process.returncode == code and ": holds (" in first, (first, error)
    announcement, said = error.strip().splitlines()
    assert announcement.startswith("thmcheck: the contract's runs may take up to ")
    assert said == f"thmcheck: {word}; {len(finished)} of {len(registry.builtin_checkers())} theorems finished " \
                   "(printed above)"
