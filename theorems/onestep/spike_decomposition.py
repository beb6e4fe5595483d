"""Ba et al. (2022), Proposition 2: the first gradient step is a rank-one spike plus a small remainder.

Statement (Ba, Erdogdu, Suzuki, Wang, Wu, Yang, NeurIPS 2022, Prop. 2; docs/derivations/onestep.md#spike-strength).
Under
Assumption 1, with A := (mu_1 / (n sqrt(N))) X^T y a^T, with probability at least 1 - n exp(-c log^2 n),

    ||G_0 - A||_op <= (C log^2 n / sqrt(n)) ||G_0||_op.

Normalization: Ba's (see `theorems.onestep.common`); G_0 is the gradient of eq. (2.1) at W_0.

Checked here:
- `residual-rate` (rate): across sizes, the fitted exponent b of n -> ratio(n) sqrt(n) / log^2 n, where
  ratio = ||G_0 - A|| / ||G_0||, must not be positive: the ratio decays at least as fast as
  log^2 n / sqrt(n) (an exponent interval, one-sided, from a log-log fit with its t interval).
- `spike-coefficient` (limit): the coefficient of G_0 along the spike, u^T G_0 v sqrt(N) / (||zeta|| ||a||)
  with u = zeta/||zeta||, v = a/||a||, zeta = X^T y/n, tends to mu1: a consequence of the proposition
  (|u^T (G_0 - A) v| <= ||G_0 - A||_op), and the sharp test of the constant mu1 (a few percent off is
  detected, which the rate alone cannot see at these sizes).
Named constant: mu1 (Ba's mu_1 = c_1(sigma) = E sigma'(Z)).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from theorems.hermite import hermite_coefficients
from theorems.onestep import common as onestep
from theorems.statement import Instance, Mutant, Prediction, ResolutionReason, Target, Theorem

CONSTANTS = onestep.base_constants()[:1]  # mu1


def spike_direction(zeta: np.ndarray) -> np.ndarray:
    """The left factor of the spike A: zeta = X^T y / n itself."""
    return zeta


def _fixed_axis(zeta: np.ndarray) -> np.ndarray:
    # a data-independent direction of the same length (mutant: "the spike along a random direction")
    axis = np.zeros_like(zeta)
    axis[0] = np.linalg.norm(zeta)
    return axis


RATE_RESOLUTION = 0.17
RATE_REASON = ("0.17 in the exponent: the named error, the rate n^-1, is 1/2 from the claim, but where the ratio "
               "decays like n^-1/2 the claim's log^2 n takes 2/ln n of that (0.29 at n = 1000), leaving it 0.18-0.21 "
               "above the bound at the sizes checked; no exponent error below about a quarter is refutable at any "
               "simulated size (docs/derivations/onestep.md#spike-decomposition)")


def _rate_target(instance: Instance) -> Target:
    return Target(value=mpmath.mpf(0), lower=mpmath.mpf("-inf"), upper=mpmath.mpf(0),
                  note=f"claimed: ratio <= C log^2 n / n^{instance.definition('rate_power'):g}, so the fitted "
                       f"exponent of ratio n^{instance.definition('rate_power'):g} / log^2 n is at most 0")


def spike(instance: Instance, zeta: np.ndarray, second_layer: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """A = mu1/(n sqrt(N)) X^T y a^T as (scale, left, right), A = scale left right^T: mu1 / sqrt(N), the spike
    direction of zeta = X^T y / n, and a."""
    scale = float(instance.constant("mu1")) / math.sqrt(len(second_layer))
    return scale, instance.definition("spike_direction")(zeta), second_layer


def scaled_residual(instance: Instance, measured):
    """One draw's ratio ||G_0 - A||_op / ||G_0||_op times n^(1/2) / log^2 n, whose exponent across n the claim
    bounds by 0."""
    samples = np.asarray(measured["samples"], dtype=float)
    return measured["ratio"] * samples ** instance.definition("rate_power") / np.log(samples) ** 2


def slowest_allowed_decay(instance: Instance):
    """The ratio decaying exactly as log^2 n / sqrt(n) across n = 100 to 800: the slowest decay the proposition
    allows (C = 1)."""
    samples = np.array([100.0, 200.0, 400.0, 800.0])
    return {"claimed rate": {"samples": samples, "ratio": np.log(samples) ** 2 / np.sqrt(samples)}}


def spike_coefficient(instance: Instance, measured):
    """One draw's coefficient of G_0 along the spike, u^T G_0 v sqrt(N) / (||zeta|| ||a||), u the unit spike
    direction, v = a/||a|| (measured: zeta, G_0 v, ||a|| and N)."""
    direction = instance.definition("spike_direction")(measured["zeta"])
    length = np.linalg.norm(direction)
    return float((direction / length) @ measured["gradient_along_a"] * math.sqrt(measured["width"])
                 / (length * measured["second_layer_norm"]))


def pure_spike(instance: Instance):
    """A gradient that is its spike alone, G_0 = A (zeta = e_2, a = e_1, N = 1): its coefficient is mu1."""
    mu1 = float(instance.constant("mu1"))
    return {"no remainder": {"zeta": np.array([0.0, 1.0]), "gradient_along_a": np.array([0.0, mu1]), "width": 1,
                             "second_layer_norm": 1.0}}


def second_coefficient(parameters, digits):
    """c_2(sigma), for the mutant that confuses Ba's mu_2 with the second Hermite coefficient."""
    return hermite_coefficients(parameters["activation"], 2, digits=digits).quantity(2)


THEOREM = Theorem(
    id="spike-decomposition",
    title="One gradient step is a rank-one spike plus a vanishing remainder (Ba et al. Prop. 2)",
    source="Ba, Erdogdu, Suzuki, Wang, Wu, Yang, 'High-dimensional asymptotics of feature learning: how one "
           "gradient step improves the representation', NeurIPS 2022, Proposition 2",
    provenance="paper",
    statement="||G_0 - A||_op <= C log^2(n)/sqrt(n) ||G_0||_op with A = mu1/(n sqrt(N)) X^T y a^T, w.h.p.",
    parameters=onestep.parameters(),
    assumptions=onestep.ba_assumption_1(),
    constants=CONSTANTS,
    predictions=(
        Prediction(name="residual-rate", kind="rate",
                   statement="ratio ||G_0 - A|| / ||G_0|| decays at least like log^2 n / sqrt(n) (fitted exponent of "
                   "ratio sqrt(n) / log^2 n <= 0)", predict=_rate_target, observable=scaled_residual,
                   references=slowest_allowed_decay, fitted_across="samples",
                   resolution_reason=ResolutionReason("nearest-error", RATE_REASON),
                   resolution=lambda instance: RATE_RESOLUTION),
        Prediction(name="spike-coefficient", kind="limit",
                   statement="u^T G_0 v sqrt(N) / (||zeta|| ||a||) -> mu1 (the gradient's coefficient along the spike)",
                   predict=lambda instance: Target.point(instance.constant("mu1")), observable=spike_coefficient,
                   references=pure_spike,
                   resolution_reason=ResolutionReason("nearest-error",
                                                      "2% of mu1: a few-percent error in mu1 is the near error the "
                                                      "rate alone cannot see; mu1 read as c_2 lies 50 resolutions "
                                                      "away"),
                   resolution=lambda instance: 0.02 * abs(float(instance.constant("mu1")))),
    ),
    mutants=(
        Mutant(name="random-direction", description="the spike built along a fixed direction instead of X^T y",
               definitions={"spike_direction": _fixed_axis}),
        Mutant(name="rate-n^-1", description="the claimed rate C log^2 n / n instead of / sqrt(n)",
               definitions={"rate_power": 1.0}),
        Mutant(name="mu1-as-c2", description="mu1 replaced by c_2, the second Hermite coefficient",
               constants={"mu1": second_coefficient}),
    ),
    definitions={"spike_direction": spike_direction, "rate_power": 0.5},
    notes="ReLU violates the smoothness assumption but shows the same decay with a larger constant "
          "(docs/derivations/onestep.md#spike-strength); the check reports 'outside assumptions' and still runs.",
)
