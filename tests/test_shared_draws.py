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


def test_every_version_of_a_paired_run_rereads_a_checks_draws_at_every_stage_and_size():
    """A check's draws are keyed per stage and size (spike-outlier reads three sizes at each of default's three stages
    and high's four); a paired calibration runs each version on them in turn, so the memo keeps them all for the next
    version, and computes each once."""
    forget()
    calls = []
    keys = [("stage", stage, "size", size) for stage in range(4) for size in range(3)]
    for _version in range(3):
        for key in keys:
            memoized(key, lambda key=key: calls.append(key))
    assert calls == keys
    forget()
