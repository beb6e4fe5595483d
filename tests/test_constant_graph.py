"""Constants as a graph: an override or a mutant reaches every constant derived from it, and `show` says so."""

import json

import mpmath
import pytest

from checkers import registry
from checkers.cli import main
from theorems.onestep.spike_outlier import overlap_formula


def test_an_override_reaches_every_constant_derived_from_it():
    theorem = registry.theorem("spike-outlier")
    base, changed = theorem.instance(), theorem.instance(overrides={"aspect_ratio": "2"})
    c = mpmath.mpf(2)
    mu1, zeta = changed.constant("mu1"), changed.constant("zeta_norm")
    threshold = c ** mpmath.mpf(0.25) / (abs(mu1) * zeta * mpmath.sqrt(c))
    assert changed.constant("bbp_threshold") == pytest.approx(threshold, rel=1e-25)
    theta = (mpmath.mpf(changed["learning_rate"]) / threshold) * c ** mpmath.mpf(0.25)
    assert changed.constant("outlier_overlap") == pytest.approx(overlap_formula(theta, c), rel=1e-25)
    assert changed.constant("bbp_threshold") != base.constant("bbp_threshold")
    assert changed.changed_constants == {"aspect_ratio": "overridden", "bbp_threshold": "recomputed",
                                         "outlier_overlap": "recomputed", "teacher_outlier_overlap": "recomputed"}
    assert changed.constant("mu1") == base.constant("mu1")  # upstream constants are untouched


def test_a_mutant_reaches_the_constants_derived_from_the_one_it_changes():
    theorem = registry.theorem("mixture-equivalence")
    parameters = dict(theorem.mutant("degree-one-short").parameters)
    mutant = theorem.mutated("degree-one-short").instance(parameters)
    assert mutant.changed_constants == {"degree": "mutant", "rest": "recomputed"}
    # one degree fewer leaves more of sigma to the Gaussian rest (at beta = 1/2 the linear term goes)
    assert mutant.constant("rest") > theorem.instance(parameters).constant("rest")


def test_show_takes_set_and_marks_what_it_changed(capsys):
    assert main(["show", "spike-outlier", "--set", "aspect_ratio=2", "--json"]) == 0
    constants = {c["name"]: c for c in json.loads(capsys.readouterr().out)["constants"]}
    assert constants["aspect_ratio"]["status"] == "overridden"
    assert constants["bbp_threshold"]["status"] == "recomputed"
    assert constants["bbp_threshold"]["depends_on"] == ["aspect_ratio", "mu1", "zeta_norm"]
    assert constants["mu1"]["status"] == "derived"
    assert main(["show", "spike-outlier", "--set", "aspect_ratio=2"]) == 0
    assert "(recomputed)" in capsys.readouterr().out
