"""The ridge deterministic equivalent (theorems.deterministic_equivalent) against closed forms it must reduce to
(Marchenko-Pastur for isotropic features, OLS and Hastie et al.'s minimum-norm risk when ridgeless), its limits
(lambda -> infinity, n -> infinity), an equivalent form (bias-variance), its mpmath route, and a simulation of
ridge on Gaussian features."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorems.deterministic_equivalent import (
    ridge_errors,
    ridge_errors_from_moments,
    ridge_errors_mpmath,
    solve_kappa,
)
from theorems.equivalence.gaussian_equivalent_oracle import gaussian_equivalent_errors, gaussian_equivalent_spectrum
from theorems.errors import InvalidInput

ratios = st.floats(0.05, 4.0)
ridges = st.floats(1e-4, 10.0)


def _isotropic(p, signal, noise):
    """Sigma = I_p, psi = beta with ||beta||^2 = signal along the first axis, E y^2 = signal + noise."""
    projections = np.zeros(p)
    projections[0] = math.sqrt(signal)
    return np.ones(p), projections, signal + noise


@settings(max_examples=60, deadline=None)
@given(ratio=ratios, ridge=ridges, signal=st.floats(0.0, 5.0), noise=st.floats(0.0, 2.0))
def test_isotropic_features_follow_the_marchenko_pastur_closed_form(ratio, ridge, signal, noise):
    # with omega_i = 1 and gamma = p/n the equation kappa - lambda = gamma kappa/(1 + kappa) is a quadratic
    n = 400
    p = max(1, round(ratio * n))
    gamma = p / n
    eigenvalues, projections, moment = _isotropic(p, signal, noise)
    errors = ridge_errors(eigenvalues, projections, label_moment=moment, samples=n, ridge=ridge, noise_variance=noise)
    b = 1 - ridge - gamma
    kappa = (-b + math.sqrt(b * b + 4 * ridge)) / 2
    assert errors.kappa == pytest.approx(kappa, rel=1e-12)
    test = (moment - signal * (1 + 2 * kappa) / (1 + kappa) ** 2) / (1 - gamma / (1 + kappa) ** 2)
    assert errors.test_error == pytest.approx(test, rel=1e-10)
    assert errors.risk == pytest.approx(test - noise, rel=1e-9, abs=1e-12)
    assert errors.train_error == pytest.approx((ridge / kappa) ** 2 * test, rel=1e-10)


@pytest.mark.parametrize("p, n", [(100, 400), (300, 400), (800, 400), (1600, 400)])
def test_ridgeless_is_ordinary_least_squares_or_the_minimum_norm_interpolator(p, n):
    signal, noise = 1.3, 0.4
    eigenvalues, projections, moment = _isotropic(p, signal, noise)
    errors = ridge_errors(eigenvalues, projections, label_moment=moment, samples=n, ridge=0.0, noise_variance=noise)
    gamma = p / n
    if gamma < 1:  # OLS: noise/(1 - gamma) excess risk, train error (1 - gamma) noise
        assert errors.kappa == 0 and errors.risk == pytest.approx(noise * gamma / (1 - gamma), rel=1e-12)
        assert errors.train_error == pytest.approx((1 - gamma) * noise, rel=1e-12)
    else:  # Hastie, Montanari, Rosset and Tibshirani (2019): ||beta||^2 (1 - 1/gamma) + noise/(gamma - 1)
        assert errors.kappa == pytest.approx(gamma - 1, rel=1e-12)
        assert errors.risk == pytest.approx(signal * (1 - 1 / gamma) + noise / (gamma - 1), rel=1e-10)
        assert errors.train_error == 0


def test_the_interpolation_peak_is_infinite_when_ridgeless_and_finite_with_any_ridge():
    eigenvalues, projections, moment = _isotropic(400, 1.0, 0.1)
    assert ridge_errors(eigenvalues, projections, label_moment=moment, samples=400, ridge=0.0).test_error == math.inf
    small = [ridge_errors(eigenvalues, projections, label_moment=moment, samples=400, ridge=r).test_error
             for r in (1e-2, 1e-4, 1e-6)]
    # near the peak E_test grows like lambda^(-1/2): each 100-fold smaller lambda multiplies it by about 10
    assert all(math.isfinite(e) for e in small)
    assert small[2] / small[1] == pytest.approx(10, rel=0.05) and small[1] / small[0] == pytest.approx(10, rel=0.2)


def _power_law(p, rng):
    eigenvalues = np.arange(1, p + 1, dtype=float) ** -1.2
    projections = rng.standard_normal(p) * np.sqrt(eigenvalues)
    return eigenvalues, projections, float(np.sum(projections**2 / eigenvalues)) + 0.3


def test_a_huge_ridge_predicts_zero_and_infinitely_many_samples_give_the_population_ridge_risk():
    eigenvalues, projections, moment = _power_law(200, np.random.default_rng(0))
    huge = ridge_errors(eigenvalues, projections, label_moment=moment, samples=100, ridge=1e8)
    assert huge.test_error == pytest.approx(moment, rel=1e-6) and huge.train_error == pytest.approx(moment, rel=1e-6)
    ridge = 0.05
    many = ridge_errors(eigenvalues, projections, label_moment=moment, samples=10**12, ridge=ridge)
    readout = projections / (eigenvalues + ridge)  # (Sigma + lambda)^(-1) psi in the eigenbasis
    population = moment - 2 * readout @ projections + readout @ (eigenvalues * readout)
    assert many.kappa == pytest.approx(ridge, rel=1e-9) and many.test_error == pytest.approx(population, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(2, 60), n=st.integers(2, 120), ridge=ridges)
def test_the_bias_variance_form_and_the_fixed_point_hold_on_random_spectra(seed, p, n, ridge):
    rng = np.random.default_rng(seed)
    eigenvalues = rng.gamma(0.5, size=p) + 1e-3
    projections = rng.standard_normal(p) * np.sqrt(eigenvalues)
    moment = float(np.sum(projections**2 / eigenvalues)) + rng.uniform(0, 1)
    errors = ridge_errors(eigenvalues, projections, label_moment=moment, samples=n, ridge=ridge)
    kappa = errors.kappa
    assert kappa - ridge == pytest.approx(kappa / n * np.sum(eigenvalues / (eigenvalues + kappa)), rel=1e-10, abs=1e-14)
    # E_test = (kappa^2 b*^T Sigma (Sigma + kappa)^(-2) b* + sigma_eff^2)/(1 - df2/n), with b* = Sigma^(-1) psi
    optimal = projections / eigenvalues
    effective_noise = moment - float(projections @ optimal)
    bias = kappa**2 * float(np.sum(optimal**2 * eigenvalues / (eigenvalues + kappa) ** 2))
    denominator = 1 - float(np.sum(eigenvalues**2 / (eigenvalues + kappa) ** 2)) / n
    assert errors.denominator == pytest.approx(denominator, rel=1e-8, abs=1e-12)
    assert errors.test_error == pytest.approx((bias + effective_noise) / denominator, rel=1e-7)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 400), ridge=ridges)
def test_the_mpmath_route_agrees_with_float64(seed, n, ridge):
    eigenvalues, projections, moment = _power_law(50, np.random.default_rng(seed))
    fast = ridge_errors(eigenvalues, projections, label_moment=moment, samples=n, ridge=ridge)
    exact = ridge_errors_mpmath(eigenvalues, projections, label_moment=moment, samples=n, ridge=ridge, digits=30)
    assert float(exact.kappa) == pytest.approx(fast.kappa, rel=1e-12)
    assert float(exact.test_error) == pytest.approx(fast.test_error, rel=1e-10)


def test_the_equivalent_predicts_ridge_on_gaussian_features():
    """40 draws of ridge on n = 300 Gaussian features (p = 150, power-law spectrum), each scored by its exact risk
    given the readout: the mean must meet the equivalent within 3 standard errors plus 2% (the equivalent's
    finite-size bias is O(1/n), about 1% here)."""
    rng = np.random.default_rng(1)
    p, n, ridge, noise = 150, 300, 0.02, 0.3
    eigenvalues = np.arange(1, p + 1, dtype=float) ** -1.0
    beta = rng.standard_normal(p) / math.sqrt(p)  # y = beta . g + noise with phi = sqrt(omega) g
    projections = np.sqrt(eigenvalues) * beta
    moment = float(beta @ beta) + noise
    predicted = ridge_errors(eigenvalues, projections, label_moment=moment, samples=n, ridge=ridge)
    risks = []
    for _ in range(40):
        gaussian = rng.standard_normal((n, p))
        features = gaussian * np.sqrt(eigenvalues)
        labels = gaussian @ beta + math.sqrt(noise) * rng.standard_normal(n)
        readout = np.linalg.solve(features.T @ features / n + ridge * np.eye(p), features.T @ labels / n)
        risks.append(moment - 2 * readout @ projections + readout @ (eigenvalues * readout))
    mean, error = np.mean(risks), np.std(risks, ddof=1) / math.sqrt(len(risks))
    assert abs(mean - predicted.test_error) <= 3 * error + 0.02 * predicted.test_error


def test_from_moments_diagonalizes_once_and_agrees_with_the_spectrum_route():
    rng = np.random.default_rng(2)
    basis = np.linalg.qr(rng.standard_normal((30, 30)))[0]
    eigenvalues, projections, moment = _power_law(30, rng)
    covariance = basis @ np.diag(eigenvalues) @ basis.T
    for samples, ridge in ((40, 0.1), (20, 0.1), (40, 0.0), (20, 0.0)):  # ridgeless takes the eigenvector route
        direct = ridge_errors_from_moments(covariance, basis @ projections, label_moment=moment, samples=samples,
                                           ridge=ridge)
        spectral = ridge_errors(eigenvalues, projections, label_moment=moment, samples=samples, ridge=ridge)
        assert direct.test_error == pytest.approx(spectral.test_error, rel=1e-9)
        assert direct.train_error == pytest.approx(spectral.train_error, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("dimension, width", [(20, 35), (35, 20)])
def test_the_gaussian_equivalent_spectrum_from_the_small_gram_matrix_is_sigma_s_own(dimension, width):
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((dimension, width)) / math.sqrt(dimension)
    beta = rng.standard_normal(dimension)
    beta /= np.linalg.norm(beta)
    mu1, mu_star, teacher_mu1 = 0.6, 0.3, 0.8
    eigenvalues, projections = gaussian_equivalent_spectrum(weights, beta, mu1=mu1, mu_star=mu_star,
                                                            teacher_mu1=teacher_mu1)
    covariance = mu1**2 * weights.T @ weights + mu_star**2 * np.eye(width)
    cross = mu1 * teacher_mu1 * weights.T @ beta
    assert np.sort(eigenvalues) == pytest.approx(np.linalg.eigvalsh(covariance), rel=1e-10, abs=1e-12)
    assert np.sum(projections**2) == pytest.approx(cross @ cross, rel=1e-10)
    oracle = gaussian_equivalent_errors(weights, beta, mu1=mu1, mu_star=mu_star, teacher_mu1=teacher_mu1,
                                        label_moment=1.1, samples=50, ridge=0.05)
    direct = ridge_errors_from_moments(covariance, cross, label_moment=1.1, samples=50, ridge=0.05)
    assert oracle.test_error == pytest.approx(direct.test_error, rel=1e-9)


@pytest.mark.parametrize("change, message", [
    (dict(eigenvalues=[1.0, -0.5]), "semi-definite"),
    (dict(eigenvalues=[1.0, 0.0], projections=[0.5, 0.5]), "zero eigenvalue"),
    (dict(label_moment=0.1), "below"),
    (dict(samples=0), "positive integer"),
    (dict(ridge=-1.0), "ridge"),
    (dict(ridge=float("nan")), "ridge"),
    (dict(projections=[1.0]), "one projection per eigenvalue"),
])
def test_moments_no_law_can_have_are_refused(change, message):
    arguments = dict(eigenvalues=[1.0, 2.0], projections=[0.5, 0.5], label_moment=1.0, samples=10, ridge=0.1)
    arguments.update(change)
    eigenvalues, projections = arguments.pop("eigenvalues"), arguments.pop("projections")
    with pytest.raises(InvalidInput, match=message):
        ridge_errors(eigenvalues, projections, **arguments)


def test_kappa_is_monotone_in_the_ridge_and_the_samples():
    eigenvalues, _, _ = _power_law(100, np.random.default_rng(4))
    by_ridge = [solve_kappa(eigenvalues, 50, r) for r in (1e-3, 1e-2, 1e-1, 1.0)]
    by_samples = [solve_kappa(eigenvalues, n, 1e-2) for n in (20, 50, 200, 1000)]
    assert by_ridge == sorted(by_ridge) and by_samples == sorted(by_samples, reverse=True)


# DE_GE's deterministic limit after a small step (docs/derivations/limits.md#small-step-limit): reference values of a
# separate mpmath port made for the spec, to the 19 digits it printed
SMALL_STEP_REFERENCES = [
    ({"learning_rate": "0"}, "0.1011555432094946216"),
    ({}, "0.0977467042950331320"),
    ({"psi1": "2", "psi2": "2"}, "0.4181563620362153660"),
    ({"activation": "tanh", "teacher": "tanh", "psi1": "2", "psi2": "1", "penalty": "0.1"}, "0.1844087473514684637"),
]


@pytest.mark.parametrize("parameters, reference", SMALL_STEP_REFERENCES)
def test_the_small_step_limit_reproduces_the_reference_values(parameters, reference):
    import mpmath

    from theorems.equivalence.gaussian_equivalence import THEOREM
    limit = THEOREM.instance(parameters).constant("risk_limit")
    with mpmath.workdps(40):
        assert abs(limit - mpmath.mpf(reference)) < 1e-19


@pytest.mark.parametrize("psi1, psi2", [(8, 2), (2, 1), (1, 3), (4, 0.5)])
def test_without_step_the_limit_is_cuis_fixed_point_without_spike(psi1, psi2):
    # two derivations of ridge on random features at initialization: the Marchenko-Pastur traces of the DE, and Cui
    # et al.'s seven-overlap fixed point at r = 0 (p = N, alpha = n/p = psi1/psi2, lambda_C = lambda_Ba n/p); they
    # agree to the fixed point's quadrature accuracy (about 1e-10 relative)
    from theorems.equivalence.gaussian_equivalence import THEOREM
    from theorems.equivalence.giant_step_oracle import limit_errors
    parameters = {"learning_rate": "0", "psi1": str(psi1), "psi2": str(psi2), "activation": "tanh",
                  "teacher": "tanh", "penalty": "0.05"}
    limit = float(THEOREM.instance(parameters).constant("risk_limit"))
    instance = THEOREM.instance(parameters)
    cui = limit_errors(instance["activation"], instance["teacher"], spike=0.0, inflation=1.0, overlap=0.3,
                       width_ratio=psi2, sample_ratio=psi1 / psi2, ridge=0.05 * psi1 / psi2, noise=0.1)
    assert cui.test_error == pytest.approx(limit, rel=1e-9)
