"""Draws shared by the predictions of one check: a small memo keyed by the check's identity, parameters and seed.

A checker with `shared_draws=True` gets the same seed for every prediction of a check. Its observer can then
simulate once and read several observables, by computing the draws through `memoized(draw_key(...), compute)`.
"""

from __future__ import annotations

import numpy as np

from checkers.check import Budget
from theorems.statement import Instance

_MEMO: dict = {}
_SIZE = 8


def memoized(key, compute):
    """compute() once per key; the few most recent keys are kept."""
    if key not in _MEMO:
        if len(_MEMO) >= _SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = compute()
    return _MEMO[key]


def forget() -> None:
    """Drop every memoized draw (tests use it to show that a rerun recomputes the same numbers)."""
    _MEMO.clear()


def draw_key(instance: Instance, budget: Budget, seed: np.random.SeedSequence, *extra, mutant_blind: bool = False):
    """The identity of one check's draws. With `mutant_blind` (a simulation that reads no constant or definition of
    the statement) the draws are shared by its mutants too."""
    name = instance.theorem.id if mutant_blind else instance.theorem.title
    return (name, tuple(sorted(instance.describe_parameters().items())), budget.level, seed.entropy, seed.spawn_key,
            *extra)
