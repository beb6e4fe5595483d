"""The one-step simulation: the gradient against finite differences, dtypes, the mixture sampler."""

import math

import numpy as np
import pytest

from checkers.onestep.simulation import (
    GaussianMixture,
    OneStepSetting,
    first_layer_gradient,
    one_step,
    operator_norm,
    top_left_singular_vector,
)
from theorems.activations import activation


def _loss(x, y, w, a, sigma):
    prediction = sigma(x @ w) @ a / math.sqrt(w.shape[1])
    return 0.5 * np.mean((prediction - y) ** 2)


@pytest.mark.parametrize("name", ["tanh", "softplus", "erf"])
def test_gradient_is_minus_the_loss_gradient(name):
    """G_0 of Ba's eq. (2.1) is -dL/dW for L = (1/2n) sum (f(x_i) - y_i)^2, so W_1 = W_0 - eta sqrt(N) dL/dW."""
    sigma = activation(name)
    rng = np.random.default_rng(0)
    n, d, width = 7, 5, 4
    x, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    w, a = rng.standard_normal((d, width)) / math.sqrt(d), rng.standard_normal(width) / math.sqrt(width)
    gradient = first_layer_gradient(x, y, w.copy(), a, sigma)
    numeric = np.zeros_like(w)
    step = 1e-6
    for i in range(d):
        for j in range(width):
            plus, minus = w.copy(), w.copy()
            plus[i, j] += step
            minus[i, j] -= step
            numeric[i, j] = (_loss(x, y, plus, a, sigma) - _loss(x, y, minus, a, sigma)) / (2 * step)
    np.testing.assert_allclose(gradient, -numeric, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("name", ["tanh", "relu", "softplus", "gelu"])
def test_float32_path_matches_float64(name):
    """The same inputs in float32 and float64: the gradient agrees to float32 accuracy (relative to its
    scale; n = 300 terms summed)."""
    sigma = activation(name)
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((300, 200)), rng.standard_normal(300)
    w, a = rng.standard_normal((200, 150)) / np.sqrt(200), rng.standard_normal(150) / np.sqrt(150)
    single = first_layer_gradient(*(v.astype(np.float32) for v in (x, y, w, a)), sigma)
    double = first_layer_gradient(x, y, w, a, sigma)
    assert single.dtype == np.float32
    assert np.max(np.abs(single - double)) < 1e-5 * np.max(np.abs(double)) * np.sqrt(300)
    setting = OneStepSetting(300, 200, 150, sigma, sigma, noise=0.1, dtype=np.float32)
    assert one_step(setting, np.random.default_rng(0)).gradient.dtype == np.float32


def test_same_seed_same_step():
    setting = OneStepSetting(100, 50, 40, activation("tanh"), activation("relu"), noise=0.3)
    first, second = (one_step(setting, np.random.default_rng(9)) for _ in range(2))
    assert np.array_equal(first.gradient, second.gradient)


def test_operator_norm_and_singular_vector_match_dense_svd():
    matrix = np.random.default_rng(1).standard_normal((60, 40))
    u, s, _ = np.linalg.svd(matrix)
    assert operator_norm(matrix) == pytest.approx(s[0], rel=1e-9)
    assert abs(top_left_singular_vector(matrix) @ u[:, 0]) == pytest.approx(1.0, abs=1e-8)


def test_mixture_covariance():
    """Sample covariance of one component vs I + Gamma diag(theta) Gamma^T, within a computed error."""
    d, samples = 6, 40000
    gamma = np.linalg.qr(np.random.default_rng(2).standard_normal((d, 1)))[0]
    mixture = GaussianMixture(weights=(1.0,), spikes=(gamma,), strengths=(np.array([3.0]),))
    x, labels = mixture.sample(samples, d, np.random.default_rng(3))
    covariance = x.T @ x / samples
    expected = np.eye(d) + 3.0 * gamma @ gamma.T
    # entry (i, j) of a Wishart mean has variance (S_ij^2 + S_ii S_jj) / samples
    standard_error = np.sqrt((expected**2 + np.outer(np.diag(expected), np.diag(expected))) / samples)
    assert np.all(np.abs(covariance - expected) < 5 * standard_error)
    assert mixture.trace(0, d) == d + 3.0
    assert set(labels) == {0}


def test_update_direction_is_the_data_label_correlation():
    """With the spike dominating, the top left singular vector of G_0 is close to zeta = X^T y / n."""
    sigma = activation("tanh")
    step = one_step(OneStepSetting(1600, 400, 400, sigma, sigma, noise=0.1), np.random.default_rng(5))
    u = top_left_singular_vector(step.gradient)
    assert abs(u @ step.zeta) / np.linalg.norm(step.zeta) > 0.99
