"""The population-loss theorem: kernel values from the spec's verification record, evenness, verdicts."""

import mpmath
import pytest

from checkers import registry
from checkers.engine import run_check
from checkers.outcome import FAIL, PASS
from theorems.kernels.population_loss import configuration, debiased_kernel, relu_kernel

SPEC_KAPPA = {  # docs/derivations/kernels.md#population-loss (2-D quadrature, independent of this code)
    "-0.9": "0.00476919942233604", "-0.3": "0.0913721419177438", "0": "0.159154943091895",
    "0.5": "0.304498890522115", "0.95": "0.476681868602681", "1": "0.5",
}


@pytest.mark.parametrize("rho, value", SPEC_KAPPA.items())
def test_arc_cosine_kernel_matches_the_spec_table(rho, value):
    with mpmath.workdps(30):
        assert abs(relu_kernel(mpmath.mpf(rho)) - mpmath.mpf(value)) < 1e-14


def test_debiased_kernel_is_even_with_the_stated_value_at_one():
    with mpmath.workdps(40):
        for rho in ("0.3", "0.8", "1"):
            assert abs(debiased_kernel(mpmath.mpf(rho)) - debiased_kernel(-mpmath.mpf(rho))) < 1e-35
        assert abs(debiased_kernel(mpmath.mpf(1)) - (mpmath.mpf(1) / 4 - 1 / (2 * mpmath.pi))) < 1e-35


def test_configuration_is_deterministic_and_spread():
    first, second = configuration(4, 3, 5, 2), configuration(4, 3, 5, 2)
    assert all((x == y).all() for x, y in zip(first, second))
    weights = first[1]
    cosines = weights @ weights.T / (abs(weights @ weights.T).diagonal()[:, None] ** 0.5 *
                                     abs(weights @ weights.T).diagonal()[None, :] ** 0.5)
    assert abs(cosines - __import__("numpy").eye(4)).max() < 0.999


@pytest.mark.parametrize("parameters", [{"model": "debiased"}, {"configuration": "5", "dimension": "3"},
                                        {"student_width": "1", "teacher_width": "1"}])
def test_passes_at_other_parameters(parameters):
    verdict = run_check(registry.checker("population-loss"), parameters)
    assert verdict.outcome == PASS, verdict.explain()


def test_nudged_loss_fails():
    checker = registry.checker("population-loss")
    value = float(checker.theorem.instance().constant("population_loss"))
    assert run_check(checker, overrides={"population_loss": repr(1.03 * value)}).outcome == FAIL


def test_series_identity_holds_at_dimension_64():
    # the domain edge where the tail bound (9.6e-17) was once rounded away at 53 bits (see Target.around)
    verdict = run_check(registry.checker("population-loss"), {"dimension": "64"}, fidelity="quick")
    series = next(result for result in verdict.predictions if result.name == "hermite-series")
    assert series.outcome == PASS, verdict.explain()
