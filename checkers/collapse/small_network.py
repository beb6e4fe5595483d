"""The small network on which balancedness is checked, in float64 or in mpmath.

Network (columns are samples): Z_1 = link(W_1 X), Z_2 = W_2 Z_1, output W_3 tanh(Z_2), loss
||output - Y||_F^2 / (2 N); the pair under test is (W_1, W_2), linked by `between` (linear, relu or tanh).
Shared by the checkers of balancedness-identity, balancedness-recurrence and stationary-balanced.
"""

from __future__ import annotations

import mpmath
import numpy as np

from theorems.errors import NumericalError
from theorems.statement import Instance

INPUTS, OUTPUTS, SAMPLES, HIDDEN = 4, 3, 6, 4
FLOOR_STEPS = 2000
FLOW_LEVELS = 4
MAX_FLOW_LEVELS = 7  # eta/64: where the orders are not yet in their O(eta) regime at eta/8, halve further
STATIONARY_STEP = 0.2


def links(between: str, library):
    if between == "linear":
        return (lambda u: u), (lambda u: u * 0 + 1)
    if between == "relu":
        return (lambda u: library.maximum(u, 0)), (lambda u: (u > 0) * 1.0)
    return library.tanh, (lambda u: 1 - library.tanh(u) ** 2)


def gradients(weights, x, y, between, library):
    """Gradients of the loss for W_1, W_2, W_3 (numpy arrays, or numpy object arrays of mpf)."""
    w1, w2, w3 = weights
    link, link_prime = links(between, library)
    pre1 = w1 @ x
    z1 = link(pre1)
    z2 = w2 @ z1
    hidden = library.tanh(z2)
    error = (w3 @ hidden - y) / x.shape[1]
    g3 = error @ hidden.T
    delta2 = (w3.T @ error) * (1 - hidden**2)
    g2 = delta2 @ z1.T
    g1 = ((w2.T @ delta2) * link_prime(pre1)) @ x.T
    return g1, g2, g3


def one_step(instance: Instance, weights, x, y, library, to_float) -> dict:
    """D_0, D_1 after one GD step with weight decay, and S_0 = G_2^T G_2 - G_1 G_1^T, for the statement's recurrence;
    numpy arrays, or object arrays of mpf (`library` MpmathArrays, `to_float` to the working precision)."""
    eta, lam = instance["learning_rate"], instance["weight_decay"]
    eta, lam = (to_float(eta), to_float(lam))
    g1, g2, _ = gradients(weights, x, y, instance["between"], library)
    w1, w2 = weights[0], weights[1]
    w1_next, w2_next = (1 - eta * lam) * w1 - eta * g1, (1 - eta * lam) * w2 - eta * g2
    return {"D": w2.T @ w2 - w1 @ w1.T, "D_next": w2_next.T @ w2_next - w1_next @ w1_next.T,
            "S": g2.T @ g2 - g1 @ g1.T}


def network(instance: Instance, seed: np.random.SeedSequence):
    rng = np.random.default_rng(seed)
    width = instance["width"]
    shapes = [(width, INPUTS), (HIDDEN, width), (OUTPUTS, HIDDEN)]
    weights = [rng.standard_normal(shape) / np.sqrt(shape[1]) for shape in shapes]
    return weights, rng.standard_normal((INPUTS, SAMPLES)), rng.standard_normal((OUTPUTS, SAMPLES))


def imbalance(weights):
    return weights[1].T @ weights[1] - weights[0] @ weights[0].T


def descend(instance: Instance, weights, x, y, eta: float, steps: int, visit=None):
    """`steps` GD steps with weight decay on the small network; `visit(weights, grads)` sees each state. A run
    whose weights overflow is no evidence about the law it tests: it raises NumericalError."""
    lam = float(instance["weight_decay"])
    for step in range(steps):
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging run overflows; it is said below, not warned
            grads = gradients(weights, x, y, instance["between"], np)
            if visit is not None:
                visit(weights, grads)
            weights = [(1 - eta * lam) * w - eta * g for w, g in zip(weights, grads)]
        if not all(np.isfinite(w).all() for w in weights):
            raise NumericalError(f"gradient descent diverged at step {step + 1} (eta = {eta:g}, lambda = {lam:g}): "
                                 "lower the learning rate or the weight decay")
    return weights


class MpmathArrays:
    """The few numpy-like functions the network needs, elementwise on object arrays of mpf."""

    tanh = staticmethod(np.vectorize(mpmath.tanh, otypes=[object]))
    sqrt = staticmethod(mpmath.sqrt)

    @staticmethod
    def maximum(u, bound):
        return np.vectorize(lambda v: max(v, bound), otypes=[object])(u)
