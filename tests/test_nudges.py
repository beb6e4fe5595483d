"""The near errors a referee nudged into statements (issues "sharp verdicts" and "paper scale"): each is rejected at the
fidelity its check names for it, where the true statement passes on the same seed. Slow: paper fidelity takes minutes
a check on one core (giant-step-risk about 8, spike-outlier about 5, mixture-spike under 2); the time of the last full
run is in the README.

The fifth, large-step-beats-linear's linear bound 15% low, is not here: it is false only at d = 128, where the
network's risk (0.0346 at the defaults) lies above it; from d = 256 on (0.0327) the network beats the nudged bound
too, so the nudged claim holds in the limit. Default fidelity reads it inconclusive, -0.00047 +- 0.00032 at d = 128
(docs/derivations/equivalence.md#large-step-beats-linear)."""

import mpmath
import pytest

from checkers import registry
from checkers.engine import run_check
from checkers.outcome import FAIL, PASS

# (theorem, constant, the nudge, the fidelity its check names for an error of that size)
NUDGES = [
    ("giant-step-risk", "test_error", lambda value: value * mpmath.mpf("1.05"), "paper"),
    ("giant-step-risk", "test_error", lambda value: value * mpmath.mpf("0.95"), "paper"),
    ("spike-outlier", "outlier_overlap", lambda value: value * mpmath.mpf("1.05"), "paper"),
    ("nc2-bracket", "bound_scale", lambda value: value * mpmath.mpf("0.9"), "default"),
    ("nc2-bracket", "hidden_scale", lambda value: value * mpmath.mpf("0.9"), "default"),
    ("collapse-training", "decay_factor", lambda value: value ** mpmath.mpf("1.04"), "default"),
    # the spike's exponent claimed at -0.35 for -1/4: 0.1 off, its resolution
    ("mixture-spike", "spike_exponent", lambda value: mpmath.mpf("-0.35"), "paper"),
]


@pytest.mark.slow
@pytest.mark.parametrize("theorem, constant, nudge, fidelity", NUDGES,
                         ids=[f"{theorem}-{constant}-{index}" for index, (theorem, constant, _, _)
                              in enumerate(NUDGES)])
def test_a_near_error_is_rejected_where_its_check_says_and_the_truth_passes_there(theorem, constant, nudge,
                                                                                   fidelity):
    checker = registry.checker(theorem)
    truth = run_check(checker, seed=0, fidelity=fidelity)
    assert truth.outcome == PASS, truth.explain()
    value = nudge(checker.theorem.instance().constant(constant))
    nudged = run_check(checker, overrides={constant: mpmath.nstr(value, 30)}, seed=0, fidelity=fidelity)
    assert nudged.outcome == FAIL, nudged.explain()
