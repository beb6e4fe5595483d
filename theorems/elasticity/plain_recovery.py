"""Plain gradient descent with one fixed weight decay, from a small random start, ends at local-recovery's regularized
optimum: Zhou and Ge's non-local phase and stages are not needed in this project's model  [derived].

Source: a reviewer of Zhou and Ge (NeurIPS 2024, arXiv 2406.01766; rev3 item 6) finds the algorithm unlike practice
and asks what its second phase does. The answer derived here (docs/derivations/elasticity.md#plain-recovery) is for
local-recovery's model (debiased ReLU s, orthonormal teachers, the exact population loss L):

- at a fixed lambda the minimizer of L + (lambda/2)(||a||^2 + ||W||_F^2) is local-recovery's stage optimum, every
  surviving neuron on some +-w*_i, the mass near w*_i equal to a*_i - deficit * lambda, deficit = 1/kappa^(1), and
  the excess loss m* deficit lambda^2 / 2;
- from a small balanced start a neuron's mass u_j = a_j ||w_j|| moves as du_j/dt = -2 |u_j| (dL/du_j + lambda sign
  u_j), so a neuron that has turned towards a teacher grows as soon as |a*_i| kappa^(1) > lambda (the
  teacher-survives assumption), and one that has not shrinks geometrically but never reaches zero.

Claim: plain GD (no stages, no normalization, no local start) from `width` >= 8 m* neurons in uniformly random
directions with |a_j| = ||w_j|| = `init_scale` ends with local-recovery's four readings at its own lambda: the
angular error and the far mass 0, every teacher's mass deficit equal to `deficit`, and L / lambda^2 = m* deficit / 2.
What is not derived is that every teacher recruits a neuron: a narrow start can leave one unfitted, a stationary
point the claim excludes by its width (ours, from the measured share of such starts).
"""

from __future__ import annotations

from theorems.elasticity.local_recovery import CONSTANTS
from theorems.elasticity.local_recovery import THEOREM as LOCAL_RECOVERY
from theorems.statement import Assumption, Parameter, Theorem

# the width per teacher from which the claim is made (ours, from the derivation's table of random starts at m* = 3,
# d = 8: some teacher recruits no neuron in 36 of 40 starts at width m*, 16 of 40 at 2 m*, 6 of 140 at 4 m*, and in
# none of 100 at width 16 nor of 140 at 8 m*)
WIDTH_PER_TEACHER = 8


READINGS = ("directions", "far-mass", "mass-deficit", "excess-loss")
MUTANTS = ("signed-directions", "relu-deficit", "deficit-nudged", "deficit-two-percent-high")


def _wide_start(instance) -> str | None:
    if instance["width"] < WIDTH_PER_TEACHER * instance["teacher_width"]:
        return (f"width = {instance['width']} < {WIDTH_PER_TEACHER} m* = "
                f"{WIDTH_PER_TEACHER * instance['teacher_width']}: a narrower random start leaves some teacher without "
                "a neuron in a share of draws (docs/derivations/elasticity.md#plain-recovery)")
    return None


def _local(name: str) -> Parameter:
    return next(parameter for parameter in LOCAL_RECOVERY.parameters if parameter.name == name)


THEOREM = Theorem(
    id="plain-recovery",
    title="Plain GD with a fixed weight decay from a small random start reaches local-recovery's optimum",
    source="answers a reviewer of Zhou and Ge, 'How does gradient descent learn features - a local analysis for "
           "regularized two-layer neural networks', NeurIPS 2024 (arXiv 2406.01766), rev3 item 6; derived for "
           "thmcheck, docs/derivations/elasticity.md#plain-recovery",
    provenance="derived",
    statement="in local-recovery's model, GD at one fixed lambda from a small random balanced start leaves every "
              "neuron on some +-w*_i or dead, with mass a*_i - deficit * lambda per teacher and excess loss "
              "m* deficit lambda^2 / 2, deficit = 1/(1/4 - 1/(2 pi))",
    parameters=(
        _local("teacher_width"),
        _local("dimension"),
        Parameter(name="width", description="student neurons, in uniformly random directions", kind="integer",
                  default="24", lower=1, upper=64),
        Parameter(name="init_scale", description="|a_j| = ||w_j|| at the start (balanced)", kind="real",
                  default="0.01", lower=1e-4, upper=0.1),
        Parameter(name="regularization", description="lambda, fixed for the whole run", kind="real", default="0.01",
                  lower=1e-3, upper=1.0),
    ),
    assumptions=(*(assumption for assumption in LOCAL_RECOVERY.assumptions if assumption.name != "local-start"),
                 Assumption(name="wide-start", statement="width >= 8 m* (ours): a narrower random start leaves "
                            "some teacher without a neuron in a measured share of draws",
                            check=_wide_start)),
    constants=CONSTANTS,
    # local-recovery's readings at its last stage, which here is the one stage; its rate across stages has no
    # counterpart, and neither have the mutants of its signs and its two decays
    predictions=tuple(p for p in LOCAL_RECOVERY.predictions if p.name in READINGS),
    mutants=tuple(m for m in LOCAL_RECOVERY.mutants if m.name in MUTANTS),
    definitions={"up_to_sign": True, "signed_deficit": True},
)
