"""How a theorem is tied to its check: declarations validated when built, errors reported as errors.

Each test is one way a mistake in a declaration could turn into a wrong verdict without a sound (a renamed
prediction read by another prediction's observer, a misspelled constant reported as "inconclusive").
"""

import json
from dataclasses import replace

import mpmath
import pytest

from checkers import registry
from checkers.checker import Checker
from checkers.cli import main
from checkers.engine import run_check
from checkers.outcome import ERROR
from checkers.sweep import plan, sweep
from theorems.errors import CheckError, DeclarationError, UnknownName
from theorems.statement import Mutant, ResolutionReason, Target


def _renamed(theorem, old: str, new: str):
    predictions = tuple(replace(p, name=new) if p.name == old else p for p in theorem.predictions)
    return replace(theorem, predictions=predictions, mutants=())


@pytest.mark.parametrize("theorem_id, old, new", [("nc1-bound", "theorem-a", "theorem-A"),
                                                  ("spike-outlier", "spike-overlap", "spike-overlap-2")])
def test_a_renamed_prediction_is_refused_when_the_checker_is_built(theorem_id, old, new):
    checker = registry.checker(theorem_id)
    with pytest.raises(DeclarationError) as raised:
        Checker(theorem=_renamed(checker.theorem, old, new), simulation=checker.simulation, readers=checker.readers)
    message = str(raised.value)
    assert theorem_id in message and new in message and old in message


def test_a_reader_for_no_prediction_is_refused():
    checker = registry.checker("dual-kernel")
    with pytest.raises(DeclarationError, match="tail-bnd name no prediction"):
        Checker(theorem=checker.theorem, simulation="", readers={**checker.readers, "tail-bnd": lambda *a: None})


def test_a_mutant_naming_a_missing_prediction_or_assumption_is_refused():
    theorem = registry.checker("spike-outlier").theorem
    with pytest.raises(DeclarationError, match="mutant wrong names prediction"):
        replace(theorem, mutants=(Mutant(name="wrong", description="",
                                         predictions={"spike-overlapp": lambda i: Target.point(0)}),))
    with pytest.raises(DeclarationError, match="assumption"):
        replace(theorem, mutants=(Mutant(name="wrong", description="", dropped_assumptions=("no-such-assumption",)),))


def test_a_mutant_naming_a_missing_constant_is_refused_when_the_theorem_is_built():
    theorem = registry.checker("spike-strength").theorem
    with pytest.raises(DeclarationError, match="spike_strenght"):
        replace(theorem, mutants=(Mutant(name="typo", description="", constant_factors={"spike_strenght": 1.1}),))


def test_a_constant_reading_an_undeclared_dependency_is_an_error():
    from theorems.statement import Constant
    theorem = registry.checker("spike-strength").theorem
    sneaky = Constant(name="sneaky", derive=lambda parameters, dependencies, digits: dependencies["mu1"])
    broken = replace(theorem, constants=theorem.constants + (sneaky,))
    with pytest.raises(DeclarationError, match="sneaky reads 'mu1' without declaring it"):
        broken.instance().constants


def _misspelled_reader_checker():
    checker = registry.checker("spike-strength")

    def read(instance, budget, seed):
        instance.constant("spike_strenght")

    return Checker(theorem=checker.theorem, simulation=checker.simulation, readers={"gradient-norm": read})


def test_a_misspelled_constant_in_a_reader_is_an_error_naming_theorem_and_prediction():
    with pytest.raises(CheckError) as raised:
        run_check(_misspelled_reader_checker(), fidelity="quick")
    assert raised.value.theorem == "spike-strength" and raised.value.prediction == "gradient-norm"
    assert "spike_strenght" in str(raised.value)


def test_an_error_in_a_reader_is_exit_4_with_one_line(monkeypatch, capsys):
    broken = _misspelled_reader_checker()
    monkeypatch.setitem(registry._REGISTRY.checkers, "spike-strength", broken)
    code = main(["check", "spike-strength", "--fidelity", "quick"])
    error = capsys.readouterr().err.strip()
    assert code == 4
    assert len(error.splitlines()) == 1
    assert "spike-strength, prediction gradient-norm" in error and "spike_strenght" in error
    assert main(["--debug", "check", "spike-strength", "--fidelity", "quick"]) == 4
    assert "Traceback" in capsys.readouterr().err


def test_a_sweep_stores_an_error_as_an_error_and_retries_it(monkeypatch, tmp_path):
    broken = _misspelled_reader_checker()
    monkeypatch.setitem(registry._REGISTRY.checkers, "spike-strength", broken)
    store = tmp_path / "r.sqlite"
    tasks = plan("spike-strength", {}, 1)
    summary = sweep(tasks, store, executor="serial", progress=False)
    assert summary.outcomes == {ERROR: 1}
    from checkers.store import ResultStore
    with ResultStore(store) as opened:
        [record] = opened.records()
        assert record.outcome == ERROR and "spike_strenght" in record.verdict.error
        assert opened.keys(finished_only=True) == set()
    summary = sweep(tasks, store, executor="serial", progress=False)
    assert summary.ran == 1  # an error is retried, not skipped as done


def test_sweep_cli_exits_4_when_a_task_errs(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(registry._REGISTRY.checkers, "spike-strength", _misspelled_reader_checker())
    code = main(["sweep", "spike-strength", "--executor", "serial", "--store", str(tmp_path / "r.sqlite"),
                 "--json"])
    captured = capsys.readouterr()
    assert code == 4 and json.loads(captured.out)["outcomes"] == {"error": 1}


def test_the_report_of_a_sweep_shows_an_error_with_its_message(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    from checkers.report import build_report
    monkeypatch.setitem(registry._REGISTRY.checkers, "spike-strength", _misspelled_reader_checker())
    sweep(plan("spike-strength", {}, 1), tmp_path / "r.sqlite", executor="serial", progress=False)
    page = build_report(tmp_path / "report", store=tmp_path / "r.sqlite").read_text()
    assert "error in the check" in page and "spike_strenght" in page


@pytest.mark.parametrize("basis, reason", [("guessed", "the check happened to pass at this width"), ("paper", "  ")])
def test_a_resolution_reason_names_a_known_basis_and_says_something(basis, reason):
    with pytest.raises(DeclarationError):
        ResolutionReason(basis, reason)


def test_show_and_the_evidence_print_each_resolution_with_its_reason(capsys):
    assert main(["show", "spike-alignment"]) == 0
    shown = capsys.readouterr().out
    reason = registry.checker("spike-alignment").theorem.predictions[0].resolution_reason
    assert f"(basis: {reason.basis.replace('-', ' ')}): {reason.reason}" in shown
    assert main(["show", "spike-alignment", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["predictions"][0]["resolution_reason"] == reason.to_dict()
    assert data["predictions"][0]["resolution"] > 0
    verdict = run_check(registry.checker("spike-alignment"), seed=0, fidelity="quick")
    assert verdict.predictions[0].resolution_reason == reason.to_dict()
    assert " ".join(reason.reason.split()) in " ".join(verdict.explain().split())  # folded at the page's width


def test_a_mutant_distance_is_its_move_of_a_target_over_the_resolution():
    """mu1 5% high moves spike-strength's limit mu1 ||zeta|| by 5% of it, against a resolution of 4% of it: 5/4; the
    rate n^-1 for n^-1/2 moves spike-decomposition's fitted exponent by 1/2 on the slowest decay its proposition
    allows, against a resolution of 0.17: 2.94."""
    strength = registry.checker("spike-strength").theorem
    assert strength.mutant_distance("mu1-five-percent") == {"gradient-norm": pytest.approx(1.25, rel=1e-12)}
    assert "mu1-five-percent" in strength.near_mutants() and "mu1-as-c2" not in strength.near_mutants()
    # at its own parameter (noise 0.3) the noise left out moves spike-alignment's limit by 8.0%, two resolutions
    assert registry.checker("spike-alignment").theorem.mutant_distance("noise-left-out")["teacher-overlap"] == \
        pytest.approx(2.0, abs=0.02)
    assert registry.checker("spike-decomposition").theorem.mutant_distance("rate-n^-1") == {
        "residual-rate": pytest.approx(0.5 / 0.17, rel=1e-12)}


def test_a_prediction_is_found_by_name_or_refused_with_the_names_there_are():
    theorem = registry.checker("alignment-time-flat").theorem
    assert theorem.prediction("correction-order").name == "correction-order"
    with pytest.raises(UnknownName, match="has no prediction 'order'; its predictions are flat, correction-order"):
        theorem.prediction("order")


def test_a_band_narrower_than_the_values_last_digit_keeps_its_width():
    # population-loss at dimension 64: a tail bound of 9.6e-17 around 30.68 (30 digits) was formed at the default
    # context's 53 bits, so both ends rounded onto the value and a closed form 4e-18 away "failed" by 1.6e-16.
    with mpmath.workdps(40):
        value = mpmath.mpf("30.682676328447385413015137230874")
    half_width = mpmath.mpf("9.6e-17")
    target = Target.around(value, half_width)
    with mpmath.workdps(40):
        assert target.value - target.lower == target.upper - target.value == half_width
    assert Target.around(value, mpmath.inf).upper == mpmath.inf


def test_a_near_mutant_on_the_simulation_is_named_and_must_act_on_it():
    """A theorem whose near mutant moves no target names it (measured by its paired calibrations): a nearness of
    kind 'simulation' without its mutant, or naming a mutant that only moves a target, is refused."""
    from theorems.statement import Nearness

    with pytest.raises(DeclarationError, match="names its mutant"):
        Nearness("simulation", "acts on what is simulated")
    with pytest.raises(DeclarationError, match="names its mutant"):
        Nearness("tightness", "loose", mutant="halved")
    theorem = registry.checker("hermite-equivalence").theorem
    with pytest.raises(DeclarationError, match="not one of its mutants that act on the simulation"):
        replace(theorem, nearness=Nearness("simulation", "the claim's own", mutant="no-such-mutant"))
    nc1 = registry.checker("nc1-bound").theorem
    with pytest.raises(DeclarationError, match="'halved', which is not one of its mutants that act"):
        replace(nc1, nearness=Nearness("simulation", "a target's", mutant="halved"))
