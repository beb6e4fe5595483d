"""Run-time counterexample search for inequalities, with Hypothesis.

`search_counterexample(margin, strategy)` evaluates `margin(example)` (>= 0 where the inequality holds)
on examples drawn by Hypothesis, steering the search towards small margins with `hypothesis.target`
and shrinking any violation to a simple one. The search is seeded, uses no example database, and
reports the smallest margin seen, the example where it occurred and how many examples were tried.

Local refinement: Hypothesis's targeting moves by mutation, so it stops short of the smallest margin in a
continuous family. With `refine` (bounds for some float entries of a dict example), the best example is then
refined by scipy's bounded Powell method over those entries, the others (seeds, layouts, counts) held fixed.
Powell is deterministic, but its path amplifies differences in the last bits of a margin: in the test suite a
margin computed partly in mpmath came out one ulp apart after mpmath's process-wide precision had leaked (fixed in
theorems.activations), and Powell then reached another local minimum. Powell therefore steers on the margin rounded
to a grid of 1e-12 (`STEERING_GRID`), which such differences cross only at the rare grid edge; the margin recorded
is the unrounded one.

Reproducibility: Hypothesis (since 6.1xx) biases generation towards literals found in the "local" modules
loaded in `sys.modules`, so the examples a seeded search draws depend on what the process imported before
(a sweep's worker that ran other theorems drew other correlations, and reported another smallest margin).
The search therefore runs with that pool of local constants empty (`_without_local_constants`); the
examples then depend on the seed alone, which a test on a dask cluster checks bit for bit.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import hypothesis
import numpy as np
import scipy.optimize
from hypothesis import HealthCheck, Phase, strategies
from hypothesis.internal.conjecture import providers as _providers


@dataclass(frozen=True)
class SearchResult:
    smallest_margin: float
    example: Any
    examples: int
    refined: int = 0  # examples the local refinement evaluated (included in `examples`)

    @property
    def violated(self) -> bool:
        return self.smallest_margin < 0


def search_counterexample(margin: Callable[[Any], float], strategy: strategies.SearchStrategy, *,
                          max_examples: int = 100, seed: int = 0, explicit: Sequence[Any] = (),
                          tolerance: float = 0.0, refine: Mapping[str, tuple[float, float]] | None = None,
                          refine_evaluations: int | None = None) -> SearchResult:
    """The smallest margin Hypothesis finds (a negative one is a counterexample). `explicit` examples
    (known tight or adversarial cases) are always tried first, on top of the generated ones. A margin
    within `tolerance` below zero (round-off on a tight case) does not stop the search. With `refine`
    (name -> (low, high) of float entries of a dict example), the best example found is then refined
    locally (`refine_locally`, at most `refine_evaluations` margins, by default `max_examples`)."""
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
    found = SearchResult(state["margin"], state["example"], state["examples"])
    if refine and not found.violated and isinstance(found.example, dict) and math.isfinite(found.smallest_margin):
        found = refine_locally(margin, found, refine, refine_evaluations or max_examples)
    return found


STEERING_GRID = 12  # decimals of the margin that the local refinement steers on


def refine_locally(margin: Callable[[Any], float], found: SearchResult, bounds: Mapping[str, tuple[float, float]],
                   evaluations: int) -> SearchResult:
    """The smallest margin over `found` and the examples scipy's bounded Powell method visits from it, varying
    the entries of `found.example` named in `bounds` within them (at most `evaluations` margins). A margin of +inf
    (nothing claimed there) counts as very large, so the method turns back from it; -inf (a violation) as very
    small."""
    names = [name for name in bounds if isinstance(found.example.get(name), float)]
    if not names:
        return found
    best = {"margin": found.smallest_margin, "example": found.example, "count": 0}

    def objective(point):
        if best["count"] >= evaluations:
            raise _Spent()
        example = dict(found.example, **{name: float(value) for name, value in zip(names, point)})
        value = float(margin(example))
        best["count"] += 1
        if value < best["margin"]:
            best["margin"], best["example"] = value, example
        if math.isnan(value):
            return 1e300
        return round(value, STEERING_GRID) if math.isfinite(value) else math.copysign(1e300, value)

    limits = [bounds[name] for name in names]
    start = np.clip([found.example[name] for name in names], [low for low, _ in limits], [high for _, high in limits])
    try:
        scipy.optimize.minimize(objective, start, method="Powell", bounds=limits,
                                options={"maxfev": evaluations, "xtol": 1e-6, "ftol": 1e-12})
    except _Spent:
        pass
    return SearchResult(best["margin"], best["example"], found.examples + best["count"], best["count"])


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


class _Spent(Exception):
    """Raised by the refinement's objective once its evaluations are spent (Powell's maxfev is checked only
    between line searches)."""


class _Violation(Exception):
    """Raised inside the search so that Hypothesis shrinks the counterexample."""
