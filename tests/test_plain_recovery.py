"""plain-recovery: the random start, the width it is claimed from, and the settling guard on a run in its escape."""

import numpy as np

from checkers import registry
from checkers.elasticity.plain_recovery import small_random_start
from checkers.engine import run_check
from theorems.elasticity import plain_recovery as statement


def test_the_start_is_balanced_with_the_asked_norm_in_random_directions():
    a, weights = small_random_start(200, 8, 0.01, np.random.default_rng(0))
    assert np.allclose(np.abs(a), 0.01) and np.allclose(np.linalg.norm(weights, axis=1), 0.01)
    assert abs(np.mean(np.sign(a))) < 0.2 and np.linalg.norm(weights.mean(axis=0)) < 0.003


def test_a_start_narrower_than_eight_neurons_per_teacher_is_outside_the_claim():
    assert statement.THEOREM.instance({"width": "23"}).assumption_failures()
    assert not statement.THEOREM.instance({"width": "24"}).assumption_failures()
    assert not statement.THEOREM.instance({"width": "16", "teacher_width": "2"}).assumption_failures()


def test_a_run_still_escaping_its_start_is_inconclusive_not_failed():
    """At lambda = 0.001 the quick run's far mass has not settled; one quantity's values can look geometric then
    (the angular error's did), so nothing is read."""
    verdict = run_check(registry.checker("plain-recovery"), {"regularization": "0.001"}, fidelity="quick")
    assert verdict.outcome == "inconclusive"
    assert [prediction.outcome for prediction in verdict.predictions] == ["inconclusive"] * 4
    assert all("GD (the far mass) has not settled" in prediction.message for prediction in verdict.predictions)
