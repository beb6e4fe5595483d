"""Gradient flow of the two-layer ReLU network from an unbalanced small start, in a polar form that reaches any
epsilon: directions u_j, log-norms r_j = log ||w_j|| and ratios q_j = v_j / ||w_j|| (docs/derivations/alignment.md
#unbalanced-start).

With G_j = sum_i g_i 1{u_j . x_i > 0} x_i as in `checkers.alignment.gradient_flow.polar_flow`, the flow
dw_j/dt = v_j G_j, dv_j/dt = w_j . G_j reads

    du_j/dt = q_j (G_j - (u_j . G_j) u_j),   dr_j/dt = q_j u_j . G_j,   dq_j/dt = (1 - q_j^2) u_j . G_j,
    f_i = sum_j q_j e^(2 r_j) relu(u_j . x_i),

and ||w_j||^2 (q_j^2 - 1) = v_j^2 - ||w_j||^2 is conserved. A balanced start (q_j = +-1) stays balanced, where this
is the balanced polar form; epsilon enters only through r_j(0), and v_j may change sign (q_j crosses 0), which a
log-norm of v_j could not follow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from checkers.alignment.gradient_flow import Trajectory, _integrate, balanced_start
from checkers.alignment.runs import absolute_tolerance, data, solve
from checkers.shared_draws import cached
from theorems.alignment.common import negative_loss_derivative

# the draw of the start's ratios is a fixed function of the configuration, so the family stays deterministic
RATIO_STREAM = 20240712


@dataclass(frozen=True)
class UnbalancedTrajectory(Trajectory):
    """A polar-form solution with the ratios q_j(t) = v_j/||w_j|| (T, h); `output_weights` is q_j e^(r_j)."""

    ratios: np.ndarray | None = None

    def signs(self) -> np.ndarray:
        """sign(v_j(t)) (T, h)."""
        return np.sign(self.ratios)


def gaussian_ratios(signs: np.ndarray, configuration: int) -> np.ndarray:
    """q_j(0) = s_j |z_j|, z_j ~ N(0, 1) drawn from the configuration: |v_j(0)| = |z_j| ||w_j(0)||, of order one and
    not 1, with the signs of the balanced start."""
    rng = np.random.default_rng([RATIO_STREAM, configuration])
    return np.asarray(signs, dtype=float) * np.abs(rng.standard_normal(len(signs)))


def unbalanced_polar_flow(x, y, directions, log_norms, ratios, loss: str, times, *, rtol: float = 1e-10,
                          atol: float = 1e-12, leak: float = 0.0) -> UnbalancedTrajectory:
    """Integrate the unbalanced polar form on `times` (DOP853) from unit `directions`, `log_norms` and `ratios`, for
    sigma(z) = max(z, leak z): relu(u . x) and 1{u . x > 0} above become sigma(u . x) and sigma'(u . x), and the form
    is unchanged, sigma being positively 1-homogeneous."""
    h, dimension = directions.shape

    def right_hand_side(_, state):
        u = state[: h * dimension].reshape(h, dimension)
        u = u / np.linalg.norm(u, axis=1)[:, None]
        r, q = state[h * dimension: h * dimension + h], state[h * dimension + h:]
        pre = x @ u.T
        active = pre > 0
        features = np.where(active, pre, leak * pre) if leak else np.maximum(pre, 0.0)
        f = features @ (q * np.exp(2 * r))
        g = negative_loss_derivative(loss, y, f)
        drive = (np.where(active, 1.0, leak) if leak else active).T @ (g[:, None] * x)
        along = np.sum(u * drive, axis=1)
        du = q[:, None] * (drive - along[:, None] * u)
        return np.concatenate([du.ravel(), q * along, (1 - q * q) * along])

    start = np.concatenate([directions.ravel(), log_norms, ratios])
    solution = _integrate(right_hand_side, start, times, rtol, atol, "unbalanced polar")
    u = solution.y[: h * dimension].T.reshape(len(times), h, dimension)
    u = u / np.linalg.norm(u, axis=2, keepdims=True)
    r, q = solution.y[h * dimension: h * dimension + h].T, solution.y[h * dimension + h:].T
    norms = np.exp(r)
    return UnbalancedTrajectory(solution.t, u * norms[..., None], q * norms, r, u, ratios=q)


@cached(maxsize=8)
def unbalanced_run(key: tuple, log_epsilon: float, loss: str, times: tuple, start: str = "balanced",
                   leak: float = 0.0):
    """The flow for the data of `key` (`checkers.alignment.runs.data`) from W(0) = epsilon W0, with ratios +-1 (a
    balanced `start`) or `gaussian_ratios` (start "gaussian"), at the tolerances of `checkers.alignment.runs.polar_run`
    (cached)."""
    x, y, directions, signs = data(key)
    u, r, s = balanced_start(directions, signs, log_epsilon)
    ratios = gaussian_ratios(signs, key[-1]) if start == "gaussian" else s
    return solve(unbalanced_polar_flow, x, y, u, r, ratios, loss, np.array(times), rtol=1e-11,
                 atol=absolute_tolerance(1e-11), leak=leak)
