"""Gaussian equivalence after one step, and when it breaks (a marimo notebook; `marimo edit` it, or run it as
a script)."""

import marimo

__generated_with = "0.25.2"

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import matplotlib.pyplot as plt
    import numpy as np
    from scipy.special import erf

    from checkers.equivalence.feature_maps import gaussian_equivalent_map, hermite_surrogate_map
    from checkers.equivalence.hermite_equivalence import degree_one_risk
    from checkers.equivalence.mixture_readout import mixture_errors
    from checkers.equivalence.ridge import readout
    from checkers.onestep.simulation import OneStepSetting, one_step
    from theorems.activations import activation
    from theorems.equivalence.gaussian_equivalent_oracle import gaussian_equivalent_errors
    from theorems.equivalence.kernel_oracle import kernel_errors
    from theorems.equivalence.large_step_beats_linear import tau_numeric
    from theorems.hermite import hermite_coefficients, mu_star_squared, second_moment
    return (OneStepSetting, activation, degree_one_risk, erf, gaussian_equivalent_errors, gaussian_equivalent_map,
            hermite_coefficients, hermite_surrogate_map, kernel_errors, mixture_errors, mo, mu_star_squared, np,
            one_step, plt, readout, second_moment, tau_numeric)


@app.cell
def _(mo):
    mo.md(r"""
    # Gaussian equivalence after one step, and when it breaks

    Ba et al. (NeurIPS 2022), Moniri et al. (ICML 2024) and Demir and Dogan (ICLR 2025);
    `docs/derivations/equivalence.md`.

    - After one gradient step $W_1 = W_0 + \eta\sqrt N G_0$ with $\eta = n^\alpha$, a ridge readout is fit on
      fresh data.
    - For a small step ($\alpha = 0$), the features $\sigma(XW_1)$ behave like the Gaussian equivalent
      $\mu_1 XW_1 + \mu_* Z$.
    - As $\alpha$ grows, spikes of order $k$ appear for $\alpha > (k-1)/(2k)$, that is at 1/4 and 1/3. A Hermite
      surrogate of degree $\ell$ then reproduces the test error only if $\ell$ reaches the number of spikes.

    Student $\sigma(z) = \log(1 + e^z) + \tanh z$, teacher $z + (z^2 - 1)/\sqrt2$, ridge $\lambda$ = 0.8 in Ba's
    normalization.
    """)
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 1. Test error against the learning-rate exponent
    The network, its Gaussian equivalent and the Hermite surrogates of degree 1 to 3 on the same draws; the
    points are means over the draws with 95% intervals (slightly offset so the bars do not overlap). The grey
    line is exact: the deterministic equivalent of the GE model's risk given each draw's W_1
    (`docs/derivations/limits.md#ge-oracle`), averaged over the draws. Where the network leaves it (beyond
    alpha = 1/4) Gaussian equivalence has broken. The dashed line is exact too: the degree-1 Hermite surrogate
    $c_0 + c_1 u + $ rest is a Gaussian model, mean included, so the same deterministic equivalent gives its risk
    (`docs/derivations/equivalence.md#hermite-equivalence`); the simulated degree-1 points should sit on it, and
    the network leaves it once a second spike appears. The wide pale line is the network's own "kernel"
    deterministic equivalent: ridge on Gaussian features with the network's exact feature moments given W_1
    (`docs/derivations/limits.md#kernel-oracle`); it is not a theorem, and it tracks the network where its
    non-Gaussian fluctuations do not matter.
    """)
    return


@app.cell
def _(mo):
    size = mo.ui.slider(100, 600, step=50, value=150, label="n = d = N")
    draws = mo.ui.slider(2, 24, step=1, value=8, label="draws per point")
    mo.hstack([size, draws], justify="start")
    return draws, size


@app.cell
def _(OneStepSetting, activation, degree_one_risk, draws, gaussian_equivalent_errors, gaussian_equivalent_map,
      hermite_coefficients, hermite_surrogate_map, kernel_errors, mu_star_squared, np, one_step, plt, readout,
      second_moment, size):
    _sigma = activation("log(1 + exp(z)) + tanh(z)")
    _teacher = activation("z + (z**2 - 1)/sqrt(2)")
    _coefficients = [float(c) for c in hermite_coefficients(_sigma, 3, digits=20).coefficients]
    _moment = float(second_moment(_sigma, digits=20).value)
    _mu_star = float(mu_star_squared(_sigma, digits=20).value) ** 0.5
    _n = size.value
    _exponents = np.array([0.0, 0.2, 0.3, 0.37])
    _maps = {"network": lambda pre, rng: _sigma(pre),
             "Gaussian equivalent": gaussian_equivalent_map(_coefficients[1], _mu_star)}
    _maps.update({f"Hermite degree {k}": hermite_surrogate_map(_coefficients[:k + 1], _moment) for k in (1, 2, 3)})
    _errors = {_name: np.zeros((len(_exponents), draws.value)) for _name in _maps}
    _oracle = np.zeros((len(_exponents), draws.value))
    _degree_one = np.zeros((len(_exponents), draws.value))
    _kernel = np.zeros((len(_exponents), draws.value))
    _teacher_coefficients = [float(c) for c in hermite_coefficients(_teacher, 1, digits=20).coefficients]
    _teacher_mu1 = _teacher_coefficients[1]
    _label_moment = float(second_moment(_teacher, digits=20).value) + 0.01  # E y^2 with noise 0.1
    for _i, _alpha in enumerate(_exponents):
        for _draw in range(draws.value):
            _rng = np.random.default_rng([_draw, int(1000 * _alpha)])
            _step = one_step(OneStepSetting(_n, _n, _n, _sigma, _teacher, noise=0.1, learning_rate=_n**_alpha), _rng)
            _result = readout(_step, _step.updated_weights(), _maps, [0.8], _rng, test_samples=4 * _n)
            for _name in _maps:
                _errors[_name][_i, _draw] = _result[_name].test[0]
            _oracle[_i, _draw] = gaussian_equivalent_errors(
                _step.updated_weights(), _step.teacher_direction, mu1=_coefficients[1], mu_star=_mu_star,
                teacher_mu1=_teacher_mu1, label_moment=_label_moment, samples=_n, ridge=0.8,
                noise_variance=0.01).risk
            _degree_one[_i, _draw] = degree_one_risk(_step.updated_weights(), _step.teacher_direction, _coefficients,
                                                     _moment, _teacher_coefficients, _label_moment, _n, 0.8, 0.01)
            _kernel[_i, _draw] = kernel_errors(_step.updated_weights(), _step.teacher_direction, _sigma, _teacher,
                                               samples=_n, ridge=0.8, noise_variance=0.01, nodes=24).risk
    _figure, _axis = plt.subplots(figsize=(8, 4.5))
    _axis.plot(_exponents, _oracle.mean(axis=1), "-", color="k", lw=2, alpha=0.5,
               label="theory: deterministic equivalent of the GE model given each W_1")
    _axis.plot(_exponents, _kernel.mean(axis=1), "-", color="C0", lw=3, alpha=0.35,
               label="the network's kernel DE given each W_1 (its own feature moments; empirical, not a theorem)")
    _axis.plot(_exponents, _degree_one.mean(axis=1), "--", color="C2", lw=2, alpha=0.6,
               label="theory: exact Hermite degree 1 (with its mean c_0) given each W_1")
    for _k, (_name, _values) in enumerate(_errors.items()):
        _axis.errorbar(_exponents + 0.004 * (_k - 2), _values.mean(axis=1),
                       yerr=1.96 * _values.std(axis=1, ddof=1) / np.sqrt(draws.value), capsize=3,
                       fmt="o-" if _name == "network" else "s--", label=_name)
    for _threshold, _style, _label in ((1 / 4, ":", "alpha = 1/4: second spike"),
                                       (1 / 3, "-.", "alpha = 1/3: third spike")):
        _axis.axvline(_threshold, color="k", ls=_style, label=f"theory: {_label}")
    _axis.set_xlabel("alpha (eta = n^alpha)")
    _axis.set_ylabel("test error")
    _axis.set_title(f"mean over {draws.value} draws, 95% intervals; n = d = N = {_n}")
    _axis.legend(fontsize=7)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 2. $\tau_*$: what a large step can reach
    $\tau(\kappa) = E[(\sigma_*(\xi_1) - E_{\xi_2}\sigma(\kappa\xi_1 + \xi_2))^2]$. For erf/erf it reaches 0 at
    $\kappa = \sqrt3$, and for tanh/tanh it bottoms out at $9.45\cdot10^{-5}$ near $\kappa = 1.588$
    (Ba et al., Corollary 8).
    """)
    return


@app.cell
def _(erf, np, plt, tau_numeric):
    _kappas = np.linspace(0.5, 3.0, 26)
    _figure, _axis = plt.subplots(figsize=(7, 4))
    _axis.semilogy(_kappas, [tau_numeric(erf, erf, k) + 1e-18 for k in _kappas], label="erf / erf")
    _axis.semilogy(_kappas, [tau_numeric(np.tanh, np.tanh, k) for k in _kappas], label="tanh / tanh")
    _axis.axvline(np.sqrt(3), color="k", ls=":", label="theory: kappa = sqrt(3), tau = 0 for erf")
    _axis.set_xlabel("kappa")
    _axis.set_ylabel("tau(kappa)")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 3. Gaussian mixtures: the network against the Hermite model, as $n$ grows
    Demir and Dogan (ICLR 2025), `docs/derivations/equivalence.md#mixture-equivalence`: two zero-mean
    components with spiked covariances, $\theta = n^{\beta(1-\alpha)}$, $\eta = n^{\alpha\beta}$. The Hermite
    model $\sum_{j\le D} c_j(b) He_j(u/b) + h_*(b) z$, with $D = \lceil\beta/(1-\beta)\rceil$ and
    $b = \sqrt{n/\mathrm{Tr}\,\Sigma_c}$, replaces $\sigma$ in the ridge stage. The plot shows the relative gaps
    (Hermite − network)/network with their standard errors, for the model and for the same model without its
    Gaussian rest (a wrong model, whose gap also shrinks: a shrinking gap alone proves nothing here).
    """)
    return


@app.cell
def _(mo):
    mixture_draws = mo.ui.slider(2, 16, step=1, value=3, label="draws per size")
    mixture_draws
    return (mixture_draws,)


@app.cell
def _(activation, mixture_draws, mixture_errors, np, plt):
    _sizes = [100, 200]
    _tanh = activation("tanh")
    _figure, _axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for _rest, _label in ((None, "Hermite model"), (0.0, "without the Gaussian rest")):
        _gaps = []
        for _size in _sizes:
            _seeds = np.random.SeedSequence(_size).spawn(mixture_draws.value)
            _gaps.append([mixture_errors(_size, 0.5, 0.6, _tanh, 2, 1e-3, np.random.default_rng(s),
                                         rest=_rest).gaps() for s in _seeds])
        _gaps = np.array(_gaps)                                    # size x draw x (generalization, train)
        for _column, _axis in enumerate(_axes):
            _axis.errorbar(_sizes, _gaps[:, :, _column].mean(axis=1),
                           yerr=_gaps[:, :, _column].std(axis=1, ddof=1) / np.sqrt(mixture_draws.value),
                           marker="o", capsize=3, label=_label)
    for _axis, _title in zip(_axes, ("generalization", "train")):
        _axis.axhline(0, color="k", lw=0.5, label="theory: no gap in the limit")
        _axis.set_xscale("log")
        _axis.set_xlabel("n = m = k")
        _axis.set_ylabel("relative gap")
        _axis.set_title(f"relative {_title} gap (one standard error)")
    _axes[0].legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


if __name__ == "__main__":
    app.run()
