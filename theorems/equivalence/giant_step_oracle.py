"""Cui et al.'s Result 3.3: the ridge errors of spiked random features after one giant step, by a fixed point.

Source: Cui, Pesce, Dandi, Krzakala, Lu, Zdeborova and Loureiro, ICML 2024 (arXiv 2402.04980), Result 3.3, as the
authors implement it (SPOC-group/OneStepGD_asymptotics, `theory.ipynb`); the p != d form, the training error and
the realized-spectrum variant are this project's (docs/derivations/limits.md#giant-step).

Model (conventions of `theorems.equivalence.srf_constants`). After the step every neuron is
w_j = r v^ + (W Pi)_j with W = sqrt(c) W_0, Pi = I - v^ v^^T, and the teacher direction is theta = gamma v^ +
rho theta_perp, rho = sqrt(1 - gamma^2). Write kappa = v^ . x ~ N(0, 1). Conditionally on kappa a feature is
sigma(r kappa + sqrt(c) xi), whose Gaussian equivalent has the kappa-dependent coefficients

    mu0(k) = E sigma(r k + sqrt(c) xi),   mu1(k) = E[xi sigma(r k + sqrt(c) xi)] / sqrt(c),
    mu2(k)^2 = E sigma(.)^2 - mu0(k)^2 - c mu1(k)^2,

and the teacher has h(k) = E sigma*(gamma k + rho u), h1(k) = E[u sigma*(gamma k + rho u)],
hh(k) = E sigma*(gamma k + rho u)^2 (xi, u ~ N(0, 1)). The readout is
a = argmin ||y - X a / sqrt(p)||^2 + lambda_C ||a||^2 on n = alpha p fresh samples (lambda_C = lambda_Ba n / p).

The seven overlaps (q1, q2, V1, V2, theta, psi, m) solve the fixed point of `_update`; the spectral half needs
the averages over the eigenvalues omega_i of Omega = W Pi W^T (p x p) and the sums of F_i = (u_i . W v^)^2 and
H_i = (u_i . W theta_perp)^2 that `SpectralSums` lists. Two spectra provide them:
- `MarchenkoPastur`: the limit, omega = c x with x ~ Marchenko-Pastur of ratio p/d, F_i -> c/d, H_i -> omega_i/d,
  through the Stieltjes transform in closed form;
- `RealizedSpectrum`: a sampled W_1 (one p x p eigendecomposition).
Outputs: the test error E_k[hh - 2 cbar h - 2 mu1 psi h1 + cbar^2 + mu1^2 q1 + mu2^2 q2] against the noiseless
teacher, and the training error E_k[E(k) / (1 + V(k))^2] (the leave-one-out relation; the label noise enters hh
in the training channel only).

Numerics: probabilists' Gauss-Hermite rules, 121 nodes in kappa and 101 inside (relative accuracy about 1e-10 for
tanh against 301 x 301); damped iteration (1/2) from the authors' starting point, stopped when the largest change
and the geometric bound on what remains are below 1e-11 max(1, |overlaps|). theta's equation, affine in theta, is
solved exactly at each step (iterating it diverges at some settings).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theorems.errors import InvalidInput, NumericalError
from theorems.hermite import gauss_hermite_rule
from theorems.marchenko_pastur import stieltjes

OUTER_NODES = 121
INNER_NODES = 101
START = (0.1, 0.2, 3.0, 3.0, 0.5, 0.5, 1.5)  # (q1, q2, V1, V2, theta, psi, m), the authors' get_curves start
DAMPING = 0.5
TOLERANCE = 1e-11
MAX_ITERATIONS = 20_000


@dataclass(frozen=True)
class Channels:
    """The kappa-dependent Gaussian-equivalent coefficients at the outer Gauss-Hermite nodes."""

    kappa: np.ndarray
    weights: np.ndarray
    mu0: np.ndarray
    mu1: np.ndarray
    mu2_squared: np.ndarray
    h: np.ndarray
    h1: np.ndarray
    hh: np.ndarray  # noiseless


def channels(sigma, teacher, *, spike: float, inflation: float, overlap: float, outer: int = OUTER_NODES,
             inner: int = INNER_NODES) -> Channels:
    """mu0, mu1, mu2^2 of sigma(r k + sqrt(c) xi) and h, h1, hh of sigma*(gamma k + rho u) at the outer nodes k."""
    if not (math.isfinite(spike) and math.isfinite(inflation) and inflation > 0 and -1 <= overlap <= 1):
        raise InvalidInput(f"need a finite spike r, an inflation c > 0 and |gamma| <= 1, got r = {spike}, "
                           f"c = {inflation}, gamma = {overlap}")
    kappa, weights = gauss_hermite_rule(outer)
    xi, inner_weights = gauss_hermite_rule(inner)
    scale = math.sqrt(inflation)
    features = sigma(spike * kappa[:, None] + scale * xi[None, :])
    mu0 = features @ inner_weights
    mu1 = (features * xi) @ inner_weights / scale
    mu2_squared = np.clip((features**2) @ inner_weights - mu0**2 - inflation * mu1**2, 0.0, None)
    rho = math.sqrt(max(0.0, 1 - overlap**2))
    labels = teacher(overlap * kappa[:, None] + rho * xi[None, :])
    h = labels @ inner_weights
    h1 = (labels * xi) @ inner_weights
    hh = (labels**2) @ inner_weights
    arrays = (mu0, mu1, mu2_squared, h, h1, hh)
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise NumericalError("the Gaussian averages of sigma or sigma* are not finite at the quadrature nodes")
    return Channels(kappa, weights, *arrays)


def mean_channel_noise_ratio(ch: Channels, *, inflation: float, width: int) -> float:
    """E_k Var(sigma | k) / (p Var_k mu0(k)): the variance of the mean feature (1/p) sum_j sigma(w_j . x) around
    mu0(kappa), over the variance of mu0(kappa) itself (docs/derivations/limits.md#giant-step, "The mean channel").
    Result 3.3 reads the spike's signal r kappa through the mean direction as if the mean feature were mu0(kappa)
    exactly (m is unregularized); this ratio is the relative size of what that leaves out at p neurons, about
    Var sigma / (p r^2 mu1^2) for small r. Infinite where mu0 does not vary (r = 0, odd sigma)."""
    fluctuation = float(ch.weights @ (ch.mu2_squared + inflation * ch.mu1**2))
    signal = float(ch.weights @ ch.mu0**2 - (ch.weights @ ch.mu0) ** 2)
    return fluctuation / (width * signal) if signal > 0 else math.inf


def mean_channel_penalty_ratio(ch: Channels, *, ridge: float, samples: int) -> float:
    """lambda_C / (n E_k mu0(k)^2): the ridge's shrinkage of the readout along the mean feature relative to that
    direction's data curvature (docs/derivations/limits.md#giant-step, "The mean channel"). A readout b times the
    mean feature costs lambda_C b^2 (a = b 1/sqrt(p)) against n E mu0^2 b^2 in the data term; Result 3.3 leaves the
    mean direction unregularized, which this ratio -> 0 as n grows justifies. Infinite where mu0 vanishes."""
    curvature = float(ch.weights @ ch.mu0**2)
    return ridge / (samples * curvature) if curvature > 0 else math.inf


@dataclass(frozen=True)
class SpectralSums:
    """What the fixed point needs of Omega's spectrum at S_i = lambda + V1^ omega_i + V2^: the averages over i
    of 1/S, omega/S, 1/S^2, omega/S^2, omega^2/S^2, and the sums over i of F/S, H/S, F/S^2, H/S^2, omega F/S^2,
    omega H/S^2."""

    inverse: float
    omega: float
    inverse_squared: float
    omega_squared_ratio: float
    omega2_squared_ratio: float
    f: float
    h: float
    f_squared: float
    h_squared: float
    omega_f_squared: float
    omega_h_squared: float


@dataclass(frozen=True)
class MarchenkoPastur:
    """The limit spectrum: omega = c x, x ~ Marchenko-Pastur of ratio p/d (mean 1, an atom at 0 of mass
    1 - d/p when p > d), F_i -> c/d and H_i -> omega_i/d, so that sum_i F_i g(omega_i) = (p/d) c <g> and
    sum_i H_i g(omega_i) = (p/d) <omega g>."""

    inflation: float  # c
    width_ratio: float  # p/d

    def sums(self, ridge: float, slope: float, offset: float) -> SpectralSums:
        c, y = self.inflation, self.width_ratio
        a, b = slope * c, ridge + offset  # S = a x + b
        if a <= 1e-14 * b:  # S constant: the moments E x = 1, E x^2 = 1 + y
            moments = (1 / b, c / b, 1 / b**2, c / b**2, c**2 * (1 + y) / b**2)
        else:
            s = b / a
            g, g_prime = stieltjes(s, y)  # E 1/(x + s), E 1/(x + s)^2
            moments = (g / a, (1 - s * g) / slope, g_prime / a**2, (g - s * g_prime) / (slope * a),
                       (1 - 2 * s * g + s**2 * g_prime) / slope**2)
        inverse, omega, inverse_squared, omega_ratio, omega2_ratio = moments
        return SpectralSums(inverse, omega, inverse_squared, omega_ratio, omega2_ratio,
                            f=y * c * inverse, h=y * omega, f_squared=y * c * inverse_squared,
                            h_squared=y * omega_ratio, omega_f_squared=y * c * omega_ratio,
                            omega_h_squared=y * omega2_ratio)


@dataclass(frozen=True)
class RealizedSpectrum:
    """A sampled spectrum: the eigenvalues omega_i of Omega (p of them) and the weights F_i, H_i."""

    eigenvalues: np.ndarray
    spike_weights: np.ndarray  # F_i
    teacher_weights: np.ndarray  # H_i

    def sums(self, ridge: float, slope: float, offset: float) -> SpectralSums:
        omega, f, h = self.eigenvalues, self.spike_weights, self.teacher_weights
        inverse = 1 / (ridge + slope * omega + offset)
        squared = inverse**2
        return SpectralSums(float(np.mean(inverse)), float(np.mean(omega * inverse)), float(np.mean(squared)),
                            float(np.mean(omega * squared)), float(np.mean(omega**2 * squared)),
                            float(f @ inverse), float(h @ inverse), float(f @ squared), float(h @ squared),
                            float((omega * f) @ squared), float((omega * h) @ squared))


@dataclass(frozen=True)
class RealizedFeatures:
    """What Result 3.3 reads off one realized first layer: r, c, gamma and Omega's spectrum."""

    spike: float
    inflation: float
    overlap: float
    spectrum: RealizedSpectrum


def realized_features(first_layer, direction, teacher_direction) -> RealizedFeatures:
    """r = mean_j w_j . v^, c = mean_j ||Pi w_j||^2, gamma = v^ . theta, and Omega = (W_1 Pi)(W_1 Pi)^T with
    F_i = (u_i . (W_1 v^ - r 1))^2 and H_i = (u_i . W_1 theta_perp)^2, from W_1 (p x d, rows are neurons), the
    unit step direction v^ and the unit teacher direction theta (one p x p eigendecomposition)."""
    weights = np.asarray(first_layer, dtype=float)
    direction = np.asarray(direction, dtype=float)
    theta = np.asarray(teacher_direction, dtype=float)
    if weights.ndim != 2 or direction.shape != (weights.shape[1],) or theta.shape != direction.shape:
        raise InvalidInput(f"need W_1 (p x d) and two directions of length d, got {weights.shape}, "
                           f"{direction.shape} and {theta.shape}")
    along = weights @ direction
    spike = float(np.mean(along))
    projected = weights - np.outer(along, direction)
    inflation = float(np.mean(np.sum(projected**2, axis=1)))
    overlap = float(direction @ theta)
    perpendicular = theta - overlap * direction
    perpendicular /= np.linalg.norm(perpendicular)
    eigenvalues, vectors = np.linalg.eigh(projected @ projected.T)
    spike_weights = (vectors.T @ (along - spike)) ** 2
    teacher_weights = (vectors.T @ (weights @ perpendicular)) ** 2
    spectrum = RealizedSpectrum(np.clip(eigenvalues, 0.0, None), spike_weights, teacher_weights)
    return RealizedFeatures(spike, inflation, overlap, spectrum)


@dataclass(frozen=True)
class GiantStepErrors:
    """Result 3.3's numbers at one setting, with the overlaps and how the iteration went."""

    test_error: float  # against the noiseless teacher
    train_error: float  # (1/n) ||y - X a / sqrt(p)||^2, label noise included
    overlaps: dict
    iterations: int


def _update(state, ch: Channels, spectrum, *, sample_ratio, ridge, noise_variance):
    q1, q2, v1, v2, theta, psi, m = state
    w, k, mu0, mu1, mu2_squared = ch.weights, ch.kappa, ch.mu0, ch.mu1, ch.mu2_squared
    inverse = 1 / (1 + mu1**2 * v1 + mu2_squared * v2)
    a = sample_ratio
    v1_hat = a * w @ (mu1**2 * inverse)
    v2_hat = a * w @ (mu2_squared * inverse)
    psi_hat = a * w @ (mu1 * ch.h1 * inverse)
    s = spectrum.sums(ridge, v1_hat, v2_hat)
    # theta's equation is affine in theta: theta = theta^ sum F/S with theta^ = offset - slope theta. It is solved
    # exactly rather than iterated, since the damped iteration of it diverges once slope sum F/S > 3 (r = 0,
    # alpha = 4, p = 2d does)
    offset = a * w @ (k * mu1 * (ch.h - mu0 * m) * inverse)
    slope = a * w @ (k**2 * mu1**2 * inverse)
    theta = offset * s.f / (1 + slope * s.f)
    theta_hat = offset - slope * theta
    mean = mu0 * m + mu1 * k * theta
    energy = (ch.hh + noise_variance - 2 * mean * ch.h - 2 * mu1 * psi * ch.h1 + mean**2 + mu1**2 * q1
              + mu2_squared * q2)
    q1_hat = a * w @ (mu1**2 * energy * inverse**2)
    q2_hat = a * w @ (mu2_squared * energy * inverse**2)
    # the mean direction is unregularized; for odd sigma at r = 0, mu0 = 0 and the equation is 0/0: m = 0
    scale = w @ (mu0**2 * inverse)
    m_new = float(w @ (mu0 * (ch.h - mu1 * k * theta) * inverse) / scale) if scale > 1e-28 else 0.0
    return np.array([
        q1_hat * s.omega2_squared_ratio + q2_hat * s.omega_squared_ratio + theta_hat**2 * s.omega_f_squared
        + psi_hat**2 * s.omega_h_squared,
        q1_hat * s.omega_squared_ratio + q2_hat * s.inverse_squared + theta_hat**2 * s.f_squared
        + psi_hat**2 * s.h_squared,
        s.omega, s.inverse, theta, psi_hat * s.h, m_new])


def _errors(state, ch: Channels, noise_variance):
    q1, q2, v1, v2, theta, psi, m = state
    mu1, mu2_squared = ch.mu1, ch.mu2_squared
    mean = ch.mu0 * m + mu1 * ch.kappa * theta
    conditional = -2 * mean * ch.h - 2 * mu1 * psi * ch.h1 + mean**2 + mu1**2 * q1 + mu2_squared * q2
    test = float(ch.weights @ (ch.hh + conditional))
    train = float(ch.weights @ ((ch.hh + noise_variance + conditional) / (1 + mu1**2 * v1 + mu2_squared * v2) ** 2))
    return test, train


def solve(ch: Channels, spectrum, *, sample_ratio: float, ridge: float, noise: float = 0.0,
          start=None) -> GiantStepErrors:
    """Iterate Result 3.3's fixed point to convergence (damped, from `start` or the authors' starting point)."""
    if not (math.isfinite(sample_ratio) and sample_ratio > 0):
        raise InvalidInput(f"the sample ratio n/p must be positive, got {sample_ratio}")
    if not (math.isfinite(ridge) and ridge > 0):
        raise InvalidInput(f"Result 3.3 is solved here for a ridge lambda_C > 0, got {ridge}")
    options = dict(sample_ratio=sample_ratio, ridge=ridge, noise_variance=noise**2)
    state = np.array(START if start is None else start, dtype=float)
    previous = math.inf
    for iteration in range(1, MAX_ITERATIONS + 1):
        new = DAMPING * _update(state, ch, spectrum, **options) + (1 - DAMPING) * state
        if not np.all(np.isfinite(new)):
            raise NumericalError(f"Result 3.3's fixed point diverged after {iteration} iterations")
        change = float(np.max(np.abs(new - state)))
        state = new
        # a contraction by `ratio` per step leaves at most change * ratio / (1 - ratio) to go: that bound, not the
        # last change, must be below the tolerance (a slowly contracting iteration stops early otherwise)
        ratio = change / previous if previous > 0 else 0.0
        previous = change
        if ratio < 1 and change * max(ratio / (1 - ratio), 1.0) < TOLERANCE * max(1.0, float(np.max(np.abs(state)))):
            test, train = _errors(state, ch, noise**2)
            names = ("q1", "q2", "V1", "V2", "theta", "psi", "m")
            return GiantStepErrors(test, train, dict(zip(names, state.tolist())), iteration)
    raise NumericalError(f"Result 3.3's fixed point did not converge in {MAX_ITERATIONS} iterations "
                         f"(last change {change:.2g})")


def limit_errors(sigma, teacher, *, spike: float, inflation: float, overlap: float, width_ratio: float,
                 sample_ratio: float, ridge: float, noise: float = 0.0, start=None) -> GiantStepErrors:
    """Result 3.3 in the limit (Marchenko-Pastur spectrum) for given r, c, gamma."""
    ch = channels(sigma, teacher, spike=spike, inflation=inflation, overlap=overlap)
    return solve(ch, MarchenkoPastur(inflation, width_ratio), sample_ratio=sample_ratio, ridge=ridge, noise=noise,
                 start=start)


def realized_errors(sigma, teacher, features: RealizedFeatures, *, sample_ratio: float, ridge: float,
                    noise: float = 0.0) -> GiantStepErrors:
    """Result 3.3 on one realized first layer (`realized_features`): its r, c, gamma and its spectrum."""
    ch = channels(sigma, teacher, spike=features.spike, inflation=features.inflation, overlap=features.overlap)
    return solve(ch, features.spectrum, sample_ratio=sample_ratio, ridge=ridge, noise=noise)


def limit_curve(sigma, teacher, *, spike: float, inflation: float, overlap: float, width_ratio: float,
                sample_ratios, ridge: float, noise: float = 0.0) -> list[GiantStepErrors]:
    """Result 3.3 in the limit along a grid of sample ratios alpha = n/p: the Gaussian averages once, and each
    point's iteration warm-started from the previous point's overlaps."""
    ch = channels(sigma, teacher, spike=spike, inflation=inflation, overlap=overlap)
    spectrum, start, curve = MarchenkoPastur(inflation, width_ratio), None, []
    for ratio in sample_ratios:
        errors = solve(ch, spectrum, sample_ratio=float(ratio), ridge=ridge, noise=noise, start=start)
        start = tuple(errors.overlaps.values())
        curve.append(errors)
    return curve
