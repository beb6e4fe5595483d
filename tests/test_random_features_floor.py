"""random-features-floor: the frozen floor against a direct minimization, and the comparison with the full run."""

import numpy as np
import pytest

from checkers.elasticity.random_features_floor import frozen_floor
from theorems.elasticity import random_features_floor as statement
from theorems.elasticity.local_recovery import population_loss_and_gradient, teacher_layout


def test_the_floor_is_the_minimum_over_the_second_layer():
    """The floor equals the loss at its minimizer, and gradient steps on a alone from anywhere stay above it."""
    rng = np.random.default_rng(0)
    a_star, teacher = teacher_layout(2, 5)
    weights = teacher[[0, 0, 1, 1]] + 0.3 * rng.standard_normal((4, 5))
    floor = frozen_floor(a_star, teacher, weights)
    a = rng.standard_normal(4)
    for _ in range(20000):
        a -= 0.5 * population_loss_and_gradient(a, weights, a_star, teacher)[1]
    assert population_loss_and_gradient(a, weights, a_star, teacher)[0] == pytest.approx(floor, rel=1e-8)
    assert floor > 0


def test_teachers_in_the_frozen_span_leave_no_floor():
    a_star, teacher = teacher_layout(2, 4)
    assert frozen_floor(a_star, teacher, np.vstack([teacher, [[0, 0, 0.3, 0]]])) == pytest.approx(0, abs=1e-14)


def test_the_comparison_and_its_reverse_on_a_run_known_before_any_draw():
    measured = statement.tenfold_below(None)["tenfold below"]
    assert statement.floor_margin(statement.THEOREM.instance({}), measured) == pytest.approx(0.9)
    reverse = statement.THEOREM.mutated("random-features-suffice").instance({})
    assert statement.floor_margin(reverse, measured) == pytest.approx(-0.9)
