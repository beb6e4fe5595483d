"""Demir and Dogan's experiment: one step under Gaussian-mixture data, then ridge on the network's features and on
the Hermite model's, with the same fresh data.

Conventions (their code, KU-MLIP/2-Layer-NNs-with-Gaussian-Mixtures-Data; docs/derivations/onestep.md#mixture-spike and
equivalence.md#mixture-equivalence):
- Sizes: input dimension n, m samples for the step and m fresh ones for the ridge, 5m test samples,
  width k; here n = m = k.
- Data: two components of weight 1/2 with zero means and covariance I + theta g_c g_c^T, where g_c is a
  random unit vector and theta = n^(beta (1 - alpha)).
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


def mixture_errors(size: int, alpha: float, beta: float, sigma: Activation, degree: int, penalty: float,
                   rng: np.random.Generator, *, rest: float | None = None) -> MixtureErrors:
    """One draw of the experiment at n = m = k = `size`, their ridge `penalty` lambda. `rest` replaces the unit-scale
    h*_D of the model (None: the paper's); the rest at scale b is then h*(b) rest / h*_D, or `rest` itself for a
    polynomial sigma (h* = 0 at every scale)."""
    theta = size ** (beta * (1 - alpha))
    spikes = tuple(np.linalg.qr(rng.standard_normal((size, 1)))[0] for _ in range(2))
    mixture = GaussianMixture((0.5, 0.5), spikes, (np.array([theta]), np.array([theta])))
    covariance_norm = 1 + theta / 2 * (1 + abs(float(spikes[0][:, 0] @ spikes[1][:, 0])))
    xi = rng.standard_normal(size)
    xi /= np.linalg.norm(xi) * math.sqrt(covariance_norm)

    def sample(count):
        x, _ = mixture.sample(count, size, rng)
        return x, np.maximum(x @ xi, 0.0)

    trace = mixture.trace(0, size)
    x, y = sample(size)
    w0 = rng.standard_normal((size, size)) / math.sqrt(trace)
    a = rng.standard_normal(size) / math.sqrt(size)
    w1 = w0 + size ** (alpha * beta) * first_layer_gradient(x, y, w0, a, sigma)
    ridge_x, ridge_y = sample(size)
    test_x, test_y = sample(TEST_FACTOR * size)
    pre, test_pre = ridge_x @ w1, test_x @ w1
    scale = math.sqrt(size / trace)
    coefficients, scaled_rest = hermite_model(sigma, degree, COEFFICIENT_DIGITS, scale)
    coefficients, scaled_rest = [float(c.value) for c in coefficients], float(scaled_rest.value)
    if rest is not None:
        unit_rest = float(hermite_model(sigma, degree, COEFFICIENT_DIGITS)[1].value)
        scaled_rest = scaled_rest * rest / unit_rest if unit_rest > 0 else rest

    def hermite(h):
        return hermeval(h / scale, coefficients) + scaled_rest * rng.standard_normal(h.shape)

    root = math.sqrt(size)
    errors = []
    for feature in (sigma, hermite):
        result = ridge_errors(feature(pre) / root, ridge_y, feature(test_pre) / root, test_y, (penalty * size,))
        errors += [result.train[0] / 2 + penalty / 2 * result.weight_norms[0], result.test[0] / 2]
    return MixtureErrors(*errors)
