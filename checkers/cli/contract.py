"""The contract command: every clause of `checkers.contract` on the checkers named, each theorem's result printed as it
finishes; exit 1 where one fails."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from checkers import contract, registry
from checkers.budget import ANNOUNCE_SECONDS
from checkers.cost import duration
from checkers.executors import INTERRUPTS, said
from checkers.offers import estimated
from checkers.outcome import EXIT_FAIL, EXIT_PASS
from theorems.errors import InvalidInput, WorkRefused

# the built-ins' committed snapshots, where this is a checkout of the project (an installed package has none)
PROJECT_SNAPSHOTS = Path(__file__).resolve().parents[2] / "tests" / "snapshots"


def runs_seconds(checker) -> float | None:
    """The most the contract's runs of `checker` may take here (`checkers.cost.estimate`): the quick check, and each
    mutant at quick and, where quick does not reject it, at the fidelity that decides it, every stage drawn (most
    mutants fall at quick's first stage, so a run takes a fraction of this); None where it has no estimate."""
    quick = estimated(checker, fidelity="quick")
    if quick is None:
        return None
    deciding = estimated(checker, fidelity=checker.deciding_fidelity())
    return quick.most + len(checker.theorem.mutants) * (quick.most + deciding.most)


def _refuse_or_announce(checkers, max_minutes: float) -> None:
    """Refuse, before any run, the theorems whose runs may take longer than the cap (`runs_seconds`), as `check`
    refuses on the most a check can spend; print the estimate where it is above a minute."""
    estimates = {checker.id: runs_seconds(checker) for checker in checkers}
    over = [f"{name} (about {duration(value)})" for name, value in estimates.items()
            if value is not None and value > 60 * max_minutes]
    if over:
        raise WorkRefused(f"the contract's runs of {', '.join(over)} may take longer than the cap of "
                          f"{duration(60 * max_minutes)} here; lift it (--max-minutes) or leave the runs out "
                          "(--no-runs)")
    known = [value for value in estimates.values() if value is not None]
    if sum(known) > ANNOUNCE_SECONDS:
        unknown = len(estimates) - len(known)
        print(f"thmcheck: the contract's runs may take up to {duration(sum(known))} here for the {len(known)} "
              f"theorem(s) with an estimate, where every mutant survives quick fidelity (most do not)"
              + (f"; {unknown} other(s) have none" if unknown else ""),
              file=sys.stderr, flush=True)


def _print_result(theorem: str, clauses: dict, runs: bool) -> None:
    failing = {clause: problems for clause, problems in clauses.items() if problems}
    held = ", ".join(clause for clause in clauses if clause not in failing)
    print(f"{theorem}: {'holds' if not failing else f'{len(failing)} clause(s) fail'} ({held or 'none'} "
          f"held{'' if runs else '; the runs were left out'})")
    for clause, problems in failing.items():
        for problem in problems:
            print(f"  {clause}: " + problem.replace("\n", "\n    "))
    sys.stdout.flush()


def contract_command(arguments) -> int:
    checkers = registry.selected(arguments.theorems, arguments.all)
    given = Path(arguments.snapshots) if arguments.snapshots else None
    if given is not None and not given.is_dir():
        raise InvalidInput(f"--snapshots {arguments.snapshots!r} is not a folder")
    runs = not arguments.no_runs
    if runs:
        _refuse_or_announce(checkers, arguments.max_minutes)
    builtins = {c.id for c in registry.builtin_checkers()}
    results = {}
    try:
        for checker in checkers:
            folder = given or (PROJECT_SNAPSHOTS if checker.id in builtins and PROJECT_SNAPSHOTS.is_dir() else None)
            if arguments.update_snapshots:
                if folder is None:
                    raise InvalidInput(f"{checker.id}: name the folder its snapshot goes to (--snapshots DIR)")
                contract.write_snapshot(checker, folder)
            results[checker.id] = contract.check(checker, runs=runs, snapshots=folder)
            if not arguments.json:
                _print_result(checker.id, results[checker.id], runs)
    except INTERRUPTS as stop:  # Ctrl-C, SIGINT or SIGTERM: what finished is printed (above, or here as JSON)
        if arguments.json:
            print(json.dumps(results, indent=2))
        word, then = said(stop)
        print(f"thmcheck: {word}; {len(results)} of {len(checkers)} theorems finished"
              + ("" if arguments.json else " (printed above)"), file=sys.stderr)
        raise then from None
    if arguments.json:
        print(json.dumps(results, indent=2))
    return EXIT_FAIL if any(problems for clauses in results.values() for problems in clauses.values()) else EXIT_PASS
