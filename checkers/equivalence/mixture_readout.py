"""Demir and Dogan's experiment: one step under Gaussian-mixture data, then ridge on the network's features and on
the Hermite model's, with the same fresh data.

Conventions (their code, KU-MLIP/2-Layer-NNs-with-Gaussian-Mixtures-Data; docs/derivations/onestep.md#mixture-spike and
equivalence.md#mixture-equivalence):
- Sizes: input dimension n, m samples for the step and m fresh ones for the ridge, 5m test samples,
  width k; here n = m = k.
- Data: two components of weight 1/2 with zero means and covariance I + theta g_c g_c^T, where g_c is a
  random unit vector and theta = n^(beta (1 - alpha)); with `mean_norm` > 0 (the authors' claim in the discussion,
  not the paper's setting) the components' means are +-mu, mu = mean_norm u for a random unit u, drawn last.
- Labels: y = relu(xi^T x), where xi is a random direction of norm 1/sqrt(||Sigma||_op).
- Network: F with entries N(0, 1/Tr Sigma_c) (layout n x k here) and second layer N(0, 1/k);
  f = w^T sigma(F x)/sqrt(k).
- Step: F^ = F + eta G with eta = n^(alpha beta). Their G is Ba's G_0 transposed, with the same normalization.
- Ridge: w = (R R^T + lambda m I)^{-1} R y on R = sigma(F^ X^T)/sqrt(k). This is Ba's objective with
  lambda_Ba = lambda k (`checkers.equivalence.ridge`).
- Errors: train = MSE/2 + (lambda/2) ||w||^2; generalization = MSE/2 on the 5m test samples.
- Hermite model, used in the ridge stage only (the step itself uses sigma):
  sigma^(u) = sum_{j <= D} c_j(b) He_j(u/b) + rest z, with c_j(b) = E[sigma(b Z) He_j(Z)]/j! (their h_j/j!),
  b = sqrt(n / Tr Sigma_c), z iid N(0, 1) per entry, and the paper's rest h*(b) = sqrt(E sigma(b Z)^2 - sum_j j!
  c_j(b)^2)
  (`rest` builds other models). The c_j(b) and h*(b) come from
  `theorems.equivalence.mixture_equivalence.hermite_model` (mpmath, 20 digits; Gauss-Hermite would be off by 1% for a
  ReLU).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.polynomial.hermite_e import hermeval

from checkers.equivalence.ridge import ridge_errors
from checkers.onestep.simulation import GaussianMixture, first_layer_gradient
from theorems.activations import Activation
from theorems.equivalence.mixture_equivalence import hermite_model

TEST_FACTOR = 5
COEFFICIENT_DIGITS = 20


@dataclass(frozen=True)
class MixtureErrors:
    """Half mean squared errors as Demir and Dogan report them (train includes (lambda/2) ||w||^2)."""

    network_train: float
    network_generalization: float
    hermite_train: float
    hermite_generalization: float

    def gaps(self) -> tuple[float, float]:
        """Relative gaps (Hermite - network)/network: (generalization, train)."""
        return (self.hermite_generalization / self.network_generalization - 1,
                self.hermite_train / self.network_train - 1)


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


def mixture_errors(size: int, alpha: float, beta: float, sigma: Activation, degree: int, penalty: float,
                   rng: np.random.Generator, *, rest: float | None = None, mean_norm: float = 0.0) -> MixtureErrors:
    """One draw of the experiment at n = m = k = `size`, their ridge `penalty` lambda, `rest` as in
    `hermite_features`, means +-mu of norm `mean_norm`."""
    draw = mixture_draw(size, alpha, beta, rng, mean_norm)
    pre, test_pre, ridge_y, test_y = stepped_preactivations(draw, alpha, beta, sigma)
    model = hermite_features(sigma, degree, draw.scale, rest)
    network = readout_errors(sigma(pre), sigma(test_pre), ridge_y, test_y, penalty)
    hermite = readout_errors(model(pre, rng), model(test_pre, rng), ridge_y, test_y, penalty)
    return MixtureErrors(*network, *hermite)
