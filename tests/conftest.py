"""The suite's pytest hooks: the flake meter (`pytest --flake-seeds N`, tests/flake_meter.py), Hypothesis's
profiles: "fixed" by default (the same examples on every run and machine, nothing stored), "explore"
(`pytest --hypothesis-profile explore`) for fresh random examples; and the main job's shared verdicts as a fixture
(tests/main_job.py); and the machine probe's cache (`checkers.probe`) in a folder of each test process's own, so that
the suite never writes the user's cache, and a probe measured while the suite loads every core never becomes this
machine's cached speed."""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

from tests.flake_meter import (  # noqa: F401 - pytest finds hooks by name in a conftest
    pytest_addoption,
    pytest_configure,
    pytest_runtest_call,
    pytest_sessionfinish,
    pytest_terminal_summary,
)
from tests.main_job import main_job_verdicts  # noqa: F401 - pytest finds fixtures by name in a conftest

settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("explore", database=None)
settings.load_profile("fixed")

os.environ["THMCHECK_CACHE"] = tempfile.mkdtemp(prefix="thmcheck-tests-cache-")
atexit.register(shutil.rmtree, os.environ["THMCHECK_CACHE"], True)
