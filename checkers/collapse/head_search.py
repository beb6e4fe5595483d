"""Searching generated heads for the smallest margin of a neural-collapse bound (Theorems A-D, the
pseudo-inverse identity), and the exact heads evaluated in mpmath: shared by the family's checkers.

Every margin is computed from quantities measured on the generated matrices (docs/derivations/collapse.md#nc1-bound,
step 8), never from the generator's targets. Margins are relative: bound_scale - observed/bound for
upper bounds, so a margin of -0.5 means the observed value is 1.5 times the claimed bound. The known
tight and adversarial instances are always among the examples tried (`explicit`).

Float64 caveat: eps2 is measured with an absolute error ~1e-16 ||W||^2, so the search keeps
eps2 >= 1e-6 scale^2 and the margins are accurate to about 1e-8; the tolerance used is 1e-7.
"""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

from checkers.budget import Budget
from checkers.checker import Exact, Tightness
from checkers.collapse.heads import Float64, generate_head
from checkers.search import search_counterexample
from theorems.statement import Instance

MARGIN_TOLERANCE = 1e-7
BASE_EXAMPLES = 100


def head_settings(classes: int, per_class: int):
    """Hypothesis strategy for the generator's settings at fixed K and n (dimensions, targets, flags)."""
    return st.fixed_dictionaries({
        "seed": st.integers(0, 2**32 - 1),
        "extra": st.integers(1, 3),
        "input_extra": st.integers(0, 2),
        "kappa": st.one_of(st.just(1.0), st.floats(1.0, 10.0)),
        "scale": st.floats(0.3, 3.0),
        "eps1_fraction": st.one_of(st.just(0.0), st.floats(1e-4, 0.9)),
        "eps2_exponent": st.floats(-6.0, 0.0),
        "spread": st.one_of(st.just(0.0), st.floats(0.01, 30.0)),
        "adversarial": st.booleans(),
        "error": st.sampled_from(["random", "within", "shrink"]),
        "imbalance": st.one_of(st.just(0.0), st.floats(0.0, 0.2)),
    })


# The float entries of `head_settings` with their ranges: the local refinement after the search moves within them.
HEAD_BOUNDS = {"kappa": (1.0, 10.0), "scale": (0.3, 3.0), "eps1_fraction": (0.0, 0.9), "eps2_exponent": (-6.0, 0.0),
               "spread": (0.0, 30.0), "imbalance": (0.0, 0.2)}


def tight_settings(**changes) -> dict:
    """The adversarial instance on which Theorem A is attained (kappa = 1, eps1 = 0), or a variant."""
    settings = dict(seed=0, extra=2, input_extra=1, kappa=1.0, scale=1.3, eps1_fraction=0.0, eps2_exponent=-2.0,
                    spread=2.0, adversarial=True, error="random", imbalance=0.0)
    settings.update(changes)
    return settings


EXPLICIT = (
    tight_settings(),
    tight_settings(eps2_exponent=-0.5, scale=2.0, spread=5.0),
    # between-class output error that shrinks the class separation, with a large hidden spread: this is
    # where dropping the -eps1 of Theorem A's denominator is caught
    tight_settings(error="shrink", eps1_fraction=0.05, spread=20.0, eps2_exponent=-1.0),
)


def build_head(instance: Instance, settings: dict, backend=Float64):
    classes, per_class = instance["classes"], instance["per_class"]
    return generate_head(
        np.random.default_rng(settings["seed"]), backend, classes=classes, per_class=per_class,
        width=classes + settings["extra"], input_width=classes + settings["extra"] + settings["input_extra"],
        kappa=settings["kappa"], scale=settings["scale"],
        eps1=settings["eps1_fraction"] * float(np.sqrt(per_class * (classes - 1))),
        eps2=settings["scale"] ** 2 * 10.0 ** settings["eps2_exponent"], spread=settings["spread"],
        adversarial=settings["adversarial"], error=settings["error"], imbalance=settings["imbalance"])


def search_margin(instance: Instance, budget: Budget, seed: np.random.SeedSequence, margin, strategy, explicit, what,
                  *, ratio=None, construction=None, construction_name: str = "", bounds=HEAD_BOUNDS, measure=None):
    """The smallest margin over the searched examples, the best one refined locally within `bounds` (the ranges
    of the strategy's float entries; `checkers.search.refine_locally`). With `ratio` (margin -> the ratio of the
    inequality's two sides, smaller over larger), the observation also reports how tight the inequality got, and with
    `construction` (an example known to be near-tight) the ratio it attains. With `measure` (example -> the
    measurements the margin is the statement's observable of), the smallest margin's example, the construction and
    the explicit examples are kept as the observation's witnesses."""
    result = search_counterexample(margin, strategy, max_examples=budget.scaled(BASE_EXAMPLES),
                                   seed=int(seed.generate_state(1)[0]), explicit=explicit,
                                   tolerance=MARGIN_TOLERANCE, refine=bounds)
    tightness = None
    if ratio is not None and np.isfinite(result.smallest_margin):
        attainable = None if construction is None else float(ratio(margin(construction)))
        tightness = Tightness(float(ratio(result.smallest_margin)), str(result.example), attainable,
                              construction_name)
    witnesses = {}
    if measure is not None:
        examples = {"smallest margin": result.example, "construction": construction,
                    **{f"explicit example {number}": example for number, example in enumerate(explicit, 1)}}
        witnesses = {name: measure(example) for name, example in examples.items() if example is not None}
    return Exact(mpmath.mpf(result.smallest_margin), tolerance=MARGIN_TOLERANCE,
                 method=f"Hypothesis search over {result.examples} {what} ({result.refined} of them in a local "
                        f"refinement); smallest margin at {result.example}",
                 tightness=tightness, witnesses=witnesses)


def search_observable(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable, measure, strategy,
                      explicit, what, **options) -> Exact:
    """`search_margin` of a statement's observable (measurements -> margin) on what `measure` (example ->
    measurements) reads, the witnesses kept."""
    return search_margin(instance, budget, seed, lambda example: float(observable(measure(example))), strategy,
                         explicit, what, measure=measure, **options)


def upper_bound_ratio(instance: Instance):
    """margin = bound_scale - observed/bound  ->  observed / (bound_scale bound)."""
    scale = float(instance.constant("bound_scale"))
    return lambda margin: (scale - margin) / scale


def exact_head(instance: Instance, backend, *, kappa: float, eps1: float = 0.3, spread: float = 2.0):
    """A head with eps2 = 0 (W_{L-1} balanced against W_L) and the given eps1."""
    classes, per_class = instance["classes"], instance["per_class"]
    return generate_head(np.random.default_rng(7), backend, classes=classes, per_class=per_class,
                         width=classes + 2, input_width=classes + 3, kappa=kappa, scale=1.1, eps1=eps1, eps2=0.0,
                         spread=spread, adversarial=False)
