"""Tests of checkers/paper_scales.py: every Monte Carlo check says what paper fidelity reads for it, and `check --all
--fidelity paper` plans every theorem."""

import argparse
import dataclasses

import pytest

from checkers import catalog, registry
from checkers.cli.running import _fidelities
from checkers.paper_scales import SOURCE_SCALES, paper_fidelity, paper_scale_words


def test_every_monte_carlo_check_without_its_own_sizes_has_its_sources_scale_and_no_other_check_does():
    built_in = set(catalog.entries())
    listed = {checker.id for checker in registry.all_checkers()
              if checker.id in built_in and not checker.exact and not checker.paper_scale}
    assert set(SOURCE_SCALES) == listed
    assert all(scale.reported.strip() for scale in SOURCE_SCALES.values())


@pytest.mark.parametrize("theorem, reading, words", [
    ("giant-step-risk", "paper", "its paper's sizes, d = p = 200"),
    ("nc2-bracket", "default", "exact check"),
    ("dual-kernel", "default", "stand for its source's scale"),
    ("large-step-beats-linear", "default", "d = 512"),
    ("gaussian-equivalence", "paper", "Ba et al.'s Fig. 3"),
    ("mixture-equivalence", "paper", "Demir and Dogan's Fig. 1"),
    ("mixture-means", None, "short of its source's scale"),
])
def test_paper_fidelity_reads_a_checks_own_sizes_else_a_default_that_stands_else_nothing(theorem, reading, words):
    checker = registry.checker(theorem)
    assert paper_fidelity(checker) == reading and words in paper_scale_words(checker)


def test_a_check_the_table_does_not_know_offers_no_paper_fidelity():
    dual = registry.checker("dual-kernel")
    plugin = dataclasses.replace(dual, theorem=dataclasses.replace(dual.theorem, id="a-plugins-theorem"))
    assert paper_fidelity(plugin) is None and "declares no paper scale" in paper_scale_words(plugin)


def test_all_at_paper_fidelity_runs_every_theorem_those_short_of_their_sources_scale_at_default(capsys):
    checkers = registry.all_checkers()
    arguments = argparse.Namespace(all=True, fidelity="paper", backend="numpy")
    fidelities = _fidelities(arguments, checkers)
    assert set(fidelities) == {checker.id for checker in checkers}
    own = {checker.id for checker in checkers if checker.paper_scale}
    short = {theorem for theorem, scale in SOURCE_SCALES.items() if not scale.default_stands}
    assert {theorem for theorem, fidelity in fidelities.items() if fidelity == "paper"} == own
    assert all(fidelities[theorem] == "default" for theorem in short)
    said = capsys.readouterr().err
    assert len(said.strip().splitlines()) == 1 and f"{len(own)} check(s) draw their papers' sizes" in said
    assert all(theorem in said for theorem in short | own)
