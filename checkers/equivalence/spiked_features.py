"""One maximal-scale gradient step in Cui et al.'s conventions, and the spiked random-features quantities.

Conventions (Cui, Pesce, Dandi, Krzakala, Lu, Zdeborova, Loureiro, ICML 2024; their code,
SPOC-group/OneStepGD_asymptotics; docs/derivations/equivalence.md#srf-constants):
- W_0 in R^{p x d} has Gaussian rows normalized to unit norm, and a_0 = 1_p / sqrt(p) (every neuron gets the
  same spike);
- f(x) = a_0^T sigma(W x) / sqrt(p);
- the step uses n_0 = alpha_0 d fresh samples Z,
  G = (1/n_0) Z^T [((y - f_0) a_0^T / sqrt(p)) (.) sigma'(Z W_0^T)], and W_1 = W_0 + eta~ p G^T.
Measured (docs/derivations/equivalence.md#srf-constants):
- the spike r: the mean over neurons of <w_j(1), v^>, with v^ = Z^T y / ||Z^T y||;
- the bulk inflation c = 1 + mean_j ||P w_j(1)||^2 - mean_j ||P w_j(0)||^2, where P projects away from v^;
  comparing with W_0 removes its own 1 - 1/d;
- the teacher overlap gamma = <v^, theta>.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorems.activations import Activation


@dataclass(frozen=True)
class SpikedStep:
    initial_weights: np.ndarray   # W_0 (p x d)
    updated_weights: np.ndarray   # W_1 (p x d)
    direction: np.ndarray         # v^ = Z^T y / ||Z^T y||
    teacher: np.ndarray           # theta, unit
    energy: float                 # ||Z^T y / n_0||^2
    projection: float             # <Z^T y / n_0, theta>

    def spike(self) -> float:
        return float(np.mean(self.updated_weights @ self.direction))

    def bulk_inflation(self) -> float:
        def orthogonal_energy(weights):
            along = weights @ self.direction
            return float(np.mean(np.sum(weights**2, axis=1) - along**2))
        return 1.0 + orthogonal_energy(self.updated_weights) - orthogonal_energy(self.initial_weights)

    def overlap(self) -> float:
        return float(self.direction @ self.teacher)

    def direction_energy(self) -> float:
        return self.energy

    def teacher_projection(self) -> float:
        return self.projection


def spiked_step(dimension: int, width: int, sample_ratio: float, learning_rate: float, sigma: Activation,
                teacher: Activation, noise: float, rng: np.random.Generator) -> SpikedStep:
    """One step with n_0 = round(sample_ratio d) samples, in Cui et al.'s conventions (two matmuls)."""
    samples = max(1, round(sample_ratio * dimension))
    theta = rng.standard_normal(dimension)
    theta /= np.linalg.norm(theta)
    z = rng.standard_normal((samples, dimension))
    y = teacher(z @ theta) + noise * rng.standard_normal(samples)
    w0 = rng.standard_normal((width, dimension))
    w0 /= np.linalg.norm(w0, axis=1)[:, None]
    pre = z @ w0.T
    f0 = sigma(pre).sum(axis=1) / width                      # a_0^T sigma / sqrt(p) with a_0 = 1/sqrt(p)
    backward = sigma.first_derivative(pre)
    backward *= ((y - f0) / width)[:, None]                  # (y - f_0) a_0j / sqrt(p) = (y - f_0) / p
    gradient = z.T @ backward / samples                      # d x p
    w1 = w0 + learning_rate * width * gradient.T
    direction = z.T @ y
    energy = float(direction @ direction) / samples**2
    projection = float(direction @ theta) / samples
    direction /= np.linalg.norm(direction)
    return SpikedStep(w0, w1, direction, theta, energy, projection)


def spiked_model(dimension: int, width: int, spike: float, inflation: float, overlap: float,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Cui et al.'s spiked random features at (r, c, gamma): (W, theta) with W = sqrt(c) W_0 + r 1 v^T (p x d), W_0's
    rows uniform on the unit sphere, and the unit teacher direction theta = gamma v^ + rho theta_perp,
    rho = sqrt(1 - gamma^2). The law of W_0 and of Gaussian inputs is rotation invariant, so v^ = e_1 and
    theta_perp = e_2 lose nothing."""
    if dimension < 2 or not 0 <= inflation or not -1 <= overlap <= 1:
        raise ValueError(f"need d >= 2, c >= 0 and |gamma| <= 1, got {dimension}, {inflation}, {overlap}")
    weights = rng.standard_normal((width, dimension))
    weights *= np.sqrt(inflation) / np.linalg.norm(weights, axis=1)[:, None]
    weights[:, 0] += spike
    theta = np.zeros(dimension)
    theta[0], theta[1] = overlap, np.sqrt(1 - overlap**2)
    return weights, theta
