"""Pytest helpers: the contract a checker meets, and asserts that a theorem's check passes and its mutants fail.

Use them in your own test suite so that a changed derivation breaks your CI:

    import pytest
    from checkers.testing import assert_clause, assert_mutants_fail, assert_theorem_holds, contract_cases

    @pytest.mark.parametrize("checker, clause", contract_cases(MY_CHECKER))
    def test_contract(checker, clause):
        assert_clause(checker, clause)              # one test per clause of checkers.contract

    def test_my_theorem():
        assert_theorem_holds(MY_CHECKER, {"activation": "tanh"})
        assert_mutants_fail(MY_CHECKER)

A Checker or a registered theorem id is accepted. Seeds are fixed (default 0), so the assertions are
deterministic; the false-fail rate of each check is the stated one (default 1e-6), and the fidelity is
`thmcheck check`'s default for both helpers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from checkers import contract, registry
from checkers.checker import Checker
from checkers.engine import run_check
from checkers.outcome import FAIL, PASS
from checkers.verdict import Verdict


def _checker(checker_or_id: Checker | str) -> Checker:
    return registry.checker(checker_or_id) if isinstance(checker_or_id, str) else checker_or_id


def assert_theorem_holds(checker_or_id: Checker | str, parameters: Mapping[str, Any] | None = None, *,
                         seed: int = 0, fidelity: str = "default", overrides: Mapping[str, Any] | None = None
                         ) -> Verdict:
    """Run the check and raise AssertionError (with the evidence) unless the verdict is pass. The fidelity is
    `thmcheck check`'s own default, at which a true statement must pass (at quick it may be inconclusive)."""
    verdict = run_check(_checker(checker_or_id), parameters, overrides, seed=seed, fidelity=fidelity)
    if verdict.outcome != PASS:
        raise AssertionError(f"expected {verdict.theorem} to pass:\n{verdict.explain()}")
    return verdict


def assert_mutants_fail(checker_or_id: Checker | str, parameters: Mapping[str, Any] | None = None, *,
                        seed: int = 0, fidelity: str = "default") -> dict[str, Verdict]:
    """Check every named mutant and raise AssertionError naming each one that does not fail."""
    checker = _checker(checker_or_id)
    if not checker.theorem.mutants:
        raise AssertionError(f"{checker.id} has no mutants: nothing shows that its check can fail")
    verdicts = {mutant.name: run_check(checker, parameters, seed=seed, fidelity=fidelity, mutant=mutant.name)
                for mutant in checker.theorem.mutants}
    survivors = [verdict for verdict in verdicts.values() if verdict.outcome != FAIL]
    if survivors:
        raise AssertionError("mutants that were not rejected:\n" + "\n".join(v.explain() for v in survivors))
    return verdicts


def contract_cases(*checkers_or_ids: Checker | str, runs: bool = True) -> list[tuple[Checker, str]]:
    """(checker, clause) for every clause of the contract (`checkers.contract`) and every checker given: the
    arguments of a parametrized test, one test per clause (`runs=False` leaves out the quick check and the
    mutants' runs)."""
    return [(_checker(given), clause) for given in checkers_or_ids for clause in contract.CLAUSES
            if runs or clause not in contract.RUNS]


def assert_clause(checker_or_id: Checker | str, clause: str, *, snapshots: Path | None = None) -> None:
    """Raise AssertionError with the problems unless the checker meets this clause of the contract."""
    checker = _checker(checker_or_id)
    problems = contract.CLAUSES[clause](checker, snapshots=snapshots)
    if problems:
        raise AssertionError(f"{checker.id} breaks the contract's {clause} clause:\n" + "\n".join(problems))


def assert_contract(checker_or_id: Checker | str, *, runs: bool = True, snapshots: Path | None = None) -> None:
    """Raise AssertionError naming every clause of the contract the checker breaks, with its problems."""
    checker = _checker(checker_or_id)
    broken = {clause: problems for clause, problems in contract.check(checker, runs=runs, snapshots=snapshots).items()
              if problems}
    if broken:
        raise AssertionError(f"{checker.id} breaks the contract:\n" + "\n".join(
            f"{clause}: {problem}" for clause, problems in broken.items() for problem in problems))
