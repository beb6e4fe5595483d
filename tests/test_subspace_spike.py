"""subspace-spike: its constants in closed form, the checker's reduced draw against full n x d draws, its mutants
known before any draw, and a teacher without a linear part outside the assumptions."""

import math

import numpy as np
import pytest

from checkers.onestep import subspace_spike as checker
from theorems.onestep import subspace_spike


def test_the_label_moment_and_the_share_in_closed_form():
    """ReLU teachers, k = 3, noise 0.1, psi1 = 1: E[y^2] = 3/2 + 6/(2 pi) + 0.01, |m|^2 = 3/4."""
    instance = subspace_spike.THEOREM.instance()
    second = 1.5 + 6 / (2 * math.pi) + 0.01
    assert float(instance.constant("label_second_moment")) == pytest.approx(second, rel=1e-14)
    assert float(instance.constant("subspace_share")) == pytest.approx(0.75 / (0.75 + second), rel=1e-14)
    tanh = subspace_spike.THEOREM.instance({"teacher": "tanh", "teachers": "2"})
    assert float(tanh.constant("teacher_mean")) == pytest.approx(0, abs=1e-20)


class _Chisquare:
    """A generator whose chi-square draw is a given value."""

    def __init__(self, value):
        self.value = value

    def chisquare(self, degrees):
        return self.value


def test_the_reduced_draw_is_the_full_draws_algebra():
    """With the chi-square replaced by the full draw's own ||X_rest^T y||^2 n^2/||y||^2, the reduced readings equal
    those of zeta = X^T y / n computed from the whole matrix."""
    rng = np.random.default_rng(3)
    samples, dimension, teachers = 40, 30, 3
    x = rng.standard_normal((samples, dimension))
    y = np.maximum(x[:, :teachers], 0).sum(axis=1) + 0.1 * rng.standard_normal(samples)
    zeta = x.T @ y / samples
    share = zeta[:teachers] @ zeta[:teachers] / (zeta @ zeta)
    cosine = zeta[:teachers].sum() ** 2 / (teachers * zeta[:teachers] @ zeta[:teachers])
    rest = zeta[teachers:] @ zeta[teachers:] * samples**2 / (y @ y)
    reduced = checker.spike_geometry(x[:, :teachers], y, dimension, _Chisquare(rest))
    assert reduced == pytest.approx((share, cosine), rel=1e-12)


def test_the_reduced_draw_has_the_law_of_the_full_draw():
    """Over many draws at d = n = 60 the mean share inside the subspace agrees between full n x d draws and the
    reduced draws (each 4 standard errors at most; fixed seeds)."""
    samples = dimension = 60
    full, reduced = [], []
    for seed in range(400):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((samples, dimension))
        y = np.maximum(x[:, :3], 0).sum(axis=1) + 0.1 * rng.standard_normal(samples)
        zeta = x.T @ y / samples
        full.append(zeta[:3] @ zeta[:3] / (zeta @ zeta))
    for seed in range(2000):
        rng = np.random.default_rng(10_000 + seed)
        z = rng.standard_normal((samples, 3))
        y = np.maximum(z, 0).sum(axis=1) + 0.1 * rng.standard_normal(samples)
        reduced.append(checker.spike_geometry(z, y, dimension, rng)[0])
    difference = np.mean(full) - np.mean(reduced)
    error = math.hypot(np.std(full) / math.sqrt(len(full)), np.std(reduced) / math.sqrt(len(reduced)))
    assert abs(difference) < 4 * error


def test_what_each_mutant_claims_is_known_before_any_draw():
    theorem = subspace_spike.THEOREM
    assert set(theorem.near_mutants()) == {"noise-left-out"}
    assert theorem.mutant_distance("random-inside")["one-direction"] == pytest.approx((1 - 1 / 3) / 0.04)
    assert theorem.mutant_distance("cross-terms-dropped")["subspace-share"] > 3


def test_a_teacher_without_a_linear_part_is_outside_the_assumptions():
    instance = subspace_spike.THEOREM.instance({"teacher": "abs"})
    assert [name for name, _ in instance.assumption_failures()] == ["linear-part"]
