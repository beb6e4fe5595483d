"""Neural collapse from balancedness: the explicit bounds of Theorems A-D as functions of measured quantities [derived].

Source: docs/derivations/collapse.md, explicit versions (derived for thmcheck, checked and tight) of the
claims of Jacot, Sukenik, Wang and Mondelli, "Wide neural networks trained with weight decay provably
exhibit neural collapse" (ICLR 2025), Theorem 3.1, whose own constants are not confirmed against the paper.

Setting and notation (docs/derivations/collapse.md#setting). K classes of n samples, N = nK, one-hot targets Y
(K x N, s_K(Y) = sqrt(n)). A linear head of L2 >= 2 layers ends the network: Z_{L-1} = W_{L-1} Z_{L-2},
Z_L = W_L Z_{L-1}, W_L in R^{K x m} of full row rank with singular values s_1 >= ... >= s_K.
Measured quantities (always computed from the matrices, never taken from how they were generated):

    eps1  = ||Z_L - Y||_F                                   (interpolation)
    eps2  = ||W_L^T W_L - W_{L-1} W_{L-1}^T||_op            (balancedness)
    omega = ||Z_{L-2} (I - Pi)||_F                          (within-class spread entering the head)
    NC1_J = ||Z_{L-1}(I - Pi)||_F^2 / ||Z_{L-1}(Pi - J)||_F^2

Every bound carries the named constant `bound_scale` (1 for the true statement) as a factor, so that
a user can test a sharper or a weaker claim with --set bound_scale=...

Scalars may be floats or mpmath numbers; the bounds are computed in mpmath at the working precision.
"""

from __future__ import annotations

import math

import mpmath

from theorems.statement import Constant, Parameter

BOUND_SCALE = Constant.exactly("bound_scale", 1, "the factor on each bound: exactly 1 for the true bound")


SHAPE_PARAMETERS = (
    Parameter(name="classes", description="number of classes K", kind="integer", default="3", lower=2, upper=8),
    Parameter(name="per_class", description="samples per class n (at least 2: with one sample per class there is no "
              "within-class variability, NC1 is identically 0 and the bounds say nothing)", kind="integer",
              default="2", lower=2, upper=6),
    Parameter(name="digits", description="mpmath precision of the tightness check", kind="integer", default="50",
              lower=20, upper=200),
)


def between_class_norm(per_class, classes):
    """||Y(Pi - J)||_F = sqrt(n (K - 1)) for one-hot targets with n samples in each of K classes."""
    return mpmath.sqrt(mpmath.mpf(per_class) * (classes - 1))


def nc1_bound(eps1, eps2, s_first, s_last, omega, per_class, classes):
    """Theorem A: NC1_J(Z_{L-1}) <= s_1^2 (eps1/s_K + sqrt(eps2) omega)^2 / (sqrt(n(K-1)) - eps1)^2,
    valid when eps1 < sqrt(n(K-1)); tight (ratio 1) at kappa(W_L) = 1, eps1 = 0 and a rank-one
    within-class spread along the imbalance outside the row space of W_L."""
    eps1, eps2, s_first, s_last, omega = map(mpmath.mpf, (eps1, eps2, s_first, s_last, omega))
    return s_first**2 * (eps1 / s_last + mpmath.sqrt(eps2) * omega) ** 2 \
        / (between_class_norm(per_class, classes) - eps1) ** 2


def nc1_bound_radius(eps1, eps2, radius, per_class, classes, input_width, samples):
    """Corollary A': the bound in terms of r >= ||Z_{L-2}||_op, ||Z_{L-1}||_op, ||W_L||_op, valid when
    eps1 < sqrt(n) = s_K(Y): r^2 [eps1 r/(sqrt(n) - eps1) + r sqrt(eps2 min(p, N - K))]^2 / (sqrt(n(K-1)) - eps1)^2,
    p the width of Z_{L-2}. Of order (eps1 + sqrt(eps2))^2, the shape the paper's Theorem 3.1 states."""
    eps1, eps2, radius = map(mpmath.mpf, (eps1, eps2, radius))
    spread = mpmath.sqrt(eps2 * min(input_width, samples - classes))
    return radius**2 * (eps1 * radius / (mpmath.sqrt(per_class) - eps1) + radius * spread) ** 2 \
        / (between_class_norm(per_class, classes) - eps1) ** 2


def pseudo_inverse_bound(eps2, input_frobenius_norm):
    """Section 3.3: ||Z_{L-1} - W_L^+ Z_L||_F <= sqrt(eps2) ||Z_{L-2}||_F (zero at exact balance)."""
    return mpmath.sqrt(mpmath.mpf(eps2)) * mpmath.mpf(input_frobenius_norm)


def head_product_gap(eps2, radius, depth):
    """Theorem B's delta = eps2 r^(2(L2 - 1)) L2 (L2 - 1)/2 >= ||A A^T - (W_L W_L^T)^L2||_op for a head of
    L2 layers, all with ||W_l||_op <= r, each consecutive pair eps2-balanced; A = W_L ... W_{L1+1}."""
    return mpmath.mpf(eps2) * mpmath.mpf(radius) ** (2 * (depth - 1)) * depth * (depth - 1) / 2


def head_condition_bound(s_first_product, s_last_product, delta, depth, root_exponent=None):
    """Theorem B: kappa(W_L) <= ((s_1(A)^2 + delta)/(s_K(A)^2 - delta))^(1/(2 L2)); infinite (vacuous)
    while delta >= s_K(A)^2. At delta = 0 this is the identity kappa(W_L) = kappa(A)^(1/L2)."""
    s_first_product, s_last_product, delta = map(mpmath.mpf, (s_first_product, s_last_product, delta))
    if delta >= s_last_product**2:
        return mpmath.inf
    exponent = mpmath.mpf(1) / (2 * depth) if root_exponent is None else root_exponent / 2
    return ((s_first_product**2 + delta) / (s_last_product**2 - delta)) ** exponent


def nc2_budgets(eps1, eps2, per_class, input_means_norm):
    """Theorem C's two budgets: f = eps1/sqrt(n) >= ||(Z_L - Y) B||_F, the output error of the class means, and
    c = sqrt(eps2) ||Z_{L-2} B||_op >= ||(I - P) W_{L-1} Z_{L-2} B||_op, the means' part outside W_L's row space."""
    eps1, eps2, input_means_norm = map(mpmath.mpf, (eps1, eps2, input_means_norm))
    return eps1 / mpmath.sqrt(per_class), mpmath.sqrt(eps2) * input_means_norm


def stretch_angle(output_budget):
    """The angle theta* = pi/4 + asin(f/sqrt 2) that maximizes (1 + f cos theta)/(1 - f sin theta): how the output
    budget f splits between raising one singular value of I + E and lowering another (a = f cos, b = f sin)."""
    return mpmath.pi / 4 + mpmath.asin(mpmath.mpf(output_budget) / mpmath.sqrt(2))


def _largest_stretch(x, y, f, c):
    """max over a^2 + b^2 = f^2, a, b >= 0, of sqrt(((1 + a) x)^2 + c^2) / ((1 - b) y): the largest ratio of a
    stretched singular value x (with the hidden budget c added in quadrature) to a shrunk one y."""
    x, y, f, c = map(mpmath.mpf, (x, y, f, c))
    if f >= 1:
        return mpmath.inf
    if f == 0:
        return mpmath.sqrt(x**2 + c**2) / y
    if c == 0:
        root = f * mpmath.sqrt(2 - f**2)  # at theta*: a = (root - f^2)/2, b = (root + f^2)/2
        return x / y * (2 + root - f**2) / (2 - root - f**2)

    def slope(theta):  # d/dtheta of the ratio's logarithm: f > 0 at 0, negative at pi/2, one root between
        a, b = f * mpmath.cos(theta), f * mpmath.sin(theta)
        return -(1 + a) * x**2 * b / (((1 + a) * x) ** 2 + c**2) + a / (1 - b)

    theta = mpmath.findroot(slope, (0, mpmath.pi / 2), solver="anderson")
    a, b = f * mpmath.cos(theta), f * mpmath.sin(theta)
    return mpmath.sqrt(((1 + a) * x) ** 2 + c**2) / ((1 - b) * y)


def nc2_bracket(s_first, s_last, output_budget, hidden_budget):
    """Theorem C, sharp: with (f, c) = `nc2_budgets`,

        1 / max sqrt(((1 + a)/s_1)^2 + c^2) / ((1 - b)/s_K) <= kappa(Zbar) <= max sqrt(((1 + a)/s_K)^2 + c^2) / ((1 -
        b)/s_1),

    maxima over a^2 + b^2 = f^2 (Mirsky); the upper side infinite when f >= 1. Both sides are kappa(W_L) at
    f = c = 0 and are attained at c = 0 (docs/derivations/collapse.md#nc2-bracket)."""
    s_first, s_last = map(mpmath.mpf, (s_first, s_last))
    upper = _largest_stretch(1 / s_last, 1 / s_first, output_budget, hidden_budget)
    lower = 1 / _largest_stretch(1 / s_first, 1 / s_last, output_budget, hidden_budget)
    return lower, upper


def kantorovich_floor(kappa):
    """Theorem D, exact case: cos(W_L^+ e_c, w_c) >= 2 kappa/(1 + kappa^2), kappa = kappa(W_L) (Kantorovich's
    inequality), with equality when e_c = (u_1 + u_K)/sqrt(2) for the extreme left singular vectors."""
    kappa = mpmath.mpf(kappa)
    return 2 * kappa / (1 + kappa**2)


def nc3_sample_bound(distance, row_norm, pinv_column_norm, s_last, eps2, input_norm):
    """Theorem D, per sample: with rho = ||z^L_ci - e_c|| < 1,
    cos(z_ci, w_c) >= (1 - rho)/(||w_c|| (||W_L^+ e_c|| + rho/s_K + sqrt(eps2) ||z^{L-2}_ci||))."""
    distance, row_norm, pinv_column_norm, s_last, eps2, input_norm = map(
        mpmath.mpf, (distance, row_norm, pinv_column_norm, s_last, eps2, input_norm))
    return (1 - distance) / (row_norm * (pinv_column_norm + distance / s_last + mpmath.sqrt(eps2) * input_norm))


def bracket_share(lower: float, centre: float, value: float, upper: float) -> float:
    """How much of a bracket lower <= value <= upper a value uses, measured from the bracket's centre (the value it
    pins at zero perturbation): (value - centre)/(upper - centre) above it, (centre - value)/(centre - lower) below.
    It is the ratio of the two sides of |value - centre| <= the bracket's extent on that side, so 1 is the
    bracket attained; a narrow bracket around a close value is not tight unless the value fills it."""
    if value >= centre:
        return (value - centre) / (upper - centre) if upper > centre else (0.0 if value == centre else math.inf)
    return (centre - value) / (centre - lower) if centre > lower else math.inf
