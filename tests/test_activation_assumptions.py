"""The shared assumptions on an activation: square-integrable and not constant, with the statements that need them."""

import pytest

from checkers import registry
from checkers.engine import run_check
from theorems.activation_assumptions import constancy
from theorems.activations import activation


@pytest.mark.parametrize("formula", ["1", "1/(1 + z**2)**0", "z - z + 3", "max(z, z) - z", "sqrt(z**2) - abs(z)"])
def test_a_constant_formula_is_proved_constant(formula):
    assert "is constant" in constancy(activation(formula))


@pytest.mark.parametrize("formula", ["relu", "tanh", "relu(z - 20)", "z**3 - 3*z", "abs(z)", "0*z + z**2"])
def test_a_formula_that_varies_anywhere_is_not_constant(formula):
    """relu(z - 20) is 0 wherever a standard normal puts visible mass, yet not constant: the assumption is the
    statement's (sigma not constant), not a tolerance on its variance."""
    assert constancy(activation(formula)) is None


@pytest.mark.parametrize("theorem_id, parameter, value, reason", [
    ("mixture-spike", "activation", "1", "is constant"),
    ("elasticity-reference", "activation", "1", "is constant"),
    ("elasticity-reference", "activation", "exp(z**2)", "appears infinite"),
    ("elasticity-reference", "teacher", "exp(z**2)", "appears infinite"),
])
def test_a_statement_that_needs_a_varying_square_integrable_activation_says_so_where_it_has_none(
        theorem_id, parameter, value, reason):
    """These ended in an internal error (exit 4) on the user's input: ARPACK without a starting vector (a constant
    activation steps by exactly 0), an extrapolation of draws that all read 0, the Elasticity's 0/0 or its overflow
    to NaN. Now the statement is outside its assumptions, with the reason, and names no verdict on its claims."""
    instance = registry.checker(theorem_id).theorem.instance({parameter: value})
    assert any(reason in why for _, why in instance.assumption_failures())


def test_a_constant_activation_checks_as_outside_the_assumptions_and_evaluates_nothing():
    verdict = run_check(registry.checker("mixture-spike"), {"activation": "1"}, fidelity="quick")
    assert verdict.outcome == "outside assumptions"
    assert all(p.outcome in ("not applicable", "skipped") for p in verdict.predictions)


def test_every_statement_holds_its_new_assumptions_at_its_defaults():
    for theorem_id in ("mixture-spike", "elasticity-reference"):
        assert not registry.checker(theorem_id).theorem.instance({}).assumption_failures()
