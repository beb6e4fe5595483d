"""The exact risk of a readout of a network's features, from the features' population moments.

For features phi(x) = sigma(W^T x)/sqrt(N) (x ~ N(0, I_d), W d x N) and a teacher f*(x), the risk of a readout a is

    R(a) = E (f*(x) - a . phi(x))^2 = E f*^2 - 2 a . psi / sqrt(N) + a^T Sigma a / N,

with Sigma_ij = E sigma(w_i . x) sigma(w_j . x) and psi_i = E sigma(w_i . x) f*(x) the unnormalized moments of
`theorems.equivalence.kernel_oracle.feature_moments` (exact for erf features and an erf teacher, else Mehler's series;
docs/derivations/limits.md#exact-risk). A check that scores its readout this way has no test set's noise in a draw.
"""

from __future__ import annotations

import math

import numpy as np


def readout_risk(readout: np.ndarray, covariance: np.ndarray, cross: np.ndarray, teacher_moment: float) -> float:
    """R(a) = E f*^2 - 2 a . psi / sqrt(N) + a^T Sigma a / N for the readout a of sigma(W^T x)/sqrt(N), from the
    unnormalized moments (Sigma, psi, E f*^2) of its N features."""
    width = len(readout)
    return float(teacher_moment - 2 * readout @ cross / math.sqrt(width) + readout @ covariance @ readout / width)
