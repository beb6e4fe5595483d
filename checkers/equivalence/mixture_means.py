"""Checker of mixture-means: per draw, one set of Gaussian samples, weights, spikes and label direction, read in three
data models (zero means, means +-mu, zero means with a spike ||mu||^2 u u^T), each through mixture-equivalence's
experiment (`checkers.equivalence.mixture_readout`'s conventions): one step, then ridge on the network's features and
on the Hermite model's."""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial.hermite_e import hermeval

from checkers.budget import Budget
from checkers.checker import Checker, Draws
from checkers.equivalence.mixture_readout import COEFFICIENT_DIGITS, TEST_FACTOR
from checkers.equivalence.ridge import ridge_errors
from checkers.onestep.simulation import first_layer_gradient
from checkers.shared_draws import cached
from theorems.equivalence import mixture_means
from theorems.equivalence.mixture_equivalence import hermite_model
from theorems.statement import Instance

FIRST_STAGE_DRAWS = 32
MODELS = ("zero", "means", "spike")


def _component_samples(rng: np.random.Generator, count: int, spikes, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """(samples of the zero-mean mixture, their components): N(0, I) stretched by sqrt(1 + theta) along g_c."""
    components = rng.integers(0, 2, count)
    x = rng.standard_normal((count, len(spikes[0])))
    for component, spike in enumerate(spikes):
        rows = components == component
        x[rows] += np.outer((x[rows] @ spike) * (math.sqrt(1 + theta) - 1), spike)
    return x, components


def _in_model(model: str, x: np.ndarray, components: np.ndarray, direction: np.ndarray, mean_norm: float):
    """The samples of one data model from the same zero-mean draws."""
    if model == "means":
        return x + np.where(components[:, None] == 0, 1.0, -1.0) * mean_norm * direction
    if model == "spike":
        return x + np.outer((x @ direction) * (math.sqrt(1 + mean_norm**2) - 1), direction)
    return x


@cached(maxsize=256)
def paired_errors(parameters: tuple[tuple[str, str], ...], entropy: tuple[int, ...]) -> dict[str, tuple]:
    """Per data model: (network train, network generalization, Hermite train, Hermite generalization), as Demir and
    Dogan report them (train with the ridge penalty, half mean squared errors), at n = m = k = SIZE."""
    instance = mixture_means.THEOREM.instance(dict(parameters))
    size, sigma = mixture_means.SIZE, instance["activation"]
    alpha, beta, penalty = (float(instance[name]) for name in ("alpha", "beta", "penalty"))
    mean_norm, degree = float(instance["mean_norm"]), int(instance.constant("degree"))
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    theta = size ** (beta * (1 - alpha))
    spikes = [np.linalg.qr(rng.standard_normal((size, 1)))[0][:, 0] for _ in range(2)]
    direction = rng.standard_normal(size)
    direction /= np.linalg.norm(direction)
    xi = rng.standard_normal(size)
    xi /= np.linalg.norm(xi) * math.sqrt(1 + theta / 2 * (1 + abs(float(spikes[0] @ spikes[1]))))
    samples = [_component_samples(rng, count, spikes, theta) for count in (size, size, TEST_FACTOR * size)]
    trace = size + theta
    w0 = rng.standard_normal((size, size)) / math.sqrt(trace)
    a = rng.standard_normal(size) / math.sqrt(size)
    scale = math.sqrt(size / trace)
    coefficients, rest = hermite_model(sigma, degree, COEFFICIENT_DIGITS, scale)
    coefficients, rest = [float(c.value) for c in coefficients], float(rest.value)
    noises = (rng.standard_normal((size, size)), rng.standard_normal((TEST_FACTOR * size, size)))
    root = math.sqrt(size)
    errors = {}
    for model in MODELS:
        x, ridge_x, test_x = (_in_model(model, *pair, direction, mean_norm) for pair in samples)
        y, ridge_y, test_y = (np.maximum(v @ xi, 0.0) for v in (x, ridge_x, test_x))
        w1 = w0 + size ** (alpha * beta) * first_layer_gradient(x, y, w0, a, sigma)
        pre, test_pre = ridge_x @ w1, test_x @ w1
        features = ((sigma(pre), sigma(test_pre)),
                    (hermeval(pre / scale, coefficients) + rest * noises[0],
                     hermeval(test_pre / scale, coefficients) + rest * noises[1]))
        row = []
        for train_features, test_features in features:
            result = ridge_errors(train_features / root, ridge_y, test_features / root, test_y, (penalty * size,))
            row += [result.train[0] / 2 + penalty / 2 * result.weight_norms[0], result.test[0] / 2]
        errors[model] = (row[0], row[1], row[2], row[3])
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
