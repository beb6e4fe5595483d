"""The bounds of theorems/collapse.py: limits, closed forms, and their order between Theorem A and Corollary A'."""

import math

import mpmath
import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st

from checkers.collapse.head_search import build_head, head_settings, tight_settings
from checkers.collapse.heads import Head, measure_head, one_hot_targets
from theorems.collapse import bounds as collapse
from theorems.collapse import nc1_bound, nc3_bound, pseudo_inverse_features


def test_the_share_of_a_bracket_is_measured_from_its_centre_on_the_side_the_value_lies():
    assert collapse.bracket_share(0.5, 1.0, 1.25, 2.0) == 0.25  # binary fractions: exact
    assert collapse.bracket_share(0.5, 1.0, 0.75, 2.0) == 0.5
    assert collapse.bracket_share(0.5, 1.0, 2.0, 2.0) == 1.0  # attained, above and below
    assert collapse.bracket_share(0.5, 1.0, 0.5, 2.0) == 1.0
    assert collapse.bracket_share(0.5, 1.0, 2.5, 2.0) == 1.5  # outside: a violation reads above 1
    # a bracket of no width around its centre: the centre itself uses none of it, any other value infinitely much
    assert collapse.bracket_share(1.0, 1.0, 1.0, 1.0) == 0.0 and math.isinf(collapse.bracket_share(1.0, 1.0, 1.01, 1.0))


def test_a_narrow_bracket_is_not_tight_unless_the_value_fills_it():
    # the ends' ratios to the value are both near 1 here, yet the value uses 1% of the room
    lower, centre, upper = 1.0 - 1e-3, 1.0, 1.0 + 1e-3
    assert min(lower / 1.00001, 1.00001 / upper) > 0.998
    assert abs(collapse.bracket_share(lower, centre, 1.00001, upper) - 0.01) < 1e-9


def test_kantorovich_floor_values():
    assert collapse.kantorovich_floor(1) == 1
    assert collapse.kantorovich_floor(3) == pytest.approx(0.6, abs=1e-15)
    # Kantorovich: 1/sqrt(a^T M a a^T M^-1 a) at a = (u_1 + u_K)/sqrt(2) for M = diag(kappa^2, 1)
    kappa = mpmath.mpf(7)
    with mpmath.workdps(40):
        value = 1 / mpmath.sqrt((kappa**2 + 1) / 2 * (1 / kappa**2 + 1) / 2)
        assert abs(value - collapse.kantorovich_floor(kappa)) < mpmath.mpf(10) ** -38


def test_head_bounds_close_at_exact_balance():
    s_first, s_last, depth = mpmath.mpf(8), mpmath.mpf(2), 3
    assert collapse.head_condition_bound(s_first, s_last, 0, depth) == pytest.approx(4 ** (1 / 3), rel=1e-14)
    assert collapse.head_condition_bound(s_first, s_last, 4, depth) == mpmath.inf  # delta >= s_K(A)^2: vacuous
    assert collapse.head_product_gap(0.1, 2, 3) == pytest.approx(0.1 * 2**4 * 3, rel=1e-14)
    lower, upper = collapse.nc2_bracket(3, 1, 0, 0)
    assert lower == upper == 3
    assert collapse.nc2_bracket(1, 1, 1, 0) == (0, mpmath.inf)  # f >= 1: b = 1 can close I + E


def test_nc1_bound_reduces_to_the_hidden_spread_term_at_exact_interpolation():
    bound = collapse.nc1_bound(0, mpmath.mpf("0.04"), 2, 1, 3, 2, 3)
    assert bound == pytest.approx(4 * (0.2 * 3) ** 2 / 4, rel=1e-14)


@settings(max_examples=40, deadline=None)
@given(head_settings(3, 2))
def test_corollary_a_prime_is_never_sharper_than_theorem_a(settings_):
    instance = nc1_bound.THEOREM.instance()
    head = build_head(instance, settings_)
    measured = measure_head(head)
    if measured["eps1"] >= np.sqrt(2):
        return
    theorem_a = collapse.nc1_bound(measured["eps1"], measured["eps2"], measured["s_first"], measured["s_last"],
                                   measured["omega"], 2, 3)
    corollary = collapse.nc1_bound_radius(measured["eps1"], measured["eps2"], measured["radius"], 2, 3,
                                          head.inputs.shape[0], 6)
    assert theorem_a <= corollary * (1 + 1e-9)


@pytest.mark.parametrize("eps1_fraction", [0.0, 0.05, 0.5])
def test_shrinking_heads_realize_the_references_of_nc1_bound(eps1_fraction):
    """The references of nc1-bound are true measurements: at kappa = 1, with an output error that only shrinks the
    class separation and an adversarial spread, the generated heads measure NC1_J = s^2 eps2 omega^2/(sqrt(n(K-1)) -
    eps1)^2, whatever eps1, eps2 and the spread."""
    instance = nc1_bound.THEOREM.instance()
    head = build_head(instance, tight_settings(error="shrink", eps1_fraction=eps1_fraction, spread=7.0,
                                               eps2_exponent=-1.0))
    measured = measure_head(head)
    assert measured["s_first"] == pytest.approx(measured["s_last"], rel=1e-13)
    assert measured["nc1"] == pytest.approx(measured["s_first"] ** 2 * measured["eps2"] * measured["omega"] ** 2
                                            / (np.sqrt(2 * (3 - 1)) - measured["eps1"]) ** 2, rel=1e-11)


def test_an_input_the_head_cannot_see_realizes_the_reference_of_pseudo_inverse_features():
    """pseudo-inverse-features' reference is a true measurement: an input Z_{L-2} wholly in the directions that
    W_{L-1} maps outside W_L's row space (the right singular vectors of (I - P) W_{L-1} at sqrt(eps2)) gives Z_L = 0
    and a residual of exactly sqrt(eps2) ||Z_{L-2}||_F."""
    instance = pseudo_inverse_features.THEOREM.instance()
    head = build_head(instance, tight_settings(extra=3, eps2_exponent=-1.0))
    outside = head.previous - np.linalg.pinv(head.last) @ head.last @ head.previous
    _, singular, right = np.linalg.svd(outside)
    unseen = right[:3].T  # the three directions at sqrt(eps2) (extra = 3, adversarial: all at full norm)
    assert singular[:3] == pytest.approx(np.sqrt(measure_head(head)["eps2"]) * np.ones(3), rel=1e-12)
    inputs = unseen @ np.random.default_rng(0).standard_normal((3, head.inputs.shape[1]))
    blind = type(head)(head.last, head.previous, inputs, head.labels, head.per_class)
    assert np.linalg.norm(blind.outputs) < 1e-13
    residual = np.linalg.norm(blind.features - np.linalg.pinv(blind.last) @ blind.outputs)
    assert residual == pytest.approx(np.sqrt(measure_head(head)["eps2"]) * np.linalg.norm(inputs), rel=1e-12)


def test_an_exact_head_realizes_the_reference_of_nc3_bound():
    """nc3-bound's reference is a true measurement: at rho = 0 and eps2 = 0, z = W_L^+ e_c gives
    cos(z, w_c) = 1/(||w_c|| ||W_L^+ e_c||); W_L with rows (2, 0) and (sqrt 5, 2) has ||w_1|| = 2 and
    ||W_L^+ e_1|| = 3/4, so cos = 2/3 there, as the reference states."""
    last = np.array([[2.0, 0.0], [np.sqrt(5), 2.0]])
    feature = np.linalg.pinv(last)[:, 0]
    cosine = last[0] @ feature / (np.linalg.norm(last[0]) * np.linalg.norm(feature))
    assert np.linalg.norm(last[0]) == 2 and np.linalg.norm(feature) == pytest.approx(0.75, rel=1e-15)
    reference = nc3_bound.exact_heads(nc3_bound.THEOREM.instance())["equality"]
    assert cosine == pytest.approx(float(reference["cosines"][0]), rel=1e-15)
    assert (reference["row_norms"][0], float(reference["pinv_norms"][0])) == (2, 0.75)


@pytest.mark.parametrize("kappa, error, eps1, eps2", [(3.0, "random", 0.0, 1e-2), (1.0, "shrink", 0.5, 0.0)])
def test_known_heads_realize_the_references_of_nc2_bracket(kappa, error, eps1, eps2):
    """nc2-bracket's references are true measurements: a head that interpolates exactly has class means W_L^+ (its
    hidden spread has no class mean), so NC2_J = kappa(W_L) whatever eps2; at kappa(W_L) = 1 and eps2 = 0, an output
    error that shrinks the class separation by c = eps1/sqrt(n(K-1)) gives NC2_J = 1/(1 - c)."""
    from checkers.collapse import nc2_bracket as checker
    from checkers.collapse.heads import generate_head

    head = generate_head(np.random.default_rng(3), classes=3, per_class=2, width=5, input_width=6, kappa=kappa,
                         scale=1.3, eps1=eps1, eps2=eps2, spread=4.0, adversarial=False, error=error)
    nc2 = checker._mean_condition(head)
    assert nc2 == pytest.approx(kappa / (1 - eps1 / np.sqrt(2 * (3 - 1))), rel=1e-12)


@pytest.mark.parametrize("error, side", [("stretch", "stretched"), ("squeeze", "squeezed")])
def test_the_attaining_heads_realize_the_references_of_nc2_bracket(error, side):
    """nc2-bracket's attaining heads are true measurements: the generator's class-constant output error at theta*
    gives the NC2_J the statement's reference states, in float64 on another seed and shape than the checker's."""
    from checkers.collapse import nc2_bracket as checker
    from checkers.collapse.heads import generate_head
    from theorems.collapse import nc2_bracket

    instance = nc2_bracket.THEOREM.instance({"classes": "4", "per_class": "3"})
    head = generate_head(np.random.default_rng(8), classes=4, per_class=3, width=6, input_width=8, kappa=3.0,
                         scale=0.7, eps1=float(nc2_bracket.ATTAINING_BUDGET) * np.sqrt(3), eps2=0.0, spread=4.0,
                         adversarial=False, error=error)
    reference = nc2_bracket.attaining_heads(instance)[side]
    assert checker._mean_condition(head) == pytest.approx(float(reference["nc2"]), rel=1e-12)
    assert measure_head(head)["eps1"] == pytest.approx(float(reference["eps1"]), rel=1e-12)


@pytest.mark.parametrize("side, name", [("stretch", "hidden stretched"), ("squeeze", "hidden squeezed")])
def test_the_hidden_heads_realize_the_references_of_nc2_bracket(side, name):
    """nc2-bracket's hidden heads are true measurements: built in mpmath at another shape than the checker's, they
    interpolate exactly, their imbalance is t^2 and their NC2_J and ||Z_{L-2} B||_op are the statement's closed
    forms, to 40 digits."""
    from checkers.collapse import nc2_bracket as checker
    from checkers.collapse.heads import Mpmath, hidden_head
    from theorems.collapse import nc2_bracket

    instance = nc2_bracket.THEOREM.instance({"classes": "4", "per_class": "3", "digits": "45"})
    reference = nc2_bracket.hidden_heads(instance)[name]
    with mpmath.workdps(45):
        head = hidden_head(4, 3, nc2_bracket.ATTAINING_KAPPA, nc2_bracket.HIDDEN_LIFT, nc2_bracket.HIDDEN_IMBALANCE,
                           side)
        measured = measure_head(head, Mpmath)
        assert measured["eps1"] < mpmath.mpf(10) ** -40
        for key in ("eps2", "s_first", "s_last", "input_means_norm"):
            assert abs(measured[key] / reference[key] - 1) < mpmath.mpf(10) ** -40, key
        assert abs(checker._mean_condition(head, Mpmath) / reference["nc2"] - 1) < mpmath.mpf(10) ** -40


def test_the_hidden_share_in_closed_form_is_the_sharp_bracket_on_the_hidden_heads():
    """The hand-derived share of the hidden side agrees with the bracket evaluated on the hidden heads' references to
    40 digits, and lies within 1e-5 of all of it (the hidden budget is sharp as t -> 0)."""
    from theorems.collapse import nc2_bracket

    instance = nc2_bracket.THEOREM.instance({"digits": "50"})
    share = nc2_bracket.hidden_share(instance)
    with mpmath.workdps(50):
        assert abs(nc2_bracket.attained_share(instance, nc2_bracket.hidden_heads(instance)) - share) < \
            mpmath.mpf(10) ** -40
    assert 0 < 1 - share < 1e-5


def test_mpmath_arrays_keep_the_digits_of_mpf_values():
    """The head generator's budgets survive conversion: an mpf keeps its digits, a float converts exactly."""
    from checkers.collapse.heads import Mpmath

    with mpmath.workdps(40):
        third = mpmath.mpf(1) / 3
        assert Mpmath.array([third, 0.1])[0] == third
        assert Mpmath.array([third, 0.1])[1] == mpmath.mpf(0.1)


def test_the_sharp_bracket_at_c_zero_agrees_with_the_angle_route_to_forty_digits():
    """The closed form (2 + r - f^2)/(2 - r - f^2), r = f sqrt(2 - f^2), against (1 + f cos theta*)/(1 - f sin theta*)
    with theta* = pi/4 + asin(f/sqrt 2), and against the root-finding route as c -> 0."""
    with mpmath.workdps(45):
        for budget in (mpmath.mpf("1e-3"), mpmath.mpf(1) / 10, mpmath.mpf("0.9")):
            theta = collapse.stretch_angle(budget)
            by_angle = 3 * (1 + budget * mpmath.cos(theta)) / (1 - budget * mpmath.sin(theta))
            upper = collapse.nc2_bracket(3, 1, budget, 0)[1]
            assert abs(upper / by_angle - 1) < mpmath.mpf(10) ** -40
            assert abs(collapse.nc2_bracket(3, 1, budget, mpmath.mpf("1e-20"))[1] / upper - 1) < mpmath.mpf(10) ** -30


@settings(max_examples=60, deadline=None)
@given(st.floats(-2, 2), st.floats(-2, 2), st.floats(0.0, 0.95), st.floats(-5, 1))
def test_the_ratio_the_bracket_maximizes_is_its_largest_on_a_fine_grid(log_x, log_y, budget, log_c):
    """The grid's best point, refined by a bounded search between its neighbours: near f = 1 the maximum sits close
    to pi/2 and is sharp, so the grid alone falls short of it by more than the bracket's accuracy."""
    x, y, c = np.exp(log_x), np.exp(log_y), np.exp(log_c)

    def ratio(theta):
        return np.sqrt(((1 + budget * np.cos(theta)) * x) ** 2 + c**2) / ((1 - budget * np.sin(theta)) * y)

    theta = np.linspace(0, np.pi / 2, 20001)
    best = int(np.argmax(ratio(theta)))
    around = (theta[max(best - 1, 0)], theta[min(best + 1, len(theta) - 1)])
    refined = max(ratio(theta[best]), -scipy.optimize.minimize_scalar(lambda t: -ratio(t), bounds=around,
                                                                      method="bounded", options={"xatol": 1e-13}).fun)
    upper = float(collapse.nc2_bracket(1 / y, 1 / x, budget, c)[1])
    assert refined * (1 - 1e-12) <= upper <= refined * (1 + 1e-11)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.integers(2, 3), st.floats(-4, 0), st.floats(-4, 0))
def test_the_sharp_bracket_holds_on_arbitrary_heads_and_lies_inside_the_weyl_one(seed, classes, per_class,
                                                                                   log_error, log_imbalance):
    """Any W_L, W_{L-1} and Z_{L-2}, with a hidden part of the class means the generator never makes (C B != 0):
    kappa(Zbar) lies in the sharp bracket, and the sharp bracket in the spec's Weyl bracket."""
    from theorems.collapse import nc2_bracket

    rng = np.random.default_rng(seed)
    width, input_width = classes + 2, classes + 3
    last = rng.standard_normal((classes, width)) * np.exp(rng.uniform(-1, 1, (classes, 1)))
    previous = np.linalg.pinv(last) @ rng.standard_normal((classes, input_width)) \
        + 10.0**log_imbalance * rng.standard_normal((width, input_width))
    targets, labels = one_hot_targets(classes, per_class)
    inputs = np.linalg.pinv(last @ previous) @ (targets + 10.0**log_error * rng.standard_normal(targets.shape)) \
        + 10.0**log_error * rng.standard_normal((input_width, classes * per_class))
    head = Head(last, previous, inputs, labels, per_class)
    measured = measure_head(head)
    means = np.stack([head.features[:, labels == k].mean(axis=1) for k in range(classes)], axis=1)
    singular = np.linalg.svd(means, compute_uv=False)
    budgets = collapse.nc2_budgets(measured["eps1"], measured["eps2"], per_class, measured["input_means_norm"])
    lower, upper = (float(v) for v in collapse.nc2_bracket(measured["s_first"], measured["s_last"], *budgets))
    assert lower * (1 - 1e-9) <= singular[0] / singular[-1] <= upper * (1 + 1e-9)
    weyl_lower, weyl_upper = (float(v) for v in nc2_bracket._weyl_on_each_side(measured["s_first"],
                                                                              measured["s_last"], *budgets))
    assert weyl_lower <= lower * (1 + 1e-12) and upper <= weyl_upper * (1 + 1e-12)


@pytest.mark.parametrize("eps1", [1e-1, 1e-2])
def test_a_within_class_error_realizes_the_eps1_path_of_balanced_collapse(eps1):
    """balanced-collapse's eps1 path is a true measurement: at kappa(W_L) = 1, eps2 = 0 and an output error inside
    the classes, NC1_J = eps1^2/(n(K-1)) exactly."""
    from checkers.collapse.heads import generate_head

    head = generate_head(np.random.default_rng(5), classes=3, per_class=2, width=5, input_width=6, kappa=1.0,
                         scale=1.3, eps1=eps1, eps2=0.0, spread=4.0, adversarial=True, error="within")
    assert measure_head(head)["nc1"] == pytest.approx(eps1**2 / (2 * (3 - 1)), rel=1e-10)


def test_the_graded_chain_realizes_the_reference_of_head_conditioning():
    """head-conditioning's reference is the graded chain the checker builds, in closed form."""
    from checkers.collapse import head_conditioning as checker
    from theorems.collapse import head_conditioning

    instance = head_conditioning.THEOREM.instance({"depth": "4", "classes": "3"})
    measured = checker.chain_measurements(instance, {"graded": 1e-4})
    reference = head_conditioning.graded_chain(instance)["graded"]
    for name in ("eps2", "radius"):
        assert measured[name] == pytest.approx(float(reference[name]), rel=1e-9), name
    for name in ("product_singular", "last_singular"):
        assert measured[name] == pytest.approx([float(v) for v in reference[name]], rel=1e-12), name


def test_a_two_class_head_attains_the_kantorovich_floor_in_both_classes():
    """collapse-training's Kantorovich reference: with the one-hot targets at (u_1 +- u_2)/sqrt 2 of W_L's left
    singular vectors, both classes attain the floor, so the mean cosine NC3_J is 2 kappa/(1 + kappa^2) = 4/5 at
    kappa = 2."""
    rotation = np.array([[1.0, 1.0], [1.0, -1.0]]) / np.sqrt(2)  # columns u_1, u_2 in the target basis
    last = rotation @ np.diag([2.0, 1.0]) @ np.linalg.qr(np.random.default_rng(2).standard_normal((4, 2)))[0].T
    pinv = np.linalg.pinv(last)
    cosines = [last[c] @ pinv[:, c] / (np.linalg.norm(last[c]) * np.linalg.norm(pinv[:, c])) for c in range(2)]
    assert cosines == pytest.approx([0.8, 0.8], rel=1e-14)
