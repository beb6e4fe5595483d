"""Ridge readouts on fixed features: train and test errors for many ridge penalties from one factorization.

Normalization (Ba et al. 2022, eq. 3.1; docs/derivations/equivalence.md#ridge-stage): with features Phi (n x N) already
divided by sqrt(N),
the second layer minimizes (1/n) ||y - Phi a||^2 + (lambda/N) ||a||^2, so

    a(lambda) = (Phi^T Phi / n + (lambda/N) I)^{-1} Phi^T y / n.

One eigendecomposition of the smaller Gram matrix serves every lambda:
- primal, Phi^T Phi = V diag(s) V^T, when N <= n;
- dual, Phi Phi^T = U diag(s) U^T, when n < N, where a = Phi^T U diag(1/(s/n + lambda/N)) U^T y / n.
The errors are mean squared errors:
- train: (1/n) ||y - Phi a||^2 on the training labels (noise included);
- test: on fresh inputs, against the targets the caller passes. Ba's risk uses the noiseless teacher;
  Demir and Dogan report half of it.
Other papers' penalties convert as follows (N neurons, n samples):
- Cui and Dandi's w = (X^T X + lambda I)^{-1} X^T y on X = sigma/sqrt(p) minimizes ||y - X w||^2 + lambda ||w||^2,
  which is lambda_Ba = lambda N / n;
- Demir and Dogan's w = (R R^T + lambda m I)^{-1} R y on R = sigma/sqrt(k), with m samples, minimizes
  (1/m) ||y - R^T w||^2 + lambda ||w||^2, which is lambda_Ba = lambda N.
"""

from __future__ import annotations

from dataclasses import dataclass

import array_api_compat
import numpy as np
import scipy.linalg

from checkers.arrays import namespace_of


@dataclass(frozen=True)
class RidgeErrors:
    penalties: tuple[float, ...]
    train: np.ndarray   # per penalty
    test: np.ndarray    # per penalty
    weight_norms: np.ndarray  # ||a||^2 per penalty


def ridge_errors(features: np.ndarray, labels: np.ndarray, test_features: np.ndarray, test_targets: np.ndarray,
                 penalties) -> RidgeErrors:
    """Train and test MSE of Ba-normalized ridge for each penalty lambda (one eigendecomposition)."""
    n, width = features.shape
    penalties = tuple(float(p) for p in penalties)
    if min(penalties) <= 0:
        raise ValueError("ridge penalties must be positive")
    if width <= n:
        gram = features.T @ features
        spectrum, basis = np.linalg.eigh(gram)
        projected = basis.T @ (features.T @ labels)
    else:
        gram = features @ features.T
        spectrum, basis = np.linalg.eigh(gram)
        projected = basis.T @ labels
    spectrum = np.maximum(spectrum, 0.0)
    train, test, norms = [], [], []
    for penalty in penalties:
        scale = 1.0 / (spectrum / n + penalty / width) / n
        weights = basis @ (scale * projected) if width <= n else features.T @ (basis @ (scale * projected))
        train.append(np.mean((labels - features @ weights) ** 2))
        test.append(np.mean((test_targets - test_features @ weights) ** 2))
        norms.append(float(weights @ weights))
    return RidgeErrors(penalties, np.array(train), np.array(test), np.array(norms))


def fit_ridge(features: np.ndarray, labels: np.ndarray, penalty: float) -> np.ndarray:
    """The Ba-normalized ridge readout a = (Phi^T Phi / n + (lambda/N) I)^{-1} Phi^T y / n for one penalty, by a
    Cholesky solve of the smaller system (the dual one, a = Phi^T (Phi Phi^T / n + lambda/N)^{-1} y / n, when
    n < N). On another backend (`checkers.arrays`) the same system, solved by its library's `linalg.solve`."""
    n, width = features.shape
    if not penalty > 0:
        raise ValueError("the ridge penalty must be positive")
    if not isinstance(features, np.ndarray):
        xp = namespace_of(features)
        size = min(n, width)
        shift = (penalty / width) * xp.eye(size, dtype=features.dtype, device=array_api_compat.device(features))
        if width <= n:
            return xp.linalg.solve(features.T @ features / n + shift, features.T @ labels / n)
        return features.T @ xp.linalg.solve(features @ features.T / n + shift, labels / n)
    if width <= n:
        system = features.T @ features / n + (penalty / width) * np.eye(width)
        return scipy.linalg.solve(system, features.T @ labels / n, assume_a="pos")
    system = features @ features.T / n + (penalty / width) * np.eye(n)
    return features.T @ scipy.linalg.solve(system, labels / n, assume_a="pos")


def readout(step, weights: np.ndarray, feature_maps: dict, penalties, rng: np.random.Generator, *,
            ridge_samples: int | None = None, test_samples: int | None = None) -> dict[str, RidgeErrors]:
    """Ridge errors of several feature maps on the same fresh data (sample splitting, as the theorems ask).

    `step` is a `checkers.onestep.simulation.OneStep` whose setting gives the teacher, noise and sizes; `weights`
    (d x N) is the first layer to read out (W_1, or W_0 for the untrained features). Each feature map takes
    the preactivations H = X W (rows are samples) and a generator, and returns features before the 1/sqrt(N)
    scaling. Fresh training inputs (ridge_samples, default n) have noisy labels; the test targets (test_samples,
    default n) are the noiseless teacher f*(x) = sigma_*(<x, beta_*>), as in Ba's risk."""
    from checkers.onestep.simulation import draw_data
    setting = step.setting
    n = ridge_samples or setting.samples
    width = weights.shape[1]
    if n != setting.samples:
        raise ValueError("the ridge stage uses n fresh samples, as many as the step")
    beta = step.teacher_direction
    x, y, _ = draw_data(setting, rng, beta)
    test_x = rng.standard_normal((test_samples or n, setting.dimension))
    test_targets = setting.teacher(test_x @ beta)
    pre, test_pre = x @ weights, test_x @ weights
    root = np.sqrt(width)
    return {name: ridge_errors(feature(pre, rng) / root, y, feature(test_pre, rng) / root, test_targets, penalties)
            for name, feature in feature_maps.items()}
