"""The head generator of docs/derivations/collapse.md#nc1-bound: it delivers the hypotheses it promises, in float64
and mpmath."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkers.collapse.heads import (
    Float64,
    Mpmath,
    between_class,
    generate_chain,
    generate_head,
    measure_head,
    one_hot_targets,
    within_class,
)


def _head(backend=Float64, **changes):
    arguments = dict(classes=3, per_class=2, width=5, input_width=7, kappa=2.5, scale=1.3, eps1=0.2, eps2=1e-2,
                     spread=3.0, adversarial=False, error="random")
    arguments.update(changes)
    return generate_head(np.random.default_rng(4), backend, **arguments)


@pytest.mark.parametrize("error", ["random", "within", "shrink"])
def test_measured_hypotheses_match_the_targets(error):
    head = _head(error=error)
    measured = measure_head(head)
    assert measured["eps1"] == pytest.approx(0.2, rel=1e-12)
    assert measured["eps2"] == pytest.approx(1e-2, rel=1e-10)
    assert measured["s_first"] / measured["s_last"] == pytest.approx(2.5, rel=1e-12)
    targets, _ = one_hot_targets(3, 2)
    error_matrix = head.outputs - targets
    if error == "within":
        assert np.allclose(error_matrix, within_class(error_matrix, head.labels), atol=1e-14)
    if error == "shrink":  # a negative multiple of Y(Pi - J)
        direction = between_class(targets, head.labels)
        assert np.allclose(error_matrix, -0.2 * direction / np.linalg.norm(direction), atol=1e-14)


def test_the_imbalance_lies_outside_the_row_space_of_the_last_layer():
    head = _head()
    imbalance = head.last.T @ head.last - head.previous @ head.previous.T
    projector = np.linalg.pinv(head.last) @ head.last
    assert np.linalg.norm(projector @ imbalance) < 1e-13
    assert np.linalg.norm(imbalance, 2) == pytest.approx(1e-2, rel=1e-10)


def test_mpmath_backend_agrees_with_float64_and_is_exact_to_its_digits():
    floating = measure_head(_head())
    with mpmath.workdps(40):
        exact = measure_head(_head(Mpmath), Mpmath)
        assert abs(exact["eps1"] - mpmath.mpf(0.2)) < mpmath.mpf(10) ** -35  # the float target, to 40 digits
        assert abs(exact["eps2"] - mpmath.mpf(1e-2)) < mpmath.mpf(10) ** -35
    for name in floating:
        assert float(exact[name]) == pytest.approx(floating[name], rel=1e-9), name


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(2, 5), kappa=st.floats(1, 10))
def test_unperturbed_chains_are_exactly_balanced(seed, depth, kappa):
    chain = generate_chain(np.random.default_rng(seed), widths=(6,) + (5,) * (depth - 1) + (3,), kappa=kappa,
                           scale=1.1, perturbation=0.0)
    for lower, upper in zip(chain, chain[1:]):
        assert np.linalg.norm(upper.T @ upper - lower @ lower.T, 2) < 1e-13
    product = chain[0]
    for weight in chain[1:]:
        product = weight @ product
    singular = np.linalg.svd(product, compute_uv=False)
    assert singular[0] / singular[-1] == pytest.approx(kappa**depth, rel=1e-9)


def test_generator_rejects_impossible_shapes_and_unknown_error_kinds():
    with pytest.raises(ValueError, match="K < m"):
        _head(width=3)
    with pytest.raises(ValueError, match="error must be"):
        _head(error="sideways")
