"""Checker of mixture-equivalence: paired Hermite-model/network gaps at n = 250, 500, extrapolated in 1/n."""

from __future__ import annotations

import numpy as np

from checkers.check import Budget, Checker
from checkers.equivalence.mixture_readout import mixture_errors
from checkers.shared_draws import draw_key, memoized
from checkers.stats import extrapolate_limit, mean_estimate
from theorems.equivalence import mixture_equivalence
from theorems.statement import Instance

MIXTURE_SIZES = (250, 500)


def mixture_gaps(instance: Instance, size: int, seeds) -> np.ndarray:
    """(generalization gap, train gap) per paired draw at n = m = k = size, with the instance's degree and rest."""
    sigma, degree = instance["activation"], int(instance.constant("degree"))
    return np.array([mixture_errors(size, float(instance["alpha"]), float(instance["beta"]), sigma, degree,
                                    float(instance["penalty"]), np.random.default_rng(child),
                                    rest=float(instance.constant("rest"))).gaps()
                     for child in seeds])


def _trend(estimates, resolution: float) -> str:
    """What the two sizes say, in plain words: a gap within the resolution at both, a shrinking one (which alone
    does not show that it vanishes), one that does not shrink, or too few draws to tell."""
    (small, small_error), (large, large_error) = [(e.value, e.standard_error) for e in estimates]
    change, change_error = abs(large) - abs(small), float(np.hypot(small_error, large_error))
    if 3 * large_error > resolution:
        return "too few draws to tell at this fidelity"
    if abs(small) + 3 * small_error <= resolution and abs(large) + 3 * large_error <= resolution:
        return f"within +-{resolution:.0%} at both sizes"
    if change < -3 * change_error:
        return "|gap| shrinking with n"
    return "|gap| not shrinking with n"


def _read(prediction: str, column: int):
    """A reader of the extrapolated generalization (column 0) or train (column 1) gap."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence):
        return _observe(instance, budget, seed, prediction, column)
    return read


def _observe(instance: Instance, budget: Budget, seed: np.random.SeedSequence, prediction: str, column: int):
    draws = 40 * 2 ** (budget.level // 2)
    counts = {MIXTURE_SIZES[0]: 2 * draws, MIXTURE_SIZES[1]: draws}     # the smaller size is four times cheaper
    key = draw_key(instance, budget, seed, "mixture", str(instance.constant("degree")), str(instance.constant("rest")))
    gaps = memoized(key, lambda: [mixture_gaps(instance, size, child.spawn(counts[size]))
                                  for size, child in zip(MIXTURE_SIZES, seed.spawn(len(MIXTURE_SIZES)))])
    estimates = [mean_estimate(per_size[:, column]) for per_size in gaps]
    resolution = instance.theorem.prediction(prediction).resolution(instance)
    return extrapolate_limit(MIXTURE_SIZES, estimates, exponent=1.0, method=(
        f"degree {int(instance.constant('degree'))}, lambda {instance.describe_parameters()['penalty']}; paired draws "
        f"at n = m = k in {MIXTURE_SIZES} ({', '.join(str(counts[size]) for size in MIXTURE_SIZES)}); "
        + ", ".join(f"{e.value:+.4f} +- {e.standard_error:.2g}" for e in estimates)
        + f" ({_trend(estimates, resolution)}); extrapolated in 1/n"))


CHECKER = Checker(
    theorem=mixture_equivalence.THEOREM,
    simulation="paired gaps at n = 250, 500, extrapolated in 1/n, with the trend in words; lambda = 1e-3",
    readers={"generalization-gap": _read("generalization-gap", 0), "train-gap": _read("train-gap", 1)},
    shared_draws=True,
)
