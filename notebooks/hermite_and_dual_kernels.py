# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Hermite coefficients and dual kernels
#
# Every constant in the one-step and alignment theorems is built from the Hermite coefficients of an
# activation: probabilists' He_k, c_k = E[sigma(Z) He_k(Z)] / k!. This notebook shows where they come
# from (exact closed forms or 30-digit quadrature), checks Parseval and Mehler's formula, and shows why a
# truncated Hermite series is a poor way to evaluate a ReLU kernel at rho = 1.
#
# Open it with `jupytext --to notebook` or run it as a script; the tests run it at small sizes
# (`THMCHECK_SMALL=1`).

# %%
import os

import matplotlib.pyplot as plt
import mpmath
import numpy as np

from checkers import registry
from checkers.check import run_check
from theorems.activations import activation
from theorems.hermite import hermite_coefficients, second_moment
from theorems.mehler import dual_kernel_closed_form, dual_kernel_series, evaluate_closed_form

SMALL = bool(os.environ.get("THMCHECK_SMALL"))
DEGREE = 12 if SMALL else 30
NAMES = ["relu", "tanh", "erf", "sigmoid", "softplus", "gelu"]

# %% [markdown]
# ## 1. The coefficients, with the route that produced each
# ReLU, erf and GELU have closed forms for every c_k; tanh has only parity (its even coefficients are
# exactly zero) and its odd ones come from mpmath quadrature at 30 digits.

# %%
tables = {name: hermite_coefficients(name, DEGREE, digits=30) for name in NAMES}
for name, table in tables.items():
    print(f"{name:9} c_1 = {table.decimals()[1]:>34} [{table.routes[1]}]   c_3 = {table.decimals()[3]:>36} "
          f"[{table.routes[3]}]")

# %%
figure, axis = plt.subplots(figsize=(7, 4))
for name, table in tables.items():
    k = np.arange(DEGREE + 1)
    weights = np.array([float(mpmath.factorial(i) * c**2) for i, c in enumerate(table.coefficients)])
    nonzero = weights > 0
    axis.semilogy(k[nonzero], weights[nonzero], "o-", label=name)
axis.set_xlabel("degree k")
axis.set_ylabel("k! c_k^2  (share of E sigma^2)")
axis.set_title("Hermite energy by degree (zeros by parity omitted)")
axis.legend()
plt.show()

# %% [markdown]
# ## 2. Parseval: the energies add up to E sigma(Z)^2

# %%
for name, table in tables.items():
    moment = second_moment(name)
    partial = sum(mpmath.factorial(k) * c**2 for k, c in enumerate(table.coefficients))
    print(f"{name:9} sum_(k<={DEGREE}) k! c_k^2 / E sigma^2 = {float(partial / moment.value):.8f}")

# %% [markdown]
# ## 3. Mehler's formula against the closed form and against RQMC
# The truncated series comes with a rigorous tail bound; for ReLU at rho = 1 the tail decays only like
# K^(-3/2), so near |rho| = 1 the closed form (the arc-cosine kernel) is the right tool.

# %%
relu = activation("relu")
kernel = dual_kernel_closed_form(relu)
correlations = np.linspace(-1, 1, 21)
degrees = [2, 6, DEGREE]
figure, axis = plt.subplots(figsize=(7, 4))
for degree in degrees:
    table, moment = hermite_coefficients(relu, degree), second_moment(relu)
    errors = [float(abs(evaluate_closed_form(kernel, round(r, 6), 30)
                        - dual_kernel_series(table, moment, round(r, 6)).value)) + 1e-18 for r in correlations]
    axis.semilogy(correlations, errors, label=f"series to degree {degree}")
axis.set_xlabel("rho")
axis.set_ylabel("|closed form - truncated series|")
axis.set_title("ReLU dual kernel: the series converges slowly at |rho| = 1")
axis.legend()
plt.show()

# %%
checker = registry.checker("dual-kernel")
for name in ["relu", "tanh"]:
    verdict = run_check(checker, {"activation": name, "rho": "0.7"}, fidelity="quick")
    print(verdict.explain())

# %% [markdown]
# ## 4. A check must be able to fail
# Each mutant is a plausible slip in the formula. All of them are rejected.

# %%
for mutant in checker.theorem.mutants:
    verdict = run_check(checker, {"activation": "tanh", "rho": "0.7"}, mutant=mutant.name, fidelity="quick")
    print(f"{mutant.name:24} -> {verdict.outcome}")
