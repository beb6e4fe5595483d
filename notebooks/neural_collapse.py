"""Balancedness implies neural collapse (a marimo notebook; `marimo edit` it, or run it as a script)."""

import marimo

__generated_with = "0.25.2"

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import matplotlib.pyplot as plt
    import numpy as np

    from checkers.collapse import metrics
    from checkers.collapse.training import Network, gaussian_classes, imbalances, train
    from theorems.collapse.bounds import kantorovich_floor, nc1_bound, nc2_bracket, nc2_budgets
    return (Network, gaussian_classes, imbalances, kantorovich_floor, metrics, mo, nc1_bound, nc2_bracket,
            nc2_budgets, np, plt, train)


@app.cell
def _(mo):
    mo.md(r"""
    # Balancedness implies neural collapse

    Jacot, Sukenik, Wang and Mondelli (ICLR 2025) show that a network whose last layers are linear, trained
    by gradient descent with weight decay, first interpolates (on the $1/\eta$ timescale), then balances its
    linear head (on the $1/(\eta\lambda)$ timescale), and that interpolation plus balancedness force neural
    collapse of the penultimate features. This notebook runs the protocol of
    `docs/derivations/collapse.md#collapse-training` and sets every curve against the explicit bounds encoded
    in thmcheck: the exact law $D_{k+1} = (1-\eta\lambda)^2 D_k + \eta^2 S_k$ (`balancedness-recurrence`),
    Theorem A (`nc1-bound`), Theorem C (`nc2-bracket`), Theorem D (`nc3-bound`) and Theorem B
    (`head-conditioning`).

    K = 4 Gaussian classes of 10 points in d = 8; widths (64, 32 | head): two smooth leaky-ReLU layers, then
    a linear head; square loss plus $(\lambda/2)\sum\|W\|^2$. A smaller $\lambda$ interpolates better and
    narrows the bracket of section 5, but needs more steps: the run lasts a chosen multiple of $1/(\eta\lambda)$.
    """)
    return


@app.cell
def _(mo):
    weight_decay = mo.ui.dropdown({"0.4": 0.4, "0.2": 0.2, "0.1": 0.1, "0.05": 0.05}, value="0.2",
                                  label="weight decay lambda")
    horizon = mo.ui.slider(1, 5, step=1, value=2, label="run length, in units of 1/(eta lambda)")
    head_depth = mo.ui.dropdown({"2": 2, "3": 3, "5": 5}, value="3", label="linear head depth L2")
    mo.hstack([weight_decay, horizon, head_depth], justify="start")
    return head_depth, horizon, weight_decay


@app.cell
def _(Network, gaussian_classes, horizon, imbalances, metrics, np, train, weight_decay):
    eta, lam = 5e-4, weight_decay.value
    steps = int(horizon.value / (eta * lam))
    heads = {2: (8, 4), 3: (16, 8, 4), 5: (16, 12, 8, 6, 4)}

    def run(head, seed=0):
        """Train one network; log the collapse metrics every steps/200 steps, and the floor bound of
        docs/derivations/collapse.md#balancedness-recurrence for the linear pairs at every step."""
        rng = np.random.default_rng(seed)
        inputs, targets, labels = gaussian_classes(rng)
        network = Network((8, 64, 32) + head, nonlinear_layers=2)

        def observe(step, weights, grads, representations):
            last, previous = weights[-1], weights[-2]
            singular = np.linalg.svd(last, compute_uv=False)
            hidden = representations[-3]
            means_hidden = metrics.class_means(hidden, labels)
            return {
                "eps1": np.linalg.norm(representations[-1] - targets),
                "eps2": np.linalg.norm(last.T @ last - previous @ previous.T, 2),
                "imbalance": [np.linalg.norm(d) for d in imbalances(weights)],
                "nc1": [metrics.nc1_trace_ratio(z, labels) for z in representations[1:-1]],
                "nc2": metrics.nc2_condition_number(representations[-2], labels),
                "nc3": metrics.nc3_average_cosine(representations[-2], labels, last),
                "kappa": singular[0] / singular[-1], "s_first": singular[0], "s_last": singular[-1],
                "omega": np.linalg.norm(hidden - means_hidden[:, labels]),
                "hidden_means": np.linalg.norm(means_hidden, 2),
            }

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
    return eta, heads, lam, run, steps


@app.cell
def _(head_depth, heads, run):
    steps_logged, trajectory = run(heads[head_depth.value])
    series = {_name: trajectory.series(_name) for _name in trajectory.records[0]}
    return series, steps_logged, trajectory


@app.cell
def _(mo):
    mo.md(r"""
    ## 1. Balancedness: $\log\|D_l\|$ against the step
    Left: the linear pairs follow the predicted line $(1-\eta\lambda)^{2k}\|D_0\|$ (dashed); the pairs linked
    through $\sigma$ do not (no conservation law for a non-homogeneous activation). Right: the linear pairs
    divided by the floor bound $(1-\eta\lambda)^{2k}\|D_0\| + \eta^2\sum_j (1-\eta\lambda)^{2(k-1-j)}\|S_j\|$,
    which the theory says never exceeds 1 (on the left the bound lies on top of the data).
    """)
    return


@app.cell
def _(eta, lam, np, plt, series, steps_logged, trajectory):
    _pairs = series["imbalance"].shape[1]
    _figure, (_left, _right) = plt.subplots(1, 2, figsize=(11, 4))
    for _pair in range(_pairs):
        _kind = "through sigma" if _pair < 2 else "linear"
        _left.semilogy(steps_logged, series["imbalance"][:, _pair], color=f"C{_pair}",
                       label=f"({_pair + 1},{_pair + 2}) {_kind}")
        if _pair >= 2:
            _norms = series["imbalance"][:, _pair]
            _left.semilogy(steps_logged, _norms[0] * (1 - eta * lam) ** (2 * steps_logged), "k--", lw=1)
            _right.plot(steps_logged, _norms / trajectory.floor[:, _pair - 2], color=f"C{_pair}",
                        label=f"({_pair + 1},{_pair + 2}): ||D_l|| / floor bound")
    _left.semilogy([], [], "k--", lw=1, label="theory: (1 - eta lambda)^(2k) ||D_0||")
    _right.axhline(1, color="k", lw=1, label="theory: at most 1")
    for _axis in (_left, _right):
        _axis.set_xlabel("gradient step k")
        _axis.legend(fontsize=7)
    _left.set_ylabel("||D_l||_F")
    _right.set_ylabel("ratio")
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 2. Two timescales
    $\epsilon_1 = \|Z_L - Y\|_F$ settles within a few $1/\eta$ steps; $\epsilon_2$ (balancedness of the last
    pair) decays on the $1/(\eta\lambda)$ timescale.
    """)
    return


@app.cell
def _(eta, lam, plt, series, steps_logged):
    _figure, _axis = plt.subplots(figsize=(7, 4))
    _axis.semilogy(steps_logged, series["eps1"], label="eps1 = ||Z_L - Y||_F")
    _axis.semilogy(steps_logged, series["eps2"], label="eps2 = ||W_L^T W_L - W_{L-1} W_{L-1}^T||_op")
    _axis.axvline(1 / eta, color="0.5", ls=":", label="k = 1/eta")
    _axis.axvline(1 / (eta * lam), color="0.2", ls="--", label="k = 1/(eta lambda)")
    _axis.set_xlabel("gradient step k")
    _axis.set_ylabel("norm (dimensionless)")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 3. NC1 per layer, with Theorem A's bound on the penultimate layer
    The bound applies once $\epsilon_1 < \sqrt{n(K-1)} = \sqrt{30}$ ($n$ = 10 points per class, $K$ = 4
    classes); before that it is not drawn.
    """)
    return


@app.cell
def _(nc1_bound, np, plt, series, steps_logged, trajectory):
    _bound = np.array([float(nc1_bound(r["eps1"], r["eps2"], r["s_first"], r["s_last"], r["omega"], 10, 4))
                       if r["eps1"] < np.sqrt(30) else np.nan for r in trajectory.records])
    _figure, _axis = plt.subplots(figsize=(7, 4))
    for _layer in range(series["nc1"].shape[1]):
        _axis.semilogy(steps_logged, series["nc1"][:, _layer], label=f"NC1_J(Z_{_layer + 1})")
    _axis.semilogy(steps_logged, _bound, "k--", label="theory: Theorem A bound on Z_{L-1}")
    _holds = series["nc1"][:, -1][~np.isnan(_bound)] <= _bound[~np.isnan(_bound)] * (1 + 1e-9)
    assert np.all(_holds), "Theorem A's bound is violated along the run"
    _axis.set_xlabel("gradient step k")
    _axis.set_ylabel("tr Sigma_W / tr Sigma_B")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 4. NC2 against $\kappa(W_L)$ with Theorem C's bracket; NC3 with the Kantorovich floor
    The bracket is two-sided; it narrows as $\epsilon_1$ and $\epsilon_2$ shrink: try a smaller $\lambda$
    with a longer run.
    """)
    return


@app.cell
def _(kantorovich_floor, nc2_bracket, nc2_budgets, np, plt, series, steps_logged, trajectory):
    _bracket = np.array([[float(v) for v in nc2_bracket(r["s_first"], r["s_last"],
                                                        *nc2_budgets(r["eps1"], r["eps2"], 10, r["hidden_means"]))]
                         for r in trajectory.records])
    _figure, (_left, _right) = plt.subplots(1, 2, figsize=(11, 4))
    _left.plot(steps_logged, series["nc2"], label="NC2_J = kappa(class means of Z_{L-1})")
    _left.plot(steps_logged, series["kappa"], "k--", label="kappa(W_L)")
    _left.fill_between(steps_logged, _bracket[:, 0], np.minimum(_bracket[:, 1], 10), color="C0", alpha=0.15,
                       label="theory: Theorem C bracket")
    _left.set_ylim(0.8, 3)
    _left.set_xlabel("gradient step k")
    _left.set_ylabel("condition number")
    _left.legend(fontsize=7)
    _right.plot(steps_logged, series["nc3"], label="NC3_J (mean cosine)")
    _right.plot(steps_logged, [float(kantorovich_floor(k)) for k in series["kappa"]], "k--",
                label="theory: floor 2 kappa / (1 + kappa^2)")
    _right.set_xlabel("gradient step k")
    _right.set_ylabel("cosine")
    _right.legend(fontsize=7)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 5. A deeper head conditions $W_L$ better
    At the end of runs with heads of depth $L_2$ = 2, 3, 5: NC2_J and $\kappa(W_L)$ (Theorem B: a deeper
    balanced head has $\kappa(W_L) = \kappa(A)^{1/L_2}$, closer to 1). One seed per depth: an illustration,
    not a check (`collapse-training` is the check).
    """)
    return


@app.cell
def _(head_depth, heads, np, plt, run, trajectory):
    _final = {_depth: (trajectory if _depth == head_depth.value else run(_head)[1]).records[-1]
              for _depth, _head in heads.items()}
    _depths = sorted(_final)
    _figure, _axis = plt.subplots(figsize=(6, 4))
    _axis.plot(_depths, [_final[d]["nc2"] for d in _depths], "o-", label="NC2_J at the end")
    _axis.plot(_depths, [_final[d]["kappa"] for d in _depths], "k--", label="kappa(W_L) at the end")
    _axis.set_xticks(np.array(_depths))
    _axis.set_xlabel("head depth L2")
    _axis.set_ylabel("condition number")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


if __name__ == "__main__":
    app.run()
