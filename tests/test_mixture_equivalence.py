"""The Hermite model under Gaussian mixtures (theorems.equivalence.mixture_equivalence,
checkers.equivalence.mixture_readout)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial.hermite_e import hermegauss, hermeval

from checkers.budget import FIDELITIES, Budget
from checkers.equivalence.mixture_equivalence import mixture_gaps, plan
from checkers.equivalence.mixture_readout import mixture_errors
from theorems.activations import activation
from theorems.equivalence.mixture_equivalence import THEOREM, hermite_degree, hermite_model


@given(st.floats(0.01, 0.95))
def test_degree_is_the_interval_of_beta(beta):
    """D is the degree with beta in ((D - 1)/D, D/(D + 1)] (docs/derivations/equivalence.md#mixture-equivalence), the
    code's rule; the statement holds inside each interval only."""
    degree = hermite_degree(beta)
    assert degree == 1 if beta <= 0.5 else (degree - 1) / degree < beta <= degree / (degree + 1) + 1e-12


def test_interval_edges_belong_to_the_lower_degree():
    assert [hermite_degree(b) for b in (0.5, 2 / 3, 0.75, 0.8)] == [1, 2, 3, 4]


def _floats(quantities):
    return [float(q.value) for q in quantities]


def test_rest_of_a_cubic_is_known_in_closed_form():
    """z^3 = He_3 + 3 He_1 and E z^6 = 15, so h*_1^2 = 15 - 9 = 6, h*_2 = h*_1 and h*_3 = 0."""
    cubic = activation("z**3")
    rests = [hermite_model(cubic, degree, 30)[1] for degree in (1, 2, 3)]
    assert [q.route for q in rests] == ["exact"] * 3
    assert _floats(rests) == pytest.approx([math.sqrt(6), math.sqrt(6), 0], abs=1e-25)


@settings(max_examples=8, deadline=None)
@given(st.floats(0.3, 3.0))
def test_scaled_coefficients_of_a_cubic(scale):
    """sigma(b Z) = b^3 (He_3 + 3 He_1): c_1(b) = 3 b^3, c_3(b) = b^3, and nothing is left over."""
    coefficients, rest = hermite_model(activation("z**3"), 3, 20, scale)
    assert _floats(coefficients) == pytest.approx([0, 3 * scale**3, 0, scale**3], abs=1e-15 * scale**3)
    assert float(rest.value) == pytest.approx(0, abs=1e-8 * scale**3)


@pytest.mark.parametrize("degree", [0, 1, 2, 3])
def test_relu_model_scales_by_homogeneity(degree):
    """relu(b z) = b relu(z): every c_j(b) and h*(b) is b times its unit-scale value (a kinked case, where a
    Gauss-Hermite rule would be off by 1%)."""
    relu, scale = activation("relu"), 0.8
    unit, scaled = hermite_model(relu, degree, 20), hermite_model(relu, degree, 20, scale)
    assert _floats(scaled[0]) == pytest.approx([scale * c for c in _floats(unit[0])], rel=1e-15, abs=1e-18)
    assert float(scaled[1].value) == pytest.approx(scale * float(unit[1].value), rel=1e-12)


def test_tanh_model_matches_a_gauss_hermite_rule():
    """For the smooth tanh a 200-node Gauss-Hermite rule agrees with the mpmath route to 1e-12."""
    scale, sigma = 0.9, activation("tanh")
    nodes, weights = hermegauss(200)
    weights = weights / weights.sum()
    values = sigma(scale * nodes)
    quadrature = [weights @ (values * hermeval(nodes, [0] * j + [1])) / math.factorial(j) for j in range(4)]
    rest = math.sqrt(weights @ values**2 - sum(math.factorial(j) * c**2 for j, c in enumerate(quadrature)))
    coefficients, model_rest = hermite_model(sigma, 3, 20, scale)
    assert _floats(coefficients) == pytest.approx(quadrature, abs=1e-12)
    assert float(model_rest.value) == pytest.approx(rest, rel=1e-10)


def test_hermite_model_of_a_polynomial_is_the_polynomial():
    """For sigma a polynomial of degree <= D the model sum_j c_j(b) He_j(u/b) is sigma itself, with no rest, so
    both readouts see the same features and the gaps vanish to round-off."""
    sigma = activation("z + z**2/2")
    errors = mixture_errors(80, 0.5, 0.6, sigma, 2, 1e-3, np.random.default_rng(0))
    assert errors.gaps() == pytest.approx((0, 0), abs=1e-9)


def test_same_seed_same_errors_and_the_rest_matters():
    sigma = activation("tanh")
    first, second = (mixture_errors(80, 0.5, 0.6, sigma, 2, 1e-3, np.random.default_rng(3)) for _ in range(2))
    without_rest = mixture_errors(80, 0.5, 0.6, sigma, 2, 1e-3, np.random.default_rng(3), rest=0.0)
    assert first == second
    assert without_rest.network_train == first.network_train
    assert without_rest.hermite_train != first.hermite_train


def test_an_override_of_the_rest_reaches_the_simulation():
    seeds = np.random.SeedSequence(4).spawn(2)
    plain = mixture_gaps(THEOREM.instance(), 80, seeds)
    dropped = mixture_gaps(THEOREM.instance(overrides={"rest": "0"}), 80, seeds)
    direct = [mixture_errors(80, 0.5, 0.6, activation("tanh"), 2, 1e-3, np.random.default_rng(child),
                             rest=0.0).gaps() for child in seeds]
    assert np.array_equal(dropped, np.array(direct))
    assert not np.array_equal(plain, dropped)


@pytest.mark.parametrize("parameters, overrides, reason", [
    ({"beta": "0"}, {}, "outside (0, 4/5)"),
    ({"beta": "0.9"}, {}, "outside (0, 4/5)"),
    ({"beta": "1/2"}, {}, "the boundary between D = 1 and D = 2"),
    ({"beta": "0.75"}, {}, "the boundary between D = 3 and D = 4"),
    ({}, {"degree": "1.5"}, "integer in 0..4"),
])
def test_outside_assumptions_says_why(parameters, overrides, reason):
    failures = THEOREM.instance(parameters, overrides).assumption_failures()
    assert any(reason in text for _, text in failures)


def test_beta_one_is_outside_the_assumptions_where_the_degree_is_unbounded(capsys):
    """ceil(beta/(1 - beta)) has no value at beta = 1 (a ZeroDivisionError was an internal error, exit 4): the check
    says outside the assumptions, with both reasons, and `show` says the constants are undefined there."""
    from checkers import registry
    from checkers.cli import main
    from checkers.engine import run_check
    from checkers.outcome import OUTSIDE

    with pytest.raises(OverflowError, match="unbounded at beta = 1"):
        hermite_degree(1.0)
    verdict = run_check(registry.checker("mixture-equivalence"), {"beta": "1"}, fidelity="quick")
    assert verdict.outcome == OUTSIDE
    assert [name for name, _ in verdict.assumption_failures] == ["strength", "integer-degree"]
    assert main(["show", "mixture-equivalence", "--param", "beta=1"]) == 0
    assert "undefined here, outside the assumptions: ceil(beta/(1 - beta)) is unbounded" in capsys.readouterr().out


def test_an_assumption_that_cannot_be_evaluated_is_a_bug_unless_another_fails():
    """The degree's assumption cannot be evaluated at beta = 1; that counts as failing only beside the strength
    assumption's plain failure. Alone (here: the strength assumption left out), it is a bug and propagates."""
    import dataclasses

    integer_degree = [a for a in THEOREM.assumptions if a.name == "integer-degree"]
    alone = dataclasses.replace(THEOREM, assumptions=tuple(integer_degree))
    with pytest.raises(OverflowError, match="unbounded at beta = 1"):
        alone.instance({"beta": "1"}).assumption_failures()
    assert [name for name, _ in THEOREM.instance({"beta": "1"}).assumption_failures()] == ["strength",
                                                                                          "integer-degree"]


def test_the_two_wrong_rests_are_the_whole_variance_and_none_at_the_papers_penalty():
    """rest-not-reduced takes sqrt(E tanh(Z)^2) (here by mpmath's quadrature, not the Hermite tables) in place of
    h*_2 = sqrt(E tanh^2 - c_1^2 - 2 c_2^2); no-gaussian-rest takes 0, at lambda = 1e-4."""
    import mpmath

    whole = mpmath.sqrt(mpmath.quad(lambda u: mpmath.tanh(u) ** 2 * mpmath.npdf(u), [-mpmath.inf, 0, mpmath.inf]))
    reduced = THEOREM.mutated("rest-not-reduced").instance(THEOREM.mutant_parameters("rest-not-reduced"))
    assert float(reduced.constant("rest")) == pytest.approx(float(whole), rel=1e-12)
    assert float(THEOREM.instance().constant("rest")) < float(whole) / 3
    parameters = THEOREM.mutant_parameters("no-gaussian-rest")
    assert parameters["penalty"] == "1e-4"
    assert THEOREM.mutated("no-gaussian-rest").instance(parameters).constant("rest") == 0


def test_paper_fidelity_adds_the_figures_size_and_leaves_quick_and_default_as_they_were():
    """Quick and default draw 40 and 80 paired draws at n = 500 (four and two times that at 125 and 250); paper adds
    n = 1000, Demir and Dogan's Fig. 1, with 40 paired draws doubled per stage beside default's draws at the same
    stage."""
    budget = {name: Budget(FIDELITIES[name], 0) for name in ("quick", "default", "paper")}
    assert plan(budget["quick"]) == {125: 160, 250: 80, 500: 40}
    assert plan(budget["default"]) == {125: 320, 250: 160, 500: 80}
    assert plan(budget["paper"]) == {125: 320, 250: 160, 500: 80, 1000: 40}
    assert plan(Budget(FIDELITIES["paper"], 1)) == {**plan(Budget(FIDELITIES["default"], 1)), 1000: 80}
