"""The suite's pytest hooks: the flake meter (`pytest --flake-seeds N`, tests/flake_meter.py), Hypothesis's
profiles: "fixed" by default (the same examples on every run and machine, nothing stored), "explore"
(`pytest --hypothesis-profile explore`) for fresh random examples; and the main job's shared verdicts as a fixture
(tests/main_job.py); and the machine probe's cache (`checkers.probe`) in a folder of each test process's own, so that
the suite never writes the user's cache, and a probe measured while the suite loads every core never becomes this
machine's cached speed.

Each test process keeps BLAS to one thread, as run_check does for a check: pytest-xdist already runs a process per
core, and a BLAS pool in each (with OpenBLAS's threads spinning while they wait) would share two cores four ways
(measured: 16-24% more CPU for the same tests). The BLAS libraries' thread variables are set here, before anything
loads numpy (no plugin does), and reach the subprocesses the tests start.
"""

import atexit
import os
import shutil
import tempfile

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from hypothesis import settings  # noqa: E402 - after the BLAS variables

from tests.flake_meter import (  # noqa: F401, E402 - pytest finds hooks by name in a conftest
    pytest_addoption,
    pytest_configure,
    pytest_runtest_call,
    pytest_sessionfinish,
    pytest_terminal_summary,
)
from tests.main_job import main_job_verdicts  # noqa: F401, E402 - pytest finds fixtures by name in a conftest

settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("explore", database=None)
settings.load_profile("fixed")

os.environ["THMCHECK_CACHE"] = tempfile.mkdtemp(prefix="thmcheck-tests-cache-")
atexit.register(shutil.rmtree, os.environ["THMCHECK_CACHE"], True)
