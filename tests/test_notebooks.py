"""The teaching notebooks are marimo apps: well formed (`marimo check`), they run as scripts at their default
sizes, and `thmcheck notebooks` writes one as a static page with its outputs (tests/test_report_browser.py opens
it offline)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("marimo", reason="the notebooks need marimo: pip install -e '.[notebooks]'")

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.py"))


def _environment(tmp_path) -> dict:
    return dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=str(tmp_path))


def test_every_notebook_is_a_well_formed_marimo_app():
    assert len(NOTEBOOKS) == 6
    result = subprocess.run([sys.executable, "-m", "marimo", "check", "--strict", *map(str, NOTEBOOKS)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


EXPORTED = "hermite_and_dual_kernels"  # run by the export test below, which executes every cell too


# the three that take 20-40 s as scripts run on request; the others (7-11 s each) and the exported one run by default
RUN_ON_REQUEST = {"gaussian_equivalence", "early_alignment", "neural_collapse"}


@pytest.mark.parametrize("notebook", [pytest.param(n, marks=pytest.mark.slow) if n.stem in RUN_ON_REQUEST else n
                                      for n in NOTEBOOKS if n.stem != EXPORTED],
                         ids=[n.stem for n in NOTEBOOKS if n.stem != EXPORTED])
def test_notebook_runs_as_a_script(notebook, tmp_path):
    # the timeout guards against a hang; the default sizes are chosen to take well under a minute
    result = subprocess.run([sys.executable, str(notebook)], capture_output=True, text=True,
                            env=_environment(tmp_path), cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


def test_a_notebook_page_holds_its_outputs_and_loads_nothing_from_elsewhere(tmp_path):
    """`thmcheck notebooks` runs every cell once and writes what they show: the Parseval table's heading, the figures
    as embedded images, each control with its default value; no script, no address to load anything from."""
    notebook = next(n for n in NOTEBOOKS if n.stem == EXPORTED)
    result = subprocess.run([sys.executable, "-m", "checkers.cli", "notebooks", str(notebook), "--out",
                             str(tmp_path / "pages")], capture_output=True, text=True, env=_environment(tmp_path),
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    text = (tmp_path / "pages" / f"{EXPORTED}.html").read_text(encoding="utf-8")
    assert "Parseval" in text and text.count('src="data:image/png;base64,') >= 2
    assert 'class="control">degree K = <b>12</b>' in text
    assert "<script" not in text and "http://" not in text and "https://" not in text and "<marimo-" not in text
    assert "Traceback" not in text


def test_the_pages_are_refused_where_they_cannot_go(tmp_path):
    occupied = tmp_path / "a-file"
    occupied.write_text("keep me")
    result = subprocess.run([sys.executable, "-m", "checkers.cli", "notebooks", "--out", str(occupied)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "is a file" in result.stderr and occupied.read_text() == "keep me"


@pytest.mark.parametrize("cell, said", [("1 / 0", "raised ZeroDivisionError"), ("import sys\n    sys.exit(0)",
                                                                                 "called sys.exit")])
def test_a_notebook_of_the_users_that_fails_is_named_and_leaves_no_page(tmp_path, capsys, cell, said):
    """A notebook the user gives that raises or exits in a cell (or fails to load) is the user's fault: exit 2, one
    line naming the file, and no page, not an empty one."""
    from checkers.cli import main

    notebook = tmp_path / "broken.py"
    notebook.write_text(f"import marimo\napp = marimo.App()\n\n@app.cell\ndef _():\n    {cell}\n    return\n")
    out = tmp_path / "pages"
    assert main(["notebooks", "--out", str(out), str(notebook)]) == 2
    error = capsys.readouterr().err
    assert "broken.py" in error and said in error and error.count("\n") == 1
    assert not (out / "broken.html").exists()


def test_a_notebook_that_does_not_parse_is_named(tmp_path, capsys):
    from checkers.cli import main

    notebook = tmp_path / "unclosed.py"
    notebook.write_text("import marimo\napp = marimo.App(\n")
    assert main(["notebooks", "--out", str(tmp_path / "pages"), str(notebook)]) == 2
    error = capsys.readouterr().err
    assert "unclosed.py" in error and "SyntaxError" in error and error.count("\n") == 1
