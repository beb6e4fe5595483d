"""checkers.convergence: the geometric-tail bound holds on geometric sequences and refuses others."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checkers.check import Unresolved
from checkers.convergence import CONTRACTION, settled_limit


@given(limit=st.floats(-10, 10), start=st.floats(1e-6, 1.0), ratio=st.floats(0.01, 0.99 * CONTRACTION),
       sign=st.sampled_from([-1.0, 1.0]), steps=st.integers(0, 20))
def test_the_bound_contains_the_limit_of_a_geometric_sequence(limit, start, ratio, sign, steps):
    terms = [limit + sign * start * ratio ** (steps + k) for k in range(3)]
    round_off = 8 * 2.0**-52 * max(1.0, abs(limit))  # the terms' own rounding, which the floor stands for in use
    # with a floor of 0 the changes of terms at round-off level are rounding noise, not geometric (found by CI:
    # limit 8, changes 1.78e-15 then 1.78e-15), so the floor is the terms' rounding, as callers pass it
    value, accuracy = settled_limit(*terms, floor=round_off, what="x")
    assert value == terms[-1] and abs(value - limit) <= accuracy + round_off


def test_a_sequence_that_is_not_yet_geometric_is_unresolved_and_a_settled_one_has_its_floor():
    with pytest.raises(Unresolved, match="has not settled"):
        settled_limit(1.0, 1.1, 1.19, floor=1e-12, what="x")
    assert settled_limit(1.0, 2.0, 2.0 + 1e-13, floor=1e-12, what="x") == (2.0 + 1e-13, 1e-12)


def test_a_checked_extrapolation_returns_the_intercept_or_refuses_a_model_the_sizes_reject():
    from checkers.convergence import checked_extrapolation
    from checkers.stats import Estimate
    sizes = (100, 200, 400)
    exact = [Estimate(1.0 + 3.0 / d, 0.001, 50.0, 51) for d in sizes]  # L + B/d exactly
    limit = checked_extrapolation(sizes, exact, exponent=1.0, what="a test")
    assert abs(limit.value - 1.0) < 1e-12 and "d = 200" in limit.method
    curved = [Estimate(1.0 + 3.0 / d + 0.02 * (d == 200), 0.001, 50.0, 51) for d in sizes]  # 20 s.e. off the line
    with pytest.raises(Unresolved, match="does not follow"):
        checked_extrapolation(sizes, curved, exponent=1.0, what="a test")
