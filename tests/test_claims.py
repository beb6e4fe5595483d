"""The claims table of theorems/claims.py: a prediction that owns its observable is moved by a mutant of its formula,
on the statement's reference measurements, before any draw; and a check applies each version's observable."""

import dataclasses

import mpmath
import numpy as np
import pytest

from checkers.checker import Checker, Exact, Measured
from checkers.engine import run_check
from theorems.errors import CheckError, DeclarationError
from theorems.statement import Constant, Mutant, Prediction, ResolutionReason, Target, Theorem


def _ratio(instance, measured):
    return measured["side"] / (instance.constant("scale") * instance.definition("area")(measured["base"]))


def _theorem(references=lambda instance: {"unit square": {"side": 1, "base": 1}}, **changes) -> Theorem:
    prediction = Prediction(name="ratio", kind="identity", statement="side = scale area(base)",
                            predict=lambda instance: Target.point(1), observable=_ratio, references=references,
                            resolution=lambda instance: 1e-9,
                            resolution_reason=ResolutionReason("numerical-accuracy", "float64 arithmetic on a "
                                                               "handful of numbers"))
    return Theorem(id="toy-ratio", title="a toy ratio", source="this test", provenance="derived",
                   statement="side = area(base)", parameters=(), assumptions=(),
                   constants=(Constant.exactly("scale", 1),), predictions=(prediction,),
                   definitions={"area": lambda base: base**2},
                   mutants=(Mutant(name="scale-up", description="the scale 1% high",
                                   constant_factors={"scale": 1.01}),
                            Mutant(name="linear-area", description="area(base) = base",
                                   definitions={"area": lambda base: base})), **changes)


def test_a_mutant_of_the_formula_moves_the_prediction_on_its_references():
    claims = _theorem().claims()
    assert claims.moves("scale-up")["ratio"] == pytest.approx((1 - 1 / 1.01) / 1e-9, rel=1e-9)
    # the unit square cannot tell base from base^2: without another reference the mutant moves nothing
    assert claims.moves("linear-area") == {}
    wider = _theorem(references=lambda instance: {"unit": {"side": 1, "base": 1}, "double": {"side": 4, "base": 2}})
    assert wider.claims().moves("linear-area")["ratio"] == pytest.approx(1 / 1e-9)


def test_references_need_an_observable():
    with pytest.raises(DeclarationError, match="references are measurements for an observable"):
        Prediction(name="p", kind="identity", statement="s", predict=lambda instance: Target.point(1),
                   resolution=lambda instance: 1, references=lambda instance: {})


def test_a_check_applies_each_versions_observable_and_judges_mutants_on_its_witnesses():
    measured = {"side": mpmath.mpf(9), "base": mpmath.mpf(3)}
    checker = Checker(theorem=_theorem(), simulation="a square measured",
                      readers={"ratio": lambda instance, budget, seed, observable: Measured(measured, 1e-12, "read")})
    stated = run_check(checker, fidelity="quick").predictions[0]
    assert stated.outcome == "pass" and stated.observed == 1
    assert stated.power == {"scale-up": 1.0, "linear-area": 1.0}  # both are outside their target on this square
    mutant = run_check(checker, fidelity="quick", mutant="linear-area").predictions[0]
    assert mutant.outcome == "fail" and mutant.observed == 3 and mutant.power is None


def test_a_search_reader_gets_the_tested_versions_observable():
    seen = []

    def search(instance, budget, seed, observable):
        values = {"side": 4, "base": 2}
        seen.append(float(observable(values)))
        return Exact(observable(values), 1e-12, "searched", witnesses={"found": values})

    checker = Checker(theorem=_theorem(), simulation="a search", readers={"ratio": search})
    run_check(checker, fidelity="quick", overrides={"scale": "2"})
    run_check(checker, fidelity="quick", mutant="linear-area")
    assert seen == [0.5, 2.0]


def test_a_monte_carlo_prediction_pools_each_versions_observable_over_the_same_draws():
    """Draws: the observable gives each draw's terms; the tested claim and every mutant are pooled on the same draws,
    and a mutant's power is its own comparison there."""
    from checkers.checker import Draws

    prediction = Prediction(name="ratio", kind="limit", statement="side = scale area(base) on average",
                            predict=lambda instance: Target.point(1), observable=_ratio,
                            resolution=lambda instance: 0.05,
                            resolution_reason=ResolutionReason("nearest-error", "a scale 10% off is two of them"))
    theorem = dataclasses.replace(_theorem(), predictions=(prediction,), mutants=(
        Mutant(name="scale-up", description="the scale 10% high", constant_factors={"scale": 1.1}),))
    rng = np.random.default_rng(0)
    draws = tuple({"side": 4 * (1 + 0.01 * rng.standard_normal(50)), "base": 2.0} for _ in range(8))
    checker = Checker(theorem=theorem, simulation="noisy squares",
                      readers={"ratio": lambda instance, budget, seed, observable: Draws(draws, "squares")})
    stated = run_check(checker, fidelity="quick").predictions[0]
    assert stated.outcome == "pass" and stated.samples == 400 and abs(stated.observed - 1) < 0.01
    assert stated.power["scale-up"] > 0.99
    assert run_check(checker, fidelity="quick", mutant="scale-up").predictions[0].outcome == "fail"


def _decay_theorem() -> Theorem:
    """A rate: the error times n^power, fitted across n, has a non-positive exponent (power 1/2; a mutant says 1)."""
    prediction = Prediction(name="decay", kind="rate", statement="error <= C n^-power",
                            predict=lambda instance: Target(value=0, lower=-np.inf, upper=0),
                            observable=lambda instance, measured: measured["error"] * np.asarray(
                                measured["n"], dtype=float) ** instance.definition("power"),
                            references=lambda instance: {"slowest": {"n": np.array([10.0, 40.0, 160.0]),
                                                                     "error": np.array([10.0, 40.0, 160.0]) ** -0.5}},
                            fitted_across="n", resolution=lambda instance: 0.25,
                            resolution_reason=ResolutionReason("nearest-error", "half the exponent"))
    return Theorem(id="toy-decay", title="a toy decay", source="this test", provenance="derived",
                   statement="error <= C n^-1/2", parameters=(), assumptions=(), constants=(),
                   predictions=(prediction,), definitions={"power": 0.5},
                   mutants=(Mutant(name="faster", description="n^-1", definitions={"power": 1.0}),))


def test_a_rate_is_fitted_across_its_size_in_the_table_and_in_a_check():
    """On the slowest decay the claim allows the mutant's exponent is +1/2: two resolutions. A check fits each
    version's per-draw values across n (`Fitted`), as the table's slope does on the same numbers."""
    from checkers.checker import Fitted
    from checkers.stats import fit_rate
    from theorems.claims import log_log_slope

    theorem = _decay_theorem()
    assert theorem.claims().moves("faster") == {"decay": pytest.approx(2.0, rel=1e-12)}
    rng = np.random.default_rng(1)
    draws = tuple({"n": n, "error": n ** -0.7 * np.exp(0.05 * rng.standard_normal())}
                  for n in (10.0, 40.0, 160.0, 640.0) for _ in range(4))
    sizes, errors = [d["n"] for d in draws], [d["error"] for d in draws]
    assert log_log_slope(sizes, errors) == pytest.approx(fit_rate(sizes, errors).exponent, rel=1e-12)
    checker = Checker(theorem=theorem, simulation="decaying errors",
                      readers={"decay": lambda instance, budget, seed, observable: Fitted(draws, "fit", size="n")})
    stated = run_check(checker, fidelity="quick").predictions[0]
    assert stated.outcome == "pass" and stated.observed == pytest.approx(-0.2, abs=0.05)
    assert stated.power["faster"] > 0.99
    assert run_check(checker, fidelity="quick", mutant="faster").predictions[0].outcome == "fail"
    misnamed = Checker(theorem=theorem, simulation="decaying errors", readers={
        "decay": lambda instance, budget, seed, observable: Fitted(draws, "fit", size="samples")})
    with pytest.raises(CheckError, match="the reader fits across 'samples', the prediction states 'n'"):
        run_check(misnamed, fidelity="quick")
    with pytest.raises(DeclarationError, match="only a rate's observable is fitted across a size"):
        Prediction(name="p", kind="limit", statement="s", predict=lambda instance: Target.point(1),
                   observable=lambda instance, measured: 1, fitted_across="n", resolution=lambda instance: 1)


def test_a_simulated_mutant_acts_on_the_simulation_and_its_checker_must_read_its_constant():
    """A mutant of the model the check simulates is judged by its own run; a checker whose simulation reads none of
    its constants is refused, naming it."""
    theorem = dataclasses.replace(_theorem(), mutants=(
        Mutant(name="other-model", description="another scale simulated", constant_factors={"scale": 2.0},
               simulated=True),))
    assert theorem.mutant("other-model").acts_on == "simulation"
    reader = {"ratio": lambda instance, budget, seed, observable: Measured({"side": 1, "base": 1}, 1e-12)}
    Checker(theorem=theorem, simulation="s", readers=reader, simulation_constants={"ratio": ("scale",)})
    with pytest.raises(DeclarationError, match="other-model is declared simulated"):
        Checker(theorem=theorem, simulation="s", readers=reader)
