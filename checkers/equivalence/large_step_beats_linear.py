"""Checker of large-step-beats-linear: the erf smoothing identity in sympy, tau at its minimizers by two-dimensional
Gauss-Hermite quadrature (independent of the identity), and the network and GE risks at eta = N^(1/2) against the
linear bound."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import scipy.special

from checkers.budget import FIDELITIES, Budget
from checkers.checker import Checker, Exact, Measured, Pooled, Tightness
from checkers.equivalence.feature_maps import gaussian_equivalent_map
from checkers.equivalence.ridge import readout
from checkers.onestep.draws import setting_for
from checkers.onestep.simulation import one_step
from checkers.shared_draws import draw_key, memoized
from checkers.stats import Estimate, at_every_size, mean_estimate
from theorems.equivalence import large_step_beats_linear
from theorems.equivalence.large_step_beats_linear import (
    MPMATH_NODES,
    MPMATH_ROOT_ACCURACY,
    MPMATH_TAU_ACCURACY,
    tanh_derivative,
    tanh_tau_mpmath,
    tau_derivative,
    tau_numeric,
)
from theorems.errors import InvalidInput
from theorems.hermite import gauss_hermite_rule, hermite_coefficients, mu_star_squared
from theorems.statement import Instance

# The most work a draw may take: n N (d + N) multiply-adds (the step's and the features' products, n x d times
# d x N, and the readout's Gram matrix, N x n times n x N). At the defaults with d = 1024 it is 5.2e10 and a draw
# takes 13.4 s on one core here (2.7 s at d = 512); a quick check makes up to 58 draws, so the cap keeps it within
# about a quarter of an hour. At d = 2048 a draw would take about 100 s and a quick check over half an hour, with
# no word before it starts: such a request is refused at once, with the sizes.
MAX_DRAW_WORK = 6e10


def read_smoothing_identity(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """The statement's own sympy verdict on its identity; nothing is drawn."""
    defect = observable({})
    return Exact(defect, 0.0, "sympy: residual " + ("0" if defect == 0 else "not 0"))


# tau for erf/erf by Gauss-Hermite on both expectations: never through the identity E erf(a + Z) = erf(a/sqrt 3)
# that the smoothing-identity prediction tests. The rule is converged to 1e-15 relative by 100 nodes (kappa = 1:
# 0.0356292517626 with 100, 150 and 200 nodes, and 0.03562925176 by nested mpmath quadrature), so at 150 nodes
# the value is stated to 1e-13: float64 round-off of a sum of O(1) terms, with a hundredfold margin
TAU_NODES = 150
TAU_ACCURACY = 1e-13


def read_erf_tau_star(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """tau for erf/erf as a function of kappa, by quadrature that never uses the smoothing identity; the statement
    evaluates it at its kappa_star."""
    kappa = float(instance.constant("kappa_star"))
    return Measured({"tau": lambda at: tau_numeric(scipy.special.erf, scipy.special.erf, at, TAU_NODES)},
                    TAU_ACCURACY, f"two-dimensional Gauss-Hermite ({TAU_NODES} x {TAU_NODES} nodes, float64) at "
                                  f"kappa = {kappa:.10g}, independent of the smoothing identity")


def read_tanh_tau_star(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """tau for tanh/tanh as a function of kappa (100 x 100 Gauss-Hermite nodes) and ||P_>1 tanh||^2; the statement
    evaluates its margin at its kappa_tanh."""
    kappa = float(instance.constant("kappa_tanh"))
    z, weights = gauss_hermite_rule(100)
    measured = {"tau": lambda at: tau_numeric(np.tanh, np.tanh, at),
                "beyond_linear": float(weights @ np.tanh(z) ** 2 - (weights @ (z * np.tanh(z))) ** 2)}
    ratio = large_step_beats_linear.tanh_tau_ratio(instance, measured)
    return Exact(observable(measured), 1e-9,
                 f"Gauss-Hermite (100 x 100 nodes): tau({kappa:.6g}) = {measured['tau'](kappa):.5g}, ||P_>1 tanh||^2 = "
                 f"{measured['beyond_linear']:.5g}",
                 tightness=Tightness(ratio, f"kappa = {kappa:.10g}"), witnesses={"quadrature": measured})


def read_tanh_kappa_root(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    """tau'/tau'' at kappa_tanh: tau' by the mpmath route, tau'' by a central difference of the float64 route (it
    only scales the distance)."""
    kappa = instance.constant("kappa_tanh")
    _, derivative = tanh_tau_mpmath(mpmath.nstr(kappa, 20))
    step = 1e-4
    curvature = (tau_derivative(np.tanh, tanh_derivative, np.tanh, float(kappa) + step)
                 - tau_derivative(np.tanh, tanh_derivative, np.tanh, float(kappa) - step)) / (2 * step)
    return Measured({"at": float(kappa), "distance": float(derivative) / curvature}, MPMATH_ROOT_ACCURACY,
                    f"tau'(kappa_tanh) = {mpmath.nstr(derivative, 3)} in mpmath ({MPMATH_NODES}-node Gauss-Hermite, "
                    f"30 digits), over tau'' = {curvature:.5g}")


def read_tanh_tau_value(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Measured:
    tau, _ = tanh_tau_mpmath(mpmath.nstr(instance.constant("kappa_tanh"), 20))
    # in float64: the difference from tau_tanh (about 1e-17) is far above float64's resolution at 1e-4 (1e-20),
    # and no process-wide mpmath precision can then change a stored bit
    return Measured({"tau": float(tau)}, MPMATH_TAU_ACCURACY,
                    f"tau(kappa_tanh) = {mpmath.nstr(tau, 14)} in mpmath ({MPMATH_NODES}-node Gauss-Hermite, 30 "
                    "digits)")


def _read_margin(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Pooled:
    """The network's and the Gaussian-equivalent model's risks per draw at each size of `sizes`; the statement's
    margin against the linear bound is estimated at each size and claimed at every one (`at_every_size`)."""
    dimensions, counts = sizes(instance, budget)
    for dimension in dimensions:
        require_affordable_draws(instance, dimension)
    risks = [memoized(draw_key(instance, budget, seed, "large-step", dimension, mutant_blind=True),
                      lambda dimension=dimension, count=count: _large_step_risks(
                          instance, np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, dimension)),
                          dimension, count))
             for dimension, count in zip(dimensions, counts)]
    method = (f"eta = N^(1/2); at d = {', '.join(map(str, dimensions))} ({', '.join(map(str, counts))} draws): risks "
              + "; ".join(f"{r[:, 0].mean():.4g} (network), {r[:, 1].mean():.4g} (equivalent)" for r in risks)
              + f"; linear bound {float(instance.constant('linear_bound')):.5g}")

    def pool(observable) -> Estimate:
        return at_every_size([mean_estimate(np.array([float(observable({"network": network, "equivalent": equivalent}))
                                                      for network, equivalent in rows]))
                              for rows in risks], method)
    return Pooled(pool)


# The draws per size at the first stage, d, 2d and 4d: at the defaults each confirms its margin (0.0054, 0.0076 and
# 0.0107 on seed 0, per-draw spreads 0.0035, 0.0026 and 0.0010) at t about 11, 14 and 37 against critical values of
# 7, 8 and 14 (docs/derivations/equivalence.md#large-step-beats-linear)
FIRST_STAGE_DRAWS = (48, 24, 12)


def sizes(instance: Instance, budget: Budget) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(dimensions, draws at each): d and 2d at quick fidelity, d, 2d and 4d from default (a draw at 4d = 512 takes
    2 s here); the draws grow by sqrt 2 per sequential stage."""
    dimension = int(instance["dimension"])
    count = 3 if budget.fidelity.level >= FIDELITIES["default"].level else 2
    return (tuple(dimension * 2**index for index in range(count)),
            tuple(round(draws * math.sqrt(2) ** budget.stage) for draws in FIRST_STAGE_DRAWS[:count]))


def require_affordable_draws(instance: Instance, dimension: int | None = None) -> None:
    """InvalidInput, before any draw, where one draw's n N (d + N) at `dimension` (the instance's by default)
    exceeds MAX_DRAW_WORK."""
    dimension = int(instance["dimension"]) if dimension is None else dimension
    setting = setting_for(instance, dimension)
    samples, width = setting.samples, setting.width
    work = samples * width * (dimension + width)
    if work > MAX_DRAW_WORK:
        raise InvalidInput(f"n = {samples}, N = {width} at d = {dimension}: a draw takes n N (d + N) = {work:.2g} "
                           f"multiply-adds, above the {MAX_DRAW_WORK:.0e} this check makes (about 15 s a draw on one "
                           "core; the check reads d, 2d and 4d from default fidelity); lower dimension, psi1 or psi2")


def _large_step_risks(instance: Instance, seed: np.random.SeedSequence, dimension: int, draws: int) -> np.ndarray:
    """(network, Gaussian-equivalent) test risks per draw at eta = N^(1/2), at `dimension`."""
    sigma = instance["activation"]
    mu1 = float(hermite_coefficients(sigma, 1, digits=20).coefficients[1])
    mu_star = float(mu_star_squared(sigma, digits=20).value) ** 0.5
    maps = {"network": lambda pre, rng: sigma(pre), "equivalent": gaussian_equivalent_map(mu1, mu_star)}
    rows = []
    for child in np.random.SeedSequence((seed.entropy, *seed.spawn_key)).spawn(draws):
        rng = np.random.default_rng(child)
        width = round(float(instance["psi2"]) * dimension)
        step = one_step(setting_for(instance, dimension, learning_rate=width ** 0.5), rng)
        errors = readout(step, step.updated_weights(), maps, [float(instance["penalty"])], rng,
                         test_samples=4 * step.setting.samples)
        rows.append((errors["network"].test[0], errors["equivalent"].test[0]))
    return np.array(rows)


CHECKER = Checker(
    theorem=large_step_beats_linear.THEOREM,
    simulation="sympy proof of the erf smoothing identity; mpmath at 30 digits; risk margins over draws",
    readers={"smoothing-identity": read_smoothing_identity, "erf-tau-star": read_erf_tau_star,
             "tanh-tau-star": read_tanh_tau_star, "tanh-kappa-root": read_tanh_kappa_root,
             "tanh-tau-value": read_tanh_tau_value, "beats-linear": _read_margin,
             "equivalent-stays-linear": _read_margin},
    shared_draws=True,
    second_point={"psi1": "16"},
    slow_rerun=True,
)
