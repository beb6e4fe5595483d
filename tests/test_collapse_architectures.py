"""collapse-architectures: the networks it builds, what each claim and mutant says before any draw, and a run."""

import math

import pytest

from checkers import registry
from checkers.collapse import collapse_architectures as checker_module
from checkers.engine import run_check
from theorems.collapse import collapse_architectures as statement


@pytest.mark.parametrize(("nonlinear", "linear", "expected", "covered"), [
    (2, 1, (8, 64, 32, 4), [1]),
    (2, 0, (8, 64, 32, 4), [1]),
    (1, 3, (8, 64, 16, 8, 4), [1, 2]),
    (1, 1, (8, 64, 4), []),
    (3, 2, (8, 64, 32, 32, 8, 4), [1, 2, 3]),
])
def test_the_networks_and_the_weights_low_rank_speaks_of(nonlinear, linear, expected, covered):
    assert statement.widths(nonlinear, linear) == expected
    assert statement.covered_weights(nonlinear, linear) == covered


def test_the_first_width_sets_n1_and_relu_has_no_nc4_without_a_linear_layer():
    assert statement.widths(2, 1, first_width=20) == (8, 20, 32, 4)
    assert statement.covered_weights(2, 1, first_width=10) == [1]
    relu = statement.THEOREM.instance({"activation": "relu", "linear_layers": "0"})
    assert "ties at 0" in statement.THEOREM.prediction("nc4").applies(relu)
    assert statement.THEOREM.prediction("nc4").applies(statement.THEOREM.instance({"activation": "relu"})) is None


def test_a_point_with_no_covered_weight_says_why_low_rank_does_not_apply():
    instance = statement.THEOREM.instance({"nonlinear_layers": "1", "linear_layers": "1"})
    low_rank = next(p for p in statement.THEOREM.predictions if p.name == "low-rank")
    assert "at most K = 4" in low_rank.applies(instance)


def test_each_claim_holds_on_the_collapsed_run_and_its_mutant_does_not():
    """On the reference run (NC1_J down a hundredfold, NC4 from chance to 1, stable rank 11 -> 2, features moved by
    their size) every claim holds, and each mutant's claim fails, by a margin known before any draw."""
    measured = statement.collapsed_run(None)["collapsed"]
    stated = statement.THEOREM.instance({})
    assert statement.nc1_margin(stated, measured) == pytest.approx(2)
    assert statement.nc4_share(stated, measured) == 1.0
    assert statement.stable_rank_margin(stated, measured) == pytest.approx(2 / 4)
    assert statement.feature_margin(stated, measured) == pytest.approx(0.5)
    mutated = {mutant.name: statement.THEOREM.mutated(mutant.name).instance({})
               for mutant in statement.THEOREM.mutants}
    assert statement.nc1_margin(mutated["no-collapse-without-a-linear-pair"], measured) == pytest.approx(
        math.log10(2) - 2)
    assert statement.nc4_share(mutated["nc4-at-initialization"], measured) == 0.25
    assert statement.stable_rank_margin(mutated["lazy-weights"], measured) == pytest.approx((2 - 8.8) / 13.75)
    assert statement.feature_margin(mutated["lazy-features"], measured) == pytest.approx(-0.9)


def test_without_a_linear_layer_the_check_passes_and_rejects_each_mutant():
    checker = registry.checker("collapse-architectures")
    point = {"linear_layers": "0"}
    assert run_check(checker, point, fidelity="quick").outcome == "pass"
    for mutant in statement.THEOREM.mutants:
        assert run_check(checker, point, fidelity="quick", mutant=mutant.name).outcome == "fail", mutant.name


def test_the_seeds_double_every_two_fidelity_levels():
    from checkers.budget import FIDELITIES, Budget
    assert [checker_module.seeds_of(Budget(FIDELITIES[name], 0)) for name in ("quick", "default", "high")] == [2, 4, 8]
