"""Data in random cones, for the Hypothesis searches of the early-alignment family's pointwise lemmas."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

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


# the float entries of `geometry_settings` with their ranges, for the local refinement after the search
GEOMETRY_BOUNDS = {"spread": (0.0, 0.8), "norm_low": (0.1, 1.0), "norm_high": (1.0, 3.0), "cosine": (0.01, 0.99),
                   "sparsity": (0.0, 0.9)}

# The first is Lemma 11's tight case, a single point that a searched w activates (with seed 0 its label was -1 and no
# candidate w activated it, so it claimed nothing); the second, Lemma 5's, the simplex whose pairs all define mu.
GEOMETRY_EXPLICIT = (
    dict(seed=1, layout="single", points=1, dimension=3, spread=0.0, norm_low=1.0, norm_high=1.0, cosine=0.5,
         sparsity=0.0),
    dict(seed=1, layout="simplex", points=10, dimension=11, spread=0.0, norm_low=1.0, norm_high=1.0, cosine=0.25,
         sparsity=0.0),
    dict(seed=2, layout="random", points=6, dimension=4, spread=0.3, norm_low=0.5, norm_high=1.5, cosine=0.5,
         sparsity=0.5),
)
