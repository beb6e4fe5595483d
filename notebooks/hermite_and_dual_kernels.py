"""Hermite coefficients and dual kernels (a marimo notebook; `marimo edit` it, or run it as a script)."""

import marimo

__generated_with = "0.25.2"

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import matplotlib.pyplot as plt
    import mpmath
    import numpy as np

    from checkers import registry
    from checkers.engine import run_check
    from theorems.activations import activation
    from theorems.errors import InvalidInput
    from theorems.hermite import hermite_coefficients, second_moment
    from theorems.mehler import dual_kernel_closed_form, dual_kernel_series, evaluate_closed_form
    return (InvalidInput, activation, dual_kernel_closed_form, dual_kernel_series, evaluate_closed_form,
            hermite_coefficients, mo, mpmath, np, plt, registry, run_check, second_moment)


@app.cell
def _(mo):
    mo.md(r"""
    # Hermite coefficients and dual kernels

    Every constant in the one-step and alignment theorems is built from the Hermite coefficients of an
    activation: probabilists' $He_k$, $c_k = E[\sigma(Z) He_k(Z)]/k!$. This notebook shows where they come
    from (exact closed forms or 30-digit quadrature), checks Parseval and Mehler's formula, and shows why a
    truncated Hermite series is a poor way to evaluate a ReLU kernel at $\rho = 1$.

    Type your own activation as a formula in `z` (parsed, never evaluated as Python): it joins the table and
    the figure.
    """)
    return


@app.cell
def _(mo):
    degree = mo.ui.slider(4, 30, step=1, value=12, label="degree K")
    formula = mo.ui.text(value="z*tanh(z)", label="your activation sigma(z)")
    mo.hstack([degree, formula], justify="start")
    return degree, formula


@app.cell
def _(InvalidInput, activation, degree, formula, hermite_coefficients, mo):
    _names = ["relu", "tanh", "erf", "gelu"]
    tables = {_name: hermite_coefficients(_name, degree.value, digits=30) for _name in _names}
    _message = ""
    try:
        _own = activation(formula.value)
        tables[_own.name] = hermite_coefficients(_own, degree.value, digits=30)
    except InvalidInput as _error:
        _message = f"**{formula.value}** is refused: {_error}"
    _rows = "\n".join(f"| {_name} | {_table.decimals()[1]} ({_table.routes[1]}) | "
                      f"{_table.decimals()[3]} ({_table.routes[3]}) |" for _name, _table in tables.items())
    mo.md("\n".join([
        "## 1. The coefficients, with the route that produced each",
        "ReLU, erf and GELU have closed forms for every $c_k$; tanh has only parity (its even coefficients are",
        "exactly zero) and its odd ones come from mpmath quadrature at 30 digits.",
        "",
        "| activation | $c_1$ | $c_3$ |",
        "|---|---|---|",
        _rows,
        "",
        _message,
    ]))
    return (tables,)


@app.cell
def _(degree, mpmath, np, plt, tables):
    _figure, _axis = plt.subplots(figsize=(7, 4))
    for _name, _table in tables.items():
        _k = np.arange(degree.value + 1)
        _weights = np.array([float(mpmath.factorial(i) * c**2) for i, c in enumerate(_table.coefficients)])
        _nonzero = _weights > 0
        _axis.semilogy(_k[_nonzero], _weights[_nonzero], "o-", label=_name)
    _axis.set_xlabel("degree k")
    _axis.set_ylabel("k! c_k^2  (share of E sigma^2)")
    _axis.set_title("Hermite energy by degree (zeros by parity omitted)")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(degree, mo, mpmath, second_moment, tables):
    _lines = []
    for _name, _table in tables.items():
        _moment = second_moment(_name)
        _partial = sum(mpmath.factorial(k) * c**2 for k, c in enumerate(_table.coefficients))
        _lines.append(f"| {_name} | {float(_partial / _moment.value):.10f} |")
    mo.md("\n".join([
        "## 2. Parseval: the energies add up to $E\\,\\sigma(Z)^2$",
        f"The share of $E\\,\\sigma(Z)^2$ carried by the degrees up to K = {degree.value}; it tends to 1 as K grows,",
        "fast for smooth activations, slowly for ReLU.",
        "",
        "| activation | $\\sum_{k \\le K} k!\\,c_k^2 / E\\sigma^2$ |",
        "|---|---|",
        *_lines,
    ]))
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 3. Mehler's formula against the closed form
    The truncated series comes with a rigorous tail bound; for ReLU at $\rho = 1$ the tail decays only like
    $K^{-3/2}$, so near $|\rho| = 1$ the closed form (the arc-cosine kernel) is the right tool.
    """)
    return


@app.cell
def _(activation, degree, dual_kernel_closed_form, dual_kernel_series, evaluate_closed_form,
      hermite_coefficients, np, plt, second_moment):
    _relu = activation("relu")
    _kernel = dual_kernel_closed_form(_relu)
    _moment = second_moment(_relu)
    _correlations = np.linspace(-1, 1, 21)
    _figure, _axis = plt.subplots(figsize=(7, 4))
    for _degree in sorted({2, 6, degree.value}):
        _table = hermite_coefficients(_relu, _degree)
        _errors = [float(abs(evaluate_closed_form(_kernel, round(r, 6), 30)
                             - dual_kernel_series(_table, _moment, round(r, 6)).value)) + 1e-18
                   for r in _correlations]
        _axis.semilogy(_correlations, _errors, label=f"series to degree {_degree}")
    _axis.set_xlabel("rho")
    _axis.set_ylabel("|closed form - truncated series|")
    _axis.set_title("ReLU dual kernel: the series converges slowly at |rho| = 1")
    _axis.legend(fontsize=8)
    _figure.tight_layout()
    _figure
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## 4. A check must be able to fail
    The `dual-kernel` check at quick fidelity for the chosen $\rho$, then each of its mutants (a plausible slip
    in the formula): every mutant is rejected.
    """)
    return


@app.cell
def _(mo):
    correlation = mo.ui.slider(-0.95, 0.95, step=0.05, value=0.7, label="rho")
    correlation
    return (correlation,)


@app.cell
def _(correlation, mo, registry, run_check):
    _checker = registry.checker("dual-kernel")
    _rho = f"{correlation.value:.2f}"
    _lines = [run_check(_checker, {"activation": _name, "rho": _rho}, fidelity="quick").explain()
              for _name in ("relu", "tanh")]
    for _mutant in _checker.theorem.mutants:
        _verdict = run_check(_checker, {"activation": "tanh", "rho": _rho}, mutant=_mutant.name, fidelity="quick")
        _lines.append(f"mutant {_mutant.name:24} -> {_verdict.outcome}")
    mo.md("```\n" + "\n".join(_lines) + "\n```")
    return


if __name__ == "__main__":
    app.run()
