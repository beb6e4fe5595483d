"""Neural-collapse metrics: the conventions against explicit formulas, and their exact values at collapse."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkers.collapse import metrics


def _balanced_features(seed, classes=4, per_class=5, width=7, spread=1.0):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(classes), per_class)
    means = 2 * rng.standard_normal((width, classes))
    return means[:, labels] + spread * rng.standard_normal((width, classes * per_class)), labels


def _orthogonal_frame_collapse(classes, width=12, seed=0, per_class=3):
    """Features z_ci = W^+ e_c for a classifier W with orthonormal rows (kappa(W) = 1)."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.standard_normal((width, classes)))
    classifier = 1.7 * basis.T
    labels = np.repeat(np.arange(classes), per_class)
    features = np.linalg.pinv(classifier)[:, labels]
    return features, labels, classifier


def test_trace_ratio_is_the_projector_form_for_balanced_classes():
    features, labels = _balanced_features(1)
    count, per_class = features.shape[1], 5
    class_average = np.kron(np.eye(4), np.ones((per_class, per_class)) / per_class)
    global_average = np.ones((count, count)) / count
    expected = (np.linalg.norm(features @ (np.eye(count) - class_average)) ** 2
                / np.linalg.norm(features @ (class_average - global_average)) ** 2)
    assert metrics.nc1_trace_ratio(features, labels) == pytest.approx(expected, rel=1e-12)


def test_pseudo_inverse_form_against_an_explicit_rank_cut_pinv():
    features, labels = _balanced_features(2)
    within, between = metrics.covariances(features, labels)
    values, vectors = np.linalg.eigh(between)
    pinv = vectors[:, -3:] @ np.diag(1 / values[-3:]) @ vectors[:, -3:].T
    assert metrics.nc1_pseudo_inverse(features, labels) == pytest.approx(np.trace(within @ pinv) / 4, rel=1e-10)
    assert metrics.nc1_pseudo_inverse(features, labels, divide_by_classes=False) == pytest.approx(
        np.trace(within @ pinv), rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), spread=st.sampled_from([1e-9, 1e-4, 0.1, 1.0, 5.0]),
       classes=st.integers(2, 5), width=st.integers(2, 9))
def test_nc1_is_non_negative_and_bounded_one_way(seed, spread, classes, width):
    features, labels = _balanced_features(seed, classes=classes, width=width, spread=spread)
    trace_ratio = metrics.nc1_trace_ratio(features, labels)
    pseudo_inverse = metrics.nc1_pseudo_inverse(features, labels)
    assert trace_ratio >= 0 and pseudo_inverse >= 0
    if width >= classes - 1:  # Sigma_B of full rank K - 1: the conversion bound applies
        assert pseudo_inverse <= metrics.nc1_conversion_bound(features, labels) * (1 + 1e-9)


def test_no_reverse_bound_pseudo_inverse_form_blind_outside_the_span_of_the_means():
    """Within-class spread orthogonal to the centred means: NC1_P = 0 while NC1_J > 0."""
    labels = np.repeat(np.arange(2), 3)
    features = np.zeros((2, 6))
    features[0] = np.where(labels == 0, 1.0, -1.0)
    features[1] = [0.5, -0.5, 0.0, 0.3, -0.3, 0.0]
    assert metrics.nc1_pseudo_inverse(features, labels) == pytest.approx(0, abs=1e-15)
    assert metrics.nc1_trace_ratio(features, labels) > 0.1


@pytest.mark.parametrize("classes", [2, 3, 4, 10])
def test_orthogonal_frame_collapse_exact_values(classes):
    features, labels, classifier = _orthogonal_frame_collapse(classes)
    assert metrics.nc1_trace_ratio(features, labels) == pytest.approx(0, abs=1e-25)
    assert metrics.nc2_condition_number(features, labels) == pytest.approx(1, abs=1e-12)
    # a centred orthogonal frame is a simplex ETF: equinorm, coherence and ETF distance vanish
    assert metrics.nc2_equinorm(features, labels) == pytest.approx(0, abs=1e-12)
    assert metrics.nc2_equiangularity(features, labels) == pytest.approx(0, abs=1e-12)
    centred = features[:, ::3] - features.mean(axis=1, keepdims=True)
    assert metrics.etf_distance(centred) == pytest.approx(0, abs=1e-12)
    assert metrics.orthogonal_frame_distance(metrics.class_means(features, labels)) == pytest.approx(0, abs=1e-12)
    assert metrics.nc3_average_cosine(features, labels, classifier) == pytest.approx(1, abs=1e-12)
    assert metrics.ncc_mismatch(features, labels, classifier) == 0
    # Papyan's centred, squared self-duality distance does not vanish (docs/derivations/collapse.md#setting): the value
    # follows from <W^T, M> / (||W|| ||M||) = sqrt((K - 1)/K) for centred orthonormal columns
    expected = 2 - 2 * np.sqrt((classes - 1) / classes)
    assert metrics.self_duality_distance(features, labels, classifier) == pytest.approx(expected, abs=1e-12)
    assert metrics.self_duality_distance(features, labels, classifier, centred=False) == pytest.approx(0, abs=1e-12)


def test_self_duality_reference_values_for_small_class_counts():
    """The values the spec tabulates: 0.5858, 0.3670, 0.2679, 0.1026 for K = 2, 3, 4, 10."""
    for classes, tabulated in [(2, 0.5858), (3, 0.3670), (4, 0.2679), (10, 0.1026)]:
        features, labels, classifier = _orthogonal_frame_collapse(classes, seed=classes)
        assert metrics.self_duality_distance(features, labels, classifier) == pytest.approx(tabulated, abs=6e-5)


def test_ncc_uses_argmax_of_the_scores():
    labels = np.array([0, 0, 1, 1])
    features = np.array([[2.0, 2.2, -2.0, -2.2], [0.0, 0.1, 0.0, -0.1]])
    classifier = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert metrics.ncc_mismatch(features, labels, classifier) == 0
    assert metrics.ncc_mismatch(features, labels, -classifier) == 1  # argmin would have called this perfect
    assert metrics.ncc_mismatch(features, labels, classifier, bias=np.array([0.0, 10.0])) == 0.5


def test_equinorm_ddof_and_empty_class_error():
    vectors = np.array([[1.0, 3.0]])
    assert metrics.equinorm(vectors, ddof=0) == pytest.approx(0.5)
    assert metrics.equinorm(vectors) == pytest.approx(np.sqrt(2) / 2)
    with pytest.raises(ValueError, match="empty"):
        metrics.class_means(np.ones((2, 3)), np.array([0, 0, 2]))
