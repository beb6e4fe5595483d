"""Run-time counterexample search for inequalities, with Hypothesis.

`search_counterexample(margin, strategy)` evaluates `margin(example)` (>= 0 where the inequality holds)
on examples drawn by Hypothesis, steering the search towards small margins with `hypothesis.target`
and shrinking any violation to a simple one. The search is seeded, uses no example database, and
reports the smallest margin seen, the example where it occurred and how many examples were tried.

Reproducibility: Hypothesis (since 6.1xx) biases generation towards literals found in the "local" modules
loaded in `sys.modules`, so the examples a seeded search draws depend on what the process imported before
(a sweep's worker that ran other theorems drew other correlations, and reported another smallest margin).
The search therefore runs with that pool of local constants empty (`_without_local_constants`); the
examples then depend on the seed alone, which a test on a dask cluster checks bit for bit.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, strategies
from hypothesis.internal.conjecture import providers as _providers


@dataclass(frozen=True)
class SearchResult:
    smallest_margin: float
    example: Any
    examples: int

    @property
    def violated(self) -> bool:
        return self.smallest_margin < 0


def search_counterexample(margin: Callable[[Any], float], strategy: strategies.SearchStrategy, *,
                          max_examples: int = 100, seed: int = 0, explicit: Sequence[Any] = (),
                          tolerance: float = 0.0) -> SearchResult:
    """The smallest margin Hypothesis finds (a negative one is a counterexample). `explicit` examples
    (known tight or adversarial cases) are always tried first, on top of the generated ones. A margin
    within `tolerance` below zero (round-off on a tight case) does not stop the search."""
    state = {"margin": float("inf"), "example": None, "examples": 0}

    @hypothesis.seed(seed)
    @hypothesis.settings(max_examples=max_examples, database=None, deadline=None, derandomize=False,
                         phases=(Phase.explicit, Phase.generate, Phase.target, Phase.shrink),
                         suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @hypothesis.given(strategy)
    def probe(example):
        value = float(margin(example))
        state["examples"] += 1
        if value < state["margin"]:
            state["margin"], state["example"] = value, example
        if math.isfinite(value):  # an infinite margin (nothing claimed there) steers nothing
            hypothesis.target(-value, label="negative margin")
        if value < -tolerance:
            raise _Violation()

    for example in reversed(explicit):
        probe = hypothesis.example(example)(probe)
    with _without_local_constants():
        try:
            probe()
        except _Violation:
            pass
    return SearchResult(state["margin"], state["example"], state["examples"])


@contextlib.contextmanager
def _without_local_constants():
    """Hypothesis's pool of literals from the loaded modules, emptied for the duration (see the module docstring)."""
    empty = _providers.Constants()
    original = _providers._get_local_constants
    _providers.CONSTANTS_CACHE.cache.clear()
    _providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        _providers._get_local_constants = original
        _providers.CONSTANTS_CACHE.cache.clear()


class _Violation(Exception):
    """Raised inside the search so that Hypothesis shrinks the counterexample."""
