"""Sweeps: grids, seeds by identity, the SQLite store, executors giving identical numbers, resumption."""

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkers.cli import main
from checkers.outcome import Outcome
from checkers.store import ResultStore
from checkers.sweep import Task, parse_grid, plan, seed_groups, split_values, sweep
from checkers.verdict import Verdict
from tests.test_faults import announced_work
from theorems.errors import InvalidInput

GRID = {"rho": ["0.1", "0.5", "0.9"], "activation": ["relu", "tanh"]}


def _numbers(path) -> dict:
    """task key -> (seed, observed and standard error of every prediction)."""
    with ResultStore(path) as store:
        return {r.task_key: (r.seed, [(p.observed, p.standard_error) for p in r.verdict.predictions])
                for r in store.records()}


def test_grid_values_split_outside_parentheses_and_bad_grids_are_errors():
    assert split_values("relu, max(z, 0), tanh") == ["relu", "max(z, 0)", "tanh"]
    assert parse_grid(["rho=0.1,0.2", "activation=relu"]) == {"rho": ["0.1", "0.2"], "activation": ["relu"]}
    for bad in (["rho"], ["rho="], ["rho=0.1,,0.2"], ["rho=1", "rho=2"]):
        with pytest.raises(InvalidInput):
            parse_grid(bad)
    with pytest.raises(InvalidInput, match="outside its domain"):
        plan("dual-kernel", {"rho": ["0.5", "2"]}, 1)
    with pytest.raises(InvalidInput, match="both fixed and swept"):
        plan("dual-kernel", {"rho": ["0.5"]}, 1, fixed={"rho": "0.1"})


def test_a_tasks_seed_depends_on_its_identity_only():
    tasks = plan("dual-kernel", GRID, 3)
    assert len(tasks) == 18 and len({t.key for t in tasks}) == 18 and len({t.seed for t in tasks}) == 18
    again = {t.key: t.seed for t in reversed(plan("dual-kernel", GRID, 3))}
    assert all(again[t.key] == t.seed for t in tasks)
    other_root = plan("dual-kernel", GRID, 3, root_seed=1)
    assert all(a.seed != b.seed for a, b in zip(tasks, other_root))
    assert 0 <= min(t.seed for t in tasks) and max(t.seed for t in tasks) < 2**63


def test_a_paired_mutant_takes_the_seed_of_the_statement_and_runs_beside_it():
    """Pairing changes a mutant's seed and key only: the statement's own task is the same task either way."""
    (stated,) = plan("population-loss", {}, 1)
    (paired,) = plan("population-loss", {}, 1, mutant="cho-saul-factor", paired=True)
    (independent,) = plan("population-loss", {}, 1, mutant="cho-saul-factor")
    assert plan("population-loss", {}, 1, paired=True)[0].key == stated.key
    assert paired.seed == stated.seed != independent.seed
    assert len({stated.key, paired.key, independent.key}) == 3
    tasks = plan("population-loss", {}, 2) + plan("population-loss", {}, 2, mutant="cho-saul-factor", paired=True)
    assert [[task.seed_index for task in group] for group in seed_groups(tasks)] == [[0, 0], [1, 1]]
    assert [len(group) for group in seed_groups(plan("population-loss", {}, 2, mutant="cho-saul-factor"))] == [1, 1]


def test_store_keeps_each_task_once(tmp_path):
    task = Task("dual-kernel", {"rho": "0.5"}, 0, "quick", 1e-6)
    verdict = Verdict(theorem="dual-kernel", title="", provenance="derived", outcome=Outcome.PASS, predictions=(),
                      parameters={"rho": "0.5"}, fidelity="quick")
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert store.add(task.key, task.theorem, task.parameters, 0, task.seed, "quick", verdict, "v")
        assert not store.add(task.key, task.theorem, task.parameters, 0, task.seed, "quick", verdict, "v")
        assert store.count() == 1
        (record,) = store.records()
        assert record.outcome == "pass" and record.verdict == verdict


def test_a_row_stored_before_the_outcome_key_was_renamed_still_reads(tmp_path):
    """Rows written when a verdict's outcome was stored under the key `verdict` read as the same Verdict."""
    task = Task("dual-kernel", {"rho": "0.5"}, 0, "quick", 1e-6)
    verdict = Verdict(theorem="dual-kernel", title="", provenance="derived", outcome=Outcome.FAIL, predictions=(),
                      parameters={"rho": "0.5"}, fidelity="quick")
    with ResultStore(tmp_path / "s.sqlite") as store:
        store.add(task.key, task.theorem, task.parameters, 0, task.seed, "quick", verdict, "v")
        old = json.dumps({("verdict" if key == "outcome" else key): value for key, value in verdict.to_dict().items()})
        store._connection.execute("UPDATE results SET verdict = ?", (old,))
        store._connection.commit()
        (record,) = store.records()
    assert "outcome" not in json.loads(old) and record.verdict == verdict


def test_serial_and_process_pool_store_identical_numbers_and_a_rerun_skips(tmp_path):
    tasks = plan("dual-kernel", GRID, 1)
    serial = sweep(tasks, tmp_path / "serial.sqlite", executor="serial", progress=False)
    pooled = sweep(tasks, tmp_path / "pool.sqlite", executor="processes", workers=2, progress=False)
    assert serial.ran == pooled.ran == 6 and serial.outcomes == {"pass": 6}
    assert _numbers(tmp_path / "serial.sqlite") == _numbers(tmp_path / "pool.sqlite")
    again = sweep(tasks, tmp_path / "pool.sqlite", executor="processes", workers=2, progress=False)
    assert again.ran == 0 and again.skipped == 6


def test_results_that_other_code_stored_are_rerun_not_reused(tmp_path, monkeypatch):
    """A store resumed after the code changed: its results are another version's, so each is rerun and replaced
    (a calibration once recorded a day-old store's verdicts as the current code's)."""
    from checkers import sweep as sweeping
    from checkers.store import ResultStore

    tasks = plan("dual-kernel", GRID, 1)
    store = tmp_path / "store.sqlite"
    assert sweep(tasks, store, executor="serial", progress=False).ran == 6
    monkeypatch.setattr(sweeping, "code_version", lambda: "0.1.0+edited")
    again = sweep(tasks, store, executor="serial", progress=False)
    assert again.ran == 6 and again.skipped == 0 and again.rerun_from_other_code == 6
    with ResultStore(store) as reopened:
        assert {record.code_version for record in reopened.records()} == {"0.1.0+edited"}
        assert len(reopened.records()) == 6
    assert sweep(tasks, store, executor="serial", progress=False).skipped == 6


def test_cli_sweep_json_and_exit_codes(tmp_path, capsys):
    store = str(tmp_path / "cli.sqlite")
    code = main(["sweep", "dual-kernel", "--grid", "rho=0.3,0.6", "--seeds", "2", "--executor", "serial",
                 "--store", store, "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["ran"] == 4 and summary["outcomes"] == {"pass": 4}
    # the sweep's verdict is its points', each read over its seeds (`checkers.pooling`), and says how
    assert summary["verdict"] == "pass" and [point["seeds"] for point in summary["points"]] == [2, 2]
    hows = {p["prediction"]: p["how"] for p in summary["points"][0]["predictions"]}
    assert hows["monte-carlo"].startswith("each seed resolves it alone") and hows["closed-form"].startswith(
        "worst seed: its reading is exact")
    assert main(["sweep", "dual-kernel", "--grid", "rho=0.3,0.6", "--seeds", "2", "--store", store]) == 0
    assert "verdict: pass over 2 points (no reading needed or allowed pooling" in capsys.readouterr().out
    code = main(["sweep", "dual-kernel", "--grid", "rho=0.3", "--set", "c1=0.51", "--executor", "serial",
                 "--store", store, "--json"])
    assert code == 1
    assert main(["sweep", "dual-kernel", "--grid", "rho=5", "--store", store]) == 2
    assert main(["sweep", "dual-kernel", "--grid", "rho=0.1", "--executor", "serial", "--scheduler", "local",
                 "--store", store]) == 2


@pytest.mark.slow  # about 25 s: a dask cluster killed and restarted (test_faults resumes a sweep by default)
def test_dask_sweep_killed_midway_resumes_with_every_task_once_and_serial_numbers(tmp_path):
    pytest.importorskip("dask.distributed")
    grid = ["--grid", "rho=-0.9,-0.5,-0.1,0.1,0.5,0.9", "--grid", "activation=relu,tanh", "--seeds", "1"]
    store = tmp_path / "dask.sqlite"
    command = [sys.executable, "-m", "checkers.cli", "sweep", "dual-kernel", *grid, "--scheduler", "local",
               "--workers", "2", "--store", str(store), "--json"]
    environment = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    process = subprocess.Popen(command, env=environment, start_new_session=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline, stored = time.time() + 300, 0
    while time.time() < deadline and process.poll() is None:
        if store.exists():
            try:
                stored = sqlite3.connect(store, timeout=1).execute("SELECT COUNT(*) FROM results").fetchone()[0]
            except sqlite3.OperationalError:
                stored = 0
            if stored >= 3:
                break
        time.sleep(0.05)
    assert process.poll() is None, "the sweep finished before it could be killed"
    os.killpg(process.pid, signal.SIGKILL)  # the sweep and its LocalCluster, with no chance to clean up
    process.wait()
    with ResultStore(store) as partial:
        killed_at = partial.count()
    assert 3 <= killed_at < 12
    resumed = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600)
    summary = json.loads(resumed.stdout)
    assert summary["total"] == 12 and summary["already_stored"] == killed_at and summary["ran"] == 12 - killed_at
    serial = tmp_path / "serial.sqlite"
    sweep(plan("dual-kernel", {"rho": ["-0.9", "-0.5", "-0.1", "0.1", "0.5", "0.9"], "activation": ["relu", "tanh"]},
               1), serial, executor="serial", progress=False)
    with sqlite3.connect(store) as connection:
        keys = [row[0] for row in connection.execute("SELECT task_key FROM results")]
    assert len(keys) == len(set(keys)) == 12
    assert _numbers(store) == _numbers(serial)


def _child_processes(pid: int) -> int:
    """How many processes `pid`'s threads have started and that still run (Linux's /proc)."""
    count = 0
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            count += len(children.read_text().split())
    return count


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from Linux's /proc")
def test_ctrl_c_of_a_dask_sweep_says_one_line(tmp_path):
    """The LocalCluster's workers report their cancelled tasks and their killing in warnings (66 lines once); the
    command's own line says what it stopped and kept, and is all it prints."""
    pytest.importorskip("dask.distributed")
    store = tmp_path / "dask.sqlite"
    command = [sys.executable, "-m", "checkers.cli", "sweep", "collapse-training", "--seeds", "4", "--scheduler",
               "local", "--store", str(store)]
    environment = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # the cluster's worker processes are up (started from any of the command's threads), then inside their first
    # tasks (each takes tens of seconds); a fixed wait could interrupt the cluster's start on a loaded machine
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _child_processes(process.pid) < 3:  # a tracker, 2 workers
        time.sleep(0.2)
    time.sleep(4)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    announced, _, said = err.rpartition("thmcheck: interrupted; stopped with")
    assert process.returncode == 130 and said.count("\n") == 1 and announced in ("", announced_work(announced)), err


def _every_number(path) -> dict:
    """task key -> every number a stored verdict holds (all prediction fields), for a bit-for-bit comparison."""
    with ResultStore(path) as store:
        return {r.task_key: (r.seed, [{key: value for key, value in p.to_dict().items()
                                       if isinstance(value, (int, float))} for p in r.verdict.predictions])
                for r in store.records()}


@pytest.mark.slow  # about 22 s: a dask cluster; serial against process-pool numbers run by default
@pytest.mark.filterwarnings("ignore:Port 8787 is already in use:UserWarning")  # a cluster of another test has it
def test_dask_workers_that_ran_other_theorems_store_the_serial_numbers_bit_for_bit(tmp_path):
    """Process-wide state must not change a number: the same tasks, serially in this (long-lived) test process and on
    a LocalCluster whose workers first ran other theorems (mpmath at other precisions, other caches filled)."""
    distributed = pytest.importorskip("dask.distributed")
    grid = {"rho": ["-0.9", "0.3", "0.9"], "activation": ["relu", "tanh", "erf"]}
    tasks = plan("dual-kernel", grid, 1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        warm_up = plan("srf-constants", {"teacher": ["tanh", "erf"]}, 1, fidelity="quick") \
            + plan("population-loss", {"model": ["relu", "debiased"]}, 1, fidelity="quick")
        sweep(warm_up, tmp_path / "warm.sqlite", executor="dask", scheduler=cluster.scheduler_address, progress=False)
        sweep(tasks, tmp_path / "dask.sqlite", executor="dask", scheduler=cluster.scheduler_address, progress=False)
    sweep(tasks, tmp_path / "serial.sqlite", executor="serial", progress=False)
    assert _every_number(tmp_path / "dask.sqlite") == _every_number(tmp_path / "serial.sqlite")


def test_cli_sweep_of_a_statement_known_to_fail_exits_as_for_a_pass_when_it_fails(tmp_path, capsys):
    # elasticity-polynomial states the paper's c_1^2, which its check refutes (Theorem.expected_failure)
    code = main(["sweep", "elasticity-polynomial", "--seeds", "1", "--executor", "serial",
                 "--store", str(tmp_path / "known.sqlite")])
    captured = capsys.readouterr()
    assert code == 0 and "1 fail" in captured.out and "failed as expected" in captured.err


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from Linux's /proc")
def test_sigterm_stops_the_worker_processes_too(tmp_path):
    """SIGTERM to `thmcheck calibrate` unwinds like Ctrl-C: it exits 143 and its pool's workers do not run on."""
    command = [sys.executable, "-m", "checkers.cli", "calibrate", "collapse-training", "--seeds", "4", "--workers",
               "2", "--store", str(tmp_path / "s.sqlite"), "--json"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    children_file = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    deadline = time.monotonic() + 60
    while len(children_file.read_text().split()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(3)  # the workers have started a task (each takes tens of seconds)
    children = [int(pid) for pid in children_file.read_text().split()]
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM and "terminated" in err

    def running(pid):
        try:
            return Path(f"/proc/{pid}/stat").read_text().split()[2] not in ("Z", "X")
        except FileNotFoundError:
            return False
    time.sleep(1)
    assert len(children) >= 2 and not [pid for pid in children if running(pid)]
