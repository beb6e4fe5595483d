"""spike-count's first-spike amplitude: the constant c_1 mu1 against an independent quadrature, its mutants, and its
reading in the main job's quick run (checkers/onestep/spike_count.py)."""

import math

import numpy as np
import numpy.polynomial.hermite_e as numpy_hermite
import pytest

from checkers import registry
from checkers.check import FIDELITIES, Budget, Unresolved
from checkers.onestep.spike_count import read_first_spike_amplitude
from tests.main_job import MAIN_JOB, quick_verdict

THEOREM = registry.checker("spike-count").theorem


def _mean_slope(derivative) -> float:
    """E sigma'(Z), Z ~ N(0, 1), by 120-point Gauss-Hermite (probabilists' weight e^(-z^2/2))."""
    nodes, weights = numpy_hermite.hermegauss(120)
    return float(weights @ derivative(nodes) / math.sqrt(2 * math.pi))


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


@pytest.mark.parametrize("activation, derivative", [
    ("log(1 + exp(z)) + tanh(z)", lambda z: _sigmoid(z) + 1 - np.tanh(z) ** 2),
    ("tanh", lambda z: 1 - np.tanh(z) ** 2),
])
def test_the_first_spike_amplitude_is_the_square_of_the_mean_slope(activation, derivative):
    """c_1 = E[sigma He_1] = E sigma' (Stein's lemma), so c_1 mu1 = (E sigma')^2, here from sigma' by quadrature."""
    instance = THEOREM.instance({"activation": activation})
    slope = _mean_slope(derivative)
    assert float(instance.constant("mu1")) == pytest.approx(slope, rel=1e-10)
    assert float(instance.constant("first_spike_amplitude")) == pytest.approx(slope**2, rel=1e-10)


def test_the_amplitude_mutants_move_it_by_their_named_errors():
    truth = float(THEOREM.instance().constant("first_spike_amplitude"))
    slope = float(THEOREM.instance().constant("mu1"))
    five_percent = THEOREM.mutated("mu1-five-percent").instance()
    assert float(five_percent.constant("first_spike_amplitude")) == pytest.approx(1.05**2 * truth, rel=1e-12)
    left_out = THEOREM.mutated("step-slope-left-out").instance()
    assert float(left_out.constant("first_spike_amplitude")) == pytest.approx(slope, rel=1e-12)
    resolution = 0.05 * truth
    assert 1.5 < abs(1.05**2 * truth - truth) / resolution < 3 and 1.5 < abs(slope - truth) / resolution < 3


@MAIN_JOB
def test_the_quick_run_reads_the_amplitude_at_the_c3_order_and_rejects_both_mutants():
    """The main job's spike-count run: the amplitude is extrapolated in n^(2 alpha - 1) = n^-0.6 with the exponent
    bounded in [0.3, 1.2], read at 0.6; it passes with a systematic bound below the resolution, and its power
    against both amplitude mutants (10% away) is near one."""
    verdict = quick_verdict(registry.checker("spike-count"))
    amplitude = next(p for p in verdict.predictions if p.name == "first-spike-amplitude")
    assert amplitude.outcome == "pass", verdict.explain()
    assert "0.3 <= e <= 1.2, read at e = 0.6" in amplitude.method
    assert 0 < amplitude.systematic < amplitude.resolution
    assert abs(amplitude.observed - amplitude.predicted) <= amplitude.detectable
    assert min(amplitude.power.values()) > 0.99 and set(amplitude.power) == {"mu1-five-percent",
                                                                             "step-slope-left-out"}


def test_at_alpha_one_half_the_amplitude_is_not_resolved_before_any_draw():
    instance = THEOREM.instance({"alpha": "0.5"})
    with pytest.raises(Unresolved, match="do not decay"):
        read_first_spike_amplitude(instance, Budget(FIDELITIES["quick"], 0), np.random.SeedSequence(0))
