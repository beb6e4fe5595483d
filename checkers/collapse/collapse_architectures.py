"""Checker of collapse-architectures: collapse-training's protocol on the instance's network, the seeds as one stack
(cached: every prediction reads the same runs), measured at the start and at the end."""

from __future__ import annotations

import mpmath
import numpy as np

from checkers.budget import Budget
from checkers.checker import Checker, Exact, Tightness
from checkers.collapse import metrics
from checkers.collapse.collapse_training import MAX_STEPS, PER_CLASS, WARMUP_DIVISOR, WARMUP_STEPS, run_steps
from checkers.collapse.training import Network, gaussian_classes, stacked, train
from checkers.shared_draws import cached
from theorems.collapse import collapse_architectures
from theorems.errors import InvalidInput, NumericalError
from theorems.statement import Instance


def seeds_of(budget: Budget) -> int:
    """How many seeds (data and weights drawn anew) a check runs: 2 at quick fidelity, 4 at default, 8 at high."""
    return 2 * 2 ** (budget.level // 2)


@cached(maxsize=4)
def runs(nonlinear_layers: int, linear_layers: int, first_width: int, learning_rate: float, weight_decay: float,
         horizon: float, activation: str, entropies: tuple[tuple[int, ...], ...]) -> tuple[dict, ...]:
    """One run per entropy (its data and initial weights drawn from it), trained as one stack; per run, what the
    claims read at the start and at the end."""
    sizes = collapse_architectures.widths(nonlinear_layers, linear_layers, first_width)
    network = Network(sizes, nonlinear_layers=nonlinear_layers + (linear_layers == 0), activation=activation)
    draws = []
    for entropy in entropies:
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        inputs, targets, labels = gaussian_classes(rng, per_class=PER_CLASS, classes=collapse_architectures.CLASSES)
        draws.append((inputs, targets, network.initial_weights(rng)))
    start = stacked([draw[2] for draw in draws])
    inputs, targets = np.stack([draw[0] for draw in draws]), np.stack([draw[1] for draw in draws])
    steps = run_steps(learning_rate, weight_decay, horizon)
    with np.errstate(over="ignore", invalid="ignore"):
        end, _ = train(network, start, inputs, targets, learning_rate=learning_rate, weight_decay=weight_decay,
                       steps=steps, log_every=steps, warmup_steps=WARMUP_STEPS, warmup_divisor=WARMUP_DIVISOR)
    if not all(np.isfinite(weight).all() for weight in end):
        raise NumericalError(f"gradient descent diverged (eta = {learning_rate}, widths {sizes}); lower the "
                             "learning rate")
    covered = collapse_architectures.covered_weights(nonlinear_layers, linear_layers, first_width)
    return tuple(_measured(network, [w[index] for w in start], [w[index] for w in end], inputs[index], labels,
                           covered)
                 for index in range(len(entropies)))


def _measured(network: Network, start: list[np.ndarray], end: list[np.ndarray], inputs: np.ndarray,
              labels: np.ndarray, covered: list[int]) -> dict:
    """NC1_J of Z_(L-1), the NC4 share, the stable ranks of the covered weights and the hidden layers' changes."""
    before, _ = network.forward(start, inputs)
    after, _ = network.forward(end, inputs)

    def agreement(representations, last) -> float:
        return 1 - metrics.ncc_mismatch(representations[-2], labels, last)

    def stable_rank(weight) -> float:
        singular = np.linalg.svd(weight, compute_uv=False)
        return float(singular @ singular / singular[0] ** 2)

    return {"nc1": (metrics.nc1_trace_ratio(before[-2], labels), metrics.nc1_trace_ratio(after[-2], labels)),
            # NC4 compares argmax Z_L with the nearest class mean; at L2 = 0 Z_L = sigma(W_L Z_(L-1)), and sigma is
            # increasing, so the argmax is that of W_L Z_(L-1) either way
            "nc4": {"start": agreement(before, start[-1]), "end": agreement(after, end[-1])},
            "stable_ranks": [(stable_rank(start[index]), stable_rank(end[index])) for index in covered],
            "first_stable_rank": stable_rank(end[0]),
            "changes": [float(np.linalg.norm(after[layer] - before[layer]) / np.linalg.norm(before[layer]))
                        for layer in range(1, len(before) - 1)]}


TIGHTNESS = {"nc1-falls": collapse_architectures.nc1_tightness,
             "low-rank": collapse_architectures.stable_rank_tightness,
             "features-move": collapse_architectures.feature_tightness}


def _reader(prediction: str):
    """The reader of one prediction: the statement's observable on every seed's measurements, with the share of its
    band the runs used where it is an inequality."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
        values, method = _measure(instance, budget, seed)
        tightness = (Tightness(float(TIGHTNESS[prediction](instance, values)), "the tightest seed")
                     if prediction in TIGHTNESS else None)
        return Exact(mpmath.mpf(observable(values)), tolerance=1e-9, method=method, tightness=tightness,
                     witnesses={"the runs": values})
    return read


def _measure(instance: Instance, budget: Budget, seed: np.random.SeedSequence) -> tuple[dict, str]:
    """Every seed's measurements, named as the statement's observables read them, and the method line."""
    learning_rate, weight_decay, horizon = (float(instance[name]) for name in ("learning_rate", "weight_decay",
                                                                                "horizon"))
    steps = run_steps(learning_rate, weight_decay, horizon)
    if steps > MAX_STEPS:
        raise InvalidInput(f"a run of horizon/(learning_rate x weight_decay) = {steps} steps is above the {MAX_STEPS} "
                           "this check makes: raise learning_rate or weight_decay, or shorten horizon")
    children = [np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, index))
                for index in range(seeds_of(budget))]
    entropies = tuple(tuple(int(v) for v in child.generate_state(4)) for child in children)
    depths = (int(instance["nonlinear_layers"]), int(instance["linear_layers"]), int(instance["first_width"]))
    results = runs(*depths, learning_rate, weight_decay, horizon, instance["activation"], entropies)
    values = {name: [result[name] for result in results] for name in ("nc1", "nc4", "stable_ranks", "changes")}
    method = (f"{len(results)} seeds, {steps} GD steps on widths {collapse_architectures.widths(*depths)}: "
              + "; ".join(_summary(result) for result in results))
    return values, method


def _summary(result: dict) -> str:
    start, end = result["nc1"]
    ranks = ", ".join(f"{s:.2f} -> {e:.2f}" for s, e in result["stable_ranks"]) or "none covered"
    return (f"NC1_J {start:.3g} -> {end:.3g}, NC4 share {result['nc4']['start']:.2f} -> {result['nc4']['end']:.2f}, "
            f"stable ranks {ranks} (first layer {result['first_stable_rank']:.2f}), feature changes "
            + ", ".join(f"{change:.2f}" for change in result["changes"]))


CHECKER = Checker(
    theorem=collapse_architectures.THEOREM,
    simulation="GD with weight decay on collapse-training's data, on a network of L1 non-linear layers and a head of "
               "L2 linear layers, its seeds (2 at quick fidelity, 4 at default) trained as one stack",
    readers={name: _reader(name) for name in ("nc1-falls", "nc4", "low-rank", "features-move")},
    shared_draws=True,
    second_point={"linear_layers": "0"},
    slow_rerun=True,
)
