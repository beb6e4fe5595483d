"""checkers.convergence: the geometric-tail bound holds on geometric sequences and refuses others; extrapolations
across sizes read a checked model's limit, or bound what the sizes cannot tell apart, or refuse."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checkers.checker import Unresolved
from checkers.convergence import (
    CONTRACTION,
    UNIT_ROUNDOFF,
    bounded_extrapolation,
    settled_limit,
    with_round_off,
)
from checkers.stats import Estimate


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


SIZES = (100, 200, 400)
BOUNDS = dict(exponent=1.0)  # srf-constants': the derivation's 1/d, within the default factor two


def _estimates(law, error):
    from checkers.stats import Estimate
    return [Estimate(law(d), error, 50.0, 51) for d in SIZES]


@pytest.mark.parametrize("law", [lambda d: 1.0 + 3.0 / d, lambda d: 1.0 + 3.0 / d + 60.0 / d**2,
                                 lambda d: 1.0 - 0.4 * d**-0.6, lambda d: 1.0 + 20.0 * d**-1.8])
@pytest.mark.parametrize("error", [1e-4, 1e-3])
def test_a_bounded_extrapolation_brackets_the_limit_of_laws_inside_its_bounds(law, error):
    """Laws whose finite-size terms decay like d^-e with 1/2 <= e <= 2 (one power, or two, the second a next
    order of 0.6% at d = 100): the limit 1 lies within the reading's systematic bound and a few standard errors,
    and the bound does not shrink when the estimates are less precise (as many exponents fit, or more). At errors
    of 1e-5 the two-power law rejects every single power, and the reading is unresolved (below)."""
    from checkers.convergence import bounded_extrapolation
    reading = bounded_extrapolation(SIZES, _estimates(law, error), what="a test", **BOUNDS)
    assert abs(reading.value - 1.0) <= reading.systematic + 4 * reading.standard_error
    assert "the sizes accept e in" in reading.method and "d = 200" in reading.method
    wider = bounded_extrapolation(SIZES, _estimates(law, 10 * error), what="a test", **BOUNDS)
    assert wider.systematic >= reading.systematic * (1 - 1e-9)


def test_a_bounded_extrapolation_reads_the_derivations_exponent_where_the_sizes_accept_it():
    """1 + 3/d is read at e = 1 exactly, as the stated-exponent extrapolation reads it; 1 + 20 d^-1.8 at 1e-4
    rejects e = 1, so the reading moves to the best-fitting exponent, whose limit is 1 to its error."""
    from checkers.convergence import bounded_extrapolation
    from checkers.stats import extrapolate_limit
    estimates = _estimates(lambda d: 1.0 + 3.0 / d, 1e-3)
    reading = bounded_extrapolation(SIZES, estimates, what="a test", **BOUNDS)
    assert reading.value == extrapolate_limit(SIZES, estimates, exponent=1.0).value
    assert "read at e = 1 " in reading.method
    steep = bounded_extrapolation(SIZES, _estimates(lambda d: 1.0 + 20.0 * d**-1.8, 1e-4), what="a test", **BOUNDS)
    assert "read at e = 1 " not in steep.method and abs(steep.value - 1.0) < 4 * steep.standard_error


def test_a_bounded_extrapolation_refuses_a_law_outside_its_bounds():
    """1 + 5 d^-0.1 read as d^-e with e >= 1/2 would put the limit near 3: every exponent in the bounds is
    rejected, so the reading is unresolved rather than wrong."""
    from checkers.convergence import bounded_extrapolation
    with pytest.raises(Unresolved, match="does not follow L \\+ B d\\^-e, 0.5 <= e <= 2"):
        bounded_extrapolation(SIZES, _estimates(lambda d: 1.0 + 5.0 * d**-0.1, 1e-3), what="a test", **BOUNDS)
    with pytest.raises(Unresolved, match="best fit p = .* at e = 1.1"):  # a single power cannot fit it
        bounded_extrapolation(SIZES, _estimates(lambda d: 1.0 + 3.0 / d + 60.0 / d**2, 1e-5), what="a test",
                              **BOUNDS)
    with pytest.raises(ValueError, match="three or more"):
        bounded_extrapolation(SIZES[:2], _estimates(lambda d: 1.0, 1e-3)[:2], what="x", **BOUNDS)
    with pytest.raises(ValueError, match="positive, finite standard errors"):  # a chi-square would be nan
        bounded_extrapolation(SIZES, _estimates(lambda d: 1.0, 0.0), what="x", **BOUNDS)
    with pytest.raises(ValueError, match="lower <= exponent <= upper"):
        bounded_extrapolation(SIZES, _estimates(lambda d: 1.0, 1e-3), exponent=3.0, bounds=(0.5, 2.0), what="x")


def test_a_bounded_extrapolation_bounds_the_exponent_within_a_factor_two_unless_told():
    """The default bounds are the derived exponent's square root and square orders: e/2 and 2e."""
    from checkers.convergence import EXPONENT_FACTOR, bounded_extrapolation
    assert EXPONENT_FACTOR == 2
    reading = bounded_extrapolation(SIZES, _estimates(lambda d: 1.0 + 3.0 / d, 1e-3), what="a test", exponent=0.6)
    assert "0.3 <= e <= 1.2" in reading.method
    told = bounded_extrapolation(SIZES, _estimates(lambda d: 1.0 + 3.0 / d, 1e-3), what="a test", exponent=1.0,
                                 bounds=(0.9, 1.1))
    assert "0.9 <= e <= 1.1" in told.method


@pytest.mark.parametrize("exponent", [0.04, 0.0, -0.2])
def test_a_correction_that_hardly_decays_leaves_the_limit_unresolved(exponent):
    """Below SLOWEST_EXPONENT a correction shrinks by under 10% across a factor eight in size: unresolved, with
    the estimates in the reason; a reader can ask the same before drawing anything."""
    from checkers.convergence import SLOWEST_EXPONENT, bounded_extrapolation, require_decaying_correction
    assert 8.0**-SLOWEST_EXPONENT > 0.9  # what its comment says: under 10% across a factor eight in size
    with pytest.raises(Unresolved, match="hardly decays across d = 100..400.*d = 200"):
        bounded_extrapolation(SIZES, _estimates(lambda d: 1.0, 1e-3), exponent=exponent, what="a test")
    with pytest.raises(Unresolved, match="a test: the derived correction, of order n\\^-"):
        require_decaying_correction(exponent, (250, 2000), what="a test", size_name="n")
    require_decaying_correction(SLOWEST_EXPONENT, (250, 2000), what="a test")  # at the threshold: attempted


def test_an_expansion_parameter_above_the_contraction_leaves_the_limit_unresolved():
    """The ratio test of `settled_limit`, applied to the parameter of a series of corrections: 0.5 is read, above
    it the reason names the parameter, its value and where."""
    from checkers.convergence import CONTRACTION, require_small_expansion_parameter
    require_small_expansion_parameter(CONTRACTION, what="a test", parameter="s^2", where="n = 250")
    with pytest.raises(Unresolved, match="a test: s\\^2 is 0.51 at n = 250, above 0.5: .*larger sizes"):
        require_small_expansion_parameter(0.51, what="a test", parameter="s^2", where="n = 250")


def test_a_negative_floor_is_a_bug_not_a_tighter_bound():
    with pytest.raises(ValueError, match="non-negative"):
        settled_limit(1.0, 1.1, 1.12, floor=-1e-3, what="x")


def test_the_tail_holds_when_later_ratios_grow_up_to_the_contraction():
    # peak-alignment's local exponents at per_class = 8: changes shrinking by 0.19, then 0.24, 0.26, ... toward a
    # limit 0.0024 beyond the third term; a tail taken at the first observed ratio (0.0017) fell short of it
    ratios = [0.187, 0.244, 0.26] + [0.2636] * 40
    terms, change = [1.28407], 0.03946
    for ratio in [None] + ratios:
        if ratio is not None:
            change *= ratio
        terms.append(terms[-1] + change)
    value, accuracy = settled_limit(*terms[:3], floor=0.0, what="x")
    remaining = abs(terms[-1] - value)
    assert remaining <= accuracy
    first, second = terms[1] - terms[0], terms[2] - terms[1]
    observed = second / first
    assert remaining > second * observed / (1 - observed)  # what the observed ratio alone would have allowed


def test_a_standard_error_is_not_taken_below_the_rounding_of_its_mean():
    tiny = Estimate(1.0, 1e-17, 31.0, 32)
    assert with_round_off(tiny).standard_error == 32 * UNIT_ROUNDOFF
    sampled = Estimate(1.0, 1e-3, 31.0, 32)
    assert with_round_off(sampled) is sampled
    # three sizes whose means differ in their last bits are one limit, not a trend no model fits
    ulp = 2.0**-52
    means = [Estimate(1.0, 5e-18, 31.0, 32), Estimate(1 - ulp, 1.4e-17, 31.0, 32), Estimate(1.0, 2e-17, 31.0, 32)]
    read = bounded_extrapolation([100, 200, 400], means, exponent=1.0, what="c")
    assert abs(read.value - 1) < 1e-14
