"""One gradient step: a spike out of the bulk (a marimo notebook; `marimo edit` it, or run it as a script)."""

import marimo

__generated_with = "0.25.2"

app = marimo.App(width="medium")


@app.cell
def _():
    import math

    import marimo as mo
    import matplotlib.pyplot as plt
    import numpy as np

    from checkers import registry
    from checkers.engine import run_check
    from checkers.onestep.simulation import (
        OneStepSetting,
        one_step,
        operator_norm,
        spike_direction_overlap,
        top_left_singular_vector,
    )
    from theorems.activations import activation
    from theorems.onestep.spike_outlier import overlap_formula
    return (OneStepSetting, activation, math, mo, np, one_step, operator_norm, overlap_formula, plt, registry,
            run_check, spike_direction_overlap, top_left_singular_vector)


@app.cell
def _(mo):
    mo.md(r"""
    # One gradient step: a spike out of the bulk

    Ba et al. (NeurIPS 2022, Prop. 2): after one gradient step on the first layer, the gradient $G_0$ is the
    rank-one matrix $A = \mu_1/(n\sqrt N)\, X^\top y\, a^\top$ plus a remainder that is small in operator norm.
    This notebook shows the spike in the singular values, the decay of the remainder with $n$, the BBP
    transition of the updated weights, and what changes for ReLU (which violates the smoothness assumption).
    Normalization: Ba's (see `theorems.onestep.common`). Every curve marked "theory" comes from the theorem
    statements in `theorems/`; every point is a fresh simulation. Move a control and both are redrawn.
    """)
    return


@app.cell
def _(mo):
    activation_name = mo.ui.dropdown(["tanh", "erf", "gelu", "softplus", "relu"], value="tanh",
                                     label="activation (student and teacher)")
    dimension = mo.ui.slider(100, 800, step=50, value=150, label="dimension d (n = 2d, N = d)")
    mo.hstack([activation_name, dimension], justify="start")
    return activation_name, dimension


@app.cell
def _(activation, activation_name, registry):
    sigma = activation(activation_name.value)
    strength = registry.checker("spike-strength").theorem.instance(
        {"activation": sigma.name, "teacher": sigma.name})
    return sigma, strength


@app.cell
def _(mo):
    mo.md(r"""
    ## 1. The singular values of $G_0$
    $\sqrt N$ times the singular values: one outlier near the predicted spike strength
    $\mu_1\sqrt{\mu_{1*}^2 + E[y^2]/\psi_1}$, the rest an order of magnitude smaller. The count axis is
    logarithmic and starts at 0.5, so the single spike's bar (count 1) shows; the spike is also marked.
    """)
    return


@app.cell
def _(OneStepSetting, dimension, math, np, one_step, plt, sigma, strength):
    _d = dimension.value
    _step = one_step(OneStepSetting(2 * _d, _d, _d, sigma, sigma, noise=0.1), np.random.default_rng(0))
    _values = np.linalg.svd(_step.gradient, compute_uv=False) * math.sqrt(_d)
    _figure, _axis = plt.subplots(figsize=(7, 3.5))
    _axis.hist(_values, bins=60, color="0.6", label="singular values of sqrt(N) G_0")
    _axis.plot([_values.max()], [1], "v", color="C0", label=f"largest: {_values.max():.3f}")
    _axis.axvline(float(strength.constant("spike_strength")), color="C3",
                  label=f"theory: spike strength {float(strength.constant('spike_strength')):.3f}")
    _axis.set_yscale("log")
    _axis.set_ylim(bottom=0.5)
    _axis.set_xlabel("sqrt(N) x singular value")
    _axis.set_ylabel("count")
    _axis.set_title(f"{sigma.name}, d = {_d}")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 2. The remainder shrinks like $\log^2 n/\sqrt n$
    Two draws per size; the bars are the spread (one standard error) over the draws. ReLU is outside the
    smoothness assumption, and its remainder need not follow the rate.
    """)
    return


@app.cell
def _(mo):
    largest_size = mo.ui.slider(200, 1600, step=200, value=400, label="largest d (sizes d/4, d/2, d)")
    largest_size
    return (largest_size,)


@app.cell
def _(OneStepSetting, activation, largest_size, math, np, one_step, operator_norm, plt, registry):
    _sizes = [largest_size.value // 4, largest_size.value // 2, largest_size.value]
    _figure, _axis = plt.subplots(figsize=(7, 4))
    _first = None
    for _name in ("tanh", "relu"):
        _sigma = activation(_name)
        _coefficient = float(registry.checker("spike-decomposition").theorem.instance(
            {"activation": _name, "teacher": _name}).constant("mu1"))
        _means, _errors = [], []
        for _size in _sizes:
            _ratios = []
            for _seed in range(2):
                _s = one_step(OneStepSetting(2 * _size, _size, _size, _sigma, _sigma, noise=0.1),
                              np.random.default_rng(_seed))
                _residual = _s.gradient - _coefficient / math.sqrt(_size) * np.outer(_s.zeta, _s.second_layer)
                _ratios.append(operator_norm(_residual) / operator_norm(_s.gradient))
            _means.append(np.mean(_ratios))
            _errors.append(np.std(_ratios, ddof=1) / math.sqrt(len(_ratios)))
        _first = _means[0] if _first is None else _first
        _axis.errorbar(2 * np.array(_sizes), _means, yerr=_errors, fmt="o-", capsize=3,
                       label=f"{_name}: ||G_0 - A|| / ||G_0||")
    _samples = 2 * np.array(_sizes)
    _reference = np.log(_samples) ** 2 / np.sqrt(_samples)
    _axis.plot(_samples, _reference * _first / _reference[0], "k--", label="rate log^2 n / sqrt(n) (scaled)")
    _axis.set_xscale("log")
    _axis.set_yscale("log")
    _axis.set_xlabel("samples n")
    _axis.set_ylabel("relative remainder")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 3. The BBP transition of $W_1$
    The top left singular vector of $W_1 = W_0 + \eta\sqrt N G_0$ sees the spike only above the threshold
    $\eta_c$; the curve is the Benaych-Georges–Nadakuditi prediction, 0 below the threshold. Each point is the
    mean of eight draws with its 95% interval. At small $d$ the means sit above the curve and the transition is
    blurred: a finite-size excess that shrinks as $d$ grows, which the `spike-outlier` check removes by
    extrapolating across sizes. Move the aspect ratio to move the threshold, the dimension to see the excess shrink.
    """)
    return


@app.cell
def _(mo):
    aspect_ratio = mo.ui.slider(1.0, 3.0, step=0.25, value=1.5, label="psi = n/d = N/d")
    bbp_dimension = mo.ui.slider(100, 800, step=50, value=200, label="dimension d")
    mo.hstack([aspect_ratio, bbp_dimension], justify="start")
    return aspect_ratio, bbp_dimension


@app.cell
def _(OneStepSetting, activation, aspect_ratio, bbp_dimension, np, one_step, overlap_formula, plt, registry,
      spike_direction_overlap, top_left_singular_vector):
    _ratio = str(aspect_ratio.value)
    _outlier = registry.checker("spike-outlier").theorem.instance({"psi1": _ratio, "psi2": _ratio})
    _threshold, _c = float(_outlier.constant("bbp_threshold")), float(_outlier.constant("aspect_ratio"))
    _tanh = activation("tanh")
    _d = bbp_dimension.value
    _width = round(aspect_ratio.value * _d)  # n = N = psi d
    _etas = np.array([1, 2, 3, 4, 6])
    _draws = 8
    _overlaps = np.array([[spike_direction_overlap(top_left_singular_vector(_s.updated_weights()), _s.zeta)
                           for _s in (one_step(OneStepSetting(_width, _d, _width, _tanh, _tanh, noise=0.1,
                                                              learning_rate=float(_eta)), np.random.default_rng(_seed))
                                      for _seed in range(_draws))] for _eta in _etas])
    _measured = _overlaps.mean(axis=1)
    _interval = 1.96 * _overlaps.std(axis=1, ddof=1) / np.sqrt(_draws)
    _grid = np.linspace(0.5, _etas.max(), 200)
    _figure, _axis = plt.subplots(figsize=(7, 4))
    _axis.plot(_grid, [overlap_formula(g / _threshold * _c**0.25, _c) for g in _grid], "C3",
               label="theory (BBP overlap)")
    _axis.errorbar(_etas, _measured, yerr=_interval, fmt="o", capsize=3,
                   label=f"simulation, d = {_d}: mean of {_draws} draws, 95% interval")
    _axis.axvline(_threshold, color="0.5", linestyle=":", label=f"threshold eta_c = {_threshold:.3f}")
    _axis.set_xlabel("learning rate eta")
    _axis.set_ylabel("|<u_1(W_1), zeta>|^2")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 4. Verdicts, and ReLU outside the assumptions
    The checks at quick fidelity (a true statement may be inconclusive there, never fail).
    """)
    return


@app.cell
def _(mo, registry, run_check):
    _lines = [run_check(registry.checker(_id), fidelity="quick").explain()
              for _id in ("spike-decomposition", "spike-strength")]
    _lines.append(run_check(registry.checker("spike-decomposition"), {"activation": "relu", "teacher": "relu"},
                            fidelity="quick").explain())
    mo.md("```\n" + "\n\n".join(_lines) + "\n```")
    return


if __name__ == "__main__":
    app.run()
