"""The outcome policy: aggregation, readings for each claim, standings and exit codes, in one place."""

import pytest

from checkers.outcome import (
    ERROR,
    EXIT_FAIL,
    EXIT_INTERNAL,
    EXIT_PASS,
    EXIT_UNDECIDED,
    FAIL,
    INCONCLUSIVE,
    OUTSIDE,
    PASS,
    SKIPPED,
    Claim,
    Standing,
    as_expected,
    calibration_standing,
    claim_of,
    exit_code,
    failed_as_expected,
    miscalibrated,
    overall_outcome,
    pooled_outcome,
    reading,
    standing,
)


def test_a_checks_outcome_is_outside_then_fail_then_inconclusive_then_pass():
    assert overall_outcome([PASS, FAIL], assumptions_hold=False) == OUTSIDE
    assert overall_outcome([PASS, INCONCLUSIVE, FAIL], assumptions_hold=True) == FAIL
    assert overall_outcome([PASS, INCONCLUSIVE], assumptions_hold=True) == INCONCLUSIVE
    assert overall_outcome([PASS, SKIPPED], assumptions_hold=True) == PASS
    # nothing that applies: nothing was shown
    assert overall_outcome([SKIPPED], assumptions_hold=True) == INCONCLUSIVE


def test_many_runs_pool_to_fail_if_any_failed_and_pass_only_if_all_passed():
    assert pooled_outcome([PASS, FAIL, INCONCLUSIVE]) == FAIL
    assert pooled_outcome([PASS, PASS]) == PASS
    assert pooled_outcome([PASS, INCONCLUSIVE]) == INCONCLUSIVE
    assert pooled_outcome([OUTSIDE, OUTSIDE]) == OUTSIDE
    assert pooled_outcome([]) == "none"


def test_the_claim_of_a_run():
    assert claim_of(None, {}) == Claim.STATED
    assert claim_of("halved", {}) == Claim.MUTANT
    assert claim_of(None, {"mu1": "1/2"}) == Claim.CONJECTURE


@pytest.mark.parametrize("claim", [Claim.MUTANT, Claim.CONJECTURE])
def test_a_mutant_or_a_conjecture_is_rejected_or_not(claim):
    assert reading(FAIL, claim, False) == "rejected"
    assert reading(PASS, claim, True) == "not rejected"
    assert reading(INCONCLUSIVE, claim, False) == "inconclusive"


def test_a_statement_known_to_fail_reads_the_other_way_round_and_its_inconclusive_run_is_not_as_expected():
    assert reading(FAIL, Claim.STATED, True) == "fail, as expected"
    assert reading(PASS, Claim.STATED, True).startswith("pass, UNEXPECTED")
    assert standing(FAIL, Claim.STATED, True) == Standing.GOOD
    assert standing(PASS, Claim.STATED, True) == Standing.BAD
    assert standing(INCONCLUSIVE, Claim.STATED, True) == Standing.UNDECIDED
    assert reading(INCONCLUSIVE, Claim.STATED, True) == "inconclusive"
    # a conjecture about it is a claim of its own: its pass is a pass
    assert standing(PASS, Claim.CONJECTURE, True) == Standing.GOOD


def test_a_mutants_fail_is_its_outcome_for_the_exit_code():
    assert standing(FAIL, Claim.MUTANT, False) == Standing.BAD and not as_expected(FAIL, Claim.MUTANT, False)


def test_exit_codes_from_standings():
    assert exit_code([]) == EXIT_PASS
    assert exit_code([Standing.GOOD, Standing.GOOD]) == EXIT_PASS
    assert exit_code([Standing.GOOD, Standing.UNDECIDED]) == EXIT_UNDECIDED
    assert exit_code([Standing.UNDECIDED, Standing.BAD]) == EXIT_FAIL
    assert exit_code([Standing.BAD, standing(ERROR, Claim.STATED, False)]) == EXIT_INTERNAL


def test_calibration_standing_and_miscalibration():
    assert calibration_standing(errors=1, contract_holds=True) == Standing.ERROR
    assert calibration_standing(errors=0, contract_holds=False) == Standing.BAD
    assert miscalibrated(True, passes=1, fail_interval_low=0.0, stated_false_fail_rate=1e-6)
    assert not miscalibrated(False, passes=9, fail_interval_low=0.0, stated_false_fail_rate=1e-6)
    assert miscalibrated(False, passes=0, fail_interval_low=0.3, stated_false_fail_rate=1e-6)


def test_only_a_statement_known_to_fail_fails_as_expected():
    assert failed_as_expected(FAIL, Claim.STATED, True)
    assert not failed_as_expected(FAIL, Claim.STATED, False)
    assert not failed_as_expected(FAIL, Claim.MUTANT, True) and not failed_as_expected(INCONCLUSIVE, Claim.STATED, True)
