"""Activation monotonicity during alignment, and trapping in the class cones afterwards (eqs. (7)/(8), Lemma 12)
[paper].

Setting: Min, Mallada and Vidal (ICLR 2024; docs/derivations/alignment.md#activation-monotonicity), gradient flow from a
small balanced start
(`theorems.alignment.common`).
- (7)/(8): while the directional dynamics (4) is accurate, which is the window t <= T = log(1/(sqrt(h) eps))/(4 n X_max)
  of Lemma 3, a V+ neuron never loses a positive point and never gains a negative one, and a V- neuron
  mirrors this. The reason: under (4), d/dt <w_j, x_i> has the sign of y_i s_j on the boundary <w_j, x_i> = 0.
- Lemma 12: S_dead is invariant for every neuron, S+ for V+ and S- for V-, at all times and for both the
  exponential and the logistic loss: w_j(t1 + tau) = w_j(t1) + a conic combination of its own class.
  So after the empirical t1 no neuron changes region.

Predictions, both counted on a fine time grid of one polar-form run (log epsilon = -30 by default):
- `keeps-own-class`: the number of (neuron, point) activations that switch against (7)/(8) for t <= T is 0
  (T is the named constant `window`; --set window=... counts over another window).
- `trapped-after-alignment`: the number of region changes after the empirical t1, through the fitting phase
  to the end of the run, is 0.
Mutants, both rejected by the default run:
- "a V+- neuron never gains a point of its own class": neurons in no cone at t = 0 gain their class.
- "regions are invariant from t = 0": neurons change region before t1.
"""

from __future__ import annotations

from theorems.alignment.common import (
    MARGIN_LOSS,
    SEPARABLE,
    flow_parameters,
    lemma3_window,
    orthogonal_separability,
    reference_data,
)
from theorems.quantity import Quantity
from theorems.statement import (
    Assumption,
    Constant,
    Mutant,
    Prediction,
    ResolutionReason,
    Target,
    Theorem,
)

FLOAT64_DIGITS = 15  # a few float64 operations on the data (a minimum of cosines, one quotient): 15 digits hold


def _data_constant(name, measure):
    """A constant measured on the deterministic data (float64, stated to FLOAT64_DIGITS digits; W_max = 1)."""
    def derive(parameters, digits):
        x, y = reference_data(parameters["per_class"], parameters["dimension"], parameters["configuration"])
        return Quantity(name=name, value=measure(x, y, parameters), route="float64",
                        digits=min(digits, FLOAT64_DIGITS))
    return Constant.of_parameters(name, derive)


CONSTANTS = (
    _data_constant("mu", lambda x, y, parameters: orthogonal_separability(x, y)),
    _data_constant("window", lambda x, y, parameters: lemma3_window(x, float(parameters["log_epsilon"]),
                                                                    parameters["width"], 1.0)),
)


def _window_exists(instance) -> str | None:
    window = float(instance.constant("window"))
    if window <= 0:
        return (f"T = log(1/(sqrt(h) eps))/(4 n X_max) = {window:.4g} <= 0 at log epsilon = "
                f"{instance['log_epsilon']}: the initialization is too large for a directional phase, so (7)/(8) "
                "claim nothing")
    return None


def switches_against(instance, measured) -> int:
    """The confirmed switches against (7)/(8) for t <= T (a point of the neuron's own class lost, or one of the other
    class gained), with the own-class gains where the claim forbids those too."""
    return measured["forbidden"] + (0 if instance.definition("own_class_gains_allowed") else measured["own gained"])


def region_changes(instance, measured) -> int:
    """The confirmed region changes from the empirical t1, or from t = 0 where the claim says so."""
    return measured["from start" if instance.definition("trapped_from") == "start" else "from t1"]


def aligning_neuron(instance):
    """A neuron of V+ during alignment (docs/derivations/alignment.md#activation-monotonicity): (7) lets it gain a
    positive point and its region change before t1, and neither is against the statement; one of each."""
    return {"keeps-own-class": {"gains its class": {"forbidden": 0, "own gained": 1}},
            "trapped-after-alignment": {"changes while aligning": {"from t1": 0, "from start": 1}}}


THEOREM = Theorem(
    id="activation-monotonicity",
    title="V+- neurons keep their class and shed the other while (4) holds; regions are trapped after t1",
    source="Min, Mallada and Vidal, ICLR 2024 (arXiv 2307.12851), eqs. (7)/(8) and Lemma 12",
    provenance="paper",
    statement="for t <= T no V+ neuron loses a positive point or gains a negative one (V- mirrored); after t1 "
              "S+, S- and S_dead are invariant",
    parameters=flow_parameters(log_epsilon="-30"),
    assumptions=(SEPARABLE, MARGIN_LOSS,
                 Assumption(name="small-initialization", statement="T > 0, i.e. epsilon < 1/sqrt(h)",
                            check=_window_exists)),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="keeps-own-class", kind="identity",
                   statement="activation switches against (7)/(8) for t <= T: 0",
                   predict=lambda instance: Target.point(0), observable=switches_against,
                   references=lambda instance: aligning_neuron(instance)["keeps-own-class"],
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "a count of switches, an integer: any violation moves it by at "
                                                      "least 1 (the switches are read on a fine grid of an ODE run "
                                                      "at rtol 1e-11)"),
                   resolution=lambda instance: 0.5),
        Prediction(name="trapped-after-alignment", kind="identity",
                   statement="region changes after the empirical t1: 0",
                   predict=lambda instance: Target.point(0), observable=region_changes,
                   references=lambda instance: aligning_neuron(instance)["trapped-after-alignment"],
                   resolution_reason=ResolutionReason("numerical-accuracy",
                                                      "a count of region changes, an integer: any violation moves it "
                                                      "by at least 1 (read on a fine grid of the run)"),
                   resolution=lambda instance: 0.5),
    ),
    mutants=(
        Mutant(name="never-gains-own-class", description="V+- neurons also never gain a point of their own class",
               definitions={"own_class_gains_allowed": False}),
        Mutant(name="trapped-from-start", description="regions invariant from t = 0, not only after t1",
               definitions={"trapped_from": "start"}),
    ),
    definitions={"own_class_gains_allowed": True, "trapped_from": "t1"},
)
