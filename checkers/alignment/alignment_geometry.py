"""Checker of alignment-geometry: Lemmas 5 and 11 searched by Hypothesis over data in random cones."""

from __future__ import annotations

import numpy as np

from checkers.alignment.cones import (
    BASE_EXAMPLES,
    GEOMETRY_BOUNDS,
    GEOMETRY_EXPLICIT,
    GEOMETRY_TOLERANCE,
    cone_data,
    geometry_settings,
)
from checkers.budget import Budget
from checkers.checker import Checker, Exact, Tightness
from checkers.search import search_counterexample
from theorems.alignment import alignment_geometry
from theorems.alignment.common import orthogonal_separability, signed_activated_sum
from theorems.statement import Instance


def geometry_measurements(settings: dict, *, lemma: int) -> dict:
    """What Lemma 5 (two conic combinations' cosine, the smallest pairwise cosine) or Lemma 11 (activated sums'
    norms and counts for six w, X_min) reads of the data in the cone the settings give, with mu."""
    x, y = cone_data(settings)
    mu = orthogonal_separability(x, y)
    if mu <= 0:
        return {"mu": mu}  # outside Assumption 1: nothing claimed
    rng = np.random.default_rng(settings["seed"] + 1)
    z = x * y[:, None]
    if lemma == 5:
        weights = rng.exponential(size=(2, len(z))) * (rng.uniform(size=(2, len(z))) >= settings["sparsity"])
        weights[:, rng.integers(len(z), size=2)] += 1e-3  # never the zero vector
        first, second = weights @ z
        pairwise = z @ z.T / np.outer(np.linalg.norm(z, axis=1), np.linalg.norm(z, axis=1))
        return {"mu": mu, "cosine": first @ second / (np.linalg.norm(first) * np.linalg.norm(second)),
                "extreme": np.min(pairwise)}  # the pair that defines mu: Lemma 5's tight case
    candidates = [rng.standard_normal(x.shape[1]) for _ in range(4)] + [z.sum(axis=0), z[np.argmin(
        np.linalg.norm(z, axis=1))]]
    sums = [signed_activated_sum(w, x, y) for w in candidates]
    return {"mu": mu, "x_min": float(np.min(np.linalg.norm(x, axis=1))),
            "norms": [np.linalg.norm(activated) for activated, _ in sums], "counts": [count for _, count in sums]}


def geometry_ratio(instance: Instance, settings: dict, margin: float, *, lemma: int) -> float:
    """The smaller side over the larger at an example with this margin: mu^cone_power / cos(z1, z2) (Lemma 5, whose
    margin is their difference), or bound_scale / (||x_a|| / (mu^mu_power n_a X_min)) (Lemma 11)."""
    if lemma == 5:
        floor = orthogonal_separability(*cone_data(settings)) ** float(instance.constant("cone_power"))
        return floor / (margin + floor)
    scale = float(instance.constant("bound_scale"))
    return scale / (margin + scale)


# The tight cases of the module docstring of theorems/alignment/alignment_geometry.py, as searched examples:
# Lemma 5 at the pair that defines mu (a simplex of equal cosines), Lemma 11 at a single point.
CONSTRUCTIONS = {5: (GEOMETRY_EXPLICIT[1], "the pair defining mu, in a simplex of equal signed cosines 0.25"),
                 11: (GEOMETRY_EXPLICIT[0], "a single data point, w activating it")}


def _read(*, lemma: int):
    """A reader of the smallest margin of Lemma 5 or Lemma 11 over data in random cones."""
    def read(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable) -> Exact:
        return _search(instance, budget, seed, observable, lemma=lemma)
    return read


def _search(instance: Instance, budget: Budget, seed: np.random.SeedSequence, observable, *, lemma: int) -> Exact:
    strategy = geometry_settings(instance["max_points"], instance["max_dimension"])
    explicit = [dict(e, points=min(e["points"], instance["max_points"])) for e in GEOMETRY_EXPLICIT]

    def margin(settings):
        return float(observable(geometry_measurements(settings, lemma=lemma)))

    result = search_counterexample(margin, strategy, max_examples=budget.scaled(BASE_EXAMPLES),
                                   seed=int(seed.generate_state(1)[0]), explicit=explicit,
                                   tolerance=GEOMETRY_TOLERANCE, refine=GEOMETRY_BOUNDS)
    construction, named = CONSTRUCTIONS[lemma]
    construction = dict(construction, points=min(construction["points"], instance["max_points"]))
    tightness = Tightness(geometry_ratio(instance, result.example, result.smallest_margin, lemma=lemma),
                          str(result.example),
                          geometry_ratio(instance, construction, margin(construction), lemma=lemma), named)
    witnesses = {name: geometry_measurements(example, lemma=lemma)
                 for name, example in (("smallest margin", result.example), ("construction", construction))
                 if example is not None}
    return Exact(result.smallest_margin, GEOMETRY_TOLERANCE,
                 f"Hypothesis search over {result.examples} data sets ({result.refined} in a local refinement); "
                 f"smallest margin at {result.example}", tightness=tightness, witnesses=witnesses)


CHECKER = Checker(
    theorem=alignment_geometry.THEOREM,
    simulation="Hypothesis over data in random cones, tight cases included",
    readers={"lemma-5": _read(lemma=5), "lemma-11": _read(lemma=11)},
    second_point={"max_points": "20", "max_dimension": "10"},
    calibration_seeds=50,
)
