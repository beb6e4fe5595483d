"""Generators of linear heads with prescribed eps1, eps2 and conditioning, and the quantities measured from them.

The construction is docs/derivations/collapse.md#nc1-bound. Orthonormal bases U in O(K), [V | V_perp] in O(m),
[Q | Q_perp | ...] in O(p); singular values s_i = scale kappa^(-(i-1)/(K-1)), so s_1/s_K = kappa;

    W_L     = U diag(s) V^T
    W_{L-1} = V diag(s') Q^T + sqrt(eps2) V_perp diag(t) Q_perp^T      (t_1 = 1; all ones if adversarial)
    Z_{L-2} = Q diag(1/(s s')) U^T (Y + E) + Q_perp C,

so that W_L W_{L-1} Z_{L-2} = Y + E exactly and the imbalance outside the row space of W_L is
-eps2 V_perp diag(t^2) V_perp^T. E has ||E||_F = eps1 and is random, within-class (E(I - Pi)),
"shrink" (-eps1 Y(Pi - J)/||Y(Pi - J)||, which shrinks the class separation and makes Theorem A's
denominator tight), or constant in each class and attaining Theorem C's bracket ("stretch", "squeeze"); C is
within-class spread that the output cannot see (rank one on its first row if adversarial). s' = s unless
`imbalance` > 0 adds imbalance inside the row space.

Everything runs on a backend: float64 numpy arrays, or numpy object arrays of mpmath numbers at a
given precision (for tightness to many digits, where float64 rounding of sqrt(eps2) would dominate).
Random draws come from the numpy generator in both cases, so the two agree to float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from theorems.collapse.bounds import stretch_angle


class Float64:
    """Float64 numpy linear algebra."""

    name = "float64"

    @staticmethod
    def array(values):
        return np.asarray(values, dtype=float)

    @staticmethod
    def sqrt(value):
        return np.sqrt(value)

    @staticmethod
    def orthonormal(draws):
        basis, triangular = np.linalg.qr(draws)
        return basis * np.sign(np.diag(triangular))

    @staticmethod
    def singular_values(matrix):
        return np.linalg.svd(matrix, compute_uv=False)

    @staticmethod
    def symmetric_norm(matrix):
        return float(np.max(np.abs(np.linalg.eigvalsh(matrix))))

    @staticmethod
    def frobenius(matrix):
        return float(np.linalg.norm(matrix))

    @staticmethod
    def pinv(matrix):
        return np.linalg.pinv(matrix)


class Mpmath:
    """The same operations on numpy object arrays of mpf, at `digits` digits (set by the caller's workdps)."""

    name = "mpmath"

    @staticmethod
    def array(values):
        """Floats converted exactly, mpf values kept (a float64 round trip would cut them to 16 digits)."""
        return np.vectorize(mpmath.mpf, otypes=[object])(np.asarray(values, dtype=object))

    @staticmethod
    def sqrt(value):
        return np.vectorize(mpmath.sqrt, otypes=[object])(value) if isinstance(value, np.ndarray) \
            else mpmath.sqrt(value)

    @staticmethod
    def orthonormal(draws):
        """Modified Gram-Schmidt, twice, on the float draws converted to mpf (same signs as the QR route)."""
        columns = [Mpmath.array(draws[:, j]) for j in range(draws.shape[1])]
        basis = []
        for column in columns:
            for _ in range(2):
                for vector in basis:
                    column = column - (vector @ column) * vector
            basis.append(column / mpmath.sqrt(column @ column))
        return np.stack(basis, axis=1)

    @staticmethod
    def _eigenvalues(symmetric):
        values, _ = mpmath.eigsy(mpmath.matrix(symmetric.tolist()))
        return [values[i] for i in range(symmetric.shape[0])]

    @staticmethod
    def singular_values(matrix):
        gram = matrix @ matrix.T if matrix.shape[0] <= matrix.shape[1] else matrix.T @ matrix
        return sorted((mpmath.sqrt(max(v, 0)) for v in Mpmath._eigenvalues(gram)), reverse=True)

    @staticmethod
    def symmetric_norm(matrix):
        return max(abs(v) for v in Mpmath._eigenvalues(matrix))

    @staticmethod
    def frobenius(matrix):
        return mpmath.sqrt(np.sum(matrix * matrix))

    @staticmethod
    def pinv(matrix):
        """Right pseudo-inverse M^T (M M^T)^{-1} of a full-row-rank matrix."""
        inverse = mpmath.inverse(mpmath.matrix((matrix @ matrix.T).tolist()))
        return matrix.T @ np.array(inverse.tolist(), dtype=object)


def one_hot_targets(classes: int, per_class: int) -> tuple[np.ndarray, np.ndarray]:
    """(Y, labels): Y = I_K kron 1_n^T, columns sorted by class."""
    labels = np.repeat(np.arange(classes), per_class)
    return (labels[None, :] == np.arange(classes)[:, None]).astype(float), labels


def within_class(matrix, labels):
    """M (I - Pi): each column minus the mean of its class."""
    classes = int(labels.max()) + 1
    means = np.stack([matrix[:, labels == c].sum(axis=1) / np.sum(labels == c) for c in range(classes)], axis=1)
    return matrix - means[:, labels]


def between_class(matrix, labels):
    """M (Pi - J): each column replaced by its class mean minus the global mean."""
    classes = int(labels.max()) + 1
    means = np.stack([matrix[:, labels == c].sum(axis=1) / np.sum(labels == c) for c in range(classes)], axis=1)
    return means[:, labels] - matrix.sum(axis=1)[:, None] / matrix.shape[1]


@dataclass(frozen=True)
class Head:
    """The last two layers of a head and the representations around them (docs/derivations/collapse.md#setting)."""

    last: np.ndarray       # W_L, K x m
    previous: np.ndarray   # W_{L-1}, m x p
    inputs: np.ndarray     # Z_{L-2}, p x N
    labels: np.ndarray
    per_class: int

    @property
    def classes(self) -> int:
        return self.last.shape[0]

    @property
    def features(self):    # Z_{L-1}
        return self.previous @ self.inputs

    @property
    def outputs(self):     # Z_L
        return self.last @ self.features


def generate_head(rng: np.random.Generator, backend=Float64, *, classes: int, per_class: int, width: int,
                  input_width: int, kappa: float, scale: float, eps1: float, eps2: float, spread: float,
                  adversarial: bool, error: str = "random", imbalance: float = 0.0) -> Head:
    """A head satisfying the hypotheses of Theorem A with targets eps1, eps2 (see the module docstring)."""
    if not classes < width <= input_width:
        raise ValueError("need K < m <= p")
    extra = width - classes
    rotation = backend.orthonormal(rng.standard_normal((classes, classes)))
    right = backend.orthonormal(rng.standard_normal((width, width)))
    inner = backend.orthonormal(rng.standard_normal((input_width, input_width)))
    basis, complement = right[:, :classes], right[:, classes:]
    inner_basis, inner_complement = inner[:, :classes], inner[:, classes:classes + extra]
    exponents = np.arange(classes) / (classes - 1)
    singular = backend.array(scale * float(kappa) ** -exponents) if backend is Float64 else \
        np.array([mpmath.mpf(scale) * mpmath.mpf(kappa) ** -mpmath.mpf(e) for e in exponents], dtype=object)
    noise = rng.uniform(-1, 1, classes)
    twisted = singular * backend.array(1 + imbalance * noise)
    weights = backend.array(np.ones(extra) if adversarial else np.r_[1.0, rng.uniform(0, 1, extra - 1)])
    last = rotation * singular @ basis.T
    previous = (basis * twisted) @ inner_basis.T + backend.sqrt(backend.array(eps2)) * (
        complement * weights) @ inner_complement.T
    targets, labels = one_hot_targets(classes, per_class)
    targets = backend.array(targets)
    draws = backend.array(rng.standard_normal((classes, classes * per_class)))
    if error == "within":
        draws = within_class(draws, labels)
    elif error == "shrink":
        draws = -between_class(targets, labels)
    elif error in ("stretch", "squeeze"):
        draws = _attaining_error(rotation, backend, mpmath.mpf(eps1) / mpmath.sqrt(per_class), error)[:, labels]
    elif error != "random":
        raise ValueError(f"error must be random, within, shrink, stretch or squeeze, got {error!r}")
    error_matrix = draws * (backend.array(eps1) / backend.frobenius(draws))
    spread_draws = rng.standard_normal((extra, classes * per_class))
    if adversarial:
        spread_draws[1:] = 0
    hidden_spread = within_class(backend.array(spread * spread_draws), labels)
    inputs = (inner_basis / (singular * twisted)) @ rotation.T @ (targets + error_matrix) \
        + inner_complement @ hidden_spread
    return Head(last, previous, inputs, labels, per_class)


def hidden_head(classes: int, per_class: int, kappa, lift, imbalance, side: str) -> Head:
    """In mpmath, at the caller's precision: the head that approaches Theorem C's hidden side
    (docs/derivations/collapse.md#nc2-bracket). W_L = [diag(kappa, 1, ..., 1) | 0], W_{L-1} = diag(kappa, 1, ..., 1,
    t) with t = `imbalance`, and every sample at its class mean, chosen so that Z_{L-1} B = W_L^+ + x e_{K+1} e_j^T
    (x = `lift`; j = K for `side` "stretch", 1 for "squeeze") and Z_L = Y exactly."""
    if side not in ("stretch", "squeeze"):
        raise ValueError(f"side must be stretch or squeeze, got {side!r}")
    zero, one = mpmath.mpf(0), mpmath.mpf(1)
    scales = [mpmath.mpf(kappa)] + [one] * (classes - 1)
    last = np.full((classes, classes + 1), zero, dtype=object)
    previous = np.full((classes + 1, classes + 1), zero, dtype=object)
    means = np.full((classes + 1, classes), zero, dtype=object)
    for i, scale in enumerate(scales):
        last[i, i], previous[i, i], means[i, i] = scale, scale, 1 / scale**2
    previous[classes, classes] = mpmath.mpf(imbalance)
    means[classes, classes - 1 if side == "stretch" else 0] = mpmath.mpf(lift) / mpmath.mpf(imbalance)
    _, labels = one_hot_targets(classes, per_class)
    return Head(last, previous, means[:, labels], labels, per_class)


def _attaining_error(rotation, backend, budget, error):
    """The class means of an output error that attains Theorem C's bracket (docs/derivations/collapse.md#nc2-bracket):
    cos theta* u_K u_K^T - sin theta* u_1 u_1^T in W_L's left singular vectors u (stretch), or with u_1 and u_K
    swapped (squeeze); theta* = pi/4 + asin(f/sqrt 2) for the output budget f = eps1/sqrt(n)."""
    theta = stretch_angle(budget)
    raised, lowered = (mpmath.cos(theta), mpmath.sin(theta))
    if backend is Float64:
        raised, lowered = float(raised), float(lowered)
    first, last = (-lowered, raised) if error == "stretch" else (raised, -lowered)
    return rotation[:, [0]] * first @ rotation[:, [0]].T + rotation[:, [-1]] * last @ rotation[:, [-1]].T


def measure_head(head: Head, backend=Float64) -> dict:
    """eps1, eps2, singular values of W_L, omega and the other quantities the bounds take, measured from the
    matrices (docs/derivations/collapse.md#setting)."""
    targets, _ = one_hot_targets(head.classes, head.per_class)
    features, outputs = head.features, head.outputs
    singular = backend.singular_values(head.last)
    class_average = np.stack([head.inputs[:, head.labels == c].sum(axis=1) / head.per_class
                              for c in range(head.classes)], axis=1)  # Z_{L-2} B
    return {
        "eps1": backend.frobenius(outputs - backend.array(targets)),
        "eps2": backend.symmetric_norm(head.last.T @ head.last - head.previous @ head.previous.T),
        "s_first": singular[0], "s_last": singular[head.classes - 1],
        "omega": backend.frobenius(within_class(head.inputs, head.labels)),
        "input_means_norm": backend.singular_values(class_average)[0],
        "radius": max(backend.singular_values(head.inputs)[0], backend.singular_values(features)[0], singular[0]),
        "nc1": backend.frobenius(within_class(features, head.labels)) ** 2
        / backend.frobenius(between_class(features, head.labels)) ** 2,
    }


def generate_chain(rng: np.random.Generator, backend=Float64, *, widths: tuple[int, ...], kappa: float,
                   scale: float, perturbation: float) -> list[np.ndarray]:
    """A head W_1..W_L2 (W_j of shape widths[j] x widths[j-1], widths[-1] = K) that is exactly balanced,
    W_j = U_j diag(sigma) U_{j-1}^T with orthonormal columns U_j (docs/derivations/collapse.md#nc1-bound), plus Gaussian
    perturbations of operator size about `perturbation` x scale; in float64, or in mpmath at the caller's
    precision (the same draws)."""
    classes = widths[-1]
    exponents = np.arange(classes) / (classes - 1)
    singular = scale * kappa ** -exponents if backend is Float64 else \
        np.array([mpmath.mpf(scale) * mpmath.mpf(kappa) ** -mpmath.mpf(e) for e in exponents], dtype=object)
    frames = [backend.orthonormal(rng.standard_normal((width, classes))) for width in widths]
    chain = []
    for j in range(1, len(widths)):
        exact = frames[j] * singular @ frames[j - 1].T
        noise = rng.standard_normal(exact.shape)
        chain.append(exact + perturbation * scale * noise / np.linalg.norm(noise, 2))
    return chain
