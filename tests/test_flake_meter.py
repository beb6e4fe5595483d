"""The flake meter (tests/flake_meter.py): a check whose outcome holds only at its test's seed is found; and, slow,
the default suite's checks metered over 50 seeds with none seed-lucky."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.flake_meter import SEED_LUCKY_SHARE, differing, seed_lucky, upper_bound

ROOT = Path(__file__).resolve().parents[1]

SEEDED_TEST = '''
import mpmath
from checkers.checker import Checker, Measured
from checkers.engine import run_check
from tests.test_claims import _theorem


def _reader(instance, budget, seed, observable):  # the square's side is right at even root seeds only
    return Measured({"side": mpmath.mpf(1 + seed.entropy % 2), "base": mpmath.mpf(1)}, 1e-12, "read")


def test_lucky():
    checker = Checker(theorem=_theorem(), simulation="a square measured", readers={"ratio": _reader})
    assert run_check(checker, fidelity="quick", seed=0).outcome == "pass"


def test_steady():
    checker = Checker(theorem=_theorem(), simulation="a square measured", readers={"ratio": _reader})
    assert run_check(checker, fidelity="quick", seed=0, mutant="scale-up").outcome == "fail"
'''


def _meter(arguments: list[str], report: Path, timeout: float) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--flake-report", str(report),
                           *arguments], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=timeout)


def test_the_meter_finds_a_check_that_passes_only_at_its_seed(tmp_path):
    (tmp_path / "test_seeded.py").write_text(SEEDED_TEST)
    report = tmp_path / "report.json"
    result = _meter(["-q", "-n", "0", "-p", "tests.flake_meter", "--flake-seeds", "5", "--rootdir", str(ROOT),
                     str(tmp_path / "test_seeded.py")], report, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr  # the meter reports; it fails no test
    rows = {row["test"].rsplit("::", 1)[1]: row for row in json.loads(report.read_text())["rows"]}
    assert rows["test_lucky"]["outcome"] == "pass" and rows["test_lucky"]["others"] == {"pass": 2, "fail": 2}
    assert rows["test_steady"]["others"] == {"fail": 4}
    assert [row["test"] for row in seed_lucky(list(rows.values()))] == [rows["test_lucky"]["test"]]
    assert "another outcome at 2 of 4 seeds" in result.stdout and "seed-lucky" in result.stdout


def test_the_reported_rate_bound_is_clopper_pearsons():
    assert differing({"outcome": "pass", "others": {"pass": 47, "inconclusive": 2}}) == (2, 49)
    assert upper_bound(0, 49) == pytest.approx(1 - 0.025 ** (1 / 49), rel=1e-12)
    assert upper_bound(3, 3) == 1.0


@pytest.mark.slow
def test_no_check_of_the_default_suite_holds_only_at_its_seed(tmp_path):
    """The default suite with every check it runs in at most 10 s rerun at 49 more seeds (hours on 2 cores); the
    longer ones are the main job's, whose rates over seeds are the calibration's (docs/calibration.md)."""
    report = tmp_path / "report.json"
    result = _meter(["-q", "-n", "2", "--flake-seeds", "50", "--flake-max-seconds", "10", "tests"], report,
                    timeout=6 * 3600)
    print(result.stdout[-20000:])
    rows = json.loads(report.read_text())["rows"]
    assert not seed_lucky(rows), f"another outcome at more than {SEED_LUCKY_SHARE:.0%} of the seeds: " + "; ".join(
        f"{row['test']} ({row['theorem']}: {row['outcome']} at seed {row['seed']}, others {row['others']})"
        for row in seed_lucky(rows))
