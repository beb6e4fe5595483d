"""Shared mathematics of the early-alignment family (Min, Mallada and Vidal, ICLR 2024;
docs/derivations/alignment.md#setting, 4, 5).

Conventions (spec "Conventions used throughout", [P]):
- The model is f(x) = sum_j v_j relu(w_j^T x), and the loss is a *sum* over samples.
- relu'(0) = 0 (the strict mask w^T x > 0).
- w^ = w/||w||, and P_w = I - w^ w^^T.
- X_max = max_i ||x_i|| and X_min = min_i ||x_i||.
- Data are rows x_i of X (n x D) with labels y_i = +-1; the signed data are z_i = y_i x_i.
- Neurons are rows w_j of W (h x D).
- Class directions are the unnormalized sums x+ = sum_{y_i > 0} x_i and x- = sum_{y_i < 0} x_i.

Losses, by their negative derivative g(y, f) = -d loss / d f:
- "exponential": exp(-y f), so g = y exp(-y f);
- "logistic": the paper's appendix form 2 log(1 + exp(-y f)), so g(y, 0) = y;
- "plain-logistic": log(1 + exp(-y f)), so every early-phase time doubles;
- "square": (y - f)^2 / 2.

The data layouts are deterministic functions of their parameters, so that assumptions such as mu > 0 are decided here,
before any simulation. Normals come from a Kronecker low-discrepancy sequence through the inverse normal
CDF, not from a random generator.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

from theorems.errors import InvalidInput
from theorems.statement import Assumption

LOSSES = ("exponential", "logistic", "plain-logistic", "square")
GOLDEN = (1 + math.sqrt(5)) / 2


def loss_values(loss: str, y, f):
    """The per-sample loss ell(y, f) (numpy)."""
    if loss == "exponential":
        return np.exp(-y * f)
    if loss == "logistic":
        return 2 * np.logaddexp(0.0, -y * f)
    if loss == "plain-logistic":
        return np.logaddexp(0.0, -y * f)
    if loss == "square":
        return 0.5 * (y - f) ** 2
    raise ValueError(f"unknown loss {loss!r}; known: {', '.join(LOSSES)}")


def negative_loss_derivative(loss: str, y, f):
    """g(y, f) = -d ell(y, f)/d f (numpy)."""
    if loss == "exponential":
        return y * np.exp(-y * f)
    if loss == "logistic":
        return 2 * y * scipy.special.expit(-y * f)
    if loss == "plain-logistic":
        return y * scipy.special.expit(-y * f)
    if loss == "square":
        return y - f
    raise ValueError(f"unknown loss {loss!r}; known: {', '.join(LOSSES)}")


def _quasi_normals(rows: int, columns: int, offset: float) -> np.ndarray:
    """A deterministic (rows x columns) array of N(0, 1)-like numbers: inverse normal CDF of a Kronecker
    sequence frac(i sqrt(p_k) + offset) with p_k the primes."""
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101,
              103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173]
    if columns > len(primes):
        raise ValueError(f"at most {len(primes)} columns")
    steps = np.sqrt(np.array(primes[:columns], dtype=float))
    fractions = np.mod(np.outer(np.arange(1, rows + 1), steps) + offset, 1.0)
    return scipy.special.ndtri(np.clip(fractions, 1e-12, 1 - 1e-12))


def reference_data(per_class: int, dimension: int, configuration: int = 0):
    """(X, y) as in docs/derivations/alignment.md#polar-form: class means e_1 and (cos 120 deg, sin 120 deg, 0, ...),
    noise 0.25/sqrt(D) around
    them, norms rescaled by a factor spread over [0.5, 1.5]; labels +1 for the first per_class rows."""
    if dimension < 2:
        raise ValueError("the reference data need D >= 2")
    means = np.zeros((2, dimension))
    means[0, 0] = 1.0
    means[1, :2] = [math.cos(2 * math.pi / 3), math.sin(2 * math.pi / 3)]
    count = 2 * per_class
    noise = _quasi_normals(count, dimension, GOLDEN * (configuration + 1)) * 0.25 / math.sqrt(dimension)
    x = np.repeat(means, per_class, axis=0) + noise
    x /= np.linalg.norm(x, axis=1)[:, None]
    x *= (0.5 + np.mod(np.arange(1, count + 1) * (GOLDEN - 1) + 0.37 * configuration, 1.0))[:, None]
    y = np.concatenate([np.ones(per_class), -np.ones(per_class)])
    return x, y


def two_point_data(delta: float):
    """The mu-ablation family (the paper's App. A.2): positive points [1, 0] and [sin delta, cos delta],
    so mu = sin delta."""
    return np.array([[1.0, 0.0], [math.sin(delta), math.cos(delta)]]), np.ones(2)


def orthogonal_data(per_class: int, dimension: int):
    """2 per_class orthogonal points (multiples of the standard basis, norms 1 to 2), half of each label:
    the setting of Boursier, Pillaud-Vivien and Flammarion (2022)."""
    count = 2 * per_class
    if dimension < count:
        raise InvalidInput(f"orthogonal data need D >= n = {count}")
    x = np.eye(dimension)[:count] * (1 + np.arange(count) / count)[:, None]
    y = np.where(np.arange(count) % 2 == 0, 1.0, -1.0)
    return x, y


def symmetric_data(per_class: int, dimension: int, configuration: int = 0):
    """Symmetric data (the setting of Lyu, Li, Wang and Arora 2021; docs/derivations/alignment.md#setting, P14): the
    positive points
    spread around e_1 (noise 0.25/sqrt(D), quasi-random), the negative points their mirror images x -> -x."""
    noise = _quasi_normals(per_class, dimension, GOLDEN * (configuration + 3)) * 0.25 / math.sqrt(dimension)
    positive = np.eye(dimension)[0] + noise
    return np.vstack([positive, -positive]), np.concatenate([np.ones(per_class), -np.ones(per_class)])


# --- geometry --------------------------------------------------------------------------------

def signed_data(x, y):
    return x * y[:, None]


def orthogonal_separability(x, y) -> float:
    """mu = min_{i,j} <z_i, z_j> / (||z_i|| ||z_j||) over the signed data (Assumption 1: mu > 0)."""
    z = signed_data(x, y)
    z = z / np.linalg.norm(z, axis=1)[:, None]
    return float(np.min(z @ z.T))


def class_directions(x, y):
    """(x+, x-): the unnormalized class sums."""
    return x[y > 0].sum(axis=0), x[y < 0].sum(axis=0)


def activation_pattern(weights, x):
    """1{<x_i, w_j> > 0} as a boolean array (..., h, n) for weights (..., h, D)."""
    return weights @ x.T > 0


def regions(weights, x, y):
    """Per neuron: "S+" (activated by exactly the positive data), "S-", "dead" (by none), or "other"."""
    pattern = activation_pattern(weights, x)
    positive = y > 0
    labels = np.full(pattern.shape, "other", dtype=object)
    labels[np.all(pattern == positive, axis=-1)] = "S+"
    labels[np.all(pattern == ~positive, axis=-1)] = "S-"
    labels[~np.any(pattern, axis=-1)] = "dead"
    return labels.reshape(pattern.shape[:-1]) if pattern.ndim > 1 else labels


def region_codes(weights, x, y) -> np.ndarray:
    """Integer version of `regions`: 1 for S+, -1 for S-, 0 for dead, 2 for other (..., h)."""
    pattern = activation_pattern(weights, x)
    positive = y > 0
    codes = np.full(pattern.shape[:-1], 2, dtype=np.int8)
    codes[np.all(pattern == positive, axis=-1)] = 1
    codes[np.all(pattern == ~positive, axis=-1)] = -1
    codes[~np.any(pattern, axis=-1)] = 0
    return codes


def signed_activated_sum(w, x, y):
    """(x_a(w), n_a(w)) of eq. (5): sum of y_i x_i over the points w activates, and their number."""
    active = x @ w > 0
    return signed_data(x, y)[active].sum(axis=0), int(active.sum())


def zeta1(x, y) -> float:
    """zeta_1 = min(min_i cos^2(x+, x_i), min_i cos^2(x-, x_i)) [D]: the largest value for which the caps
    {cos(z, x+-) >= sqrt(1 - zeta_1)} lie inside S+- (Lemma 8)."""
    values = []
    for direction in class_directions(x, y):
        cosines = x @ direction / (np.linalg.norm(x, axis=1) * np.linalg.norm(direction))
        values.append(np.min(cosines**2))
    return float(min(values))


def alignment_time_bound(x, y, zeta: float, xi: float) -> float:
    """Theorem 1's t1 = 16 log n / (min{zeta, xi} sqrt(mu) X_min)."""
    mu = orthogonal_separability(x, y)
    return 16 * math.log(len(y)) / (min(zeta, xi) * math.sqrt(mu) * np.min(np.linalg.norm(x, axis=1)))


def final_rate(x, y) -> float:
    """alpha = (mu X_min)^2 / (32 X_max) of the O(1/t) loss bound after t2."""
    norms = np.linalg.norm(x, axis=1)
    return float((orthogonal_separability(x, y) * norms.min()) ** 2 / (32 * norms.max()))


def lemma3_window(x, epsilon_log: float, width: int, w_max: float) -> float:
    """T = log(1/(sqrt(h) eps)) / (4 n X_max) of Lemma 3 (eps given by its logarithm)."""
    return (-epsilon_log - 0.5 * math.log(width)) / (4 * len(x) * np.max(np.linalg.norm(x, axis=1)))


def initial_directions(width: int, dimension: int, configuration: int = 0):
    """(W0, s): deterministic unit-norm rows (the paper states its results for a deterministic W0) and the
    signs s_j of v_j(0), alternating +1, -1 (V+ and V-)."""
    directions = _quasi_normals(width, dimension, 0.5 + GOLDEN * (configuration + 7))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    return directions, np.where(np.arange(width) % 2 == 0, 1.0, -1.0)


def xi_constant(x, y) -> float:
    """xi of Lemma 9 [D]: 1 - sup |cos(x1, x2)|^2 over x1 in cone{y_i x_i}, x2 outside S+ u S-. The sup is
    approached across the hyperplanes x_i^perp bounding S+-, so xi = min over the cone of min_i cos^2(x1, x_i).
    cos(x1, x_i) is quasi-concave in the conic weights, so the minimum sits at a generator: xi = mu^2."""
    return orthogonal_separability(x, y) ** 2


def zeta2(directions, signs, x, y) -> float:
    """zeta_2 of Assumption 2: the largest value with max_{V+} cos(w_j(0), x-) and max_{V-} cos(w_j(0), x+)
    below sqrt(1 - zeta_2)."""
    positive, negative = class_directions(x, y)
    unit = directions / np.linalg.norm(directions, axis=1)[:, None]
    worst = max(np.max(unit[signs > 0] @ negative / np.linalg.norm(negative), initial=-1.0),
                np.max(unit[signs < 0] @ positive / np.linalg.norm(positive), initial=-1.0))
    return float(1 - max(worst, 0.0) ** 2)


def theorem1_constants(x, y, directions, signs) -> dict[str, float]:
    """mu, zeta = min{zeta_1, zeta_2} (the conservative reading of the paper's max), xi, the t1 bound, and the
    logarithm of the epsilon bound (28) for W(0) = eps W0 (W_max = max_j ||W0_j||)."""
    norms = np.linalg.norm(x, axis=1)
    n, width = len(y), len(directions)
    x_max, x_min = float(norms.max()), float(norms.min())
    w_max = float(np.max(np.linalg.norm(directions, axis=1)))
    mu = orthogonal_separability(x, y)
    zeta = min(zeta1(x, y), zeta2(directions, signs, x, y))
    xi = xi_constant(x, y)
    smallest = min(zeta, xi)
    t1 = 16 * math.log(n) / (smallest * math.sqrt(mu) * x_min)
    log_epsilon1 = math.log(min(mu, zeta, xi) * math.sqrt(mu) * x_min
                            / (4 * math.sqrt(width) * n * x_max**2 * w_max**2))
    log_epsilon2 = -0.5 * math.log(width) - 64 * n * x_max * math.log(n) / (smallest * math.sqrt(mu) * x_min)
    return {"mu": mu, "zeta": zeta, "xi": xi, "t1_bound": t1, "log_epsilon_bound": min(log_epsilon1, log_epsilon2),
            "alpha": (mu * x_min) ** 2 / (32 * x_max), "x_max": x_max, "x_min": x_min, "w_max": w_max}


# The smallest log epsilon of a check that works with epsilon itself, not its logarithm: its bounds are in
# epsilon^2, which must stay a normal float64 (e^-600 = 3e-261); below it they underflow to 0 and compare as NaN
LINEAR_EPSILON_LOWER = -300.0


def flow_parameters(*, per_class: str = "3", dimension: str = "3", width: str = "8",
                    log_epsilon: str | None = "-14", loss: str = "exponential", log_epsilon_lower: float = -1e6):
    """The parameters shared by the trajectory theorems: the reference data of docs/derivations/alignment.md#polar-form
    (deterministic, see
    `reference_data`), the deterministic W0 of `initial_directions`, W(0) = epsilon W0 given by log epsilon
    (left out with log_epsilon=None, for the theorems that sweep epsilon themselves), from `log_epsilon_lower`:
    -1e6 where the check works in log epsilon, LINEAR_EPSILON_LOWER where it works with epsilon itself."""
    from theorems.statement import Parameter
    return (
        Parameter(name="per_class", description="points per class (n = 2 per_class)", kind="integer",
                  default=per_class, lower=1, upper=20),
        Parameter(name="dimension", description="input dimension D", kind="integer", default=dimension, lower=2,
                  upper=16),
        Parameter(name="width", description="hidden neurons h (V+ and V- alternate)", kind="integer", default=width,
                  lower=2, upper=100),
        Parameter(name="configuration", description="which deterministic data layout and W0", kind="integer",
                  default="0", lower=0, upper=1000),
        *([Parameter(name="log_epsilon", description="log epsilon, the initialization scale W(0) = epsilon W0",
                     kind="real", default=log_epsilon,
                     lower=log_epsilon_lower, upper=2.0)] if log_epsilon is not None else []),
        Parameter(name="loss",
                  description="exponential, logistic (the paper's 2 log(1 + e^-yf)), plain-logistic or square",
                  kind="choice", default=loss, choices=LOSSES),
    )


def layout(kind: str, per_class: int, dimension: int, width: int, configuration: int):
    """(x, y, W0, s): "reference" or "orthogonal" data with the deterministic start of `initial_directions`."""
    if kind == "orthogonal":
        x, y = orthogonal_data(per_class, dimension)
    else:
        x, y = reference_data(per_class, dimension, configuration)
    directions, signs = initial_directions(width, dimension, configuration)
    return x, y, directions, signs


def instance_data(instance):
    """(x, y, W0, s) for an instance with the `flow_parameters`."""
    return layout("reference", instance["per_class"], instance["dimension"], instance["width"],
                  instance["configuration"])


def margin_loss(instance) -> str | None:
    """g(y, 0) = y: the exponential loss or the paper's 2 x logistic (the early-phase rates assume it)."""
    if instance["loss"] not in ("exponential", "logistic"):
        return f"loss {instance['loss']}: g(y, 0) = y holds for the exponential and the paper's 2 x logistic " \
               "loss only (the plain logistic halves the rate; the square loss is not a margin loss)"
    return None


def separable_data(instance) -> str | None:
    """Assumption 1: mu > 0."""
    x, y, _, _ = instance_data(instance)
    mu = orthogonal_separability(x, y)
    if mu > 0:
        return None
    return f"mu = {mu:.4g} <= 0: the data are not orthogonally separable (try another configuration)"


SEPARABLE = Assumption(name="separable", statement="mu > 0 (Assumption 1)", check=separable_data)
MARGIN_LOSS = Assumption(name="margin-loss", statement="g(y, 0) = y: the exponential or the paper's logistic loss",
                         check=margin_loss)
