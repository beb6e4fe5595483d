"""A sweep's verdict: seeds pooled in the fewest per group that resolve the claim, seed by seed where they cannot."""

import math

import numpy as np
import pytest

from checkers.outcome import ERROR, FAIL, INCONCLUSIVE, OUTSIDE, PASS, SKIPPED
from checkers.pooling import (
    group_size,
    groups_of,
    how_read,
    pool_point,
    pool_points,
    pool_prediction,
    pooled_estimate,
    sweep_outcome,
)
from checkers.stats import Estimate, compare_to_target
from checkers.verdict import PredictionResult, Verdict

RATE = 1e-7  # one stage's false-fail rate


def _result(observed, standard_error=0.01, *, samples=100, dof=99.0, systematic=0.0, outcome=INCONCLUSIVE,
            resolution=0.06, interval=(1.0, 1.0), **fields) -> PredictionResult:
    return PredictionResult(name="p", kind="limit", statement="s", outcome=outcome, predicted=interval[0],
                            predicted_interval=interval, observed=observed, standard_error=standard_error,
                            systematic=systematic, degrees_of_freedom=dof, samples=samples, resolution=resolution,
                            false_fail_rate=2 * RATE, stage_false_fail_rate=RATE, pools=True, **fields)


def _verdict(seed, *predictions, outcome=INCONCLUSIVE, **fields) -> Verdict:
    return Verdict(**{"theorem": "t", "title": "t", "provenance": "derived", "outcome": outcome,
                      "predictions": predictions, "parameters": {"x": "1"}, "seed": seed, **fields})


def test_the_pooled_estimate_is_the_samples_weighted_mean_with_welch_satterthwaite_freedom():
    results = [_result(1.0, 0.3, samples=100, dof=9.0, systematic=0.01),
               _result(2.0, 0.4, samples=300, dof=19.0, systematic=0.03)]
    estimate = pooled_estimate(results)
    shares = [(0.25 * 0.3) ** 2, (0.75 * 0.4) ** 2]
    assert estimate.value == pytest.approx(0.25 * 1.0 + 0.75 * 2.0)
    assert estimate.standard_error == pytest.approx(math.sqrt(sum(shares)))
    assert estimate.degrees_of_freedom == pytest.approx(sum(shares) ** 2 / (shares[0] ** 2 / 9 + shares[1] ** 2 / 19))
    assert estimate.systematic == pytest.approx(0.25 * 0.01 + 0.75 * 0.03)  # a shared bias does not average away
    assert estimate.samples == 400


def test_seeds_each_just_short_of_the_resolution_are_decided_in_pairs():
    # one seed: detectable about 0.062 against 0.06 (the case); two pooled: about 0.044
    alone = compare_to_target(Estimate(1.0, 0.0114, 99.0, 100), 1.0, 1.0, false_fail_rate=RATE, resolution=0.06)
    assert alone.outcome == INCONCLUSIVE
    results = [_result(1.0 + offset, 0.0114) for offset in (0.004, -0.01, 0.002, 0.006, -0.003)]
    pooled = pool_prediction("p", results)
    assert pooled.outcome == PASS and pooled.group_size == 2 and [g.seeds for g in pooled.groups] == [2, 3]
    assert pooled.per_seed == {INCONCLUSIVE: 5}
    assert "groups of 2" in pooled.describe()


def test_the_group_size_is_read_from_the_standard_errors_never_from_the_values():
    errors = [0.0114, 0.012, 0.011, 0.0118, 0.0116, 0.0113]
    first = [_result(1.0 + 0.001 * i, e) for i, e in enumerate(errors)]
    second = [_result(1.0 - 0.02 * (-1) ** i, e) for i, e in enumerate(errors)]
    assert group_size(first) == group_size(second) == 2


def test_a_bias_below_one_runs_precision_is_not_sharpened_into_a_failure():
    # twenty seeds of a true statement read 0.25 resolutions off (a finite-size bias no single run sees): all twenty
    # pooled would reject it; the groups the claim needs do not
    results = [_result(1.015, 0.0114) for _ in range(20)]
    everything = compare_to_target(pooled_estimate(results), 1.0, 1.0, false_fail_rate=RATE, resolution=0.06)
    assert everything.outcome == FAIL
    assert pool_prediction("p", results).outcome == PASS


def test_a_group_that_fails_fails_the_point_and_none_resolving_is_inconclusive():
    failing = [_result(1.0, 0.0114), _result(1.0, 0.0114), _result(1.2, 0.0114), _result(1.2, 0.0114)]
    assert pool_prediction("p", failing).outcome == FAIL
    vague = [_result(1.0, 0.5, resolution=0.06) for _ in range(3)]
    pooled = pool_prediction("p", vague)
    assert pooled.outcome == INCONCLUSIVE and pooled.group_size == 3  # no size resolves it: one group of all


@pytest.mark.parametrize("change, why", [
    ({"pools": False}, "claimed at every size"),
    ({"pools": None}, "stored before"),
    ({"strict": True, "predicted_interval": (0.0, math.inf)}, "strict inequality"),
    ({"standard_error": None, "tolerance": 1e-12}, "exact"),
    ({"resolution": 0.05}, "differ"),
])
def test_readings_that_seeds_do_not_average_are_read_seed_by_seed_and_say_why(change, why):
    results = [_result(1.0, 0.0114, outcome=PASS),
               PredictionResult(**{**_result(1.0, 0.0114).__dict__, **change})]
    pooled = pool_prediction("p", results)
    assert pooled.outcome == INCONCLUSIVE and not pooled.groups  # the worst seed
    assert why in pooled.why_not_pooled and why in pooled.describe()


def test_a_point_reads_its_seeds_in_seed_order_whatever_order_they_finished_in():
    verdicts = [_verdict(seed, _result(1.0 + 0.003 * seed, 0.0114)) for seed in (5, 1, 4, 2)]
    forward = pool_point(verdicts)
    backward = pool_point(verdicts[::-1])
    assert forward == backward and forward.outcome == PASS and forward.pooled
    values = [group.estimate.value for group in forward.predictions[0].groups]
    assert values == pytest.approx([1.0045, 1.0135])  # seeds 1 and 2, then 4 and 5


def test_outside_the_assumptions_an_error_and_nothing_applied_stand_as_they_are():
    assert pool_point([_verdict(0, outcome=ERROR, error="bug"), _verdict(1, _result(1.0))]).outcome == ERROR
    assert pool_point([_verdict(s, _result(1.0), outcome=OUTSIDE) for s in (0, 1)]).outcome == OUTSIDE
    skipped = PredictionResult(name="p", kind="limit", statement="s", outcome=SKIPPED)
    nothing = pool_point([_verdict(s, skipped) for s in (0, 1)])
    assert nothing.outcome == SKIPPED
    assert sweep_outcome([nothing]) == SKIPPED
    assert sweep_outcome([nothing, pool_point([_verdict(s, _result(1.0, 0.0114)) for s in (0, 1)])]) == PASS


def test_points_are_apart_by_parameters_and_version_and_the_words_say_how_they_were_read():
    pair = [_verdict(s, _result(1.0, 0.0114)) for s in (0, 1)]
    other = [_verdict(s, _result(1.0, 0.005, outcome=PASS), parameters={"x": "2"}) for s in (0, 1)]
    mutant = [_verdict(s, _result(1.0, 0.0114), mutant="m") for s in (0, 1)]
    points = pool_points(pair + other + mutant)
    assert [p.seeds for p in points] == [2, 2, 2]
    assert how_read(points[:1]) == "seeds pooled"
    assert how_read(points[:2]) == "seeds pooled at 1 of 2 points, read seed by seed at the others"
    assert how_read(points[1:2]) == "no reading needed or allowed pooling: read seed by seed"
    assert how_read(pool_points(pair[:1])) == "one seed per point"


def test_groups_take_the_remainder_into_the_last():
    assert groups_of(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5, 6]]
    assert groups_of(list(range(2)), 3) == [[0, 1]]


def _sweep_outcomes(truth: float, runs: int, seed: int, *, rate: float, error: float, seeds: int = 5) -> list:
    """Outcomes of `runs` synthetic points whose `seeds` readings are exact Gaussians about `truth`, each seed's
    standard error `error` +- 5%, compared at one stage's `rate`."""
    generator = np.random.default_rng(seed)
    outcomes = []
    for _ in range(runs):
        errors = error * generator.uniform(0.95, 1.05, seeds)
        results = [_result(1.0 + truth + e * generator.standard_normal(), e, dof=math.inf) for e in errors]
        results = [PredictionResult(**{**r.__dict__, "stage_false_fail_rate": rate}) for r in results]
        pooled = pool_prediction("p", results)
        assert pooled.group_size == 2  # one seed falls short of the resolution 0.06, two resolve it
        outcomes.append(pooled.outcome)
    return outcomes


def test_pooled_groups_keep_their_false_fail_rate_and_reject_an_error_of_one_resolution():
    """Over many synthetic points of five seeds, pooled in two groups: a true claim fails at most at two times one
    stage's rate (measured at a rate of 0.01, where it can be counted), and a claim one resolution off is rejected at
    least 90% of the time, the power each resolved group has (at the checks' own rate of 1e-7)."""
    runs = 800
    true_fails = _sweep_outcomes(0.0, runs, 1, rate=0.01, error=0.018).count(FAIL) / runs
    assert true_fails <= 0.02 + 3 * math.sqrt(0.02 * 0.98 / runs)
    rejected = _sweep_outcomes(0.06, runs, 2, rate=1e-7, error=0.0114).count(FAIL) / runs
    assert rejected >= 0.9 - 3 * math.sqrt(0.09 / runs)
