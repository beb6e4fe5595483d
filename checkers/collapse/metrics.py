"""Neural-collapse metrics of a feature matrix, in the conventions in use, side by side
(docs/derivations/collapse.md#setting).

Conventions. Features are the columns of Z (m x N); `labels` holds each column's class in 0..K-1.
Class means mu_c, global mean mu_G = mean of all columns; for balanced classes mu_G is the mean of the
mu_c. Within-class covariance Sigma_W = (1/N) sum_{c,i} (z_ci - mu_c)(z_ci - mu_c)^T; between-class
covariance Sigma_B = (1/K) sum_c (mu_c - mu_G)(mu_c - mu_G)^T. The classifier W is K x m (row c is w_c).

| metric | Jacot / Sukenik (the theorems here) | Papyan, Han and Donoho (2020) and descendants |
|---|---|---|
| NC1 | `nc1_trace_ratio`: tr Sigma_W / tr Sigma_B | `nc1_pseudo_inverse`: (1/K) tr(Sigma_W Sigma_B^+), Sigma_B^+ from its K-1 top eigenpairs |
| NC2 | `nc2_condition_number`: s_1/s_K of the uncentred means (target: orthogonal frame) | `equinorm`, `equiangularity`, `etf_distance` on centred means (target: simplex ETF) |
| NC3 | `nc3_average_cosine`: mean over samples of cos(z_ci, w_c) | `self_duality_distance`: ||W^T/||W|| - M/||M|| ||_F^2, centred means |
| NC4 | `ncc_mismatch`: argmax_c (W z + b)_c against the nearest class mean | same |

The pseudo-inverse is truncated at rank K - 1 (Sigma_B has at most that rank): a default-cutoff pinv
keeps round-off eigenvalues near collapse and can make NC1 negative (tding1/Neural-Collapse issue 3).
Under collapse to an orthogonal frame with a centred self-duality distance, the distance tends to
2 - 2 sqrt((K-1)/K), not 0: use the uncentred variant (`centred=False`) for square loss without bias.
"""

from __future__ import annotations

import numpy as np


def class_means(features: np.ndarray, labels: np.ndarray, classes: int | None = None) -> np.ndarray:
    """The m x K matrix of uncentred class means (column c is mu_c)."""
    labels = np.asarray(labels)
    classes = int(labels.max()) + 1 if classes is None else classes
    one_hot = labels[None, :] == np.arange(classes)[:, None]
    counts = one_hot.sum(axis=1)
    if np.any(counts == 0):
        raise ValueError(f"every class needs at least one sample; empty: {np.flatnonzero(counts == 0).tolist()}")
    return features @ one_hot.T / counts


def covariances(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Sigma_W, Sigma_B) as in the module docstring."""
    means = class_means(features, labels)
    within = features - means[:, labels]
    centred = means - features.mean(axis=1, keepdims=True)
    return within @ within.T / features.shape[1], centred @ centred.T / means.shape[1]


def nc1_trace_ratio(features: np.ndarray, labels: np.ndarray) -> float:
    """NC1_J = tr Sigma_W / tr Sigma_B (= ||Z(I - Pi)||_F^2 / ||Z(Pi - J)||_F^2 for balanced classes)."""
    within, between = covariances(features, labels)
    return float(np.trace(within) / np.trace(between))


def nc1_pseudo_inverse(features: np.ndarray, labels: np.ndarray, *, divide_by_classes: bool = True) -> float:
    """NC1_P = (1/K) tr(Sigma_W Sigma_B^+) with Sigma_B^+ from the K - 1 largest eigenpairs of Sigma_B.

    Non-negative by construction (the trace of a product of two PSD matrices). `divide_by_classes=False`
    gives the variant without 1/K that many copies of the reference code compute.
    """
    within, between = covariances(features, labels)
    classes = int(np.asarray(labels).max()) + 1
    values, vectors = np.linalg.eigh(between)
    rank = min(classes - 1, between.shape[0])
    values, vectors = values[-rank:], vectors[:, -rank:]
    # tr(Sigma_W V diag(1/values) V^T) = sum_j v_j^T Sigma_W v_j / values_j, each term >= 0
    value = float(np.sum(np.einsum("ij,ik,kj->j", vectors, within, vectors) / values))
    return value / classes if divide_by_classes else value


def nc1_conversion_bound(features: np.ndarray, labels: np.ndarray) -> float:
    """The one-way bound NC1_P <= ((K - 1)/K) kappa_B NC1_J, kappa_B = lambda_max / lambda_min^+ of Sigma_B
    (docs/derivations/collapse.md#setting, derived); no reverse bound holds."""
    _, between = covariances(features, labels)
    classes = int(np.asarray(labels).max()) + 1
    values = np.linalg.eigvalsh(between)[-(classes - 1):]
    return (classes - 1) / classes * float(values[-1] / values[0]) * nc1_trace_ratio(features, labels)


def condition_number(matrix: np.ndarray) -> float:
    """s_1 / s_r with r = min(matrix.shape)."""
    singular_values = np.linalg.svd(matrix, compute_uv=False)
    return float(singular_values[0] / singular_values[-1])


def nc2_condition_number(features: np.ndarray, labels: np.ndarray) -> float:
    """NC2_J = kappa of the uncentred class-mean matrix; 1 iff the means form an orthogonal frame."""
    return condition_number(class_means(features, labels))


def _centred_means(features: np.ndarray, labels: np.ndarray) -> np.ndarray:
    means = class_means(features, labels)
    return means - features.mean(axis=1, keepdims=True)


def equinorm(vectors: np.ndarray, *, ddof: int = 1) -> float:
    """Coefficient of variation std/mean of the column norms (ddof = 1 as torch.std; 0 as numpy)."""
    norms = np.linalg.norm(vectors, axis=0)
    return float(np.std(norms, ddof=ddof) / np.mean(norms))


def equiangularity(vectors: np.ndarray) -> float:
    """Papyan's coherence: mean over c != c' of |cos(v_c, v_c') + 1/(K - 1)| (0 for a simplex ETF)."""
    unit = vectors / np.linalg.norm(vectors, axis=0)
    gram = unit.T @ unit
    classes = gram.shape[0]
    off_diagonal = ~np.eye(classes, dtype=bool)
    return float(np.mean(np.abs(gram[off_diagonal] + 1.0 / (classes - 1))))


def etf_distance(vectors: np.ndarray) -> float:
    """|| G/||G||_F - (I - 11^T/K)/sqrt(K - 1) ||_F for the Gram matrix G of the columns (Tirer and Bruna)."""
    gram = vectors.T @ vectors
    classes = gram.shape[0]
    target = (np.eye(classes) - 1.0 / classes) / np.sqrt(classes - 1)
    return float(np.linalg.norm(gram / np.linalg.norm(gram) - target))


def orthogonal_frame_distance(vectors: np.ndarray) -> float:
    """|| G/||G||_F - I/sqrt(K) ||_F: the orthogonal-frame target of square loss without bias (Dang et al.)."""
    gram = vectors.T @ vectors
    classes = gram.shape[0]
    return float(np.linalg.norm(gram / np.linalg.norm(gram) - np.eye(classes) / np.sqrt(classes)))


def nc2_equinorm(features: np.ndarray, labels: np.ndarray, *, ddof: int = 1) -> float:
    """Equinorm of the centred class means (Papyan)."""
    return equinorm(_centred_means(features, labels), ddof=ddof)


def nc2_equiangularity(features: np.ndarray, labels: np.ndarray) -> float:
    """Coherence of the centred class means (Papyan)."""
    return equiangularity(_centred_means(features, labels))


def nc3_average_cosine(features: np.ndarray, labels: np.ndarray, classifier: np.ndarray) -> float:
    """NC3_J = (1/N) sum over samples of cos(z_ci, w_c), w_c row c of the K x m classifier (1 is perfect)."""
    rows = classifier[np.asarray(labels)]
    cosines = np.einsum("ij,ji->i", rows, features) / (
        np.linalg.norm(rows, axis=1) * np.linalg.norm(features, axis=0))
    return float(np.mean(cosines))


def self_duality_distance(features: np.ndarray, labels: np.ndarray, classifier: np.ndarray, *,
                          centred: bool = True, squared: bool = True) -> float:
    """|| W^T/||W||_F - M/||M||_F ||_F, squared as Papyan's W_M_dist (`squared=False`: Tirer et al.).

    M holds the class means, centred by default (Papyan); `centred=False` gives the uncentred version,
    which tends to 0 under orthogonal-frame collapse where the centred one tends to 2 - 2 sqrt((K-1)/K).
    """
    means = _centred_means(features, labels) if centred else class_means(features, labels)
    difference = classifier.T / np.linalg.norm(classifier) - means / np.linalg.norm(means)
    distance = float(np.linalg.norm(difference))
    return distance**2 if squared else distance


def ncc_mismatch(features: np.ndarray, labels: np.ndarray, classifier: np.ndarray,
                 bias: np.ndarray | None = None) -> float:
    """NC4: the fraction of samples where the classifier's argmax_c (W z + b)_c differs from the
    nearest class mean argmin_c ||z - mu_c|| (0 under collapse)."""
    means = class_means(features, labels)
    scores = classifier @ features + (0 if bias is None else np.asarray(bias)[:, None])
    squared_distances = (np.sum(features**2, axis=0)[None, :] - 2 * means.T @ features
                         + np.sum(means**2, axis=0)[:, None])
    return float(np.mean(np.argmax(scores, axis=0) != np.argmin(squared_distances, axis=0)))
