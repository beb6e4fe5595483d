"""The claims ledger: every checkable claim of the five discussions has a status, and every check it names exists."""

import pytest

from checkers import registry
from theorems.errors import DeclarationError, UnknownName
from theorems.ledger import Check, Claim, Cost, Status, Who, ledger, ledgers
from theorems.papers import paper

CHECKS = [(book.paper, claim.label, check) for book in ledgers() for claim in book.claims for check in claim.checks]


def test_five_discussions_with_sixty_checkable_claims():
    assert [book.paper for book in ledgers()] == ["ale2025", "jacot2025", "demir-dogan2025", "min2024",
                                                  "zhou-ge2024"]
    assert [len(book.claims) for book in ledgers()] == [12, 13, 13, 10, 12]


def test_labels_follow_the_discussion_letter_in_order():
    for book in ledgers():
        letter = paper(book.paper).discussion
        assert [claim.label for claim in book.claims] == [f"{letter}{i}" for i in range(1, len(book.claims) + 1)]


def test_every_discussion_lists_what_it_cannot_check():
    for book in ledgers():
        assert book.not_checkable and all(item.why for item in book.not_checkable)


@pytest.mark.parametrize("key,label,check", CHECKS, ids=[f"{k}-{c}-{i}" for i, (k, c, _) in enumerate(CHECKS)])
def test_every_named_check_exists(key, label, check):
    theorem = registry.theorem(check.theorem)
    if check.prediction:
        theorem.prediction(check.prediction)
    if check.mutant:
        theorem.mutant(check.mutant)
    theorem.instance(dict(check.parameters))  # the point parses and is inside the parameters' domains


def test_an_open_claim_says_why_and_how():
    with pytest.raises(DeclarationError, match="open claim"):
        Claim("x1", "c", (Who.PAPER,), "r1", Status.OPEN, Cost.MINUTES, gap="not yet")
    with pytest.raises(DeclarationError, match="names its checks"):
        Claim("x1", "c", (Who.PAPER,), "r1", Status.CHECKED, Cost.MINUTES)
    with pytest.raises(DeclarationError, match="gap"):
        Claim("x1", "c", (Who.PAPER,), "r1", Status.PARTLY, Cost.MINUTES, checks=(Check("nc1-bound"),))


def test_a_check_reads_as_its_command():
    check = Check("conservation-law", parameters={"activation": "leaky_relu:0.1"}, mutant="taylor-half")
    assert check.command == "thmcheck check conservation-law --param activation=leaky_relu:0.1 --mutant taylor-half"
    clipped = Check("spike-strength", parameters={"teacher": "min(max(1000*z,-1),1)"})
    assert clipped.command == "thmcheck check spike-strength --param 'teacher=min(max(1000*z,-1),1)'"


def test_counts_and_lookups():
    book = ledger("min2024")
    assert book.counts() == {"checked": 7, "partly checked": 1, "not yet encoded": 2, "not checkable": 4}
    assert [c.label for c in book.checked_by("conservation-law")] == ["d2", "d6"]
    assert [c.label for c in book.checked_by("early-alignment")] == ["d1", "d4", "d7", "d9"]
    with pytest.raises(UnknownName, match="d1"):
        book.claim("d11")
    with pytest.raises(UnknownName, match="no discussion ledger"):
        ledger("ba2022")


def test_every_parameter_point_the_ledger_names_has_a_calibration_row():
    """A claim checked at a point other than a theorem's defaults is calibrated there: its false-fail and kill rates
    are measured at the point the ledger names (whether the row is current is test_calibration_records' job)."""
    from checkers.calibration_records import load

    rows = {(row.theorem, tuple(sorted(row.parameters.items()))) for row in load()}
    missing = [f"{key} {label}: {check}" for key, label, check in CHECKS
               if check.parameters and (check.theorem, tuple(sorted(check.parameters.items()))) not in rows]
    assert not missing, missing
