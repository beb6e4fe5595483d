"""gaussian-equivalence beyond its contract tests: where its gap's trend lies, and what its verdict says outside
eta = Theta(1)."""

import pytest

from checkers import registry
from checkers.engine import run_check
from checkers.outcome import FAIL, OUTSIDE, SKIPPED
from tests.main_job import MAIN_JOB


@pytest.mark.slow  # about 20 s: a check away from the defaults
def test_outside_a_constant_step_says_so_and_shows_what_happens():
    # eta = N^(1/2) is outside Theorem 3 (eta = Theta(1)): the verdict names the failed assumption, the risk
    # prediction is still evaluated (the network's risk is about half the GE model's), the small-step limit is not
    checker = registry.checker("gaussian-equivalence")
    verdict = run_check(checker, {"step_exponent": "0.5"}, seed=0, fidelity="quick")
    assert verdict.outcome == OUTSIDE
    assert [failure[0] for failure in verdict.assumption_failures] == ["small-step"]
    outcomes = {p.name: p for p in verdict.predictions}
    assert outcomes["risk"].outcome == FAIL and outcomes["risk"].observed < -0.3
    assert outcomes["equivalent-limit"].outcome == SKIPPED


def test_the_split_puts_the_finite_size_trend_in_the_part_that_depends_on_w1_alone():
    """R_CK/DE_GE = (R_CK/DE_kernel)(DE_kernel/DE_GE) per draw; at d = 100 (48 seeded draws) the network's part u
    is within 4.5 standard errors of 0 and the moments' part l carries the -3/d (measured -3.2% +- 0.09%,
    docs/derivations/equivalence.md#gaussian-equivalence), which is what lets each be extrapolated on its own."""
    import numpy as np

    from checkers.equivalence.gaussian_equivalence import _simulated
    from checkers.onestep.draws import setting_for
    from theorems.equivalence import gaussian_equivalence
    from theorems.equivalence.gaussian_equivalence import equivalent_risk

    instance = gaussian_equivalence.THEOREM.instance({})
    parameters = tuple(sorted(instance.describe_parameters().items()))
    samples = setting_for(instance, 100).samples
    network, moments = [], []
    for child in np.random.SeedSequence(7).spawn(48):
        risk, reference, squares, along, width = _simulated(parameters, 100, child.entropy, child.spawn_key, True)
        equivalent = equivalent_risk(instance, squares, along, width, samples).risk
        network.append(risk / reference - 1)
        moments.append(reference / equivalent - 1)
    network, moments = np.array(network), np.array(moments)
    assert abs(network.mean()) <= 4.5 * network.std(ddof=1) / np.sqrt(48)
    assert -0.04 < moments.mean() < -0.025 and moments.std(ddof=1) < network.std(ddof=1) / 2


def test_sizes_whose_matrices_exhaust_memory_are_refused_before_the_first_draw():
    """psi2 = 50 is in the theorem's domain, but at d = 400 it asks for a 20 000 x 20 000 covariance: refused with
    the sizes before any draw."""
    from theorems.errors import InvalidInput

    with pytest.raises(InvalidInput, match="20000 x 20000 float64 matrix .* lower psi1 or psi2"):
        run_check(registry.checker("gaussian-equivalence"), {"psi2": "50"}, fidelity="quick")


def test_a_constant_step_too_large_for_the_sizes_is_unresolved_before_any_draw():
    """eta = 100 is Theta(1) but a fresh preactivation's shift variance is 11 at N = 200: the network read 62%
    below DE_GE(W_1) and the true statement failed. Unresolved there; read at the defaults (s^2 = 0.001); left on
    show where the theorem claims nothing (step_exponent > 0)."""
    from checkers.checker import Unresolved
    from checkers.equivalence.gaussian_equivalence import require_small_step_at_these_sizes

    theorem = registry.checker("gaussian-equivalence").theorem
    with pytest.raises(Unresolved, match="shift variance after the step, .* is 11 at d = 100"):
        require_small_step_at_these_sizes(theorem.instance({"learning_rate": "100"}))
    require_small_step_at_these_sizes(theorem.instance())
    require_small_step_at_these_sizes(theorem.instance({"learning_rate": "100", "step_exponent": "0.5"}))


def test_the_risk_gap_is_the_statements_so_a_constant_mutant_moves_it():
    """DE_GE(W_1) is part of the risk prediction's observable: mu1 5% high moves the gap of a network at its own
    equivalent (W_1 = [I | I]/sqrt 2, d = 100, N = 200) by 1.65 resolutions of 2.5%, before any draw, and dropping
    the mu_star z term by far more."""
    from theorems.equivalence import gaussian_equivalence

    claims = gaussian_equivalence.THEOREM.claims()
    assert claims.moves("mu1-five-percent")["risk"] == pytest.approx(1.647, abs=1e-3)
    assert claims.moves("mu-star-term-dropped")["risk"] > 40
    reference = gaussian_equivalence.network_at_its_equivalent(claims.stated.instance)["at its equivalent"]
    assert gaussian_equivalence.risk_gap(claims.stated.instance, reference) == 0


# the mutants quick fidelity rejects on the true statement's own draws (five resolutions or more), one it rejects on
# most (three: 19 of 20 quick calibration runs), and those only default fidelity resolves (two resolutions or less:
# their runs at default are the slow suite's, tests/test_contract.py)
FAR = ("mu-star-as-c2", "mu-star-as-root-moment", "mu-star-term-dropped", "noise-left-out")
MIDDLE = ("mu-star-ten-percent",)
NEAR = ("mu1-five-percent", "step-left-out-of-limit")


@MAIN_JOB
def test_quick_fidelity_has_the_power_to_reject_the_far_mutants_on_the_true_draws():
    """Every mutant of gaussian-equivalence acts on the claim, so its check runs on the true statement's draws: at
    quick fidelity the far ones are rejected there with probability above 0.999, on the risk gap and on the limit.
    Quick's detectable discrepancy is about two resolutions plus its systematic bound, so a mutant three resolutions
    out is rejected with a probability below that, and the near ones only at default fidelity."""
    from tests.main_job import quick_verdict

    theorem = registry.checker("gaussian-equivalence").theorem
    assert {m.name for m in theorem.mutants} == set(FAR + MIDDLE + NEAR)
    assert all(m.acts_on == "claim" for m in theorem.mutants)
    verdict = quick_verdict(registry.checker("gaussian-equivalence"))
    for prediction in verdict.predictions:
        assert all(prediction.power[name] > 0.999 for name in FAR), (prediction.name, prediction.power)
    claims = theorem.claims()
    assert all(5 <= min(claims.moves(name).values()) for name in FAR)
    assert all(2 < min(claims.moves(name).values()) < 5 for name in MIDDLE)
    assert all(0 < min(claims.moves(name).values()) <= 2 for name in NEAR)


def test_paper_fidelity_trains_to_ba_et_als_size_and_leaves_quick_and_default_as_they_were():
    """Quick and default draw DRAWS doubled per level at d = 100, 200, 400 (and 800 for the moments); paper draws at
    d = 128, 256, 512 (Ba et al.'s Fig. 3) and 1024 the draws of the sizes they replace at level 3, then 4."""
    from checkers.budget import FIDELITIES, Budget
    from checkers.equivalence.gaussian_equivalence import plan

    assert plan(Budget(FIDELITIES["quick"], 0)) == ((100, 200, 400), {100: 24, 200: 8, 400: 12, 800: 3})
    assert plan(Budget(FIDELITIES["default"], 1)) == ((100, 200, 400), {100: 192, 200: 64, 400: 96, 800: 24})
    assert plan(Budget(FIDELITIES["paper"], 0)) == ((128, 256, 512), {128: 192, 256: 64, 512: 96, 1024: 24})
    assert plan(Budget(FIDELITIES["paper"], 1)) == ((128, 256, 512), {128: 384, 256: 128, 512: 192, 1024: 48})
