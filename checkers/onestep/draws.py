"""Draws of the one-step family: the network's sizes from an instance's ratios, one generator per draw, what a draw
costs, and whether a growing step's corrections can be extrapolated across the sizes drawn."""

from __future__ import annotations

import numpy as np

from checkers.convergence import require_decaying_correction, require_small_expansion_parameter
from checkers.cost import Cost
from checkers.onestep.simulation import OneStepSetting
from theorems.errors import InvalidInput
from theorems.onestep import common as onestep
from theorems.statement import Instance

# The largest float64 matrix a draw may form (n x N features, N x N Gram or covariance, n x d data): 2 GiB. The
# ratios' domains reach psi2 = 50, which at d = 800 asks for a 40 000 x 40 000 covariance (12.8 GB), past any
# machine this runs on; such a request is refused with the sizes, not left to exhaust memory.
MAX_MATRIX_ENTRIES = 2**28


def setting_for(instance: Instance, dimension: int, **extra) -> OneStepSetting:
    """The network's sizes at input dimension d: n = psi1 d samples, N = psi2 d neurons (InvalidInput where a draw's
    largest matrix would exceed MAX_MATRIX_ENTRIES)."""
    samples = max(2, round(float(instance["psi1"]) * dimension))
    width = max(2, round(float(instance["psi2"]) * dimension))
    rows, columns = max((samples, width), (width, width), (samples, dimension), key=lambda shape: shape[0] * shape[1])
    if rows * columns > MAX_MATRIX_ENTRIES:
        raise InvalidInput(f"psi1 = {instance['psi1']} and psi2 = {instance['psi2']} give n = {samples} samples and "
                           f"N = {width} neurons at d = {dimension}: a {rows} x {columns} float64 matrix "
                           f"({8 * rows * columns / 2**30:.1f} GiB) is above the {8 * MAX_MATRIX_ENTRIES / 2**30:.0f} "
                           "GiB a draw may form here; lower psi1 or psi2")
    return OneStepSetting(samples=samples, dimension=dimension, width=width, activation=instance["activation"],
                          teacher=instance["teacher"], noise=float(instance["noise"]), **extra)


def step_cost(setting: OneStepSetting, draws: int, *, products: int = 2) -> Cost:
    """`draws` one-step draws at `setting`: `products` n x d x N matrix products a draw (X W_0 and X^T M for the step,
    two more for fresh features before and after it), holding X, W_0, W_1, the n x N preactivations and G_0 at
    once, and as many n x N feature matrices as products beyond the step's. The work is counted in float64
    multiply-adds: a float32 one costs half."""
    n, d, width = setting.samples, setting.dimension, setting.width
    entries = n * d + 2 * d * width + n * width + max(products - 2, 0) * n * width
    itemsize = np.dtype(setting.dtype).itemsize
    return Cost(draws * products * n * d * width * itemsize / 8, entries * itemsize, f"n = {n}, d = {d}, N = {width}")


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
