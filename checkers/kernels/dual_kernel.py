"""Checker of dual-kernel: the closed form (exact) and E[sigma(U) sigma(V)] by scrambled Sobol' RQMC.

(U, V) = (X1, rho X1 + sqrt(1 - rho^2) X2) for X ~ N(0, I_2), drawn by importance sampling as X = s G, G ~ N(0, I_2),
weighted by the density ratio s^2 exp(-|X|^2 (1 - 1/s^2) / 2), with s^2 = E[Z^2 |sigma(Z)|] / E|sigma(Z)| (at least
1): the Gaussian matched to where |sigma| phi has its mass (docs/derivations/kernels.md#dual-kernel). The RQMC
budget is 2^12 points x 16 replicates at level 0 and doubles in points per level (quick 0, default 2, high 4, +1 per
stage).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import sympy
from hypothesis import strategies as st

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Tightness
from checkers.convergence import settled_limit
from checkers.qmc import rqmc_gaussian_mean
from checkers.search import search_counterexample
from theorems.hermite import gauss_hermite_rule
from theorems.kernels import dual_kernel
from theorems.statement import Instance

BASE_POINTS = 2**12
REPLICATES = 16
QUADRATURE_NODES = (60, 120, 240)  # per axis; the reference is the last, its accuracy the geometric tail of the three
QUADRATURE_ROUND_OFF = 1e-14  # relative to E sigma^2: float64 sums of 240^2 terms
SEARCH_SLACK = 1e-8  # relative to E sigma^2; see read_tail_bound


def series_accuracy(instance: Instance) -> float:
    """How accurate the series and its tail bound are as computed: each of the K + 2 quantities it sums (c_0..c_K
    and E sigma^2) is derived to `digits` significant digits, so the sum is good to (K + 2) 10^-digits (1 + E
    sigma^2); the mpmath arithmetic itself works at digits + 10. Computed in float64, so that no process-wide
    mpmath precision can change its last bit (a sweep stores it)."""
    return (instance["degree"] + 2) * 10.0 ** (-instance.digits) * (1 + float(instance.constant("second_moment")))


def quadrature_kernel(sigma, correlation: float, nodes: int) -> float:
    """E[sigma(U) sigma(V)] by a product Gauss-Hermite rule: U = Z1, V = rho Z1 + sqrt(1 - rho^2) Z2."""
    z, weights = gauss_hermite_rule(nodes)
    complement = math.sqrt(max(0.0, 1.0 - correlation * correlation))
    inner = sigma(correlation * z[:, None] + complement * z[None, :]) @ weights
    return float(weights @ (sigma(z) * inner))


def quadrature_reference(instance: Instance, correlation: float) -> tuple[float, float]:
    """(kappa(rho), its accuracy) where no closed form is known: the product rule at QUADRATURE_NODES, the last
    value with the bound of `checkers.convergence.settled_limit` (unresolved unless the changes contract)."""
    sigma = instance["activation"]
    values = [quadrature_kernel(sigma, correlation, nodes) for nodes in QUADRATURE_NODES]
    floor = QUADRATURE_ROUND_OFF * float(instance.constant("second_moment"))
    return settled_limit(*values, floor=floor, what=f"the quadrature of kappa({correlation:.6g})")


PROPOSAL_NODES = 200  # the Gauss-Hermite rule that places the proposal: any scale is unbiased, this one is efficient


def proposal_variance(sigma) -> float:
    """s^2 = E[Z^2 |sigma(Z)|] / E|sigma(Z)|, at least 1: the variance of the centred Gaussian with the second moment
    of |sigma| phi, so that the points reach where the integrand's mass is (|Z| near 4 for z^8, where a standard
    normal's points rarely go)."""
    z, weights = gauss_hermite_rule(PROPOSAL_NODES)
    size = np.abs(sigma(z))
    mass = float(weights @ size)
    return max(1.0, float(weights @ (z * z * size)) / mass) if mass > 0 else 1.0


def gaussian_pair_product(sigma, correlation: float, variance: float):
    """G (n, 2) -> the importance-weighted sigma(U) sigma(V): X = s G with s^2 = `variance`, U = X1,
    V = rho X1 + sqrt(1 - rho^2) X2, times the density ratio s^2 exp(-|X|^2 (1 - 1/s^2) / 2), whose mean over G is
    E[sigma(U) sigma(V)] for every s."""
    complement = math.sqrt(max(0.0, 1.0 - correlation * correlation))
    scale = math.sqrt(variance)

    def product(normals: np.ndarray) -> np.ndarray:
        x = scale * normals
        u = x[:, 0]
        v = correlation * u + complement * x[:, 1]
        ratio = variance * np.exp(-np.einsum("ij,ij->i", x, x) * (1 - 1 / variance) / 2)
        return sigma(u) * sigma(v) * ratio

    return product


def _correlations():
    """Exact correlations in [-1, 1], with the edges (where the tail bound is tight) always tried."""
    return st.one_of(st.sampled_from([-1, 1, 0]), st.fractions(-1, 1, max_denominator=10**6)).map(
        lambda f: sympy.Rational(f.numerator, f.denominator) if hasattr(f, "numerator") else sympy.Integer(f))


def read_closed_form(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    value = dual_kernel.closed_form_value(instance)
    return Exact(value, tolerance=series_accuracy(instance),
                 method=f"closed form at {instance.digits} digits; the series' own accuracy (K + 2) 10^-digits "
                        "(1 + E sigma^2)")


def read_monte_carlo(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    sigma = instance["activation"]
    variance = proposal_variance(sigma)
    estimate = rqmc_gaussian_mean(gaussian_pair_product(sigma, float(instance["rho"]), variance), 2,
                                  budget.scaled(BASE_POINTS), REPLICATES, seed)
    return replace(estimate, method=f"{estimate.method}, importance-sampled from N(0, {variance:.3g} I)")


def read_tail_bound(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Exact:
    """The smallest margin tail(rho) - |kappa(rho) - S_K(rho)| over correlations searched by Hypothesis, kappa from
    the closed form where one is known (the margin is then accurate to the series' own accuracy), else from the
    quadrature reference (accurate to its convergence bound, the worst over the correlations tried, plus the
    series')."""
    # the edges, where the bound is tight (at rho = 1 the tail is the whole Parseval remainder), are always tried
    edges = [sympy.Integer(-1), sympy.Integer(0), sympy.Integer(1)]
    closed = dual_kernel.dual_kernel_closed_form(instance["activation"]) is not None
    accuracies = [series_accuracy(instance)]
    best = {"ratio": None, "rho": None}  # the largest |kappa - S_K| / tail where the tail is well above round-off

    def margin(correlation):
        if closed:
            found, tail = dual_kernel.tail_bound_terms(instance, correlation)
            found = float(found)
        else:
            value, tail = dual_kernel.series_at(instance, correlation)
            reference, accuracy = quadrature_reference(instance, float(correlation))
            accuracies.append(series_accuracy(instance) + accuracy)
            found = float(tail) - abs(reference - float(value))
        if float(tail) > 1e6 * max(accuracies):
            ratio = (float(tail) - found) / float(tail)
            if best["ratio"] is None or ratio > best["ratio"]:
                best.update(ratio=ratio, rho=correlation)
        return found

    # the search goes on past a negative margin below SEARCH_SLACK (it would stop at the first round-off-sized one,
    # before the accuracy of the quadrature at that rho is known); the verdict compares the smallest margin found
    # with the accuracy actually computed
    slack = 0.0 if closed else SEARCH_SLACK * float(instance.constant("second_moment"))
    result = search_counterexample(margin, _correlations(), max_examples=budget.scaled(25),
                                   seed=int(seed.generate_state(1)[0]), explicit=edges, tolerance=slack)
    reference = ("the closed form" if closed else
                 f"a product Gauss-Hermite rule ({', '.join(map(str, QUADRATURE_NODES))} nodes per axis, converged)")
    tightness = None if best["ratio"] is None else Tightness(
        best["ratio"], f"rho = {best['rho']}", 1.0, "rho = 1, where the tail is the whole Parseval remainder")
    return Exact(result.smallest_margin, tolerance=max(accuracies),
                 method=f"Hypothesis search over {result.examples} correlations against {reference}; smallest margin "
                        f"at rho = {result.example}", tightness=tightness)


CHECKER = Checker(
    theorem=dual_kernel.THEOREM,
    simulation="closed form to 30 digits; the tail bound at every rho, searched by Hypothesis; scrambled-Sobol' RQMC",
    readers={"closed-form": read_closed_form, "monte-carlo": read_monte_carlo, "tail-bound": read_tail_bound},
    second_point={"activation": "tanh", "rho": "-0.5"},
    calibration_seeds=200,
)
