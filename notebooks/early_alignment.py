# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Early alignment from a small initialization
#
# This notebook follows Min, Mallada and Vidal (ICLR 2024), docs/derivations/alignment.md.
# - The network is f(x) = sum_j v_j relu(w_j^T x), trained by gradient flow on the exponential loss, summed over
#   samples, from a balanced start W(0) = epsilon W0, v_j(0) = +-||w_j(0)||.
# - First the neuron directions align: V+ neurons go to the cone S+ activated by exactly the positive
#   points, or they die. Then the norms grow, at rate ||x+-||, until the loss falls.
# - The flow is integrated in polar form (`checkers.alignment.gradient_flow.polar_flow`): directions and
#   log-norms. So epsilon can be as small as we like.
#
# The tests run this notebook at small sizes.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

from checkers.alignment.gradient_flow import balanced_start, polar_flow, stable_rank
from checkers.alignment.peak_alignment import peak_gap
from checkers.alignment.runs import empirical_alignment_time, half_time
from theorems.alignment.common import class_directions, initial_directions, lemma3_window, reference_data

SMALL = bool(os.environ.get("THMCHECK_SMALL"))

# %% [markdown]
# ## 1. Directions as rays on the circle (D = 2)
# Positive points are blue and negative points red. V+ neurons are solid lines and V- neurons dashed. The
# four panels show t = 0, the empirical alignment time t1, the escape time, and the end of the run.

# %%
x2, y2 = reference_data(4, 2)
directions2, signs2 = initial_directions(16, 2)
log_epsilon = -12.0
end = -log_epsilon / min(np.linalg.norm(v) for v in class_directions(x2, y2)) + 6
times2 = np.linspace(0, end, 3001)
run2 = polar_flow(x2, y2, *balanced_start(directions2, signs2, log_epsilon), "exponential", times2)
t1 = empirical_alignment_time(run2.times, run2.directions, signs2, x2, y2)
escape = half_time(run2.times, run2.losses(x2, y2, "exponential").sum(axis=1))
figure, axes = plt.subplots(1, 4, figsize=(14, 3.6))
for axis, moment, label in zip(axes, (0.0, t1, escape, end), ("t = 0", "t1", "loss halved", "end")):
    k = int(np.searchsorted(run2.times, moment))
    axis.scatter(*x2[y2 > 0].T, color="C0")
    axis.scatter(*x2[y2 < 0].T, color="C3")
    for u, s in zip(run2.directions[k], signs2):
        axis.plot([0, u[0]], [0, u[1]], "-" if s > 0 else "--", color="C0" if s > 0 else "C3", lw=1)
    axis.set_aspect("equal")
    axis.set_xlim(-1.6, 1.6)
    axis.set_ylim(-1.6, 1.6)
    axis.set_title(f"{label} (t = {run2.times[k]:.2f})")
plt.show()

# %% [markdown]
# ## 2. Alignment, then growth
# The data are the reference data of spec 5 (D = 8, h = 50, or smaller in the tests), with
# epsilon = e^-14. Two panels:
# - cos(w_j, x+) for the V+ neurons, on a log-time axis, with the empirical t1 and Lemma 3's window T marked;
# - the norms ||w_j|| on a log axis: flat during alignment, then growing at rate ||x+-||.

# %%
per_class, dimension, width = (3, 3, 8) if SMALL else (10, 8, 50)
x, y = reference_data(per_class, dimension)
directions, signs = initial_directions(width, dimension)
positive, negative = class_directions(x, y)
log_epsilon = -14.0
times = np.concatenate([[0.0], np.geomspace(1e-3, -log_epsilon / np.linalg.norm(positive) + 8, 3000)])
run = polar_flow(x, y, *balanced_start(directions, signs, log_epsilon), "exponential", times)
t1 = empirical_alignment_time(run.times, run.directions, signs, x, y)
window = lemma3_window(x, log_epsilon, width, 1.0)
cosines = run.directions[:, signs > 0] @ (positive / np.linalg.norm(positive))
figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
left.semilogx(run.times[1:], cosines[1:], color="C0", lw=0.7)
for moment, label in ((t1, "t1"), (window, "T (Lemma 3)")):
    left.axvline(moment, color="k", ls=":")
    left.text(moment, -0.95, label)
left.set_xlabel("t")
left.set_ylabel("cos(w_j, x+), V+ neurons")
right.semilogy(run.times, np.exp(run.log_norms), lw=0.7)
right.set_xlabel("t")
right.set_ylabel("||w_j||")
plt.show()
print(f"t1 = {t1:.4f}; T = {window:.4f}; ||x+|| = {np.linalg.norm(positive):.4f}")

# %% [markdown]
# ## 3. The epsilon sweep
# The empirical t1 is flat in epsilon. The time at which the positive class's loss halves has slope
# 1/||x+|| against log(1/epsilon); the dashed line has that slope.

# %%
log_epsilons = np.array([-10.0, -20.0, -40.0] if SMALL else [-10.0, -20.0, -40.0, -80.0, -160.0])
alignment_times, escape_times = [], []
for value in log_epsilons:
    grid = np.linspace(0, -value / np.linalg.norm(positive) + 6, 6001)
    sweep = polar_flow(x, y, *balanced_start(directions, signs, value), "exponential", grid)
    alignment_times.append(empirical_alignment_time(sweep.times, sweep.directions, signs, x, y))
    escape_times.append(half_time(sweep.times, sweep.losses(x, y, "exponential")[:, y > 0].sum(axis=1)))
figure, axis = plt.subplots(figsize=(7, 4))
axis.plot(-log_epsilons, alignment_times, "o-", label="empirical t1")
axis.plot(-log_epsilons, escape_times, "s", label="t_half+ (loss of the positive class halved)")
axis.plot(-log_epsilons, escape_times[0] + (-log_epsilons + log_epsilons[0]) / np.linalg.norm(positive), "--",
          label="slope 1/||x+||")
axis.set_xlabel("log(1/epsilon)")
axis.set_ylabel("time")
axis.legend()
plt.show()

# %% [markdown]
# ## 4. Peak alignment: 1 - max_t min_j cos(w_j, x+) falls like epsilon^(4/3)

# %%
key = ("reference", 3, 3, 8, 0)
peak_logs = np.array([-7.0, -9.0, -11.0] if SMALL else [-7.0, -9.0, -11.0, -13.0])
gaps = [peak_gap(key, value, "exponential", 1000 if SMALL else 2000)[0] for value in peak_logs]
figure, axis = plt.subplots(figsize=(6, 4))
axis.semilogy(peak_logs, gaps, "o", label="1 - peak cos")
axis.semilogy(peak_logs, gaps[-1] * np.exp(4 / 3 * (peak_logs - peak_logs[-1])), "--", label="slope 4/3")
axis.set_xlabel("log epsilon")
axis.legend()
plt.show()

# %% [markdown]
# ## 5. Stable rank ||W||_F^2 / ||W||_2^2 along the run
# Theorem 1 bounds it by 2 + O(epsilon) after t1. The S+ and S- neurons form two groups, so it settles
# between 1 and 2.

# %%
figure, axis = plt.subplots(figsize=(7, 3.5))
scaled = run.directions * np.exp(run.log_norms - run.log_norms.max(axis=1, keepdims=True))[..., None]
axis.semilogx(run.times[1:], stable_rank(scaled)[1:])
axis.axhline(2, color="k", ls=":")
axis.axvline(t1, color="k", ls=":")
axis.set_xlabel("t")
axis.set_ylabel("stable rank")
plt.show()
