"""The derivations live in the project: every theorem has its section, and every citation resolves."""

import re
from pathlib import Path

import pytest

from checkers import registry

ROOT = Path(__file__).resolve().parent.parent
DERIVATIONS = ROOT / "docs" / "derivations"
CITATION = re.compile(r"docs/derivations/([a-z]+)\.md(?:#([a-z0-9-]+))?")


def _anchors(path: Path) -> set[str]:
    """GitHub-style anchors of a markdown file's headings."""
    anchors = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^a-z0-9 -]", "", title).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("checker", registry.builtin_checkers(), ids=lambda c: c.id)
def test_every_theorem_has_a_derivation_section_in_its_family_file(checker):
    path = DERIVATIONS / f"{registry.family(checker.id)}.md"
    assert checker.id in _anchors(path), f"{path.name} has no section headed {checker.id}"


def test_no_code_cites_a_file_outside_the_project():
    for folder in ("theorems", "checkers", "notebooks", "tests", "benchmarks", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            if path != Path(__file__).resolve():
                assert "specs/" not in path.read_text(), f"{path.relative_to(ROOT)} cites ../shared/specs"


def test_every_citation_of_a_derivation_resolves():
    for folder in ("theorems", "checkers", "notebooks", "tests", "docs"):
        for path in (ROOT / folder).rglob("*.*"):
            if path.suffix not in (".py", ".md"):
                continue
            for family, anchor in CITATION.findall(path.read_text()):
                target = DERIVATIONS / f"{family}.md"
                assert target.exists(), (path, family)
                assert not anchor or anchor in _anchors(target), (path, family, anchor)
