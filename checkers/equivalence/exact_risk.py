"""The population moments of a readout's features given the first layer, and the exact risk they give a readout.

For features phi(x) = erf(W^T x)/sqrt(N) (x ~ N(0, I_d), W d x N) and the teacher f*(x) = erf(beta . x) with
||beta|| = 1, the risk of a readout a is R(a) = E f*^2 - 2 a . psi + a^T Sigma a with the closed forms
(docs/derivations/limits.md#exact-risk)

    E[erf(u) erf(v)] = (2/pi) arcsin(2 c_uv / sqrt((1 + 2 c_uu)(1 + 2 c_vv))),   c = covariance of (u, v),

so Sigma_ij = (2/pi) arcsin(2 w_i.w_j / sqrt((1 + 2|w_i|^2)(1 + 2|w_j|^2))) / N,
psi_i = (2/pi) arcsin(2 w_i.beta / sqrt(3 (1 + 2|w_i|^2))) / sqrt(N) and E f*^2 = (2/pi) arcsin(2/3).

For any other sigma or teacher, `feature_moments` takes the network's moments from the kernel oracle's Mehler series
with each neuron's own scale (`theorems.equivalence.kernel_oracle.series_feature_moments`): accurate, not exact,
and held to the closed forms for erf by a test.
"""

from __future__ import annotations

import math

import numpy as np

from theorems.activations import Activation
from theorems.equivalence.kernel_oracle import series_feature_moments


def erf_feature_moments(weights: np.ndarray, teacher_direction: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, psi, E f*^2) of the features erf(W^T x)/sqrt(N) and the teacher erf(beta . x), ||beta|| = 1."""
    width = weights.shape[1]
    scale = 1 / np.sqrt(1 + 2 * np.sum(weights**2, axis=0))
    gram = (weights.T @ weights) * scale[:, None] * scale[None, :]
    covariance = (2 / np.pi) * np.arcsin(np.clip(2 * gram, -1.0, 1.0)) / width
    cross = (2 / np.pi) * np.arcsin(np.clip(2 * (weights.T @ teacher_direction) * scale / np.sqrt(3), -1.0, 1.0))
    return covariance, cross / np.sqrt(width), float((2 / np.pi) * np.arcsin(2 / 3))


def readout_risk(readout: np.ndarray, covariance: np.ndarray, cross: np.ndarray, teacher_moment: float) -> float:
    """E (f*(x) - a . phi(x))^2 = E f*^2 - 2 a . psi + a^T Sigma a."""
    return float(teacher_moment - 2 * readout @ cross + readout @ covariance @ readout)


def feature_moments(weights: np.ndarray, teacher_direction: np.ndarray, sigma: Activation,
                    teacher: Activation) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, psi, E f*^2) of the features sigma(W^T x)/sqrt(N) and the teacher f*(beta . x), ||beta|| = 1: the
    closed forms for erf and an erf teacher (`erf_feature_moments`), else the kernel oracle's Mehler series
    (`theorems.equivalence.kernel_oracle.series_feature_moments`), normalized here."""
    if sigma.name == "erf" and teacher.name == "erf":
        return erf_feature_moments(weights, teacher_direction)
    width = weights.shape[1]
    covariance, cross, teacher_moment = series_feature_moments(weights, teacher_direction, sigma, teacher)
    return covariance / width, cross / math.sqrt(width), teacher_moment
