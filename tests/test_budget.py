"""checkers.budget: each stage of every fidelity draws more than the one before it."""

import math

import pytest

from checkers.budget import FIDELITIES, Budget


@pytest.mark.parametrize("per_level", [math.sqrt(2), 2 ** (1 / 3)])
def test_a_scaled_budget_grows_at_every_stage_of_every_fidelity(per_level):
    """Each sequential stage must draw more than the one before it (a repeat is a second roll, not more power);
    2^(level // 2), which this replaces, repeats quick's two stages and default's first two."""
    for fidelity in FIDELITIES.values():
        budgets = [Budget(fidelity, stage).scaled(16, per_level) for stage in range(fidelity.stages)]
        assert all(later > earlier for earlier, later in zip(budgets, budgets[1:])), (fidelity.name, budgets)
    assert Budget(FIDELITIES["default"], 0).scaled(32, math.sqrt(2)) == 64
    assert Budget(FIDELITIES["quick"], 0).scaled(32, math.sqrt(2)) == 32


def test_a_budget_that_does_not_grow_is_refused():
    with pytest.raises(ValueError, match="must grow"):
        Budget(FIDELITIES["quick"], 1).scaled(16, 1.0)


def test_a_budget_doubled_per_stage_starts_each_fidelity_at_sqrt_2_per_level_and_doubles_at_each_stage():
    expected = {"quick": [1, 2], "default": [2, 4, 8], "high": [4, 8, 16, 32]}
    for name, factors in expected.items():
        fidelity = FIDELITIES[name]
        assert [Budget(fidelity, stage).doubled_per_stage(16) for stage in range(fidelity.stages)] == \
            [16 * factor for factor in factors]


