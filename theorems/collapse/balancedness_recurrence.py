"""Balancedness of a linear layer pair: the exact gradient-descent law with weight decay, its flow limit and its floor
[derived].

Statements (docs/derivations/collapse.md#balancedness-recurrence, [D]; Du, Hu and Lee 2018 for the unregularized flow
[S]).
Let layer l's output enter layer l+1 linearly. With D := W_{l+1}^T W_{l+1} - W_l W_l^T and one step
W <- (1 - eta lambda) W - eta grad W of gradient descent with weight decay (penalty (lambda/2) ||W||^2),
the cross terms cancel by the identity W_{l+1}^T grad W_{l+1} = grad W_l W_l^T (theorem
`balancedness-identity`) and

    (recurrence)  D_{k+1} = (1 - eta lambda)^2 D_k + eta^2 S_k,   S_k := G_{l+1}^T G_{l+1} - G_l G_l^T,

exactly. Unrolled, ||D_k|| <= (1 - eta lambda)^(2k) ||D_0|| + eta^2 sum_{j<k} (1 - eta lambda)^(2(k-1-j)) ||S_j||
(the floor bound, in any norm), and as eta -> 0 at fixed t = k eta the gradient flow gives
D(t) = exp(-2 lambda t) D(0), with an O(eta) error. Named constants: decay_factor = (1 - eta lambda)^2
(a penalty lambda ||W||^2 without the 1/2 would give (1 - 2 eta lambda)^2) and
flow_decay = exp(-2 lambda t) at t = `flow_time`. For a homogeneous activation between the layers (ReLU)
only the diagonal of D obeys the law; for a smooth non-homogeneous one (tanh) nothing does: the
checks run there too and report it, outside the assumption.

The checks use one small network (linear pair, then tanh, then a linear read-out, square loss): the
recurrence for one step in float64 and in mpmath at `digits` digits, with the residual taken against
`decay_factor` as the instance gives it (so `--set decay_factor=...` and the mutants change what is
tested); the floor along a run; the flow limit as the observed order of convergence in eta.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy

from theorems.collapse.balancedness_identity import BETWEEN, LINEAR_LINK, WIDTH
from theorems.formula import exact_number, to_mpf
from theorems.quantity import Quantity
from theorems.statement import (
    Constant,
    Instance,
    Mutant,
    Parameter,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
)

CONSTANTS = (
    Constant.formula("decay_factor", (), lambda eta, decay: (1 - eta * decay) ** 2,
                     parameters=("learning_rate", "weight_decay"), description="(1 - eta lambda)^2"),
    Constant.formula("flow_decay", (), lambda decay, time: sympy.exp(-2 * decay * time),
                     parameters=("weight_decay", "flow_time"), description="exp(-2 lambda t) at t = flow_time"),
)


def _homogeneous_link(instance: Instance) -> str | None:
    if instance["between"] == "tanh":
        return "tanh is not positively homogeneous: not even the diagonal law is claimed (see recurrence-float64)"
    return None


def _zero(instance: Instance) -> Target:
    return Target.point(0, note="relative residual, zero in exact arithmetic")


def _float64_resolution(instance: Instance) -> float:
    return 1e-12


def _mpmath_resolution(instance: Instance) -> float:
    return 10.0 ** (5 - instance["digits"])


def _unsquared(parameters, digits):
    eta, decay = exact_number(parameters["learning_rate"]), exact_number(parameters["weight_decay"])
    return Quantity(name="decay_factor", value=to_mpf(1 - eta * decay, digits), route="mutant", digits=digits)


def _doubled(parameters, digits):
    eta, decay = exact_number(parameters["learning_rate"]), exact_number(parameters["weight_decay"])
    return Quantity(name="decay_factor", value=to_mpf((1 - 2 * eta * decay) ** 2, digits), route="mutant",
                    digits=digits)


def _step_residual(measured, decay, eta, sqrt, *, diagonal: bool):
    """||D_1 - decay D_0 - eta^2 S_0|| / ||D_1||, of the whole matrices or (`diagonal`) of their diagonals."""
    residual, following = measured["D_next"] - decay * measured["D"] - eta**2 * measured["S"], measured["D_next"]
    if diagonal:
        residual, following = residual.diagonal(), following.diagonal()
    return sqrt((residual**2).sum()) / sqrt((following**2).sum())


def float64_residual(instance: Instance, measured):
    """The recurrence's relative residual on one measured step (D, D_next, S) in float64."""
    return _step_residual(measured, float(instance.constant("decay_factor")), float(instance["learning_rate"]),
                          np.sqrt, diagonal=False)


def diagonal_residual(instance: Instance, measured):
    """The same on the diagonals, the per-neuron law."""
    return _step_residual(measured, float(instance.constant("decay_factor")), float(instance["learning_rate"]),
                          np.sqrt, diagonal=True)


def mpmath_residual(instance: Instance, measured):
    """The recurrence's relative residual on one step measured in mpmath, at `digits` digits (decay_factor from its
    exact form where it has one, not from the constants' 30 digits)."""
    digits = instance["digits"]
    with mpmath.workdps(digits):
        exact = instance.constants["decay_factor"].exact
        decay = to_mpf(exact, digits) if exact is not None else mpmath.mpf(instance.constant("decay_factor"))
        return _step_residual(measured, decay, to_mpf(instance["learning_rate"], digits), mpmath.sqrt,
                              diagonal=False)


def decaying_step(instance: Instance, *, digits: int | None = None):
    """A step at a point the network fits exactly (its data gradients vanish, S_0 = 0): D_1 = (1 - eta lambda)^2 D_0,
    here with D_0 = [[1]]; in float64, or in mpmath at `digits`."""
    eta, decay = exact_number(instance["learning_rate"]), exact_number(instance["weight_decay"])
    if digits is None:
        factor = float((1 - eta * decay) ** 2)
        return {"fitted": {"D": np.array([[1.0]]), "D_next": np.array([[factor]]), "S": np.array([[0.0]])}}
    with mpmath.workdps(digits):
        one, zero = mpmath.mpf(1), mpmath.mpf(0)
        factor = to_mpf((1 - eta * decay) ** 2, digits)
        matrix = lambda value: np.array([[value]], dtype=object)  # noqa: E731
        return {"fitted": {"D": matrix(one), "D_next": matrix(factor), "S": matrix(zero)}}


def floor_bounds(instance: Instance, measured) -> list[float]:
    """The floor bound at each step of a run from its measured first ||D||, per-step ||S|| and the run's round-off
    allowances (formed: of D as computed; updated: of one update; the allowance of S is in `sources`):
    bound_0 = ||D_0|| + formed_0, bound_{k+1} = decay_factor bound_k + source_weight eta^2 ||S_k|| + updated_k."""
    decay, eta = float(instance.constant("decay_factor")), float(instance["learning_rate"])
    source_weight = instance.definition("source_weight")
    bounds = [measured["norms"][0] + measured["formed"][0]]
    for source, updated in zip(measured["sources"][:-1], measured["updated"][:-1]):
        bounds.append(decay * bounds[-1] + source_weight * eta**2 * source + updated)
    return bounds


def floor_margin(instance: Instance, measured):
    """The smallest 1 - (the smallest ||D_k|| the computed one allows) / bound_k over the run; -inf where a bound of
    0 meets a D that cannot be 0."""
    margin = math.inf
    for norm, formed, bound in zip(measured["norms"], measured["formed"], floor_bounds(instance, measured)):
        reachable = max(norm - formed, 0.0)
        if bound > 0:
            margin = min(margin, 1 - reachable / bound)
        elif reachable > 0:
            margin = -math.inf
    return margin


def floor_attained(instance: Instance) -> float | None:
    """||D_1|| / bound_1 from D_0 = 0, where D_1 = eta^2 S_0: 1 / source_weight (none without a source term)."""
    source_weight = instance.definition("source_weight")
    return 1 / source_weight if source_weight else None


def first_step(instance: Instance):
    """A run's first step from D_0 = 0 in exact arithmetic, where D_1 = eta^2 S_0 attains the bound (||S_0|| = 1)."""
    eta = float(instance["learning_rate"])
    return {"first step": {"norms": [0.0, eta**2], "formed": [0.0, 0.0], "updated": [0.0, 0.0],
                           "sources": [1.0, 0.0]}}


def flow_error(instance: Instance, initial, final) -> float:
    """||D(k eta) - flow_decay D(0)||_F / ||D(0)||_F."""
    return np.linalg.norm(final - float(instance.constant("flow_decay")) * initial) / np.linalg.norm(initial)


def flow_order(instance: Instance, measured):
    """The observed order log2(e(eta)/e(eta/2)) of the distance to the flow between two step sizes: `measured` holds
    D(0) (initial) and D at flow_time after the coarser and the finer runs (finals)."""
    coarse, fine = (flow_error(instance, measured["initial"], final) for final in measured["finals"])
    with np.errstate(divide="ignore", invalid="ignore"):  # both 0 (flow_time = 0): no order, NaN, which the reader says
        return np.log2(coarse / fine)


def pure_decay(instance: Instance):
    """Runs where the data gradients vanish: D_k = (1 - eta lambda)^(2k) D_0 exactly, at eta and eta/2 (k eta =
    flow_time); the distance to exp(-2 lambda t) D_0 is O(eta)."""
    eta, decay, time = (exact_number(instance[name]) for name in ("learning_rate", "weight_decay", "flow_time"))
    steps = max(int(round(time / eta)), 1)
    with mpmath.workdps(30):
        finals = [np.array([[float(to_mpf(1 - time / (steps * 2**level) * decay, 30) ** (2 * steps * 2**level))]])
                  for level in (0, 1)]
    return {"pure decay": {"initial": np.array([[1.0]]), "finals": finals}}


THEOREM = Theorem(
    id="balancedness-recurrence",
    title="Balancedness of a linear layer pair under gradient descent with weight decay",
    source="derived for thmcheck (docs/derivations/collapse.md#balancedness-recurrence); unregularized flow: Du, Hu "
           "and Lee (2018)",
    provenance="derived",
    statement="one GD step with weight decay gives exactly D_{k+1} = (1 - eta lambda)^2 D_k + eta^2 S_k, D = W_{l+1}^T "
              "W_{l+1} - W_l W_l^T; hence the floor bound, and D(t) = exp(-2 lambda t) D(0) under the flow",
    parameters=(
        Parameter(name="learning_rate", description="step size eta", kind="real", default="0.05", lower=1e-6,
                  upper=10.0),
        Parameter(name="weight_decay", description="lambda of the penalty (lambda/2)||W||^2", kind="real",
                  default="0.01", lower=0.0, upper=10.0),
        BETWEEN,
        WIDTH,
        Parameter(name="digits", description="mpmath precision of the exact-arithmetic check (its stated residual "
                  "10^(5 - digits) must be a float64 above 1e-300, the verdict's own arithmetic)", kind="integer",
                  default="50", lower=20, upper=300),
        Parameter(name="flow_time", description="time t of the gradient-flow comparison (k eta = t)", kind="real",
                  default="25", lower=0.0, upper=1000.0),
    ),
    assumptions=(LINEAR_LINK,),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="recurrence-float64", kind="identity",
                   statement="one GD step in float64: ||D_1 - decay_factor D_0 - eta^2 S_0|| / ||D_1|| <= 1e-12",
                   predict=_zero, observable=float64_residual, references=decaying_step,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "one GD step in float64 on O(1) matrices: the residual is "
                                                      "round-off, near 1e-15 relative; 1e-12 leaves room"),
                   resolution=_float64_resolution),
        Prediction(name="diagonal-float64", kind="identity",
                   statement="the diagonal of the law (per neuron: ||row of W_l||^2 - ||column of W_{l+1}||^2) holds "
                             "for a linear or a positively homogeneous (relu) link; relative residual <= 1e-12",
                   predict=_zero, observable=diagonal_residual, references=decaying_step,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "one GD step in float64 on O(1) matrices: the residual is "
                                                      "round-off, near 1e-15 relative; 1e-12 leaves room"),
                   resolution=_float64_resolution, applies=_homogeneous_link),
        Prediction(name="recurrence-mpmath", kind="identity",
                   statement="the same step in mpmath at `digits` digits: relative residual <= 10^(5 - digits)",
                   predict=_zero, observable=mpmath_residual,
                   references=lambda instance: decaying_step(instance, digits=instance["digits"]),
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the step is computed at `digits` digits, so the residual is "
                                                      "near 10^-digits; five digits are left for cancellation in D_1 "
                                                      "- decay_factor D_0"),
                   resolution=_mpmath_resolution),
        Prediction(name="floor", kind="inequality",
                   statement="along 2000 steps from an exactly balanced start (D_0 = 0): ||D_k||_F <= decay_factor^k "
                             "||D_0||_F + eta^2 sum_j decay_factor^(k-1-j) ||S_j||_F",
                   predict=lambda instance: Target.at_least(0, note="smallest margin 1 - ||D_k||/bound_k over the run"),
                   observable=floor_margin, references=first_step,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "2.5%: the source term 5% low (the kept near mutant) moves the "
                                                      "margin by 0.053 at the first step from D_0 = 0, where the bound "
                                                      "is attained: two resolutions. The run is float64, read with "
                                                      "its round-off bounded (Higham's gamma_n on D and S, 4u ||W|| "
                                                      "(||W|| + eta ||G||) per update)"),
                   resolution=lambda instance: 0.025),
        Prediction(name="gradient-flow", kind="rate",
                   statement="||D_k - flow_decay D_0|| at k eta = flow_time vanishes at order 1 in eta (eta, eta/2, "
                             "..., eta/8)",
                   predict=lambda instance: Target.point(1, note="observed order of convergence in eta"),
                   observable=flow_order, references=pure_decay,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "the claimed order of convergence in eta is 1; the nearest "
                                                      "plausible error, an O(eta^2) or O(1) discrepancy, gives order "
                                                      "2 or 0, five resolutions away"),
                   resolution=lambda instance: 0.2),
    ),
    mutants=(
        Mutant(name="decay-not-squared", description="decay factor (1 - eta lambda) instead of its square",
               constants={"decay_factor": _unsquared}),
        Mutant(name="penalty-without-half",
               description="decay factor (1 - 2 eta lambda)^2, as for a penalty lambda ||W||^2",
               constants={"decay_factor": _doubled}),
        Mutant(name="flow-rate-halved", description="under the flow D(t) = exp(-lambda t) D(0)",
               constants={"flow_decay": Constant.formula("flow_decay", (), lambda decay, time: sympy.exp(-decay * time),
                                                         parameters=("weight_decay", "flow_time"))}),
        Mutant(name="floor-dropped", description="||D_k|| <= decay_factor^k ||D_0||: the eta^2 source term dropped",
               definitions={"source_weight": 0}),
        Mutant(name="source-five-percent-low", description="the eta^2 source term 5% smaller (a near error: the "
               "first step from a balanced start attains the floor)", definitions={"source_weight": 0.95}),
        Mutant(name="through-tanh", description="the law claimed for a pair linked through tanh (assumption dropped)",
               dropped_assumptions=("linear-link",), parameters={"between": "tanh"}),
        Mutant(name="full-law-through-relu",
               description="the full matrix law claimed through relu, where only its diagonal holds",
               dropped_assumptions=("linear-link",), parameters={"between": "relu"}),
    ),
    definitions={"source_weight": 1},
)
