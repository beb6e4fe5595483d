"""elasticity-monotone: the steps its claim reads, what each version claims on an even law, and the draws' reading."""

import pytest

from checkers.elasticity import elasticity_monotone as checker_module
from theorems.elasticity import elasticity_monotone as statement


def test_the_ladder_gives_four_steps_on_each_side():
    steps = statement.steps()
    assert len(steps) == 8 and steps[0] == (1, 0.0, 0.5) and steps[4] == (-1, 0.0, 0.5)
    assert all(inner < outer for _, inner, outer in steps)


def test_a_left_step_of_an_even_law_rises_for_the_statement_and_falls_for_the_signed_reading():
    measured = statement.even_law(None)["even law"]
    assert statement.relative_step(statement.THEOREM.instance({}), measured) == pytest.approx(0.25)
    signed = statement.THEOREM.mutated("increasing-in-m").instance({})
    assert statement.relative_step(signed, measured) == pytest.approx(-0.25)


def test_the_exact_ladder_of_one_draw_is_even_to_first_order_and_rises():
    """On one draw at the defaults E(+-0.5) both exceed E(0), and E(4) and E(-4) agree to a few percent: the law is
    even in m to leading order."""
    parameters = tuple(sorted(statement.THEOREM.instance({}).describe_parameters().items()))
    row = checker_module.ladder(parameters, (1, 2, 3, 4))
    assert row[0.5] > row[0.0] and row[-0.5] > row[0.0]
    assert row[4.0] == pytest.approx(row[-4.0], rel=0.05)
