"""The conservation law v_j^2 - ||w_j||^2 of a two-layer network with a 1-homogeneous activation  [paper].

Statement (Min, Mallada and Vidal, ICLR 2024, Section 2, citing Du et al. 2018; docs/derivations/alignment.md#setting,
P1;
exact forms [D] 6.3). Take f(x) = sum_j v_j sigma(w_j^T x) and any loss summed over samples, with
g_i = -d ell / d f(x_i). Under gradient flow,

    d/dt (v_j^2 - ||w_j||^2) = 2 v_j sum_i g_i [sigma(w_j^T x_i) - sigma'(w_j^T x_i) w_j^T x_i] = 0

whenever sigma(z) = z sigma'(z) on every piece, i.e. sigma is 1-homogeneous (ReLU, leaky ReLU). So a balanced
initialization stays balanced, and sign v_j never changes. One gradient-descent step with step eta changes
the quantity by exactly eta^2 (g_v^2 - ||g_w||^2): the first-order term is the same Euler identity. For
tanh, sigma(z) - z sigma'(z) = (2/3) z^3 + ..., so the law fails: the activation is outside the assumptions,
and the check shows the drift.

Predictions:
- `homogeneity` (identity): sympy expands 2 v vdot - 2 w.wdot with v, w, x_i and g_i symbolic, on every
  activation pattern (each sample on each piece of sigma). The number of patterns where it is not identically
  0 is 0.
- `flow-drift` (identity): along a Cartesian DOP853 run (rtol 1e-10) of the reference data, the largest
  change of v_j^2 - ||w_j||^2, relative to v_j^2 + ||w_j||^2, is 0 within 100 rtol.
- `descent-step` (identity): along a GD run, the largest relative difference between the change
  Delta(v_j^2 - ||w_j||^2) and step_coefficient eta^step_power (g_v^2 - ||g_w||^2) is 0 within round-off;
  step_coefficient = 1, step_power = 2.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy

from theorems.activations import z
from theorems.alignment.common import LINEAR_EPSILON_LOWER, flow_parameters, separable_data
from theorems.quantity import Quantity
from theorems.statement import (
    Assumption,
    Constant,
    Instance,
    Mutant,
    Parameter,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
)


def conservation_defects(activation, samples: int = 3, dimension: int = 3) -> list[sympy.Expr]:
    """The non-zero values of 2 v vdot - 2 w.wdot (one neuron; v, w, x_i, g_i symbolic), one per activation
    pattern (an assignment of a piece of sigma to each sample) where it does not expand to 0."""
    v = sympy.Symbol("v")
    w = sympy.symbols(f"w0:{dimension}")
    x = [sympy.symbols(f"x{i}_0:{dimension}") for i in range(samples)]
    g = sympy.symbols(f"g0:{samples}")
    pieces = [piece for _, _, piece in activation.pieces()]
    defects = []
    for pattern in itertools.product(pieces, repeat=samples):
        pre = [sum(wk * xk for wk, xk in zip(w, x[i])) for i in range(samples)]
        v_dot = sum(g[i] * pattern[i].subs(z, pre[i]) for i in range(samples))
        w_dot = [v * sum(g[i] * sympy.diff(pattern[i], z).subs(z, pre[i]) * x[i][k] for i in range(samples))
                 for k in range(dimension)]
        expression = sympy.expand(2 * v * v_dot - 2 * sum(wk * dk for wk, dk in zip(w, w_dot)))
        if expression != 0:
            defects.append(expression)
    return defects


def _homogeneous(instance: Instance) -> str | None:
    for _, _, piece in instance["activation"].pieces():
        if sympy.expand(piece - z * sympy.diff(piece, z)) != 0:
            return f"sigma = {instance['activation'].name} is not 1-homogeneous: sigma(z) - z sigma'(z) = " \
                   f"{sympy.expand(piece - z * sympy.diff(piece, z))} on a piece"
    return None


CONSTANTS = (Constant.exactly("step_power", 2, "the power of eta in the change of v^2 - ||w||^2 over one GD step"),
             Constant.exactly("step_coefficient", 1, "the factor on eta^2 (g_v^2 - ||g_w||^2) in that change"))



def step_defect(instance: Instance, measured):
    """The largest |change of v_j^2 - ||w_j||^2 - step_coefficient eta^step_power source_j| over the measured GD
    steps, each relative to its step's largest eta^2 |source_j|, source = g_v^2 - ||g_w||^2 (1e-300 where that is
    0)."""
    eta, power = measured["eta"], float(instance.constant("step_power"))
    coefficient = float(instance.constant("step_coefficient"))
    worst = 0.0
    for change, source in zip(measured["changes"], measured["sources"]):
        scale = max(float(np.max(np.abs(eta**2 * source))), 1e-300)
        worst = max(worst, float(np.max(np.abs(change - coefficient * eta**power * source))) / scale)
    return worst


def one_step(instance: Instance):
    """A GD step of a homogeneous network: the cross term 2 eta (v g_v - w . g_w) vanishes (the conservation law),
    so the change is exactly eta^2 (g_v^2 - ||g_w||^2); here eta = 1/10 and a source of 1."""
    return {"one step": {"eta": 0.1, "changes": [np.array([0.1**2])], "sources": [np.array([1.0])]}}


THEOREM = Theorem(
    id="conservation-law",
    title="v_j^2 - ||w_j||^2 is conserved by gradient flow for 1-homogeneous activations; GD moves it by eta^2",
    source="Min, Mallada and Vidal, 'Early neuron alignment in two-layer ReLU networks with small initialization', "
           "ICLR 2024 (arXiv 2307.12851), Section 2 (after Du et al. 2018); exact forms "
           "docs/derivations/alignment.md#conservation-law",
    provenance="paper",
    statement="d/dt (v_j^2 - ||w_j||^2) = 0 under gradient flow for sigma(z) = z sigma'(z); one GD step changes it by "
              "eta^2 (g_v^2 - ||g_w||^2)",
    parameters=(
        Parameter(name="activation", description="a 1-homogeneous activation (relu, leaky relu)", kind="activation",
                  default="relu"),
        *flow_parameters(log_epsilon="-1", log_epsilon_lower=LINEAR_EPSILON_LOWER),
        Parameter(name="step_size", description="eta of the GD run", kind="real", default="0.02", lower=1e-6,
                  upper=1.0),
    ),
    assumptions=(Assumption(name="homogeneous", statement="sigma(z) = z sigma'(z) on every piece (1-homogeneous)",
                            check=_homogeneous),
                 Assumption(name="separable", statement="mu > 0 (the reference data; Assumption 1)",
                            check=separable_data)),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="homogeneity", kind="identity",
                   statement="activation patterns on which 2 v vdot - 2 w.wdot is not identically 0: 0",
                   predict=lambda instance: Target.point(0, note="sympy, one neuron, 3 samples in D = 3"),
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "a count of activation patterns on which sympy does not "
                                                      "simplify the derivative to 0, an integer: any failing pattern "
                                                      "moves it by 1"),
                   resolution=lambda instance: 0.5),
        Prediction(name="flow-drift", kind="identity",
                   statement="max_t,j |Delta(v_j^2 - ||w_j||^2)| / max_t (v_j^2 + ||w_j||^2) along gradient flow: 0",
                   predict=lambda instance: Target.point(0),
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the flow is solved with DOP853 at rtol 1e-10, so the conserved "
                                                      "quantity drifts by at most about 100 rtol; 1e-3 is far above "
                                                      "that and far below tanh's drift, the negative control"),
                   resolution=lambda instance: 1e-3),
        Prediction(name="descent-step", kind="identity",
                   statement="max relative |Delta(v_j^2 - ||w_j||^2) - eta^step_power (g_v^2 - ||g_w||^2)| per GD "
                             "step: 0",
                   predict=lambda instance: Target.point(0), observable=step_defect, references=one_step,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "0.25: the kept near mutant, the change with a Taylor term's 1/2 "
                                                      "(eta^2/2 times the source), is 0.5 off relative to it: two "
                                                      "resolutions. The identity holds to float64 round-off (near "
                                                      "1e-14)"),
                   resolution=lambda instance: 0.25),
    ),
    mutants=(
        Mutant(name="tanh-conserved", description="conservation claimed for tanh", parameters={"activation": "tanh"},
               dropped_assumptions=("homogeneous",)),
        Mutant(name="linear-in-step", description="the GD change linear in eta: eta (g_v^2 - ||g_w||^2)",
               constants={"step_power": lambda parameters, digits: Quantity.exactly("step_power", 1, digits)}),
        Mutant(name="taylor-half", description="the GD change eta^2 (g_v^2 - ||g_w||^2)/2, with the 1/2 of a "
                                               "second-order Taylor term (a near error)",
               constant_factors={"step_coefficient": 0.5}),
    ),
)
