"""Registry of checkers by theorem id: the built-in families, entry-point plugins, and --plugin modules.

A plugin is a module with a `CHECKERS` list (or a single `CHECKER`) of `checkers.check.Checker`
objects. It is found either through the `thmcheck.theorems` entry-point group of an installed
package (the entry point names the module) or by `load_plugin("my_module")` / `--plugin my_module`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from importlib.metadata import entry_points

from checkers.check import Checker
from checkers.families import (alignment, balancedness, collapse, collapse_training, dual_kernel, elasticity, equivalence,
                               local_recovery,
                               onestep, population_loss)
from theorems import registry as theorem_registry
from theorems.errors import InvalidInput, UnknownName

ENTRY_POINT_GROUP = "thmcheck.theorems"
_CHECKERS: dict[str, Checker] = {}
_entry_points_loaded = False


def register(checker: Checker, *, replace: bool = False) -> Checker:
    if not isinstance(checker, Checker):
        raise InvalidInput(f"register() takes a Checker, got {type(checker).__name__}")
    theorem_registry.register(checker.theorem, replace=replace)
    _CHECKERS[checker.id] = checker
    return checker


def _checkers_of(module) -> list[Checker]:
    found = list(getattr(module, "CHECKERS", []))
    if hasattr(module, "CHECKER"):
        found.append(module.CHECKER)
    if not found:
        raise InvalidInput(f"plugin {module.__name__} defines neither CHECKERS nor CHECKER")
    return found


def load_plugin(module: str) -> list[Checker]:
    """Import a plugin (a module name, importable or under the current directory, or a .py path)
    and register its checkers."""
    try:
        if module.endswith(".py"):
            path = Path(module).resolve()
            if not path.is_file():
                raise InvalidInput(f"plugin file {module!r} does not exist")
            spec = importlib.util.spec_from_file_location(f"thmcheck_plugin_{path.stem}", path)
            loaded = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = loaded
            spec.loader.exec_module(loaded)
        else:
            if os.getcwd() not in sys.path:
                sys.path.append(os.getcwd())
            loaded = importlib.import_module(module)
    except ImportError as error:
        raise InvalidInput(f"cannot import plugin {module!r}: {error}") from None
    return [register(checker, replace=True) for checker in _checkers_of(loaded)]


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry_point in entry_points(group=ENTRY_POINT_GROUP):
        loaded = entry_point.load()
        candidates = _checkers_of(loaded) if not isinstance(loaded, (Checker, list, tuple)) else (
            [loaded] if isinstance(loaded, Checker) else list(loaded))
        for checker in candidates:
            register(checker, replace=True)


def checker(theorem_id: str) -> Checker:
    _load_entry_points()
    try:
        return _CHECKERS[theorem_id]
    except KeyError:
        raise UnknownName(f"unknown theorem {theorem_id!r}; known: {', '.join(sorted(_CHECKERS))}") from None


def all_checkers() -> list[Checker]:
    _load_entry_points()
    return [_CHECKERS[key] for key in sorted(_CHECKERS)]


register(dual_kernel.CHECKER)
register(population_loss.CHECKER)
register(local_recovery.CHECKER)
register(collapse_training.CHECKER)
for _checker in alignment.CHECKERS + balancedness.CHECKERS + equivalence.CHECKERS + elasticity.CHECKERS + onestep.CHECKERS + collapse.CHECKERS:
    register(_checker)
