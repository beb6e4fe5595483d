"""A class with no live neuron is never fitted: gradient flow on separable data stalls at loss n_+ ell(0) [derived].

Setting (docs/derivations/alignment.md#dead-class): early-alignment's, Min, Mallada and Vidal's gradient flow of
f(x) = sum_j v_j relu(w_j^T x) on mu-orthogonally separable data from W(0) = epsilon W0, balanced, the loss summed over
samples; except that every V+ neuron (v_j(0) > 0) starts in the dead cone {w : w^T x_i < 0 for every i}, which is
open and not empty where the data lie in an open half-space. Answers the reviewer whom the authors cite (r3 on the
goal): training a ReLU network on linearly separable data can stop in a local minimum.

Claim. A neuron active on no sample has zero gradient in w_j and v_j, so every V+ neuron stays where it started, and
the positive outputs f(x+) = sum over V- of v_j relu(w_j^T x+) are at most 0. By Theorem 1 (part 1) every V- neuron
ends in S- or dead, where relu(w_j^T x+) = 0, so f(x+) = 0 exactly once they have left the positive points, while
the negative class is fitted at Theorem 1's rate on its own sub-network. Hence

    L_+(t) = n_+ ell(0) exactly, late in the run (`plateau`), and
    L_-(t) <= L_-(t2-)/(L_-(t2-) alpha (t - t2-) + 1) after t2- (`negatives-fitted`, Theorem 1's rate for S- alone),

so L(t) -> n_+ ell(0) > 0 = inf L: the flow stops at a local minimum (flat in every direction that keeps the V+
neurons dead), not the global one. Theorem 1's part 2 is conditioned on S+ and S- each holding a neuron; here S+
holds none, and the condition is needed.

Mutants: `global-convergence`, part 2 read without its condition (the loss tends to 0); `mean-loss-plateau`, the
plateau n_+ ell(0)/n of a loss averaged instead of summed (the paper sums). The checks are exact (a run read to the
ODE's accuracy), so no mutant is near by a resolution: the claims are identities and a bound of the paper.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize

from theorems.alignment.common import MARGIN_LOSS, SEPARABLE, flow_parameters, instance_data, loss_values
from theorems.alignment.early_alignment import constants_of, loss_on_the_bound, rate_margin
from theorems.statement import (
    Assumption,
    Constant,
    Instance,
    Mutant,
    Nearness,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
)


def dead_direction(x: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The unit direction d that maximizes the dead margin min_i (-d^T x_i) over |d|_inf <= 1 (a linear program),
    normalized, and that margin; None where the data lie in no open half-space (no neuron can be dead on all)."""
    dimension = x.shape[1]
    cost = np.zeros(dimension + 1)
    cost[-1] = -1.0  # maximize t subject to x_i^T d + t <= 0 and -1 <= d <= 1
    result = scipy.optimize.linprog(cost, A_ub=np.column_stack([x, np.ones(len(x))]), b_ub=np.zeros(len(x)),
                                    bounds=[(-1, 1)] * dimension + [(None, None)], method="highs")
    if not result.success or result.x[-1] <= 1e-9:
        return None
    direction = result.x[:-1] / np.linalg.norm(result.x[:-1])
    return direction, float(np.min(-x @ direction))


def dead_start(instance: Instance) -> np.ndarray:
    """W0 with every V+ row moved into the dead cone: the unit dead direction d plus rho times the row's own unit
    direction, rho = margin / (2 max_i ||x_i||), normalized, so that each row's inner product with every x_i is at most
    -margin/2 before normalizing; the V- rows are early-alignment's."""
    x, _, directions, signs = instance_data(instance)
    direction, margin = dead_direction(x)
    spread = margin / (2 * float(np.max(np.linalg.norm(x, axis=1))))
    started = np.array(directions, dtype=float)
    for j in np.nonzero(np.asarray(signs) > 0)[0]:
        row = direction + spread * started[j] / np.linalg.norm(started[j])
        started[j] = row / np.linalg.norm(row) * np.linalg.norm(started[j])
    return started


def _dead_cone(instance: Instance) -> str | None:
    if SEPARABLE.check(instance):
        return None  # reported by the separability assumption
    x = instance_data(instance)[0]
    if dead_direction(x) is None:
        return "the samples lie in no open half-space: no neuron can be inactive on all of them"
    return None


def _small_enough(instance: Instance) -> str | None:
    if SEPARABLE.check(instance):
        return None
    bound = constants_of(instance)["log_epsilon_bound"]
    if float(instance["log_epsilon"]) > bound:
        return f"log epsilon = {instance['log_epsilon']} > {bound:.6g}, the logarithm of the bound (28)"
    return None


def summed_plateau(instance: Instance) -> float:
    """n_+ ell(0): the positive class's summed loss with every positive output 0."""
    _, y, _, _ = instance_data(instance)
    return int(np.sum(y > 0)) * float(loss_values(instance["loss"], 1.0, 0.0))


def plateau_gap(instance: Instance, measured) -> float:
    """L_+ at the end of the run minus the claimed plateau (`plateau_of` of n_+ ell(0) and n: the summed loss's, or a
    mutant's other reading), relative to n_+ ell(0)."""
    _, y, _, _ = instance_data(instance)
    summed = summed_plateau(instance)
    return (measured["positive_loss"] - instance.definition("plateau_of")(summed, len(y))) / summed


def on_the_plateau(instance: Instance):
    """A run whose positive points end exactly at ell(0) each."""
    return {"on the plateau": {"positive_loss": summed_plateau(instance)}}


THEOREM = Theorem(
    id="dead-class",
    title="A class with no live neuron is never fitted: gradient flow stalls at n_+ ell(0) on separable data",
    source="derived for thmcheck (docs/derivations/alignment.md#dead-class) in the setting of Min, Mallada and "
           "Vidal (ICLR 2024) Theorem 1, for a reviewer's claim they cite (r3): ReLU training on linearly separable "
           "data can stop in a local minimum",
    provenance="derived",
    statement="from a small balanced start with every V+ neuron dead on all samples: L_+(t) = n_+ ell(0) late in the "
              "run and L_-(t) <= L_-(t2-)/(L_-(t2-) alpha (t - t2-) + 1) after t2-, so L -> n_+ ell(0) > 0",
    parameters=flow_parameters(log_epsilon="-17300"),
    assumptions=(SEPARABLE,
                 Assumption(name="dead-cone", statement="the samples lie in an open half-space (a V+ neuron can be "
                                                        "inactive on all of them)", check=_dead_cone),
                 Assumption(name="small-initialization", statement="epsilon below the bound (28)",
                            check=_small_enough),
                 MARGIN_LOSS),
    constants=(Constant.exactly("alpha_scale", 1, "the factor on Theorem 1's final rate alpha"),),
    predictions=(
        Prediction(name="plateau", kind="identity",
                   statement="(L_+ at the end of the run - n_+ ell(0)) / (n_+ ell(0)) = 0",
                   predict=lambda instance: Target.point(0, note="the positive class's loss on its plateau"),
                   observable=plateau_gap, references=on_the_plateau,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "once no V- neuron is active on a positive point (the run is "
                                                      "read far past the escape) the positive outputs are exactly 0 "
                                                      "and each positive loss exactly ell(0); the mutants move the "
                                                      "gap by 1 and by 1 - 1/n, and 1e-9 is far below both"),
                   resolution=lambda instance: 1e-9),
        Prediction(name="negatives-fitted", kind="inequality",
                   statement="min_{t >= t2-} L_-(t2-)/(L_-(t2-) alpha (t - t2-) + 1) / L_-(t) - 1 >= 0",
                   predict=lambda instance: Target.at_least(0, note="Theorem 1's rate on the S- sub-network"),
                   observable=rate_margin, references=loss_on_the_bound,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "the margin is read along an ODE run at rtol 1e-11; 1e-6 "
                                                      "leaves room"),
                   resolution=lambda instance: 1e-6),
    ),
    mutants=(
        Mutant(name="global-convergence",
               description="Theorem 1's part 2 read without its condition that S+ hold a neuron: the loss tends to 0",
               definitions={"plateau_of": lambda summed, samples: 0.0}),
        Mutant(name="mean-loss-plateau",
               description="the plateau n_+ ell(0)/n of a loss averaged over the samples (the paper sums)",
               definitions={"plateau_of": lambda summed, samples: summed / samples}),
    ),
    nearness=Nearness("exact", "a plateau read exactly and Theorem 1's own bound: no resolution to be near"),
    definitions={"plateau_of": lambda summed, samples: summed,
                 "rate_form": "reciprocal"},
)
