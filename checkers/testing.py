"""Pytest helpers: assert that a theorem's check passes and that each of its mutants fails.

Use them in your own test suite so that a changed derivation breaks your CI:

    from checkers.testing import assert_theorem_holds, assert_mutants_fail

    def test_my_theorem():
        assert_theorem_holds(MY_CHECKER, {"activation": "tanh"})
        assert_mutants_fail(MY_CHECKER)

A Checker or a registered theorem id is accepted. Seeds are fixed (default 0), so the assertions are
deterministic; the false-fail rate of each check is the stated one (default 1e-6), and the fidelity is
`thmcheck check`'s default for both helpers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from checkers import registry
from checkers.check import Checker, run_check
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
