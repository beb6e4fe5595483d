# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Balancedness implies neural collapse
#
# Jacot, Sukenik, Wang and Mondelli (ICLR 2025) show that a network whose last layers are linear,
# trained by gradient descent with weight decay, first interpolates (on the 1/eta timescale), then
# balances its linear head (on the 1/(eta lambda) timescale), and that interpolation plus balancedness
# force neural collapse of the penultimate features. This notebook runs the protocol of
# docs/derivations/collapse.md#collapse-training and sets every curve against the explicit, derived bounds encoded in
# thmcheck:
# the exact law D_{k+1} = (1 - eta lambda)^2 D_k + eta^2 S_k (`balancedness-recurrence`),
# Theorem A (`nc1-bound`), Theorem C (`nc2-bracket`), Theorem D (`nc3-bound`) and Theorem B
# (`head-conditioning`). The tests run it with a short run (THMCHECK_SMALL).

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

from checkers.collapse import metrics
from checkers.collapse.training import Network, gaussian_classes, imbalances, train
from theorems.collapse.bounds import kantorovich_floor, nc1_bound, nc2_bracket, nc2_perturbation

SMALL = bool(os.environ.get("THMCHECK_SMALL"))
eta, lam = 5e-4, 0.2 if SMALL else 0.05
steps = int(3 / (eta * lam))
heads = {2: (8, 4), 3: (16, 8, 4), 5: (16, 12, 8, 6, 4)}

# %% [markdown]
# ## 1. The run
# K = 4 Gaussian classes of 10 points in d = 8; widths (64, 32 | 16, 8, 4): two smooth leaky-ReLU
# layers, then a linear head of L2 = 3 layers; square loss plus (lambda/2) sum ||W||^2.

# %%
def run(head, seed=0):
    rng = np.random.default_rng(seed)
    inputs, targets, labels = gaussian_classes(rng)
    network = Network((8, 64, 32) + head, nonlinear_layers=2)

    def observe(step, weights, grads, representations):
        last, previous = weights[-1], weights[-2]
        singular = np.linalg.svd(last, compute_uv=False)
        hidden = representations[-3]
        within = hidden - metrics.class_means(hidden, labels)[:, labels]
        means_hidden = metrics.class_means(hidden, labels)
        return {
            "eps1": np.linalg.norm(representations[-1] - targets),
            "eps2": np.linalg.norm(last.T @ last - previous @ previous.T, 2),
            "imbalance": [np.linalg.norm(d) for d in imbalances(weights)],
            "diagonal": [np.linalg.norm(np.diag(d)) for d in imbalances(weights)],
            "nc1": [metrics.nc1_trace_ratio(z, labels) for z in representations[1:-1]],
            "nc2": metrics.nc2_condition_number(representations[-2], labels),
            "nc3": metrics.nc3_average_cosine(representations[-2], labels, last),
            "kappa": singular[0] / singular[-1], "s_first": singular[0], "s_last": singular[-1],
            "omega": np.linalg.norm(within), "hidden_means": np.linalg.norm(means_hidden, 2),
        }

    # the floor bound of docs/derivations/collapse.md#balancedness-recurrence, for the linear pairs
    floor = {"bound": None, "logged": []}

    def every_step(step, weights, grads, representations):
        norms = np.array([np.linalg.norm(d) for d in imbalances(weights)[2:]])
        bound = norms if floor["bound"] is None else floor["bound"]
        if step % max(steps // 200, 1) == 0 or step == steps:
            floor["logged"].append(bound)
        sources = np.array([np.linalg.norm(grads[pair + 1].T @ grads[pair + 1] - grads[pair] @ grads[pair].T)
                            for pair in range(2, len(weights) - 1)])
        floor["bound"] = (1 - eta * lam) ** 2 * bound + eta**2 * sources

    _, trajectory = train(network, network.initial_weights(rng), inputs, targets, learning_rate=eta,
                          weight_decay=lam, steps=steps, log_every=max(steps // 200, 1), observe=observe,
                          every_step=every_step)
    trajectory.floor = np.array(floor["logged"])
    return np.array(trajectory.steps), trajectory


steps_logged, trajectory = run(heads[3])
series = {name: trajectory.series(name) for name in trajectory.records[0]}

# %% [markdown]
# ## 2. Balancedness: log ||D_l|| against the step
# Linear pairs (3,4) and (4,5) follow the predicted line (1 - eta lambda)^(2k) ||D_0|| and stay under
# the floor bound (1 - eta lambda)^(2k) ||D_0|| + eta^2 sum_j (1 - eta lambda)^(2(k-1-j)) ||S_j|| (dotted);
# the pairs linked through sigma do not (no conservation law for a non-homogeneous activation).

# %%
figure, axis = plt.subplots(figsize=(7, 4))
names = ["(1,2) through sigma", "(2,3) through sigma", "(3,4) linear", "(4,5) linear"]
for pair, name in enumerate(names):
    norms = series["imbalance"][:, pair]
    axis.semilogy(steps_logged, norms, color=f"C{pair}", label=name)
    if pair >= 2:
        axis.semilogy(steps_logged, norms[0] * (1 - eta * lam) ** (2 * steps_logged), "k--", lw=1)
        axis.semilogy(steps_logged, trajectory.floor[:, pair - 2], "k:", lw=1)
        assert np.all(norms <= trajectory.floor[:, pair - 2] * (1 + 1e-9))
axis.semilogy([], [], "k--", lw=1, label="predicted (1 - eta lambda)^(2k) ||D_0||")
axis.semilogy([], [], "k:", lw=1, label="floor bound")
axis.set_xlabel("gradient step k")
axis.set_ylabel("||D_l||_F")
axis.legend(fontsize=8)
figure.tight_layout()

# %% [markdown]
# ## 3. Two timescales
# eps1 = ||Z_L - Y||_F settles within a few 1/eta steps; eps2 (balancedness of the last pair) decays on
# the 1/(eta lambda) timescale.

# %%
figure, axis = plt.subplots(figsize=(7, 4))
axis.semilogy(steps_logged, series["eps1"], label="eps1 = ||Z_L - Y||_F")
axis.semilogy(steps_logged, series["eps2"], label="eps2 = ||W_L^T W_L - W_{L-1} W_{L-1}^T||_op")
axis.axvline(1 / eta, color="0.5", ls=":", label="k = 1/eta")
axis.axvline(1 / (eta * lam), color="0.2", ls="--", label="k = 1/(eta lambda)")
axis.set_xlabel("gradient step k")
axis.set_ylabel("(dimensionless)")
axis.legend(fontsize=8)
figure.tight_layout()

# %% [markdown]
# ## 4. NC1 per layer, with Theorem A's bound on the penultimate layer

# %%
bound = np.array([float(nc1_bound(r["eps1"], r["eps2"], r["s_first"], r["s_last"], r["omega"], 10, 4))
                  if r["eps1"] < np.sqrt(30) else np.nan for r in trajectory.records])
figure, axis = plt.subplots(figsize=(7, 4))
for layer in range(series["nc1"].shape[1]):
    axis.semilogy(steps_logged, series["nc1"][:, layer], label=f"NC1_J(Z_{layer + 1})")
axis.semilogy(steps_logged, bound, "k--", label="Theorem A bound for Z_4 = Z_{L-1}")
assert np.all(series["nc1"][:, -1][~np.isnan(bound)] <= bound[~np.isnan(bound)] * (1 + 1e-9))
axis.set_xlabel("gradient step k")
axis.set_ylabel("tr Sigma_W / tr Sigma_B")
axis.legend(fontsize=8)
figure.tight_layout()

# %% [markdown]
# ## 5. NC2 against kappa(W_L), with Theorem C's bracket; NC3 with the Kantorovich floor
# The bracket is two-sided; it narrows as eps1 and eps2 shrink (a smaller lambda interpolates better:
# the full run uses lambda = 0.05, the test run 0.2, where the bracket stays wide).

# %%
delta2 = np.array([float(nc2_perturbation(r["eps1"], r["eps2"], 10, r["s_last"], r["hidden_means"]))
                   for r in trajectory.records])
bracket = np.array([[float(v) for v in nc2_bracket(r["s_first"], r["s_last"], d)]
                    for r, d in zip(trajectory.records, delta2)])
figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.plot(steps_logged, series["nc2"], label="NC2_J = kappa(class means of Z_{L-1})")
left.plot(steps_logged, series["kappa"], "k--", label="kappa(W_L)")
left.fill_between(steps_logged, bracket[:, 0], np.minimum(bracket[:, 1], 10), color="C0", alpha=0.15,
                  label="Theorem C bracket")
left.set_ylim(0.8, 3)
left.set_xlabel("gradient step k")
left.set_ylabel("condition number")
left.legend(fontsize=8)
right.plot(steps_logged, series["nc3"], label="NC3_J (mean cosine)")
right.plot(steps_logged, [float(kantorovich_floor(k)) for k in series["kappa"]], "k--",
           label="2 kappa/(1 + kappa^2)")
right.set_xlabel("gradient step k")
right.set_ylabel("cosine")
right.legend(fontsize=8)
figure.tight_layout()

# %% [markdown]
# ## 6. A deeper head conditions W_L better
# At the end of each run, NC2_J, kappa(W_L) and kappa(A)^(1/L2) for L2 = 2, 3, 5 (Theorem B: equal at
# exact balance).

# %%
final = {}
for depth, head in heads.items():
    _, result = run(head) if depth != 3 else (steps_logged, trajectory)
    final[depth] = result.records[-1]
figure, axis = plt.subplots(figsize=(6, 4))
depths = sorted(final)
axis.plot(depths, [final[d]["nc2"] for d in depths], "o-", label="NC2_J at the end")
axis.plot(depths, [final[d]["kappa"] for d in depths], "k--", label="kappa(W_L)")
axis.set_xlabel("head depth L2")
axis.set_ylabel("condition number")
axis.legend(fontsize=8)
figure.tight_layout()
print({d: round(final[d]["nc2"], 4) for d in depths})
if not SMALL:
    plt.show()
