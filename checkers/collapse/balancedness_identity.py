"""Checker of balancedness-identity: the identity in sympy (an arbitrary downstream function) and on a random
small network in float64 (`checkers.collapse.small_network`)."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured
from checkers.collapse.small_network import gradients, network
from theorems.collapse import balancedness_identity
from theorems.statement import Instance


def read_symbolic(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """The statement's count on its symbolic residual (2 x 2 layers: four entries); nothing is drawn."""
    nonzero = observable({})
    return Exact(mpmath.mpf(nonzero), tolerance=0.0,
                 method=f"sympy: {nonzero} of 4 entries of the expanded residual are non-zero")


def read_float64(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    weights, x, y = network(instance, seed)
    g1, g2, _ = gradients(weights, x, y, instance["between"], np)
    return Measured({"w": weights[0], "w_next": weights[1], "g": g1, "g_next": g2}, tolerance=1e-12,
                    method="random network in float64")


CHECKER = Checker(
    theorem=balancedness_identity.THEOREM,
    simulation="sympy proof with an arbitrary downstream function; a random network in float64 (1e-12); fails "
               "through tanh",
    readers={"symbolic": read_symbolic, "float64": read_float64},
    second_point={"width": "20"},
    calibration_seeds=200,
)
