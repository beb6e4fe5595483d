"""One gradient step on the first layer of a two-layer network, in Ba et al.'s normalization.

Setting (Ba, Erdogdu, Suzuki, Wang, Wu, Yang 2022, eq. 2.1; docs/derivations/onestep.md#setting-and-normalization):
    x ~ N(0, I_d) (or a Gaussian mixture, `GaussianMixture`), X in R^{n x d} with rows x_i;
    y_i = sigma_*(<x_i, beta_*>) + noise * eps_i, ||beta_*|| = 1;
    f(x) = a^T sigma(W^T x) / sqrt(N), sqrt(d) W_0 and sqrt(N) a with iid N(0, 1) entries;
    G_0 = (1/n) X^T [ ((1/sqrt(N)) (y - sigma(X W_0) a / sqrt(N)) a^T) (.) sigma'(X W_0) ]   (d x N);
    W_1 = W_0 + eta sqrt(N) G_0;
    the spike A = (mu1 / (n sqrt(N))) X^T y a^T = (mu1 / sqrt(N)) zeta a^T, zeta = X^T y / n.

Other papers' conventions (docs/derivations/equivalence.md#ridge-stage): Cui et al.'s eta~ equals eta_Ba / sqrt(N);
Demir and
Dogan's eta_D equals eta_Ba sqrt(k) and their G is G_0 transposed; Moniri's lr exponent alpha is
eta_Ba = n^alpha.

Everything is matrix work: two matmuls of n x d x N (X W_0 and X^T M), elementwise activation passes
done in row blocks and in place, no loop over samples. Operator norms use ARPACK (`svds(k=1)`), never
a full SVD. float64 by default; float32 on request (`dtype`), which halves memory and roughly doubles
matmul speed; the spec asks float64 for its reference checks.

The draws are numpy's; on another backend (`checkers.arrays`) they are moved there and the step, the operator
norm and the top singular vector run on that library through the array API standard.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse.linalg

from checkers.arrays import activation_values, namespace_of, to_backend, to_numpy
from theorems.activations import Activation

ROW_BLOCK = 512
NORMAL_CHUNK_ROWS = 512
_WORKERS = max(1, min(8, os.cpu_count() or 1))


def _parallel(function, items) -> list:
    """Map over independent blocks on a few threads (numpy releases the GIL in ufuncs and RNG fills).
    The blocks are fixed by the sizes, not by the thread count, so results do not depend on it."""
    items = list(items)
    if _WORKERS == 1 or len(items) == 1:
        return [function(item) for item in items]
    with ThreadPoolExecutor(_WORKERS) as pool:
        return list(pool.map(function, items))


def standard_normal(rng: np.random.Generator, shape: tuple[int, int], dtype=np.float64) -> np.ndarray:
    """An (rows, columns) array of N(0, 1) entries, filled in row chunks by generators spawned from `rng`
    (a fixed number per shape, so the numbers are the same with any number of threads). They are drawn in float64
    whatever the dtype, so a float32 array holds the float64 draws rounded: the same sample as a float64 run."""
    out = np.empty(shape, dtype=dtype)
    starts = range(0, shape[0], NORMAL_CHUNK_ROWS)
    generators = rng.spawn(len(starts))

    def fill(index_start):
        index, start = index_start
        block = out[start:start + NORMAL_CHUNK_ROWS]
        if block.dtype == np.float64:
            generators[index].standard_normal(out=block)
        else:
            block[...] = generators[index].standard_normal(block.shape)

    _parallel(fill, enumerate(starts))
    return out


@dataclass(frozen=True)
class GaussianMixture:
    """Demir and Dogan's data model (docs/derivations/onestep.md#mixture-spike): component c has weight `weights[c]`,
    mean `means[c]` (d-vector, or None for 0) and covariance I + Gamma_c diag(theta_c) Gamma_c^T,
    Gamma_c (d x r) orthonormal. Sampling: x = mean + A (I + Gamma_c diag(sqrt(theta_c + 1) - 1) Gamma_c^T)."""

    weights: tuple[float, ...]
    spikes: tuple[np.ndarray, ...]        # Gamma_c, each d x r_c with orthonormal columns
    strengths: tuple[np.ndarray, ...]     # theta_c, each of length r_c
    means: tuple[np.ndarray | None, ...] | None = None

    def sample(self, n: int, d: int, rng: np.random.Generator, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
        """n samples and their component labels, batched per component (no loop over samples)."""
        components = rng.choice(len(self.weights), size=n, p=np.asarray(self.weights) / np.sum(self.weights))
        x = rng.standard_normal((n, d)).astype(dtype, copy=False)
        for c, (gamma, theta) in enumerate(zip(self.spikes, self.strengths)):
            rows = components == c
            stretch = np.sqrt(np.asarray(theta) + 1.0) - 1.0
            x[rows] += ((x[rows] @ gamma) * stretch) @ gamma.T
            if self.means is not None and self.means[c] is not None:
                x[rows] += self.means[c]
        return x, components

    def trace(self, component: int, d: int) -> float:
        """Tr Sigma_c = d + sum(theta_c)."""
        return d + float(np.sum(self.strengths[component]))


@dataclass(frozen=True)
class OneStepSetting:
    """Sizes, activations and step of one simulated gradient step (Ba's normalization)."""

    samples: int            # n
    dimension: int          # d
    width: int              # N
    activation: Activation  # sigma
    teacher: Activation     # sigma_*
    noise: float = 0.0      # standard deviation of the label noise
    learning_rate: float = 1.0
    dtype: type = np.float64
    mixture: GaussianMixture | None = None
    init_scale: float | None = None  # standard deviation of W_0 entries; default 1/sqrt(d)


@dataclass
class OneStep:
    """The draws and the step. Large arrays are kept only when asked for (`keep`)."""

    setting: OneStepSetting
    teacher_direction: np.ndarray   # beta_* (d)
    labels: np.ndarray              # y (n)
    second_layer: np.ndarray        # a (N)
    zeta: np.ndarray                # X^T y / n (d)
    gradient: np.ndarray | None     # G_0 (d x N)
    initial_weights: np.ndarray | None  # W_0 (d x N)
    inputs: np.ndarray | None       # X (n x d)

    def updated_weights(self) -> np.ndarray:
        """W_1 = W_0 + eta sqrt(N) G_0."""
        step = self.setting.learning_rate * math.sqrt(self.setting.width)
        return self.initial_weights + step * self.gradient


def draw_data(setting: OneStepSetting, rng: np.random.Generator, beta: np.ndarray | None = None):
    """(X, y, beta_*): inputs, labels and the unit teacher direction (drawn, unless given: fresh data for
    the same teacher)."""
    n, d, dtype = setting.samples, setting.dimension, setting.dtype
    if beta is None:
        beta = rng.standard_normal(d)
        beta /= np.linalg.norm(beta)
    if setting.mixture is None:
        x = standard_normal(rng, (n, d), dtype)
    else:
        x, _ = setting.mixture.sample(n, d, rng, dtype)
    projection = x @ beta.astype(dtype)
    y = setting.teacher(projection).astype(dtype) + dtype(setting.noise) * rng.standard_normal(n).astype(dtype)
    return x, y, beta.astype(dtype)


def one_step(setting: OneStepSetting, rng: np.random.Generator, *, keep: bool = True,
             with_gradient: bool = True) -> OneStep:
    """Draw the data and the network and take the step. With `with_gradient=False` only X^T y and a
    are formed (what the spike A needs), at O(n d) cost instead of O(n d N)."""
    n, d, width, dtype = setting.samples, setting.dimension, setting.width, setting.dtype
    x, y, beta = draw_data(setting, rng)
    a = (rng.standard_normal(width) / math.sqrt(width)).astype(dtype)
    x, y, beta, a = (to_backend(array) for array in (x, y, beta, a))
    zeta = (x.T @ y) / n
    if not with_gradient:
        return OneStep(setting, beta, y, a, zeta, None, None, x if keep else None)
    scale = setting.init_scale if setting.init_scale is not None else 1.0 / math.sqrt(d)
    w0 = standard_normal(rng, (d, width), dtype)
    w0 *= dtype(scale)
    w0 = to_backend(w0)
    gradient = first_layer_gradient(x, y, w0, a, setting.activation)
    return OneStep(setting, beta, y, a, zeta, gradient, w0 if keep else None, x if keep else None)


def first_layer_gradient(x: np.ndarray, y: np.ndarray, w0: np.ndarray, a: np.ndarray,
                         sigma: Activation) -> np.ndarray:
    """G_0 of Ba's eq. (2.1) for the square loss (1/n) sum (f(x_i) - y_i)^2 / 2, in two matmuls.

    One pass over row blocks of the n x N preactivations H = X W_0 turns each block, in place, into
    (1/sqrt(N)) (y_i - f_0(x_i)) sigma'(H_ij): a block holds every neuron of its rows, so f_0 of those
    rows is complete. The factor a_j multiplies the columns of the d x N product afterwards. Memory: X,
    W_0, H and G_0, plus one block of temporaries per thread. On another backend: the same products, the
    activation's pass on the whole of H.
    """
    n, width = x.shape[0], w0.shape[1]
    if not isinstance(x, np.ndarray):
        xp, root = namespace_of(x, w0), math.sqrt(width)
        value, derivative = activation_values(sigma, x @ w0)
        residual = (y - value @ (a / root)) / root
        return (x.T @ (derivative * xp.expand_dims(residual, axis=1))) * xp.expand_dims(a / n, axis=0)
    dtype = x.dtype.type
    root_width = dtype(math.sqrt(width))
    signal = x @ w0                                          # H, n x N
    scaled_a = a / root_width

    scratch = threading.local()

    def backpropagate(start):
        block = signal[start:start + ROW_BLOCK]
        buffer = getattr(scratch, "buffer", None)
        if buffer is None or buffer.shape[1] != width or buffer.dtype != signal.dtype:
            buffer = scratch.buffer = np.empty((ROW_BLOCK, width), dtype=signal.dtype)
        value, derivative = sigma.value_and_derivative(block, buffer[:block.shape[0]])
        residual = (y[start:start + ROW_BLOCK] - value @ scaled_a) / root_width
        np.multiply(derivative, residual[:, None], out=block)

    _parallel(backpropagate, range(0, n, ROW_BLOCK))
    gradient = x.T @ signal
    gradient *= (a / dtype(n))[None, :]                      # the a_j factor, applied on d x N, not n x N
    return gradient


def _on_host(matrix):
    """A backend matrix as a LinearOperator whose products run on its library: ARPACK moves only vectors."""
    if isinstance(matrix, (np.ndarray, scipy.sparse.linalg.LinearOperator)):
        return matrix
    dtype = to_numpy(matrix[:1, :1]).dtype

    def times(operand):
        return lambda vector: to_numpy(operand @ to_backend(np.asarray(vector, dtype=dtype).reshape(-1), like=matrix))
    return scipy.sparse.linalg.LinearOperator(matrix.shape, matvec=times(matrix), rmatvec=times(matrix.T),
                                              dtype=dtype)


def operator_norm(matrix) -> float:
    """Largest singular value by ARPACK (Lanczos), for a dense array (numpy or another backend's) or a
    LinearOperator."""
    shape = matrix.shape
    if min(shape) <= 2:
        return float(np.linalg.norm(to_numpy(matrix), 2))
    value = scipy.sparse.linalg.svds(_on_host(matrix), k=1, return_singular_vectors=False, random_state=0, tol=1e-10)
    return float(value[0])


def top_left_singular_vector(matrix) -> np.ndarray:
    """The top left singular vector (a numpy array, whatever the backend of `matrix`)."""
    u, _, _ = scipy.sparse.linalg.svds(_on_host(matrix), k=1, random_state=0, tol=1e-10)
    return u[:, 0]


def spike_direction_overlap(vector: np.ndarray, direction: np.ndarray) -> float:
    """cos^2 of the angle between two vectors."""
    vector, direction = to_numpy(vector), to_numpy(direction)
    return float(np.dot(vector, direction) ** 2 / (np.dot(vector, vector) * np.dot(direction, direction)))
