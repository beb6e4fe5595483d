"""Checker of subspace-spike: zeta = X^T y / n for a k-index teacher over many draws at four sizes, its share inside
the teacher subspace and its direction there, each extrapolated in 1/d.

The teachers are the first k coordinate vectors: X is rotation invariant, so this loses nothing. Given y, which
reads only X's first k columns, the other d - k columns are independent N(0, I_n), so the part of zeta outside the
subspace is N(0, ||y||^2/n^2 I_{d-k}) and its squared norm ||y||^2/n^2 times a chi-square with d - k degrees of
freedom: each draw samples the n x k block and one chi-square, exactly the law of the full n x d draw, in O(n k)."""

from __future__ import annotations

import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker
from checkers.convergence import bounded_extrapolation
from checkers.onestep.draws import draw_generators
from checkers.shared_draws import cached
from checkers.stats import Estimate, mean_estimate
from theorems.onestep import subspace_spike
from theorems.statement import Instance

#: the sizes d at every fidelity (n = psi1 d); higher levels draw more
SIZES = (1000, 2000, 4000, 8000)
DRAWS = 64


def spike_geometry(z: np.ndarray, y: np.ndarray, dimension: int, rng: np.random.Generator) -> tuple[float, float]:
    """(||P zeta||^2/||zeta||^2, cos^2(P zeta, sum_i e_i)) for zeta = X^T y / n, from the teachers' block `z` (n x k)
    of X, the labels and a chi-square draw for the rest (module docstring)."""
    samples, teachers = z.shape
    inside = z.T @ y / samples
    outside = float(y @ y) / samples**2 * rng.chisquare(dimension - teachers)
    inside_norm = float(inside @ inside)
    return inside_norm / (inside_norm + outside), float(inside.sum()) ** 2 / (teachers * inside_norm)


@cached(maxsize=64)
def _readings(parameters: tuple, dimension: int, draws: int, entropy, spawn_key) -> np.ndarray:
    """Per draw at size d = `dimension`: the share inside the subspace and the cos^2 inside it (rows)."""
    instance = subspace_spike.THEOREM.instance(dict(parameters))
    teacher, teachers, noise = instance["teacher"], int(instance["teachers"]), float(instance["noise"])
    samples = max(2, round(float(instance["psi1"]) * dimension))
    rows = []
    for rng in draw_generators(np.random.SeedSequence(entropy, spawn_key=spawn_key), draws):
        z = rng.standard_normal((samples, teachers))
        y = teacher(z).sum(axis=1) + noise * rng.standard_normal(samples)
        rows.append(spike_geometry(z, y, dimension, rng))
    return np.array(rows)


def _reader(column: int, what: str):
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
        """The limit of one reading of zeta, extrapolated as L + B d^-e with e bounded around 1 (the bias of finite
        d is O(k/d): docs/derivations/onestep.md#subspace-spike)."""
        draws = DRAWS * 2**budget.level
        parameters = tuple(sorted(instance.describe_parameters().items()))
        estimates = [mean_estimate(_readings(parameters, dimension, draws, child.entropy, child.spawn_key)[:, column],
                                   method=f"d = {dimension}")
                     for dimension, child in zip(SIZES, seed.spawn(len(SIZES)))]
        return bounded_extrapolation(SIZES, estimates, exponent=1.0, what=f"{what}, {draws} draws a size")
    return read


CHECKER = Checker(
    theorem=subspace_spike.THEOREM,
    simulation="zeta = X^T y / n for a k-index teacher, exactly in law from the n x k teacher block and a chi-square, "
               "at four sizes, extrapolated in 1/d",
    readers={"subspace-share": _reader(0, "||P zeta||^2/||zeta||^2"),
             "one-direction": _reader(1, "cos^2(P zeta, sum_i w*_i)")},
    shared_draws=True,
    second_point={"teacher": "tanh", "teachers": "2", "psi1": "4"},
    calibration_seeds=50,
)
