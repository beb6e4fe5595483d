"""Hypothesis strategies shared by the property tests."""

from hypothesis import strategies as st

correlations = st.fractions(min_value=-1, max_value=1, max_denominator=1000)
small_rationals = st.fractions(min_value=-3, max_value=3, max_denominator=20)
polynomial_coefficients = st.lists(small_rationals, min_size=1, max_size=5)
leaky_slopes = st.fractions(min_value=-1, max_value=1, max_denominator=100)
erf_scales = st.fractions(min_value=1, max_value=5, max_denominator=10).map(lambda f: f / 2)
