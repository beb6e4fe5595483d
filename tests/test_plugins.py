"""Users' own theorems: the example plugin through --plugin, the pytest helpers, and docs/plugins.md."""

import json
from pathlib import Path

import pytest

from checkers import registry
from checkers.cli import main
from checkers.testing import assert_mutants_fail, assert_theorem_holds

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "stein_plugin.py"


def test_example_plugin_by_path_through_the_cli(capsys):
    code = main(["--plugin", str(EXAMPLE), "check", "stein-lemma", "--param", "activation=relu", "--json"])
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert code == 0 and result["outcome"] == "pass"
    code = main(["check", "stein-lemma", "--plugin", str(EXAMPLE), "--mutant", "c1-doubled"])
    capsys.readouterr()
    assert code == 1


def test_pytest_helpers_on_the_example():
    [checker] = registry.load_plugin(str(EXAMPLE))
    assert_theorem_holds(checker, {"activation": "tanh"})
    assert_mutants_fail(checker)
    with pytest.raises(AssertionError, match="expected stein-lemma to pass"):
        assert_theorem_holds(checker, overrides={"c1": "0.9"}, fidelity="default")


def test_the_plugin_guide_shows_the_example_verbatim():
    guide = (ROOT / "docs" / "plugins.md").read_text()
    assert EXAMPLE.read_text().strip() in guide


def test_entry_point_plugins_are_registered(monkeypatch):
    """A package that declares `thmcheck.theorems = mypackage.module` is picked up without --plugin."""
    import importlib.metadata
    import sys

    class EntryPoint:
        name = "stein"

        def load(self):
            return sys.modules["thmcheck_plugin_stein_plugin"]

    registry.load_plugin(str(EXAMPLE))
    monkeypatch.setattr(registry, "_REGISTRY", registry._Registry())  # a fresh process: nothing loaded yet
    monkeypatch.setattr(registry, "entry_points", lambda group: [EntryPoint()] if group == registry.ENTRY_POINT_GROUP
                        else importlib.metadata.entry_points(group=group))
    assert registry.checker("stein-lemma").id == "stein-lemma"
    assert registry.family("stein-lemma") == "plugin"
