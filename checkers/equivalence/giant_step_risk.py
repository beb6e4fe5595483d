"""Checker of giant-step-risk: ridge readouts on Cui et al.'s spiked random features and on the network after one
giant step, at three sizes, against Result 3.3 in the limit and on each draw's own first layer.

Per network draw (`_simulated`): the step (`checkers.equivalence.spiked_features.spiked_step`), then the readout
(`readout_errors`): ridge on n = alpha p fresh samples with noisy labels, its training error, and its test error
against the noiseless teacher, exact given the readout: in closed form for erf features and an erf teacher
(`checkers.equivalence.exact_risk.readout_risk`), else by Mehler's series with a bounded truncation
(`checkers.equivalence.series_risk`), sampled only where the series does not converge fast enough; beside them what
Result 3.3 reads off W_1 (r, c, gamma and Omega's spectrum). Per sRF draw (`_spiked_model`): the same readout on
W = sqrt(c) W_0 + r 1 v^T at the statement's r, c, gamma. Each reading is averaged per size and extrapolated as
L + B d^-e with the exponent bounded around 1 (`checkers.convergence.bounded_extrapolation`): the spread of the
limits the sizes accept enters the test, and sizes that reject every such model leave the reading unresolved.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from checkers.budget import PAPER, Budget, Fidelity
from checkers.checker import Checker, Pooled
from checkers.convergence import bounded_extrapolation, require_small_expansion_parameter
from checkers.cost import Cost, over_stages
from checkers.equivalence.exact_risk import readout_risk
from checkers.equivalence.ridge import fit_ridge
from checkers.equivalence.series_risk import series_test_error
from checkers.equivalence.spiked_features import spiked_model, spiked_step
from checkers.equivalence.srf_constants import expected_direction_energy
from checkers.shared_draws import cached
from checkers.stats import Estimate, control_variate_estimate, mean_estimate
from theorems.equivalence import giant_step_risk
from theorems.equivalence.giant_step_oracle import (
    channels,
    mean_channel_noise_ratio,
    mean_channel_penalty_ratio,
    realized_features,
)
from theorems.equivalence.kernel_oracle import erf_feature_moments
from theorems.statement import Instance

SIZES = (100, 200, 400)
# Draws per size at budget level 0, doubled per level, for the network and the sRF alike. Measured per-draw s.d.
# (tanh/tanh defaults, after the control variates) 12%, 8%, 5% of the test error and 7.7%, 5.1%, 3.5% of the realized
# gap, at 0.05, 0.09 and 0.24 s a draw: this allocation gives the three sizes about equal standard errors (2.1%,
# 2.0%, 1.8% of the test error at level 0). The sRF's per-draw s.d. is 11%, 7.6%, 6.2% of the test error at d = 100,
# 200, 400 and 16%, 10%, 7% of the training error, at 0.04, 0.12 and 0.3 s a draw; no control variate found (the
# labels' and the data's empirical moments) correlates with it above 0.16.
DRAWS = {100: 32, 200: 16, 400: 8}
# At paper fidelity the sizes double, where the sRF's finite-size bias is below 0.2% of its limit (it is +1.35% at
# d = 100), and the sRF gets the draws that resolve 2% of its limits at the first stage: its per-draw s.d. is 9.1%,
# 6.2%, 5.5% (test) and 12%, 7%, 5.5% (training) at d = 200, 400, 800; the limit at e = 1 weighs the sizes' means by
# -1/2, 1/2 and 1, and these counts are near the allocation that minimizes its variance at that cost (half as many
# leave no margin below 2%); a paper check takes about 8 minutes of one core. The network's readings resolve 4% and
# more, so it gets far fewer (2.1 s a draw at d = 800). Per size: (network draws, sRF draws), doubled at the second
# stage (docs/derivations/limits.md#giant-step, where the timings are).
PAPER_DRAWS = {200: (128, 3072), 400: (64, 1536), 800: (64, 1536)}
# The test error given the readout, by Mehler's series (`checkers.equivalence.series_risk`) with its truncation bounded
# by 1e-4 of it: 1/200 of the 2% that the sRF's test error is resolved to (our rule). Where no degree reaches that
# (rows correlated near 1), it is sampled on TEST_SAMPLES fresh inputs instead.
SERIES_ACCURACY = 1e-4
TEST_SAMPLES = 10_000
# The finite-size correction of a ridge error is of order 1/d; its exponent is bounded within a factor two of it
FINITE_SIZE_EXPONENT = 1.0


def readout_errors(instance: Instance, weights: np.ndarray, theta: np.ndarray, rng: np.random.Generator):
    """(test error, training error, n) of the ridge readout on sigma(W x)/sqrt(p), W = `weights` (p x d), trained on
    n = alpha p fresh samples labelled by the teacher along `theta` with the instance's noise; the test error is
    against the noiseless teacher, exact given the readout (erf's closed form, else Mehler's series to
    SERIES_ACCURACY), sampled only where the series does not reach that."""
    sigma, teacher, noise = instance["activation"], instance["teacher"], float(instance["noise"])
    width, dimension = weights.shape
    samples = max(2, round(float(instance["sample_ratio"]) * width))
    x = rng.standard_normal((samples, dimension))
    y = teacher(x @ theta) + noise * rng.standard_normal(samples)
    features = sigma(x @ weights.T) / math.sqrt(width)
    # Cui's ||y - X a/sqrt(p)||^2 + lambda_C ||a||^2 is the Ba-normalized ridge at lambda_Ba = lambda_C p/n
    readout = fit_ridge(features, y, float(instance["penalty"]) * width / samples)
    train = float(np.mean((y - features @ readout) ** 2))
    if sigma.name == "erf" and teacher.name == "erf":
        return readout_risk(readout, *erf_feature_moments(weights.T, theta)), train, samples
    series = series_test_error(readout, weights, theta, sigma, teacher, SERIES_ACCURACY)
    if series is not None:
        return series[0], train, samples
    x = rng.standard_normal((TEST_SAMPLES, dimension))
    test = float(np.mean((teacher(x @ theta) - sigma(x @ weights.T) @ readout / math.sqrt(width)) ** 2))
    return test, train, samples


@cached(maxsize=4096)
def _simulated(parameters: tuple, dimension: int, entropy, spawn_key):
    """One network draw: (test error, training error, W_1's realized features, n, (||Z^T y/n_0||^2,
    <Z^T y/n_0, theta>)). It reads none of the statement's constants, so a mutant reuses it and recomputes only
    Result 3.3 on its features."""
    instance = giant_step_risk.THEOREM.instance(dict(parameters))
    sigma, teacher, noise = instance["activation"], instance["teacher"], float(instance["noise"])
    width = max(1, round(float(instance["width_ratio"]) * dimension))
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=spawn_key))
    step = spiked_step(dimension, width, float(instance["alpha0"]), float(instance["eta"]), sigma, teacher, noise, rng)
    test, train, samples = readout_errors(instance, step.updated_weights, step.teacher, rng)
    return (test, train, realized_features(step.updated_weights, step.direction, step.teacher), samples,
            (step.direction_energy(), step.teacher_projection()))


# two floats a draw: room for both of paper fidelity's stages, so that each prediction reads the draws another drew
@cached(maxsize=32768)
def _spiked_model(parameters: tuple, spiked: tuple[float, float, float], dimension: int, entropy, spawn_key):
    """One draw of the sRF at (r, c, gamma) = `spiked` (`checkers.equivalence.spiked_features.spiked_model`):
    (test error, training error)."""
    instance = giant_step_risk.THEOREM.instance(dict(parameters))
    width = max(1, round(float(instance["width_ratio"]) * dimension))
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=spawn_key))
    weights, theta = spiked_model(dimension, width, *spiked, rng)
    test, train, _ = readout_errors(instance, weights, theta, rng)
    return test, train


def plan(budget: Budget) -> dict[int, tuple[int, int]]:
    """Per size d: (network draws, sRF draws). Below paper fidelity, d = 100, 200, 400 with DRAWS[d] 2^level each;
    at paper fidelity d = 200, 400, 800 with PAPER_DRAWS doubled per stage."""
    if budget.fidelity.name == PAPER:
        return {dimension: (network * 2**budget.stage, spiked * 2**budget.stage)
                for dimension, (network, spiked) in PAPER_DRAWS.items()}
    return {dimension: (draws * 2**budget.level,) * 2 for dimension, draws in DRAWS.items()}


def cost(instance: Instance, fidelity: Fidelity) -> Cost:
    """A network draw at d: its step (n_0 = alpha0 d samples, p = (p/d) d neurons, two n_0 d p products), its
    readout (n = (n/p) p samples: the features, n d p, a ridge solve, about n p^2 + p^3, and the test error's
    series, the rows' Gram matrix p^2 d and a few sums of degree 20 or so over it) and W_1's spectrum (about 10 p^3);
    an sRF draw is the readout alone. A stage's draws include the previous stage's (cached), so the check spends its
    last stage's."""
    def at(budget: Budget) -> Cost:
        parts = []
        for dimension, (network, spiked) in plan(budget).items():
            width = max(1, round(float(instance["width_ratio"]) * dimension))
            samples = max(2, round(float(instance["sample_ratio"]) * width))
            step_samples = max(1, round(float(instance["alpha0"]) * dimension))
            readout = samples * dimension * width + samples * width**2 + width**3 + width**2 * (dimension + 60)
            parts.append(Cost(network * (2 * step_samples * dimension * width + readout + 10 * width**3)
                              + spiked * readout,
                              8 * (max(samples, step_samples) * (dimension + width) + 6 * width**2),
                              f"d = {dimension}, p = {width}, n = {samples}, n_0 = {step_samples}"))
        return Cost.total(parts)
    return over_stages(fidelity, at, nested=True)


def _per_size(draw, seed: np.random.SeedSequence, budget: Budget, column: int, *leading):
    """draw(*leading, d, entropy, spawn_key) for the planned draws (`plan`, its `column`: 0 the network's, 1 the
    sRF's) of the seed's child per size."""
    planned = plan(budget)
    return {dimension: [draw(*leading, dimension, child.entropy, child.spawn_key)
                        for child in size_seed.spawn(planned[dimension][column])]
            for dimension, size_seed in zip(planned, seed.spawn(len(planned)))}


def _draws(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    return _per_size(_simulated, seed, budget, 0, tuple(sorted(instance.describe_parameters().items())))


def _spiked_draws(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
    """The sRF's draws per size at the statement's r, c, gamma, from the seed's child number 3, which the network's
    draws (children 0 to 2, one per size) never use."""
    spiked = tuple(float(instance.constant(name)) for name in ("r", "c", "gamma"))
    root = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, len(SIZES)))
    return _per_size(_spiked_model, root, budget, 1, tuple(sorted(instance.describe_parameters().items())), spiked)


def _extrapolated(sizes, estimates: list[Estimate], what: str) -> Estimate:
    return bounded_extrapolation(tuple(sizes), estimates, exponent=FINITE_SIZE_EXPONENT, what=what)


def _read_spiked_error(column: int, what: str):
    """The sRF's mean test (column 0) or training (1) error per size, extrapolated."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
        require_resolved_mean_channel(instance)
        draws = _spiked_draws(instance, budget, seed)
        return _extrapolated(draws, [mean_estimate(np.array([draw[column] for draw in per_size]))
                                     for per_size in draws.values()], what)
    return read


def _read_error(column: int, limit: str, what: str):
    """The mean of column 0 (test error) or 1 (training error) per size, with the control variates
    ||Z^T y/n_0||^2 and <Z^T y/n_0, theta> of the step, whose finite-size means are exact (they carry much of
    the spike's draw-to-draw spread, and with it a third of the errors' spread); beside it, the network's gap to
    Result 3.3's `limit` per size and its trend in d (`gap_trend`)."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> Estimate:
        require_resolved_mean_channel(instance)
        teacher, noise = instance["teacher"], float(instance["noise"])
        estimates = []
        draws = _draws(instance, budget, seed)
        for dimension, per_size in draws.items():
            means = expected_direction_energy(teacher, noise, dimension,
                                              max(1, round(float(instance["alpha0"]) * dimension)))
            controls = np.array([draw[4] for draw in per_size]) - np.array(means)
            estimates.append(control_variate_estimate(np.array([draw[column] for draw in per_size]), controls))
        extrapolated = _extrapolated(draws, estimates, what + " (control variates ||Z^T y/n_0||^2, <Z^T y/n_0, "
                                                              "theta>)")
        gap = gap_trend(tuple(draws), estimates, float(instance.constant(limit)))
        return dataclasses.replace(extrapolated, method=f"{extrapolated.method}; {gap}")
    return read


def gap_trend(sizes: tuple[int, ...], estimates: list[Estimate], limit: float) -> str:
    """The network's measured gap to Result 3.3's limit, estimate / limit - 1 per size with its standard error, and
    its trend: the weighted least-squares slope of the gap against log2 d (per doubling of d), with its standard
    error. Reported, not tested: the claim is the band."""
    gaps = np.array([estimate.value / limit - 1 for estimate in estimates])
    errors = np.array([estimate.standard_error / abs(limit) for estimate in estimates])
    doublings = np.log2(np.array(sizes, dtype=float))
    weights = 1 / errors**2
    centred = doublings - np.average(doublings, weights=weights)
    spread = float(np.sum(weights * centred**2))
    slope = float(np.sum(weights * centred * gaps)) / spread
    per_size = ", ".join(f"{gap:+.2%} +- {error:.2%} at d = {size}" for gap, error, size in zip(gaps, errors, sizes))
    return (f"measured gap to Result 3.3's limit {per_size}; trend {slope:+.2%} +- {1 / math.sqrt(spread):.2%} per "
            "doubling of d")


def require_resolved_mean_channel(instance: Instance) -> None:
    """Unresolved where Result 3.3's mean channel is not yet in its limit at the smallest size: the readout reads
    the spike's signal through the mean feature, which Result 3.3 takes as noiseless and unregularized. Both
    corrections are series in a ratio that falls like 1/d at fixed r > 0 (`mean_channel_noise_ratio`,
    `mean_channel_penalty_ratio`); where either exceeds CONTRACTION at d = SIZES[0], no extrapolation across the
    sizes reaches the limit (measured at eta = 0.1, noise ratio 5.2: the sRF's test error 0.174, 0.170, 0.155 at
    d = 100, 200, 400 against a limit of 0.094; at penalty = 1000, penalty ratio 15: 0.367, 0.342, 0.305). Without a
    spike (r = 0) the mean carries no signal and nothing is misread. The ratios are the network's, so they are read
    from the parameters alone, before any draw."""
    spike, inflation, overlap = (float(instance.derived_constants[name].value) for name in ("r", "c", "gamma"))
    if spike == 0:
        return
    width = max(1, round(float(instance["width_ratio"]) * SIZES[0]))
    samples = max(2, round(float(instance["sample_ratio"]) * width))
    ch = channels(instance["activation"], instance["teacher"], spike=spike, inflation=inflation, overlap=overlap)
    where = f"d = {SIZES[0]} (p = {width}, n = {samples}, r = {spike:.3g})"
    require_small_expansion_parameter(mean_channel_noise_ratio(ch, inflation=inflation, width=width),
                                      what="Result 3.3's mean channel", where=where,
                                      parameter="the mean feature's noise-to-signal ratio E Var(sigma | kappa) / "
                                                "(p Var mu0(kappa))")
    require_small_expansion_parameter(mean_channel_penalty_ratio(ch, ridge=float(instance["penalty"]), samples=samples),
                                      what="Result 3.3's mean channel", where=where,
                                      parameter="the ridge's shrinkage of the mean direction lambda_C / (n E mu0^2)")


def read_realized_gap(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Pooled:
    """The network's draws, each read by the version's observable (the statement's `realized_gap`: its test error
    over Result 3.3 on its own W_1, minus 1), their means per size extrapolated. The draws read the parameters only,
    so every version reads the same ones."""
    require_resolved_mean_channel(instance)
    draws_per_size = _draws(instance, budget, seed)
    measured = {dimension: [{"test_error": test, "features": features,
                             "sample_ratio": samples / len(features.spectrum.eigenvalues)}
                            for test, _, features, samples, _ in draws]
                for dimension, draws in draws_per_size.items()}

    def pool(observable) -> Estimate:
        return _extrapolated(measured, [mean_estimate(np.array([observable(draw) for draw in draws]))
                                        for draws in measured.values()],
                             "test error / Result 3.3 on the draw's W_1 - 1, paired")
    return Pooled(pool)


CHECKER = Checker(
    theorem=giant_step_risk.THEOREM,
    simulation="ridge readouts on the sRF at (r, c, gamma) and on the network after one giant step, at d = 100, "
               "200, 400 (p = (p/d) d; 200, 400, 800 at paper fidelity), against Result 3.3 in the limit and on "
               "each draw's W_1, extrapolated in d with the exponent bounded in [1/2, 2]",
    readers={"srf-test-error": _read_spiked_error(0, "sRF's simulated test error"),
             "srf-train-error": _read_spiked_error(1, "sRF's simulated training error"),
             "test-error": _read_error(0, "test_error", "network's simulated test error"),
             "train-error": _read_error(1, "train_error", "network's simulated training error"),
             "realized-test-error": read_realized_gap},
    shared_draws=True,
    nested_stages=True,
    simulation_constants={"srf-test-error": ("r", "c", "gamma"), "srf-train-error": ("r", "c", "gamma")},
    cost=cost,
    resolves_at="paper",
    prediction_resolves_at={"test-error": "default", "train-error": "default", "realized-test-error": "default"},
    second_point={"eta": "2", "penalty": "0.5"},
    slow_mutants=True,
    slow_rerun=True,
    paper_scale="d = p = 200, 400 and 800 (n = 400..1600 readout samples) with 3072, 1536 and 1536 sRF draws: "
                "Cui et al.'s simulations reach d = 2000, but the sRF's 2% needs draws more than size, and from "
                "d = 200 on its finite-size bias is below 0.2% of the limit",
)
