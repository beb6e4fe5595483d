"""srf-constants' checker: three sizes, the exponent bounded, and the accepted models' spread carried into the
verdict (the comparison, the power against mutants and the printed evidence)."""

import pytest

from checkers.engine import run_check
from checkers.equivalence.srf_constants import CHECKER, SPIKED_SIZES
from checkers.outcome import PASS
from checkers.stats import rejection_power


@pytest.fixture(scope="module")
def verdict():
    return run_check(CHECKER, seed=0, fidelity="quick")


def test_each_constant_is_read_on_three_sizes_with_a_systematic_bound_below_its_resolution(verdict):
    assert len(SPIKED_SIZES) == 3 and verdict.outcome == PASS
    for prediction in verdict.predictions:
        assert all(f"d = {size}:" in prediction.method for size in SPIKED_SIZES)
        assert "read at e = 1 " in prediction.method  # the derivation's 1/d, which the sizes accept on seed 0
        # the spread is what the sizes cannot tell apart: positive, and small enough that the pass means something
        assert 0 < prediction.systematic < prediction.resolution / 2
        assert prediction.detectable <= prediction.resolution
    assert "systematic +- " in verdict.explain()


def test_the_power_against_a_near_mutant_discounts_the_systematic_bound(verdict):
    """mu1 5% too large moves the spike r by 1.7 resolutions; the power is that of the shift less the bound, the
    part of the shift that a bias toward the truth could not hide."""
    spike = next(p for p in verdict.predictions if p.name == "spike")
    mutant = CHECKER.theorem.mutated("mu1-five-percent").instance({})
    shift = abs(float(next(p for p in mutant.theorem.predictions if p.name == "spike").predict(mutant).value)
                - spike.predicted)
    rate = spike.false_fail_rate / spike.stages
    assert spike.power["mu1-five-percent"] == pytest.approx(
        rejection_power(shift - spike.systematic, spike.standard_error, spike.degrees_of_freedom, rate))
    assert spike.power["mu1-five-percent"] > 0.99


@pytest.mark.parametrize("seed", [0, 1, 19])
def test_without_a_step_the_bulk_is_one_to_round_off_and_passes(seed):
    """eta~ = 0: W_1 = W_0, so every draw's bulk inflation is 1 up to float64 rounding (standard error near 1e-17).
    The prediction c = 1 is exact there; rounding is no evidence against it. Seeds 1 and 19 read inconclusive (the
    flake meter found them): their sizes' means differed by an ulp, which a chi-square on standard errors of 1e-17
    took for a finite-size trend no model fits, until standard errors were floored at the means' rounding."""
    bulk = next(p for p in run_check(CHECKER, {"eta": "0"}, seed=seed, fidelity="quick").predictions
                if p.name == "bulk")
    assert bulk.outcome == PASS and bulk.standard_error < 1e-13


@pytest.mark.parametrize("parameters, prediction, reason", [
    ({"eta": "0"}, "spike", "eta = 0: W_1 = W_0 and r = 0"),
    ({"activation": "z**3 - 3*z"}, "spike", "mu1 = E sigma'(Z) = 0: r = 0"),
    ({"teacher": "abs"}, "overlap", "mu1* = E sigma_*'(Z) = 0: gamma = 0"),
])
def test_a_constant_that_vanishes_has_no_relative_resolution_and_its_prediction_does_not_apply(parameters, prediction,
                                                                                                reason):
    """3% of r or gamma is 0 where r or gamma is: such a prediction could never pass, and the check said
    "inconclusive, rerun at default" (found by a scan of every swept point's resolutions). No near error moves a zero
    constant, each scaling with eta mu1 or mu1*; the prediction says why it does not apply (the bulk, and the
    other of the two, still apply)."""
    theorem = CHECKER.theorem
    applies = next(p for p in theorem.predictions if p.name == prediction).applies
    assert applies(theorem.instance()) is None
    assert applies(theorem.instance(parameters)).startswith(reason)
    others = [p for p in theorem.predictions if p.name != prediction]
    assert all(p.applies(theorem.instance(parameters)) is None for p in others)


def test_paper_fidelity_reads_the_authors_simulation_size_and_quick_draws_as_before():
    from checkers.budget import FIDELITIES, Budget
    from checkers.equivalence.srf_constants import PAPER_SIZES, plan

    assert plan(Budget(FIDELITIES["quick"], 0)) == (SPIKED_SIZES, 32)
    assert plan(Budget(FIDELITIES["default"], 1)) == (SPIKED_SIZES, 91)
    assert plan(Budget(FIDELITIES["paper"], 1)) == (PAPER_SIZES, 64)
    assert PAPER_SIZES[-1] == 2000  # d = p in the authors' Simulations.ipynb
