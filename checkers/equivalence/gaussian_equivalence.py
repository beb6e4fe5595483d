"""Checker of gaussian-equivalence: the network's ridge risk against the deterministic equivalent of the Gaussian
equivalent model on the same realized W_1, paired per draw at three sizes (four for the part of the gap that is a
function of W_1 alone; at paper fidelity up to Ba et al.'s d = 512), each part extrapolated with its exponent bounded.

Per draw: one step (`checkers.onestep.simulation`), a Ba-normalized ridge readout on n fresh samples, and its risk
R_CK against the noiseless teacher: exact given the readout for erf features and an erf teacher (arcsine closed
forms, `checkers.equivalence.exact_risk.readout_risk`), else on 4n fresh test inputs. Beside it, from the same W_1
and no second simulation:
- DE_GE(W_1), the GE model's deterministic equivalent (`theorems.equivalence.gaussian_equivalent_oracle`), with
  the statement's mu1, mu_star, c_1(sigma_*) and E y^2;
- DE_kernel(W_1), the deterministic equivalent of Gaussian features with the network features' own covariance and
  teacher correlation (the kernel oracle of docs/derivations/limits.md#kernel-oracle, its moments from
  `theorems.equivalence.kernel_oracle.feature_moments`: the closed forms for erf, else the oracle's series), which
  reads no constant of the statement.
The gap splits exactly per draw, R_CK/DE_GE - 1 = (1 + u)(1 + l) - 1, into u = R_CK/DE_kernel - 1 (the network
against Gaussian features of its own moments: noisy, with no finite-size trend measured) and l = DE_kernel/DE_GE - 1
(the features' moments against their linearization: a function of W_1 alone, about -3/d with a small spread over
the draws). Each is averaged per size and extrapolated as L + B d^-e with e only bounded, 1/2 <= e <= 2
(`checkers.convergence.bounded_extrapolation`), and the limit of the gap is (1 + L_u)(1 + L_l) - 1
(docs/derivations/equivalence.md#gaussian-equivalence).
"""

from __future__ import annotations

import math

import numpy as np

from checkers.arrays import activation_value, to_backend, to_numpy
from checkers.budget import PAPER, Budget, Fidelity
from checkers.checker import Checker, Pooled
from checkers.convergence import bounded_extrapolation, require_small_expansion_parameter
from checkers.cost import Cost, over_stages
from checkers.equivalence.exact_risk import readout_risk
from checkers.equivalence.ridge import fit_ridge
from checkers.onestep.draws import setting_for
from checkers.onestep.simulation import draw_data, one_step
from checkers.shared_draws import cached
from checkers.stats import Estimate, mean_estimate, product_limit
from theorems.equivalence import gaussian_equivalence
from theorems.equivalence.gaussian_equivalence import equivalent_risk
from theorems.equivalence.gaussian_equivalent_oracle import gram_spectrum
from theorems.equivalence.kernel_oracle import feature_moments, kernel_errors_from_moments
from theorems.onestep.common import step_shift_variance
from theorems.statement import Instance

EQUIVALENCE_SIZES = (100, 200, 400)  # where the network is trained: R_CK, and u = R_CK/DE_kernel - 1
# where l = DE_kernel/DE_GE - 1 is read: a function of W_1 alone, so d = 800 costs one step and two N x N
# factorizations a draw (about 1 s), no readout
MOMENT_SIZES = (*EQUIVALENCE_SIZES, 800)
# Draws per size at budget level 0, doubled per level. Measured per-draw s.d. of u 3.2%, 2.2%, 1.9% (d = 100, 200,
# 400), of l 1.2%, 0.7%, 0.34%, 0.17% (d = 100 to 800), and cost 0.03, 0.1, 0.45, 1.05 s. u's intercept needs the
# network's draws: its standard error, 0.17% at x16, is about what this allocation's cost buys at best. l's
# correction, -3.1/d, is what the sizes must pin: with d = 800 the exponents they accept span about 0.7..1.3,
# whose limits lie within 0.3-0.6% (three sizes alone accept 0.5..1.7, within 1.5%)
DRAWS = {100: 24, 200: 8, 400: 12, 800: 3}
# At paper fidelity the network is trained up to d = 512, the size of Ba et al.'s Fig. 3 (50 runs there), and the
# moments read to 1024, each size with the draws of the default size it replaces at default's second stage (96 at
# 512, more than the figure's 50), doubled at the second: paper's two stages end with the draws of default's third
PAPER_SIZES = {128: 100, 256: 200, 512: 400, 1024: 800}  # each size and the default size whose draws it takes
PAPER_FIRST_LEVEL = 3


def plan(budget: Budget) -> tuple[tuple[int, ...], dict[int, int]]:
    """(the sizes where the network is trained, draws per size of those and the moments' own larger size):
    EQUIVALENCE_SIZES and MOMENT_SIZES with DRAWS doubled per level; at paper fidelity PAPER_SIZES with the draws of
    the default sizes they replace at level PAPER_FIRST_LEVEL, doubled per stage."""
    if budget.fidelity.name == PAPER:
        factor = 2 ** (PAPER_FIRST_LEVEL + budget.stage)
        draws = {size: DRAWS[replaced] * factor for size, replaced in PAPER_SIZES.items()}
    else:
        draws = {size: DRAWS[size] * 2**budget.level for size in MOMENT_SIZES}
    return tuple(draws)[:len(EQUIVALENCE_SIZES)], draws


@cached(maxsize=4096)
def _simulated(parameters: tuple, dimension: int, entropy, spawn_key, network: bool) -> tuple[float, float, np.ndarray,
                                                                                              np.ndarray, int]:
    """One draw: (R_CK, or nan without the `network`; DE_kernel(W_1); W_1's Gram spectrum; N). It reads nothing of the
    statement's constants, so a mutant or an override of a constant reuses it and recomputes only the equivalent
    (a few microseconds)."""
    instance = gaussian_equivalence.THEOREM.instance(dict(parameters))
    sigma, teacher = instance["activation"], instance["teacher"]
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=spawn_key))
    width = setting_for(instance, dimension).width
    learning_rate = float(instance["learning_rate"]) * width ** float(instance["step_exponent"])  # eta N^a
    step = one_step(setting_for(instance, dimension, learning_rate=learning_rate), rng)
    on_backend = step.updated_weights()
    weights, beta = to_numpy(on_backend), to_numpy(step.teacher_direction)  # the oracles read W_1 on the host
    penalty, noise_variance = float(instance["penalty"]), float(instance["noise"]) ** 2
    covariance, cross, teacher_moment = feature_moments(weights, beta, sigma, teacher)
    risk = math.nan
    if network:
        x, y, _ = draw_data(step.setting, rng, beta)
        x, y = to_backend(x), to_backend(y)
        readout = fit_ridge(activation_value(sigma, x @ on_backend) / math.sqrt(width), y, penalty)
        if sigma.name == "erf" and teacher.name == "erf":
            risk = readout_risk(to_numpy(readout), covariance, cross, teacher_moment)
        else:
            test = rng.standard_normal((4 * step.setting.samples, step.setting.dimension))
            risk = float(np.mean((teacher(test @ beta) - to_numpy(
                activation_value(sigma, to_backend(test) @ on_backend) @ readout) / math.sqrt(width)) ** 2))
    reference = kernel_errors_from_moments(covariance, cross, teacher_moment,
                                           samples=step.setting.samples, ridge=penalty,
                                           noise_variance=noise_variance).risk
    return (risk, reference, *gram_spectrum(weights, beta), width)


def cost(instance: Instance, fidelity: Fidelity) -> Cost:
    """A draw at d: the step (two n d N products), the features' moments (two N x N factorizations), and where the
    network is trained its readout (n d N features, a ridge solve of about n N^2 + N^3, and 4 n d N test features).
    A stage's draws include the previous stage's (cached), so the check spends its last stage's."""
    def at(budget: Budget) -> Cost:
        parts = []
        trained, sizes = plan(budget)
        for dimension, draws in sizes.items():
            setting = setting_for(instance, dimension)
            n, width = setting.samples, setting.width
            readout = 5 * n * dimension * width + n * width**2 + width**3 if dimension in trained else 0
            parts.append(Cost(draws * (2 * n * dimension * width + 2 * width**3 + readout),
                              8 * (4 * n * (dimension + width) + 3 * width**2),
                              f"n = {n}, d = {dimension}, N = {width}"))
        return Cost.total(parts)
    return over_stages(fidelity, at, nested=True)


def _per_size(instance: Instance, budget: Budget, seed: np.random.SeedSequence, moments: bool = False) -> list:
    """Per size of the plan where the network is trained (and, with `moments`, the moments' larger size too), the
    draws' measurements: R_CK (nan at the moments' size), DE_kernel(W_1) (`reference`), W_1's Gram spectrum
    (`squares`, `along`), N and n. Size d draws from the same child of `seed` whichever sizes are asked for."""
    trained, planned = plan(budget)
    for dimension in planned:  # every size's matrices must fit (InvalidInput), before the first draw
        setting_for(instance, dimension)
    parameters = tuple(sorted(instance.describe_parameters().items()))
    size_seeds = dict(zip(planned, seed.spawn(len(planned))))
    per_size = []
    for dimension in planned if moments else trained:
        samples, draws = setting_for(instance, dimension).samples, []
        for child in size_seeds[dimension].spawn(planned[dimension]):
            risk, reference, squares, along, width = _simulated(parameters, dimension, child.entropy, child.spawn_key,
                                                                dimension in trained)
            draws.append({"risk": risk, "reference": reference, "squares": squares, "along": along, "width": width,
                          "samples": samples})
        per_size.append(draws)
    return per_size


def require_small_step_at_these_sizes(instance: Instance) -> None:
    """Unresolved where eta = Theta(1) is not yet small at the smallest width: the variance of a fresh
    preactivation's shift, eta^2 (mu1^2 mu1_star^2 + E[y^2] E sigma'^2/psi1)/N (`step_shift_variance`), is the
    parameter of the expansion behind both limits, and above CONTRACTION the corrections do not fall off across
    the sizes (at learning_rate = 100 it is 11 at N = 200: the network's risk read 62% below DE_GE(W_1), and the
    true statement failed). Only where the small-step assumption holds: with step_exponent > 0 the theorem claims
    nothing, and the readings stay on show for what a growing step does."""
    if float(instance["step_exponent"]) != 0:
        return
    width = max(1, round(float(instance["psi2"]) * EQUIVALENCE_SIZES[0]))
    variance = step_shift_variance(instance.parameters, float(instance["learning_rate"]), width)
    require_small_expansion_parameter(variance, what="the small-step limit", where=f"d = {EQUIVALENCE_SIZES[0]} "
                                      f"(N = {width})", parameter="a fresh preactivation's shift variance after "
                                                                  "the step, eta^2 E||h_j||^2/N")


def read_risk_gap(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Pooled:
    """R_CK/DE_GE(W_1) - 1 as (1 + u)(1 + l) - 1, each part extrapolated with its exponent bounded (module docstring):
    u = R_CK/DE_kernel - 1 reads nothing of the statement, and l = DE_kernel/DE_GE - 1 is the statement's gap of
    Gaussian features of the network's own moments (its observable with DE_kernel in place of R_CK)."""
    require_small_step_at_these_sizes(instance)
    trained_sizes, sizes = plan(budget)
    per_size = _per_size(instance, budget, seed, moments=True)
    trained = per_size[:len(trained_sizes)]  # the sizes where the network was trained
    network = bounded_extrapolation(
        trained_sizes, [mean_estimate(np.array([d["risk"] / d["reference"] - 1 for d in draws]))
                        for draws in trained], exponent=1.0,
        what="u = R_CK/DE_kernel(W_1) - 1 (the network against Gaussian features of its own moments)")

    def pool(observable) -> Estimate:
        moments = bounded_extrapolation(
            tuple(sizes), [mean_estimate(np.array([observable({**d, "risk": d["reference"]}) for d in draws]))
                           for draws in per_size], exponent=1.0,
            what="l = DE_kernel(W_1)/DE_GE(W_1) - 1 (the features' moments against the GE model's)")
        return product_limit(network, moments, f"(1 + L_u)(1 + L_l) - 1, paired per draw. {network.method}. "
                                               f"{moments.method}. u's limit {network.value:+.4g} +- "
                                               f"{network.standard_error:.2g}, l's {moments.value:+.4g} +- "
                                               f"{moments.standard_error:.2g}")
    return Pooled(pool)


def read_equivalent_limit(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    """The mean of DE_GE(W_1) with the statement's own mu1, mu_star, c_1(sigma_*) and E y^2 (never a mutant's or an
    override's: here DE_GE is the observed side, and the limit formula is what is under test)."""
    require_small_step_at_these_sizes(instance)
    truth = gaussian_equivalence.THEOREM.instance(instance.describe_parameters())
    per_size = _per_size(instance, budget, seed)
    return bounded_extrapolation(
        plan(budget)[0], [mean_estimate(np.array([equivalent_risk(truth, d["squares"], d["along"], d["width"],
                                                                  d["samples"]).risk for d in draws]))
                          for draws in per_size], exponent=1.0, what="DE_GE(W_1) over the draws")


CHECKER = Checker(
    theorem=gaussian_equivalence.THEOREM,
    simulation="the network's ridge risk against DE_GE(W_1) on the same W_1, paired, at d = 100, 200, 400 (128, 256, "
               "512 at paper fidelity), split through Gaussian features of the network's own moments (that part of "
               "W_1 alone, and read to twice the largest d too), each part extrapolated in d^-e (1/2 <= e <= 2); "
               "DE_GE(W_1) against its deterministic limit, extrapolated the same way",
    readers={"risk": read_risk_gap, "equivalent-limit": read_equivalent_limit},
    shared_draws=True,
    nested_stages=True,
    cost=cost,
    array_api=True,
    resolves_at="default",
    second_point={"learning_rate": "2"},
    slow_mutants=True,
    slow_rerun=True,
    paper_scale="d = 128, 256 and 512, the moments' part to 1024 (96 draws at 512 at the first stage, 192 at the "
                "second): Ba et al.'s Fig. 3 draws at d = 512 (50 runs)",
)
