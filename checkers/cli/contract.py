"""The contract command: every clause of `checkers.contract` on the checkers named; exit 1 where one fails."""

from __future__ import annotations

import json
from pathlib import Path

from checkers import contract, registry
from checkers.outcome import EXIT_FAIL, EXIT_PASS
from theorems.errors import InvalidInput

# the built-ins' committed snapshots, where this is a checkout of the project (an installed package has none)
PROJECT_SNAPSHOTS = Path(__file__).resolve().parents[2] / "tests" / "snapshots"


def contract_command(arguments) -> int:
    checkers = registry.selected(arguments.theorems, arguments.all)
    given = Path(arguments.snapshots) if arguments.snapshots else None
    if given is not None and not given.is_dir():
        raise InvalidInput(f"--snapshots {arguments.snapshots!r} is not a folder")
    results = {}
    for checker in checkers:
        folder = given or (PROJECT_SNAPSHOTS if checker.id in {c.id for c in registry.builtin_checkers()}
                           and PROJECT_SNAPSHOTS.is_dir() else None)
        if arguments.update_snapshots:
            if folder is None:
                raise InvalidInput(f"{checker.id}: name the folder its snapshot goes to (--snapshots DIR)")
            contract.write_snapshot(checker, folder)
        results[checker.id] = contract.check(checker, runs=not arguments.no_runs, snapshots=folder)
    if arguments.json:
        print(json.dumps({theorem: {clause: problems for clause, problems in clauses.items()}
                          for theorem, clauses in results.items()}, indent=2))
    else:
        for theorem, clauses in results.items():
            failing = {clause: problems for clause, problems in clauses.items() if problems}
            held = ", ".join(clause for clause in clauses if clause not in failing)
            print(f"{theorem}: {'holds' if not failing else f'{len(failing)} clause(s) fail'} ({held or 'none'} "
                  f"held{'' if arguments.no_runs is False else '; the runs were left out'})")
            for clause, problems in failing.items():
                for problem in problems:
                    print(f"  {clause}: " + problem.replace("\n", "\n    "))
    return EXIT_FAIL if any(problems for clauses in results.values() for problems in clauses.values()) else EXIT_PASS
