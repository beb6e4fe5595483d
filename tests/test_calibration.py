"""Calibration (slow): the false-alarm rate of each registered check on the true statement, by `thmcheck
calibrate`'s machinery (checkers.calibrate).

Each check runs over many seeds at quick fidelity with the default false-fail rate (1e-6 for the whole
check): a fail on the true statement is a false alarm, and more than 1% of seeds failing means the
check is miscalibrated (a biased estimator or an underestimated standard error). The exact binomial interval
of the observed rate must also be consistent with the stated rate. The mutants run paired (on the true statement's
seeds), so a simulation that does not depend on the statement runs once per seed. Run with `pytest -m slow
tests/test_calibration.py`; the measured table is printed (`-s`).
"""

import pytest

from checkers import registry
from checkers.calibrate import calibrate, format_calibration

CHECKERS = registry.builtin_checkers()


@pytest.mark.slow
@pytest.mark.parametrize("checker", CHECKERS, ids=[c.id for c in CHECKERS])
def test_false_alarm_rate_of_true_statement(checker, tmp_path):
    seeds = checker.calibration_seeds
    (result,) = calibrate([checker.id], tmp_path / "calibration.sqlite", seeds=seeds, root_seed=1000,
                          executor="serial", progress=False, paired=True)
    print("\n" + format_calibration([result]))
    assert result.true_statement.errors == 0 and not result.miscalibrated
    assert result.true_statement.failed <= seeds // 100


# Every checker names a second parameter point inside its assumptions (`Checker.second_point`): other activations
# and teachers, sizes, configurations, losses, learning rates. The true statements that failed a check did so away
# from the defaults (spike-count and elasticity-leading-coefficient at alpha = 0.4, large-step-beats-linear at
# n/d = 4, below its theorem's unstated psi1_*), so the defaults' table alone cannot find the next one. `thmcheck
# calibrate ID --param NAME=VALUE ...` runs one row.
SECOND_POINTS = {c.id: dict(c.second_point) for c in CHECKERS if c.second_point is not None}
SECOND_POINT_SEEDS = 3
# Mutants whose claim holds at their theorem's second point, so no run there can reject them, with the reason. (A
# mutant that moves no predicted target at the point is found by `Calibration.idle_mutants` and needs no entry.)
TRUE_AT_SECOND_POINT = {
    ("mixture-spike", "spread-ignored"): "the claims are upper bounds on the decay rates, and with the authors' random "
                                         "teacher direction both norms decay faster than the isotropic rates too",
    ("mixture-spike", "spike-at-remainder-rate"): "an upper bound on the spike's rate that the random teacher "
                                                  "direction's faster decay also satisfies",
    ("mixture-spike", "spread-as-standard-deviation"): "the random teacher direction's spike decays like k^-0.75, "
                                                       "under the mutant's k^-0.375 too",
    # measured on root seed 2000's three runs
    ("early-alignment", "t1-bound-divided"): "on configuration 1 the run's t1 is 5.4e-5 of the bound (about 900 times "
                                             "loose at the defaults, 18 000 here), so a thousandth of it holds too",
    ("early-alignment", "rate-times-ten-thousand"): "on configuration 1 the final-rate bound with alpha 10^4 times "
                                                    "larger still holds at every time after t2 of the run",
}


def test_the_mutants_true_at_a_second_point_are_registered():
    for theorem_id, mutant in TRUE_AT_SECOND_POINT:
        assert theorem_id in SECOND_POINTS
        registry.checker(theorem_id).theorem.mutant(mutant)


def test_every_theorem_has_a_second_point_inside_its_assumptions():
    ids = {c.id for c in CHECKERS}
    assert set(SECOND_POINTS) == ids
    for theorem_id, parameters in SECOND_POINTS.items():
        theorem = registry.checker(theorem_id).theorem
        point, defaults = theorem.instance(parameters), theorem.instance()
        assert not point.assumption_failures(), theorem_id
        assert point.describe_parameters() != defaults.describe_parameters(), theorem_id


@pytest.mark.slow
@pytest.mark.parametrize("theorem_id", sorted(SECOND_POINTS))
def test_a_second_parameter_point_never_fails_the_true_statement_at_default_fidelity(theorem_id, tmp_path):
    """At default fidelity a true statement passes or, where its sizes cannot resolve it at this point, is
    inconclusive with the reason; it never fails. Where it passes in every run, so does the contract's other half:
    every mutant that claims something else at the point is rejected in every run."""
    (result,) = calibrate([theorem_id], tmp_path / "calibration.sqlite", seeds=SECOND_POINT_SEEDS, root_seed=2000,
                          fidelity="default", executor="serial", progress=False, paired=True,
                          parameters=SECOND_POINTS[theorem_id])
    print("\n" + format_calibration([result]))
    rates = result.true_statement
    assert rates.errors == 0 and rates.outside == 0 and not result.miscalibrated
    assert not any(m.errors or m.outside for m in result.mutants)
    if rates.passed == rates.runs:
        # where the true statement is resolved in every run, every mutant that claims something else is rejected in
        # every run; where it is not (spike-count at alpha = 0.27), a mutant acting through the unresolved prediction
        # cannot be, and the kill rates are only printed
        claimed_truth = {mutant for theorem, mutant in TRUE_AT_SECOND_POINT if theorem == theorem_id}
        assert set(result.surviving_mutants) - set(result.idle_mutants) - claimed_truth == set()
