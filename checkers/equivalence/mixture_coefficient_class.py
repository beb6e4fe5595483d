"""Checker of mixture-coefficient-class: paired draws of mixture-equivalence's experiment at n = m = k = 250, one per
activation (sigma, and the statement's flipped and zeroed partners) on the same data, weights and label direction."""

from __future__ import annotations

import math

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Draws
from checkers.equivalence.mixture_readout import TEST_FACTOR
from checkers.equivalence.ridge import ridge_errors
from checkers.onestep.simulation import GaussianMixture, first_layer_gradient
from checkers.shared_draws import cached
from theorems.equivalence import mixture_coefficient_class
from theorems.statement import Instance

FIRST_STAGE_DRAWS = 48


@cached(maxsize=256)
def paired_errors(parameters: tuple[tuple[str, str], ...], entropy: tuple[int, ...]) -> dict[str, tuple]:
    """Per activation ("sigma", "flipped", "zeroed"): the network's (train error with the penalty, generalization
    error), half mean squared, at n = m = k = SIZE on one draw of data, weights and label direction."""
    instance = mixture_coefficient_class.THEOREM.instance(dict(parameters))
    size = mixture_coefficient_class.SIZE
    alpha, beta, penalty = (float(instance[name]) for name in ("alpha", "beta", "penalty"))
    activations = {"sigma": instance["activation"], **mixture_coefficient_class.partner_activations(instance)}
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    theta = size ** (beta * (1 - alpha))
    spikes = tuple(np.linalg.qr(rng.standard_normal((size, 1)))[0] for _ in range(2))
    mixture = GaussianMixture((0.5, 0.5), spikes, (np.array([theta]), np.array([theta])))
    xi = rng.standard_normal(size)
    xi /= np.linalg.norm(xi) * math.sqrt(1 + theta / 2 * (1 + abs(float(spikes[0][:, 0] @ spikes[1][:, 0]))))
    x, ridge_x, test_x = (mixture.sample(count, size, rng)[0] for count in (size, size, TEST_FACTOR * size))
    y, ridge_y, test_y = (np.maximum(v @ xi, 0.0) for v in (x, ridge_x, test_x))
    w0 = rng.standard_normal((size, size)) / math.sqrt(mixture.trace(0, size))
    a = rng.standard_normal(size) / math.sqrt(size)
    root = math.sqrt(size)
    errors = {}
    for name, sigma in activations.items():
        w1 = w0 + size ** (alpha * beta) * first_layer_gradient(x, y, w0, a, sigma)
        result = ridge_errors(sigma(ridge_x @ w1) / root, ridge_y, sigma(test_x @ w1) / root, test_y,
                              (penalty * size,))
        errors[name] = (result.train[0] / 2 + penalty / 2 * result.weight_norms[0], result.test[0] / 2)
    return errors


def read_draws(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Draws:
    count = budget.scaled(FIRST_STAGE_DRAWS, 2 ** 0.5)
    parameters = tuple(sorted(instance.describe_parameters().items()))
    draws = tuple(paired_errors(parameters, tuple(int(v) for v in np.random.SeedSequence(
        seed.entropy, spawn_key=(*seed.spawn_key, index)).generate_state(4))) for index in range(count))
    k, coefficient = mixture_coefficient_class.flipped_coefficient(instance)
    return Draws(draws, f"{count} paired draws at n = m = k = {mixture_coefficient_class.SIZE}; c_{k}(b) = "
                        f"{coefficient:.6g} flipped (the partner) or zeroed (the mutant's)")


CHECKER = Checker(
    theorem=mixture_coefficient_class.THEOREM,
    simulation="paired draws at n = m = k = 250: one step and ridge with sigma and with sigma's Hermite coefficient "
               "above D flipped (or zeroed), on the same data",
    readers={"generalization-class": read_draws, "train-class": read_draws},
    shared_draws=True,
    second_point={"activation": "softplus", "beta": "0.45"},
    slow_rerun=True,
)
