"""Observing the equivalence family: spiked random features (Cui et al.), the ridge readouts of Gaussian-equivalent and
Hermite-surrogate features (Ba et al., Moniri et al.), and Demir and Dogan's mixture model.

Every ridge stage uses fresh data, independent of the step (specs/onestep.md 9, pitfall 6). Errors are paired:
within one draw the network and its surrogate share the weights, the data and the test set, so their difference
has a far smaller spread than either error.
"""

from __future__ import annotations

import functools

import numpy as np

from checkers.check import Budget, Checker
from checkers.simulate.spiked_features import spiked_step
from checkers.stats import control_variate_estimate, extrapolate_limit
from theorems import srf_constants
from theorems.statement import Instance

SPIKED_SIZES = (200, 400)


@functools.lru_cache(maxsize=4)
def _spiked_draws(key: tuple, entropy: tuple, draws: int):
    """(r, c, gamma) per draw and size for an instance key (shared by the three predictions)."""
    sigma, teacher, noise, ratio, eta = key
    from theorems.activations import activation
    sigma, teacher = activation(sigma), activation(teacher)
    results = {}
    for size, size_seed in zip(SPIKED_SIZES, np.random.SeedSequence(entropy).spawn(len(SPIKED_SIZES))):
        rows = []
        for child in size_seed.spawn(draws * SPIKED_SIZES[-1] // size):
            step = spiked_step(size, size, ratio, eta, sigma, teacher, noise, np.random.default_rng(child))
            rows.append((step.spike(), step.bulk_inflation(), step.overlap(), step.direction_energy(),
                         step.teacher_projection()))
        results[size] = np.array(rows)
    return results


def observe_spiked(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    key = (instance.labels.get("activation", instance["activation"].name),
           instance.labels.get("teacher", instance["teacher"].name),
           float(instance["noise"]), float(instance["alpha0"]), float(instance["eta"]))
    draws = 32 * 2 ** (budget.level // 2)
    results = _spiked_draws(key, (seed.entropy, *seed.spawn_key), draws)
    column = {"spike": 0, "bulk": 1, "overlap": 2}[prediction]
    sigma_star, noise, ratio = instance["teacher"], float(instance["noise"]), float(instance["alpha0"])
    estimates = []
    for size in SPIKED_SIZES:
        # control variates with exact finite-size means: ||Z^T y / n_0||^2 and <Z^T y / n_0, theta> = mu1*
        # (they carry most of the draw-to-draw spread)
        energy, slope = expected_direction_energy(sigma_star, noise, size, max(1, round(ratio * size)))
        controls = np.column_stack([results[size][:, 3] - energy, results[size][:, 4] - slope])
        estimates.append(control_variate_estimate(results[size][:, column], controls))
    return extrapolate_limit(SPIKED_SIZES, estimates, exponent=1.0, method=(
        f"draws at d = p in {SPIKED_SIZES} ({', '.join(str(len(results[s])) for s in SPIKED_SIZES)}), control "
        "variates ||Z^T y/n_0||^2 and <Z^T y/n_0, theta>; " + ", ".join(f"{e.value:.4g} +- {e.standard_error:.2g}" for e in estimates)
        + "; extrapolated in 1/d"))


def expected_direction_energy(teacher, noise: float, dimension: int, samples: int) -> tuple[float, float]:
    """(E ||Z^T y / n_0||^2, E <Z^T y / n_0, theta> = mu1*) exactly at finite size; the first is (1 - 1/n_0) mu1*^2 + E[||z||^2 y^2] / n_0, with
    E[||z||^2 y^2] = E[Z^2 sigma*(Z)^2] + noise^2 + (d - 1)(E sigma*(Z)^2 + noise^2) (Gauss-Hermite, 200 nodes)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(200)
    weights = weights / weights.sum()
    values = teacher(nodes)
    slope = float(weights @ (nodes * values))
    moment = float(weights @ values**2) + noise**2
    energy = float(weights @ (nodes**2 * values**2)) + noise**2 + (dimension - 1) * moment
    return (1 - 1 / samples) * slope**2 + energy / samples, slope


CHECKERS = [Checker(srf_constants.THEOREM, observe_spiked, shared_draws=True)]
