"""The teaching notebooks (plain-text percent format) run as scripts at small sizes."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.py"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_notebook_runs(notebook, tmp_path):
    environment = dict(os.environ, THMCHECK_SMALL="1", MPLBACKEND="Agg", MPLCONFIGDIR=str(tmp_path))
    result = subprocess.run([sys.executable, str(notebook)], capture_output=True, text=True, env=environment,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
