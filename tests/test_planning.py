"""checkers.planning: which stage a prediction reads next, and that a stage left undrawn could not have passed it."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkers import registry
from checkers.budget import DEFAULT_FALSE_FAIL_RATE, FIDELITIES
from checkers.checker import Checker
from checkers.cost import Cost
from checkers.engine import run_check
from checkers.outcome import PASS
from checkers.planning import Plan, plan_next, standard_error_floor
from checkers.stats import Estimate, compare_to_target, detectable_discrepancy, split_false_fail_rate

RATE = 1e-7  # what one stage's test spends: 1e-6 split over a few predictions and stages


def _plan(estimate, *, stage=0, work=(1.0, 2.0, 4.0), stages=None, lower=0.0, upper=0.0, resolution=0.01,
          strict=False):
    return plan_next(estimate, lower, upper, strict=strict, false_fail_rate=RATE, resolution=resolution, stage=stage,
                     stages=stages or len(work), stage_work=work)


def test_a_reading_whose_last_stage_could_not_detect_the_resolution_stops_there_and_says_so():
    """A standard error of 0.01 on 50 degrees of freedom at the first of three stages (work 1, 2, 4) is at least
    0.0037 at the last (0.005 scaled, at the low end of its interval), whose test then detects no less than 0.025:
    2.5 resolutions. The reading sits on the claim, so no failure is in reach either."""
    plan = _plan(Estimate(0.0, 0.01, 50, 51))
    assert plan.next_stage is None
    assert plan.note.startswith("stages 2-3 not drawn") and "against the resolution 0.01" in plan.note
    assert plan.note.endswith("the resolution needs about 44 times this stage's work")  # (0.066 / 0.01)^2


def test_a_reading_far_from_its_claim_goes_on_even_where_no_stage_could_pass_it():
    """The same standard error (critical value 5.33), but the reading off a point claim: 0.04 off, the next stage
    (standard error 0.007) is expected to reject it; 0.02 off, only the last (0.005) is, and the next is skipped."""
    assert _plan(Estimate(0.04, 0.01, 50, 51)) == Plan(1)
    plan = _plan(Estimate(0.02, 0.01, 50, 51))
    assert plan.next_stage == 2 and plan.note.startswith("stage 2 skipped: expected to decide it only at stage 3")


def test_a_stage_that_could_not_decide_is_skipped_for_the_first_that_is_expected_to():
    """Work 1, 2, 32: a standard error of 0.001 scaled to the second stage (0.0007) detects about 0.0046, above the
    resolution 0.003; at the third (0.00018) it detects 0.0011."""
    plan = _plan(Estimate(0.0, 0.001, 50, 51), work=(1.0, 2.0, 32.0), resolution=0.003)
    assert plan.next_stage == 2 and plan.note.startswith("stage 2 skipped: expected to decide it only at stage 3")


def test_without_declared_work_or_at_the_last_stage_the_design_is_the_fixed_one():
    wide = Estimate(0.0, 0.01, 50, 51)
    assert _plan(wide, work=(), stages=3) == Plan(1)
    assert _plan(wide, stage=2) == Plan(None)


def test_a_strict_inequality_goes_on_while_its_margin_could_clear_the_last_stages_critical_value():
    """A margin of 0.03 +- 0.01, plus one of its standard errors, clears 5.33 of the next stage's (0.038); 0.01 +-
    0.01 is expected to clear none, but might the last stage's least (about 0.0037, 0.02), which is read next; a
    margin of -0.002 +- 0.01 could neither clear it nor, below the bound by 0.012 at most, fail it there."""
    assert _plan(Estimate(0.03, 0.01, 50, 51), lower=0.0, upper=math.inf, strict=True) == Plan(1)
    plan = _plan(Estimate(0.01, 0.01, 50, 51), lower=0.0, upper=math.inf, strict=True)
    assert plan.next_stage == 2 and "only the last stage might decide it" in plan.note
    assert _plan(Estimate(-0.002, 0.01, 50, 51), lower=0.0, upper=math.inf, strict=True).next_stage is None


def test_a_part_in_reach_of_failing_keeps_an_estimate_at_every_size_going():
    near = Estimate(0.0, 0.01, 50, 51)
    far = Estimate(0.03, 0.01, 50, 51)
    assert _plan(Estimate(0.0, 0.01, 50, 51, parts=(near, far))) == Plan(1)
    assert _plan(Estimate(0.0, 0.01, 50, 51, parts=(near, near))).next_stage is None


def test_a_standard_errors_floor_is_its_lower_confidence_end_over_the_root_of_the_work():
    estimate = Estimate(0.0, 0.01, 9, 10)
    assert standard_error_floor(estimate, 4.0, lower_end=False) == pytest.approx(0.005)
    assert 0.5 * 0.005 < standard_error_floor(estimate, 4.0) < 0.7 * 0.005  # chi-square(9) at 0.05%: 27.9
    assert standard_error_floor(Estimate(0.0, 0.01, math.inf, 10), 4.0) == pytest.approx(0.005)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(value=st.floats(-0.05, 0.05), error=st.floats(1e-4, 0.05), degrees=st.floats(2, 1000),
       ratio=st.floats(1.0, 64.0), resolution=st.floats(1e-3, 0.05), width=st.floats(0, 0.01),
       later_value=st.floats(-0.1, 0.1), later_degrees=st.floats(2, math.inf), later_systematic=st.floats(0, 0.01),
       inflation=st.floats(1.0, 10.0))
def test_a_stage_left_undrawn_could_not_have_passed_at_any_reading_its_floor_allows(
        value, error, degrees, ratio, resolution, width, later_value, later_degrees, later_systematic, inflation):
    """Where the plan stops, the last stage, whatever it reads, at any standard error from the floor up and any
    systematic bound, is not a pass: the stop takes away no pass."""
    work = (1.0, ratio)
    plan = _plan(Estimate(value, error, degrees, 10), work=work, lower=-width / 2, upper=width / 2,
                 resolution=resolution)
    if plan.next_stage is not None:
        return
    floor = standard_error_floor(Estimate(value, error, degrees, 10), ratio)
    later = Estimate(later_value, floor * inflation, later_degrees, 10, systematic=later_systematic)
    assert compare_to_target(later, -width / 2, width / 2, false_fail_rate=RATE, resolution=resolution).outcome \
        != PASS


def _planned_checker(reads: list):
    """dual-kernel's statement, its Monte Carlo prediction read by a stand-in on the target's middle whose standard
    error shrinks as 1/sqrt(work), the work of the three default stages being 1, 2 and 32: four times what would
    just resolve at the first, so that the second is expected to fall short and the third to resolve. Each call is
    recorded as its stage."""
    plain = registry.checker("dual-kernel")
    theorem = plain.theorem
    prediction = next(p for p in theorem.predictions if p.name == "monte-carlo")
    stages = FIDELITIES["default"].stages
    rate = split_false_fail_rate(DEFAULT_FALSE_FAIL_RATE, stages * sum(p.kind != "exact" for p in
                                                                        theorem.predictions))
    work = (1.0, 2.0, 32.0)

    def read(instance, budget, seed):
        reads.append(budget.stage)
        target = prediction.predict(instance)
        width = float(target.upper - target.lower)
        just = (prediction.resolution(instance) - width) / detectable_discrepancy(1.0, math.inf, rate)
        return Estimate(float(target.lower + target.upper) / 2, 4 * just / math.sqrt(work[budget.stage]), 200, 201)

    def cost(instance, fidelity):
        return Cost(sum(work), 1.0, "stand-in", work[0], work)
    return Checker(theorem=theorem, simulation="stand-in", readers={**plain.readers, "monte-carlo": read}, cost=cost)


def test_the_engine_reads_the_stage_its_plan_names_and_reports_the_skip():
    reads = []
    verdict = run_check(_planned_checker(reads), {"activation": "tanh", "rho": "0.7"}, fidelity="default")
    result = next(p for p in verdict.predictions if p.name == "monte-carlo")
    assert reads == [0, 2]
    assert result.outcome == PASS and result.stages == 3 and "stage 2 skipped" in result.message


def _shared_checker(calls: list, *, far_first: bool):
    """mixture-equivalence's statement (four predictions with target 0) read by stand-ins that share their draws, at
    work 1, 2 and 4: the first reads 4 +- 1 at stage 1 (its standard error shrinking with the work, so that it fails
    only at the third) where `far_first`, else 0 +- 1 like the second, which no stage resolves; the others resolve at
    once. Each call is recorded as (prediction, stage)."""
    theorem = registry.checker("mixture-equivalence").theorem
    names = [prediction.name for prediction in theorem.predictions]
    work = (1.0, 2.0, 4.0)

    def reader(name):
        def read(instance, budget, seed):
            calls.append((name, budget.stage))
            error = 1.0 / math.sqrt(work[budget.stage])
            if name == names[0]:
                return Estimate(4.0 if far_first else 0.0, error, 50, 51)
            return Estimate(0.0, error, 50, 51) if name == names[1] else Estimate(0.0, 0.001, 50, 51)
        return read
    return Checker(theorem=theorem, simulation="stand-ins", shared_draws=True,
                   simulation_constants=registry.checker("mixture-equivalence").simulation_constants,
                   readers={name: reader(name) for name in names},
                   cost=lambda instance, fidelity: Cost(sum(work), 1.0, "stand-in", work[0], work)), names


def test_a_stage_another_prediction_has_drawn_is_read_where_the_plan_would_stop():
    """Shared draws are free once drawn: the second prediction, which alone would stop after its first stage, reads
    the two stages the first drew on its way to a failure."""
    calls = []
    checker, names = _shared_checker(calls, far_first=True)
    verdict = run_check(checker, fidelity="default")
    assert [p.outcome for p in verdict.predictions] == ["fail", "inconclusive", "pass", "pass"]
    assert calls[:6] == [(names[0], 0), (names[0], 1), (names[0], 2), (names[1], 0), (names[1], 1), (names[1], 2)]
    assert "not drawn" not in verdict.predictions[1].message
    calls.clear()
    checker, names = _shared_checker(calls, far_first=False)
    verdict = run_check(checker, fidelity="default")
    assert calls[:2] == [(names[0], 0), (names[1], 0)]
    assert all("stages 2-3 not drawn" in p.message for p in verdict.predictions[:2])
