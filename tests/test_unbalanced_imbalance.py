"""unbalanced-imbalance: the orders its claims and mutants state, and the flow's reading of them."""


import pytest

from checkers import registry
from checkers.engine import run_check
from theorems.alignment import unbalanced_imbalance as statement


@pytest.mark.parametrize("order", [0.0, 1.0, 2.0])
def test_the_observed_order_is_the_slope_of_an_exact_power(order):
    measured = statement.conserved_imbalance(statement.ESCAPED_LOG_EPSILONS, order)
    assert statement.observed_order(None, measured) == pytest.approx(order, abs=1e-12)


def test_the_authors_reading_and_the_first_order_error_move_their_targets_by_one():
    stated = statement.THEOREM.instance({})
    predicted = {p.name: float(p.predict(stated).value) for p in statement.THEOREM.predictions}
    assert predicted == {"relative-through-alignment": 0.0, "absolute-after-escape": 2.0}
    for mutant, prediction in (("epsilon-squared-throughout", "relative-through-alignment"),
                               ("first-order-after-escape", "absolute-after-escape")):
        mutated = statement.THEOREM.mutated(mutant)
        assert float(mutated.prediction(prediction).predict(mutated.instance({})).value) == 1.0


def test_through_alignment_the_relative_imbalance_is_the_same_at_every_epsilon():
    """The measured | |v_j|/||w_j|| - 1 | at t1 agrees to 1e-8 at log epsilon -10, -14 and -18, and is not 0 (the
    start is unbalanced), so the statement passes (the contract tests reject every mutant)."""
    checker = registry.checker("unbalanced-imbalance")
    verdict = run_check(checker, {}, fidelity="quick")
    assert verdict.outcome == "pass"
    relative = next(p for p in verdict.predictions if p.name == "relative-through-alignment")
    imbalances = [float(v) for v in relative.method.rsplit("= ", 1)[1].split(", ")]  # printed to ten decimals
    assert len(imbalances) == 3 and min(imbalances) > 1e-3
    assert max(imbalances) - min(imbalances) < 1e-8
    assert abs(relative.observed) <= relative.tolerance  # the reader's stated accuracy of the slope


def test_a_loss_that_never_reaches_the_fitted_stage_leaves_the_second_claim_unresolved():
    verdict = run_check(registry.checker("unbalanced-imbalance"), {"loss": "square"}, fidelity="quick")
    after = next(p for p in verdict.predictions if p.name == "absolute-after-escape")
    assert after.outcome == "inconclusive" and "did not fall to 0.01" in after.message
