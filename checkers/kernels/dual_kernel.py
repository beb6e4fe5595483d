"""Checker of dual-kernel: the closed form (exact) and E[sigma(U) sigma(V)] by scrambled Sobol' RQMC.

(U, V) = (G1, rho G1 + sqrt(1 - rho^2) G2) for G ~ N(0, I_2). The RQMC budget is 2^12 points x 16
replicates at level 0 and doubles in points per level (quick 0, default 2, high 4, +1 per stage).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

from checkers.check import Budget, Checker, Exact
from checkers.qmc import rqmc_gaussian_mean
from checkers.search import search_counterexample
from theorems.kernels import dual_kernel
from theorems.statement import Instance

BASE_POINTS = 2**12
REPLICATES = 16


def gaussian_pair_product(sigma, correlation: float):
    """G (n, 2) -> sigma(U) sigma(V) with U = G1, V = rho G1 + sqrt(1 - rho^2) G2."""
    complement = math.sqrt(max(0.0, 1.0 - correlation * correlation))

    def product(normals: np.ndarray) -> np.ndarray:
        u = normals[:, 0]
        v = correlation * u + complement * normals[:, 1]
        return sigma(u) * sigma(v)

    return product


def _correlations():
    """Exact correlations in [-1, 1], with the edges (where the tail bound is tight) always tried."""
    return st.one_of(st.sampled_from([-1, 1, 0]), st.fractions(-1, 1, max_denominator=10**6)).map(
        lambda f: sympy.Rational(f.numerator, f.denominator) if hasattr(f, "numerator") else sympy.Integer(f))


def read_closed_form(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    value = dual_kernel.closed_form_value(instance)
    return Exact(value, tolerance=float(mpmath.mpf(10) ** (-instance.digits + 3)),
                 method=f"closed form at {instance.digits} digits")


def read_monte_carlo(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    integrand = gaussian_pair_product(instance["activation"], float(instance["rho"]))
    return rqmc_gaussian_mean(integrand, 2, budget.scaled(BASE_POINTS), REPLICATES, seed)


def read_tail_bound(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    # the edges, where the bound is tight (at rho = 1 the tail is the whole Parseval remainder), are always tried
    edges = [sympy.Integer(-1), sympy.Integer(0), sympy.Integer(1)]
    result = search_counterexample(lambda r: dual_kernel.tail_bound_margin(instance, r), _correlations(),
                                   max_examples=budget.scaled(25), seed=int(seed.generate_state(1)[0]), explicit=edges)
    return Exact(result.smallest_margin, tolerance=float(mpmath.mpf(10) ** (-instance.digits + 3)),
                 method=f"Hypothesis search over {result.examples} correlations; smallest margin at "
                        f"rho = {result.example}")


CHECKER = Checker(
    theorem=dual_kernel.THEOREM,
    simulation="closed form to 30 digits; the tail bound at every rho, searched by Hypothesis; scrambled-Sobol' RQMC",
    readers={"closed-form": read_closed_form, "monte-carlo": read_monte_carlo, "tail-bound": read_tail_bound},
)
