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


def test_kinked_integrands_are_cut_at_the_kinks():
    """E[(1{u > 0} v)^2] (relu's control variate) in closed form: with u = m_u + s z1 and v = m_v + a z1 + c z2 it
    is (m_v^2 + c^2) Q(t) + 2 m_v a phi(t) + a^2 (Q(t) + t phi(t)), t = -m_u/s, Q the normal tail. A tensor
    Gauss-Hermite rule of 60 nodes misses it by up to a percent where m_u != 0 (the indicator jumps between its
    nodes), which once failed elasticity-reference for relu; cut at the kink the rule meets it to 1e-12. A smooth
    integrand reads the same on both routes to 1e-11 (Gauss-Hermite at 200 nodes; at 60 it is 1.6e-6 off for tanh
    here)."""
    from scipy.stats import norm

    means_u, means_v = np.array([0.3, -1.0, 0.05]), np.array([0.5, 2.0, -0.2])
    var_u, var_v, cov = np.array([1.0, 0.5, 0.02]), np.array([2.0, 0.3, 0.01]), np.array([0.4, -0.1, 0.005])
    s = np.sqrt(var_u)
    a, t = cov / s, -means_u / s
    c2 = var_v - a * a
    exact = ((means_v**2 + c2) * norm.sf(t) + 2 * means_v * a * norm.pdf(t) + a * a * (norm.sf(t) + t * norm.pdf(t)))
    control = lambda u, v: ((u > 0) * v) ** 2  # noqa: E731
    cut = bivariate_expectation(control, means_u, means_v, var_u, var_v, cov, kinks=(0,))
    assert np.allclose(cut, exact, rtol=1e-12, atol=0)
    hermite = bivariate_expectation(control, means_u, means_v, var_u, var_v, cov)
    assert np.max(np.abs(hermite / exact - 1)) > 1e-3  # why the cut is needed
    smooth = lambda u, v: np.tanh(u + v) ** 2 - np.tanh(u) * v  # noqa: E731
    assert np.allclose(bivariate_expectation(smooth, means_u, means_v, var_u, var_v, cov, kinks=(0,)),
                       bivariate_expectation(smooth, means_u, means_v, var_u, var_v, cov, 200), rtol=1e-11,
                       atol=1e-14)


def test_the_exact_draw_is_what_its_unseen_samples_average_to():
    """elasticity-reference's reference draw: on its four-neuron network, the mean squared displacement over 200 000
    unseen samples x ~ N(mu, I) agrees with the law's Elasticity (within four standard errors)."""
    from theorems.elasticity import elasticity_reference

    instance = elasticity_reference.THEOREM.instance({"activation": "tanh"})
    draw = elasticity_reference.exact_draw(instance)["reference"]["exact draw"]
    x = draw["mu"] + np.random.default_rng(0).standard_normal((200_000, 4))
    u, v = x @ draw["w0"], x @ draw["delta"]
    displacement = np.sum((np.tanh(u + v) - np.tanh(u)) ** 2, axis=1)
    error = displacement.std(ddof=1) / np.sqrt(len(displacement))
    assert abs(displacement.mean() - draw["displacement"][0]) < 4 * error
