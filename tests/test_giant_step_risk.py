"""giant-step-risk: its constants are Result 3.3 at srf-constants' r, c, gamma, and quick fidelity already rejects
its far mutants (the near ones are rejected at default fidelity, in the slow contract test)."""

import pytest

from checkers import registry
from checkers.check import run_check
from checkers.stats import FAIL
from tests.test_giant_step_oracle import REFERENCES
from theorems.equivalence import srf_constants

CHECKER = registry.checker("giant-step-risk")


def test_the_default_instance_is_the_reference_setting_b6():
    (noise, alpha0, eta, ridge, ratio, width_ratio), (test, train) = REFERENCES["B6"]
    instance = CHECKER.theorem.instance()
    assert [float(instance[name]) for name in ("noise", "alpha0", "eta", "penalty", "sample_ratio", "width_ratio")] \
        == [noise, alpha0, eta, ridge, ratio, width_ratio]
    assert float(instance.constant("test_error")) == pytest.approx(test, abs=6e-9)
    assert float(instance.constant("train_error")) == pytest.approx(train, abs=6e-9)
    spiked = srf_constants.THEOREM.instance({"noise": str(noise)})
    for name in ("r", "c", "gamma"):
        assert instance.constant(name) == spiked.constant(name)


@pytest.mark.parametrize("mutant", ["no-spike", "ratio-misplaced", "spike-not-aligned"])
def test_quick_fidelity_rejects_the_far_mutants(mutant):
    verdict = run_check(CHECKER, seed=0, fidelity="quick", mutant=mutant)
    assert verdict.outcome == FAIL, verdict.explain()
    assert {p.name: p.outcome for p in verdict.predictions}["test-error"] == FAIL

