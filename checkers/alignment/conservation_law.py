"""Checker of conservation-law: sympy on every activation pattern, DOP853 drift along the flow, and one GD
step's exact change."""

from __future__ import annotations

import math

import numpy as np

from checkers.alignment.gradient_flow import cartesian_flow, loss_gradients
from checkers.alignment.runs import RTOL, data, data_key, solve
from checkers.budget import Budget
from checkers.checker import Checker, Exact, Measured
from theorems.alignment import conservation_law
from theorems.alignment.conservation_law import conservation_defects
from theorems.statement import Instance


def _balanced_weights(instance: Instance):
    x, y, directions, signs = data(data_key(instance))
    epsilon = math.exp(float(instance["log_epsilon"]))
    weights = epsilon * directions
    return x, y, weights, signs * np.linalg.norm(weights, axis=1)


def read_homogeneity(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    defects = conservation_defects(instance["activation"])
    return Exact(len(defects), 0.0, "sympy expansion on every activation pattern (3 samples, D = 3)"
                 + (f"; e.g. {str(defects[0])[:120]}" if defects else ""))


def read_flow_drift(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    sigma = instance["activation"]
    x, y, weights, output_weights = _balanced_weights(instance)
    activation = None if sigma.name == "relu" else sigma
    loss = instance["loss"]
    times = np.linspace(0.0, 5.0, 501)
    run = solve(cartesian_flow, x, y, weights, output_weights, loss, times, activation=activation, rtol=RTOL)
    balance = run.output_weights**2 - np.sum(run.weights**2, axis=-1)
    scale = np.max(run.output_weights**2 + np.sum(run.weights**2, axis=-1), axis=0)
    drift = float(np.max(np.abs(balance - balance[0]) / scale))
    return Exact(drift, 100 * RTOL, f"Cartesian DOP853 to t = 5, rtol {RTOL:g}; tolerance 100 rtol")


def read_descent_step(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """Per GD step: the change of v_j^2 - ||w_j||^2 and g_v^2 - ||g_w||^2; the tolerance is the change's round-off,
    64 u max_j (v_j^2 + ||w_j||^2), relative to eta^2 |g_v^2 - ||g_w||^2|."""
    sigma = instance["activation"]
    x, y, weights, output_weights = _balanced_weights(instance)
    activation = None if sigma.name == "relu" else sigma
    loss = instance["loss"]
    eta = float(instance["step_size"])
    w, v = weights.copy(), output_weights.copy()
    changes, sources, tolerance = [], [], 0.0
    for _ in range(200 * 2 ** (budget.level // 2)):
        gradient_w, gradient_v = loss_gradients(x, y, w, v, loss, activation)
        before = v**2 - np.sum(w**2, axis=1)
        w, v = w - eta * gradient_w, v - eta * gradient_v
        changes.append(v**2 - np.sum(w**2, axis=1) - before)
        sources.append(gradient_v**2 - np.sum(gradient_w**2, axis=1))
        scale = max(float(np.max(np.abs(eta**2 * sources[-1]))), 1e-300)
        tolerance = max(tolerance, 64 * np.finfo(float).eps * float(np.max(v**2 + np.sum(w**2, axis=1))) / scale)
    return Measured({"eta": eta, "changes": changes, "sources": sources}, tolerance,
                    f"GD with eta = {eta:g}; round-off of the change relative to eta^2 |g_v^2 - ||g_w||^2|")


CHECKER = Checker(
    theorem=conservation_law.THEOREM,
    simulation="sympy on every activation pattern; DOP853 drift; a GD run (tanh: outside assumptions, and the drift "
               "shows)",
    readers={"homogeneity": read_homogeneity, "flow-drift": read_flow_drift, "descent-step": read_descent_step},
    shared_draws=True,
    second_point={"activation": "leaky_relu:0.1", "configuration": "2"},
)
