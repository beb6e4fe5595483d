"""dead-class: its start puts every V+ neuron in the dead cone, data in no half-space are outside its assumptions,
and the check passes and rejects both readings that the loss leaves its plateau."""

import numpy as np
import pytest

from checkers import registry
from checkers.engine import run_check
from theorems.alignment import dead_class
from theorems.alignment.common import instance_data


def test_every_v_plus_neuron_starts_inactive_on_every_sample_and_the_others_are_early_alignments():
    instance = dead_class.THEOREM.instance()
    x, _, directions, signs = instance_data(instance)
    started = dead_class.dead_start(instance)
    positive = np.asarray(signs) > 0
    assert np.all(x @ started[positive].T < 0)
    assert np.array_equal(started[~positive], directions[~positive])
    assert np.allclose(np.linalg.norm(started, axis=1), np.linalg.norm(directions, axis=1), rtol=1e-14)


def test_samples_on_both_sides_of_every_hyperplane_leave_no_dead_cone():
    x = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    assert dead_class.dead_direction(x) is None
    direction, margin = dead_class.dead_direction(np.array([[1.0, 0.2], [0.5, -0.3]]))
    assert margin > 0 and np.linalg.norm(direction) == pytest.approx(1)


def test_what_each_mutant_claims_of_the_plateau_is_known_before_any_run():
    theorem = dead_class.THEOREM
    reference = dead_class.on_the_plateau(theorem.instance())["on the plateau"]
    assert dead_class.plateau_gap(theorem.instance(), reference) == 0
    assert dead_class.plateau_gap(theorem.mutated("global-convergence").instance(), reference) == 1
    averaged = theorem.mutated("mean-loss-plateau").instance()
    assert dead_class.plateau_gap(averaged, reference) == pytest.approx(1 - 1 / 6)


def test_the_flow_stalls_on_the_plateau_and_the_readings_that_it_leaves_are_rejected():
    checker = registry.checker("dead-class")
    assert run_check(checker, fidelity="quick").outcome == "pass"
    for mutant in ("global-convergence", "mean-loss-plateau"):
        assert run_check(checker, fidelity="quick", mutant=mutant).outcome == "fail"
