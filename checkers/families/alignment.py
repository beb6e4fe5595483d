"""Observing the early-alignment family: gradient flow of a two-layer ReLU network from a small balanced start.

The data and W0 are deterministic functions of the parameters (`theorems.alignment`): the paper states its
results for a deterministic start. So every observation here is an `Exact` value, with one exception: the
Hypothesis searches over pointwise lemmas, which are seeded. Tolerances are stated where they are set:
- solver tolerance, for quantities conserved along a run;
- the time grid's spacing, for event times;
- round-off, for pointwise identities.
Runs are cached per setting, so the predictions of one check share them.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from checkers.check import Budget, Checker, Exact
from checkers.simulate.gradient_flow import (balanced_start, cartesian_flow, loss_gradients, polar_flow)
from theorems import (activation_monotonicity, alignment_geometry, alignment_time_flat, conservation_law, early_alignment,
                      directional_dynamics, escape_time, orthogonal_frozen, peak_alignment)
from theorems.alignment import instance_data
from theorems.conservation_law import conservation_defects
from theorems.errors import NumericalError
from theorems.statement import Instance

RTOL = 1e-10


def _solve(function, *arguments, **options):
    try:
        return function(*arguments, **options)
    except FloatingPointError as error:
        raise NumericalError(str(error)) from None


# --- conservation-law ----------------------------------------------------------------------------

def _balanced_weights(instance: Instance):
    x, y, directions, signs = instance_data(instance)
    epsilon = math.exp(float(instance["log_epsilon"]))
    weights = epsilon * directions
    return x, y, weights, signs * np.linalg.norm(weights, axis=1)


def observe_conservation(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    sigma = instance["activation"]
    if prediction == "homogeneity":
        defects = conservation_defects(sigma)
        return Exact(len(defects), 0.0, "sympy expansion on every activation pattern (3 samples, D = 3)"
                     + (f"; e.g. {str(defects[0])[:120]}" if defects else ""))
    x, y, weights, output_weights = _balanced_weights(instance)
    activation = None if sigma.name == "relu" else sigma
    loss = instance["loss"]
    if prediction == "flow-drift":
        times = np.linspace(0.0, 5.0, 501)
        run = _solve(cartesian_flow, x, y, weights, output_weights, loss, times, activation=activation, rtol=RTOL)
        balance = run.output_weights**2 - np.sum(run.weights**2, axis=-1)
        scale = np.max(run.output_weights**2 + np.sum(run.weights**2, axis=-1), axis=0)
        drift = float(np.max(np.abs(balance - balance[0]) / scale))
        return Exact(drift, 100 * RTOL, f"Cartesian DOP853 to t = 5, rtol {RTOL:g}; tolerance 100 rtol")
    eta = float(instance["step_size"])
    power = float(instance.constant("step_power"))
    w, v = weights.copy(), output_weights.copy()
    worst, tolerance = 0.0, 0.0
    for _ in range(200 * 2 ** (budget.level // 2)):
        gradient_w, gradient_v = loss_gradients(x, y, w, v, loss, activation)
        before = v**2 - np.sum(w**2, axis=1)
        w, v = w - eta * gradient_w, v - eta * gradient_v
        change = v**2 - np.sum(w**2, axis=1) - before
        claimed = eta**power * (gradient_v**2 - np.sum(gradient_w**2, axis=1))
        scale = max(float(np.max(np.abs(eta**2 * (gradient_v**2 - np.sum(gradient_w**2, axis=1))))), 1e-300)
        worst = max(worst, float(np.max(np.abs(change - claimed))) / scale)
        # the change is a difference of O(v^2 + ||w||^2) numbers: its round-off, relative to the scale
        tolerance = max(tolerance, 64 * np.finfo(float).eps * float(np.max(v**2 + np.sum(w**2, axis=1))) / scale)
    return Exact(worst, tolerance, f"GD with eta = {eta:g}; round-off of the change relative to eta^2 |g_v^2 - ||g_w||^2|")


CHECKERS = [
    Checker(conservation_law.THEOREM, observe_conservation, shared_draws=True),
]


# --- alignment-geometry (Hypothesis) ----------------------------------------------------------

GEOMETRY_TOLERANCE = 1e-12
BASE_EXAMPLES = 100


def cone_data(settings: dict):
    """(x, y) from a search setting: "random" (points around a random unit centre, spread and norms from the
    setting, random labels), "simplex" (equal norms, all pairwise signed cosines equal to `cosine`) or "single"."""
    rng = np.random.default_rng(settings["seed"])
    points, dimension = settings["points"], settings["dimension"]
    if settings["layout"] == "single":
        z = rng.standard_normal((1, dimension)) * settings["norm_high"]
    elif settings["layout"] == "simplex":
        dimension = points + 1
        z = np.sqrt(1 - settings["cosine"]) * np.eye(dimension)[1:points + 1]
        z[:, 0] = np.sqrt(settings["cosine"])
    else:
        centre = rng.standard_normal(dimension)
        z = centre / np.linalg.norm(centre) + settings["spread"] * rng.standard_normal((points, dimension))
        z /= np.linalg.norm(z, axis=1)[:, None]
        z *= rng.uniform(settings["norm_low"], settings["norm_high"], size=points)[:, None]
    y = rng.choice([-1.0, 1.0], size=len(z))
    return z * y[:, None], y


def geometry_settings(max_points: int, max_dimension: int):
    from hypothesis import strategies as st
    return st.fixed_dictionaries({
        "seed": st.integers(0, 2**32 - 1),
        "layout": st.sampled_from(["random", "random", "simplex", "single"]),
        "points": st.integers(1, max_points),
        "dimension": st.integers(2, max_dimension),
        "spread": st.floats(0.0, 0.8),
        "norm_low": st.floats(0.1, 1.0),
        "norm_high": st.floats(1.0, 3.0),
        "cosine": st.floats(0.01, 0.99),
        "sparsity": st.floats(0.0, 0.9),
    })


def _geometry_margin(instance: Instance, prediction: str, settings: dict) -> float:
    from theorems.alignment import orthogonal_separability, signed_activated_sum
    x, y = cone_data(settings)
    mu = orthogonal_separability(x, y)
    if mu <= 0:
        return float("inf")  # outside Assumption 1: nothing claimed
    rng = np.random.default_rng(settings["seed"] + 1)
    z = x * y[:, None]
    if prediction == "lemma-5":
        power = float(instance.constant("cone_power"))
        weights = rng.exponential(size=(2, len(z))) * (rng.uniform(size=(2, len(z))) >= settings["sparsity"])
        weights[:, rng.integers(len(z), size=2)] += 1e-3  # never the zero vector
        first, second = weights @ z
        cosine = first @ second / (np.linalg.norm(first) * np.linalg.norm(second))
        pairwise = z @ z.T / np.outer(np.linalg.norm(z, axis=1), np.linalg.norm(z, axis=1))
        extreme = np.min(pairwise)  # the pair that defines mu: Lemma 5's tight case
        return float(min(cosine, extreme) - mu**power)
    power, scale = float(instance.constant("mu_power")), float(instance.constant("bound_scale"))
    x_min = float(np.min(np.linalg.norm(x, axis=1)))
    candidates = [rng.standard_normal(x.shape[1]) for _ in range(4)] + [z.sum(axis=0), z[np.argmin(
        np.linalg.norm(z, axis=1))]]
    margins = []
    for w in candidates:
        activated, count = signed_activated_sum(w, x, y)
        if count:
            margins.append(np.linalg.norm(activated) / (mu**power * count * x_min) - scale)
    return float(min(margins, default=float("inf")))


GEOMETRY_EXPLICIT = (
    dict(seed=0, layout="single", points=1, dimension=3, spread=0.0, norm_low=1.0, norm_high=1.0, cosine=0.5,
         sparsity=0.0),
    dict(seed=1, layout="simplex", points=10, dimension=11, spread=0.0, norm_low=1.0, norm_high=1.0, cosine=0.25,
         sparsity=0.0),
    dict(seed=2, layout="random", points=6, dimension=4, spread=0.3, norm_low=0.5, norm_high=1.5, cosine=0.5,
         sparsity=0.5),
)


def observe_geometry(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from checkers.search import search_counterexample
    strategy = geometry_settings(instance["max_points"], instance["max_dimension"])
    explicit = [dict(e, points=min(e["points"], instance["max_points"])) for e in GEOMETRY_EXPLICIT]
    result = search_counterexample(lambda settings: _geometry_margin(instance, prediction, settings), strategy,
                                   max_examples=budget.scaled(BASE_EXAMPLES), seed=int(seed.generate_state(1)[0]),
                                   explicit=explicit, tolerance=GEOMETRY_TOLERANCE)
    return Exact(result.smallest_margin, GEOMETRY_TOLERANCE,
                 f"Hypothesis search over {result.examples} data sets; smallest margin at {result.example}")


CHECKERS.append(Checker(alignment_geometry.THEOREM, observe_geometry))


# --- trajectories of the polar form ------------------------------------------------------------

def _data_key(instance: Instance) -> tuple:
    kind = instance["data"] if "data" in instance.parameters else "reference"
    return (kind, *(int(instance[name]) for name in ("per_class", "dimension", "width", "configuration")))


def _data(key: tuple):
    """(x, y, W0, s) for a data key (kind, per_class, dimension, width, configuration)."""
    from theorems.alignment import layout
    return layout(*key)


@functools.lru_cache(maxsize=32)
def polar_run(key: tuple, log_epsilon: float, loss: str, times: tuple, rtol: float = 1e-11):
    """The polar-form flow for the data of `key` from epsilon = e^log_epsilon, on `times` (cached)."""
    x, y, directions, signs = _data(key)
    u, r, s = balanced_start(directions, signs, log_epsilon)
    return _solve(polar_flow, x, y, u, r, s, loss, np.array(times), rtol=rtol, atol=rtol * 1e-2)


def _class_norms(x, y):
    from theorems.alignment import class_directions
    positive, negative = class_directions(x, y)
    return float(np.linalg.norm(positive)), float(np.linalg.norm(negative))


def _slope_with_convergence(abscissae, values) -> tuple[float, float]:
    """(least-squares slope over all points, |that - the slope without the first point|): the second is how far
    the finite-size points still pull the slope."""
    slope = float(np.polyfit(abscissae, values, 1)[0])
    return slope, abs(slope - float(np.polyfit(abscissae[1:], values[1:], 1)[0]))


def half_time(times, losses) -> float:
    """The first time the summed loss falls to half its initial value (linear interpolation on the grid)."""
    below = np.nonzero(losses <= losses[0] / 2)[0]
    if not len(below) or below[0] == 0:
        raise NumericalError("the loss did not halve within the run")
    k = below[0]
    fraction = (losses[k - 1] - losses[0] / 2) / (losses[k - 1] - losses[k])
    return float(times[k - 1] + fraction * (times[k] - times[k - 1]))


def observe_escape(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from theorems.escape_time import LOG_EPSILONS
    key, loss = _data_key(instance), instance["loss"]
    x, y, _, _ = _data(key)
    positive_norm, negative_norm = _class_norms(x, y)
    norm, rows = (positive_norm, y > 0) if prediction == "positive-class" else (negative_norm, y < 0)
    points = 20000 * 2 ** (budget.level // 2)
    halves, spacing = [], 0.0
    for log_epsilon in LOG_EPSILONS:
        end = -log_epsilon / min(positive_norm, negative_norm) + 5.0
        times = np.linspace(0.0, end, points + 1)
        run = polar_run(key, log_epsilon, loss, tuple(times))
        halves.append(half_time(run.times, run.losses(x, y, loss)[:, rows].sum(axis=1)))
        spacing = max(spacing, end / points)
    logs = -np.array(LOG_EPSILONS)
    slope, pull = _slope_with_convergence(logs, np.array(halves))
    tolerance = (pull + spacing / (logs[-1] - logs[0])) * norm
    return Exact(slope * norm, tolerance, f"polar flow at log epsilon {LOG_EPSILONS}; t_half = "
                 + ", ".join(f"{t:.4f}" for t in halves) + f"; ||x|| = {norm:.5g}")


def empirical_alignment_time(times, directions, signs, x, y) -> float:
    """The first grid time after which every V+ neuron stays in S+ u S_dead and every V- neuron in S- u S_dead."""
    from theorems.alignment import region_codes
    codes = region_codes(directions, x, y)
    aligned = np.all(np.where(signs > 0, (codes == 1) | (codes == 0), (codes == -1) | (codes == 0)), axis=1)
    bad = np.nonzero(~aligned)[0]
    if not len(bad):
        return 0.0
    if bad[-1] == len(times) - 1:
        raise NumericalError("the neurons were not aligned by the end of the run")
    return float(times[bad[-1] + 1])


def observe_flat(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from theorems.alignment_time_flat import LOG_EPSILONS
    key, loss = _data_key(instance), instance["loss"]
    x, y, _, signs = _data(key)
    spacing = 5e-4 / 2 ** (budget.level // 2)
    times = np.arange(0.0, 4.0 + spacing / 2, spacing)
    alignment_times = [empirical_alignment_time(times, polar_run(key, e, loss, tuple(times)).directions, signs, x, y)
                       for e in LOG_EPSILONS]
    logs = -np.array(LOG_EPSILONS)
    slope = float(np.polyfit(logs, alignment_times, 1)[0])
    return Exact(slope, 2 * spacing / (logs[-1] - logs[0]), f"polar flow at log epsilon {LOG_EPSILONS}; t1 = "
                 + ", ".join(f"{t:.4f}" for t in alignment_times) + f" (grid {spacing:g})")


def peak_gap(key: tuple, log_epsilon: float, loss: str, points: int) -> tuple[float, float]:
    """(1 - max_t min_{j in V+ ending in S+} cos(w_j, x+), its refinement error): on a coarse grid to the end
    of the escape, then on a fine grid around the coarse peak."""
    from theorems.alignment import class_directions, region_codes
    x, y, _, signs = _data(key)
    positive, _ = class_directions(x, y)
    unit = positive / np.linalg.norm(positive)
    end = -log_epsilon / np.linalg.norm(positive) + 3.0

    def gaps(times):
        run = polar_run(key, log_epsilon, loss, tuple(times), rtol=1e-12)
        chosen = (signs > 0) & (region_codes(run.directions[-1], x, y) == 1)
        if not np.any(chosen):
            raise NumericalError("no V+ neuron ends in S+")
        return 1 - np.min(run.directions[:, chosen] @ unit, axis=1)

    coarse = np.linspace(0.0, end, points + 1)
    k = int(np.argmin(gaps(coarse)))
    fine = np.linspace(coarse[max(k - 1, 0)], coarse[min(k + 1, points)], points + 1)
    fine_gaps = gaps(np.concatenate([[0.0], fine]))[1:]
    best = float(np.min(fine_gaps))
    # between fine grid points the gap is quadratic: its minimum moves by at most the local second difference
    j = int(np.argmin(fine_gaps))
    curvature = abs(fine_gaps[max(j - 1, 0)] - 2 * fine_gaps[j] + fine_gaps[min(j + 1, points)])
    return best, float(curvature)


def observe_peak(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from theorems.peak_alignment import LOG_EPSILONS
    key, loss = _data_key(instance), instance["loss"]
    points = 2000 * 2 ** (budget.level // 2)
    results = [peak_gap(key, e, loss, points) for e in LOG_EPSILONS]
    gaps = np.array([gap for gap, _ in results])
    if np.any(gaps <= 0):
        raise NumericalError("the gap reached round-off: use larger epsilons")
    logs = np.array(LOG_EPSILONS)
    # local exponents between neighbouring epsilons converge (from above) as epsilon -> 0: the last is the
    # observation, and its change from the one before bounds what is left (the changes shrink geometrically)
    local = np.diff(np.log(gaps)) / np.diff(logs)
    refinement = 2 * max(error / gap for gap, error in results) / float(np.min(np.diff(logs)))
    return Exact(float(local[-1]), float(abs(local[-1] - local[-2])) + refinement,
                 f"polar flow at log epsilon {LOG_EPSILONS}, rtol 1e-12; gaps " + ", ".join(f"{g:.3e}" for g in gaps)
                 + "; local exponents " + ", ".join(f"{e:.4f}" for e in local))


CHECKERS += [
    Checker(escape_time.THEOREM, observe_escape, shared_draws=True),
    Checker(alignment_time_flat.THEOREM, observe_flat),
    Checker(peak_alignment.THEOREM, observe_peak),
]


# --- activation-monotonicity, early-alignment, orthogonal-frozen ---------------------------------

def _fine_then_geometric(dense_end: float, end: float, dense_points: int, extra=()) -> tuple:
    times = np.concatenate([np.linspace(0.0, dense_end, dense_points + 1), np.geomspace(dense_end * 1.001, end, 4000),
                            np.asarray(extra, dtype=float)])
    return tuple(np.unique(times))


def _escape_end(x, y, log_epsilon: float, margin: float) -> float:
    return -log_epsilon / min(_class_norms(x, y)) + margin


def switch_counts(patterns, signs, y, times, until: float, own_class_gains_allowed: bool) -> int:
    """Activation switches against (7)/(8) on the grid up to `until`: a neuron losing a point of its own class
    (y_i s_j > 0) or gaining one of the other class; optionally also gaining one of its own class."""
    stop = int(np.searchsorted(times, until, side="right"))
    before, after = patterns[: stop - 1], patterns[1:stop]
    own = (y[None, :] * signs[:, None]) > 0  # (h, n)
    lost_own = before & ~after & own
    gained_other = ~before & after & ~own
    count = int(lost_own.sum() + gained_other.sum())
    if not own_class_gains_allowed:
        count += int((~before & after & own).sum())
    return count


def observe_monotonicity(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from theorems.alignment import activation_pattern, region_codes
    key, loss, log_epsilon = _data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, directions, signs = _data(key)
    window = float(instance.constant("window"))
    times = _fine_then_geometric(max(4.0, window), _escape_end(x, y, log_epsilon, 10.0), 8000 * 2 ** (budget.level // 2))
    run = polar_run(key, log_epsilon, loss, times)
    if prediction == "keeps-own-class":
        patterns = activation_pattern(run.directions, x)
        count = switch_counts(patterns, signs, y, run.times, window, instance.definition("own_class_gains_allowed"))
        return Exact(count, 0.0, f"polar flow, log epsilon {log_epsilon:g}, {len(times)} grid times; "
                     f"switches counted for t <= T = {window:.4g}")
    codes = region_codes(run.directions, x, y)
    start = 0 if instance.definition("trapped_from") == "start" else int(np.searchsorted(
        run.times, empirical_alignment_time(run.times, run.directions, signs, x, y)))
    changes = int(np.sum(codes[start + 1:] != codes[start:-1]))
    return Exact(changes, 0.0, f"polar flow, log epsilon {log_epsilon:g}, to t = {run.times[-1]:.4g} (through fitting); "
                 f"region changes counted from t = {run.times[start]:.4g}")


def _log_domain_weights(run):
    """W(t) / e^(max_j r_j(t)) and that max: the scale-free weights (e^r underflows at tiny epsilon)."""
    top = np.max(run.log_norms, axis=1)
    return run.directions * np.exp(run.log_norms - top[:, None])[..., None], top


def observe_early_alignment(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from theorems.alignment import loss_values, region_codes
    from theorems.early_alignment import constants_of
    key, loss, log_epsilon = _data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, directions, signs = _data(key)
    constants = constants_of(instance)
    t1_bound = constants["t1_bound"] * float(instance.constant("t1_scale"))
    times = _fine_then_geometric(4.0, _escape_end(x, y, log_epsilon, 40.0), 8000 * 2 ** (budget.level // 2),
                                 extra=(t1_bound, constants["t1_bound"]))
    run = polar_run(key, log_epsilon, loss, times)
    codes = region_codes(run.directions, x, y)
    aligned_at = empirical_alignment_time(run.times, run.directions, signs, x, y)
    method = f"polar flow from log epsilon {log_epsilon:g} to t = {run.times[-1]:.5g}; empirical t1 = {aligned_at:.4g}, " \
             f"the theorem's t1 = {constants['t1_bound']:.5g}"
    if prediction == "aligned-by-t1":
        at = codes[int(np.searchsorted(run.times, t1_bound))]
        own = np.where(signs > 0, 1, -1)
        allowed = (at == own) | ((at == 0) & instance.definition("dead_allowed"))
        activated_own = np.any((directions @ x.T > 0) & ((y[None, :] * signs[:, None]) > 0), axis=1)
        count = int(np.sum(~allowed) + np.sum(activated_own & (at != own)))
        return Exact(count, 0.0, method + f"; regions at t1: {at.tolist()}, signs {signs.astype(int).tolist()}")
    if prediction == "alignment-time":
        return Exact(1 - aligned_at / t1_bound, 1e-12, method)
    if prediction == "stable-rank":
        scaled, top = _log_domain_weights(run)
        singular = np.linalg.svd(scaled, compute_uv=False)
        frobenius, operator = np.sum(singular**2, axis=1), singular[:, 0] ** 2
        extra = 4 * math.sqrt(len(signs)) * np.exp(2 * (log_epsilon - top)) * constants["w_max"] ** 2
        after = run.times >= aligned_at
        margins = (float(instance.constant("rank_limit")) * operator + extra - frobenius) / frobenius
        return Exact(float(np.min(margins[after])), 1e-12,
                     method + f"; stable rank at most {np.max((frobenius / operator)[after]):.4f} after t1")
    losses = loss_values(loss, y[None, :], run.outputs(x)).sum(axis=1)
    sub_outputs = {}
    for sign in (1, -1):
        chosen = (codes == sign)[..., None]
        outputs = np.einsum("thn,th->tn", np.maximum(run.weights @ x.T, 0.0) * chosen, run.output_weights)
        rows = outputs[:, (y > 0) if sign > 0 else (y < 0)]
        crossed = np.nonzero(np.max(np.abs(rows), axis=1) > 0.25)[0]
        if not len(crossed):
            raise NumericalError(f"the S{'+' if sign > 0 else '-'} sub-network never reached 1/4 within the run")
        sub_outputs[sign] = crossed[0]
    start = max(sub_outputs.values())
    alpha = constants["alpha"] * float(instance.constant("alpha_scale"))
    elapsed = run.times[start:] - run.times[start]
    bound = losses[start] / (losses[start] * alpha * elapsed + 1)
    return Exact(float(np.min(bound / losses[start:]) - 1), 1e-9,
                 method + f"; t2 = {run.times[start]:.6g}, L(t2) = {losses[start]:.4g}, L(end) = {losses[-1]:.3g}")


def observe_orthogonal(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from theorems.alignment import activation_pattern
    key, loss, log_epsilon = _data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, _, _ = _data(key)
    points = 4000 * 2 ** (budget.level // 2)
    times = tuple(np.linspace(0.0, _escape_end(x, y, log_epsilon, 15.0), points + 1))
    run = polar_run(key, log_epsilon, loss, times)
    patterns = activation_pattern(run.directions, x)
    method = f"polar flow, {instance['data']} data, log epsilon {log_epsilon:g}, to t = {times[-1]:.4g}"
    if prediction == "no-activation-gained":
        gained = int(np.sum(~patterns[:-1] & patterns[1:]))
        lost = int(np.sum(patterns[:-1] & ~patterns[1:]))
        count = gained + (lost if instance.definition("count_switches_off") else 0)
        return Exact(count, 0.0, method + f"; {gained} switches on, {lost} off")
    products = run.weights @ x.T  # (T, h, n)
    scale = np.max(np.linalg.norm(run.weights, axis=2), axis=0)[:, None] * np.linalg.norm(x, axis=1)[None, :]
    inactive = ~patterns
    # a stretch of inactivity starts where the indicator is off and was on (or at t = 0)
    starts = inactive & np.concatenate([np.ones_like(inactive[:1]), ~inactive[:-1]], axis=0)
    anchor = np.where(starts, products, np.nan)
    for k in range(1, len(anchor)):  # carry the value at the start of each stretch forward (times only)
        anchor[k] = np.where(inactive[k] & ~starts[k], anchor[k - 1], anchor[k])
    change = np.where(inactive, np.abs(products - anchor), 0.0) / scale[None]
    return Exact(float(np.nanmax(change)), 1e-8, method + "; tolerance 1e-8 (solver, rtol 1e-11)")


CHECKERS += [
    Checker(activation_monotonicity.THEOREM, observe_monotonicity, shared_draws=True),
    Checker(early_alignment.THEOREM, observe_early_alignment, shared_draws=True),
    Checker(orthogonal_frozen.THEOREM, observe_orthogonal, shared_draws=True),
]


# --- directional-dynamics --------------------------------------------------------------------------

def direction_errors(x, y, directions, log_norms, signs, loss: str):
    """(per-neuron ||d/dt w^_j - s_j P x_a(w_j)||, max_i |f(x_i)|) at one balanced state (polar coordinates)."""
    from theorems.alignment import negative_loss_derivative
    pre = x @ directions.T
    active = pre > 0
    f = np.maximum(pre, 0.0) @ (signs * np.exp(2 * log_norms))
    g = negative_loss_derivative(loss, y, f)
    exact, approximate = active.T @ (g[:, None] * x), active.T @ (y[:, None] * x)
    difference = exact - approximate
    projected = difference - np.sum(difference * directions, axis=1)[:, None] * directions
    return np.linalg.norm(projected, axis=1), float(np.max(np.abs(f)))


def _lemma4_margin(instance: Instance, settings: dict) -> float:
    from theorems.alignment import orthogonal_separability
    x, y = cone_data(settings)
    if orthogonal_separability(x, y) <= 0:
        return float("inf")
    rng = np.random.default_rng(settings["seed"] + 2)
    width = 1 + settings["points"] % 5
    directions = rng.standard_normal((width, x.shape[1]))
    norms = np.linalg.norm(directions, axis=1)
    log_norms = np.log(norms) + settings["log_scale"]
    errors, largest = direction_errors(x, y, directions / norms[:, None], log_norms, rng.choice([-1.0, 1.0], width),
                                       instance["loss"])
    if largest > 1 or largest == 0:
        return float("inf")
    x_max = float(np.max(np.linalg.norm(x, axis=1)))
    return float(1 - np.max(errors) / (float(instance.constant("lemma4_constant")) * len(y) * x_max * largest))


def observe_directional(instance: Instance, prediction: str, budget: Budget, seed: np.random.SeedSequence):
    from hypothesis import strategies as st

    from checkers.search import search_counterexample
    from theorems.alignment import lemma3_window
    if prediction == "lemma-4":
        strategy = st.builds(lambda base, scale: dict(base, log_scale=scale), geometry_settings(8, 6),
                             st.floats(-9.0, 0.5))
        explicit = [dict(e, log_scale=-1.0) for e in GEOMETRY_EXPLICIT]
        result = search_counterexample(lambda settings: _lemma4_margin(instance, settings), strategy,
                                       max_examples=budget.scaled(BASE_EXAMPLES), seed=int(seed.generate_state(1)[0]),
                                       explicit=explicit, tolerance=GEOMETRY_TOLERANCE)
        return Exact(result.smallest_margin, GEOMETRY_TOLERANCE,
                     f"Hypothesis search over {result.examples} states; smallest margin at {result.example}")
    key, loss, log_epsilon = _data_key(instance), instance["loss"], float(instance["log_epsilon"])
    x, y, directions, signs = _data(key)
    width, n = len(signs), len(y)
    x_max = float(np.max(np.linalg.norm(x, axis=1)))
    w_max = float(np.max(np.linalg.norm(directions, axis=1)))
    epsilon = math.exp(log_epsilon)
    window = lemma3_window(x, log_epsilon, width, w_max)
    times = tuple(np.linspace(0.0, window, 2000 * 2 ** (budget.level // 2) + 1))
    run = polar_run(key, log_epsilon, loss, times)
    method = f"polar flow from log epsilon {log_epsilon:g} to T = {window:.4g}"
    if prediction == "lemma-3":
        squared_norms = np.exp(2 * np.max(run.log_norms, axis=1))
        outputs = np.max(np.abs(run.outputs(x)), axis=1)
        if instance.definition("growth_allowed"):
            norm_bound, output_bound = 2 * epsilon * w_max**2 / math.sqrt(width), 2 * epsilon * math.sqrt(width) * x_max * w_max**2
        else:
            norm_bound, output_bound = epsilon**2 * w_max**2, width * epsilon**2 * x_max * w_max**2
        margin = min(float(np.min(1 - squared_norms / norm_bound)), float(np.min(1 - outputs / output_bound)))
        return Exact(margin, 1e-9, method + f"; max ||w||^2 / bound = {np.max(squared_norms) / norm_bound:.3g}, "
                     f"max |f| / bound = {np.max(outputs) / output_bound:.3g}")
    bound = 4 * epsilon * n * math.sqrt(width) * x_max**2 * w_max**2
    errors = [np.max(direction_errors(x, y, run.directions[k], run.log_norms[k], signs, loss)[0])
              for k in range(len(run.times))]
    scale = float(instance.constant("lemma1_scale"))
    return Exact(float(scale - max(errors) / bound), 1e-9, method + f"; max error / bound = {max(errors) / bound:.3g}")


CHECKERS.append(Checker(directional_dynamics.THEOREM, observe_directional, shared_draws=True))
