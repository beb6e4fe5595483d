"""The source papers' registry: every theorem belongs to a paper, and every paper's theorems are registered."""

import pytest

from checkers import registry
from theorems.errors import UnknownName
from theorems.papers import PAPERS, paper, papers_of


def test_keys_are_unique_and_found():
    keys = [p.key for p in PAPERS]
    assert len(keys) == len(set(keys))
    assert paper("jacot2025").arxiv == "2410.04887"


def test_an_unknown_key_names_the_known_ones():
    with pytest.raises(UnknownName, match="ba2022"):
        paper("nobody1999")


@pytest.mark.parametrize("checker", registry.builtin_checkers(), ids=lambda c: c.theorem.id)
def test_every_theorem_encodes_a_statement_of_some_paper(checker):
    assert papers_of(checker.theorem.id), f"{checker.theorem.id} is in no paper's registry entry"


def test_every_encoded_theorem_is_registered():
    known = {c.theorem.id for c in registry.builtin_checkers()}
    for source in PAPERS:
        assert set(source.encodes) <= known, source.key
        assert source.arxiv or source.openreview or source.venue


def test_a_citation_names_the_venue_and_where_to_find_it():
    assert paper("ale2025").citation.endswith("(OpenReview oeLB25A9oO)")
    assert "arXiv 2205.01445" in paper("ba2022").citation
