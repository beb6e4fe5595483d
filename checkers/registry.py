"""The one registry of checks: discovered from the family packages, entry points and plugins.

Built-in checks are found, not listed: every module of a family package `theorems/<family>/` that
defines `THEOREM`, and every module of `checkers/<family>/` that defines `CHECKER`. Each built-in
theorem must have exactly one checker, in the family package of the same name; a theorem without a
checker, a checker of an undiscovered theorem, or two checkers of one id stop the registry with a
`DeclarationError` naming them.

A lookup of one built-in id imports that theorem's two modules only, found through `checkers.catalog` (which also
lists the built-ins without importing them); `all_checkers()` discovers and validates them all.

A plugin is a module with a `CHECKER` (or a `CHECKERS` list) of `checkers.checker.Checker` objects,
loaded by `load_plugin(name_or_path)` (`--plugin`) or through the `thmcheck.theorems` entry-point
group of an installed package. A module name must be importable as it is (installed, or on
PYTHONPATH); a `.py` path is loaded from that file. Loading changes nothing in `sys.path`. A plugin
may not take the id of a built-in theorem.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
import traceback
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

import checkers as checkers_package
import theorems as theorems_package
from checkers import catalog
from checkers.catalog import Entry
from theorems.errors import DeclarationError, EnvironmentFault, InvalidInput, UnknownName

if TYPE_CHECKING:
    from checkers.checker import Checker
    from theorems.statement import Theorem

ENTRY_POINT_GROUP = "thmcheck.theorems"


class _Registry:
    """Checkers by theorem id, filled on first use (discovery imports every family module)."""

    def __init__(self):
        self.checkers: dict[str, Checker] = {}
        self.builtin: set[str] = set()
        self.families: dict[str, str] = {}
        self.loaded = False

    def load(self) -> None:
        if self.loaded:
            return
        from checkers.checker import Checker
        from theorems.statement import Theorem
        theorems, checkers = {}, {}
        for family in families():
            for module in _modules(theorems_package, family):
                theorem = getattr(module, "THEOREM", None)
                if isinstance(theorem, Theorem):
                    if theorem.id in theorems:
                        raise DeclarationError(f"two theorems with the id {theorem.id}, in families "
                                               f"{theorems[theorem.id][0]} and {family}")
                    theorems[theorem.id] = (family, theorem)
            for module in _modules(checkers_package, family):
                checker = getattr(module, "CHECKER", None)
                if isinstance(checker, Checker):
                    if checker.id in checkers:
                        raise DeclarationError(f"two checkers of {checker.id}: {checkers[checker.id][1]} and "
                                               f"{module.__name__}")
                    checkers[checker.id] = (family, module.__name__, checker)
        unchecked = sorted(set(theorems) - set(checkers))
        if unchecked:
            raise DeclarationError(f"theorem(s) without a checker: {', '.join(unchecked)}")
        for theorem_id, (family, module, checker) in checkers.items():
            if theorem_id not in theorems or theorems[theorem_id][1] is not checker.theorem:
                raise DeclarationError(f"{module} checks {theorem_id}, which is not the theorem of that id in "
                                       f"theorems/<family>/")
            if theorems[theorem_id][0] != family:
                raise DeclarationError(f"{theorem_id} is stated in family {theorems[theorem_id][0]} but checked in "
                                       f"{family}")
            self.checkers[theorem_id] = checker
            self.families[theorem_id] = family
            self.builtin.add(theorem_id)
        self.loaded = True  # only once discovery succeeded: a declaration error stops every later call too
        for entry_point in entry_points(group=ENTRY_POINT_GROUP):
            for checker in _checkers_of(entry_point.load()):
                self.register(checker)

    def load_one(self, entry: Entry) -> "Checker | None":
        """The built-in checker of one catalogued id, importing its two modules only; None where they do not hold
        the theorem and its checker as catalogued (full discovery then says what is wrong)."""
        from checkers.checker import Checker
        theorem = getattr(importlib.import_module(f"theorems.{entry.family}.{entry.module}"), "THEOREM", None)
        checker = getattr(importlib.import_module(f"checkers.{entry.family}.{entry.module}"), "CHECKER", None)
        if not (isinstance(checker, Checker) and checker.theorem is theorem and checker.id == entry.id):
            return None
        self.checkers[entry.id] = checker
        self.families[entry.id] = entry.family
        self.builtin.add(entry.id)
        return checker

    def register(self, checker: "Checker") -> "Checker":
        from checkers.checker import Checker
        if not isinstance(checker, Checker):
            raise InvalidInput(f"a plugin must provide Checker objects, got {type(checker).__name__}")
        if checker.id in self.builtin:
            raise InvalidInput(f"a plugin cannot replace the built-in theorem {checker.id!r}")
        self.checkers[checker.id] = checker
        self.families.setdefault(checker.id, "plugin")
        return checker


_REGISTRY = _Registry()


def families() -> list[str]:
    """The family packages: the subpackages that theorems/ and checkers/ both have, in name order."""
    return catalog.families()


def _modules(package, family: str):
    parent = importlib.import_module(f"{package.__name__}.{family}")
    for info in sorted(pkgutil.iter_modules(parent.__path__), key=lambda info: info.name):
        if not info.ispkg:
            yield importlib.import_module(f"{parent.__name__}.{info.name}")


def _checkers_of(module) -> list["Checker"]:
    from checkers.checker import Checker
    if isinstance(module, Checker):
        return [module]
    if isinstance(module, (list, tuple)):
        return list(module)
    found = list(getattr(module, "CHECKERS", []))
    if hasattr(module, "CHECKER"):
        found.append(module.CHECKER)
    if not found:
        raise InvalidInput(f"plugin {module.__name__} defines neither CHECKER nor CHECKERS")
    return found


def register(checker: "Checker") -> "Checker":
    """Add a plugin's checker (its id must not be a built-in one)."""
    _REGISTRY.load()
    return _REGISTRY.register(checker)


def load_plugin(module: str) -> list["Checker"]:
    """Import a plugin, a module name or a .py path, and register its checkers. A plugin that cannot be found or
    imported, or whose import raises or exits, is refused (`EnvironmentFault`) with its name and file."""
    _REGISTRY.load()
    if not module.strip():
        raise InvalidInput("--plugin needs a module name or a .py path, got an empty one")
    if module.endswith(".py") and not Path(module).is_file():  # the user's path, not the plugin's doing
        raise InvalidInput(f"plugin file {module!r} does not exist" if not Path(module).exists() else
                           f"plugin {module!r} is not a file")
    try:
        if module.endswith(".py"):
            path = Path(module).resolve()
            name = f"thmcheck_plugin_{path.stem}"
            loaded = sys.modules.get(name)
            if loaded is None or Path(getattr(loaded, "__file__", "")).resolve() != path:
                spec = importlib.util.spec_from_file_location(name, path)
                loaded = importlib.util.module_from_spec(spec)
                sys.modules[name] = loaded  # worker processes unpickle its objects by this name
                spec.loader.exec_module(loaded)
        else:
            loaded = importlib.import_module(module)
    except ImportError as error:
        raise InvalidInput(f"cannot import plugin {module!r}: {error} (give a .py path, or make the module "
                           f"importable)") from None
    except SystemExit as stop:  # a plugin must not end the command that loads it
        raise EnvironmentFault(f"plugin {_named(module)} called sys.exit({stop.code!r}) while being imported"
                               ) from None
    except Exception as error:  # the plugin's own bug: named with its file, and where in it
        raise EnvironmentFault(f"plugin {_named(module)} raised {type(error).__name__} while being imported: "
                               f"{error}{_where(error)}") from None
    return [_REGISTRY.register(checker) for checker in _checkers_of(loaded)]


def _named(module: str) -> str:
    """A plugin as the user named it, with the file it was loaded from where that says more."""
    if module.endswith(".py"):
        file = str(Path(module).resolve())
    else:
        try:
            file = getattr(importlib.util.find_spec(module), "origin", None) or "file unknown"
        except (ImportError, ValueError):
            file = "file unknown"
    return repr(module) if file == module else f"{module!r} ({file})"


def _where(error: BaseException) -> str:
    """' (at FILE:LINE)' for the innermost frame of an exception's traceback."""
    frames = traceback.extract_tb(error.__traceback__)
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def checker(theorem_id: str) -> "Checker":
    found = _REGISTRY.checkers.get(theorem_id)
    if found is not None:
        return found
    entry = None if _REGISTRY.loaded else (catalog.entries() or {}).get(theorem_id)
    if entry is not None and (found := _REGISTRY.load_one(entry)) is not None:
        return found
    _REGISTRY.load()
    try:
        return _REGISTRY.checkers[theorem_id]
    except KeyError:
        raise UnknownName(f"unknown theorem {theorem_id!r}; known: {', '.join(sorted(_REGISTRY.checkers))}") from None


def theorem(theorem_id: str) -> "Theorem":
    return checker(theorem_id).theorem


def family(theorem_id: str) -> str:
    """The family package of a theorem ("plugin" for one registered at run time)."""
    checker(theorem_id)
    return _REGISTRY.families[theorem_id]


def listing() -> list[Entry]:
    """Every registered theorem as `thmcheck list` prints it, in id order: from the catalog, without importing a
    theorem, while only the built-ins are registered and the catalog reads them all; else from the checkers."""
    entries = catalog.entries()
    if entries is not None and not (set(_REGISTRY.checkers) - _REGISTRY.builtin) \
            and not entry_points(group=ENTRY_POINT_GROUP):
        return [entries[key] for key in sorted(entries)]
    return [Entry(id=c.id, family=family(c.id), module=c.id.replace("-", "_"), title=c.theorem.title,
                  provenance=c.theorem.provenance, source=c.theorem.source, statement=c.theorem.statement,
                  simulation=c.simulation) for c in all_checkers()]


def all_checkers() -> list["Checker"]:
    _REGISTRY.load()
    return [_REGISTRY.checkers[key] for key in sorted(_REGISTRY.checkers)]


def builtin_checkers() -> list["Checker"]:
    """The checks that ship with thmcheck, in id order (the contract suite runs each of them)."""
    _REGISTRY.load()
    return [_REGISTRY.checkers[key] for key in sorted(_REGISTRY.builtin)]


def selection(ids: list[str], every: bool, *, required: bool = True) -> list[str] | None:
    """The theorem ids a command names, or None for its --all (`every`): both is bad input, and so is neither where
    a command needs one."""
    if every and ids:
        raise InvalidInput("give theorem ids or --all, not both")
    if required and not every and not ids:
        raise InvalidInput("name at least one theorem id, or --all (see thmcheck list)")
    return None if every else list(ids)


def selected(ids: list[str], every: bool) -> list["Checker"]:
    """The checkers a command names (`selection`): those of `ids`, or every registered one."""
    chosen = selection(ids, every)
    return all_checkers() if chosen is None else [checker(theorem_id) for theorem_id in chosen]
