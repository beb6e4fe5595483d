"""The one registry: built-in checks discovered from the family packages, each theorem beside its checker."""

import importlib
import re
import sys
import types
from pathlib import Path

import pytest

from checkers import registry
from checkers.cli.listing import markdown_table
from theorems.errors import DeclarationError, InvalidInput

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = registry.builtin_checkers()


def test_every_family_package_exists_on_both_sides():
    assert registry.families() == ["alignment", "collapse", "elasticity", "equivalence", "kernels", "onestep"]


@pytest.mark.parametrize("checker", BUILTIN, ids=[c.id for c in BUILTIN])
def test_theorem_and_checker_live_in_modules_named_after_the_id(checker):
    family, module = registry.family(checker.id), checker.id.replace("-", "_")
    theorem_module = importlib.import_module(f"theorems.{family}.{module}")
    checker_module = importlib.import_module(f"checkers.{family}.{module}")
    assert theorem_module.THEOREM is checker.theorem
    assert checker_module.CHECKER is checker
    assert checker.id in (ROOT / "checkers" / family / f"{module}.py").read_text().splitlines()[0], \
        "a checker module's first line names its theorem id, so that grep finds both halves"


def test_theorems_never_import_checkers():
    for path in (ROOT / "theorems").rglob("*.py"):
        assert not re.search(r"^\s*(from|import) checkers", path.read_text(), flags=re.M), path


def test_the_readme_table_is_the_generated_one():
    readme = (ROOT / "README.md").read_text()
    builtin = [entry for entry in registry.listing() if entry.id in {c.id for c in BUILTIN}]  # no test's plugin
    assert markdown_table(builtin) in readme, "regenerate it with `thmcheck list --markdown`"


def test_the_calibration_tests_cover_every_builtin_theorem():
    from tests import test_calibration
    assert {c.id for c in test_calibration.CHECKERS} == {c.id for c in BUILTIN}


def _discover_with(monkeypatch, family: str, module_name: str, namespace: dict):
    """A fresh registry that also finds `module_name` (with `namespace`) in the checkers' `family` package."""
    package = importlib.import_module(f"checkers.{family}")
    module = types.ModuleType(f"checkers.{family}.{module_name}")
    module.__dict__.update(namespace)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    real = registry._modules

    def modules(parent, name):
        yield from real(parent, name)
        if parent.__name__ == "checkers" and name == family:
            yield module
    monkeypatch.setattr(registry, "_modules", modules)
    monkeypatch.setattr(registry, "_REGISTRY", registry._Registry())
    assert package


def test_a_second_checker_of_one_theorem_stops_the_registry(monkeypatch):
    _discover_with(monkeypatch, "kernels", "dual_kernel_again", {"CHECKER": registry.checker("dual-kernel")})
    with pytest.raises(DeclarationError, match="two checkers of dual-kernel"):
        registry.all_checkers()


def test_a_checker_in_the_wrong_family_stops_the_registry(monkeypatch):
    _discover_with(monkeypatch, "collapse", "misplaced", {"CHECKER": registry.checker("dual-kernel")})
    with pytest.raises(DeclarationError, match="dual-kernel"):
        registry.all_checkers()


def test_a_plugin_cannot_take_a_builtin_id():
    from checkers.checker import Checker
    builtin = registry.checker("dual-kernel")
    impostor = Checker(theorem=builtin.theorem, simulation="", readers=builtin.readers)
    with pytest.raises(Exception, match="built-in"):
        registry.register(impostor)


def test_loading_a_plugin_leaves_sys_path_alone():
    before = list(sys.path)
    registry.load_plugin(str(ROOT / "examples" / "stein_plugin.py"))
    assert sys.path == before


def test_a_command_names_ids_or_all_never_both_and_a_report_from_a_store_may_name_neither():
    assert registry.selection(["dual-kernel"], False) == ["dual-kernel"] and registry.selection([], True) is None
    assert registry.selection([], False, required=False) == []
    for ids, every in ((["dual-kernel"], True), ([], False)):
        with pytest.raises(InvalidInput, match="--all"):
            registry.selected(ids, every)
    assert [c.id for c in registry.selected(["dual-kernel"], False)] == ["dual-kernel"]
