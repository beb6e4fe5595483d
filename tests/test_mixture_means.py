"""mixture-means: the three data models drawn from one set of samples, and the claim against its mutant."""

import math

import numpy as np
import pytest

from checkers.equivalence.mixture_means import _in_model
from theorems.equivalence import mixture_means as statement


def test_means_and_the_spike_share_the_second_moment():
    """From the same samples, the means +-mu and the spike ||mu||^2 u u^T give one second moment along u: 1 + ||mu||^2,
    and leave the other directions as they were."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200000, 3))
    components = rng.integers(0, 2, len(x))
    u = np.array([0.6, 0.8, 0.0])
    means, spike = (_in_model(model, x, components, u, 2.0) for model in ("means", "spike"))
    for sample in (means, spike):
        assert np.mean((sample @ u) ** 2) == pytest.approx(5.0, rel=0.01)
        assert np.mean(sample[:, 2] ** 2) == pytest.approx(1.0, rel=0.01)
    assert np.array_equal(_in_model("zero", x, components, u, 2.0), x)


def test_the_claim_and_the_means_ignored_reading_on_a_draw_known_before_any_draw():
    measured = statement.means_like_spike(None)["like a spike"]
    assert statement.log_ratio(statement.THEOREM.instance({}), measured) == 0
    ignored = statement.THEOREM.mutated("means-ignored").instance({})
    assert statement.log_ratio(ignored, measured) == pytest.approx(math.log(1.1))
