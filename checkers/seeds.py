"""Seeds by identity: one root seed, spawned per task by a stable hash of the task's name.

`seed_sequence(root, "dual-kernel", "monte-carlo", 0)` is the same SeedSequence in every process,
whatever the order in which tasks run or the number of workers, so results are reproducible with one
worker or many. (Python's `hash` is salted per process, so a SHA-256 digest is used instead.)
"""

from __future__ import annotations

import hashlib

import numpy as np


def identity_key(*identity) -> tuple[int, ...]:
    """Four 32-bit words of the SHA-256 of the identity's parts, as a SeedSequence spawn key."""
    digest = hashlib.sha256("\x1f".join(map(str, identity)).encode()).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


def seed_sequence(root_seed: int, *identity) -> np.random.SeedSequence:
    """The SeedSequence of one task: the root seed's child at the identity's spawn key."""
    if isinstance(root_seed, bool) or not isinstance(root_seed, (int, np.integer)) or root_seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {root_seed!r}")
    return np.random.SeedSequence(int(root_seed), spawn_key=identity_key(*identity))


def generator(root_seed: int, *identity) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(root_seed, *identity))
