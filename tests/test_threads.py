"""Tests of checkers/threads.py: one BLAS thread where threadpoolctl is installed, and no import error where not."""

import contextlib
import sys

import pytest

from checkers.threads import one_blas_thread


def test_blas_runs_on_one_thread_inside_and_gets_its_threads_back():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    threadpool_info, threadpool_limits = threadpoolctl.threadpool_info, threadpoolctl.threadpool_limits

    def blas_threads() -> list[int]:
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        if max(before, default=1) < 2:
            pytest.skip("this BLAS runs on one thread whatever the limit: nothing to give back")
        with one_blas_thread():
            assert set(blas_threads()) == {1}
        assert blas_threads() == before


def test_without_threadpoolctl_it_limits_nothing_and_raises_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # an import of it now fails, as where it is missing
    assert isinstance(one_blas_thread(), contextlib.nullcontext)
