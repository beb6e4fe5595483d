"""The dual-kernel theorem: conjecture mode flips verdicts, edge cases, and its calibration (slow)."""

import math

import pytest
import scipy.stats

from checkers import registry
from checkers.engine import run_check
from checkers.outcome import FAIL, OUTSIDE, PASS

CHECKER = registry.checker("dual-kernel")


@pytest.mark.parametrize("constant", ["c0", "c1", "c2"])
@pytest.mark.parametrize("factor", [0.97, 1.03])
def test_nudging_a_leading_constant_by_three_percent_fails(constant, factor):
    instance = CHECKER.theorem.instance({"activation": "relu", "rho": "0.7"})
    nudged = str(float(instance.constant(constant)) * factor)
    verdict = run_check(CHECKER, {"activation": "relu", "rho": "0.7"}, {constant: nudged})
    assert verdict.outcome == FAIL, verdict.explain()


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "gelu", "softplus", "tanh(z) + 0.1*z**2"])
def test_no_closed_form_activations_pass_by_monte_carlo_and_mutants_fail(activation):
    # the tail bound is checked against a converged quadrature where no closed form is known
    verdict = run_check(CHECKER, {"activation": activation, "rho": "-0.4"}, fidelity="quick")
    assert verdict.outcome == PASS, verdict.explain()
    outcomes = {p.name: p.outcome for p in verdict.predictions}
    assert outcomes == {"closed-form": "not applicable", "monte-carlo": PASS, "tail-bound": PASS}
    for mutant in ("factorial-dropped", "coefficient-not-squared", "c1-nudged"):
        assert run_check(CHECKER, {"activation": activation, "rho": "-0.4"}, mutant=mutant).outcome == FAIL


@pytest.mark.parametrize("rho", [-1.0, -0.37, 0.0, 0.5, 0.99, 1.0])
def test_the_quadrature_reference_is_within_its_stated_accuracy_of_the_closed_form(rho):
    # erf has Williams' arcsine kernel: the reference the tail bound uses where no closed form is known must agree
    # with it within the accuracy it states for itself
    from checkers.kernels.dual_kernel import quadrature_reference
    instance = CHECKER.theorem.instance({"activation": "erf", "rho": repr(rho)})
    value, accuracy = quadrature_reference(instance, rho)
    exact = 2 / math.pi * math.asin(2 * rho / 3)
    assert abs(value - exact) <= accuracy and accuracy < 1e-12


@pytest.mark.parametrize("rho", ["1", "-1", "0"])
def test_edges_of_the_correlation_range(rho):
    assert run_check(CHECKER, {"activation": "relu", "rho": rho}).outcome == PASS


def test_outside_assumptions_is_reported_with_reason():
    verdict = run_check(CHECKER, {"activation": "exp(z**2)"})
    assert verdict.outcome == OUTSIDE
    assert "infinite" in verdict.assumption_failures[0][1]


def _false_alarm_count(activation: str, rate: float, seeds: int = 200) -> int:
    return sum(run_check(CHECKER, {"activation": activation, "rho": "0.7"}, seed=seed, fidelity="quick",
                         false_fail_rate=rate).outcome == FAIL for seed in range(seeds))


@pytest.mark.slow
@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_false_alarm_rate_over_200_seeds(activation):
    """At the default rate (1e-6) no more than 1% of 200 seeds may fail; at a nominal 5% the observed
    rate must be consistent with at most 5% (and not zero, which would mean the standard errors are
    inflated and the test is blunter than it claims)."""
    assert _false_alarm_count(activation, 1e-6) <= 2
    alarms = _false_alarm_count(activation, 0.05)
    upper = scipy.stats.binom.ppf(0.999, 200, 0.05)
    assert 1 <= alarms <= upper, alarms


def test_a_monte_carlo_verdict_states_its_power_against_each_mutant_that_moves_its_prediction():
    checker = registry.checker("dual-kernel")
    verdict = run_check(checker, {"activation": "tanh", "rho": "0.7"}, fidelity="quick")
    monte_carlo = next(p for p in verdict.predictions if p.name == "monte-carlo")
    assert set(monte_carlo.power) == {m.name for m in checker.theorem.mutants}
    assert all(0.9 <= power <= 1 for power in monte_carlo.power.values())
    assert "power against mutants" in verdict.explain()
    # an exact observation, a mutant's own run and a conjecture claim no power
    assert next(p for p in verdict.predictions if p.name == "tail-bound").power is None
    mutant = run_check(checker, {"activation": "tanh", "rho": "0.7"}, fidelity="quick", mutant="c1-nudged")
    conjecture = run_check(checker, {"activation": "tanh", "rho": "0.7"}, {"c1": "0.5"}, fidelity="quick")
    assert all(p.power is None for p in (*mutant.predictions, *conjecture.predictions))


@pytest.mark.xfail(strict=True, reason=(
    "a known defect, not yet mended: for sigma = z**8 the mass of sigma(U) sigma(V) lies near |z| = 4-5, which "
    "2^16 RQMC points rarely visit; each replicate mean falls short and their spread understates the error, so "
    "quick reads 2.87e5 +- 2.4e4 against the closed form's 5.07e5 and fails a true statement. A test of the points' "
    "reach by E sigma^2 or E sigma^4 within 6 of their own standard errors catches z**64 but not this (the same "
    "understated spread); an exact share of E sigma^4 beyond the points' reach, or importance sampling at sigma's "
    "growth, would"))
def test_a_heavy_tailed_activation_never_fails_the_true_kernel():
    verdict = run_check(registry.checker("dual-kernel"), {"activation": "z**8"}, fidelity="quick")
    assert verdict.outcome != FAIL
