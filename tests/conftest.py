"""The suite's pytest hooks: the flake meter (`pytest --flake-seeds N`, tests/flake_meter.py)."""

from tests.flake_meter import (  # noqa: F401 - pytest finds hooks by name in a conftest
    pytest_addoption,
    pytest_configure,
    pytest_runtest_call,
    pytest_sessionfinish,
    pytest_terminal_summary,
)
