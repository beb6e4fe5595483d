"""The contract every built-in theorem meets (`checkers.contract`, which `thmcheck contract` runs on any checker).

Each test id names the theorem and the clause, so `pytest -k dual-kernel` selects one theorem and `pytest -k
near-mutant` one clause. The quick check's verdict is the main job's, computed once per session (tests/main_job.py).
"""


import math

import pytest

from checkers import calibration_records, contract, registry
from checkers.engine import run_check
from checkers.outcome import FAIL, PASS
from tests.main_job import MAIN_JOB, forget_cached_draws, quick_verdict
from tests.snapshots import DIRECTORY, updating

CHECKERS = registry.builtin_checkers()
IDS = [c.id for c in CHECKERS]
DECLARATIONS = [name for name in contract.CLAUSES if name not in contract.RUNS]


@pytest.mark.parametrize("clause", DECLARATIONS)
@pytest.mark.parametrize("checker", CHECKERS, ids=IDS)
def test_the_declarations_meet_the_contract(checker, clause):
    if clause == "constants" and updating():
        contract.write_snapshot(checker, DIRECTORY)
    problems = contract.CLAUSES[clause](checker, snapshots=DIRECTORY)
    assert not problems, f"{checker.id} {clause}:\n" + "\n".join(problems)


@MAIN_JOB
@pytest.mark.parametrize("checker", CHECKERS, ids=IDS)
def test_true_statement_never_fails_at_quick_fidelity(checker):
    """At quick fidelity a true statement passes, or is inconclusive where its checker says a higher fidelity
    resolves it (`Checker.resolves_at`); it never fails. A statement known to fail never passes."""
    problems = contract.CLAUSES["quick"](checker, quick_verdict=quick_verdict)
    assert not problems, "\n".join(problems)


def test_only_the_checks_that_say_so_need_more_than_quick_fidelity():
    """The checks whose stated resolution needs more than quick fidelity's samples or sizes: gaussian-equivalence
    resolves 2.5% of the risk, giant-step-risk 2% of its sRF's errors, hermite-equivalence 3% of its test gap (each
    extrapolating three sizes), spike-decomposition 0.17 in its rate's exponent (quick's sizes detect 0.16 to 0.24),
    spike-outlier 5% of its spike overlap (0.035: quick never resolves it, default on 14 of 20 calibration seeds,
    paper on every one), mixture-spike 0.1 in its spike's exponent (quick detects 0.16, default 0.07). A new one is a
    decision, not a drift."""
    assert {c.id for c in CHECKERS if c.resolves_at != "quick"} == {
        "gaussian-equivalence", "giant-step-risk", "hermite-equivalence", "mixture-spike", "spike-decomposition",
        "spike-outlier"}


@MAIN_JOB
@pytest.mark.parametrize("checker", [c for c in CHECKERS if any(p.kind == "inequality" for p in c.theorem.predictions)],
                         ids=lambda c: c.id)
def test_every_inequality_reports_how_tight_it_got(checker):
    """Every inequality that was checked reports the largest ratio of its two sides attained (smaller over larger,
    1 = equality: a ratio above 1 is a violation, so a passing one is at most 1 up to its stated tolerance)."""
    verdict = quick_verdict(checker)
    for prediction in verdict.predictions:
        if prediction.kind != "inequality" or str(prediction.outcome) != "pass":
            continue
        assert prediction.tightness is not None, f"{checker.id} {prediction.name} does not report its tightness"
        ratio = prediction.tightness["best_ratio"]
        assert 0 <= ratio <= 1 + 1e-6 and prediction.tightness["witness"], (checker.id, prediction.name, ratio)
        if prediction.tightness.get("attainable") is not None:
            assert 0 < prediction.tightness["attainable"] <= 1 + 1e-6 and prediction.tightness["construction"]


@pytest.mark.slow
@pytest.mark.parametrize("checker", CHECKERS, ids=IDS)
def test_true_statement_passes_where_its_check_decides(checker):
    """A true statement passes at default fidelity, or at the higher one its checker says resolves it
    (giant-step-risk's paper fidelity, about 8 minutes of one core here); a statement declared known to fail (a
    secondary source's form that a derivation here corrects) fails there."""
    verdict = run_check(checker, seed=0, fidelity=checker.deciding_fidelity())
    assert verdict.outcome == (FAIL if checker.theorem.expected_failure else PASS), verdict.explain()


# One theorem per family, among its cheapest to run, keeps its mutants' reruns in the default suite, so that the
# engine's way of running a mutant is exercised there; every other theorem's mutants are answered in the default
# suite by its current calibration (the next test), and rerun on request (-m slow)
MUTANT_RERUNS = {"spike-strength", "srf-constants", "dual-kernel", "head-conditioning", "conservation-law",
                 "plain-recovery"}


@pytest.mark.parametrize("checker", [c if c.id in MUTANT_RERUNS else pytest.param(c, marks=pytest.mark.slow)
                                     for c in CHECKERS], ids=IDS)
def test_every_mutant_fails(checker):
    """Every mutant is rejected: at quick fidelity where quick already rejects it (default fidelity's larger budget
    only raises that chance), else at default (or the higher fidelity that resolves the check), where the contract
    says every mutant fails. In the default suite this runs for `MUTANT_RERUNS` only; tests/test_<theorem>.py keeps,
    where a theorem's mutants take minutes (`Checker.slow_mutants`), a test that each mutant reaches the simulation
    or is rejected at quick fidelity."""
    problems = contract.CLAUSES["mutants"](checker)
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def calibrations():
    return calibration_records.load()


@pytest.mark.parametrize("checker", CHECKERS, ids=IDS)
def test_every_mutant_is_rejected_in_every_seed_of_the_current_calibration(checker, calibrations):
    """The calibration at the defaults, at the fidelity that decides the check, ran on the theorem's code as it is
    now (its content hash: a change to the theorem, its checker or what they import stales it) and rejected every
    mutant in every seed. This is what the mutants' reruns above would show, over ten seeds instead of one."""
    fidelity = checker.deciding_fidelity()
    rows = [row for row in calibrations if row.theorem == checker.id and not row.parameters
            and row.fidelity == fidelity and row.calibration is not None]
    assert rows, f"{checker.id} has no calibration at its defaults at {fidelity} fidelity"
    row = rows[0]
    assert not row.stale(), f"{checker.id}'s calibration at {fidelity} fidelity is stale: thmcheck calibrate --stale"
    assert {m.version for m in row.calibration.mutants} == {m.name for m in checker.theorem.mutants}
    assert row.calibration.contract_holds and not row.calibration.surviving_mutants, row.calibration.surviving_mutants


# The reruns that take 10-40 s each (`Checker.slow_rerun`), and these of 3-7 s, run on request (-m slow); every
# family, and every way of sharing draws (shared_draws, cached runs: dead-class, plain-recovery, subspace-spike;
# searches: nc2-bracket), keeps a rerun in the default suite
RERUNS_ON_REQUEST = {"elasticity-reference", "alignment-time-flat", "peak-alignment", "local-recovery",
                     "elasticity-monotone", "mixture-spike", "early-alignment", "mixture-means",
                     "random-features-floor"}


def test_every_family_keeps_a_same_seed_rerun_in_the_default_suite():
    kept = {registry.family(c.id) for c in CHECKERS if not c.slow_rerun and c.id not in RERUNS_ON_REQUEST}
    assert RERUNS_ON_REQUEST <= set(IDS) and kept == set(registry.families())


@MAIN_JOB
@pytest.mark.parametrize("checker", [pytest.param(c, marks=pytest.mark.slow)
                                     if c.slow_rerun or c.id in RERUNS_ON_REQUEST else c
                                     for c in CHECKERS], ids=IDS)
def test_same_seed_same_numbers(checker):
    """A rerun with the memoized draws forgotten recomputes the same numbers: to 1e-9 relative, since numpy's SIMD
    reductions round differently with the alignment of their arrays (last-ulp changes between two runs in one
    process), and to 1e-13 absolute for observables that are themselves round-off (a residual of 3e-15), or to the
    stated accuracy of an exact observation (a searched margin near a degenerate spectrum moves by sqrt(ulp))."""
    first = quick_verdict(checker).to_dict()
    forget_cached_draws()
    second = run_check(checker, seed=0, fidelity="quick").to_dict()
    assert len(first["predictions"]) == len(second["predictions"])
    for a, b in zip(first["predictions"], second["predictions"]):
        for key in ("observed", "standard_error"):
            assert (a[key] is None) == (b[key] is None), key
            if a[key] is not None:
                accuracy = max(1e-13, float(a.get("tolerance") or 0.0))
                assert math.isclose(float(a[key]), float(b[key]), rel_tol=1e-9, abs_tol=accuracy), (key, a[key], b[key])
