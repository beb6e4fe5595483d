"""Checker of mixture-coefficient-class: paired draws of mixture-equivalence's experiment at n = m = k = 250, one per
activation (sigma, and the statement's flipped and zeroed partners) on the same data, weights and label direction."""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Draws
from checkers.equivalence.mixture_draws import mixture_draw, readout_errors, stepped_preactivations
from checkers.shared_draws import cached
from theorems.equivalence import mixture_coefficient_class
from theorems.statement import Instance

FIRST_STAGE_DRAWS = 48


@cached(maxsize=16)
def _point(parameters: tuple[tuple[str, str], ...]) -> tuple:
    """(alpha, beta, penalty, the three activations by name): the partners are symbolic constructions (tens of ms
    each), so they are built once per parameter point, not once per draw."""
    instance = mixture_coefficient_class.THEOREM.instance(dict(parameters))
    activations = {"sigma": instance["activation"], **mixture_coefficient_class.partner_activations(instance)}
    return (*(float(instance[name]) for name in ("alpha", "beta", "penalty")), activations)


@cached(maxsize=256)
def paired_errors(parameters: tuple[tuple[str, str], ...], entropy: tuple[int, ...]) -> dict[str, tuple]:
    """Per activation ("sigma", "flipped", "zeroed"): the network's (train error with the penalty, generalization
    error), half mean squared, at n = m = k = SIZE on one draw of mixture-equivalence's experiment."""
    alpha, beta, penalty, activations = _point(parameters)
    draw = mixture_draw(mixture_coefficient_class.SIZE, alpha, beta, np.random.default_rng(np.random.SeedSequence(
        entropy)))
    errors = {}
    for name, sigma in activations.items():
        pre, test_pre, ridge_y, test_y = stepped_preactivations(draw, alpha, beta, sigma)
        errors[name] = readout_errors(sigma(pre), sigma(test_pre), ridge_y, test_y, penalty)
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
