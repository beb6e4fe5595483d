"""Gradient flow (and descent) of a two-layer ReLU network from a small balanced initialization.

Model and conventions in `theorems.alignment.common` (Min, Mallada and Vidal's; the loss is a sum over samples).
Three integrators:
- `polar_flow`: for balanced initialization v_j = s_j ||w_j|| (docs/derivations/alignment.md#polar-form, exact under
  balancedness, which gradient flow conserves). The state is u_j = w_j/||w_j|| and r_j = log ||w_j||:
      f_i = sum_j s_j e^(2 r_j) relu(u_j . x_i),  g_i = -ell'(y_i, f_i),  G_j = sum_i g_i 1{u_j . x_i > 0} x_i,
      dr_j/dt = s_j u_j . G_j,  du_j/dt = s_j (G_j - (u_j . G_j) u_j).
  epsilon enters only through r_j(0), so log epsilon = -2000 is as easy as -10. Once e^(2r) underflows,
  it integrates the epsilon -> 0 limit flow, eq. (4), exactly.
- `cartesian_flow`: the flow in (W, v) for any activation. DOP853, rtol given, atol scaled with epsilon
  (docs/derivations/alignment.md#polar-form pitfall: an absolute tolerance near 0 stalls on coordinates crossing zero).
- `gradient_descent`: plain GD, with time k eta after k steps.
All are matrix work over samples and neurons; the only Python loop is over solver or GD steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.integrate

from theorems.alignment.common import loss_values, negative_loss_derivative


@dataclass(frozen=True)
class Trajectory:
    """A solution on a time grid: weights (T, h, D) and output weights (T, h)."""

    times: np.ndarray
    weights: np.ndarray
    output_weights: np.ndarray
    log_norms: np.ndarray | None = None  # polar form: r_j(t) = log ||w_j(t)|| (exact even when e^r underflows)
    directions: np.ndarray | None = None  # polar form: w_j/||w_j||

    def outputs(self, x, activation=None) -> np.ndarray:
        """f(x_i) at every time (T, n)."""
        pre = self.weights @ x.T
        features = np.maximum(pre, 0.0) if activation is None else activation(pre)
        return np.einsum("thn,th->tn", features, self.output_weights)

    def losses(self, x, y, loss: str, activation=None) -> np.ndarray:
        """Per-sample losses (T, n)."""
        return loss_values(loss, y[None, :], self.outputs(x, activation))

    def unit_directions(self) -> np.ndarray:
        if self.directions is not None:
            return self.directions
        return self.weights / np.linalg.norm(self.weights, axis=-1, keepdims=True)


def geometric_times(start: float, end: float, points: int) -> np.ndarray:
    """0 followed by `points` times spaced geometrically from `start` to `end`."""
    return np.concatenate([[0.0], np.geomspace(start, end, points)])


def balanced_start(directions: np.ndarray, signs: np.ndarray, log_epsilon: float):
    """(u, r, s): unit directions, log-norms log epsilon + log ||W0_j||, and the signs s_j of v_j(0)."""
    norms = np.linalg.norm(directions, axis=1)
    return directions / norms[:, None], log_epsilon + np.log(norms), np.asarray(signs, dtype=float)


def polar_flow(x, y, directions, log_norms, signs, loss: str, times, *, rtol: float = 1e-10,
               atol: float = 1e-12) -> Trajectory:
    """Integrate the polar form on `times` (DOP853)."""
    h, dimension = directions.shape

    def right_hand_side(_, state):
        u = state[: h * dimension].reshape(h, dimension)
        u = u / np.linalg.norm(u, axis=1)[:, None]
        r = state[h * dimension:]
        pre = x @ u.T  # (n, h)
        f = np.maximum(pre, 0.0) @ (signs * np.exp(2 * r))
        g = negative_loss_derivative(loss, y, f)
        drive = (pre > 0).T @ (g[:, None] * x)  # G_j, (h, D)
        along = np.sum(u * drive, axis=1)
        du = signs[:, None] * (drive - along[:, None] * u)
        return np.concatenate([du.ravel(), signs * along])

    solution = _integrate(right_hand_side, np.concatenate([directions.ravel(), log_norms]), times, rtol, atol, "polar")
    u = solution.y[: h * dimension].T.reshape(len(times), h, dimension)
    u = u / np.linalg.norm(u, axis=2, keepdims=True)
    r = solution.y[h * dimension:].T
    norms = np.exp(r)
    return Trajectory(solution.t, u * norms[..., None], signs[None, :] * norms, r, u)


def cartesian_flow(x, y, weights, output_weights, loss: str, times, *, activation=None, rtol: float = 1e-10,
                   atol: float | None = None) -> Trajectory:
    """Integrate dW/dt = -dL/dW, dv/dt = -dL/dv on `times` (DOP853); activation None is ReLU with the
    strict mask. atol defaults to 1e-12 times the initial weight scale."""
    h, dimension = weights.shape
    if atol is None:
        atol = 1e-12 * float(np.max(np.abs(weights)))

    def right_hand_side(_, state):
        gradient_w, gradient_v = loss_gradients(x, y, state[: h * dimension].reshape(h, dimension),
                                                state[h * dimension:], loss, activation)
        return -np.concatenate([gradient_w.ravel(), gradient_v])

    solution = _integrate(right_hand_side, np.concatenate([weights.ravel(), output_weights]), times, rtol, atol,
                          "Cartesian")
    w = solution.y[: h * dimension].T.reshape(len(times), h, dimension)
    return Trajectory(solution.t, w, solution.y[h * dimension:].T)


def _integrate(right_hand_side, state, times, rtol: float, atol: float, form: str):
    """DOP853 from times[0] to times[-1], evaluated on `times`; a failed solve raises FloatingPointError."""
    solution = scipy.integrate.solve_ivp(right_hand_side, (times[0], times[-1]), state, method="DOP853",
                                         t_eval=times, rtol=rtol, atol=atol)
    if solution.status != 0:
        raise FloatingPointError(f"{form} integration failed: {solution.message}")
    return solution


def loss_gradients(x, y, weights, output_weights, loss: str, activation=None):
    """(dL/dW, dL/dv) at one point, for any activation (None: ReLU with the strict mask)."""
    pre = x @ weights.T
    if activation is None:
        features, slopes = np.maximum(pre, 0.0), (pre > 0).astype(float)
    else:
        features, slopes = activation(pre), activation.first_derivative(pre)
    g = negative_loss_derivative(loss, y, features @ output_weights)
    return -output_weights[:, None] * ((slopes * g[:, None]).T @ x), -(features.T @ g)


def gradient_descent(x, y, weights, output_weights, loss: str, step_size: float, steps: int, *,
                     record_every: int = 1, activation=None) -> Trajectory:
    """Plain GD; the recorded times are k step_size."""
    w, v = weights.copy(), output_weights.copy()
    recorded_w, recorded_v, recorded_t = [w.copy()], [v.copy()], [0.0]
    for step in range(1, steps + 1):
        gradient_w, gradient_v = loss_gradients(x, y, w, v, loss, activation)
        w -= step_size * gradient_w
        v -= step_size * gradient_v
        if step % record_every == 0:
            recorded_w.append(w.copy())
            recorded_v.append(v.copy())
            recorded_t.append(step * step_size)
    return Trajectory(np.array(recorded_t), np.array(recorded_w), np.array(recorded_v))


def stable_rank(weights: np.ndarray) -> np.ndarray:
    """||W||_F^2 / ||W||_2^2 at each time (weights (T, h, D))."""
    singular = np.linalg.svd(weights, compute_uv=False)
    return np.sum(singular**2, axis=-1) / singular[..., 0] ** 2
