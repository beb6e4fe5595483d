"""The tutorial (docs/tutorial.md) works as printed: its Python blocks, put together, are a checked theorem."""

import re
import subprocess
import sys
from pathlib import Path

from checkers import registry

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"


def _module(tmp_path) -> Path:
    blocks = re.findall(r"```python\n(.*?)```", TUTORIAL.read_text(), flags=re.S)
    path = tmp_path / "relu_mean.py"
    path.write_text("\n\n".join(blocks))
    return path


def test_the_tutorials_theorem_passes_its_mutants_fail_and_its_test_runs(tmp_path):
    path = _module(tmp_path)
    [checker] = registry.load_plugin(str(path))
    assert checker.id == "relu-mean"
    namespace = sys.modules["thmcheck_plugin_relu_mean"].__dict__
    namespace["test_relu_mean"]()  # the tutorial's own pytest function: the theorem holds, every mutant fails
    override = checker.theorem.instance(overrides={"mean_at_one": "0.4"})
    assert override.changed_constants == {"mean_at_one": "overridden", "mean": "recomputed"}
    from checkers import contract

    assert all(problems == [] for problems in contract.check(checker, runs=False).values())  # its own contract


def test_the_tutorials_commands_exit_as_it_says(tmp_path):
    path = _module(tmp_path)
    commands = re.search(r"```sh\n(.*?)```", TUTORIAL.read_text(), flags=re.S).group(1).splitlines()
    expected = [0, 0, 1]
    for line, code in zip(commands, expected):
        arguments = line.split("#")[0].split()[1:]
        arguments = [str(path) if argument == "relu_mean.py" else argument for argument in arguments]
        result = subprocess.run([sys.executable, "-m", "checkers.cli", *arguments], capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == code, (line, result.stdout[-500:], result.stderr[-500:])
