"""One draw of Demir and Dogan's experiment, shared by the mixture checks that compare versions of it on the same
draw (mixture-means, mixture-coefficient-class): the data, label direction and initial network, one step with a
given activation, and ridge on given features, with the conventions of `checkers.equivalence.mixture_readout`.

mixture-equivalence's own draw (`mixture_readout.mixture_errors`) draws the same quantities in the same order; it
is to move onto this module when its calibration rows are next rerun."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.polynomial.hermite_e import hermeval

from checkers.equivalence.mixture_readout import COEFFICIENT_DIGITS, TEST_FACTOR
from checkers.equivalence.ridge import ridge_errors
from checkers.onestep.simulation import GaussianMixture, first_layer_gradient
from theorems.activations import Activation
from theorems.equivalence.mixture_equivalence import hermite_model


@dataclass(frozen=True)
class MixtureDraw:
    """One draw of the experiment's data, label direction and initial network at n = m = k = `size`: the step,
    ridge and test inputs (rows, with the components' means +-mu where asked) and their components."""

    size: int
    scale: float                # b = sqrt(n / Tr Sigma_c)
    xi: np.ndarray              # label direction
    inputs: tuple[np.ndarray, np.ndarray, np.ndarray]       # step, ridge and test inputs
    components: tuple[np.ndarray, np.ndarray, np.ndarray]   # their components
    w0: np.ndarray              # F, n x k
    a: np.ndarray               # second layer


def random_direction(size: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random unit vector."""
    direction = rng.standard_normal(size)
    return direction / np.linalg.norm(direction)


def mean_shifted(x: np.ndarray, components: np.ndarray, direction: np.ndarray, mean_norm: float) -> np.ndarray:
    """The samples with component 0 moved by +mu and component 1 by -mu, mu = mean_norm * direction."""
    return x + np.where(components[:, None] == 0, 1.0, -1.0) * mean_norm * direction


def mixture_draw(size: int, alpha: float, beta: float, rng: np.random.Generator,
                 mean_norm: float = 0.0) -> MixtureDraw:
    """Spikes, xi, the step samples, F, w, then the ridge and test samples, in that order from `rng`; then, where
    mean_norm > 0, the means' direction."""
    theta = size ** (beta * (1 - alpha))
    spikes = tuple(np.linalg.qr(rng.standard_normal((size, 1)))[0] for _ in range(2))
    mixture = GaussianMixture((0.5, 0.5), spikes, (np.array([theta]), np.array([theta])))
    covariance_norm = 1 + theta / 2 * (1 + abs(float(spikes[0][:, 0] @ spikes[1][:, 0])))
    xi = rng.standard_normal(size)
    xi /= np.linalg.norm(xi) * math.sqrt(covariance_norm)
    trace = mixture.trace(0, size)
    step = mixture.sample(size, size, rng)
    w0 = rng.standard_normal((size, size)) / math.sqrt(trace)
    a = rng.standard_normal(size) / math.sqrt(size)
    ridge, test = mixture.sample(size, size, rng), mixture.sample(TEST_FACTOR * size, size, rng)
    inputs, components = (step[0], ridge[0], test[0]), (step[1], ridge[1], test[1])
    if mean_norm > 0:
        direction = random_direction(size, rng)
        inputs = tuple(mean_shifted(x, c, direction, mean_norm) for x, c in zip(inputs, components))
    return MixtureDraw(size, math.sqrt(size / trace), xi, inputs, components, w0, a)


def stepped_preactivations(draw: MixtureDraw, alpha: float, beta: float, sigma: Activation,
                           inputs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None):
    """One step with sigma on the step inputs (the draw's, or `inputs` in another data model), labels relu(xi^T x):
    (ridge pre-activations, test pre-activations, ridge labels, test labels)."""
    x, ridge_x, test_x = draw.inputs if inputs is None else inputs
    y, ridge_y, test_y = (np.maximum(v @ draw.xi, 0.0) for v in (x, ridge_x, test_x))
    w1 = draw.w0 + draw.size ** (alpha * beta) * first_layer_gradient(x, y, draw.w0, draw.a, sigma)
    return ridge_x @ w1, test_x @ w1, ridge_y, test_y


def readout_errors(features: np.ndarray, test_features: np.ndarray, ridge_y: np.ndarray, test_y: np.ndarray,
                   penalty: float) -> tuple[float, float]:
    """Ridge at their lambda on features / sqrt(k): (train error with (lambda/2) ||w||^2, generalization error)."""
    root = math.sqrt(features.shape[1])
    result = ridge_errors(features / root, ridge_y, test_features / root, test_y, (penalty * len(ridge_y),))
    return result.train[0] / 2 + penalty / 2 * result.weight_norms[0], result.test[0] / 2


def hermite_features(sigma: Activation, degree: int, scale: float, rest: float | None = None):
    """The Hermite model at scale b as a function (pre-activations, rng) -> features, its Gaussian rest drawn from
    rng. `rest` replaces the unit-scale h*_D (None: the paper's); the rest at scale b is then h*(b) rest / h*_D, or
    `rest` itself for a polynomial sigma (h* = 0 at every scale)."""
    coefficients, scaled_rest = hermite_model(sigma, degree, COEFFICIENT_DIGITS, scale)
    coefficients, scaled_rest = [float(c.value) for c in coefficients], float(scaled_rest.value)
    if rest is not None:
        unit_rest = float(hermite_model(sigma, degree, COEFFICIENT_DIGITS)[1].value)
        scaled_rest = scaled_rest * rest / unit_rest if unit_rest > 0 else rest

    def features(h: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return hermeval(h / scale, coefficients) + scaled_rest * rng.standard_normal(h.shape)
    return features
