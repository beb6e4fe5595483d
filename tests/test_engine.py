"""checkers.engine: a prediction's claim, measurement and comparison; the errors table; the power against mutants."""

import ast
import math
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest

from checkers import registry
from checkers.budget import FIDELITIES
from checkers.calibrate import _power_at_offset
from checkers.checker import Checker, Exact, Tightness, Unresolved
from checkers.engine import (
    Settled,
    Unmeetable,
    _power_on_same_draws,
    _tightness,
    power_at_shift,
    run_check,
    settle,
)
from checkers.outcome import INCONCLUSIVE, PASS, SKIPPED
from checkers.stats import Estimate, power_beyond
from theorems.errors import CheckError, DeclarationError, InvalidInput, NumericalError
from theorems.statement import Target


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
        assert _power_at_offset(result, name, 0.0, math.nan) == pytest.approx(result.power[name], rel=1e-12)


def test_a_mutant_whose_own_reading_is_unresolved_gets_no_power_and_the_statements_verdict_stands():
    """spike-outlier pools each version's observable (its control variate) over the same draws. At learning rate 16
    the threshold-exponent-half mutant's control variate leaves sizes that no exponent in [1/4, 1] fits: its reading
    is unresolved, so no power is claimed against it, and the statement's own pass stands (before, an internal
    error)."""
    verdict = run_check(registry.checker("spike-outlier"), {"learning_rate": "16"}, fidelity="quick")
    spike = next(p for p in verdict.predictions if p.name == "spike-overlap")
    assert verdict.outcome == PASS
    assert "threshold-exponent-half" not in spike.power and {"sides-swapped", "no-outlier"} <= set(spike.power)


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
    from checkers.engine import _described

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


@pytest.mark.parametrize(("phase", "error", "inside", "outside"), [
    ("claim", NumericalError("no route reaches 30 digits"), "inconclusive: prediction could not be computed",
     "not evaluated"),
    ("claim", ZeroDivisionError(), CheckError, "not evaluated"),
    ("claim", InvalidInput("E sigma^2 is not finite"), InvalidInput, "not evaluated"),
    ("claim", Unmeetable(0.0), CheckError, "not evaluated"),
    ("claim", RuntimeError("a statement's bug"), CheckError, CheckError),
    ("measure", NumericalError("the flow diverged"), "inconclusive: no observation",
     "inconclusive: no observation"),
    ("measure", Unresolved("no spike yet"), "inconclusive: not resolved at these sizes",
     "inconclusive: not resolved at these sizes"),
    ("measure", InvalidInput("a run of hours"), InvalidInput, "not evaluated"),
    ("measure", RuntimeError("ARPACK error -9"), CheckError, "breaks down"),
    ("measure", TypeError("a wrong program"), CheckError, CheckError),
    ("measure", DeclarationError("a misnamed constant"), CheckError, CheckError),
], ids=lambda value: type(value).__name__ if isinstance(value, Exception) else None)
def test_the_errors_table_gives_each_error_its_outcome_by_phase_inside_and_outside(phase, error, inside, outside):
    for where, expected in (("inside", inside), ("outside", outside)):
        settled = settle(error, phase, where == "outside", "a-theorem", "a-prediction")
        if isinstance(expected, type):
            assert isinstance(settled, expected) and (expected is CheckError or settled is error), where
        elif expected.startswith("inconclusive"):
            assert isinstance(settled, Settled) and settled.outcome == INCONCLUSIVE, where
            assert settled.message == f"{expected.split(': ', 1)[1]}: {error}"
        else:
            assert isinstance(settled, Settled) and settled.outcome == SKIPPED, where
            assert settled.message.startswith("not evaluated outside the assumptions: " + (
                "the simulation breaks down here (" if expected == "breaks down" else ""))


def test_a_bug_the_table_advises_on_carries_the_advice():
    settled = settle(Unmeetable(0.0), "claim", False, "a-theorem", "a-prediction")
    assert "its resolution is 0 here, which no number of samples can meet; a statement must give" in str(settled)


@pytest.mark.parametrize("miss", [-0.01, 0.0, 0.01])
def test_the_power_on_the_same_draws_is_the_same_whichever_way_the_draws_missed_a_point_claim(miss):
    """A version that reads the statement's own observable and claims 5% more: its power is the test's at 5%
    whichever way the draws missed the stated point. It was computed at 5% less twice a miss toward the version (and
    at 5% for a miss away), so calibrations killed such mutants more often than the powers reported said
    (spike-outlier's overlap 5% high at default: 20 of 20 against a predicted 0.60)."""
    reading = Estimate(1.0 + miss, 0.01, 99, 100)
    expected = power_at_shift(0.05, Estimate(1.0, 0.01, 99, 100), (1.05, 1.05), 1e-6)
    power = _power_on_same_draws(reading, reading, (1.05, 1.05), Target.point(1.0), 1e-6)
    assert power == pytest.approx(expected, rel=1e-12) and 0.05 < expected < 0.95


def test_the_power_at_an_offset_toward_a_mutant_is_the_power_at_a_nearer_shift():
    """check and calibrate compute a power through one function: an offset of the reading's mean toward the
    mutant's side is the same as a mutant that much nearer, and one away from it the same as one farther."""
    reading = Estimate(0.0, 0.01, 40, 41)
    interval, rate = (-0.02, 0.02), 1e-6
    nearer, farther = power_at_shift(0.04, reading, interval, rate), power_at_shift(-0.06, reading, interval, rate)
    assert power_at_shift(0.05, reading, interval, rate, offset=0.01) == pytest.approx(nearer, rel=1e-12)
    assert power_at_shift(-0.05, reading, interval, rate, offset=0.01) == pytest.approx(farther, rel=1e-12)
    assert nearer < power_at_shift(0.05, reading, interval, rate) < farther
    assert power_at_shift(0.05, reading, interval, rate) == power_beyond(0.05, reading, *interval, rate)


def _engine_graph() -> dict[str, set[str]]:
    """The project's checkers modules and the checkers modules each imports, lazily or not (from its source)."""
    root = Path(__file__).resolve().parent.parent
    modules = {}
    for path in (root / "checkers").rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base])
                found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                             for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {module for module in found if module in modules and module != name}
    return graph


def test_no_module_of_checkers_imports_itself_through_another():
    graph = _engine_graph()
    assert {"checkers.registry", "checkers.checker"} <= graph["checkers.offers"]
    assert "checkers.checker" in graph["checkers.registry"]

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(module == goal or (module not in seen and not seen.add(module) and reaches(module, goal, seen))
                   for module in graph[start])
    circles = [module for module in graph if reaches(module, module, set())]
    assert circles == []


def test_the_engine_reads_straight():
    """Every function of the engine at McCabe complexity 12 or less (the linter holds the rest to 15)."""
    engine = Path(__file__).resolve().parent.parent / "checkers" / "engine.py"
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "C901", "--config",
                             "lint.mccabe.max-complexity = 12", "--output-format", "concise", str(engine)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
