"""Tests of checkers/threads.py: one BLAS thread where threadpoolctl is installed, and no import error where not."""

import contextlib
import sys

import pytest

from checkers.threads import one_blas_thread


def test_blas_runs_on_one_thread_inside_and_gets_its_threads_back():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    threadpool_info, threadpool_limits = threadpoolctl.threadpool_info, threadpoolctl.threadpool_limits

    with threadpool_limits(2, user_api="blas"):
        with one_blas_thread():
            assert all(pool["num_threads"] == 1 for pool in threadpool_info() if pool["user_api"] == "blas")
        assert all(pool["num_threads"] == min(2, pool["num_threads"]) for pool in threadpool_info()
                   if pool["user_api"] == "blas")


def test_without_threadpoolctl_it_limits_nothing_and_raises_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # an import of it now fails, as where it is missing
    assert isinstance(one_blas_thread(), contextlib.nullcontext)
