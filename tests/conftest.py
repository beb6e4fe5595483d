"""The suite's pytest hooks: the flake meter (`pytest --flake-seeds N`, tests/flake_meter.py), and Hypothesis's
profiles: "fixed" by default (the same examples on every run and machine, nothing stored), "explore"
(`pytest --hypothesis-profile explore`) for fresh random examples."""

from hypothesis import settings

from tests.flake_meter import (  # noqa: F401 - pytest finds hooks by name in a conftest
    pytest_addoption,
    pytest_configure,
    pytest_runtest_call,
    pytest_sessionfinish,
    pytest_terminal_summary,
)

settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("explore", database=None)
settings.load_profile("fixed")
