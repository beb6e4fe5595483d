"""Checker of mixture-means: per draw, one set of Gaussian samples, weights, spikes and label direction, read in three
data models (zero means, means +-mu, zero means with a spike ||mu||^2 u u^T), each through mixture-equivalence's
experiment (`checkers.equivalence.mixture_readout`'s conventions): one step, then ridge on the network's features and
on the Hermite model's."""

from __future__ import annotations

import math

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Draws
from checkers.equivalence.mixture_draws import (
    hermite_features,
    mean_shifted,
    mixture_draw,
    random_direction,
    readout_errors,
    stepped_preactivations,
)
from checkers.shared_draws import cached
from theorems.equivalence import mixture_means
from theorems.statement import Instance

FIRST_STAGE_DRAWS = 32
MODELS = ("zero", "means", "spike")


def _in_model(model: str, x: np.ndarray, components: np.ndarray, direction: np.ndarray, mean_norm: float):
    """The samples of one data model from the same zero-mean draws."""
    if model == "means":
        return mean_shifted(x, components, direction, mean_norm)
    if model == "spike":
        return x + np.outer((x @ direction) * (math.sqrt(1 + mean_norm**2) - 1), direction)
    return x


@cached(maxsize=256)
def paired_errors(parameters: tuple[tuple[str, str], ...], entropy: tuple[int, ...]) -> dict[str, tuple]:
    """Per data model: (network train, network generalization, Hermite train, Hermite generalization), as Demir and
    Dogan report them, at n = m = k = SIZE; one draw of mixture-equivalence's experiment, then the means' direction
    and the Hermite model's rest, the same in every model."""
    instance = mixture_means.THEOREM.instance(dict(parameters))
    sigma, alpha, beta = instance["activation"], float(instance["alpha"]), float(instance["beta"])
    penalty, mean_norm = float(instance["penalty"]), float(instance["mean_norm"])
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    draw = mixture_draw(mixture_means.SIZE, alpha, beta, rng)
    direction = random_direction(draw.size, rng)  # as mixture_draw draws it where means are asked for
    rest_seed = np.random.SeedSequence(rng.integers(2**63))
    model = hermite_features(sigma, int(instance.constant("degree")), draw.scale)
    errors = {}
    for data in MODELS:
        inputs = tuple(_in_model(data, x, components, direction, mean_norm)
                       for x, components in zip(draw.inputs, draw.components))
        pre, test_pre, ridge_y, test_y = stepped_preactivations(draw, alpha, beta, sigma, inputs)
        rest = np.random.default_rng(rest_seed)
        errors[data] = (*readout_errors(sigma(pre), sigma(test_pre), ridge_y, test_y, penalty),
                        *readout_errors(model(pre, rest), model(test_pre, rest), ridge_y, test_y, penalty))
    return errors


def read_draws(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Draws:
    """The paired draws, with the Hermite model's gap shifts by the means reported beside them (not claimed)."""
    count = budget.scaled(FIRST_STAGE_DRAWS, 2 ** 0.5)
    parameters = tuple(sorted(instance.describe_parameters().items()))
    draws = tuple(paired_errors(parameters, tuple(int(v) for v in np.random.SeedSequence(
        seed.entropy, spawn_key=(*seed.spawn_key, index)).generate_state(4))) for index in range(count))
    shifts = np.array([[errors["means"][2 + which] / errors["means"][which]
                        - errors["zero"][2 + which] / errors["zero"][which] for which in (0, 1)]
                       for errors in draws])
    spread = shifts.std(axis=0, ddof=1) / np.sqrt(count)
    return Draws(draws, f"{count} paired draws at n = m = k = {mixture_means.SIZE}, ||mu|| = "
                        f"{instance.describe_parameters()['mean_norm']}, three data models from the same samples; the "
                        f"means shift the Hermite model's train gap by {shifts[:, 0].mean():+.4f} +- {spread[0]:.4f} "
                        f"and its generalization gap by {shifts[:, 1].mean():+.4f} +- {spread[1]:.4f} (reported)")


CHECKER = Checker(
    theorem=mixture_means.THEOREM,
    simulation="paired draws at n = m = k = 250 in three data models from the same samples (zero means, means +-mu, "
               "a spike ||mu||^2 u u^T): one step, ridge on the network's and on the Hermite model's features",
    readers={"means-act-as-a-spike": read_draws},
    shared_draws=True,
    second_point={"mean_norm": "10", "beta": "0.45"},
)
