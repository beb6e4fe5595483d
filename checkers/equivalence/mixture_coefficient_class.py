"""Checker of mixture-coefficient-class: paired draws of mixture-equivalence's experiment at n = m = k = 250, one per
activation (sigma, and the statement's flipped and zeroed partners) on the same data, weights and label direction."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.polynomial import hermite_e

from checkers.budget import Budget
from checkers.checker import Checker, Draws
from checkers.equivalence.mixture_draws import mixture_draw, readout_errors, stepped_preactivations
from checkers.shared_draws import cached
from theorems.activations import Activation
from theorems.equivalence import mixture_coefficient_class
from theorems.statement import Instance

FIRST_STAGE_DRAWS = 48


def numerical_partner(partner: Activation, sigma: Activation, multiple: float, degree: int, scale: float
                      ) -> Activation:
    """`partner` = sigma - multiple He_degree(z/scale), evaluated as sigma's own numpy form minus the polynomial in
    powers of z by Horner's rule: the statement's lambdified sum computes z**k by a general power, about 40 times
    slower than sigma (4 ms a call on 250 x 250 against 0.1), which was half of this check's time."""
    term = np.zeros(degree + 1)
    term[degree] = multiple
    powers = hermite_e.herme2poly(term) / scale ** np.arange(degree + 1)  # in powers of z itself
    slopes = powers[1:] * np.arange(1, degree + 1)

    def value(x):
        return sigma(x) - _horner(x, powers)

    def value_and_derivative(x, out):
        polynomial, derivative = _horner(x, powers), _horner(x, slopes)
        sigma.value_and_derivative(x, out)
        out -= polynomial
        x -= derivative

    return replace(partner, numpy_function=value, numpy_value_and_derivative=value_and_derivative)


def _horner(x: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """sum_j coefficients[j] x^j by Horner's rule, in place on one array of x's shape and dtype."""
    result = np.full_like(x, coefficients[-1])
    for coefficient in coefficients[-2::-1]:
        result *= x
        result += coefficient
    return result


@cached(maxsize=16)
def _point(parameters: tuple[tuple[str, str], ...]) -> tuple:
    """(alpha, beta, penalty, the three activations by name): the partners are symbolic constructions (tens of ms
    each), so they are built once per parameter point, not once per draw, and evaluated numerically
    (`numerical_partner`)."""
    instance = mixture_coefficient_class.THEOREM.instance(dict(parameters))
    sigma = instance["activation"]
    k, coefficient = mixture_coefficient_class.flipped_coefficient(instance)
    b = mixture_coefficient_class.scale(instance)
    partners = mixture_coefficient_class.partner_activations(instance)
    activations = {"sigma": sigma, **{name: numerical_partner(partners[name], sigma, factor * coefficient, k, b)
                                      for name, factor in (("flipped", 2), ("zeroed", 1))}}
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
