"""checkers.calibrate and `thmcheck calibrate`: rates over seeds from the sweep machinery, exact intervals."""

import dataclasses
import json

import pytest
import scipy.stats

from checkers import registry
from checkers.calibrate import (
    Calibration,
    MeasuredMove,
    VersionRates,
    calibrate,
    calibration_tasks,
    format_calibration,
    markdown_calibration,
    pooled_offsets,
    power_withheld,
    predicted_kill_rates,
    standardized,
    timed_estimates,
)
from checkers.cli import main
from checkers.store import ResultStore
from checkers.verdict import Verdict


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
    assert result["pooled_offsets"] == []  # its Monte Carlo prediction's target is an interval (series +- tail)
    assert {m["version"] for m in result["mutants"]} == {"factorial-dropped", "coefficient-not-squared", "c1-nudged"}
    assert main(["calibrate"]) == 2 and main(["calibrate", "nosuch"]) == 2


def test_the_markdown_table_has_one_row_per_theorem_with_rates_and_survivors():
    table = markdown_calibration([_calibration(0), _calibration(1, mutant_fails=9)]).splitlines()
    assert len(table) == 2 + 2 and table[0].startswith("| theorem |")
    assert "| 10 / 0 / 0 | 0.00 [0.00, 0.31] | 1 of 1 | unknown | no Monte Carlo estimate |" in table[2]
    assert "MISCALIBRATED" in table[3] and "0 of 1 (not every run: m)" in table[3]


def test_the_command_prints_the_markdown_table(capsys, tmp_path):
    code = main(["calibrate", "balancedness-identity", "--seeds", "2", "--executor", "serial", "--markdown",
                 "--store", str(tmp_path / "s.sqlite")])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out[-1].startswith("| balancedness-identity | quick | 2 | 2 / 0 / 0 |")
    assert out[-1].endswith("| 2 of 2 | transposed (2.04) | no Monte Carlo estimate |")
    code = main(["calibrate", "balancedness-identity", "--seeds", "2", "--executor", "serial", "--json", "--paired",
                 "--store", str(tmp_path / "s.sqlite")])
    (paired,) = json.loads(capsys.readouterr().out)
    assert code == 0 and paired["paired"] and paired["true_statement"]["runs"] == 2  # the stated runs are reused


def test_the_markdown_table_names_near_mutants_with_how_far_they_move_a_target():
    near = markdown_calibration([Calibration(**{**_calibration(0).__dict__, "theorem": "spike-strength"})])
    assert near.splitlines()[-1].endswith("| mu1-five-percent (1.25) | no Monte Carlo estimate |")
    from_the_table = markdown_calibration([Calibration(**{**_calibration(0).__dict__, "theorem": "nc3-bound"})])
    assert "| five-percent-high (2) |" in from_the_table.splitlines()[-1]
    sharp = markdown_calibration([Calibration(**{**_calibration(0).__dict__, "theorem": "nc2-bracket"})])
    assert "| loosened (2.12) |" in sharp.splitlines()[-1]


def test_a_mutant_that_acts_on_the_simulation_is_near_by_its_measured_move():
    """hermite-equivalence's degree-one-short moves no target: its distance is its paired reading against the
    statement's, and only a calibration that measured it within three resolutions calls it near."""
    moves = (MeasuredMove("degree-one-short", "test-gap", 6, 2.14, 0.21),
             MeasuredMove("rest-as-whole-moment", "test-gap", 6, 13.3, 1.2))
    measured = Calibration(**{**_calibration(0).__dict__, "theorem": "hermite-equivalence", "moves": moves})
    assert "| degree-one-short (2.1 +- 0.2, measured) |" in markdown_calibration([measured])
    unmeasured = Calibration(**{**_calibration(0).__dict__, "theorem": "hermite-equivalence"})
    assert markdown_calibration([unmeasured]).splitlines()[-1].split("|")[7].strip() == \
        "degree-one-short: acts on the simulation, measured at its own parameters"  # where it shows, not a distance
    # as the claims table's smallest move: the nearest prediction that sees it, not one it leaves within its noise
    several = (MeasuredMove("m", "a", 20, 4.7, 0.6), MeasuredMove("m", "b", 20, 2.8, 0.06),
               MeasuredMove("m", "c", 20, 0.1, 0.2))
    assert Calibration(**{**measured.__dict__, "moves": several}).nearest_measured()["m"].prediction == "b"


def _stored(run: dict) -> Verdict:
    """A verdict as a store gives it back, from the fields a test names (the others at their defaults)."""
    predictions = [{"kind": "limit", "statement": "", "outcome": "pass", **p} for p in run.get("predictions", [])]
    return Verdict.from_dict({"theorem": "t", "outcome": "pass", **run, "predictions": predictions})


def _run(*predictions):
    return _stored({"predictions": [dict(zip(("name", "predicted_interval", "observed", "standard_error",
                                              "resolution"), p)) for p in predictions]})


def test_offsets_are_pooled_by_inverse_variance_over_the_runs():
    """Offsets 0.1 and 0.3 with standard errors 0.1: mean 0.2, standard error 0.1/sqrt(2), chi-square
    (0.1^2 + 0.1^2)/0.1^2 = 2; a bound, a deterministic value and an unresolved reading are left out."""
    runs = [_run(("x", [1.0, 1.0], 1.1, 0.1, 0.5), ("bound", [0.0, "inf"], 3.0, 0.1, 0.5),
                 ("exact", [2.0, 2.0], 2.0, None, 1e-9), ("unresolved", [1.0, 1.0], None, None, 0.5)),
            _run(("x", [1.0, 1.0], 1.3, 0.1, 0.5))]
    (pooled,) = pooled_offsets(runs)
    assert pooled.prediction == "x" and pooled.runs == 2
    assert pooled.offset == pytest.approx(0.2) and pooled.standard_error == pytest.approx(0.1 / 2**0.5)
    assert pooled.chi_square == pytest.approx(2.0) and pooled.in_resolutions == pytest.approx(0.4)
    assert pooled.z == pytest.approx(0.2 / (0.1 / 2**0.5))
    weighted = pooled_offsets([_run(("x", [0.0, 0.0], 1.0, 1.0, 1.0)), _run(("x", [0.0, 0.0], 0.0, 0.5, 1.0))])
    assert weighted[0].offset == pytest.approx(0.2)  # weights 1 and 4


def test_a_run_with_a_systematic_bound_does_not_outweigh_the_others_through_its_standard_error():
    """Three runs at offset 0 (se 0.01) and one read at the edge of its exponent bounds at offset 0.1 with se 0.001
    and bound 0.1 (cohesion-separability's seed 28 in docs/calibration.md's reading): by standard errors alone that run
    would carry 100/103 of the weight; with its bound (weight 1/(1e-6 + 0.01), against 1e4 for each other run) it
    carries a third of a percent. The median bound is reported."""
    bounded = {"name": "x", "predicted_interval": [0.0, 0.0], "observed": 0.1, "standard_error": 0.001,
               "resolution": 0.5, "systematic": 0.1}
    runs = [_run(("x", [0.0, 0.0], 0.0, 0.01, 0.5))] * 3 + [_stored({"predictions": [bounded]})]
    (pooled,) = pooled_offsets(runs)
    assert pooled.offset == pytest.approx(0.1 * 99.99 / (3e4 + 99.99), rel=1e-6)
    assert pooled.systematic == 0.0 and not pooled.within_systematic  # median of (0, 0, 0, 0.1)
    (alone,) = pooled_offsets(runs[3:])
    assert alone.systematic == 0.1 and alone.within_systematic
    assert "systematic bound +- 0.1 per run (median), within it" in alone.describe()
    calibration = Calibration(**{**_calibration(0).__dict__, "pooled": (alone,)})
    assert markdown_calibration([calibration]).endswith("| x: +0.20 res. (z +100.0; systematic +- 0.20 res.) |")


def test_a_calibration_pools_the_true_statements_monte_carlo_estimates(tmp_path):
    (result,) = calibrate(["population-loss"], tmp_path / "p.sqlite", seeds=2, executor="serial", progress=False)
    pooled = {p.prediction: p for p in result.pooled}
    assert set(pooled) == {"monte-carlo", "gradient", "neuron-gradient"}  # hermite-series is exact
    assert all(p.runs == 2 and p.standard_error > 0 for p in pooled.values())
    assert result.to_dict()["pooled_offsets"][0]["prediction"] == "monte-carlo"


def test_a_paired_calibration_reads_each_seeds_draws_for_every_version_with_one_worker_or_two(tmp_path):
    """Mutants that change only a target see the statement's very numbers on each seed (common random numbers) at
    each sequential stage they both reach (a mutant rejected at the first stage stops there, while the statement may
    need the next); one that changes what is simulated (the activation) does not; a process pool stores the serial
    numbers."""
    def observed(path):
        with ResultStore(path) as store:
            return {(json.loads(r.task_key)["mutant"], r.seed_index): [(p.observed, p.stages)
                                                                       for p in r.verdict.predictions]
                    for r in store.records()}
    (serial,) = calibrate(["population-loss"], tmp_path / "s.sqlite", seeds=2, executor="serial", progress=False,
                          paired=True)
    calibrate(["population-loss"], tmp_path / "p.sqlite", seeds=2, executor="processes", workers=2,
              progress=False, paired=True)
    numbers = observed(tmp_path / "s.sqlite")
    assert numbers == observed(tmp_path / "p.sqlite") and serial.paired and serial.to_dict()["paired"]
    same_stage = [(mutant, truth) for seed in (0, 1)  # the three Monte Carlo readings
                  for mutant, truth in zip(numbers[("cho-saul-factor", seed)][:3], numbers[(None, seed)][:3])
                  if mutant[1] == truth[1]]
    assert len(same_stage) >= 3 and all(mutant == truth for mutant, truth in same_stage)
    for seed in (0, 1):
        assert numbers[("debiased-keeps-linear", seed)][0][0] != numbers[(None, seed)][0][0]
    assert numbers[(None, 0)] != numbers[(None, 1)]
    assert all(m.failed == m.runs == 2 for m in serial.mutants)
    assert "| population-loss | quick | 2 paired |" in markdown_calibration([serial])
    # every version's runs are timed, with the probe of the machine they ran on, and read back as written
    versions = {"as stated", *(m.name for m in registry.checker("population-loss").theorem.mutants)}
    assert set(serial.run_seconds) == versions and all(seconds > 0 for seconds in serial.run_seconds.values())
    assert serial.probe_seconds > 0
    again = Calibration.from_dict(json.loads(json.dumps(serial.to_dict())))
    assert again.run_seconds == pytest.approx(serial.run_seconds, abs=1e-3) and again.probe_seconds == \
        pytest.approx(serial.probe_seconds, abs=1e-5)


def test_a_rerun_of_a_timed_row_is_estimated_from_its_versions_runs():
    """A paired mutant that reads the statement's draws from the memo costs a fraction of a check, which the check's
    own estimate cannot know: a row's timed runs (seconds a run per version, at the probe where they ran) estimate
    its rerun, scaled to this machine's probe. A version the row did not time keeps the check's estimate, and a row
    run unpaired does not estimate a paired rerun."""
    mutants = [m.name for m in registry.checker("population-loss").theorem.mutants]
    tasks = calibration_tasks("population-loss", 2, paired=True)
    measured = Calibration(**{**_calibration(0).__dict__, "theorem": "population-loss", "paired": True,
                              "run_seconds": {"as stated": 10.0, mutants[0]: 0.5}, "probe_seconds": 0.1})
    timed = {(task.mutant, task.seed_index): task.estimated_seconds for task in timed_estimates(tasks, measured, 0.2)}
    assert timed[None, 0] == timed[None, 1] == pytest.approx(20.0) and timed[mutants[0], 1] == pytest.approx(1.0)
    assert [timed[mutants[1], seed] for seed in (0, 1)] == [task.estimated_seconds for task in tasks
                                                            if task.mutant == mutants[1]]
    unpaired = dataclasses.replace(measured, paired=False)
    assert [task.estimated_seconds for task in calibration_tasks("population-loss", 2, paired=True,
                                                                 measured=unpaired)] == \
        [task.estimated_seconds for task in tasks]


def test_the_most_significant_pooled_offset_is_reported_in_the_table():
    runs = [_run(("a", [0.0, 0.0], 0.01, 0.01, 0.1), ("b", [0.0, 0.0], -0.05, 0.01, 0.1))] * 4
    calibration = Calibration(**{**_calibration(0).__dict__, "pooled": pooled_offsets(runs)})
    assert calibration.most_significant_offset.prediction == "b"
    assert markdown_calibration([calibration]).endswith("| b: -0.50 res. (z -10.0) |")
    assert "b -0.05 +- 0.005 (z -10.0; -0.50 resolutions; chi-square 0.0 on 3)" in format_calibration([calibration])


def test_a_calibration_at_a_parameter_point_runs_every_version_there_and_says_so(capsys, tmp_path):
    code = main(["calibrate", "balancedness-recurrence", "--param", "width=12", "--param", "learning_rate=0.1",
                 "--seeds", "1", "--executor", "serial", "--json", "--store", str(tmp_path / "s.sqlite")])
    (result,) = json.loads(capsys.readouterr().out)
    assert code == 0 and result["parameters"] == {"width": "12", "learning_rate": "0.1"}
    with ResultStore(tmp_path / "s.sqlite") as opened:
        stored = [record.verdict.parameters for record in opened.records(["balancedness-recurrence"])]
    assert len(stored) == 1 + len(result["mutants"])
    assert all(p["width"] == "12" and p["learning_rate"] == "0.1" for p in stored)
    assert main(["calibrate", "balancedness-recurrence", "--param", "nope=1", "--seeds", "1"]) == 2


def test_the_near_mutants_of_a_parameter_point_are_computed_there():
    """Dropping the label term E[y^2]/psi1 moves spike-strength's target by 4.9 resolutions at psi1 = 2 and by 1.6
    at psi1 = 8, where it becomes a near mutant."""
    at = Calibration(**{**_calibration(0).__dict__, "theorem": "spike-strength", "parameters": {"psi1": "8"}})
    row = markdown_calibration([at]).splitlines()[-1]
    assert row.startswith("| spike-strength (psi1=8) |") and "no-label-term (1.56)" in row


def test_a_mutant_that_claims_the_truth_at_the_point_is_named_so():
    """spike-outlier's threshold-exponent-half moves both overlaps at the defaults (learning rate 4) but none at
    learning rate 6 with erf, far above both thresholds: a survivor there is expected, and the table says why."""
    base = _calibration(0, mutant_fails=0)
    survivor = VersionRates(**{**base.mutants[0].__dict__, "version": "threshold-exponent-half"})
    point = {"activation": "erf", "psi1": "2", "psi2": "1", "learning_rate": "6"}
    at = Calibration(**{**base.__dict__, "theorem": "spike-outlier", "mutants": (survivor,), "parameters": point})
    assert at.idle_mutants == {"threshold-exponent-half": "moves no target here"} and not at.contract_holds
    assert "(not every run: threshold-exponent-half [moves no target here])" in markdown_calibration([at])
    assert "survived 10 run(s); moves no target here" in format_calibration([at])
    assert Calibration(**{**at.__dict__, "parameters": {}}).idle_mutants == {}


def test_a_mutant_whose_own_parameter_the_point_overrides_is_named_so():
    """mixture-equivalence's degree-one-short claims degree 0 at beta = 0.45 (its own point); calibrated at beta =
    0.74 the point's beta wins, so it runs away from its own claim, and a survivor there says nothing: the table
    says which parameter moved it."""
    base = _calibration(0, mutant_fails=0)
    survivor = VersionRates(**{**base.mutants[0].__dict__, "version": "degree-one-short"})
    at = Calibration(**{**base.__dict__, "theorem": "mixture-equivalence", "mutants": (survivor,),
                        "parameters": {"beta": "0.74"}})
    assert at.idle_mutants == {"degree-one-short": "ran at beta = 0.74, not its own 0.45"}
    assert "degree-one-short [ran at beta = 0.74, not its own 0.45]" in markdown_calibration([at])
    assert Calibration(**{**at.__dict__, "parameters": {"alpha": "0"}}).idle_mutants == {}


def test_a_mutant_that_only_sets_a_parameter_the_point_sets_is_the_statement_there():
    """conservation-law's tanh-conserved claims the law for tanh; calibrated at another activation, the point's
    value wins as in a check of the mutant, so it runs the true statement and survives: the table says so. At the
    defaults, or at a point that leaves its parameter alone, it is a mutant."""
    theorem = registry.checker("conservation-law").theorem
    assert theorem.mutant_is_void("tanh-conserved", {"activation": "leaky_relu:0.1"})
    assert not theorem.mutant_is_void("tanh-conserved", {}) and not theorem.mutant_is_void("tanh-conserved",
                                                                                         {"configuration": "2"})
    assert not theorem.mutant_is_void("linear-in-step", {"activation": "leaky_relu:0.1"})
    assert not theorem.mutant_is_void("tanh-conserved", {"activation": "tanh"})  # the statement is outside there
    base = _calibration(0, mutant_fails=0)
    survivor = VersionRates(**{**base.mutants[0].__dict__, "version": "tanh-conserved"})
    at = Calibration(**{**base.__dict__, "theorem": "conservation-law", "mutants": (survivor,),
                        "parameters": {"activation": "leaky_relu:0.1", "configuration": "2"}})
    assert at.idle_mutants == {"tanh-conserved": "the statement itself here"}
    assert "(not every run: tanh-conserved [the statement itself here])" in markdown_calibration([at])


def _halved_standard_errors(monkeypatch):
    """The example plugin's check with a reader that reports half its standard error: a test double of a check
    whose standard errors are wrong (its fail count alone would not show it: a z of sd 2 rarely passes 5)."""
    import dataclasses
    from pathlib import Path

    from checkers.checker import Checker
    example = registry.load_plugin(str(Path(__file__).resolve().parent.parent / "examples" / "stein_plugin.py"))[0]
    theorem = dataclasses.replace(example.theorem, id="stein-halved-se")
    reader = example.readers["first-moment"]

    def halved(instance, budget, seed):
        estimate = reader(instance, budget, seed)
        return dataclasses.replace(estimate, standard_error=estimate.standard_error / 2)
    checker = Checker(theorem=theorem, simulation="the example's reader, its standard error halved",
                      readers={"first-moment": halved})
    monkeypatch.setitem(registry._REGISTRY.checkers, checker.id, checker)
    return checker


def test_standardized_discrepancies_find_a_halved_standard_error(monkeypatch, tmp_path):
    _halved_standard_errors(monkeypatch)
    (wrong,) = calibrate(["stein-halved-se"], tmp_path / "c.sqlite", seeds=50, executor="serial", progress=False)
    (spread,) = wrong.standardized
    assert spread.runs == 50 and spread.spread_interval[0] > 1.25 and spread.miscalibrated
    assert wrong.miscalibrated and not wrong.contract_holds
    (right,) = calibrate(["stein-lemma"], tmp_path / "d.sqlite", seeds=50, executor="serial", progress=False)
    (spread,) = right.standardized
    assert spread.spread_interval[0] <= 1 <= spread.spread_interval[1] and not right.miscalibrated
    assert spread.implied_false_fail_rate < 1e-6 and 0 <= spread.fit_p_value <= 1
    data = right.to_dict()["standardized"][0]
    assert {"mean", "mean_interval", "spread", "spread_interval", "fit_p_value", "implied_false_fail_rate"} <= set(data)


def test_the_command_exits_1_on_a_halved_standard_error(monkeypatch, capsys, tmp_path):
    _halved_standard_errors(monkeypatch)
    code = main(["calibrate", "stein-halved-se", "--seeds", "50", "--executor", "serial", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data[0]["standardized"][0]["miscalibrated"]


def test_a_kill_rate_outside_what_the_reported_power_predicts_is_named():
    """The power each run reports against a mutant predicts its kill rate (1 - prod(1 - power) over the predictions);
    a rate whose exact interval excludes the prediction says the power, or the claims table's move, is off."""
    runs = [_stored({"predictions": [{"name": "a", "power": {"m": 0.5, "n": 0.99}},
                                     {"name": "b", "power": {"m": 0.5}}]})] * 4
    predicted = predicted_kill_rates(runs)
    assert predicted == {"m": pytest.approx(0.75), "n": pytest.approx(0.99)}
    killed = VersionRates(version="m", runs=50, passed=48, failed=2, inconclusive=0, outside=0, errors=0)
    every = VersionRates(version="n", runs=50, passed=0, failed=50, inconclusive=0, outside=0, errors=0)
    calibration = Calibration(**{**_calibration(0).__dict__, "mutants": (killed, every), "predicted_kills": predicted})
    assert calibration.kill_rates_disagree == ["m"]
    assert "predicted 0.75 (OUTSIDE the observed interval)" in format_calibration([calibration])


def test_a_power_from_a_target_is_recomputed_at_the_readings_measured_offset():
    """A run's power against a mutant, computed from the mutant's target with the reading centred on the statement's,
    is recomputed with the reading's mean at the pooled offset: an offset toward the mutant's side brings its target
    nearer. Here the target lies 0.05 above a point prediction, read at standard error 0.01 on infinite degrees of
    freedom at the rate 1e-6 (critical value 4.8916); an offset +0.02 leaves 3 standard errors, -0.02 leaves 7."""
    reading = {"name": "a", "predicted_interval": [0.0, 0.0], "observed": 0.0, "standard_error": 0.01,
               "degrees_of_freedom": "inf", "systematic": 0.0, "samples": 100, "stage_false_fail_rate": 1e-6,
               "power": {"above": 0.5, "below": 0.5, "drawn": 0.3},
               "mutant_shifts": {"above": 0.05, "below": -0.05}}
    runs = [_stored({"predictions": [reading]})]
    critical = scipy.stats.norm.isf(0.5e-6)

    def power(centre):
        return scipy.stats.norm.sf(critical - centre) + scipy.stats.norm.sf(critical + centre)
    nearer = predicted_kill_rates(runs, {"a": 0.02})  # a power read off the mutant's own observable keeps its value
    assert nearer == {"above": pytest.approx(power(3), rel=1e-9), "below": pytest.approx(power(7), rel=1e-9),
                      "drawn": pytest.approx(0.3)}
    assert predicted_kill_rates(runs, {"a": -0.02})["above"] == pytest.approx(power(7), rel=1e-9)
    assert predicted_kill_rates(runs, {}) == predicted_kill_rates(runs) == pytest.approx(reading["power"])
    # spike-outlier's quick row: 42 of 50 killed, [0.71, 0.93]; 0.96 predicted on the target disagrees, the rate at
    # the measured offset is what the runs are held to
    survived = VersionRates(version="m", runs=50, passed=8, failed=42, inconclusive=0, outside=0, errors=0)
    base = {**_calibration(0).__dict__, "mutants": (survived,), "predicted_kills": {"m": 0.96}}
    assert Calibration(**base).kill_rates_disagree == ["m"]
    held = Calibration(**{**base, "predicted_at_offset": {"m": 0.86}})
    assert held.kill_rates_disagree == []
    assert "predicted 0.96, 0.86 at the measured offset" in format_calibration([held])
    assert Calibration.from_dict(held.to_dict()).predicted_at_offset == {"m": 0.86}
    assert Calibration(**{**base, "predicted_at_offset": {"m": 0.99}}).kill_rates_disagree == ["m"]


def test_a_kill_rate_predicted_without_the_predictions_that_read_the_mutant_is_a_lower_bound():
    """giant-step-risk draws its sRF at the statement's r, c, gamma, which no-spike changes: the true statement's
    runs claim no power there, and the mutant's own runs may reject it there too, so its predicted kill rate is a
    lower bound (a mutant's rate of 7 in 20 against a predicted 0.01). A rate above a lower bound is no
    disagreement; one below it still is."""
    assert "no-spike" in power_withheld("giant-step-risk", {})
    assert "noise-in-test-error" not in power_withheld("giant-step-risk", {})  # the statement's observable reads it
    assert power_withheld("dual-kernel", {}) == ()  # its simulation reads none of the statement's constants
    seven = VersionRates(version="m", runs=20, passed=0, failed=7, inconclusive=13, outside=0, errors=0)
    base = {**_calibration(0).__dict__, "mutants": (seven,), "predicted_kills": {"m": 0.01}}
    assert Calibration(**base).kill_rates_disagree == ["m"]
    bounded = Calibration(**{**base, "predicted_at_least": ("m",)})
    assert bounded.kill_rates_disagree == [] and "predicted at least 0.01;" not in format_calibration([bounded])
    assert "predicted at least 0.01" in format_calibration([bounded])
    assert Calibration(**{**base, "predicted_kills": {"m": 0.9}, "predicted_at_least": ("m",)}).kill_rates_disagree \
        == ["m"]
    assert Calibration.from_dict(bounded.to_dict()).predicted_at_least == ("m",)


def _runs_with_spread(spread: float, degrees_of_freedom: float, runs: int = 200) -> list[Verdict]:
    """Stored verdicts of one prediction whose z over the runs are evenly spaced normal quantiles times `spread`, each
    read on `degrees_of_freedom`."""
    from statistics import NormalDist

    zs = [spread * NormalDist().inv_cdf((index + 0.5) / runs) for index in range(runs)]
    return [_stored({"fidelity": "quick", "predictions": [{"name": "limit", "predicted_interval": [1.0, 1.0],
                                                           "observed": 1.0 + 0.01 * z, "standard_error": 0.01,
                                                           "degrees_of_freedom": degrees_of_freedom, "stages": 1,
                                                           "false_fail_rate": 1e-7}]}) for z in zs]


def test_a_spread_is_judged_against_the_t_law_the_check_assumes():
    """On 5 degrees of freedom a right standard error gives z the spread of Student t, sqrt(5/3) = 1.29: that is not
    miscalibrated, as it would be against the normal's 1; the same spread on infinite degrees of freedom is, and on
    2 the t law has no variance to judge against."""
    import math

    (t_law,) = standardized(_runs_with_spread(math.sqrt(5 / 3), 5))
    assert t_law.reference_spread == pytest.approx(math.sqrt(5 / 3)) and not t_law.miscalibrated
    assert "(Student t's 1.29)" in t_law.describe()
    (normal,) = standardized(_runs_with_spread(math.sqrt(5 / 3), math.inf))
    assert normal.reference_spread == 1 and normal.miscalibrated
    (heavy,) = standardized(_runs_with_spread(3.0, 2))
    assert heavy.reference_spread is None and not heavy.miscalibrated and "has no variance" in heavy.describe()
