"""Where work runs: every executor gives the same results, and an interrupt or a killed parent ends the workers."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkers.executors import CONNECT_SECONDS, workers
from theorems.errors import InvalidInput


def _square(value: int) -> int:
    return value * value


def test_serial_and_processes_give_the_same_results():
    calls = [(_square, (value,)) for value in range(6)]
    found = {}
    for executor in ("serial", "processes"):
        results = []
        with workers(executor, 2) as pool:
            pool.run(calls, results.append)
        found[executor] = sorted(results)
    assert found["serial"] == found["processes"] == [value * value for value in range(6)]


def test_a_bad_executor_or_worker_count_is_the_users():
    with pytest.raises(InvalidInput, match="executor must be one of"):
        with workers("threads"):
            pass
    with pytest.raises(InvalidInput, match="--workers must be positive"):
        with workers("processes", 0):
            pass


def test_a_refused_connection_is_refused_at_once_not_after_the_connect_timeout():
    pytest.importorskip("dask.distributed")
    started = time.monotonic()
    with pytest.raises(InvalidInput, match="no dask scheduler answered at 'tcp://127.0.0.1:9' .ConnectionRefused"):
        with workers("dask", scheduler="tcp://127.0.0.1:9"):
            pass
    assert time.monotonic() - started < CONNECT_SECONDS


@pytest.mark.parametrize("address, reason", [("tcp://no-such-host.invalid:8786", "gaierror"),
                                             ("tcp://127.0.0.1:port", "its port is not a number")])
def test_an_address_nothing_can_answer_at_is_refused_with_the_reason(address, reason):
    pytest.importorskip("dask.distributed")
    with pytest.raises(InvalidInput, match=f"no dask scheduler answered at '{address}' .{reason}"):
        with workers("dask", scheduler=address):
            pass


def _descendants(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in children] + [grandchild for child in children
                                                 for grandchild in _descendants(int(child))]


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def _started_check() -> tuple[subprocess.Popen, list[int]]:
    """`thmcheck check --all --workers 2` once both workers are running a check (each takes seconds)."""
    command = [sys.executable, "-m", "checkers.cli", "check", "--all", "--fidelity", "quick", "--workers", "2"]
    # as a terminal starts it: a background job of a shell (`... &`, as a CI runner may start the tests) inherits
    # SIGINT ignored, and Python then leaves it ignored, so the interrupt under test would never arrive
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while len(_descendants(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(3)
    return process, _descendants(process.pid)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from Linux's /proc")
def test_sigint_to_the_main_process_alone_ends_the_check_and_its_workers():
    process, workers_started = _started_check()
    os.kill(process.pid, signal.SIGINT)  # the main process only, as `kill -INT` or a scheduler sends it
    started = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130 and "interrupted" in err
    assert time.monotonic() - started < 10
    time.sleep(1)
    assert len(workers_started) >= 2 and not [pid for pid in workers_started if _running(pid)]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from Linux's /proc")
def test_no_worker_outlives_a_killed_parent():
    process, workers_started = _started_check()
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while [pid for pid in workers_started if _running(pid)] and time.monotonic() < deadline:
        time.sleep(0.2)
    survivors = [pid for pid in workers_started if _running(pid)]
    for pid in survivors:  # leave nothing behind, whatever the outcome
        os.kill(pid, signal.SIGKILL)
    assert len(workers_started) >= 2 and not survivors
