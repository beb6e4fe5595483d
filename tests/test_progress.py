"""The progress bar's model: tasks start first in, first out on their slots, a running task counts for the time it has
run (never past its share), and the time left is the estimated work left over the slots in use."""

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

from checkers.progress import RUNNING_SHARE, WorkProgress


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_tasks_take_the_slots_in_submission_order_and_free_them_as_they_finish():
    clock = Clock()
    bar = WorkProgress([10, 10, 10], 2, unit="checks", description="check", enabled=False, clock=clock)
    assert bar.running() == [0, 1]
    clock.now = 4
    bar.done(1)
    assert bar.running() == [0, 2] and bar.started[2] == 4


def test_work_done_counts_finished_tasks_and_running_time_up_to_its_share():
    clock = Clock()
    bar = WorkProgress([10, 20], 2, unit="checks", description="check", enabled=False, clock=clock)
    clock.now = 5
    assert bar.done_work(clock.now) == pytest.approx(5 + 5)
    clock.now = 15  # the first task has overrun its estimate: it counts as RUNNING_SHARE of it
    assert bar.done_work(clock.now) == pytest.approx(RUNNING_SHARE * 10 + 15)
    bar.done(0)
    assert bar.done_work(clock.now) == pytest.approx(10 + 15)


def test_the_time_left_is_the_work_left_over_the_slots_still_used():
    clock = Clock()
    bar = WorkProgress([10, 10, 10, 10], 2, unit="checks", description="check", enabled=False, clock=clock)
    assert bar.seconds_left(0) == pytest.approx(40 / 2)
    clock.now = 10
    bar.done(0)
    bar.done(1)
    bar.done(2)
    assert bar.seconds_left(10) == pytest.approx(10 / 1)  # one task left holds one slot


def test_a_task_without_an_estimate_weighs_as_the_mean_of_those_with_one():
    bar = WorkProgress([2, None, 4], 1, unit="tasks", description="sweep", enabled=False)
    assert bar.weights == [2, 3, 4]
    assert WorkProgress([None], 1, unit="tasks", description="sweep", enabled=False).weights == [1.0]


def test_no_tasks_make_a_bar_with_nothing_left():
    bar = WorkProgress([], 4, unit="tasks", description="sweep", enabled=True)
    assert bar.running() == [] and bar.seconds_left(0) == 0
    bar.close()


def test_a_row_printed_above_a_disabled_bar_goes_to_stdout(capsys):
    bar = WorkProgress([1], 1, unit="checks", description="check", enabled=False)
    bar.print_above("a row")
    bar.close()
    assert capsys.readouterr().out == "a row\n"


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_checks_bar_in_a_terminal_says_its_time_left_within_five_seconds_and_redraws():
    """As a person at a terminal sees it: the bar appears with the estimated time left before any check finishes,
    and moves while the first one runs."""
    primary, secondary = os.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # a terminal's size
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "checkers.cli", "check", "collapse-architectures",
                                "--fidelity", "quick"], stdout=subprocess.DEVNULL, stderr=secondary)
    os.close(secondary)
    seen, draws, first = b"", 0, None
    try:
        while time.monotonic() - started < 30 and draws < 2:
            ready, _, _ = select.select([primary], [], [], 1.0)
            if ready:
                try:
                    seen += os.read(primary, 4096)
                except OSError:  # the command ended and closed the terminal
                    break
            draws = seen.count(b"left")
            if draws and first is None:
                first = time.monotonic() - started
    finally:
        process.kill()
        process.wait()
        os.close(primary)
    assert first is not None and first < 5, seen.decode(errors="replace")
    assert draws >= 2 and b"0/1 checks" in seen
