"""mixture-coefficient-class: the partners keep c_0..c_D, the flipped one the second moment too, and the check."""

import numpy as np
import pytest

from checkers.equivalence.mixture_coefficient_class import _point
from theorems.equivalence import mixture_coefficient_class as statement
from theorems.equivalence.mixture_equivalence import hermite_model
from theorems.hermite import second_moment


def test_the_flipped_partner_keeps_the_hermite_model_and_the_zeroed_one_only_its_coefficients():
    instance = statement.THEOREM.instance({})
    b, degree = statement.scale(instance), int(instance.constant("degree"))
    k, coefficient = statement.flipped_coefficient(instance)
    assert k == degree + 1 == 3 and coefficient < 0  # tanh at beta = 0.6: D = 2, c_3(b) < 0
    partners = statement.partner_activations(instance)
    own = [float(c.value) for c in hermite_model(instance["activation"], k, 20, b)[0]]
    for name, expected_k in (("flipped", -coefficient), ("zeroed", 0.0)):
        coefficients = [float(c.value) for c in hermite_model(partners[name], k, 20, b)[0]]
        assert coefficients[:k] == pytest.approx(own[:k], abs=1e-12)
        assert coefficients[k] == pytest.approx(expected_k, abs=1e-12)
    moments = {name: float(second_moment(a.scaled(b), digits=20).value)
               for name, a in (("sigma", instance["activation"]), *partners.items())}
    assert moments["flipped"] == pytest.approx(moments["sigma"], rel=1e-12)
    assert moments["sigma"] - moments["zeroed"] == pytest.approx(6 * coefficient**2, rel=1e-9)


def test_an_activation_without_a_coefficient_above_d_is_refused_with_the_reason():
    instance = statement.THEOREM.instance({"activation": "z"})
    prediction = statement.THEOREM.prediction("train-class")
    assert "nothing to flip" in prediction.applies(instance)


@pytest.mark.parametrize("parameters", [{}, {"activation": "softplus", "beta": "0.45"}])
def test_the_checks_numerical_partners_are_the_statements_to_round_off(parameters):
    """The check evaluates each partner as sigma minus its polynomial by Horner's rule, not by the statement's
    lambdified sum (z**k by a general power, 40 times slower): values and slopes agree to round-off."""
    instance = statement.THEOREM.instance(parameters)
    *_, activations = _point(tuple(sorted(instance.describe_parameters().items())))
    x = 2 * np.random.default_rng(0).standard_normal((40, 30))
    for name, symbolic in statement.partner_activations(instance).items():
        numerical = activations[name]
        assert numerical.expression == symbolic.expression
        assert np.max(np.abs(numerical(x) - symbolic(x))) <= 1e-14 * np.max(np.abs(symbolic(x)))
        pairs = []
        for activation in (numerical, symbolic):
            out, slope = np.empty_like(x), x.copy()
            activation.value_and_derivative(slope, out)
            pairs.append((out, slope))
        for ours, theirs in zip(*pairs):
            assert np.max(np.abs(ours - theirs)) <= 1e-14 * np.max(np.abs(theirs))
