"""Spike strength after one step: sqrt(N) ||A||_op -> mu1 sqrt(mu1_star^2 + E[y^2]/psi1)  [derived].

Derivation (docs/derivations/onestep.md#spike-strength, [D]): sqrt(N) ||A||_op = mu1 ||zeta|| ||a|| with zeta = X^T y /
n.
Write zeta = (zeta . beta_*) beta_* + P_perp zeta: zeta . beta_* -> mu1_star (the teacher's linear
coefficient) and ||P_perp zeta||^2 -> (d/n) E[y^2], while ||a|| -> 1. The finite-n corrections to
E||zeta||^2 are O(1/n) (exactly: mu1_star^2 (1 - 1/n) + ((d - 1) E y^2 + E[z^2 y^2]) / n).

Observable: A is built from mu1 itself, so observing ||A|| would test nothing about mu1. The check
observes the gradient instead: by Proposition 2 (`spike-decomposition`) ||G_0 - A|| = o(||G_0||), so
sqrt(N) ||G_0||_op / ||a|| has the same limit; dividing by ||a|| (-> 1) removes the fluctuation of the
second-layer norm. Normalization: Ba's (`theorems.onestep.common`). Conversions: Cui et al.'s spike r equals
this with eta~ in place of eta_Ba |a_j| (docs/derivations/equivalence.md#srf-constants).
"""

from __future__ import annotations

from theorems.hermite import hermite_coefficients, square_root
from theorems.onestep import common as onestep
from theorems.statement import Constant, Mutant, Prediction, ResolutionReason, Target, Theorem

CONSTANTS = onestep.base_constants() + (
    Constant.formula("spike_strength", ("mu1", "zeta_norm"), lambda m, z: m * z,
                     description="mu1 sqrt(mu1_star^2 + E[y^2]/psi1)"),
)


def _coefficient(k):
    def derive(parameters, digits):
        return hermite_coefficients(parameters["activation"], k, digits=digits).quantity(k)
    return derive


def _zeta_norm_with(parameter: str | None) -> Constant:
    if parameter is None:  # the E[y^2]/psi1 term dropped
        return Constant.formula("zeta_norm", ("mu1_star",), lambda m: abs(m))
    return Constant.formula("zeta_norm", ("mu1_star", "teacher_second_moment"),
                            lambda m, e, p: square_root(m**2 + e / p), parameters=(parameter,))


THEOREM = Theorem(
    id="spike-strength",
    title="Strength of the gradient spike after one step",
    source="derived for thmcheck from Ba et al. (NeurIPS 2022) Prop. 2 (docs/derivations/onestep.md#spike-strength)",
    provenance="derived",
    statement="sqrt(N) ||A||_op = mu1 ||X^T y/n|| ||a|| -> mu1 sqrt(mu1_star^2 + E[y^2]/psi1)",
    parameters=onestep.parameters(),
    assumptions=(onestep.square_integrable_teacher(), onestep.first_coefficient()),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="gradient-norm", kind="limit",
                   statement="sqrt(N) ||G_0||_op / ||a|| -> spike_strength (G_0 = A + o(||A||) by Prop. 2)",
                   predict=lambda instance: Target.point(instance.constant("spike_strength")),
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "4% of the spike strength: mu1 5% too large (the kept near "
                                                      "mutant) moves it by 1.25 resolutions, psi2 for psi1 by four, "
                                                      "dropping the label term by five"),
                   resolution=lambda instance: 0.04 * abs(float(instance.constant("spike_strength")))),
    ),
    mutants=(
        Mutant(name="mu1-as-c2", description="mu1 replaced by c_2", constants={"mu1": _coefficient(2)}),
        Mutant(name="mu1-as-mean", description="mu1 replaced by E sigma(Z) = c_0", constants={"mu1": _coefficient(0)}),
        Mutant(name="psi-swapped", description="psi2 in place of psi1 in E[y^2]/psi1",
               constants={"zeta_norm": _zeta_norm_with("psi2")}),
        Mutant(name="no-label-term", description="the E[y^2]/psi1 term dropped",
               constants={"zeta_norm": _zeta_norm_with(None)}),
        Mutant(name="mu1-five-percent", description="mu1 5% too large (a near error: 1.25 resolutions)",
               constant_factors={"mu1": 1.05}),
    ),
)
