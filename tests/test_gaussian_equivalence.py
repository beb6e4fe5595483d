"""gaussian-equivalence beyond its contract tests: what its verdict says outside eta = Theta(1)."""

from checkers import registry
from checkers.check import run_check
from checkers.stats import FAIL
from checkers.verdict import OUTSIDE, SKIPPED


def test_outside_a_constant_step_says_so_and_shows_what_happens():
    # eta = N^(1/2) is outside Theorem 3 (eta = Theta(1)): the verdict names the failed assumption, the risk
    # prediction is still evaluated (the network's risk is about half the GE model's), the small-step limit is not
    checker = registry.checker("gaussian-equivalence")
    verdict = run_check(checker, {"step_exponent": "0.5"}, seed=0, fidelity="quick")
    assert verdict.outcome == OUTSIDE
    assert [failure[0] for failure in verdict.assumption_failures] == ["small-step"]
    outcomes = {p.name: p for p in verdict.predictions}
    assert outcomes["risk"].outcome == FAIL and outcomes["risk"].observed < -0.3
    assert outcomes["equivalent-limit"].outcome == SKIPPED
