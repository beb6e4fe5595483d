"""Result 3.3's fixed point (theorems.equivalence.giant_step_oracle): the reference values computed for the
spec by an independent port, the Marchenko-Pastur closed forms against quadrature of the density, and, with no
spike, the ridge deterministic equivalent of the same Gaussian features (a separate derivation)."""

import math

import numpy as np
import pytest
import scipy.integrate
from hypothesis import given, settings
from hypothesis import strategies as st

from theorems.deterministic_equivalent import ridge_errors
from theorems.equivalence import srf_constants
from theorems.equivalence.giant_step_oracle import (
    MarchenkoPastur,
    RealizedSpectrum,
    channels,
    limit_errors,
    mean_channel_noise_ratio,
    realized_features,
    solve,
)
from theorems.errors import InvalidInput

# (noise, alpha0, eta~, lambda_C, alpha = n/p, p/d) -> (test, train), tanh student and teacher: the reference
# table of docs/derivations/limits.md#giant-step (sets B1, B2, B4, B6, B7), computed to 8 digits with a separate
# port of the authors' theory.ipynb
REFERENCES = {
    "B1": ((0.0, 0.5, 1.0, 0.01, 1.6, 1.0), (0.20510289, 0.03796881)),
    "B2": ((0.0, 2.0, 3.0, 0.1, 2.0, 1.0), (0.09111439, 0.03674328)),
    "B4": ((0.0, 0.5, 0.0, 0.01, 1.6, 1.0), (0.24133138, 0.04591456)),
    "B6": ((0.1, 2.0, 3.0, 0.1, 2.0, 1.0), (0.09603383, 0.04335237)),
    "B7": ((0.0, 2.0, 3.0, 0.1, 4.0, 0.5), (0.12334441, 0.07054060)),
}


def _srf(noise, alpha0, eta):
    instance = srf_constants.THEOREM.instance({"noise": str(noise), "alpha0": str(alpha0), "eta": str(eta)})
    return (float(instance.constant(name)) for name in ("r", "c", "gamma"))


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_the_fixed_point_reproduces_the_reference_table(name):
    (noise, alpha0, eta, ridge, ratio, width_ratio), (test, train) = REFERENCES[name]
    r, c, gamma = _srf(noise, alpha0, eta)
    errors = limit_errors(np.tanh, np.tanh, spike=r, inflation=c, overlap=gamma, width_ratio=width_ratio,
                          sample_ratio=ratio, ridge=ridge, noise=noise)
    assert errors.test_error == pytest.approx(test, abs=6e-9)
    assert errors.train_error == pytest.approx(train, abs=6e-9)
    assert errors.iterations < 500


def _marchenko_pastur_average(function, ratio):
    """E f(x) for x ~ Marchenko-Pastur of ratio y (mean 1), by quadrature of the density plus the atom at 0."""
    lower, upper = (1 - math.sqrt(ratio)) ** 2, (1 + math.sqrt(ratio)) ** 2

    def density(x):
        return math.sqrt(max((upper - x) * (x - lower), 0.0)) / (2 * math.pi * ratio * x)
    value = scipy.integrate.quad(lambda x: function(x) * density(x), lower, upper, limit=200, epsabs=1e-13)[0]
    return value + (max(0.0, 1 - 1 / ratio) * function(0.0))


@pytest.mark.parametrize("ratio", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("slope, offset", [(0.7, 0.4), (3.0, 0.05), (0.0, 1.3)])
def test_marchenko_pastur_sums_match_quadrature_of_the_density(ratio, slope, offset):
    inflation, ridge = 1.3, 0.1
    sums = MarchenkoPastur(inflation, ratio).sums(ridge, slope, offset)

    def average(f):
        return _marchenko_pastur_average(lambda x: f(inflation * x, ridge + slope * inflation * x + offset), ratio)
    expected = {
        "inverse": average(lambda w, s: 1 / s), "omega": average(lambda w, s: w / s),
        "inverse_squared": average(lambda w, s: 1 / s**2), "omega_squared_ratio": average(lambda w, s: w / s**2),
        "omega2_squared_ratio": average(lambda w, s: w**2 / s**2),
    }
    for name, value in expected.items():
        assert getattr(sums, name) == pytest.approx(value, rel=1e-8), name
    # F_i -> c/d and H_i -> omega_i/d: sums over p neurons are (p/d) times the averages
    assert sums.f == pytest.approx(ratio * inflation * expected["inverse"], rel=1e-8)
    assert sums.h_squared == pytest.approx(ratio * expected["omega_squared_ratio"], rel=1e-8)
    assert sums.omega_h_squared == pytest.approx(ratio * expected["omega2_squared_ratio"], rel=1e-8)


@settings(max_examples=25, deadline=None)
@given(p=st.integers(5, 60), samples=st.integers(2, 200), ridge=st.floats(1e-3, 3.0), noise=st.floats(0.0, 0.5),
       seed=st.integers(0, 2**32 - 1), activation=st.sampled_from(["tanh", "erf"]))
def test_without_spike_it_is_the_ridge_deterministic_equivalent_of_the_same_features(p, samples, ridge, noise, seed,
                                                                                      activation):
    # r = 0, gamma = 0 and no weight along v^ (F = 0): the features are mu1 (W Pi x) + mu2 z with the spectrum
    # omega_i of Omega, the teacher's linear part mu1* theta_perp, and Cui's lambda_C is lambda p/n in the DE's
    # (1/n) sum (y - b.phi)^2 + lambda ||b||^2. Both routes must give the same test and training errors.
    import scipy.special
    sigma = {"tanh": np.tanh, "erf": scipy.special.erf}[activation]
    rng = np.random.default_rng(seed)
    omega = rng.exponential(1.0, p) * rng.integers(0, 2, p)  # some zero eigenvalues
    teacher_weights = 0.9 * omega * rng.uniform(0.0, 1.0, p) / p
    spectrum = RealizedSpectrum(omega, np.zeros(p), teacher_weights)
    ch = channels(sigma, np.tanh, spike=0.0, inflation=1.0, overlap=0.0)
    errors = solve(ch, spectrum, sample_ratio=samples / p, ridge=ridge, noise=noise)
    mu1, mu2_squared = float(ch.mu1[0]), float(ch.mu2_squared[0])
    teacher_mu1, teacher_moment = float(ch.h1[0]), float(ch.hh[0])
    equivalent = ridge_errors(mu1**2 * omega + mu2_squared, mu1 * teacher_mu1 * np.sqrt(teacher_weights),
                              label_moment=teacher_moment + noise**2, samples=samples, ridge=ridge * p / samples,
                              noise_variance=noise**2)
    assert errors.test_error == pytest.approx(equivalent.risk, rel=1e-8, abs=1e-12)
    assert errors.train_error == pytest.approx(equivalent.train_error, rel=1e-8, abs=1e-12)


def test_realized_features_read_back_a_planted_spike():
    rng = np.random.default_rng(3)
    p, d, spike, inflation = 300, 400, 0.8, 1.2
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    bulk = rng.standard_normal((p, d)) * math.sqrt(inflation / d)
    bulk -= np.outer(bulk @ direction, direction)
    theta = 0.6 * direction + 0.8 * np.linalg.qr(np.column_stack([direction, rng.standard_normal(d)]))[0][:, 1]
    features = realized_features(bulk + spike * direction, direction, theta)
    assert features.spike == pytest.approx(spike, rel=1e-12)
    assert features.overlap == pytest.approx(0.6, rel=1e-12)
    assert features.inflation == pytest.approx(np.mean(np.sum(bulk**2, axis=1)), rel=1e-12)
    assert np.allclose(features.spectrum.spike_weights, 0.0, atol=1e-20)
    assert features.spectrum.eigenvalues.sum() == pytest.approx(np.sum(bulk**2), rel=1e-10)


def test_a_sampled_spectrum_with_the_limit_weights_approaches_the_marchenko_pastur_route():
    # omega_i: eigenvalues of c W_0 W_0^T at p = d = 1500, with F_i = c/d and H_i = omega_i/d (their limits): the
    # realized route's sums then differ from the closed forms only by the eigenvalues' fluctuation, O(1/p) by
    # rigidity (3e-5 here), so 2e-3 relative is generous; H scaled by 2 or 1/2 (the p != d pitfall) moves it
    # by -120% or +60%
    rng = np.random.default_rng(11)
    r, c, gamma = _srf(0.1, 2.0, 3.0)
    d = p = 1500
    gaussian = rng.standard_normal((p, d))
    omega = np.linalg.eigvalsh(c * gaussian @ gaussian.T / d)
    spectrum = RealizedSpectrum(omega, np.full(p, c / d), omega / d)
    ch = channels(np.tanh, np.tanh, spike=r, inflation=c, overlap=gamma)
    realized = solve(ch, spectrum, sample_ratio=2.0, ridge=0.1, noise=0.1)
    limit = solve(ch, MarchenkoPastur(c, 1.0), sample_ratio=2.0, ridge=0.1, noise=0.1)
    assert realized.test_error == pytest.approx(limit.test_error, rel=2e-3)
    assert realized.train_error == pytest.approx(limit.train_error, rel=2e-3)


def test_bad_inputs_are_refused():
    ch = channels(np.tanh, np.tanh, spike=1.0, inflation=1.1, overlap=0.5)
    with pytest.raises(InvalidInput, match="ridge"):
        solve(ch, MarchenkoPastur(1.1, 1.0), sample_ratio=2.0, ridge=0.0)
    with pytest.raises(InvalidInput, match="sample ratio"):
        solve(ch, MarchenkoPastur(1.1, 1.0), sample_ratio=-1.0, ridge=0.1)
    with pytest.raises(InvalidInput, match="gamma"):
        channels(np.tanh, np.tanh, spike=1.0, inflation=1.1, overlap=1.5)


def test_the_mean_channel_ratio_tends_to_stein_s_small_spike_form():
    """At small r, Var_k mu0(k) = r^2 (E sigma'(sqrt(c) xi))^2 + O(r^4) (Stein's lemma) and E Var(sigma | k) ->
    E sigma(sqrt(c) xi)^2, so p r^2 times the ratio tends to E tanh(Z)^2 / (E tanh'(Z))^2 at c = 1, here by
    adaptive quadrature rather than the oracle's Gauss-Hermite rule; without a spike the ratio is infinite."""
    def gaussian(f):
        return scipy.integrate.quad(lambda z: f(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), -40, 40,
                                    epsabs=1e-14)[0]
    expected = gaussian(lambda z: math.tanh(z) ** 2) / gaussian(lambda z: 1 - math.tanh(z) ** 2) ** 2
    spike, width = 1e-3, 100
    ch = channels(np.tanh, np.tanh, spike=spike, inflation=1.0, overlap=0.5)
    assert width * spike**2 * mean_channel_noise_ratio(ch, inflation=1.0, width=width) == pytest.approx(expected,
                                                                                                        rel=1e-5)
    ch = channels(np.tanh, np.tanh, spike=0.0, inflation=1.0, overlap=0.5)
    assert mean_channel_noise_ratio(ch, inflation=1.0, width=width) == math.inf
