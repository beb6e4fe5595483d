"""checkers.check: the tightness measures an inequality's observation carries, and the power it claims against
mutants."""

import math

import mpmath
import pytest

from checkers import registry
from checkers.calibrate import _power_at_offset
from checkers.check import FIDELITIES, Budget, Checker, Exact, Tightness, _tightness, run_check
from checkers.stats import Estimate
from theorems.errors import CheckError, DeclarationError, NumericalError


def test_a_non_finite_ratio_is_not_recorded():
    observation = Exact(mpmath.mpf(-1), 0.0, tightness=Tightness(math.inf, "t = 0"))
    assert _tightness(observation) is None
    recorded = _tightness(Exact(mpmath.mpf(0), 0.0, tightness=Tightness(0.5, "step 3", 1.0, "a construction")))
    assert recorded == {"best_ratio": 0.5, "witness": "step 3", "attainable": 1.0, "construction": "a construction"}


def test_no_power_is_claimed_against_a_mutant_that_changes_a_constant_the_simulation_reads():
    """dual-kernel's Monte Carlo draws nothing from c1; declared as if it did, the mutant c1-nudged would change
    what is observed as well as what is predicted, so the truth's run cannot say how often it would be rejected."""
    plain = registry.checker("dual-kernel")
    reading = Checker(theorem=plain.theorem, simulation=plain.simulation, readers=plain.readers,
                      simulation_constants={"monte-carlo": ("c1",)})
    parameters = {"activation": "tanh", "rho": "0.7"}
    before, after = (next(p for p in run_check(checker, parameters, fidelity="quick").predictions
                          if p.name == "monte-carlo") for checker in (plain, reading))
    assert "c1-nudged" in before.power and "c1-nudged" not in after.power
    assert set(after.power) == set(before.power) - {"c1-nudged"}
    declared = registry.checker("giant-step-risk")  # its constants are declared up front, so a misspelling shows
    with pytest.raises(DeclarationError, match="no-such-constant"):
        Checker(theorem=declared.theorem, simulation="", readers=declared.readers,
                simulation_constants={"srf-test-error": ("no-such-constant",)})
    with pytest.raises(DeclarationError, match="no-such-prediction"):
        Checker(theorem=declared.theorem, simulation="", readers=declared.readers,
                simulation_constants={"no-such-prediction": ("r",)})


def test_a_power_from_a_mutants_target_carries_the_signed_shift_it_was_computed_from():
    """dual-kernel's Monte Carlo reading claims power against each mutant from the mutant's target alone; the run
    keeps how far that target lies beyond the tested interval (+ above, - below), from which calibrate recomputes the
    power at the readings' measured offset: at no offset, the power the run reported."""
    parameters = {"activation": "tanh", "rho": "0.7"}
    checker = registry.checker("dual-kernel")
    result = next(p for p in run_check(checker, parameters, fidelity="quick").predictions if p.name == "monte-carlo")
    rows = checker.theorem.claims(parameters).claim_mutants()
    lower, upper = result.predicted_interval
    assert result.power and set(result.mutant_shifts) == set(result.power)
    for name, shift in result.mutant_shifts.items():
        target = rows[name].target("monte-carlo")
        assert shift == (float(target.lower) - upper if shift > 0 else float(target.upper) - lower)
        assert _power_at_offset(result.to_dict(), name, 0.0, math.nan) == pytest.approx(result.power[name], rel=1e-12)


def test_a_prediction_may_resolve_below_its_check_and_only_below():
    """giant-step-risk's network readings resolve at default fidelity, its sRF's only at paper; a prediction's own
    fidelity must name one of its predictions and lie no higher than the check's."""
    giant = registry.checker("giant-step-risk")
    resolved = {p.name: giant.resolved_at(p) for p in giant.theorem.predictions}
    assert resolved["srf-test-error"] == "paper" and resolved["realized-test-error"] == "default"
    for wrong in ({"no-such-prediction": "default"}, {"test-error": "nowhere"}):
        with pytest.raises(DeclarationError, match="prediction_resolves_at"):
            Checker(theorem=giant.theorem, simulation="", readers=giant.readers, resolves_at="paper",
                    prediction_resolves_at=wrong)
    with pytest.raises(DeclarationError, match="no higher than resolves_at"):
        Checker(theorem=giant.theorem, simulation="", readers=giant.readers, resolves_at="default",
                prediction_resolves_at={"test-error": "high"})


class _Version:
    """A stand-in instance whose constant `c1` raises the given error."""

    def __init__(self, error: Exception):
        self.error = error

    def constant(self, name):
        raise self.error


def test_a_constant_out_of_numeric_reach_counts_as_changed_and_any_other_error_propagates():
    plain = registry.checker("dual-kernel")
    reading = Checker(theorem=plain.theorem, simulation=plain.simulation, readers=plain.readers,
                      simulation_constants={"monte-carlo": ("c1",)})
    truth = plain.theorem.instance({"activation": "tanh", "rho": "0.7"})
    out_of_reach = _Version(NumericalError("quadrature did not converge"))
    assert reading.simulations_changed(truth, out_of_reach) == ["monte-carlo"]
    with pytest.raises(ZeroDivisionError):  # a bug, not an undefined value: exit 4, never a withheld claim
        reading.simulations_changed(truth, _Version(ZeroDivisionError("division by zero")))


@pytest.mark.parametrize("per_level", [math.sqrt(2), 2 ** (1 / 3)])
def test_a_scaled_budget_grows_at_every_stage_of_every_fidelity(per_level):
    """Each sequential stage must draw more than the one before it (a repeat is a second roll, not more power);
    2^(level // 2), which this replaces, repeats quick's two stages and default's first two."""
    for fidelity in FIDELITIES.values():
        budgets = [Budget(fidelity, stage).scaled(16, per_level) for stage in range(fidelity.stages)]
        assert all(later > earlier for earlier, later in zip(budgets, budgets[1:])), (fidelity.name, budgets)
    assert Budget(FIDELITIES["default"], 0).scaled(32, math.sqrt(2)) == 64
    assert Budget(FIDELITIES["quick"], 0).scaled(32, math.sqrt(2)) == 32


def test_a_budget_that_does_not_grow_is_refused():
    with pytest.raises(ValueError, match="must grow"):
        Budget(FIDELITIES["quick"], 1).scaled(16, 1.0)


def test_a_budget_doubled_per_stage_starts_each_fidelity_at_sqrt_2_per_level_and_doubles_at_each_stage():
    expected = {"quick": [1, 2], "default": [2, 4, 8], "high": [4, 8, 16, 32]}
    for name, factors in expected.items():
        fidelity = FIDELITIES[name]
        assert [Budget(fidelity, stage).doubled_per_stage(16) for stage in range(fidelity.stages)] == \
            [16 * factor for factor in factors]


@pytest.mark.parametrize("observation", [Exact(mpmath.mpf("nan"), 1e-9, "an mpf NaN"),
                                         Exact(float("nan"), 1e-9, "a float NaN"),
                                         Estimate(0.5, float("nan"), 10, 11)])
def test_a_nan_observation_is_a_bug_never_a_pass(observation):
    """NaN compares false with every bound, so a NaN margin once passed (directional-dynamics at log epsilon =
    -1e6, where epsilon^2 underflowed). A reader whose arithmetic breaks down raises NumericalError with the
    reason; a NaN that reaches the verdict is an internal error (exit 4)."""
    plain = registry.checker("dual-kernel")
    broken = Checker(theorem=plain.theorem, simulation=plain.simulation,
                     readers={**plain.readers, "monte-carlo": lambda instance, budget, seed: observation})
    with pytest.raises(CheckError, match="returned NaN"):
        run_check(broken, {"activation": "tanh", "rho": "0.7"}, fidelity="quick")



@pytest.mark.parametrize("breakdown", [lambda: RuntimeError("ARPACK error -9: Starting vector is zero."),
                                       lambda: ValueError("extrapolation needs finite values"),
                                       lambda: Estimate(0.5, float("nan"), 10, 11)], ids=("arpack", "value", "nan"))
def test_a_simulation_that_breaks_down_outside_the_assumptions_is_not_evaluated_and_inside_is_a_bug(breakdown):
    """A constant activation (outside spike-count's c_1 != 0) steps by exactly 0: ARPACK had no starting vector, an
    extrapolation's draws all had one value, and the check ended in an internal error (exit 4) on the user's input.
    Outside the assumptions the prediction is not evaluated, with the error; inside them the same error is a bug."""
    def read(instance, budget, seed, *observable):
        result = breakdown()
        if isinstance(result, Exception):
            raise result
        return result

    plain = registry.checker("spike-decomposition")
    broken = Checker(theorem=plain.theorem, simulation=plain.simulation,
                     readers={name: read for name in plain.readers})
    verdict = run_check(broken, {"activation": "softplus"}, fidelity="quick")  # not centred: outside
    assert verdict.outcome == "outside assumptions"
    assert all(p.message.startswith("not evaluated outside the assumptions: the simulation breaks down here (")
               for p in verdict.predictions)
    with pytest.raises(CheckError, match="residual-rate: (RuntimeError|ValueError)"):
        run_check(broken, {}, fidelity="quick")
    wrong = Checker(theorem=plain.theorem, simulation=plain.simulation,  # a wrong program is a bug anywhere
                    readers={name: lambda instance, budget, seed: None for name in plain.readers})
    with pytest.raises(CheckError, match="TypeError"):
        run_check(wrong, {"activation": "softplus"}, fidelity="quick")

def test_a_resolution_that_vanishes_inside_the_assumptions_is_a_bug_never_inconclusive():
    """A resolution relative to a constant that is 0 at the point (3% of srf-constants' spike r at eta = 0, as it
    was) can never be met: the check said "inconclusive, rerun at default fidelity", which no fidelity resolves.
    Inside the assumptions that is an internal error of the statement, naming the prediction (exit 4)."""
    import dataclasses

    plain = registry.checker("dual-kernel")
    predictions = tuple(dataclasses.replace(p, resolution=lambda instance: 0.0) if p.name == "monte-carlo" else p
                        for p in plain.theorem.predictions)
    broken = Checker(theorem=dataclasses.replace(plain.theorem, predictions=predictions),
                     simulation=plain.simulation, readers=plain.readers)
    with pytest.raises(CheckError, match="monte-carlo: ValueError: its resolution is 0 here"):
        run_check(broken, {"activation": "tanh", "rho": "0.7"}, fidelity="quick")
    # a mutant or an override that zeroes a constant is a claim under test (spike-count's no-second-spike gives its
    # amplitude a resolution of 0): it is checked as before, and may still be rejected
    for keywords in ({"mutant": "c1-nudged"}, {"overrides": {"c1": "0"}}):
        verdict = run_check(broken, {"activation": "tanh", "rho": "0.7"}, fidelity="quick", **keywords)
        assert next(p for p in verdict.predictions if p.name == "monte-carlo").resolution == 0


def test_an_error_without_a_message_outside_the_assumptions_still_says_what_it_was():
    """spike-outlier with He_3 (outside its assumptions: sigma' unbounded) divides by mu1 = 0 in its predictions;
    mpmath's ZeroDivisionError has no message, and the skip read "not evaluated outside the assumptions: " and
    nothing more."""
    from checkers.check import _described

    assert _described(ZeroDivisionError()) == "the statement divides by a quantity that is 0 here"
    assert _described(ZeroDivisionError("mu1 = 0")) == "mu1 = 0"
    assert _described(OverflowError()) == "OverflowError"


def _staged_checker(calls: list):
    """mixture-equivalence's statement (four predictions with target 0) read by stand-ins that share their draws:
    the first prediction is unresolved at every stage (a wide estimate), the third is 1 off its target at every
    stage (a failure); each call is recorded as (prediction, stage)."""
    plain = registry.checker("mixture-equivalence")
    theorem = plain.theorem

    def reader(name):
        def read(instance, budget, seed):
            calls.append((name, budget.stage))
            value, error = (0.0, 1.0) if name == theorem.predictions[0].name else (
                (1.0, 0.01) if name == theorem.predictions[2].name else (0.0, 0.001))
            return Estimate(value, error, 50, 51)
        return read
    return Checker(theorem=theorem, simulation="stand-ins", shared_draws=True,
                   simulation_constants=plain.simulation_constants,
                   readers={prediction.name: reader(prediction.name) for prediction in theorem.predictions})


def test_a_run_for_its_outcome_alone_stops_at_a_first_stage_failure_with_the_full_runs_outcome():
    full_calls, short_calls = [], []
    full = run_check(_staged_checker(full_calls), fidelity="default")
    short = run_check(_staged_checker(short_calls), fidelity="default", outcome_only=True)
    assert full.outcome == short.outcome == "fail"
    names = [prediction.name for prediction in registry.checker("mixture-equivalence").theorem.predictions]
    stages = FIDELITIES["default"].stages
    assert full_calls == [(names[0], stage) for stage in range(stages)] + [(name, 0) for name in names[1:]]
    assert short_calls == [(name, 0) for name in names]
    assert [p.outcome for p in short.predictions] == ["inconclusive", "pass", "fail", "pass"]


@pytest.mark.parametrize("nested", [False, True])
def test_nested_stages_read_one_seed_so_each_stage_extends_the_last(nested):
    """With `nested_stages` every stage's reader gets the first stage's seed: the first k children it spawns are the
    previous stage's draws. Without, each stage draws afresh from its own."""
    plain = registry.checker("dual-kernel")
    seeds = []

    def read(instance, budget, seed):
        seeds.append((seed.spawn_key, [child.spawn_key for child in seed.spawn(2 ** budget.stage)]))
        return Estimate(0.0, 1.0, 50, 51)  # never resolved: every stage is read
    checker = Checker(theorem=plain.theorem, simulation="stand-in", nested_stages=nested,
                      readers={**plain.readers, "monte-carlo": read})
    run_check(checker, {"activation": "tanh", "rho": "0.7"}, fidelity="default")
    assert len(seeds) == FIDELITIES["default"].stages
    assert (len({key for key, _ in seeds}) == 1) == nested
    assert all((later[:len(earlier)] == earlier) == nested for (_, earlier), (_, later) in zip(seeds, seeds[1:]))
