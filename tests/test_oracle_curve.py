"""checkers.equivalence.oracle_curve and `thmcheck oracle`: the exact GE curve after one drawn step."""

import json

import numpy as np
import pytest

from checkers import registry
from checkers.cli import main
from checkers.equivalence.oracle_curve import oracle_curve, parse_range
from checkers.onestep.draws import setting_for
from checkers.onestep.simulation import one_step
from theorems.equivalence.gaussian_equivalent_oracle import gaussian_equivalent_errors
from theorems.errors import InvalidInput


def test_ranges_parse_and_bad_ones_are_refused():
    assert parse_range("penalty=0.1:0.3:3") == ("penalty", pytest.approx([0.1, 0.2, 0.3]))
    assert parse_range("penalty=1e-3:1e-1:3:log")[1] == pytest.approx([1e-3, 1e-2, 1e-1])
    for bad in ("nosuch=0:1:3", "penalty=0:1", "penalty=a:1:3", "penalty=0:1:1", "penalty=0:1:3:log",
                "penalty=0:inf:3"):
        with pytest.raises(InvalidInput):
            parse_range(bad)


def test_a_step_exponent_scales_the_learning_rate_by_n_to_that_power():
    dimension, seed = 60, 3
    width = setting_for(registry.checker("gaussian-equivalence").theorem.instance(), dimension).width
    grown = oracle_curve("learning_rate", [1.0], {"step_exponent": "0.5"}, dimension=dimension, seed=seed)
    plain = oracle_curve("learning_rate", [width**0.5], dimension=dimension, seed=seed)
    assert grown[0].risk == pytest.approx(plain[0].risk, rel=1e-12)


def test_the_curve_at_the_theorems_own_learning_rate_is_the_oracle_of_that_step():
    dimension, seed = 60, 3
    curve = oracle_curve("learning_rate", [0.0, 1.0], dimension=dimension, seed=seed)
    instance = registry.checker("gaussian-equivalence").theorem.instance()
    step = one_step(setting_for(instance, dimension, learning_rate=1.0), np.random.default_rng(seed))
    expected = gaussian_equivalent_errors(
        step.updated_weights(), step.teacher_direction, mu1=float(instance.constant("mu1")),
        mu_star=float(instance.constant("mu_star")), teacher_mu1=float(instance.constant("teacher_mu1")),
        label_moment=float(instance.constant("label_moment")), samples=step.setting.samples,
        ridge=float(instance["penalty"]), noise_variance=float(instance["noise"]) ** 2)
    assert curve[1].risk == pytest.approx(expected.risk, rel=1e-12)
    assert curve[0].risk != pytest.approx(curve[1].risk, rel=1e-3)  # the step moves the risk
    # more ridge samples at the same W_1: the train error rises towards the test error
    by_samples = oracle_curve("ridge_ratio", [2.0, 64.0], dimension=dimension, seed=seed)
    assert by_samples[1].train_error > by_samples[0].train_error
    assert by_samples[1].test_error - by_samples[1].train_error < by_samples[0].test_error - by_samples[0].train_error


def test_the_command(capsys, tmp_path):
    picture = tmp_path / "curve.png"
    code = main(["oracle", "--vary", "penalty=1e-3:1:4:log", "--dimension", "40", "--json", "--plot", str(picture)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["variable"] == "penalty" and len(data["points"]) == 4
    assert picture.stat().st_size > 5000
    assert main(["oracle", "--vary", "penalty=1e-3:1:4", "--dimension", "40"]) == 0
    assert "kappa" in capsys.readouterr().out
    assert main(["oracle", "--vary", "depth=1:2:3"]) == 2
    assert main(["oracle", "--vary", "penalty=0:1:3", "--param", "psi1=-1"]) == 2


def test_the_giant_step_curve_passes_through_the_reference_settings():
    # B6 (the defaults, alpha = n/p = 2) on a warm-started curve over alpha, and B2 (no noise, eta~ = 3) on a curve
    # over eta~: the reference values of tests/test_giant_step_oracle.py
    from checkers.equivalence.oracle_curve import giant_step_curve
    from tests.test_giant_step_oracle import REFERENCES
    by_ratio = giant_step_curve("sample_ratio", [0.5, 1.0, 2.0, 3.0])
    assert by_ratio[2].test_error == pytest.approx(REFERENCES["B6"][1][0], abs=6e-9)
    assert by_ratio[2].train_error == pytest.approx(REFERENCES["B6"][1][1], abs=6e-9)
    assert all(p.iterations > 0 for p in by_ratio)
    assert [p.test_error for p in by_ratio] == sorted((p.test_error for p in by_ratio), reverse=True)
    by_step = giant_step_curve("eta", [3.0], {"noise": "0"})
    assert by_step[0].test_error == pytest.approx(REFERENCES["B2"][1][0], abs=6e-9)
    with pytest.raises(InvalidInput):
        giant_step_curve("learning_rate", [1.0])


def test_the_giant_step_command(capsys):
    code = main(["oracle", "giant-step-risk", "--vary", "penalty=0.01:1:3:log", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["theorem"] == "giant-step-risk" and len(data["points"]) == 3
    assert main(["oracle", "giant-step-risk", "--vary", "ridge_ratio=1:2:3"]) == 2
