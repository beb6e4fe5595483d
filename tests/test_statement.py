"""The statement model's targets keep the precision of the numbers they are given."""

import mpmath

from theorems.statement import Target


def test_a_band_keeps_its_half_widths_digits():
    """population-loss's Hermite-series band at degree 400 has a half width of 1.8e-4 given to 40 digits; abs() at
    the context's 15 digits rounded it by 1e-20, and the closed form, 1e-21 beyond the rounded end, failed a true
    statement whose check is accurate to 1e-27."""
    with mpmath.workdps(40):
        value, half_width = mpmath.mpf(1190) + mpmath.mpf(1) / 3, -mpmath.mpf(2) / 11000
    target = Target.around(value, half_width)
    with mpmath.workdps(40):
        assert target.upper - value == -half_width and value - target.lower == -half_width


def test_a_one_sided_bound_keeps_its_digits():
    with mpmath.workdps(40):
        bound = mpmath.mpf(1) / 3
    assert Target.at_least(bound).lower == bound


def test_an_unknown_size_parameter_points_to_the_fidelity():
    """--param d=800 names the theorem's parameters and says that sizes come from --fidelity; another unknown name
    only names the parameters."""
    import pytest

    from checkers import registry
    from theorems.errors import UnknownName

    theorem = registry.theorem("spike-outlier")
    with pytest.raises(UnknownName, match=r"no parameter 'd'; its parameters are .*--fidelity quick, default"):
        theorem.instance({"d": "800"})
    with pytest.raises(UnknownName) as raised:
        theorem.instance({"colour": "blue"})
    assert "fidelity" not in str(raised.value)
