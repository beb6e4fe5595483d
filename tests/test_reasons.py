"""A resolution's reason at the point asked (checkers/reasons.py): its distances are the defaults', so away from them
`show` and a run's evidence give the nearest errors computed there, and `show` what the calibration measured there."""

import json
import math

from checkers import calibration_records, registry
from checkers.cli import main
from checkers.engine import run_check
from checkers.reasons import at_defaults, describe_here, nearest, nearest_by_prediction

CUI = ["--param", "alpha0=0.5", "--param", "eta=1", "--param", "penalty=0.01"]  # Cui et al.'s own setting


def _show(capsys, *arguments):
    assert main(["show", *arguments]) == 0
    return capsys.readouterr().out


def test_at_the_defaults_the_reasons_stand_as_written(capsys):
    theorem = registry.checker("giant-step-risk").theorem
    assert at_defaults(theorem, theorem.instance({"alpha0": "2.0"}))  # the default, spelt otherwise
    assert nearest_by_prediction(theorem, theorem.claims({}, {})) == {}
    out = _show(capsys, "giant-step-risk")
    assert "away from the defaults" not in out and "measured at this point" not in out


def test_at_cuis_setting_each_reason_is_followed_by_the_distances_of_its_mutant_lines(capsys):
    """The done-when of the issue: the reason of srf-train-error says its nearest errors lie 6 and 6.8 resolutions
    away, which holds at the defaults; at Cui's setting lambda_C in Ba's units lies 0.52 away, as its mutant line
    says, and the line after the reason says so too."""
    data = json.loads(_show(capsys, "giant-step-risk", *CUI, "--json"))
    moves = {m["name"]: m["moves"] for m in data["mutants"]}
    for prediction in data["predictions"]:
        here = prediction["nearest_here"]
        assert here is not None and list(here.values()) == sorted(here.values())
        for mutant, distance in here.items():
            assert math.isclose(distance, moves[mutant][prediction["name"]], rel_tol=1e-12)
        movers = sorted(d for m in moves.values() if m and (d := m.get(prediction["name"])) is not None)
        assert list(here.values()) == movers[:3]
    train = next(p for p in data["predictions"] if p["name"] == "srf-train-error")
    assert "6 and 6.8 resolutions" in train["resolution_reason"]["reason"]
    assert round(train["nearest_here"]["penalty-in-ba-units"], 2) == 0.52
    out = _show(capsys, "giant-step-risk", *CUI)
    assert "here the nearest errors lie penalty-in-ba-units 0.52, noise-left-out-of-readout 4.63" in out
    # no calibration was recorded there: which fidelity resolves it is not claimed
    assert "measured at this point: not calibrated here" in out


def test_show_names_what_the_calibration_measured_at_the_point_however_it_is_spelt(capsys):
    checker = registry.checker("gaussian-equivalence")
    rows = calibration_records.measured_at(checker.theorem, checker.theorem.instance({"learning_rate": "2.0"}))
    assert rows and rows[0]["fidelity"] == "default" and rows[0]["runs"] == rows[0]["passed"] + rows[0][
        "inconclusive"] + rows[0]["failed"]
    out = _show(capsys, "gaussian-equivalence", "--param", "learning_rate=2")
    assert f"measured at this point: default fidelity, {rows[0]['runs']} seeds: {rows[0]['passed']} passed" in out


def test_a_runs_evidence_away_from_the_defaults_gives_the_nearest_errors_there():
    checker = registry.checker("srf-constants")
    away = run_check(checker, {"alpha0": "0.5"}, fidelity="quick")
    claims = checker.theorem.claims({"alpha0": "0.5"}, {})
    expected = nearest_by_prediction(checker.theorem, claims)
    assert {p.name: p.nearest_here for p in away.predictions} == expected and any(expected.values())
    assert "away from the defaults, where that reason's distances were computed" in away.explain()
    at_default = run_check(checker, fidelity="quick")
    assert all(p.nearest_here is None for p in at_default.predictions)
    assert "away from the defaults" not in at_default.explain()
    # a mutant's own run has no mutants of its own to be near
    assert all(p.nearest_here is None for p in run_check(checker, {"alpha0": "0.5"}, fidelity="quick",
                                                         mutant="ratio-misplaced").predictions)


def test_the_nearest_are_sorted_and_cut_and_an_unmoved_prediction_says_so():
    moves = {"a": {"x": 4.0}, "b": {"x": 0.5, "y": 1.0}, "c": None, "d": {"x": math.inf}, "e": {"x": 2.0}}
    assert nearest(moves, "x") == {"b": 0.5, "e": 2.0, "a": 4.0}
    assert nearest(moves, "z") == {}
    assert describe_here({}).endswith("here no mutant moves its target")
    assert describe_here({"d": math.inf}).endswith("here d beyond any resolution")
    assert describe_here({"b": 0.5, "d": math.inf}).endswith("lie b 0.5 resolutions away; d beyond any resolution")


def test_a_mutants_own_view_at_its_parameters_names_no_nearest_errors(capsys):
    """A mutated statement has no mutants of its own, so `show --mutant` at the mutant's own parameters (away from
    the defaults: balancedness-identity's through-tanh sets `between`) says nothing of near errors."""
    checker = next(c for c in registry.builtin_checkers() if any(m.parameters for m in c.theorem.mutants))
    mutant = next(m for m in checker.theorem.mutants if m.parameters)
    out = _show(capsys, checker.id, "--mutant", mutant.name)
    assert "away from the defaults" not in out and "measured at this point" not in out
