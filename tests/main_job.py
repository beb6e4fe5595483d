"""The README's main job, `thmcheck check --all --fidelity quick`, as verdicts computed once per test session.

`quick_verdict(checker)` is run_check at the arguments the command uses for each theorem (seed 0, quick fidelity,
default parameters, no overrides, no mutant). The contract's quick-pass and same-seed tests and the command-line test
of the main job read it, so the suite computes each of these checks once instead of three times, and `pytest -k
<id>` computes only the one it selects.
"""

import pytest

from checkers import shared_draws
from checkers.budget import DEFAULT_FALSE_FAIL_RATE
from checkers.checker import Checker
from checkers.engine import run_check
from checkers.verdict import Verdict

_VERDICTS: dict[str, Verdict] = {}

# The tests that read these verdicts run in one pytest-xdist worker (`--dist loadgroup`), so that the memo is shared
MAIN_JOB = pytest.mark.xdist_group("main_job")


def quick_verdict(checker: Checker) -> Verdict:
    if checker.id not in _VERDICTS:
        _VERDICTS[checker.id] = run_check(checker, seed=0, fidelity="quick")
    return _VERDICTS[checker.id]


def is_main_job_call(parameters, overrides, *, seed, fidelity, false_fail_rate, mutant, max_minutes, backend) -> bool:
    """Whether a run_check call from the command line is one of the main job's (its cap only refuses work before
    the draws: it changes no verdict)."""
    return (not parameters and not overrides and seed == 0 and fidelity == "quick"
            and false_fail_rate == DEFAULT_FALSE_FAIL_RATE and mutant is None and backend == "numpy")


def forget_cached_draws() -> None:
    """Empty the checkers' memo of shared draws and their cached runs, so that a rerun recomputes."""
    shared_draws.forget()


@pytest.fixture
def main_job_verdicts(monkeypatch):
    """The command line's runs at the main job's arguments answered from `quick_verdict` (the other runs are real):
    for a command-line test of what the command does with verdicts the session computes anyway."""
    from checkers.cli import running
    real_run_check = running.run_check

    def run_check_or_shared(checker, parameters, overrides, **options):
        if is_main_job_call(parameters, overrides, **options):
            return quick_verdict(checker)
        return real_run_check(checker, parameters, overrides, **options)

    monkeypatch.setattr(running, "run_check", run_check_or_shared)
