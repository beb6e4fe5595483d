"""The papers command and a paper's page in the terminal: its citation, the theorems that encode it, and its
discussion's claims ledger (`theorems.ledger`) with the command that checks each claim and what that check's
calibration measured (`checkers.calibration_records`: how often the statement passed there, how often the named
mutant was rejected), so the page says how far each check can be trusted without running it."""

from __future__ import annotations

import json
import textwrap

from checkers import registry
from checkers.outcome import EXIT_PASS
from theorems.ledger import Check, Claim, Ledger, has_ledger, ledger, ledgers
from theorems.papers import PAPERS, Paper, paper


def papers_command(arguments) -> int:
    """`thmcheck papers`: every source paper with its theorems and its ledger's counts; with a key, that paper."""
    if arguments.paper is not None:
        return print_paper(arguments.paper, as_json=arguments.json)
    rows = [_summary(p) for p in PAPERS]
    if arguments.json:
        print(json.dumps(rows, indent=2))
        return EXIT_PASS
    width = max(len(p.key) for p in PAPERS)
    for p, row in zip(PAPERS, rows):
        counts = row["ledger"]
        ledger_words = (f"; discussion: {counts['checked']} checked, {counts['partly checked']} partly, "
                        f"{counts['not yet encoded']} not yet encoded, {counts['not checkable']} not checkable"
                        if counts else "")
        theorems = f"{len(p.encodes)} theorem" + ("s" if len(p.encodes) > 1 else "")
        print(f"{p.key.ljust(width)}  {p.authors} ({p.venue}): {theorems}{ledger_words}")
    print("thmcheck papers KEY (or thmcheck show KEY) prints one paper with its discussion's claims")
    return EXIT_PASS


def print_paper(key: str, *, as_json: bool = False) -> int:
    """One paper: citation, the theorems that encode it and, where it was discussed, every claim of the
    discussion with its status and the checks that answer it."""
    source = paper(key)
    book = ledger(key) if has_ledger(key) else None
    rows = _calibration_rows() if book else {}
    if as_json:
        print(json.dumps(_summary(source) | {"claims": [_claim_dict(c, rows) for c in book.claims] if book else [],
                                             "not_checkable": [vars(n) for n in book.not_checkable] if book else [],
                                             "discussion": book and book.document, "scale": book and book.scale},
                         indent=2))
        return EXIT_PASS
    print(f"{source.key}: {source.citation}")
    print("  theorems:")
    width = max(len(theorem_id) for theorem_id in source.encodes)
    provenances = {entry.id: entry.provenance for entry in registry.listing()}
    for theorem_id, statement in source.encodes.items():
        provenance = provenances[theorem_id]
        print(f"    {theorem_id.ljust(width)}  {provenance:9}  {statement}")
    if book is None:
        print("  no peer discussion of this paper is in the project")
        return EXIT_PASS
    _print_ledger(book, rows)
    return EXIT_PASS


def _print_ledger(book: Ledger, rows: dict) -> None:
    counts = book.counts()
    _wrapped(f"discussion ({book.document}): {len(book.claims)} checkable claims, {counts['checked']} checked, "
             f"{counts['partly checked']} partly, {counts['not yet encoded']} not yet encoded", "  ")
    _wrapped(f"scale: {book.scale}", "  ")
    for claim in book.claims:
        _wrapped(f"{claim.label} [{claim.status}; {', '.join(claim.who)}; {claim.where}] {claim.claim}", "  ")
        for check in claim.checks:
            print(f"      checked by {check}: {check.command}")  # one line, so the command can be copied
            _wrapped(f"calibrated: {calibration_words(check, rows)}", "        ")
        if claim.gap:
            _wrapped(f"{'not covered' if claim.checks else 'why not yet'}: {claim.gap}", "      ")
        if claim.proposal and claim.status != "checked":
            _wrapped(f"how: {claim.proposal} ({claim.cost})", "      ")
        if claim.finding:
            _wrapped(f"finding: {claim.finding}", "      ")
    print("  not checkable:")
    for item in book.not_checkable:
        _wrapped(f"{item.topic}: {item.why}", "    ")


def _wrapped(text: str, indent: str) -> None:
    print(textwrap.fill(text, width=116, initial_indent=indent, subsequent_indent=indent + "  ",
                        break_on_hyphens=False))


def discussion_claims(theorem_id: str) -> list[tuple[str, Claim]]:
    """The discussion claims that a theorem checks, with their papers' keys (for `show`)."""
    return [(book.paper, claim) for book in ledgers() for claim in book.checked_by(theorem_id)]


def _summary(source: Paper) -> dict:
    return {"key": source.key, "authors": source.authors, "title": source.title, "venue": source.venue,
            "arxiv": source.arxiv or None, "openreview": source.openreview or None,
            "theorems": dict(source.encodes),
            "ledger": ledger(source.key).counts() if has_ledger(source.key) else None}


def _calibration_rows() -> dict:
    """The calibration records by theorem (imported here: reading them loads the calibration's numerics, which the
    list of papers does not need)."""
    from checkers import calibration_records

    return calibration_records.rows_by_theorem()


def calibration_evidence(check: Check, rows: dict) -> dict | None:
    """What the calibration at the check's point measured (`calibration_records.evidence`)."""
    from checkers import calibration_records

    return calibration_records.evidence(check.theorem, dict(check.parameters), check.mutant or None, rows)


def calibration_words(check: Check, rows: dict) -> str:
    """The calibration evidence of a check in one sentence (`calibration_records.evidence_words`)."""
    from checkers import calibration_records

    return calibration_records.evidence_words(calibration_evidence(check, rows), check.mutant)


def _claim_dict(claim: Claim, rows: dict) -> dict:
    return {"label": claim.label, "claim": claim.claim, "who": [str(w) for w in claim.who], "where": claim.where,
            "status": str(claim.status), "cost": str(claim.cost),
            "checks": [{"theorem": c.theorem, "prediction": c.prediction or None, "mutant": c.mutant or None,
                        "parameters": dict(c.parameters), "command": c.command,
                        "calibration": calibration_evidence(c, rows)} for c in claim.checks],
            "gap": claim.gap or None, "proposal": claim.proposal or None, "finding": claim.finding or None}


def review_command(arguments) -> int:
    """`thmcheck review KEY --out DIR`: the paper's checks run (resuming from the store), the estimate printed first
    and the whole review refused beyond --max-minutes; exit 0 when every run answers its claim as expected, 1 when a
    stated version fails or a mutant survives, 3 when some run is undecided."""
    import shlex
    import sys

    from checkers import review
    from checkers.cost import duration
    from checkers.report import output_folder
    from theorems.errors import WorkRefused

    source = paper(arguments.paper)
    output_folder(arguments.out)
    asked = dict(parameters=dict(arguments.param), overrides=dict(arguments.overrides))
    checks = review.review_checks(source.key, arguments.fidelity, **asked)
    tasks = review.review_tasks(checks, max_minutes=arguments.max_minutes, max_memory=arguments.max_memory)
    figure = review.figure_tasks(source.key, max_minutes=arguments.max_minutes, max_memory=arguments.max_memory)
    seconds = sum(task.estimated_seconds or 0.0 for task in tasks + figure)
    if seconds > 60 * arguments.max_minutes:
        raise WorkRefused(f"the review of {source.key} is estimated at {duration(seconds)}, above --max-minutes "
                          f"{arguments.max_minutes:g}")
    print(f"review of {source.key}: {len(tasks)} runs" + (f" and {len(figure)} for the paper's figure" if figure
                                                          else "")
          + (f", estimated {duration(seconds)} on one core" if seconds >= 60 else ""), file=sys.stderr)
    page = review.run_review(source.key, arguments.out, store=arguments.store, fidelity=arguments.fidelity,
                             workers=arguments.workers, scheduler=arguments.scheduler,
                             max_minutes=arguments.max_minutes,
                             max_memory=arguments.max_memory,
                             command=shlex.join(["thmcheck", *arguments.argv]), **asked)
    summary = json.loads((page.parent / "review.json").read_text())
    missed = [run for run in summary["runs"] if not run["as_expected"]]
    if arguments.json:
        print(json.dumps({"review": str(page), "markdown": str(page.parent / "review.md"),
                          "data": str(page.parent / "review.json")}, indent=2))
    else:
        print(f"review written to {page} (and review.md, review.json beside it); {len(summary['runs'])} runs, "
              f"{len(missed)} not as expected")
    if any(review.contradicts(run) for run in missed):
        return 1
    return 3 if missed else EXIT_PASS
