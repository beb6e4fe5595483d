"""Shared draws are memoized by content: what the simulation depends on, never a display title."""

from dataclasses import replace

import numpy as np

from checkers import registry
from checkers.budget import FIDELITIES, Budget
from checkers.shared_draws import cached, draw_key, forget, memoized


def _key(instance, **options):
    return draw_key(instance, Budget(FIDELITIES["quick"], 0), np.random.SeedSequence(0), "draws", **options)


def test_the_key_follows_the_constants_and_definitions_not_the_title():
    theorem = registry.theorem("spike-decomposition")
    base = theorem.instance()
    assert _key(base) == _key(replace(theorem, title="another title").instance())
    assert _key(base) != _key(theorem.instance(overrides={"mu1": "0.5"}))
    assert _key(base) != _key(theorem.mutated("random-direction").instance())
    assert _key(base, mutant_blind=True) == _key(theorem.mutated("random-direction").instance(), mutant_blind=True)


def test_forget_empties_the_memo_and_every_cached_run():
    calls = []

    @cached(maxsize=2)
    def run(x):
        calls.append(x)
        return x

    run(1), run(1), memoized("k", lambda: calls.append("memo"))
    forget()
    run(1), memoized("k", lambda: calls.append("memo"))
    assert calls == [1, "memo", 1, "memo"]
