"""One BLAS thread for the duration: threadpoolctl's limit where it is installed (a declared dependency), else the
limit the environment set before numpy loaded (OPENBLAS_NUM_THREADS and the like, as the tests' conftest sets them).

Without threadpoolctl nothing can change BLAS's threads after numpy loads, so a check's last digits may then depend on
the core count; importing the engine, and every test's collection, still works.
"""

from __future__ import annotations

import contextlib


def one_blas_thread(user_api: str | None = "blas"):
    """A context in which BLAS runs on one thread (`user_api=None`: every thread pool threadpoolctl knows)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api=user_api)
