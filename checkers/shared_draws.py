"""Draws shared by the predictions of one check, memoized by the content that determines them.

A checker with `shared_draws=True` gets the same seed for every prediction of a check, so its readers can
simulate once and read several observables: they compute the draws through `memoized(draw_key(...), compute)`.
Runs that several checks share (a gradient-flow trajectory, a training run) are cached with `cached`, keyed by
their arguments. Both caches are bounded, and `forget()` empties every one of them (the tests use it to show
that a rerun recomputes the same numbers).

A key holds everything the result depends on: the array backend (`checkers.arrays`, whose numbers differ by
round-off), the theorem's id, the parameters, the budget level and the seed, and, unless the simulation reads
nothing of the statement (`mutant_blind`), the values of the instance's constants and the identities of its
definitions, so a mutant or an override that changes what is simulated never reads another version's draws.
"""

from __future__ import annotations

import functools

import numpy as np

from checkers import arrays
from checkers.budget import Budget
from theorems.statement import Instance

_MEMO: dict = {}
# The keys one check reads are its stages times its sizes (spike-outlier at high fidelity: 4 x 3), and every version of
# a paired calibration reads them again in turn: with room for fewer, each version redraws everything (with 8,
# spike-outlier's default calibration, whose statement now reads every stage, redrew for each of its six versions).
# The memoized values are per-draw readings (numbers per draw, not matrices).
_SIZE = 32
_CACHES: list = []


def memoized(key, compute):
    """compute() once per key and backend; the few most recent keys are kept."""
    key = (arrays.current(), key)
    if key not in _MEMO:
        if len(_MEMO) >= _SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = compute()
    return _MEMO[key]


def cached(maxsize: int):
    """functools.lru_cache keyed by the backend too, registered so that `forget()` clears it."""
    def decorate(function):
        def compute(backend, *args, **keywords):
            return function(*args, **keywords)
        on_backend = functools.lru_cache(maxsize=maxsize)(compute)

        @functools.wraps(function)
        def wrapped(*args, **keywords):
            return on_backend(arrays.current(), *args, **keywords)
        wrapped.cache_clear, wrapped.cache_info = on_backend.cache_clear, on_backend.cache_info
        _CACHES.append(wrapped)
        return wrapped
    return decorate


def forget() -> None:
    """Drop every memoized draw and cached run."""
    _MEMO.clear()
    for cache in _CACHES:
        cache.cache_clear()


def _identity(value) -> str:
    """A definition's identity: a function by its module and qualified name, anything else by its repr."""
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', repr(value))}"
    return repr(value)


def draw_key(instance: Instance, budget: Budget, seed: np.random.SeedSequence, *extra, mutant_blind: bool = False):
    """The identity of one check's draws (see the module docstring)."""
    key = (instance.theorem.id, tuple(sorted(instance.describe_parameters().items())), budget.level, seed.entropy,
           seed.spawn_key, *extra)
    if mutant_blind:
        return key
    statement = (tuple((name, str(quantity.value)) for name, quantity in sorted(instance.constants.items())),
                 tuple((name, _identity(value)) for name, value in sorted(instance.theorem.definitions.items())))
    return key + statement
