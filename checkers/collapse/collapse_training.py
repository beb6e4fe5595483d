"""Checker of collapse-training: the protocol of docs/derivations/collapse.md#collapse-training run once per head depth
on every seed the check reads, the seeds as one stack (cached, since every prediction reads the same deterministic
runs), and the observables each prediction compares.

Per step: eps1 and ||D_l||_F of every linear pair (cheap). Every 1% of the run: the inputs of Theorem A.
At the end: NC2_J, NC3_J, kappa(W_L), the head product A and the gap ||A A^T - (W_L W_L^T)^L2||_op.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Tightness
from checkers.collapse import metrics
from checkers.collapse.training import Network, gaussian_classes, stacked, train
from checkers.convergence import UNIT_ROUNDOFF
from checkers.shared_draws import cached
from theorems.collapse import collapse_training
from theorems.collapse.bounds import bracket_share
from theorems.errors import InvalidInput, NumericalError
from theorems.statement import Instance

FIRST_WIDTHS = (8, 64, 32)
PER_CLASS = 10
# The first steps run at a tenth of eta. From N(0, 1/fan_in) weights the initial loss can be large (eps1 = 35 on one
# draw in about 300), and then the first step's curvature exceeds 2/eta and GD diverges by step 5 at the default
# eta; twenty steps at eta/10 bring eps1 below 8 there. They are under 0.1% of a run, before every window the
# predictions read (docs/derivations/collapse.md#collapse-training).
WARMUP_STEPS, WARMUP_DIVISOR = 20, 10.0
# The longest run the check makes: 3/(eta lambda) at the default eta and the spec's lambda = 0.01, about a minute a
# run here (six runs at quick fidelity, twelve at default). A run of hours is refused, not started.
MAX_STEPS = 600_000


def run_steps(learning_rate: float, weight_decay: float, horizon: float) -> int:
    """The steps of one run: horizon / (eta lambda)."""
    return int(round(horizon / (learning_rate * weight_decay)))


@cached(maxsize=8)
def runs(learning_rate: float, weight_decay: float, horizon: float, activation: str, depth: int,
         entropies: tuple[tuple[int, ...], ...], sources: bool = False) -> tuple[dict, ...]:
    """Training runs at one head depth, one per entropy (data and initialization drawn from it), trained as one stack
    (`checkers.collapse.training`), so each run's numbers are those it has alone. Each returns its per-step series,
    logged Theorem A inputs and final observables; with `sources` the first also records the law's data term
    eta^2 ||S_k|| and the round-off over balancedness-rate's window (the run of the instance's head depth; the
    others skip that work, a fifth of a run's time at L2 = 5)."""
    network = Network(FIRST_WIDTHS + collapse_training.HEADS[depth], nonlinear_layers=2, activation=activation)
    draws = []
    for entropy in entropies:
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        inputs, targets, labels = gaussian_classes(rng, per_class=PER_CLASS)
        draws.append((inputs, targets, network.initial_weights(rng)))
    inputs, targets = np.stack([draw[0] for draw in draws]), np.stack([draw[1] for draw in draws])
    count = len(entropies)
    steps = run_steps(learning_rate, weight_decay, horizon)
    linear_pairs = range(network.nonlinear_layers, network.depth - 1)  # D_l with W_l's output linear into W_{l+1}
    eps1, imbalance = np.empty((count, steps + 1)), np.empty((count, steps + 1, len(linear_pairs)))
    # where balancedness-rate reads eta^2 ||S_k|| and the round-off: after the warm-up (`_rate_window` refuses a
    # run too short for that), so at eta
    window_first, window_last = rate_window(steps)
    drift = np.empty((window_last - window_first + 1, len(linear_pairs)))
    round_off = np.empty_like(drift)
    # float64's gamma_m = m u/(1 - m u) for the longest inner product m of the pairs' products
    gamma = max(network.widths) * UNIT_ROUNDOFF / (1 - max(network.widths) * UNIT_ROUNDOFF)

    def diverged(step):
        return NumericalError(f"gradient descent diverged by step {step} (L2 = {depth}, eta = {learning_rate}); "
                              "lower the learning rate")

    def every_step(step, weights, grads, representations):
        if step and not np.isfinite(eps1[:, step - 1]).all():
            raise diverged(step)
        residual = representations[-1] - targets
        for index in range(count):
            eps1[index, step] = _frobenius(residual[index])
        in_window = sources and window_first <= step <= window_last
        for column, pair in enumerate(linear_pairs):
            upper, lower = weights[pair + 1], weights[pair]
            top, bottom = upper.swapaxes(-1, -2) @ upper, lower @ lower.swapaxes(-1, -2)
            difference = top - bottom
            for index in range(count):
                imbalance[index, step, column] = _frobenius(difference[index])
            if in_window:
                top, bottom = top[0], bottom[0]
                weight_squares = np.trace(top) + np.trace(bottom)
                upper, lower = grads[pair + 1][0], grads[pair][0]
                top, bottom = upper.T @ upper, lower @ lower.T
                source, grad_squares = _frobenius(top - bottom), np.trace(top) + np.trace(bottom)
                drift[step - window_first, column] = learning_rate**2 * (source + gamma * grad_squares)
                # ||D_k|| is formed to gamma (||W_(l+1)||^2 + ||W_l||^2); the update's rounding moves each W by at
                # most 2u (||W|| + eta ||G||), so D_(k+1) by at most 4u (||W||^2 + eta ||W|| ||G||) per layer,
                # within 6u ||W||^2 + 2u eta^2 ||G||^2 (docs/derivations/collapse.md#collapse-training)
                round_off[step - window_first, column] = ((gamma + 8 * UNIT_ROUNDOFF) * weight_squares
                                                          + 4 * UNIT_ROUNDOFF * learning_rate**2 * grad_squares)

    def observe(step, weights, grads, representations):
        if not np.isfinite(representations[-1]).all():  # before any SVD of overflowed weights
            raise diverged(step)
        return [_observed(index, weights, representations, labels) for index in range(count)]

    # a diverging run overflows for a step before eps1 shows it; the run is refused then, so the overflow is not
    # announced as a warning of its own
    with np.errstate(over="ignore", invalid="ignore"):
        weights, trajectory = train(network, stacked([draw[2] for draw in draws]), inputs, targets,
                                    learning_rate=learning_rate, weight_decay=weight_decay, steps=steps,
                                    log_every=max(steps // 100, 1), observe=observe, every_step=every_step,
                                    warmup_steps=WARMUP_STEPS, warmup_divisor=WARMUP_DIVISOR)
    if not np.all(np.isfinite(eps1)):
        raise NumericalError(f"gradient descent diverged (L2 = {depth}, eta = {learning_rate}); lower the learning "
                             f"rate")
    return tuple(_ended(network, [weight[index] for weight in weights], inputs[index], targets[index], labels, depth,
                        {"steps": steps, "eps1": eps1[index], "imbalance": imbalance[index],
                         "drift": drift if sources and index == 0 else None,
                         "round_off": round_off if sources and index == 0 else None,
                         "logged": [records[index] for records in trajectory.records]})
                 for index in range(count))


def _observed(index: int, weights, representations, labels) -> dict:
    """What Theorem A reads at a logged step, of the stack's run `index`."""
    last, previous = weights[-1][index], weights[-2][index]
    singular = np.linalg.svd(last, compute_uv=False)
    hidden = representations[-3][index]  # Z_{L-2}
    within = hidden - metrics.class_means(hidden, labels)[:, labels]
    return {"nc1": metrics.nc1_trace_ratio(representations[-2][index], labels),
            "eps2": float(np.linalg.norm(last.T @ last - previous @ previous.T, 2)),
            "s_first": singular[0], "s_last": singular[-1], "omega": float(np.linalg.norm(within))}


def _ended(network: Network, weights: list[np.ndarray], inputs: np.ndarray, targets: np.ndarray, labels: np.ndarray,
           depth: int, series: dict) -> dict:
    """A run's result: its `series` and the observables at its end."""
    _, representations = network.gradients(weights, inputs, targets)
    product = weights[network.nonlinear_layers]
    for weight in weights[network.nonlinear_layers + 1:]:
        product = weight @ product
    last = weights[-1]
    singular = np.linalg.svd(last, compute_uv=False)
    hidden_means = metrics.class_means(representations[-3], labels)
    final = {"eps1": float(np.linalg.norm(representations[-1] - targets)),
             "eps2": float(np.linalg.norm(last.T @ last - weights[-2] @ weights[-2].T, 2)),
             "s_first": singular[0], "s_last": singular[-1], "hidden_means": float(np.linalg.norm(hidden_means, 2))}
    return {
        **series,
        "final": final,
        "nc1_start": series["logged"][0]["nc1"], "nc1_end": metrics.nc1_trace_ratio(representations[-2], labels),
        "nc2": metrics.nc2_condition_number(representations[-2], labels),
        "nc3": metrics.nc3_average_cosine(representations[-2], labels, last),
        "kappa_last": metrics.condition_number(last),
        "product_singular": np.linalg.svd(product, compute_uv=False),
        "gap": float(np.linalg.norm(product @ product.T - np.linalg.matrix_power(last @ last.T, depth), 2)),
    }


def _frobenius(matrix: np.ndarray) -> float:
    """||M||_F as numpy's norm forms it (the square root of the flattened dot product), without its dispatch: the
    per-step series call it a few times a step."""
    flat = matrix.ravel()
    return math.sqrt(flat.dot(flat))


def _runs(instance: Instance, budget: Budget, seed: np.random.SeedSequence, depths) -> dict[int, tuple[dict, ...]]:
    """Per head depth in `depths`, the runs on every seed the deeper-head comparison reads (`deeper_head_seeds`),
    trained as one stack. The first is the seed's own run, which every other prediction reads; at the instance's
    head depth it records what balancedness-rate reads."""
    steps = run_steps(float(instance["learning_rate"]), float(instance["weight_decay"]), float(instance["horizon"]))
    if steps > MAX_STEPS:
        raise InvalidInput(f"a run of horizon/(learning_rate x weight_decay) = {steps} steps is above the "
                           f"{MAX_STEPS} this check makes (about a minute a run, and it makes six at quick fidelity): "
                           "raise learning_rate or weight_decay, or shorten horizon")
    seeds = [seed] + [np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1000 + index))
                      for index in range(1, deeper_head_seeds(budget))]
    entropies = tuple(tuple(int(v) for v in child.generate_state(4)) for child in seeds)
    return {depth: runs(float(instance["learning_rate"]), float(instance["weight_decay"]), float(instance["horizon"]),
                        instance["activation"], depth, entropies, depth == int(instance["head_depth"]))
            for depth in depths}


def rate_window(steps: int) -> tuple[int, int]:
    """The first and last step of the window balancedness-rate reads: 20-60% of the run."""
    return int(0.2 * steps), int(0.6 * steps)


def _rate_window(result: dict) -> dict:
    """Steps 20-60% of the run, per linear pair: ||D_k||, eta^2 ||S_k|| and the round-off allowance
    (`collapse_training.rate_margin` reads them)."""
    first, last = rate_window(result["steps"])
    if first < WARMUP_STEPS:
        raise InvalidInput(f"a run of {result['steps']} steps puts the rate's window inside the {WARMUP_STEPS} "
                           "warm-up steps: lengthen the run (horizon, or a smaller learning_rate or weight_decay)")
    return {"pairs": [{"norms": result["imbalance"][first:last + 1, column], "drift": result["drift"][:-1, column],
                       "round_off": result["round_off"][:, column]}
                      for column in range(result["imbalance"].shape[1])]}


def _timescale_ratio(result: dict) -> float:
    interpolated = int(np.argmax(result["eps1"] <= 2 * result["eps1"][-1]))
    balance = result["imbalance"].max(axis=1)
    balanced = np.flatnonzero(balance <= balance[0] / np.e)
    return interpolated / (balanced[0] if balanced.size else np.inf)


def _logged(result: dict) -> dict:
    """What Theorem A reads at each logged step: the records, eps1, and the protocol's n and K."""
    return {"records": result["logged"], "eps1": list(_logged_eps1(result)), "per_class": PER_CLASS, "classes": 4}


def _logged_steps(result: dict) -> list[int]:
    steps = result["steps"]
    return sorted(set(range(0, steps + 1, max(steps // 100, 1))) | {steps})


def _logged_eps1(result: dict) -> np.ndarray:
    return result["eps1"][_logged_steps(result)]


def _root_measurements(result: dict) -> dict:
    """The extreme singular values of the head product A, the gap ||A A^T - (W_L W_L^T)^L2||_op and kappa(W_L)."""
    return {"first": result["product_singular"][0], "last": result["product_singular"][-1], "gap": result["gap"],
            "kappa": result["kappa_last"]}


def _at_every_depth(measure):
    """A reader of `measure(instance, results, observable) -> (value, method, tightness, witness)` over the runs at
    L2 = 2, 3, 5."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable=None) -> Exact:
        results = {depth: stack[0] for depth, stack in _runs(instance, budget, seed, collapse_training.DEPTHS).items()}
        value, method, tightness, witness = measure(instance, results, observable)
        return Exact(mpmath.mpf(value), tolerance=1e-9, method=method, tightness=tightness,
                     witnesses={"the runs": witness} if witness is not None else {})
    return read


def _at_head_depth(measure):
    """A reader of `measure(instance, result, observable) -> (value, method, tightness, witness)` on the run at the
    instance's head depth (tightness None for the predictions that are not inequalities; witness, the measurements
    the statement's observable read, None where the prediction has none)."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable=None) -> Exact:
        depth = int(instance["head_depth"])
        value, method, tightness, witness = measure(instance, _runs(instance, budget, seed, (depth,))[depth][0],
                                                    observable)
        return Exact(mpmath.mpf(value), tolerance=1e-9, method=method, tightness=tightness,
                     witnesses={"the run": witness} if witness is not None else {})
    return read


def deeper_head_seeds(budget: Budget) -> int:
    """How many seeds (data and initialization drawn anew) the deeper-head comparison runs: 2 at quick fidelity,
    4 at default, 8 at high. The first is the run every other prediction reads."""
    return 2 * 2 ** (budget.level // 2)


def _read_deeper_head(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
    """NC2_J per depth on every seed's runs, the statement's margin over them, with the tightest seed as the
    witness."""
    stacks = _runs(instance, budget, seed, collapse_training.DEPTHS)
    seeds = deeper_head_seeds(budget)
    measured = {"seeds": [{depth: stack[index]["nc2"] for depth, stack in stacks.items()} for index in range(seeds)]}
    ratios = [smaller / larger for smaller, larger in
              (collapse_training.deeper_head_sides(instance, nc2) for nc2 in measured["seeds"])]
    tightest = max(range(seeds), key=lambda index: ratios[index])
    method = f"{seeds} seeds; " + "; ".join(f"seed {index}: {_deeper_head_method(nc2)}"
                                            for index, nc2 in enumerate(measured["seeds"]))
    shallow, deep = collapse_training.DEPTHS[0], collapse_training.DEPTHS[-1]
    return Exact(mpmath.mpf(observable(measured)), tolerance=1e-9, method=method,
                 tightness=Tightness(float(ratios[tightest]), f"seed {tightest}, L2 = {shallow} and {deep}"),
                 witnesses={"the runs": measured})


def _deeper_head_method(nc2: dict) -> str:
    """NC2_J at the end per depth, with the steps between consecutive depths reported, not asserted (they lie within
    the seeds' spread: docs/derivations/collapse.md#collapse-training)."""
    steps = ", ".join(f"{(nc2[d] - nc2[e]) / nc2[d]:+.1%} from {d} to {e}"
                      for d, e in zip(collapse_training.DEPTHS, collapse_training.DEPTHS[1:]))
    return "NC2_J at the end for L2 = 2, 3, 5: " + ", ".join(f"{nc2[d]:.4f}" for d in nc2) + f" (decrease {steps})"


def _head_root(instance: Instance, results, observable):
    measured = {d: _root_measurements(results[d]) for d in collapse_training.DEPTHS}
    shares = {d: bracket_share(*collapse_training.root_bracket(instance, measured[d], d)) for d in measured}
    tightest = max(shares, key=lambda d: shares[d])
    return (observable(measured), "measured Weyl bracket at the end of the runs with L2 = 2, 3, 5",
            Tightness(float(shares[tightest]), f"L2 = {tightest}"), measured)


def _balancedness_rate(instance: Instance, result, observable):
    measured = _rate_window(result)
    share = collapse_training.rate_bound_share(instance, measured)
    return (observable(measured), f"least-squares slope over steps 20-60% of {result['steps']}, against the exact "
                                  "law's bound from the measured eta^2 ||S_k||",
            Tightness(share, "the largest |slope - ln a| over its bound, over the linear pairs"), measured)


def _timescales(instance: Instance, result, observable):
    return _timescale_ratio(result), "first crossing times of the per-step eps1 and ||D|| series", None, None


def _nc1_decreasing(instance: Instance, result, observable):
    measured = {"nc1_start": result["nc1_start"], "nc1_end": result["nc1_end"]}
    return (observable(measured), f"NC1_J(Z_(L-1)) from {result['nc1_start']:.3g} to {result['nc1_end']:.3g}",
            Tightness(float(result["nc1_end"] / result["nc1_start"]), "the end of the run against its start"), measured)


def _nc2_bracket(instance: Instance, result, observable):
    measured = {**{name: result["final"][name] for name in ("eps1", "eps2", "s_first", "s_last", "hidden_means")},
                "per_class": PER_CLASS, "nc2": result["nc2"]}
    lower, centre, value, upper = collapse_training.nc2_end_bracket(instance, measured)
    return (observable(measured), f"NC2_J = {value:.5f} in [{lower:.5f}, {upper:.5f}] (kappa(W_L) = "
                                  f"{result['kappa_last']:.5f})",
            Tightness(float(bracket_share(lower, centre, value, upper)), "the end of the run"), measured)


def _theorem_a(instance: Instance, result, observable):
    method = "Theorem A's bound from measured eps1, eps2, s_1, s_K, omega"
    measured = _logged(result)
    ratios = [(ratio, step) for ratio, step in zip(collapse_training.theorem_a_ratios(instance, measured),
                                                   _logged_steps(result)) if ratio is not None]
    if not ratios:  # eps1 never below sqrt(n(K - 1)): nothing claimed
        return float("inf"), method, None, measured
    worst, step = max(ratios)
    return observable(measured), method, Tightness(float(worst), f"step {step} of {result['steps']}"), measured


def _kantorovich_floor(instance: Instance, result, observable):
    measured = {"nc3": result["nc3"], "kappa": result["kappa_last"]}
    floor = measured["nc3"] - observable(measured)
    return (observable(measured), f"NC3_J = {result['nc3']:.6f}, kappa(W_L) = {result['kappa_last']:.4f}",
            Tightness(floor / result["nc3"], "the end of the run"), measured)


CHECKER = Checker(
    theorem=collapse_training.THEOREM,
    simulation="GD with weight decay on the spec's MLP at head depths L2 = 2, 3, 5, each depth's runs on the "
               "deeper-head comparison's seeds (2 at quick fidelity, 4 at default) trained as one stack",
    readers={"balancedness-rate": _at_head_depth(_balancedness_rate), "timescales": _at_head_depth(_timescales),
             "theorem-a": _at_head_depth(_theorem_a), "nc1-decreasing": _at_head_depth(_nc1_decreasing),
             "nc2-bracket": _at_head_depth(_nc2_bracket), "kantorovich-floor": _at_head_depth(_kantorovich_floor),
             "head-root": _at_every_depth(_head_root), "deeper-head": _read_deeper_head},
    shared_draws=True,
    second_point={"head_depth": "2", "weight_decay": "0.1"},
    slow_rerun=True,
)
