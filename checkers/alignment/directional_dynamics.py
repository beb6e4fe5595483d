"""Checker of directional-dynamics: Lemma 4 searched by Hypothesis; Lemmas 1 and 3 along the polar-form flow."""

from __future__ import annotations

import math

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
from checkers.alignment.runs import data, data_key, polar_run
from checkers.check import Budget, Checker, Exact, Tightness
from checkers.search import search_counterexample
from theorems.alignment import directional_dynamics
from theorems.alignment.common import lemma3_window, negative_loss_derivative, orthogonal_separability
from theorems.statement import Instance


def direction_errors(x, y, directions, log_norms, signs, loss: str):
    """(per-neuron ||d/dt w^_j - s_j P x_a(w_j)||, max_i |f(x_i)|) at one balanced state (polar coordinates)."""
    pre = x @ directions.T
    active = pre > 0
    f = np.maximum(pre, 0.0) @ (signs * np.exp(2 * log_norms))
    g = negative_loss_derivative(loss, y, f)
    exact, approximate = active.T @ (g[:, None] * x), active.T @ (y[:, None] * x)
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
                                       instance["loss"])
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
    x, y, directions, signs = data(key)
    width, n = len(signs), len(y)
    x_max = float(np.max(np.linalg.norm(x, axis=1)))
    w_max = float(np.max(np.linalg.norm(directions, axis=1)))
    epsilon = math.exp(log_epsilon)
    window = lemma3_window(x, log_epsilon, width, w_max)
    times = tuple(np.linspace(0.0, window, 2000 * 2 ** (budget.level // 2) + 1))
    run = polar_run(key, log_epsilon, loss, times)
    method = f"polar flow from log epsilon {log_epsilon:g} to T = {window:.4g}"
    return dict(run=run, x=x, y=y, signs=signs, width=width, n=n, x_max=x_max, w_max=w_max, epsilon=epsilon,
                loss=loss, method=method)


def read_lemma_3(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    r = _run(instance, budget)
    run, x = r["run"], r["x"]
    squared_norms = np.exp(2 * np.max(run.log_norms, axis=1))
    outputs = np.max(np.abs(run.outputs(x)), axis=1)
    measured = {"squared_norm": float(np.max(squared_norms)), "output": float(np.max(outputs)),
                **{name: r[name] for name in ("epsilon", "width", "x_max", "w_max")}}
    norm_bound, output_bound = directional_dynamics.lemma_3_bounds(instance, measured)
    norm_ratios, output_ratios = squared_norms / norm_bound, outputs / output_bound
    which, ratios = max(("the norm bound", norm_ratios), ("the output bound", output_ratios),
                        key=lambda named: np.max(named[1]))
    at = int(np.argmax(ratios))
    return Exact(float(observable(measured)), RUN_MARGIN_ACCURACY,
                 r["method"] + f"; max ||w||^2 / bound = {np.max(norm_ratios):.3g}, "
                 f"max |f| / bound = {np.max(output_ratios):.3g}",
                 tightness=Tightness(float(ratios[at]), f"{which} at t = {run.times[at]:.6g}"),
                 witnesses={"the run": measured})


def read_lemma_1(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    r = _run(instance, budget)
    run, x, y, signs, loss, method = (r[k] for k in ("run", "x", "y", "signs", "loss", "method"))
    errors = [np.max(direction_errors(x, y, run.directions[k], run.log_norms[k], signs, loss)[0])
              for k in range(len(run.times))]
    measured = {"errors": errors, **{name: r[name] for name in ("epsilon", "n", "width", "x_max", "w_max")}}
    bound, scale = directional_dynamics.lemma_1_bound(measured), float(instance.constant("lemma1_scale"))
    at = int(np.argmax(errors))
    tightness = Tightness(errors[at] / (scale * bound), f"t = {run.times[at]:.6g}") if scale > 0 else None
    return Exact(float(observable(measured)), RUN_MARGIN_ACCURACY,
                 method + f"; max error / bound = {errors[at] / bound:.3g}", tightness=tightness,
                 witnesses={"the run": measured})


CHECKER = Checker(
    theorem=directional_dynamics.THEOREM,
    simulation="Hypothesis (Lemma 4); along the polar-form flow (Lemmas 1, 3)",
    readers={"lemma-4": read_lemma_4, "lemma-3": read_lemma_3, "lemma-1": read_lemma_1},
    shared_draws=True,
    second_point={"configuration": "1", "log_epsilon": "-15"},
    calibration_seeds=50,
)
