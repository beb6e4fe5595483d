"""The one-step family: conjecture mode flips verdicts; assumptions; edge behaviour."""

import numpy as np
import pytest

from checkers import registry
from checkers.budget import FIDELITIES, Budget
from checkers.checker import Unresolved
from checkers.engine import run_check
from checkers.onestep import spike_count as spike_count_checker
from checkers.onestep.mixture_spike import _mixture_covariance_norm
from checkers.outcome import FAIL, INCONCLUSIVE, OUTSIDE, PASS
from checkers.shared_draws import forget

# (theorem, constant, factor, fidelity): a few percent on each named constant flips the verdict; the BBP overlap
# is extrapolated from two sizes and resolves about 0.05 in overlap, so its constants need 8-10%. Each nudge runs at
# the lowest fidelity that rejected it on every one of seeds 0-7 (quick, but the overlap's at default)
NUDGES = [
    ("spike-decomposition", "mu1", 1.03, "quick"),
    ("spike-decomposition", "mu1", 0.97, "quick"),
    ("spike-strength", "spike_strength", 1.05, "quick"),
    ("spike-strength", "mu1", 0.95, "quick"),
    ("spike-strength", "zeta_norm", 1.05, "quick"),
    ("spike-alignment", "alignment_limit", 1.05, "quick"),
    ("spike-alignment", "mu1_star", 0.95, "quick"),
    ("spike-outlier", "outlier_overlap", 1.08, "default"),
    ("spike-outlier", "bbp_threshold", 1.10, "default"),
    ("spike-outlier", "bbp_threshold", 0.90, "default"),
]


# one worker per theorem's nudges, so that a check whose draws are blind to its constants draws them once
@pytest.mark.parametrize("theorem, constant, factor, fidelity",
                         [pytest.param(*nudge, marks=pytest.mark.xdist_group(nudge[0])) for nudge in NUDGES])
def test_nudged_constant_fails(theorem, constant, factor, fidelity):
    checker = registry.checker(theorem)
    value = float(checker.theorem.instance().constant(constant))
    verdict = run_check(checker, overrides={constant: repr(value * factor)}, fidelity=fidelity)
    assert verdict.outcome == FAIL, verdict.explain()


def test_relu_is_outside_ba_assumptions_but_still_simulated():
    verdict = run_check(registry.checker("spike-decomposition"), {"activation": "relu", "teacher": "relu"},
                        fidelity="quick")
    assert verdict.outcome == OUTSIDE
    assert any("kinks" in reason for _, reason in verdict.assumption_failures)
    assert all(p.observed is not None for p in verdict.predictions)


def test_uncentred_activation_is_outside_assumptions():
    instance = registry.checker("spike-decomposition").theorem.instance({"activation": "softplus"})
    assert any("centred" in reason for _, reason in instance.assumption_failures())


def test_outlier_below_threshold_is_not_claimed_at_a_single_size():
    verdict = run_check(registry.checker("spike-outlier"), {"learning_rate": "1"}, fidelity="quick")
    assert {p.outcome for p in verdict.predictions} == {"not applicable"}


def test_alignment_at_other_parameters():
    verdict = run_check(registry.checker("spike-alignment"), {"teacher": "relu", "noise": "0", "psi1": "1"})
    assert verdict.outcome == PASS, verdict.explain()


def test_mixture_covariance_norm_matches_the_matrix():
    rng = np.random.default_rng(3)
    spikes = tuple(np.linalg.qr(rng.standard_normal((30, 1)))[0] for _ in range(2))
    theta = 7.0
    average = np.eye(30) + theta / 2 * sum(g @ g.T for g in spikes)
    assert _mixture_covariance_norm(spikes, theta) == pytest.approx(np.linalg.norm(average, 2), rel=1e-12)


def test_mixture_spike_upper_bounds_hold_for_the_authors_random_teacher():
    """Quick fidelity resolves the remainder's 0.25 but not the spike's 0.1 (default does); with the random teacher
    the spike's fitted exponent lies under its bound by more than quick could detect all the same."""
    verdict = run_check(registry.checker("mixture-spike"), {"teacher_direction": "random"}, fidelity="quick")
    results = {result.name: result for result in verdict.predictions}
    assert results["remainder-rate"].outcome == PASS and results["spike-rate"].outcome == INCONCLUSIVE
    spike = results["spike-rate"]
    assert spike.observed < spike.predicted - spike.detectable, verdict.explain()


def test_mixture_spike_has_no_spike_rate_where_mu1_is_zero():
    """For He_3 (mu1 = E sigma'(Z) = 0) the spike u v^T is identically 0: its rate is not applicable (a log-log fit of
    zeros was an internal error), and the remainder's bound is still read."""
    instance = registry.checker("mixture-spike").theorem.instance({"activation": "z**3 - 3*z"})
    spike = next(p for p in instance.theorem.predictions if p.name == "spike-rate")
    assert "identically 0" in spike.applies(instance)
    assert spike.applies(registry.checker("mixture-spike").theorem.instance()) is None


def test_spike_count_reports_an_unseparated_second_spike_as_not_resolved(monkeypatch):
    """At alpha = 0.3 two spikes are claimed and spike 2 (e_2 = 0.1) has not separated by n = 2000: fewer outliers
    are "not resolved", never a pass or a fail. Only the counted draws at n = 2000 matter, so the others are cut."""
    monkeypatch.setattr(spike_count_checker, "DRAWS", {250: 1, 500: 1, 1000: 1,
                                                       2000: spike_count_checker.COUNTED_DRAWS})
    instance = registry.checker("spike-count").theorem.instance({"alpha": "0.3"})
    try:
        with pytest.raises(Unresolved, match="1 outlier\\(s\\) at n = 2000, 2 claimed"):
            spike_count_checker.read_outlier_count(instance, Budget(FIDELITIES["quick"], 0),
                                                   np.random.SeedSequence(0))
    finally:
        forget()  # the cut draws must not serve a later check of the same instance


@pytest.mark.slow
def test_spike_count_at_two_claimed_spikes_never_fails_at_quick_fidelity():
    """The whole check at alpha = 0.3 (the issue's range): the count is not resolved, the second amplitude passes
    (measured: 0.1210 against 0.1263), and nothing fails. About 100 s."""
    verdict = run_check(registry.checker("spike-count"), {"alpha": "0.3"}, fidelity="quick")
    count = next(p for p in verdict.predictions if p.name == "outlier-count")
    assert count.outcome == "inconclusive" and "not resolved" in count.message
    assert verdict.outcome != FAIL


def test_spike_count_constant_follows_the_intervals_and_the_coefficients():
    theorem = registry.checker("spike-count").theorem
    counts = {(a, alpha): int(theorem.instance({"activation": a, "alpha": alpha}).constant("spike_count"))
              for a in ("log(1 + exp(z)) + tanh(z)", "tanh") for alpha in ("0.2", "0.3", "0.35", "0.45")}
    softplus_tanh = "log(1 + exp(z)) + tanh(z)"
    assert [counts[(softplus_tanh, a)] for a in ("0.2", "0.3", "0.35", "0.45")] == [1, 2, 3, 3]
    assert [counts[("tanh", a)] for a in ("0.2", "0.3", "0.35", "0.45")] == [1, 1, 2, 2]  # c_2 = 0


def test_spike_strength_states_its_finite_width_bias():
    """At psi2 = 0.05 (N = 10 at d = 200) sqrt(N) ||G_0|| / ||a|| sits 5% above its limit, mostly through the
    network's own output f_0 = O(N^-1/2), and the true statement failed. The reading now carries twice the derived
    leading bias, 0.64/N for tanh, as its systematic bound: inconclusive there, unchanged in kind at the defaults.
    The coefficient is assembled here from its parts, (mu1^2 + E sigma^2/psi1 + 3 E[y^2] Var sigma'/(psi1 mu1^2))
    / (2 ||zeta||^2), so a changed formula shows as a diff against the derivation."""
    import math

    from checkers.onestep.spike_strength import finite_width_bias
    from checkers.outcome import INCONCLUSIVE
    from theorems.hermite import derivative_second_moment, hermite_coefficients, second_moment

    instance = registry.checker("spike-strength").theorem.instance()
    mu1 = float(hermite_coefficients("tanh", 1).quantity(1).value)
    own = float(second_moment("tanh").value)
    slopes = float(derivative_second_moment("tanh").value) - mu1**2
    second = own + 0.1**2
    zeta_squared = mu1**2 + second / 2
    expected = (mu1**2 + own / 2 + 3 * second * slopes / (2 * mu1**2)) / (2 * zeta_squared)
    assert math.isclose(finite_width_bias(instance), expected, rel_tol=1e-12)
    assert 0.6 < expected < 0.7  # the measured bias was 0.52/N at N = 10 and 0.54/N at N = 40
    verdict = run_check(registry.checker("spike-strength"), {"psi2": "0.05"}, fidelity="quick")
    assert verdict.outcome == INCONCLUSIVE and verdict.predictions[0].systematic > 0.05


def test_the_general_step_shift_variance_meets_the_alpha_familys_at_n_equal_d_equal_n():
    """step_shift_variance (any eta, psi1, N) against spike-count's shift_variance (eta = n^alpha at n = d = N,
    through its constant shift_scale): the same s^2 by two routes."""
    from theorems.onestep.common import shift_variance, step_shift_variance

    instance = registry.checker("spike-count").theorem.instance({"alpha": "0.3"})
    size = 1000
    general = step_shift_variance({**instance.parameters, "psi1": 1}, size ** 0.3, size)
    assert general == pytest.approx(shift_variance(instance, size), rel=1e-12)


@pytest.mark.parametrize("fidelity", ["quick", pytest.param("default", marks=pytest.mark.slow)])
def test_spike_alignment_reads_the_limit_past_its_finite_size_bias(fidelity):
    """With the teacher |z| (mu1_star = 0) the limit is 0, but at d = 1000 the overlap's mean is 0.0026 (the component
    of X^T y / n along beta_* has variance E[y^2 z^2]/n against E[y^2]/n for the others): read at one size, the true
    statement failed at default fidelity. Extrapolated in 1/d from three sizes it reads 0.0008 +- 0.0003, and the
    bias's spread over the exponents the sizes accept leaves it inconclusive, never failing. Quick fidelity reads
    d = 250..1000, where the bias is larger, in 2 s; default (25 s) runs on request."""
    from checkers.outcome import INCONCLUSIVE

    verdict = run_check(registry.checker("spike-alignment"), {"teacher": "abs"}, fidelity=fidelity)
    assert verdict.outcome in (PASS, INCONCLUSIVE), verdict.explain()
    assert "extrapolated as L + B d^-e" in verdict.predictions[0].method


@pytest.mark.parametrize("theorem_id", ["spike-strength", "spike-count"])
def test_an_activation_without_a_first_coefficient_is_outside_the_spike_theorems(theorem_id):
    """He_3 = z^3 - 3z has c_1 = mu1 = 0: the step has no rank-one part, which Ba et al.'s spike and the count both
    build on. spike-strength had no such assumption, and its finite-width bias divided by mu1^2 (an internal
    error); both now say why the point is outside, before any draw for spike-strength's reading."""
    instance = registry.checker(theorem_id).theorem.instance({"activation": "z**3 - 3*z"})
    failures = dict(instance.assumption_failures())
    assert "c_1 = 0" in failures["first-coefficient"]
    if theorem_id == "spike-strength":
        from checkers.onestep.spike_strength import read_gradient_norm

        with pytest.raises(Unresolved, match="no spike strength to read"):
            read_gradient_norm(instance, Budget(FIDELITIES["quick"], 0), np.random.SeedSequence(0))


def test_a_gradient_that_is_its_spike_realizes_the_spike_coefficient_reference():
    """spike-decomposition's reference, G_0 = A: for any zeta and a, the gradient mu1/sqrt(N) zeta a^T has spike
    coefficient mu1 read the way its checker reads it (G_0 a/||a||), and along a fixed axis orthogonal to zeta (the
    random-direction mutant) none."""
    from theorems.onestep import spike_decomposition

    instance = spike_decomposition.THEOREM.instance()
    rng = np.random.default_rng(0)
    zeta, a = rng.standard_normal(30), rng.standard_normal(50)
    zeta[0] = 0.0
    scale, left, right = spike_decomposition.spike(instance, zeta, a)
    gradient = scale * np.outer(left, right)
    measured = {"zeta": zeta, "gradient_along_a": gradient @ (a / np.linalg.norm(a)), "width": 50,
                "second_layer_norm": np.linalg.norm(a)}
    mu1 = float(instance.constant("mu1"))
    assert spike_decomposition.spike_coefficient(instance, measured) == pytest.approx(mu1, rel=1e-12)
    wrong = spike_decomposition.THEOREM.mutated("random-direction").instance()
    assert spike_decomposition.spike_coefficient(wrong, measured) == pytest.approx(0.0, abs=1e-12)


def test_spike_outliers_paper_scale_reads_d_up_to_3200():
    from checkers.onestep.spike_outlier import _plan
    assert _plan(Budget(FIDELITIES["paper"], 0)) == ((800, 1600, 3200), (192, 96, 48))


@pytest.mark.slow
def test_at_the_papers_scale_a_five_percent_overlap_error_is_rejected():
    """At d = 800..3200 the overlap's excess is a few thousandths, and the bounded exponent's spread with it: the
    true statement passes, and the overlap 5% high (0.035, nearer than any named error) fails (about 8 minutes on one
    core each; docs/derivations/onestep.md#spike-outlier)."""
    checker = registry.checker("spike-outlier")
    assert run_check(checker, fidelity="paper").outcome == PASS
    nudged = float(checker.theorem.instance().constant("outlier_overlap")) * 1.05
    assert run_check(checker, overrides={"outlier_overlap": repr(nudged)}, fidelity="paper").outcome == FAIL
