"""Observing the equivalence family: spiked random features (Cui et al.), and the ridge readouts of the network's,
Gaussian-equivalent and Hermite-surrogate features (Ba et al., Moniri et al.).

Every ridge stage uses fresh data, independent of the step (specs/onestep.md 9, pitfall 6). Errors are paired:
within one draw the network and its surrogate share the weights, the data and the test set, so their difference
has a far smaller spread than either error.
"""

from __future__ import annotations

import numpy as np

from checkers.check import Budget, Checker
from checkers.shared_draws import draw_key, memoized
from checkers.simulate.spiked_features import spiked_step
from checkers.stats import control_variate_estimate, extrapolate_limit, mean_estimate
from theorems import gaussian_equivalence, hermite_equivalence, large_step, mixture_equivalence, srf_constants
from theorems.statement import Instance

SPIKED_SIZES = (200, 400)


def _spiked_draws(instance: Instance, seed: np.random.SeedSequence, draws: int):
    """(r, c, gamma, ||Z^T y/n_0||^2, <Z^T y/n_0, theta>) per draw, per size."""
    sigma, teacher, noise = instance["activation"], instance["teacher"], float(instance["noise"])
    ratio, eta = float(instance["alpha0"]), float(instance["eta"])
    results = {}
    entropy = (seed.entropy, *seed.spawn_key)
    for size, size_seed in zip(SPIKED_SIZES, np.random.SeedSequence(entropy).spawn(len(SPIKED_SIZES))):
        rows = []
        for child in size_seed.spawn(draws * SPIKED_SIZES[-1] // size):
            step = spiked_step(size, size, ratio, eta, sigma, teacher, noise, np.random.default_rng(child))
            rows.append((step.spike(), step.bulk_inflation(), step.overlap(), step.direction_energy(),
                         step.teacher_projection()))
        results[size] = np.array(rows)
    return results


def observe_spiked(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    draws = 32 * 2 ** (budget.level // 2)
    results = memoized(draw_key(instance, budget, seed, "spiked", mutant_blind=True),
                       lambda: _spiked_draws(instance, seed, draws))
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
        "variates ||Z^T y/n_0||^2 and <Z^T y/n_0, theta>; "
        + ", ".join(f"{e.value:.4g} +- {e.standard_error:.2g}" for e in estimates)
        + "; extrapolated in 1/d"))


def expected_direction_energy(teacher, noise: float, dimension: int, samples: int) -> tuple[float, float]:
    """(E ||Z^T y / n_0||^2, E <Z^T y / n_0, theta> = mu1*) exactly at finite size. The first is
    (1 - 1/n_0) mu1*^2 + E[||z||^2 y^2] / n_0, with E[||z||^2 y^2] = E[Z^2 sigma*(Z)^2] + noise^2 + (d - 1)(E sigma*(Z)^2 + noise^2) (Gauss-Hermite, 200 nodes)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(200)
    weights = weights / weights.sum()
    values = teacher(nodes)
    slope = float(weights @ (nodes * values))
    moment = float(weights @ values**2) + noise**2
    energy = float(weights @ (nodes**2 * values**2)) + noise**2 + (dimension - 1) * moment
    return (1 - 1 / samples) * slope**2 + energy / samples, slope


CHECKERS = [Checker(srf_constants.THEOREM, observe_spiked, shared_draws=True)]


# --- gaussian-equivalence and large-step-beats-linear ------------------------------------------

EQUIVALENCE_SIZES = (48, 96)


def _setting(instance: Instance, dimension: int, learning_rate: float):
    from checkers.simulate.onestep import OneStepSetting
    return OneStepSetting(samples=round(float(instance["psi1"]) * dimension), dimension=dimension,
                          width=round(float(instance["psi2"]) * dimension), activation=instance["activation"],
                          teacher=instance["teacher"], noise=float(instance["noise"]), learning_rate=learning_rate)


def gaussian_equivalent_map(mu1: float, mu_star: float):
    """H -> mu1 H + mu_star Z, Z iid N(0, 1) per entry (fresh for every sample)."""
    return lambda pre, rng: mu1 * pre + mu_star * rng.standard_normal(pre.shape)


def observe_equivalence(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from checkers.simulate.onestep import one_step
    from checkers.simulate.ridge import readout
    sigma = instance["activation"]
    maps = {"network": lambda pre, rng: sigma(pre),
            "equivalent": gaussian_equivalent_map(float(instance.constant("mu1")), float(instance.constant("mu_star")))}
    base = 40 * 2 ** (budget.level // 2)
    estimates, counts = [], []
    for dimension, size_seed in zip(EQUIVALENCE_SIZES, seed.spawn(len(EQUIVALENCE_SIZES))):
        differences = []
        children = size_seed.spawn(base * EQUIVALENCE_SIZES[-1] // dimension)
        for child in children:
            rng = np.random.default_rng(child)
            step = one_step(_setting(instance, dimension, float(instance["learning_rate"])), rng)
            errors = readout(step, step.updated_weights(), maps, [float(instance["penalty"])], rng,
                             test_samples=4 * step.setting.samples)
            differences.append((errors["network"].test[0] - errors["equivalent"].test[0]) / errors["equivalent"].test[0])
        estimates.append(mean_estimate(np.array(differences)))
        counts.append(len(children))
    return extrapolate_limit(EQUIVALENCE_SIZES, estimates, exponent=1.0, method=(
        f"paired draws at d in {EQUIVALENCE_SIZES} ({', '.join(map(str, counts))}); "
        + ", ".join(f"{e.value:+.4f} +- {e.standard_error:.2g}" for e in estimates) + "; extrapolated in 1/d"))


CHECKERS.append(Checker(gaussian_equivalence.THEOREM, observe_equivalence))


def observe_large_step(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from checkers.check import Exact
    from theorems.large_step import smoothing_identity_residual, tau_erf, tau_numeric
    if prediction == "smoothing-identity":
        residual = smoothing_identity_residual(instance.definition("smoothing_variance"))
        return Exact(0 if residual == 0 else 1, 0.0, f"sympy: residual {residual}")
    if prediction == "erf-tau-star":
        return Exact(tau_erf(instance.constant("kappa_star"), 30), 1e-25,
                     f"mpmath quadrature at 30 digits, kappa = {float(instance.constant('kappa_star')):.6g}")
    if prediction == "tanh-tau-star":
        kappa = float(instance.constant("kappa_tanh"))
        tau = tau_numeric(np.tanh, np.tanh, kappa)
        z, weights = np.polynomial.hermite_e.hermegauss(100)
        weights = weights / weights.sum()
        beyond_linear = float(weights @ np.tanh(z) ** 2 - (weights @ (z * np.tanh(z))) ** 2)
        return Exact(1 - 10 * tau / beyond_linear, 1e-9,
                     f"Gauss-Hermite (100 x 100 nodes): tau({kappa:.6g}) = {tau:.5g}, ||P_>1 tanh||^2 = {beyond_linear:.5g}")
    bound = float(instance.constant("linear_bound"))
    draws = 24 * 2 ** (budget.level // 2)
    risks = memoized(draw_key(instance, budget, seed, "large-step", mutant_blind=True),
                     lambda: _large_step_risks(instance, seed, draws))
    margins = bound - risks[:, 0] if prediction == "beats-linear" else risks[:, 1] - bound
    return mean_estimate(margins, method=f"{draws} draws at d = {int(instance['dimension'])}, eta = N^(1/2); risks "
                         f"{risks[:, 0].mean():.4g} (network), {risks[:, 1].mean():.4g} (equivalent); linear bound {bound:.5g}")


def _large_step_risks(instance: Instance, seed: np.random.SeedSequence, draws: int) -> np.ndarray:
    """(network, Gaussian-equivalent) test risks per draw at eta = N^(1/2)."""
    from checkers.simulate.onestep import one_step
    from checkers.simulate.ridge import readout
    from theorems.hermite import hermite_coefficients, mu_star_squared
    dimension, sigma = int(instance["dimension"]), instance["activation"]
    mu1 = float(hermite_coefficients(sigma, 1, digits=20).coefficients[1])
    mu_star = float(mu_star_squared(sigma, digits=20).value) ** 0.5
    maps = {"network": lambda pre, rng: sigma(pre), "equivalent": gaussian_equivalent_map(mu1, mu_star)}
    rows = []
    for child in np.random.SeedSequence((seed.entropy, *seed.spawn_key)).spawn(draws):
        rng = np.random.default_rng(child)
        width = round(float(instance["psi2"]) * dimension)
        step = one_step(_setting(instance, dimension, width ** 0.5), rng)
        errors = readout(step, step.updated_weights(), maps, [float(instance["penalty"])], rng,
                         test_samples=4 * step.setting.samples)
        rows.append((errors["network"].test[0], errors["equivalent"].test[0]))
    return np.array(rows)


CHECKERS.append(Checker(large_step.THEOREM, observe_large_step, shared_draws=True))


# --- hermite-equivalence ------------------------------------------------------------------------

HERMITE_SIZE, HERMITE_TREND_SIZE = 400, 100


def hermite_surrogate_map(coefficients, second_moment: float):
    """H -> sum_k c_k He_k(H) + sqrt(E sigma^2 - sum_k k! c_k^2) Xi, Xi iid N(0, 1) per entry."""
    import math

    from numpy.polynomial.hermite_e import hermeval
    coefficients = [float(c) for c in coefficients]
    rest = math.sqrt(max(second_moment - sum(math.factorial(k) * c**2 for k, c in enumerate(coefficients)), 0.0))
    return lambda pre, rng: hermeval(pre, coefficients) + rest * rng.standard_normal(pre.shape)


def hermite_gaps(instance: Instance, degree: int, size: int, seeds) -> np.ndarray:
    """(test gap, train gap) per paired draw at n = d = N = size, surrogate of the given degree."""
    from checkers.simulate.onestep import OneStepSetting, one_step
    from checkers.simulate.ridge import readout
    from theorems.hermite import hermite_coefficients, second_moment
    sigma, alpha = instance["activation"], float(instance["alpha"])
    maps = {"network": lambda pre, rng: sigma(pre),
            "surrogate": hermite_surrogate_map(hermite_coefficients(sigma, degree, digits=20).coefficients,
                                               float(second_moment(sigma, digits=20).value))}
    rows = []
    for child in seeds:
        rng = np.random.default_rng(child)
        setting = OneStepSetting(size, size, size, sigma, instance["teacher"], noise=float(instance["noise"]),
                                 learning_rate=size**alpha)
        step = one_step(setting, rng)
        errors = readout(step, step.updated_weights(), maps, [float(instance["penalty"])], rng, test_samples=4 * size)
        network, surrogate = errors["network"], errors["surrogate"]
        rows.append(((surrogate.test[0] - network.test[0]) / network.test[0],
                     (surrogate.train[0] - network.train[0]) / network.train[0]))
    return np.array(rows)


def observe_hermite(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    degree = int(float(instance.constant("degree")))
    main_seed, trend_seed = seed.spawn(2)
    draws = 24 * 2 ** (budget.level // 2)
    gaps = hermite_gaps(instance, degree, HERMITE_SIZE, main_seed.spawn(draws))
    trend = hermite_gaps(instance, degree, HERMITE_TREND_SIZE, trend_seed.spawn(draws))
    return mean_estimate(gaps[:, 0], method=(
        f"degree {degree}; {draws} paired draws at n = d = N = {HERMITE_SIZE}; test gap at n = {HERMITE_TREND_SIZE}: "
        f"{trend[:, 0].mean():+.4f} +- {trend[:, 0].std(ddof=1) / np.sqrt(draws):.2g}; train gaps (not claimed here) "
        f"{trend[:, 1].mean():+.4f} at n = {HERMITE_TREND_SIZE}, {gaps[:, 1].mean():+.4f} at n = {HERMITE_SIZE}"))


CHECKERS.append(Checker(hermite_equivalence.THEOREM, observe_hermite))


# --- mixture-equivalence ------------------------------------------------------------------------

MIXTURE_SIZES = (250, 500)


def mixture_gaps(instance: Instance, size: int, seeds) -> np.ndarray:
    """(generalization gap, train gap) per paired draw at n = m = k = size, with the instance's degree and rest."""
    from checkers.simulate.mixture_readout import mixture_errors
    sigma, degree = instance["activation"], int(instance.constant("degree"))
    return np.array([mixture_errors(size, float(instance["alpha"]), float(instance["beta"]), sigma, degree,
                                    float(instance["penalty"]), np.random.default_rng(child),
                                    rest=float(instance.constant("rest"))).gaps()
                     for child in seeds])


def _trend(estimates, resolution: float) -> str:
    """What the two sizes say, in plain words: a gap within the resolution at both, a shrinking one (which alone
    does not show that it vanishes), one that does not shrink, or too few draws to tell."""
    (small, small_error), (large, large_error) = [(e.value, e.standard_error) for e in estimates]
    change, change_error = abs(large) - abs(small), float(np.hypot(small_error, large_error))
    if 3 * large_error > resolution:
        return "too few draws to tell at this fidelity"
    if abs(small) + 3 * small_error <= resolution and abs(large) + 3 * large_error <= resolution:
        return f"within +-{resolution:.0%} at both sizes"
    if change < -3 * change_error:
        return "|gap| shrinking with n"
    return "|gap| not shrinking with n"


def observe_mixture_equivalence(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    draws = 40 * 2 ** (budget.level // 2)
    counts = {MIXTURE_SIZES[0]: 2 * draws, MIXTURE_SIZES[1]: draws}     # the smaller size is four times cheaper
    key = draw_key(instance, budget, seed, "mixture", str(instance.constant("degree")), str(instance.constant("rest")))
    gaps = memoized(key, lambda: [mixture_gaps(instance, size, child.spawn(counts[size]))
                                  for size, child in zip(MIXTURE_SIZES, seed.spawn(len(MIXTURE_SIZES)))])
    column = 0 if prediction == "generalization-gap" else 1
    estimates = [mean_estimate(per_size[:, column]) for per_size in gaps]
    resolution = next(p for p in instance.theorem.predictions if p.name == prediction).resolution(instance)
    return extrapolate_limit(MIXTURE_SIZES, estimates, exponent=1.0, method=(
        f"degree {int(instance.constant('degree'))}, lambda {instance.describe_parameters()['penalty']}; paired draws "
        f"at n = m = k in {MIXTURE_SIZES} ({', '.join(str(counts[size]) for size in MIXTURE_SIZES)}); "
        + ", ".join(f"{e.value:+.4f} +- {e.standard_error:.2g}" for e in estimates)
        + f" ({_trend(estimates, resolution)}); extrapolated in 1/n"))


CHECKERS.append(Checker(mixture_equivalence.THEOREM, observe_mixture_equivalence, shared_draws=True))
