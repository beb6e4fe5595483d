"""Checker of directional-dynamics: Lemma 4 searched by Hypothesis; Lemmas 1 and 3 along the polar-form flow (of the
leak-alpha leaky ReLU where `leak` > 0, `checkers.alignment.unbalanced`)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

from checkers.alignment.cones import (
    BASE_EXAMPLES,
    GEOMETRY_BOUNDS,
    GEOMETRY_EXPLICIT,
    GEOMETRY_TOLERANCE,
    cone_data,
    geometry_settings,
)
from checkers.alignment.gradient_flow import balanced_start, polar_flow
from checkers.alignment.runs import absolute_tolerance, data, data_key, polar_run, solve
from checkers.alignment.unbalanced import unbalanced_run
from checkers.budget import Budget
from checkers.checker import Checker, Exact, Tightness
from checkers.search import search_counterexample
from checkers.shared_draws import cached
from theorems.alignment import directional_dynamics
from theorems.alignment.common import lemma3_window, negative_loss_derivative, orthogonal_separability
from theorems.statement import Instance


def direction_errors(x, y, directions, log_norms, signs, loss: str, leak: float = 0.0):
    """(per-neuron ||d/dt w^_j - s_j P x_a(w_j)||, max_i |f(x_i)|) at one balanced state (polar coordinates), for
    sigma(z) = max(z, leak z): the indicator of eq. (4) becomes sigma' (1 where active, leak where not)."""
    pre = x @ directions.T
    active = pre > 0
    f = np.where(active, pre, leak * pre) @ (signs * np.exp(2 * log_norms))
    g = negative_loss_derivative(loss, y, f)
    slopes = np.where(active, 1.0, leak) if leak else active
    exact, approximate = slopes.T @ (g[:, None] * x), slopes.T @ (y[:, None] * x)
    difference = exact - approximate
    projected = difference - np.sum(difference * directions, axis=1)[:, None] * directions
    return np.linalg.norm(projected, axis=1), float(np.max(np.abs(f)))


def lemma4_measurements(instance: Instance, settings: dict) -> dict:
    """mu, the largest error of (4) over the neurons, n, X_max and max |f| at a state in the cone the settings give."""
    x, y = cone_data(settings)
    mu = orthogonal_separability(x, y)
    if mu <= 0:
        return {"mu": mu, "largest": 0.0}
    rng = np.random.default_rng(settings["seed"] + 2)
    width = 1 + settings["points"] % 5
    directions = rng.standard_normal((width, x.shape[1]))
    norms = np.linalg.norm(directions, axis=1)
    log_norms = np.log(norms) + settings["log_scale"]
    errors, largest = direction_errors(x, y, directions / norms[:, None], log_norms, rng.choice([-1.0, 1.0], width),
                                       instance["loss"], float(instance["leak"]))
    return {"mu": mu, "error": np.max(errors), "n": len(y), "x_max": float(np.max(np.linalg.norm(x, axis=1))),
            "largest": largest}


# Output values tried by the construction below: the loss sets where |g - y| / |f| peaks (f = -1 for the
# exponential loss, where it is e - 1; f -> 0 for the paper's logistic loss, where it tends to 1/2)
CONSTRUCTION_OUTPUTS = (-1.0, -0.5, -0.1, -1e-3, 1e-3, 0.1, 0.5, 1.0)
ACROSS_COSINE = 1e-3


def lemma4_construction(instance: Instance, observable) -> tuple[float, float, dict]:
    """(smallest margin, its output f, the measurements there) of Lemma 4 over a family that comes near its
    supremum: one positive point x = e_1 (so n = X_max = 1); a neuron of sign sgn(f) along x whose norm sets
    f(x) = f; and a neuron of negligible norm, active on x but at cosine ACROSS_COSINE to it, whose error is
    |g - y| ||P x||, nearly |g - y| X_max. The ratio of the two sides is then |g - y| / (lemma4_constant |f|) up to
    1e-6: (e - 1)/2 at f = -1 for the exponential loss, about 1/4 for the paper's logistic loss."""
    x, y = np.array([[1.0, 0.0]]), np.array([1.0])
    across = np.array([ACROSS_COSINE, math.sqrt(1 - ACROSS_COSINE**2)])
    directions = np.array([[1.0, 0.0], across])
    margins = []
    for output in CONSTRUCTION_OUTPUTS:
        log_norms = np.array([math.log(abs(output)) / 2, -20.0])
        signs = np.array([math.copysign(1.0, output), 1.0])
        errors, largest = direction_errors(x, y, directions, log_norms, signs, instance["loss"])
        measured = {"mu": 1.0, "error": np.max(errors), "n": 1, "x_max": 1.0, "largest": largest}
        margins.append((float(observable(measured)), output, measured))
    return min(margins, key=lambda entry: entry[:2])


def read_lemma_4(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    strategy = st.builds(lambda base, scale: dict(base, log_scale=scale), geometry_settings(8, 6),
                         st.floats(-9.0, 0.5))
    explicit = [dict(e, log_scale=-1.0) for e in GEOMETRY_EXPLICIT]
    result = search_counterexample(lambda settings: float(observable(lemma4_measurements(instance, settings))),
                                   strategy,
                                   max_examples=budget.scaled(BASE_EXAMPLES), seed=int(seed.generate_state(1)[0]),
                                   explicit=explicit, tolerance=GEOMETRY_TOLERANCE,
                                   refine=dict(GEOMETRY_BOUNDS, log_scale=(-9.0, 0.5)))
    constructed, output, at_construction = lemma4_construction(instance, observable)
    witnesses = {"construction": at_construction}
    if result.example is not None:
        witnesses["smallest margin"] = lemma4_measurements(instance, result.example)
    # the margin is 1 - error / bound, so the ratio of the two sides is 1 - margin
    return Exact(min(result.smallest_margin, constructed), GEOMETRY_TOLERANCE,
                 f"Hypothesis search over {result.examples} states ({result.refined} in a local refinement); "
                 f"smallest margin at {result.example}; the construction's margin {constructed:.6g} at f = {output:g}",
                 tightness=Tightness(1 - result.smallest_margin, str(result.example), 1 - constructed,
                                     f"one point, a neuron along it with f = {output:g}, a tiny neuron active at "
                                     f"cosine {ACROSS_COSINE:g} to it"), witnesses=witnesses)


# The accuracy of a relative margin read along a run (Lemmas 1 and 3): the polar flow is solved at rtol 1e-11
# (`checkers.alignment.runs.polar_run`), and an adaptive solver's global error can grow past its local tolerance,
# so the margins are stated to 100 times that.
RUN_MARGIN_ACCURACY = 1e-9


def _run(instance: Instance, budget: Budget):
    """The run on Lemma 3's window [0, T], with the data and the constants both lemmas use."""
    key, loss, log_epsilon = data_key(instance), instance["loss"], float(instance["log_epsilon"])
    leak = float(instance["leak"])
    x, y, directions, signs = data(key)
    width, n = len(signs), len(y)
    x_max = float(np.max(np.linalg.norm(x, axis=1)))
    w_max = float(np.max(np.linalg.norm(directions, axis=1)))
    epsilon = math.exp(log_epsilon)
    window = lemma3_window(x, log_epsilon, width, w_max)
    times = tuple(np.linspace(0.0, window, 2000 * 2 ** (budget.level // 2) + 1))
    run = unbalanced_run(key, log_epsilon, loss, times, "balanced", leak) if leak else \
        polar_run(key, log_epsilon, loss, times)
    method = f"polar flow from log epsilon {log_epsilon:g} to T = {window:.4g}" + (f", leak {leak:g}" if leak else "")
    return dict(run=run, x=x, y=y, signs=signs, width=width, n=n, x_max=x_max, w_max=w_max, epsilon=epsilon,
                loss=loss, method=method, leak=leak)


def construction_data():
    """(x, y, W0, s) of the construction where Lemmas 1 and 3 are within 10x (`theorems.alignment.directional_dynamics`,
    its docstring): x = e_1; CONSTRUCTION_WIDTH - 1 unit rows of W0 along it and one of norm CONSTRUCTION_TINY at
    cosine CONSTRUCTION_COSINE to it; every sign +1."""
    width, cosine = directional_dynamics.CONSTRUCTION_WIDTH, directional_dynamics.CONSTRUCTION_COSINE
    directions = np.zeros((width, 2))
    directions[:-1, 0] = 1.0
    directions[-1] = directional_dynamics.CONSTRUCTION_TINY * np.array([cosine, math.sqrt(1 - cosine**2)])
    return np.array([[1.0, 0.0]]), np.array([1.0]), directions, np.ones(width)


@cached(maxsize=4)
def _constructed_run(loss: str, level: int):
    """The construction's polar flow on [0, T], epsilon at Lemma 3's bound 1/(4 sqrt(h) X_max W_max^2), on the grid of
    the instance's run at budget level `level` (cached: Lemmas 1 and 3 read the same run)."""
    x, y, directions, signs = construction_data()
    width = len(signs)
    log_epsilon = float(mpmath.log(directional_dynamics.construction_epsilon()))
    window = lemma3_window(x, log_epsilon, width, 1.0)
    u, r, s = balanced_start(directions, signs, log_epsilon)
    times = np.linspace(0.0, window, 2000 * 2 ** (level // 2) + 1)
    run = solve(polar_flow, x, y, u, r, s, loss, times, rtol=1e-11, atol=absolute_tolerance(1e-11))
    return dict(run=run, x=x, y=y, signs=signs, width=width, n=1, x_max=1.0, w_max=1.0, epsilon=math.exp(log_epsilon),
                loss=loss, method=f"{width} neurons at epsilon's bound to T = {window:.4g}", leak=0.0)


def _lemma_3_reading(instance: Instance, r: dict) -> tuple[dict, float, str]:
    """(measurements, the larger ratio of a side to its bound, where) along a run."""
    run, x, leak = r["run"], r["x"], r["leak"]
    squared_norms = np.exp(2 * np.max(run.log_norms, axis=1))
    outputs = np.max(np.abs(run.outputs(x, (lambda pre: np.maximum(pre, leak * pre)) if leak else None)), axis=1)
    measured = {"squared_norm": float(np.max(squared_norms)), "output": float(np.max(outputs)),
                **{name: r[name] for name in ("epsilon", "width", "x_max", "w_max")}}
    norm_bound, output_bound = directional_dynamics.lemma_3_bounds(instance, measured)
    which, ratios = max(("the norm bound", squared_norms / norm_bound), ("the output bound", outputs / output_bound),
                        key=lambda named: np.max(named[1]))
    at = int(np.argmax(ratios))
    return measured, float(ratios[at]), f"{which} at t = {run.times[at]:.6g}"


def _lemma_1_reading(instance: Instance, r: dict) -> tuple[dict, float, str]:
    """(measurements, the largest error of (4) over Lemma 1's bound, where) along a run."""
    run, x, y, signs, loss = (r[k] for k in ("run", "x", "y", "signs", "loss"))
    errors = [float(np.max(direction_errors(x, y, run.directions[k], run.log_norms[k], signs, loss, r["leak"])[0]))
              for k in range(len(run.times))]
    measured = {"errors": errors, **{name: r[name] for name in ("epsilon", "n", "width", "x_max", "w_max")}}
    at = int(np.argmax(errors))
    return measured, errors[at] / directional_dynamics.lemma_1_bound(instance, measured), f"t = {run.times[at]:.6g}"


def _read_on_both_runs(reading, instance: Instance, budget: Budget, observable, scale: float = 1.0) -> Exact:
    """The smaller margin of the instance's run and the construction's (where the loss has one), each run's largest
    ratio of a side to its bound in the method, the construction's as the tightness."""
    runs = {"the run": _run(instance, budget)}
    if instance["loss"] in directional_dynamics.CONSTRUCTION_LOSSES:
        runs["the construction"] = _constructed_run(instance["loss"], budget.level)
    readings = {name: reading(instance, r) for name, r in runs.items()}
    margins = {name: float(observable(measured)) for name, (measured, _, _) in readings.items()}
    described = "; ".join(f"{runs[name]['method']}: largest side / bound {ratio:.3g} ({where})"
                          for name, (_, ratio, where) in readings.items())
    _, ratio, where = readings["the construction" if "the construction" in readings else "the run"]
    tightness = Tightness(ratio / scale, where) if scale > 0 else None
    return Exact(min(margins.values()), RUN_MARGIN_ACCURACY, described, tightness=tightness,
                 witnesses={name: measured for name, (measured, _, _) in readings.items()})


def read_lemma_3(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    return _read_on_both_runs(_lemma_3_reading, instance, budget, observable)


def read_lemma_1(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    return _read_on_both_runs(_lemma_1_reading, instance, budget, observable,
                              scale=float(instance.constant("lemma1_scale")))


CHECKER = Checker(
    theorem=directional_dynamics.THEOREM,
    simulation="Hypothesis (Lemma 4); along the polar-form flow, and a constructed one within 10x (Lemmas 1, 3)",
    readers={"lemma-4": read_lemma_4, "lemma-3": read_lemma_3, "lemma-1": read_lemma_1},
    shared_draws=True,
    second_point={"configuration": "1", "log_epsilon": "-15"},
    calibration_seeds=50,
)
