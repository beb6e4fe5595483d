"""Full-batch gradient descent with weight decay on an MLP with a linear head
(docs/derivations/collapse.md#collapse-training).

Network (columns are samples, no biases): Z_0 = X; Z_l = sigma(W_l Z_{l-1}) for l = 1..L1 (the
non-linear part); Z_l = W_l Z_{l-1} for l = L1+1..L (the linear head, L2 = L - L1 layers).
Loss: (1/2) ||Z_L - Y||_F^2 summed over samples, plus (lambda/2) sum_l ||W_l||_F^2. One step is
W_l <- (1 - eta lambda) W_l - eta grad_l, grad_l the gradient of the data term, as PyTorch's
SGD(weight_decay=lambda) does. Several runs of one architecture train at once as a stack: every array with a leading
axis of runs, each product taken slice by slice (numpy's matmul on a stack), so a run's numbers are those it has
alone. The reference run (docs/derivations/collapse.md#collapse-training): K = 4 Gaussian
classes of 10 samples
in d = 8 (means 2 N(0, I), samples mean + 0.7 N(0, I)), widths (64, 32 | 16, 8, 4), the smooth
leaky ReLU with gamma = 0.2, delta = 0.5, init N(0, 1/fan_in), eta = 5e-3, lambda = 1e-2.

The activation sigma(x) = gamma x + (1 - gamma)(x + sqrt(x^2 + delta^2) - delta)/2 satisfies
sigma(0) = 0, sigma' in [gamma, 1] and |sigma(x)| <= |x| (the paper's Assumption 4.2 as the spec
records it [S]); it is not positively homogeneous, so non-linear pairs obey no balancedness law.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

GAMMA, DELTA = 0.2, 0.5


ONE_MINUS_GAMMA = 1 - GAMMA


def smooth_leaky_relu(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sigma(x), sigma'(x)), sharing sqrt(x^2 + delta^2): a step evaluates both at the same pre-activations."""
    root = np.sqrt(x * x + DELTA * DELTA)
    value = x + root
    value -= DELTA
    value *= ONE_MINUS_GAMMA
    value /= 2
    value += GAMMA * x
    slope = x / root
    slope += 1
    slope *= ONE_MINUS_GAMMA
    slope /= 2
    slope += GAMMA
    return value, slope


def _tanh(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    value = np.tanh(x)
    return value, 1 - value**2


# each maps pre-activations to (sigma, sigma') there
ACTIVATIONS: dict[str, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]] = {
    "smooth-leaky-relu": smooth_leaky_relu,
    "leaky-relu": lambda x: (np.where(x > 0, x, GAMMA * x), np.where(x > 0, 1.0, GAMMA)),
    "relu": lambda x: (np.maximum(x, 0), (x > 0).astype(float)),
    "tanh": _tanh,
    "linear": lambda x: (x, np.ones_like(x)),
}


@dataclass(frozen=True)
class Network:
    """Architecture: widths (d, n_1, ..., n_L) and the number L1 of non-linear layers."""

    widths: tuple[int, ...]
    nonlinear_layers: int
    activation: str = "smooth-leaky-relu"

    @property
    def depth(self) -> int:
        return len(self.widths) - 1

    def initial_weights(self, rng: np.random.Generator) -> list[np.ndarray]:
        """W_l with entries N(0, 1/fan_in)."""
        return [rng.standard_normal((fan_out, fan_in)) / np.sqrt(fan_in)
                for fan_in, fan_out in zip(self.widths, self.widths[1:])]

    def forward(self, weights: list[np.ndarray], inputs: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(representations Z_0..Z_L, sigma' at the pre-activations W_l Z_{l-1} of the non-linear layers)."""
        activate = ACTIVATIONS[self.activation]
        representations, slopes = [inputs], []
        for layer, weight in enumerate(weights, start=1):
            representation = weight @ representations[-1]
            if layer <= self.nonlinear_layers:
                representation, slope = activate(representation)
                slopes.append(slope)
            representations.append(representation)
        return representations, slopes

    def gradients(self, weights: list[np.ndarray], inputs: np.ndarray, targets: np.ndarray
                  ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(gradients of (1/2)||Z_L - Y||_F^2 for each W_l, representations)."""
        representations, slopes = self.forward(weights, inputs)
        delta = representations[-1] - targets
        grads = [None] * len(weights)
        for layer in range(len(weights), 0, -1):
            if layer <= self.nonlinear_layers:
                delta = delta * slopes[layer - 1]
            grads[layer - 1] = delta @ _transposed(representations[layer - 1])
            if layer > 1:
                delta = _transposed(weights[layer - 1]) @ delta
        return grads, representations


def _transposed(matrix: np.ndarray) -> np.ndarray:
    """A matrix's transpose, or each of a stack's."""
    return matrix.swapaxes(-1, -2)


def stacked(runs: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Per layer, the runs' arrays stacked on a leading axis (weights, or any per-layer list)."""
    return [np.stack(layer) for layer in zip(*runs)]


def gaussian_classes(rng: np.random.Generator, classes: int = 4, per_class: int = 10, dimension: int = 8,
                     mean_scale: float = 2.0, noise: float = 0.7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, Y, labels): K Gaussian classes, columns sorted by class, one-hot Y."""
    labels = np.repeat(np.arange(classes), per_class)
    means = mean_scale * rng.standard_normal((dimension, classes))
    inputs = means[:, labels] + noise * rng.standard_normal((dimension, classes * per_class))
    return inputs, (labels[None, :] == np.arange(classes)[:, None]).astype(float), labels


def imbalances(weights: list[np.ndarray]) -> list[np.ndarray]:
    """D_l = W_{l+1}^T W_{l+1} - W_l W_l^T for each consecutive pair l = 1..L-1."""
    return [upper.T @ upper - lower @ lower.T for lower, upper in zip(weights, weights[1:])]


@dataclass
class Trajectory:
    """What a run logs: the step numbers, and per logged step a dict of named observables."""

    steps: list[int] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)

    def series(self, name: str) -> np.ndarray:
        return np.array([record[name] for record in self.records])


def train(network: Network, weights: list[np.ndarray], inputs: np.ndarray, targets: np.ndarray, *,
          learning_rate: float, weight_decay: float, steps: int, log_every: int,
          observe: Callable[[int, list[np.ndarray], list[np.ndarray], list[np.ndarray]], dict] | None = None,
          every_step: Callable[[int, list[np.ndarray], list[np.ndarray], list[np.ndarray]], None] | None = None,
          warmup_steps: int = 0, warmup_divisor: float = 1.0) -> tuple[list[np.ndarray], Trajectory]:
    """Run `steps` GD steps, the first `warmup_steps` of them at learning_rate / warmup_divisor; the weights,
    inputs and targets may be stacks of runs (`stacked`).
    `observe(step, weights, grads, representations)` is logged every `log_every` steps and at the end;
    `every_step(step, weights, grads, representations)` sees every state, the last included."""
    trajectory = Trajectory()
    weights = [w.copy() for w in weights]
    for step in range(steps + 1):
        rate = learning_rate / warmup_divisor if step < warmup_steps else learning_rate
        shrink = 1 - rate * weight_decay
        grads, representations = network.gradients(weights, inputs, targets)
        if observe is not None and (step % log_every == 0 or step == steps):
            trajectory.steps.append(step)
            trajectory.records.append(observe(step, weights, grads, representations))
        if every_step is not None:
            every_step(step, weights, grads, representations)
        if step == steps:
            break
        weights = [shrink * w - rate * g for w, g in zip(weights, grads)]
    return weights, trajectory
