"""Run-time counterexample search for inequalities, with Hypothesis.

`search_counterexample(margin, strategy)` evaluates `margin(example)` (>= 0 where the inequality holds)
on examples drawn by Hypothesis, steering the search towards small margins with `hypothesis.target`
and shrinking any violation to a simple one. The search is seeded, uses no example database, and
reports the smallest margin seen, the example where it occurred and how many examples were tried.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, strategies


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
    try:
        probe()
    except _Violation:
        pass
    return SearchResult(state["margin"], state["example"], state["examples"])


class _Violation(Exception):
    """Raised inside the search so that Hypothesis shrinks the counterexample."""
