"""Exact curves of ridge errors after one step against one parameter (`thmcheck oracle`): the Gaussian-equivalent
model given a drawn step, or Cui et al.'s Result 3.3 in the limit after a giant step.

Setting: gaussian-equivalence's (Ba et al.'s normalization, `theorems.equivalence.gaussian_equivalence`). One
first step is drawn at dimension d from the seed (W_0, the step's data and the second layer a); the curve is
then exact given that draw: for each value of the varied parameter, the deterministic equivalent
(`theorems.deterministic_equivalent`) of ridge on the Gaussian-equivalent features of W_1 gives the risk
(against the noiseless teacher), the test error (against a noisy label) and the train error. Varying:
- `learning_rate`: W_1 = W_0 + eta sqrt(N) G_0 with the same W_0 and G_0 for every eta (one gradient), and
  eta = learning_rate N^a with the instance's step_exponent a;
- `penalty`: lambda of the ridge, on one W_1;
- `ridge_ratio`: the ridge stage's samples per dimension n_ridge/d, on one W_1 (the step keeps psi1).
A researcher can put this curve beside their own simulation of the same setting.

Setting giant-step-risk's (Cui et al.'s conventions, `theorems.equivalence.giant_step_risk`): nothing is drawn; each
point is Result 3.3's fixed point in the limit (`theorems.equivalence.giant_step_oracle`), the test error against
the noiseless teacher and the training error, with the iterations it took. Varying `sample_ratio` (alpha = n/p),
`penalty` (lambda_C) or `width_ratio` (p/d) reuses the Gaussian averages and warm-starts each point from the last;
varying `eta` (the step eta~) or `alpha0` (the step's samples per dimension) recomputes r, c and gamma per point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from checkers import registry
from checkers.onestep.draws import setting_for
from checkers.onestep.simulation import one_step
from theorems.equivalence.gaussian_equivalence import equivalent_risk
from theorems.equivalence.gaussian_equivalent_oracle import gram_spectrum
from theorems.equivalence.giant_step_oracle import MarchenkoPastur, channels, solve
from theorems.errors import InvalidInput

VARIABLES = ("learning_rate", "penalty", "ridge_ratio")
GIANT_STEP_VARIABLES = ("sample_ratio", "penalty", "width_ratio", "eta", "alpha0")
THEOREMS = {"gaussian-equivalence": VARIABLES, "giant-step-risk": GIANT_STEP_VARIABLES}
MAX_POINTS = 1000
MAX_DIMENSION = 4000


@dataclass(frozen=True)
class CurvePoint:
    value: float
    risk: float
    test_error: float
    train_error: float
    kappa: float


@dataclass(frozen=True)
class GiantStepPoint:
    value: float
    test_error: float
    train_error: float
    iterations: int


def parse_range(text: str, variables: tuple[str, ...] = VARIABLES) -> tuple[str, list[float]]:
    """NAME=START:STOP:COUNT (evenly spaced; geometric with NAME=START:STOP:COUNT:log) -> (name, values)."""
    name, _, spec = text.partition("=")
    name, parts = name.strip(), spec.split(":")
    if name not in variables:
        raise InvalidInput(f"--vary takes one of {', '.join(variables)}, got {name!r}")
    if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "log"):
        raise InvalidInput(f"--vary needs NAME=START:STOP:COUNT[:log], got {text!r}")
    try:
        start, stop, count = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise InvalidInput(f"--vary needs numbers in START:STOP:COUNT, got {spec!r}") from None
    if not (math.isfinite(start) and math.isfinite(stop)) or not 2 <= count <= MAX_POINTS:
        raise InvalidInput(f"--vary needs finite ends and 2 to {MAX_POINTS} points, got {spec!r}")
    if len(parts) == 4:
        if start <= 0 or stop <= 0:
            raise InvalidInput("a geometric range needs positive ends")
        return name, list(np.geomspace(start, stop, count))
    return name, list(np.linspace(start, stop, count))


def oracle_curve(variable: str, values: list[float], parameters: dict | None = None, *, dimension: int = 200,
                 seed: int = 0) -> list[CurvePoint]:
    """The deterministic-equivalent errors of the GE model after one step drawn at `dimension` from `seed`."""
    if variable not in VARIABLES:
        raise InvalidInput(f"the curve varies one of {', '.join(VARIABLES)}, got {variable!r}")
    if not 2 <= dimension <= MAX_DIMENSION:
        raise InvalidInput(f"dimension must lie in [2, {MAX_DIMENSION}], got {dimension}")
    instance = registry.checker("gaussian-equivalence").theorem.instance(parameters or {})
    step = one_step(setting_for(instance, dimension, learning_rate=0.0), np.random.default_rng(seed))
    width = step.gradient.shape[1]

    growth = width ** float(instance["step_exponent"])  # eta = learning_rate N^a

    def gram(learning_rate: float):
        return gram_spectrum(step.initial_weights + learning_rate * growth * math.sqrt(width) * step.gradient,
                             step.teacher_direction)

    fixed = gram(float(instance["learning_rate"])) if variable != "learning_rate" else None
    points = []
    for value in values:
        if value < 0 and variable in ("learning_rate", "penalty"):
            raise InvalidInput(f"{variable} must be >= 0, got {value}")
        squares, along = gram(value) if variable == "learning_rate" else fixed
        samples = max(1, round(value * dimension)) if variable == "ridge_ratio" else step.setting.samples
        errors = equivalent_risk(instance, squares, along, width, samples,
                                 ridge=value if variable == "penalty" else None)
        points.append(CurvePoint(value=float(value), risk=errors.risk, test_error=errors.test_error,
                                 train_error=errors.train_error, kappa=errors.kappa))
    return points


def giant_step_curve(variable: str, values: list[float], parameters: dict | None = None) -> list[GiantStepPoint]:
    """Result 3.3's test and training errors in the limit along one parameter of giant-step-risk."""
    if variable not in GIANT_STEP_VARIABLES:
        raise InvalidInput(f"the curve varies one of {', '.join(GIANT_STEP_VARIABLES)}, got {variable!r}")
    theorem = registry.checker("giant-step-risk").theorem
    base = dict(parameters or {})
    if variable in ("eta", "alpha0"):  # r, c and gamma change with the point: one instance each
        points = []
        for value in values:
            instance = theorem.instance({**base, variable: repr(float(value))})
            points.append(GiantStepPoint(float(value), float(instance.constant("test_error")),
                                         float(instance.constant("train_error")), 0))
        return points
    instance = theorem.instance(base)
    for value in values:  # validate every point before solving any
        theorem.instance({**base, variable: repr(float(value))})
    constants = {name: float(instance.constant(name)) for name in ("r", "c", "gamma")}
    sigma, teacher = instance["activation"], instance["teacher"]
    ch = channels(sigma, teacher, spike=constants["r"], inflation=constants["c"], overlap=constants["gamma"])
    fixed = {"sample_ratio": float(instance["sample_ratio"]), "penalty": float(instance.constant("solver_penalty")),
             "width_ratio": float(instance["width_ratio"])}
    points, start = [], None
    for value in values:
        setting = {**fixed, variable: float(value)}
        errors = solve(ch, MarchenkoPastur(constants["c"], setting["width_ratio"]),
                       sample_ratio=setting["sample_ratio"], ridge=setting["penalty"],
                       noise=float(instance.constant("readout_noise")), start=start)
        start = tuple(errors.overlaps.values())
        points.append(GiantStepPoint(float(value), errors.test_error + float(instance.constant("test_noise")),
                                     errors.train_error, errors.iterations))
    return points
