"""elasticity-projection: the claim and its mutant on a draw known in closed form, and the draws' reading."""

import math

import numpy as np
import pytest

from checkers import registry
from theorems.elasticity import elasticity_projection as statement


def test_a_draw_along_zeta_does_not_see_the_orthogonal_part():
    """Weights and displacements along zeta alone: the change is exactly 0 for the statement, and the mean-norm
    reading compares with the similarity sqrt(m^2 + rho^2) instead, which the Elasticity does see."""
    measured = statement.spherical_draw(None)["along zeta"]
    assert statement.orthogonal_change(statement.THEOREM.instance({}), measured) == pytest.approx(0, abs=1e-12)
    mean_norm = statement.THEOREM.mutated("mean-norm").instance({})
    assert statement.orthogonal_change(mean_norm, measured) < -0.01
    assert mean_norm.definition("equivalent_similarity")(1.0, 1.0, 1.0) == pytest.approx(math.sqrt(2))


def test_the_orthogonal_direction_is_a_unit_vector_orthogonal_to_zeta():
    checker = registry.checker("elasticity-projection")
    from checkers.budget import FIDELITIES, Budget
    instance = statement.THEOREM.instance({"dimension": "40"})
    draws = checker.readers["projection-only"](instance, Budget(FIDELITIES["quick"], 0), np.random.SeedSequence(3),
                                               None).draws
    for draw in draws[:3]:
        assert abs(draw["orthogonal"] @ draw["zeta"]) < 1e-12 and np.linalg.norm(draw["orthogonal"]) == pytest.approx(1)
