"""Run-time counterexample search with Hypothesis."""

from fractions import Fraction

from hypothesis import strategies as st

from checkers.search import search_counterexample

UNIT = st.fractions(0, 1, max_denominator=1000)


def test_finds_a_violation_and_steers_towards_the_worst():
    # x^2 >= x fails on (0, 1), worst at x = 1/2 (margin -1/4)
    result = search_counterexample(lambda x: float(x * x - x), UNIT, max_examples=200, seed=1)
    assert result.violated and result.smallest_margin < -0.2
    assert 0 < result.example < 1


def test_true_inequality_reports_non_negative_margin():
    result = search_counterexample(lambda x: float(x * x), UNIT, max_examples=100, seed=1)
    assert not result.violated and result.examples >= 50


def test_same_seed_same_search():
    first = search_counterexample(lambda x: float(Fraction(1, 3) - x), UNIT, max_examples=50, seed=7)
    second = search_counterexample(lambda x: float(Fraction(1, 3) - x), UNIT, max_examples=50, seed=7)
    assert first == second
