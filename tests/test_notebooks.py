"""The teaching notebooks are marimo apps: well formed (`marimo check`), they run as scripts at their default
sizes, and one exports to static HTML with its outputs."""

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


@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n.stem != EXPORTED],
                         ids=[n.stem for n in NOTEBOOKS if n.stem != EXPORTED])
def test_notebook_runs_as_a_script(notebook, tmp_path):
    # the timeout guards against a hang; the default sizes are chosen to take well under a minute
    result = subprocess.run([sys.executable, str(notebook)], capture_output=True, text=True,
                            env=_environment(tmp_path), cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


def test_a_notebook_exports_to_static_html_with_its_outputs(tmp_path):
    notebook = next(n for n in NOTEBOOKS if n.stem == EXPORTED)
    page = tmp_path / "hermite.html"
    result = subprocess.run([sys.executable, "-m", "marimo", "export", "html", str(notebook), "-o", str(page)],
                            capture_output=True, text=True, env=_environment(tmp_path), cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    text = page.read_text(encoding="utf-8")
    # the outputs of the cells are in the page: the Parseval table's heading and an image of a figure
    assert "Parseval" in text and "image/png" in text
    assert "Traceback" not in text
