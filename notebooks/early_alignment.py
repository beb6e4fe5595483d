"""Early alignment from a small initialization (a marimo notebook; `marimo edit` it, or run it as a script)."""

import marimo

__generated_with = "0.25.2"

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import matplotlib.pyplot as plt
    import numpy as np

    from checkers.alignment.gradient_flow import balanced_start, polar_flow, stable_rank
    from checkers.alignment.peak_alignment import peak_gap
    from checkers.alignment.runs import empirical_alignment_time, half_time
    from theorems.alignment.common import class_directions, initial_directions, lemma3_window, reference_data
    return (balanced_start, class_directions, empirical_alignment_time, half_time, initial_directions,
            lemma3_window, mo, np, peak_gap, plt, polar_flow, reference_data, stable_rank)


@app.cell
def _(mo):
    mo.md(r"""
    # Early alignment from a small initialization

    This notebook follows Min, Mallada and Vidal (ICLR 2024), `docs/derivations/alignment.md`.

    - The network is $f(x) = \sum_j v_j\,\mathrm{relu}(w_j^\top x)$, trained by gradient flow on the
      exponential loss, summed over samples, from a balanced start $W(0) = \epsilon W_0$,
      $v_j(0) = \pm\|w_j(0)\|$.
    - First the neuron directions align: $V_+$ neurons go to the cone $S_+$ activated by exactly the positive
      points, or they die. Then the norms grow, at rate $\|x_\pm\|$, until the loss falls.
    - The flow is integrated in polar form (`checkers.alignment.gradient_flow.polar_flow`): directions and
      log-norms, so $\epsilon$ can be as small as we like.
    """)
    return


@app.cell
def _(mo):
    log_epsilon = mo.ui.slider(-40.0, -4.0, step=1.0, value=-12.0, label="log epsilon")
    log_epsilon
    return (log_epsilon,)


@app.cell
def _(mo):
    mo.md(r"""
    ## 1. Directions as rays on the circle (D = 2)
    Positive points are blue and negative points red. $V_+$ neurons are solid lines and $V_-$ neurons dashed.
    The four panels show t = 0, the empirical alignment time $t_1$, the time the loss has halved, and the end
    of the run. A smaller $\epsilon$ leaves more time to align before the norms grow.
    """)
    return


@app.cell
def _(balanced_start, class_directions, empirical_alignment_time, half_time, initial_directions, log_epsilon,
      np, plt, polar_flow, reference_data):
    _x, _y = reference_data(4, 2)
    _directions, _signs = initial_directions(16, 2)
    _end = -log_epsilon.value / min(np.linalg.norm(v) for v in class_directions(_x, _y)) + 6
    _run = polar_flow(_x, _y, *balanced_start(_directions, _signs, log_epsilon.value), "exponential",
                      np.linspace(0, _end, 3001))
    _t1 = empirical_alignment_time(_run.times, _run.directions, _signs, _x, _y)
    _escape = half_time(_run.times, _run.losses(_x, _y, "exponential").sum(axis=1))
    _figure, _axes = plt.subplots(1, 4, figsize=(14, 3.6))
    for _axis, _moment, _label in zip(_axes, (0.0, _t1, _escape, _end), ("t = 0", "t1", "loss halved", "end")):
        _k = min(int(np.searchsorted(_run.times, _moment)), len(_run.times) - 1)
        _axis.scatter(*_x[_y > 0].T, color="C0")
        _axis.scatter(*_x[_y < 0].T, color="C3")
        for _u, _s in zip(_run.directions[_k], _signs):
            _axis.plot([0, _u[0]], [0, _u[1]], "-" if _s > 0 else "--", color="C0" if _s > 0 else "C3", lw=1)
        _axis.set_aspect("equal")
        _axis.set_xlim(-1.6, 1.6)
        _axis.set_ylim(-1.6, 1.6)
        _axis.set_title(f"{_label} (t = {_run.times[_k]:.2f})")
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 2. Alignment, then growth
    The reference data of `docs/derivations/alignment.md` at a small size (choose the dimension and width),
    with the chosen $\epsilon$. Left: $\cos(w_j, x_+)$ for the $V_+$ neurons on a log-time axis, with the
    empirical $t_1$ and Lemma 3's window $T$ (theory) marked. Right: the norms $\|w_j\|$, flat during alignment,
    then growing at rate $\|x_\pm\|$ (the dashed line has the slope $\|x_+\|$ of the theory).
    """)
    return


@app.cell
def _(mo):
    dimension = mo.ui.slider(2, 8, step=1, value=3, label="dimension D")
    width = mo.ui.slider(4, 50, step=2, value=8, label="width h")
    mo.hstack([dimension, width], justify="start")
    return dimension, width


@app.cell
def _(class_directions, dimension, initial_directions, reference_data, width):
    x, y = reference_data(3, dimension.value)
    directions, signs = initial_directions(width.value, dimension.value)
    positive, negative = class_directions(x, y)
    return directions, positive, signs, x, y


@app.cell
def _(balanced_start, directions, empirical_alignment_time, lemma3_window, log_epsilon, mo, np, plt,
      polar_flow, positive, signs, width, x, y):
    _times = np.concatenate([[0.0], np.geomspace(1e-3, -log_epsilon.value / np.linalg.norm(positive) + 8, 3000)])
    run = polar_flow(x, y, *balanced_start(directions, signs, log_epsilon.value), "exponential", _times)
    t1 = empirical_alignment_time(run.times, run.directions, signs, x, y)
    _window = lemma3_window(x, log_epsilon.value, width.value, 1.0)
    _cosines = run.directions[:, signs > 0] @ (positive / np.linalg.norm(positive))
    _figure, (_left, _right) = plt.subplots(1, 2, figsize=(12, 4))
    _left.semilogx(run.times[1:], _cosines[1:], color="C0", lw=0.7)
    _left.axvline(t1, color="k", ls=":", label=f"empirical t1 = {t1:.3f}")
    _left.axvline(_window, color="C3", ls="--", label=f"theory: Lemma 3 window T = {_window:.3f}")
    _left.set_xlabel("t")
    _left.set_ylabel("cos(w_j, x+), V+ neurons")
    _left.legend(fontsize=8)
    _norms = np.exp(run.log_norms)
    _right.semilogy(run.times, _norms, lw=0.7, color="0.5")
    _late = run.times > 0.75 * run.times[-1]
    _anchor = np.argmax(_late)
    _right.semilogy(run.times[_late], _norms[_anchor].max() * np.exp(np.linalg.norm(positive)
                                                                     * (run.times[_late] - run.times[_anchor])),
                    "k--", label="theory: growth rate ||x+||")
    _right.set_xlabel("t")
    _right.set_ylabel("||w_j||")
    _right.legend(fontsize=8)
    _figure.tight_layout()
    mo.vstack([_figure, mo.md(f"t1 = {t1:.4f}; T = {_window:.4f}; ||x+|| = {np.linalg.norm(positive):.4f}")])
    return run, t1


@app.cell
def _(mo):
    mo.md(r"""
    ## 3. The $\epsilon$ sweep
    The empirical $t_1$ is flat in $\epsilon$ (`alignment-time-flat`). The time at which the positive class's
    loss halves has slope $1/\|x_+\|$ against $\log(1/\epsilon)$ (`escape-time`); the dashed line has that slope.
    """)
    return


@app.cell
def _(balanced_start, directions, empirical_alignment_time, half_time, np, plt, polar_flow, positive, signs,
      x, y):
    _log_epsilons = np.array([-10.0, -20.0, -40.0, -80.0])
    _alignment, _escape = [], []
    for _value in _log_epsilons:
        _grid = np.linspace(0, -_value / np.linalg.norm(positive) + 6, 6001)
        _sweep = polar_flow(x, y, *balanced_start(directions, signs, _value), "exponential", _grid)
        _alignment.append(empirical_alignment_time(_sweep.times, _sweep.directions, signs, x, y))
        _escape.append(half_time(_sweep.times, _sweep.losses(x, y, "exponential")[:, y > 0].sum(axis=1)))
    _figure, _axis = plt.subplots(figsize=(7, 4))
    _axis.plot(-_log_epsilons, _alignment, "o-", label="empirical t1")
    _axis.plot(-_log_epsilons, _escape, "s", label="t_half+ (loss of the positive class halved)")
    _axis.plot(-_log_epsilons, _escape[0] + (-_log_epsilons + _log_epsilons[0]) / np.linalg.norm(positive), "--",
               label="theory: slope 1/||x+||")
    _axis.set_xlabel("log(1/epsilon)")
    _axis.set_ylabel("time")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 4. Peak alignment: $1 - \max_t \min_j \cos(w_j, x_+)$ falls like $\epsilon^{4/3}$
    On the small reference data (D = 3, h = 8); the dashed line has the slope 4/3 of `peak-alignment`.
    """)
    return


@app.cell
def _(np, peak_gap, plt):
    _key = ("reference", 3, 3, 8, 0)
    _logs = np.array([-7.0, -9.0, -11.0])
    _gaps = [peak_gap(_key, _value, "exponential", 1000)[0] for _value in _logs]
    _figure, _axis = plt.subplots(figsize=(6, 4))
    _axis.semilogy(_logs, _gaps, "o", label="1 - peak cos")
    _axis.semilogy(_logs, _gaps[-1] * np.exp(4 / 3 * (_logs - _logs[-1])), "--", label="theory: slope 4/3")
    _axis.set_xlabel("log epsilon")
    _axis.set_ylabel("gap")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 5. Stable rank $\|W\|_F^2/\|W\|_2^2$ along the run
    Theorem 1 bounds it by $2 + O(\epsilon)$ after $t_1$. The $S_+$ and $S_-$ neurons form two groups, so it
    settles between 1 and 2.
    """)
    return


@app.cell
def _(np, plt, run, stable_rank, t1):
    _figure, _axis = plt.subplots(figsize=(7, 3.5))
    _scaled = run.directions * np.exp(run.log_norms - run.log_norms.max(axis=1, keepdims=True))[..., None]
    _axis.semilogx(run.times[1:], stable_rank(_scaled)[1:], label="stable rank")
    _axis.axhline(2, color="k", ls=":", label="theory: at most 2 + O(epsilon) after t1")
    _axis.axvline(t1, color="0.5", ls="--", label="empirical t1")
    _axis.set_xlabel("t")
    _axis.set_ylabel("stable rank")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


if __name__ == "__main__":
    app.run()
