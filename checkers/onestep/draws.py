"""Draws of the one-step family: the network's sizes from an instance's ratios, one generator per draw, and
whether a growing step's corrections can be extrapolated across the sizes drawn."""

from __future__ import annotations

import numpy as np

from checkers.convergence import require_decaying_correction, require_small_expansion_parameter
from checkers.onestep.simulation import OneStepSetting
from theorems.onestep import common as onestep
from theorems.statement import Instance


def setting_for(instance: Instance, dimension: int, **extra) -> OneStepSetting:
    return OneStepSetting(samples=max(2, round(float(instance["psi1"]) * dimension)), dimension=dimension,
                          width=max(2, round(float(instance["psi2"]) * dimension)),
                          activation=instance["activation"], teacher=instance["teacher"],
                          noise=float(instance["noise"]), **extra)


def draw_generators(seed: np.random.SeedSequence, count: int) -> list[np.random.Generator]:
    return [np.random.default_rng(child) for child in seed.spawn(count)]


def require_extrapolable_step(instance: Instance, sizes, *, what: str) -> None:
    """Unresolved, before any draw, where eta = n^alpha leaves corrections that the sizes n = d = N cannot
    extrapolate: of order n^(2 alpha - 1) too slow to decay (`require_decaying_correction`), or a series in the
    shift variance s^2 (`theorems.onestep.common.shift_variance`) that has not started to fall off at the smallest
    size (`require_small_expansion_parameter`; docs/derivations/onestep.md#spike-count)."""
    require_decaying_correction(1 - 2 * float(instance["alpha"]), sizes, what=what, size_name="n")
    require_small_expansion_parameter(
        onestep.shift_variance(instance, sizes[0]), what=what, where=f"n = {sizes[0]}",
        parameter="the variance of a preactivation's shift, s^2 = shift_scale n^(2 alpha - 1),")
