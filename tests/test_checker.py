"""checkers.checker: a Checker is refused when its declarations name what its theorem lacks; the fidelity ladder;
the measurements every version's observable reads."""

import math

import mpmath
import pytest

from checkers import registry
from checkers.checker import Checker, Draws, Exact, Given, Measured, as_measurement
from checkers.stats import Estimate
from theorems.errors import DeclarationError, NumericalError


def test_a_prediction_may_resolve_below_its_check_and_only_below():
    """giant-step-risk's network readings resolve at default fidelity, its sRF's only at paper; a prediction's own
    fidelity must name one of its predictions and lie no higher than the check's."""
    giant = registry.checker("giant-step-risk")
    resolved = {p.name: giant.resolved_at(p) for p in giant.theorem.predictions}
    assert resolved["srf-test-error"] == "paper" and resolved["realized-test-error"] == "default"
    for wrong in ({"no-such-prediction": "default"}, {"test-error": "nowhere"}):
        with pytest.raises(DeclarationError, match="prediction_resolves_at"):
            Checker(theorem=giant.theorem, simulation="", readers=giant.readers, resolves_at="paper",
                    prediction_resolves_at=wrong)
    with pytest.raises(DeclarationError, match="no higher than resolves_at"):
        Checker(theorem=giant.theorem, simulation="", readers=giant.readers, resolves_at="default",
                prediction_resolves_at={"test-error": "high"})


class _Version:
    """A stand-in instance whose constant `c1` raises the given error."""

    def __init__(self, error: Exception):
        self.error = error

    def constant(self, name):
        raise self.error


def test_a_constant_out_of_numeric_reach_counts_as_changed_and_any_other_error_propagates():
    plain = registry.checker("dual-kernel")
    reading = Checker(theorem=plain.theorem, simulation=plain.simulation, readers=plain.readers,
                      simulation_constants={"monte-carlo": ("c1",)})
    truth = plain.theorem.instance({"activation": "tanh", "rho": "0.7"})
    out_of_reach = _Version(NumericalError("quadrature did not converge"))
    assert reading.simulations_changed(truth, out_of_reach) == ["monte-carlo"]
    with pytest.raises(ZeroDivisionError):  # a bug, not an undefined value: exit 4, never a withheld claim
        reading.simulations_changed(truth, _Version(ZeroDivisionError("division by zero")))


def test_the_fidelity_ladder_decides_at_default_or_above_and_sends_an_undecided_check_up():
    giant, dual = registry.checker("giant-step-risk"), registry.checker("dual-kernel")
    assert dual.deciding_fidelity() == "default" and giant.deciding_fidelity() == "paper"
    assert dual.resolving_fidelity("default") == "high" and dual.resolving_fidelity("high") is None
    assert giant.resolving_fidelity("default") == "paper"


def test_a_reading_the_reader_pooled_itself_is_the_same_for_every_version():
    estimate = Estimate(0.5, 0.1, 10, 11)
    given = as_measurement(estimate)
    assert isinstance(given, Given) and not given.observes
    assert given.reading(None) is estimate and given.reading(lambda measured: 1.0) is estimate
    exact = Exact(mpmath.mpf(1), 1e-9)
    assert as_measurement(exact) is exact and exact.reading(None) is exact and not exact.observes


def test_draws_and_measurements_are_read_through_each_versions_observable():
    draws = Draws(({"x": 1.0}, {"x": 3.0}), method="two draws")
    assert draws.observes and draws.reading(lambda measured: measured["x"]).value == 2.0
    assert draws.reading(lambda measured: 2 * measured["x"]).value == 4.0
    measured = Measured({"x": 2.0}, tolerance=1e-12, method="by hand").reading(lambda values: values["x"] ** 2)
    assert measured.value == 4.0 and measured.witnesses == {"measured": {"x": 2.0}}
    assert math.isclose(measured.tolerance, 1e-12)
