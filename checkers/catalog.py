"""The built-in theorems as their source files declare them, read without importing them (for `list` and lookups).

A theorem module `theorems/<family>/<module>.py` assigns `THEOREM = Theorem(id=..., title=..., ...)` and its checker
module `checkers/<family>/<module>.py` assigns `CHECKER = Checker(..., simulation=...)`. Where these keywords are
literal strings, `entries()` reads them with `ast`, in milliseconds, so that the command line can list the theorems,
and find the two modules of one id, without loading sympy, scipy or any theorem's numerics. A declaration it cannot
read as literals makes `entries()` return None, and the caller imports the modules instead (`checkers.registry`,
which also validates what is found here).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

THEOREM_FIELDS = ("id", "title", "provenance", "source", "statement")


@dataclass(frozen=True)
class Entry:
    """One built-in theorem: where it lives and what its declarations say."""

    id: str
    family: str
    module: str  # the module name in both family packages: theorems.<family>.<module>, checkers.<family>.<module>
    title: str
    provenance: str
    source: str
    statement: str
    simulation: str


def _package_folder(name: str) -> Path:
    return Path(find_spec(name).submodule_search_locations[0])


def families() -> list[str]:
    """The family packages: the subpackages that theorems/ and checkers/ both have, in name order."""
    def packages(name: str) -> set[str]:
        return {path.name for path in _package_folder(name).iterdir() if (path / "__init__.py").is_file()}
    return sorted(packages("theorems") & packages("checkers"))


def _declaration(path: Path, name: str) -> dict[str, object] | None:
    """The literal keywords of `NAME = Call(...)` at the top level of a module's source: {} where the module makes no
    such assignment, None where it makes one whose keywords are not all literals."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if not isinstance(node.value, ast.Call):
                return None
            keywords = {}
            for keyword in node.value.keywords:
                try:
                    keywords[keyword.arg] = ast.literal_eval(keyword.value)
                except ValueError:  # not a literal (the checker's theorem=module.THEOREM, a computed string)
                    keywords[keyword.arg] = None
            return keywords
    return {}


@functools.cache
def entries() -> dict[str, Entry] | None:
    """Id -> entry for every built-in theorem whose module and checker module declare it in literals; None where
    one does not (a computed title, say), so that the caller imports the modules instead."""
    found = {}
    for family in families():
        theorem_folder = _package_folder("theorems") / family
        checker_folder = _package_folder("checkers") / family
        for path in sorted(theorem_folder.glob("*.py")):
            theorem = _declaration(path, "THEOREM")
            if theorem == {}:
                continue
            if theorem is None or not all(isinstance(theorem.get(key), str) for key in THEOREM_FIELDS):
                return None
            checker_path = checker_folder / path.name
            checker = _declaration(checker_path, "CHECKER") if checker_path.is_file() else {}
            if not checker or not isinstance(checker.get("simulation"), str) or theorem["id"] in found:
                return None  # the registry's discovery names what is wrong
            found[theorem["id"]] = Entry(family=family, module=path.stem, simulation=checker["simulation"],
                                         **{key: theorem[key] for key in THEOREM_FIELDS})
    return found
