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
DEFAULT_SEEDS = 20
# more seeds where a check is cheap, fewer where one run takes tens of seconds; every theorem is covered
SEEDS = {"balancedness-recurrence": 200, "balancedness-identity": 200, "stationary-balanced": 200,
         "nc1-bound": 50, "pseudo-inverse-features": 50, "nc2-bracket": 50, "nc3-bound": 50, "head-conditioning": 50,
         "dual-kernel": 200, "population-loss": 200, "spike-alignment": 200,
         "spike-strength": 100, "spike-outlier": 30, "spike-decomposition": 40, "mixture-spike": 30,
         "elasticity-reference": 50, "alignment-geometry": 50, "directional-dynamics": 50}


def test_seed_table_names_only_registered_theorems():
    assert set(SEEDS) <= {c.id for c in CHECKERS}


@pytest.mark.slow
@pytest.mark.parametrize("checker", CHECKERS, ids=[c.id for c in CHECKERS])
def test_false_alarm_rate_of_true_statement(checker, tmp_path):
    seeds = SEEDS.get(checker.id, DEFAULT_SEEDS)
    (result,) = calibrate([checker.id], tmp_path / "calibration.sqlite", seeds=seeds, root_seed=1000,
                          executor="serial", progress=False, paired=True)
    print("\n" + format_calibration([result]))
    assert result.true_statement.errors == 0 and not result.miscalibrated
    assert result.true_statement.failed <= seeds // 100
