"""The per-neuron Gaussian law behind the Elasticity reference: moments, quadrature, decomposition."""

import numpy as np
import pytest

from theorems.elasticity.elasticity_reference import bivariate_expectation, coherent_and_bulk, neuron_laws


def _weights(seed=0, dimension=30, width=7):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((dimension, width)) / np.sqrt(dimension),
            0.3 * rng.standard_normal((dimension, width)) / np.sqrt(dimension), rng.standard_normal(dimension))


def test_laws_match_the_moments_of_linear_functionals_of_a_gaussian():
    w0, delta, zeta = _weights()
    mu = 1.7 * zeta / (zeta @ zeta)
    means_u, means_v, var_u, var_v, cov = neuron_laws(w0, delta, mu, zeta)
    x = mu + np.random.default_rng(1).standard_normal((400000, len(mu)))
    u, v = x @ w0, x @ delta
    assert np.allclose(means_u, u.mean(0), atol=0.01) and np.allclose(means_v, v.mean(0), atol=0.01)
    assert np.allclose(var_u, u.var(0), rtol=0.02) and np.allclose(var_v, v.var(0), rtol=0.02)
    assert np.allclose(cov, ((u - u.mean(0)) * (v - v.mean(0))).mean(0), atol=0.01)
    assert np.allclose(means_v, delta.T @ mu)  # the exact law is the direct one, written through t_j and r_j


def test_coherent_part_and_bulk_recompose_the_displacement():
    _, delta, zeta = _weights(2)
    t, bulk = coherent_and_bulk(delta, zeta)
    residual = delta - np.outer(zeta, t)
    assert np.allclose(zeta @ residual, 0, atol=1e-12)
    assert np.allclose(bulk, np.linalg.norm(residual, axis=0))


@pytest.mark.parametrize("nodes", [20, 60])
def test_quadrature_is_exact_for_polynomials(nodes):
    means_u, means_v = np.array([0.3, -1.0]), np.array([0.5, 2.0])
    var_u, var_v, cov = np.array([1.0, 0.5]), np.array([2.0, 0.3]), np.array([0.4, -0.1])
    second = bivariate_expectation(lambda u, v: u * v, means_u, means_v, var_u, var_v, cov, nodes)
    assert np.allclose(second, means_u * means_v + cov, rtol=1e-12)
    fourth = bivariate_expectation(lambda u, v: (v - means_v[:, None, None]) ** 4, means_u, means_v, var_u, var_v,
                                   cov, nodes)
    assert np.allclose(fourth, 3 * var_v**2, rtol=1e-12)
