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


# A smooth family with its smallest margin inside the box, away from the corners Hypothesis likes: the margin
# (a - 0.3)^2 + (b - 0.7)^2 + 0.01 has minimum 0.01 at (0.3, 0.7), and `seed` is held fixed.
PLANE = st.fixed_dictionaries({"seed": st.integers(0, 9), "a": st.floats(0.0, 1.0), "b": st.floats(0.0, 1.0)})


def _bowl(example):
    return (example["a"] - 0.3) ** 2 + (example["b"] - 0.7) ** 2 + 0.01


def test_local_refinement_reaches_the_minimum_hypothesis_stops_short_of():
    plain = search_counterexample(_bowl, PLANE, max_examples=20, seed=3)
    refined = search_counterexample(_bowl, PLANE, max_examples=20, seed=3, refine={"a": (0, 1), "b": (0, 1)},
                                    refine_evaluations=200)
    assert plain.smallest_margin > 0.01 + 1e-6  # the search alone does not land on the minimum
    assert abs(refined.smallest_margin - 0.01) < 1e-9
    assert refined.example["seed"] == plain.example["seed"]  # only the named float entries move
    assert 0 < refined.refined <= 200 and refined.examples == plain.examples + refined.refined


def test_refinement_finds_a_violation_the_search_missed():
    # violated only within 0.01 of (0.3, 0.7): a few generated examples miss it, the refinement walks into it
    def shallow(example):
        return (example["a"] - 0.3) ** 2 + (example["b"] - 0.7) ** 2 - 1e-4

    plain = search_counterexample(shallow, PLANE, max_examples=5, seed=1)
    refined = search_counterexample(shallow, PLANE, max_examples=5, seed=1, refine={"a": (0, 1), "b": (0, 1)},
                                    refine_evaluations=100)
    assert not plain.violated and refined.violated


def test_refinement_stays_in_bounds_and_is_deterministic():
    box = st.fixed_dictionaries({"seed": st.just(0), "a": st.floats(0.5, 1.0), "b": st.floats(0.0, 0.2)})
    seen = []

    def recorded(example):
        seen.append((example["a"], example["b"]))
        return _bowl(example)

    first = search_counterexample(recorded, box, max_examples=20, seed=4, refine={"a": (0.5, 1.0), "b": (0.0, 0.2)},
                                  refine_evaluations=200)
    second = search_counterexample(_bowl, box, max_examples=20, seed=4, refine={"a": (0.5, 1.0), "b": (0.0, 0.2)},
                                   refine_evaluations=200)
    assert first == second
    assert all(0.5 <= a <= 1.0 and 0.0 <= b <= 0.2 for a, b in seen)
    assert abs(first.smallest_margin - _bowl({"a": 0.5, "b": 0.2})) < 1e-6  # the box's nearest corner


def test_refinement_respects_its_evaluation_budget():
    refined = search_counterexample(_bowl, PLANE, max_examples=10, seed=5, refine={"a": (0, 1), "b": (0, 1)},
                                    refine_evaluations=7)
    assert refined.refined <= 7
