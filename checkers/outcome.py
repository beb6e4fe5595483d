"""The outcome policy: the outcomes a check can have, how each reads for the claim it tested, and the exit codes.

Every command reads this module; none decides an exit code or what a statement known to fail means on its own.

Outcomes      `Outcome` (pass, fail, inconclusive, outside assumptions, not applicable, error)
Aggregation   `overall_outcome` (the predictions of one check), `pooled_outcome` (many runs of one version)
Claims        `Claim`: the statement as stated, a named mutant, or a user's conjecture (`--set`)
Readings      `reading`: an outcome in the words of its claim ("rejected", "fail, as expected", ...);
              `standing`: good, bad or undecided for the exit code
Exit codes    `EXIT_*`, `exit_code` (a command's code from the standings of what it ran)

A statement known to fail its check (`Theorem.expected_failure`: a source's form that this project corrects) reads
the other way round when run as stated: a fail is as expected and a pass is not. An inconclusive run of it is
neither: it is undecided, like any other inconclusive run. A mutant's or a conjecture's fail is the check telling
it apart from the theorem ("rejected"); its exit code still says what the outcome was (1 for a fail), so that
`thmcheck check --mutant` can be scripted.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Outcome(StrEnum):
    """The outcome of a prediction or of a whole check (a str, so it prints and serializes as its value)."""

    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"  # nothing rejected, but the test could not resolve the claim
    OUTSIDE = "outside assumptions"  # a whole check whose parameters violate an assumption
    SKIPPED = "not applicable"  # a prediction that does not apply at these parameters
    ERROR = "error"  # a sweep task whose check raised a bug (never a verdict of run_check)


PASS, FAIL, INCONCLUSIVE = Outcome.PASS, Outcome.FAIL, Outcome.INCONCLUSIVE
OUTSIDE, SKIPPED, ERROR = Outcome.OUTSIDE, Outcome.SKIPPED, Outcome.ERROR
VERDICT_OUTCOMES = (PASS, FAIL, INCONCLUSIVE, OUTSIDE)  # what a whole check can come to


def overall_outcome(outcomes: Iterable[str], assumptions_hold: bool) -> Outcome:
    """One check's outcome from its predictions' (those not applicable are ignored): outside the assumptions
    dominates (the theorem claims nothing there); then fail, inconclusive, pass; a check with nothing that
    applies is inconclusive."""
    if not assumptions_hold:
        return OUTSIDE
    seen = {Outcome(outcome) for outcome in outcomes} - {SKIPPED}
    if FAIL in seen:
        return FAIL
    if INCONCLUSIVE in seen or PASS not in seen:
        return INCONCLUSIVE
    return PASS


def pooled_outcome(outcomes: Iterable[str]) -> str:
    """The outcome of many runs of one version (a sweep's grid, a report's row): fail if any run failed, pass if
    all passed, else inconclusive where any was, else the one outcome they share ("none" for no run)."""
    outcomes = [Outcome(outcome) for outcome in outcomes]
    if FAIL in outcomes:
        return FAIL
    if outcomes and all(outcome == PASS for outcome in outcomes):
        return PASS
    if INCONCLUSIVE in outcomes:
        return INCONCLUSIVE
    return outcomes[0] if outcomes else "none"


class Claim(StrEnum):
    """What a run tested: the statement as stated, a named mutant of it, or a user's conjecture (`--set`)."""

    STATED = "stated"
    MUTANT = "mutant"
    CONJECTURE = "conjecture"


def claim_of(mutant: str | None, overrides) -> Claim:
    """The claim a run with this mutant (or None) and these constant overrides tested."""
    if mutant:
        return Claim.MUTANT
    return Claim.CONJECTURE if overrides else Claim.STATED


def reading(outcome: str, claim: Claim, expected_failure: bool) -> str:
    """An outcome in the words of its claim: a mutant or a conjecture is "rejected" or "not rejected"; a statement
    known to fail reads "fail, as expected" or "pass, UNEXPECTED (known to fail)"; anything else as it is."""
    outcome = Outcome(outcome)
    if claim != Claim.STATED:
        return {FAIL: "rejected", PASS: "not rejected"}.get(outcome, str(outcome))
    if expected_failure:
        return {FAIL: "fail, as expected", PASS: "pass, UNEXPECTED (known to fail)"}.get(outcome, str(outcome))
    return str(outcome)


class Standing(StrEnum):
    """What an outcome means for a command's exit code."""

    GOOD = "good"  # exit 0 if every run is good
    BAD = "bad"  # exit 1: a fail, or a pass of a statement known to fail
    UNDECIDED = "undecided"  # exit 3: inconclusive, outside the assumptions, nothing that applied
    ERROR = "error"  # exit 4: a bug stopped the run


def standing(outcome: str, claim: Claim, expected_failure: bool) -> Standing:
    """Good, bad or undecided (or error) for one run's outcome, read for its claim (see the module docstring)."""
    outcome = Outcome(outcome)
    if outcome == ERROR:
        return Standing.ERROR
    if claim == Claim.STATED and expected_failure:
        return {FAIL: Standing.GOOD, PASS: Standing.BAD}.get(outcome, Standing.UNDECIDED)
    return {PASS: Standing.GOOD, FAIL: Standing.BAD}.get(outcome, Standing.UNDECIDED)


def failed_as_expected(outcome: str, claim: Claim, expected_failure: bool) -> bool:
    """Whether a run is a statement known to fail, failing as it should."""
    return claim == Claim.STATED and expected_failure and Outcome(outcome) == FAIL


def as_expected(outcome: str, claim: Claim, expected_failure: bool) -> bool:
    """Whether an outcome is what its claim leads one to expect: not bad (`standing`). A mutant's fail is not "as
    expected" here: its run is judged by calibrate, which expects it to fail."""
    return standing(outcome, claim, expected_failure) not in (Standing.BAD, Standing.ERROR)


EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_UNDECIDED, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # 128 + SIGINT, 128 + SIGTERM
EXIT_CODES = {
    EXIT_PASS: "every verdict passes (a statement known to fail fails)",
    EXIT_FAIL: "a verdict fails (or a statement known to fail passes)",
    EXIT_USAGE: "bad input, a bad file, path, disk, network or plugin (one line on stderr)",
    EXIT_UNDECIDED: "inconclusive or outside the assumptions, none failing",
    EXIT_INTERNAL: "an error in a theorem, a checker or thmcheck itself (a bug)",
    EXIT_INTERRUPTED: "interrupted",
    EXIT_TERMINATED: "terminated (SIGTERM)",
}


def exit_code(standings: Iterable[Standing]) -> int:
    """A command's exit code from the standings of everything it ran: 4 for any error, 1 for any bad, 0 when all
    are good (nothing run is good), else 3."""
    standings = set(standings)
    if Standing.ERROR in standings:
        return EXIT_INTERNAL
    if Standing.BAD in standings:
        return EXIT_FAIL
    return EXIT_PASS if standings <= {Standing.GOOD} else EXIT_UNDECIDED


def calibration_standing(errors: int, contract_holds: bool) -> Standing:
    """A calibration's standing: error where a task raised a bug, else good where its contract holds (no
    miscalibration; at default fidelity or above every mutant killed in every run), else bad."""
    if errors:
        return Standing.ERROR
    return Standing.GOOD if contract_holds else Standing.BAD


def miscalibrated(expected_failure: bool, passes: int, fail_interval_low: float, stated_false_fail_rate: float
                  ) -> bool:
    """Whether a calibration of the statement as stated over many seeds contradicts its stated error rate: a
    statement known to fail that ever passes; a true statement whose fail rate's interval lies above the stated
    false-fail rate."""
    if expected_failure:
        return passes > 0
    return fail_interval_low > stated_false_fail_rate
