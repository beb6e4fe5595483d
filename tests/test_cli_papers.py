"""The papers command, `list --paper` and `show KEY`: a paper's theorems and its discussion's claims ledger."""

import json

from checkers.cli import main


def run(capsys, *arguments):
    code = main(list(arguments))
    out, err = capsys.readouterr()
    return code, out, err


def test_papers_lists_every_paper_with_its_ledger_counts(capsys):
    code, out, _ = run(capsys, "papers", "--json")
    assert code == 0
    rows = {row["key"]: row for row in json.loads(out)}
    from theorems.ledger.min2024 import LEDGER
    assert rows["min2024"]["ledger"] == LEDGER.counts() and set(LEDGER.counts()) == {
        "checked", "partly checked", "not yet encoded", "not checkable"}
    assert rows["ba2022"]["ledger"] is None
    assert "spike-decomposition" in rows["ba2022"]["theorems"]


def test_a_papers_page_lists_every_claim_with_the_command_that_checks_it(capsys):
    code, out, _ = run(capsys, "papers", "jacot2025")
    assert code == 0
    for label in (f"b{i} [" for i in range(1, 14)):
        assert label in out
    assert "thmcheck check head-conditioning --mutant root-exponent-off" in out
    assert "not checkable:" in out


def test_list_and_show_print_the_same_page(capsys):
    _, listed, _ = run(capsys, "list", "--paper", "zhou-ge2024", "--json")
    _, shown, _ = run(capsys, "show", "zhou-ge2024", "--json")
    assert listed == shown
    claims = json.loads(shown)["claims"]
    assert [c["label"] for c in claims] == [f"e{i}" for i in range(1, 13)]


def test_a_theorems_show_names_its_paper_and_the_claims_it_answers(capsys):
    code, out, _ = run(capsys, "show", "conservation-law", "--json")
    data = json.loads(out)
    assert data["papers"] == [{"key": "min2024", "encodes": "Section 2"}]
    assert [c["label"] for c in data["discussion_claims"]] == ["d2", "d6"]


def test_an_unknown_paper_is_the_users_error(capsys):
    code, _, err = run(capsys, "papers", "nobody1999")
    assert code == 2 and "unknown paper 'nobody1999'" in err and err.count("\n") == 1
    code, _, err = run(capsys, "list", "--paper", "nobody1999")
    assert code == 2


def test_each_check_shows_what_its_calibration_measured(capsys):
    """The ledger's checks carry their calibration row's evidence: the statement's passes, and the rejections of the
    mutant the check names (read from docs/calibration.json, not run)."""
    _, out, _ = run(capsys, "papers", "jacot2025", "--json")
    claim = next(c for c in json.loads(out)["claims"] if c["label"] == "b12")
    named = next(c for c in claim["checks"] if c["mutant"] == "root-exponent-off")
    evidence = named["calibration"]
    assert evidence["passed"] == evidence["runs"] > 0
    assert evidence["mutant"]["rejected"] == evidence["mutant"]["runs"] > 0
    _, text, _ = run(capsys, "papers", "jacot2025")
    assert "root-exponent-off rejected in" in text
