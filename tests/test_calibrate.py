"""checkers.calibrate and `thmcheck calibrate`: rates over seeds from the sweep machinery, exact intervals."""

import json

import pytest

from checkers.calibrate import Calibration, VersionRates, calibrate, format_calibration, markdown_calibration
from checkers.cli import main
from checkers.store import ResultStore


def test_a_calibration_counts_the_true_statement_and_every_mutant_and_resumes(tmp_path):
    store = tmp_path / "c.sqlite"
    (result,) = calibrate(["balancedness-identity"], store, seeds=3, executor="serial", progress=False)
    assert result.true_statement.runs == 3 and result.true_statement.passed == 3
    assert [m.version for m in result.mutants] == ["transposed", "through-tanh"]
    assert all(m.failed == m.runs == 3 for m in result.mutants) and result.contract_holds
    with ResultStore(store) as opened:
        stored = opened.count()
    again = calibrate(["balancedness-identity"], store, seeds=3, executor="serial", progress=False)
    with ResultStore(store) as opened:
        assert opened.count() == stored  # nothing ran twice
    assert again[0].to_dict() == result.to_dict()
    table = format_calibration([result])
    assert len(table.splitlines()) == 2 + 3 and "consistent" in table and "killed in every run" in table


def _calibration(true_fails, runs=10, mutant_fails=10, fidelity="default"):
    rates = VersionRates(version="as stated", runs=runs, passed=runs - true_fails, failed=true_fails,
                         inconclusive=0, outside=0, errors=0)
    mutant = VersionRates(version="m", runs=runs, passed=runs - mutant_fails, failed=mutant_fails, inconclusive=0,
                          outside=0, errors=0)
    return Calibration(theorem="t", fidelity=fidelity, seeds=runs, stated_false_fail_rate=1e-6,
                       true_statement=rates, mutants=(mutant,))


def test_the_exact_interval_decides_miscalibration_and_surviving_mutants_break_the_default_contract():
    assert _calibration(0).true_statement.fail_interval == (0.0, pytest.approx(0.3084971, rel=1e-6))
    assert not _calibration(0).miscalibrated and _calibration(0).contract_holds
    assert _calibration(1).miscalibrated and not _calibration(1).contract_holds  # 1/10 is far above 1e-6
    assert not _calibration(0, mutant_fails=9).contract_holds
    assert _calibration(0, mutant_fails=9, fidelity="quick").contract_holds  # reported, not counted, at quick


def test_a_statement_known_to_fail_is_miscalibrated_only_when_it_passes():
    def known(true_fails):
        calibration = _calibration(true_fails)
        return Calibration(**{**calibration.__dict__, "expected_failure": "refuted here"})
    assert not known(10).miscalibrated and known(10).contract_holds
    assert known(9).miscalibrated and not known(9).contract_holds  # one pass of a refuted form
    assert "known to fail: never passed" in format_calibration([known(10)])


def test_the_command(capsys, tmp_path):
    code = main(["calibrate", "dual-kernel", "--seeds", "2", "--executor", "serial", "--json",
                 "--store", str(tmp_path / "s.sqlite")])
    (result,) = json.loads(capsys.readouterr().out)
    assert code == 0 and result["theorem"] == "dual-kernel" and result["true_statement"]["runs"] == 2
    assert {m["version"] for m in result["mutants"]} == {"factorial-dropped", "coefficient-not-squared", "c1-nudged"}
    assert main(["calibrate"]) == 2 and main(["calibrate", "nosuch"]) == 2


def test_the_markdown_table_has_one_row_per_theorem_with_rates_and_survivors():
    table = markdown_calibration([_calibration(0), _calibration(1, mutant_fails=9)]).splitlines()
    assert len(table) == 2 + 2 and table[0].startswith("| theorem |")
    assert "| 10 / 0 / 0 | 0.00 [0.00, 0.31] | 1 of 1 | unknown |" in table[2]
    assert "MISCALIBRATED" in table[3] and "0 of 1 (not every run: m)" in table[3]


def test_the_command_prints_the_markdown_table(capsys, tmp_path):
    code = main(["calibrate", "balancedness-identity", "--seeds", "2", "--executor", "serial", "--markdown",
                 "--store", str(tmp_path / "s.sqlite")])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out[-1].startswith("| balancedness-identity | quick | 2 | 2 / 0 / 0 |")
    assert out[-1].endswith("| 2 of 2 | exact counts and identities |")


def test_the_markdown_table_names_near_mutants_with_how_far_they_move_a_target():
    near = markdown_calibration([Calibration(**{**_calibration(0).__dict__, "theorem": "spike-strength"})])
    assert near.splitlines()[-1].endswith("| mu1-five-percent (1.25) |")
    by_tightness = markdown_calibration([Calibration(**{**_calibration(0).__dict__, "theorem": "nc3-bound"})])
    assert "by tightness: five-percent-high" in by_tightness.splitlines()[-1]
