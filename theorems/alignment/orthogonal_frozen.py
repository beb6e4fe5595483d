"""With orthogonal inputs an inactive point never becomes active, and its inner product stays frozen  [derived].

Setting: Boursier, Pillaud-Vivien and Flammarion (NeurIPS 2022; docs/derivations/alignment.md#orthogonal-frozen, P13,
[D]): orthogonal inputs
x_i, a two-layer ReLU network trained by gradient flow from a small balanced start (`theorems.alignment.common`),
here with the square loss, as in their paper, or any loss of the family. Derivation:
dw_j/dt = v_j sum_i g_i 1{<w_j, x_i> > 0} x_i. For x_k orthogonal to every other point,

    d/dt <w_j, x_k> = v_j g_k ||x_k||^2 1{<w_j, x_k> > 0},

so while x_k is inactive for neuron j its inner product does not move: it is frozen, and the activation
indicators can only switch off. Non-orthogonal data break this: with mu > 0, the neurons gain points.

Predictions, on one polar-form run (log epsilon = -5) to the end of fitting, on a fine grid:
- `no-activation-gained`: the number of 0 -> 1 switches of 1{<w_j, x_i> > 0} is 0.
- `inactive-frozen`: the largest change of <w_j, x_k>/||w_j(0)|| ||x_k|| over a stretch where x_k is inactive for
  neuron j is 0, within the solver's tolerance (1e-8).
Mutants:
- the same claim for the reference data (non-orthogonal, with the assumption dropped);
- "the indicators never change" (also no 1 -> 0 switches), which the run rejects.
"""

from __future__ import annotations

from theorems.alignment.common import LOSSES
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


def switches_counted(instance: Instance, measured) -> int:
    """The 0 -> 1 switches measured (gained), with the 1 -> 0 ones (lost) where the claim counts those too."""
    return measured["gained"] + (measured["lost"] if instance.definition("count_switches_off") else 0)


def one_switch_off(instance: Instance):
    """A positive neuron (v_j > 0) active at the start on a negative point x_k: while f is small, g_k = -ell'(-1, f)
    < 0, so d/dt <w_j, x_k> = v_j g_k ||x_k||^2 < 0 and the point switches off; one 1 -> 0 switch, no 0 -> 1."""
    return {"one switch off": {"gained": 0, "lost": 1}}


def _orthogonal(instance: Instance) -> str | None:
    if instance["data"] != "orthogonal":
        return f"data = {instance['data']}: not orthogonal"
    if instance["dimension"] < 2 * instance["per_class"]:
        return f"D = {instance['dimension']} < n = {2 * instance['per_class']}: orthogonal data need D >= n"
    return None


THEOREM = Theorem(
    id="orthogonal-frozen",
    title="Orthogonal inputs: an inactive point never becomes active (indicators non-increasing)",
    source="derived for thmcheck (docs/derivations/alignment.md) in the setting of Boursier, Pillaud-Vivien and "
           "Flammarion, NeurIPS 2022 (arXiv 2206.00939)",
    provenance="derived",
    statement="for orthogonal x_i, d/dt <w_j, x_k> = v_j g_k ||x_k||^2 1{<w_j, x_k> > 0}: inactive inner products "
              "are frozen and 1{<w_j, x_k> > 0} never switches on",
    parameters=(
        Parameter(name="data", description="orthogonal (the setting) or reference "
                                           "(docs/derivations/alignment.md#polar-form, for the "
                                           "mutant)", kind="choice", default="orthogonal",
                  choices=("orthogonal", "reference")),
        Parameter(name="per_class", description="points per class (n = 2 per_class)", kind="integer", default="3",
                  lower=1, upper=10),
        Parameter(name="dimension", description="input dimension D (>= n for orthogonal data)", kind="integer",
                  default="8", lower=2, upper=40),
        Parameter(name="width", description="hidden neurons h", kind="integer", default="12", lower=2, upper=100),
        Parameter(name="configuration", description="which deterministic W0", kind="integer", default="0", lower=0,
                  upper=1000),
        Parameter(name="log_epsilon", description="log epsilon of W(0) = epsilon W0", kind="real", default="-5",
                  lower=-1000.0, upper=2.0),
        Parameter(name="loss", description="loss summed over samples", kind="choice", default="square", choices=LOSSES),
    ),
    assumptions=(Assumption(name="orthogonal", statement="the inputs are pairwise orthogonal", check=_orthogonal),),
    constants=(Constant.exactly("gain_rate", 0),),
    predictions=(
        Prediction(name="no-activation-gained", kind="identity",
                   statement="0 -> 1 switches of the activation indicators: 0",
                   predict=lambda instance: Target.point(0), observable=switches_counted, references=one_switch_off,
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "a count of 0 -> 1 switches, an integer: any gained activation "
                                                      "moves it by 1"),
                   resolution=lambda instance: 0.5),
        Prediction(name="inactive-frozen", kind="identity",
                   statement="largest relative change of <w_j, x_k> while x_k is inactive: gain_rate (0)",
                   predict=lambda instance: Target.point(instance.constant("gain_rate")),
                       resolution_reason=ResolutionReason("numerical-accuracy",
                                                          "the inner products are read along an ODE run with solver "
                                                          "tolerance 1e-8; 1e-3 leaves room above it, while non- "
                                                          "orthogonal data (the negative control) move them by O(1)"),
                       resolution=lambda instance: 1e-3),
    ),
    mutants=(
        Mutant(name="non-orthogonal", description="the same claim for the reference data (mu > 0)",
               parameters={"data": "reference"},
               dropped_assumptions=("orthogonal",)),
        Mutant(name="indicators-constant", description="the indicators never change (no 1 -> 0 switches either)",
               definitions={"count_switches_off": True}),
    ),
    definitions={"count_switches_off": False},
)
