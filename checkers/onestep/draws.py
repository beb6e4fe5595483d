"""Draws of the one-step family: the network's sizes from an instance's ratios, and one generator per draw."""

from __future__ import annotations

import numpy as np

from checkers.onestep.simulation import OneStepSetting
from theorems.statement import Instance


def setting_for(instance: Instance, dimension: int, **extra) -> OneStepSetting:
    return OneStepSetting(samples=max(2, round(float(instance["psi1"]) * dimension)), dimension=dimension,
                          width=max(2, round(float(instance["psi2"]) * dimension)),
                          activation=instance["activation"], teacher=instance["teacher"],
                          noise=float(instance["noise"]), **extra)


def draw_generators(seed: np.random.SeedSequence, count: int) -> list[np.random.Generator]:
    return [np.random.default_rng(child) for child in seed.spawn(count)]
