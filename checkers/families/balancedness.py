"""Observing balancedness: a sympy proof of the identity, and one gradient step of a small network in
float64 and in mpmath, whose D must follow D_1 = decay_factor D_0 + eta^2 S_0.

Network (columns are samples): Z_1 = link(W_1 X), Z_2 = W_2 Z_1, output W_3 tanh(Z_2), loss
||output - Y||_F^2 / (2 N); the pair under test is (W_1, W_2), linked by `between`.
"""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact
from theorems import balancedness
from theorems.formula import to_mpf
from theorems.statement import Instance

INPUTS, OUTPUTS, SAMPLES, HIDDEN = 4, 3, 6, 4


def _links(between: str, library):
    if between == "linear":
        return (lambda u: u), (lambda u: u * 0 + 1)
    if between == "relu":
        return (lambda u: library.maximum(u, 0)), (lambda u: (u > 0) * 1.0)
    return library.tanh, (lambda u: 1 - library.tanh(u) ** 2)


def _gradients(weights, x, y, between, library):
    """Gradients of the loss for W_1, W_2, W_3 (numpy arrays, or numpy object arrays of mpf)."""
    w1, w2, w3 = weights
    link, link_prime = _links(between, library)
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


def _residual(instance: Instance, weights, x, y, library, to_float, decay, *, diagonal: bool = False) -> float:
    eta, lam = instance["learning_rate"], instance["weight_decay"]
    eta, lam = (to_float(eta), to_float(lam))
    g1, g2, _ = _gradients(weights, x, y, instance["between"], library)
    w1, w2 = weights[0], weights[1]
    imbalance = w2.T @ w2 - w1 @ w1.T
    w1_next, w2_next = (1 - eta * lam) * w1 - eta * g1, (1 - eta * lam) * w2 - eta * g2
    imbalance_next = w2_next.T @ w2_next - w1_next @ w1_next.T
    source = g2.T @ g2 - g1 @ g1.T
    residual = imbalance_next - decay * imbalance - eta**2 * source
    if diagonal:  # per-neuron law: what survives a homogeneous link
        residual, imbalance_next = residual.diagonal(), imbalance_next.diagonal()
    norm = library.sqrt((imbalance_next**2).sum())
    return library.sqrt((residual**2).sum()) / norm


def observe(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    if prediction == "identity-symbolic":
        residual = balancedness.symbolic_identity_residual(instance["between"])
        nonzero = sum(entry != 0 for entry in residual)
        return Exact(mpmath.mpf(nonzero), tolerance=0.0,
                     method=f"sympy: {nonzero} of {len(residual)} entries of the simplified residual are non-zero")
    rng = np.random.default_rng(seed)
    width = instance["width"]
    shapes = [(width, INPUTS), (HIDDEN, width), (OUTPUTS, HIDDEN)]
    weights = [rng.standard_normal(shape) / np.sqrt(shape[1]) for shape in shapes]
    x, y = rng.standard_normal((INPUTS, SAMPLES)), rng.standard_normal((OUTPUTS, SAMPLES))
    decay = instance.constant("decay_factor")
    if prediction in ("recurrence-float64", "diagonal-float64"):
        diagonal = prediction == "diagonal-float64"
        value = _residual(instance, weights, x, y, np, float, float(decay), diagonal=diagonal)
        return Exact(mpmath.mpf(value), tolerance=1e-12,
                     method="one step in float64" + (", diagonal of D only" if diagonal else ""))
    digits = instance["digits"]
    with mpmath.workdps(digits):
        to_mp = np.vectorize(lambda v: mpmath.mpf(float(v)), otypes=[object])
        exact = instance.constants["decay_factor"].exact  # at this precision, not the constants' 30 digits
        decay_mp = to_mpf(exact, digits) if exact is not None else mpmath.mpf(decay)
        value = _residual(instance, [to_mp(w) for w in weights], to_mp(x), to_mp(y), _MpmathArrays,
                          lambda v: to_mpf(v, digits), decay_mp)
    return Exact(mpmath.mpf(value), tolerance=10.0 ** (5 - instance["digits"]),
                 method=f"one step in mpmath at {instance['digits']} digits")


class _MpmathArrays:
    """The few numpy-like functions the network needs, elementwise on object arrays of mpf."""

    tanh = staticmethod(np.vectorize(mpmath.tanh, otypes=[object]))
    sqrt = staticmethod(mpmath.sqrt)

    @staticmethod
    def maximum(u, bound):
        return np.vectorize(lambda v: max(v, bound), otypes=[object])(u)


CHECKER = Checker(balancedness.THEOREM, observe)
