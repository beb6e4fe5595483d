"""Checker of balancedness-identity: the identity in sympy (an arbitrary downstream function) and on a random
small network in float64 (`checkers.collapse.small_network`)."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.check import Budget, Checker, Exact
from checkers.collapse.small_network import gradients, network
from theorems.collapse import balancedness_identity
from theorems.statement import Instance


def read_symbolic(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    transposed = instance.definition("left_side") == "transposed"
    left = (lambda w, g: g.T * w) if transposed else (lambda w, g: w.T * g)
    residual = balancedness_identity.symbolic_identity_residual(instance["between"], left_side=left)
    nonzero = sum(entry != 0 for entry in residual)
    return Exact(mpmath.mpf(nonzero), tolerance=0.0,
                 method=f"sympy: {nonzero} of {len(residual)} entries of the expanded residual are non-zero")


def read_float64(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    transposed = instance.definition("left_side") == "transposed"
    weights, x, y = network(instance, seed)
    g1, g2, _ = gradients(weights, x, y, instance["between"], np)
    w1, w2 = weights[0], weights[1]
    left = g2.T @ w2 if transposed else w2.T @ g2
    if left.shape != (g1 @ w1.T).shape:
        raise AssertionError("the pair must be square for the transposed mutant")
    coefficient = float(instance.constant("coefficient"))
    value = np.linalg.norm(left - coefficient * g1 @ w1.T) / (np.linalg.norm(w2) * np.linalg.norm(g2))
    return Exact(mpmath.mpf(value), tolerance=1e-12, method="random network in float64")


CHECKER = Checker(
    theorem=balancedness_identity.THEOREM,
    simulation="sympy proof with an arbitrary downstream function; a random network in float64 (1e-12); fails "
               "through tanh",
    readers={"symbolic": read_symbolic, "float64": read_float64},
    claims_in_checker=frozenset({"transposed"}),
    second_point={"width": "20"},
    calibration_seeds=200,
)
