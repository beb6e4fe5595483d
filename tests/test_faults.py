"""Faults of the user's files, folders, disks, streams, plugins and signals: exit 2 with one line naming what, never
an internal error (exit 4), and nothing of the user's changed. Each runs the command as a user would."""

import contextlib
import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkers.store import ResultStore

ROOT = Path(__file__).resolve().parent.parent


def thmcheck(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checkers.cli", *arguments], capture_output=True, text=True,
                          timeout=300)


def assert_users_fault(result: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 2, one line on stderr beginning 'thmcheck: error:' and naming each of `words`, no traceback."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith("thmcheck: error:"), result.stderr
    assert all(word in lines[0] for word in words), (words, lines[0])


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A real store of one quick dual-kernel task."""
    path = tmp_path_factory.mktemp("store") / "results.sqlite"
    result = thmcheck("sweep", "dual-kernel", "--executor", "serial", "--store", str(path))
    assert result.returncode == 0, result.stderr
    return path


def _digest(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_a_report_reads_its_store_without_changing_it(store, tmp_path):
    before = _digest(store)
    result = thmcheck("report", "--from", str(store), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert _digest(store) == before
    assert sorted(p.name for p in store.parent.iterdir()) == [store.name]  # no -wal or -shm left beside it


def test_stores_that_are_not_thmcheck_stores_are_refused(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE people (name TEXT)")
    foreign_digest = _digest(foreign)
    for path in (text, foreign):
        assert_users_fault(thmcheck("report", "--from", str(path), "--out", str(tmp_path / "out")), str(path))
        assert_users_fault(thmcheck("sweep", "dual-kernel", "--executor", "serial", "--store", str(path)), str(path))
    assert _digest(foreign) == foreign_digest  # no table added to somebody else's database
    assert_users_fault(thmcheck("sweep", "dual-kernel", "--executor", "serial", "--store", str(tmp_path)),
                       "is a folder")
    assert not (tmp_path / "out").exists()  # a failed report leaves no folder behind


def test_a_corrupted_or_truncated_store_is_refused(store, tmp_path):
    truncated = tmp_path / "truncated.sqlite"
    truncated.write_bytes(store.read_bytes()[:1500])
    assert_users_fault(thmcheck("report", "--from", str(truncated), "--out", str(tmp_path / "a")), str(truncated))
    bad_row = tmp_path / "bad-row.sqlite"
    bad_row.write_bytes(store.read_bytes())
    with sqlite3.connect(bad_row) as connection:
        connection.execute("UPDATE results SET verdict = '{not json'")
    assert_users_fault(thmcheck("report", "--from", str(bad_row), "--out", str(tmp_path / "b")), "corrupted row")


def test_report_out_must_be_a_folder(store, tmp_path):
    existing = tmp_path / "a-file"
    existing.write_text("keep me")
    assert_users_fault(thmcheck("report", "--from", str(store), "--out", str(existing)), "is a file")
    assert existing.read_text() == "keep me"


def test_a_full_disk_or_a_closed_output_is_said():
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "checkers.cli", "list"], stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=120)
    assert result.returncode == 2 and "No space left on device" in result.stderr
    result = subprocess.run([sys.executable, "-m", "checkers.cli", "list"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=lambda: os.close(1))
    assert result.returncode == 2 and "standard output is closed" in result.stderr


def test_bad_plugins_are_the_users_and_named(tmp_path):
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(0)\n")
    raises = tmp_path / "raises.py"
    raises.write_text("x = 1\nraise RuntimeError('boom')\n")
    assert_users_fault(thmcheck("--plugin", "", "list"), "empty")
    assert_users_fault(thmcheck("--plugin", str(exits), "list"), str(exits), "sys.exit(0)")
    assert_users_fault(thmcheck("--plugin", str(raises), "list"), str(raises), "RuntimeError", "boom", ":2)")
    missing = thmcheck("--plugin", str(tmp_path / "missing.py"), "list")  # the user's path, not the plugin's error
    assert_users_fault(missing, "missing.py", "does not exist")
    assert "raised" not in missing.stderr
    assert_users_fault(thmcheck("--plugin", str(tmp_path), "list"))  # a folder: no .py, so not importable by name


def test_a_fidelity_a_check_lacks_is_refused_before_any_estimate_or_table():
    """spike-outlier at paper fidelity prints its estimate; mixture-means does not reach its source's scale: one line,
    nothing else."""
    result = thmcheck("check", "mixture-means", "spike-outlier", "--fidelity", "paper")
    assert_users_fault(result, "mixture-means at paper fidelity: not offered")
    assert result.stdout == ""


def test_a_repeated_parameter_is_refused_not_overwritten():
    assert_users_fault(thmcheck("show", "dual-kernel", "--param", "rho=0.1", "--param", "rho=0.2"),
                       "--param rho given twice")


def test_a_sweep_too_large_to_plan_is_refused_before_planning():
    started = time.monotonic()
    assert_users_fault(thmcheck("sweep", "dual-kernel", "--grid", "rho=0.1,0.2", "--seeds", "100000"),
                       "200,000 tasks")
    assert time.monotonic() - started < 60


def test_an_unreachable_scheduler_is_refused_and_leaves_no_store(tmp_path):
    pytest.importorskip("dask.distributed")
    path = tmp_path / "s.sqlite"
    assert_users_fault(thmcheck("sweep", "dual-kernel", "--scheduler", "tcp://127.0.0.1:9", "--store", str(path)),
                       "tcp://127.0.0.1:9")
    assert not path.exists()


def test_no_progress_bar_is_drawn_into_a_log_file(tmp_path):
    with open(tmp_path / "log", "w") as log:
        result = subprocess.run([sys.executable, "-m", "checkers.cli", "sweep", "dual-kernel", "--executor", "serial",
                                 "--store", str(tmp_path / "s.sqlite")], stdout=subprocess.DEVNULL, stderr=log,
                                timeout=300)
    assert result.returncode == 0 and (tmp_path / "log").read_text() == ""


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from Linux's /proc")
def test_an_interrupted_sweep_says_what_it_stored_and_how_to_resume(tmp_path):
    path = tmp_path / "s.sqlite"
    command = [sys.executable, "-m", "checkers.cli", "sweep", "collapse-training", "--seeds", "6", "--workers", "2",
               "--store", str(path)]
    # SIGINT as a terminal delivers it, even where the tests run as a background job (tests/test_executors.py)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    deadline = time.monotonic() + 60
    while len(children.read_text().split()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    with ResultStore(path, readonly=True) as opened:
        stored = len(opened.keys())
    assert f"stopped with {stored} of 6 tasks stored in {path}" in err and "the same command resumes" in err
    assert "thmcheck sweep collapse-training --seeds 6" in err
    # one line, after the announcement of the work ahead where it is estimated above a minute
    announced, _, said = err.rpartition("thmcheck: interrupted; stopped with")
    assert said.count("\n") == 1 and announced in ("", announced_work(announced)), err


def test_a_plot_path_that_is_a_folder_is_refused_before_any_computation(tmp_path):
    assert_users_fault(thmcheck("oracle", "giant-step-risk", "--vary", "sample_ratio=1:2:2", "--plot", str(tmp_path)),
                       "is a folder")
    assert not tmp_path.with_suffix(".png").exists()  # matplotlib would have written FOLDER.png beside it


def _mounted(folder: Path, *options: str) -> bool:
    """Mount a small tmpfs at `folder` (a read-only or full disk of the user's); False where this process may not."""
    folder.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(("size=48k", *options)), "tmpfs", str(folder)],
                          capture_output=True).returncode == 0


@pytest.fixture
def disk(tmp_path):
    """A 48 KiB tmpfs, unmounted afterwards (skipped where mounting needs privileges this process lacks)."""
    folder = tmp_path / "disk"
    if not _mounted(folder):
        pytest.skip("mounting a tmpfs needs root (CAP_SYS_ADMIN); CI runs as root")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_a_read_only_disk_is_said_for_stores_reports_and_plots(store, disk, tmp_path):
    (disk / "old.sqlite").write_bytes(store.read_bytes())
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    for path in (disk / "new.sqlite", disk / "old.sqlite"):
        assert_users_fault(thmcheck("sweep", "dual-kernel", "--executor", "serial", "--seeds", "2", "--store",
                                    str(path)), str(path))
    assert_users_fault(thmcheck("report", "--from", str(store), "--out", str(disk / "out")), str(disk / "out"))
    assert_users_fault(thmcheck("oracle", "giant-step-risk", "--vary", "sample_ratio=1:2:2", "--plot",
                                str(disk / "curve.png")), str(disk / "curve.png"))
    records = thmcheck("calibrate", "balanced-collapse", "--seeds", "1", "--record", "--records", str(disk / "r.json"))
    assert_users_fault(records, str(disk / "r.json"))
    assert records.stdout == ""  # refused before its runs, not after them
    read = thmcheck("report", "--from", str(disk / "old.sqlite"), "--out", str(tmp_path / "report"))
    assert read.returncode == 0, read.stderr  # reading a store on a read-only disk is fine
    default = subprocess.run([sys.executable, "-m", "checkers.cli", "sweep", "dual-kernel", "--executor", "serial"],
                             capture_output=True, text=True, timeout=300, cwd=disk)
    assert_users_fault(default, "thmcheck-results.sqlite")


def test_a_full_disk_is_said_for_stores_and_reports(store, disk):
    (disk / "filler").write_bytes(bytes(40 * 1024))
    assert_users_fault(thmcheck("sweep", "dual-kernel", "--executor", "serial", "--seeds", "3", "--store",
                                str(disk / "s.sqlite")), str(disk / "s.sqlite"))
    assert_users_fault(thmcheck("report", "--from", str(store), "--out", str(disk / "out")), "No space left")


def _filled(disk: Path) -> None:
    """Fill `disk` to its last byte."""
    with contextlib.suppress(OSError), open(disk / "filler", "wb") as filler:  # the close's flush may fail too
        filler.write(bytes(64 * 1024))


def test_a_full_disk_leaves_the_users_records_document_snapshots_and_pages_as_they_were(disk):
    """calibrate --record left 4096 bytes of invalid JSON and lost the old rows; calibration --write truncated the
    document; contract --update-snapshots and notebooks --out said "writing the output" without the file, and the
    pages were left at 0 bytes."""
    from checkers import calibration_records

    kept = disk / "rec.json"
    rows = json.loads(ROOT.joinpath("docs", "calibration.json").read_text())["records"][:2]  # rows to keep
    kept.write_text(json.dumps({"records": rows}, indent=1))
    document = disk / "doc.md"
    document.write_text("".join(f"{calibration_records.TABLE_START.format(which=which)}\n"
                                f"{calibration_records.TABLE_END}\n" for which in calibration_records.TABLES))
    (disk / "snapshots").mkdir()
    before = {path: _digest(path) for path in (kept, document)}
    _filled(disk)
    result = thmcheck("calibrate", "balancedness-identity", "--seeds", "1", "--executor", "serial", "--record",
                      "--records", str(kept))
    assert_users_fault(result, str(kept), "No space left on device", "left as it was")
    assert_users_fault(thmcheck("calibration", "--write", str(document)), str(document), "No space left on device")
    assert {path: _digest(path) for path in (kept, document)} == before
    assert_users_fault(thmcheck("contract", "dual-kernel", "--no-runs", "--update-snapshots", "--snapshots",
                                str(disk / "snapshots")), "constants-dual-kernel.json", "No space left on device")
    assert list((disk / "snapshots").iterdir()) == []
    notebook = disk.parent / "small.py"  # a notebook of the user's, quicker to run than the project's
    notebook.write_text("import marimo\napp = marimo.App()\n\n@app.cell\ndef _():\n    x = 1\n    return\n")
    pages = disk / "pages"
    assert_users_fault(thmcheck("notebooks", "--out", str(pages), str(notebook)), "small.html",
                       "No space left on device")
    assert [page for page in pages.iterdir() if page.stat().st_size == 0] == []


def test_a_standard_error_that_cannot_be_written_keeps_the_exit_code():
    """`check ... 2>/dev/full` exited 1, which reads as a failed verdict: what the command could not say on stderr
    is lost, and its exit code is the verdict's or the fault's."""
    with open("/dev/full", "w") as full:
        refused = subprocess.run([sys.executable, "-m", "checkers.cli", "check", "no-such-theorem"], stderr=full,
                                 stdout=subprocess.DEVNULL, timeout=120)
        clamped = subprocess.run([sys.executable, "-m", "checkers.cli", "check", "dual-kernel", "--fidelity", "quick",
                                  "--workers", "1000"], stderr=full, stdout=subprocess.DEVNULL, timeout=300)
    assert (refused.returncode, clamped.returncode) == (2, 0)


def test_a_store_with_other_columns_is_refused(store, tmp_path):
    renamed = tmp_path / "renamed.sqlite"
    renamed.write_bytes(store.read_bytes())
    with sqlite3.connect(renamed) as connection:
        connection.execute("ALTER TABLE results RENAME COLUMN verdict TO v")
    assert_users_fault(thmcheck("report", "--from", str(renamed), "--out", str(tmp_path / "out")), "not a thmcheck")
    assert_users_fault(thmcheck("sweep", "dual-kernel", "--executor", "serial", "--store", str(renamed)),
                       "not a thmcheck")


@pytest.mark.slow
def test_a_true_statement_at_the_edge_of_its_interval_passes():
    """The Hermite-series identity at degree 400 sat 1e-21 outside its interval's end: round-off, not a failure (the
    cause, Target.around rounding its half-width at 15 digits, has a fast test of its own; this runs the command)."""
    result = thmcheck("check", "population-loss", "--fidelity", "quick", "--param", "dimension=64", "--param",
                      "student_width=20", "--param", "teacher_width=20", "--param", "degree=400")
    assert result.returncode == 0, result.stdout[-2000:]


def test_calibrate_validates_every_theorem_before_it_runs_any(tmp_path):
    store = tmp_path / "c.sqlite"
    assert_users_fault(thmcheck("calibrate", "dual-kernel", "balancedness-identity", "--param", "rho=0.5", "--seeds",
                                "1", "--executor", "serial", "--store", str(store)), "balancedness-identity", "rho")
    assert not store.exists()  # dual-kernel's tasks did not run first


@pytest.mark.parametrize("arguments", [
    ("reproduce", "giant-step-risk", "--out", "OUT", "--values", ""), ("reproduce", "giant-step-risk", "--out", ""),
    ("report", "dual-kernel", "--out", ""), ("notebooks", "--out", ""),
    ("sweep", "dual-kernel", "--scheduler", "", "--store", "STORE"), ("sweep", "dual-kernel", "--store", " "),
    ("calibrate", "dual-kernel", "--record", "--records", "")], ids=lambda arguments: " ".join(arguments[:1]))
def test_an_empty_value_is_refused_never_read_as_not_given(tmp_path, arguments):
    """--values '' ran the figure's defaults, --out '' wrote into the current folder and --scheduler '' ran on local
    processes."""
    arguments = [str(tmp_path / word.lower()) if word in ("OUT", "STORE") else word for word in arguments]
    result = thmcheck(*arguments)
    assert_users_fault(result, "an empty value was given")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", ["{", "[1, 2]", '{"c1": 3}'], ids=("truncated", "a list", "no fields"))
def test_a_corrupt_snapshot_is_the_users_file_not_an_internal_error(tmp_path, content):
    (tmp_path / "constants-dual-kernel.json").write_text(content)
    result = thmcheck("contract", "dual-kernel", "--no-runs", "--snapshots", str(tmp_path))
    assert_users_fault(result, "constants-dual-kernel.json")


def test_a_port_that_accepts_and_stays_silent_is_no_scheduler(tmp_path, monkeypatch, capsys):
    """A dask scheduler writes its handshake as soon as it accepts; a silent port held sweep waiting past 300 s."""
    import socket
    import threading

    from checkers import executors
    from checkers.cli import main

    server = socket.create_server(("127.0.0.1", 0))
    held = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    monkeypatch.setattr(executors, "CONNECT_SECONDS", 1)
    started = time.perf_counter()
    code = main(["sweep", "dual-kernel", "--scheduler", f"tcp://127.0.0.1:{server.getsockname()[1]}",
                 "--store", str(tmp_path / "s.sqlite")])
    error = capsys.readouterr().err
    server.close()
    assert code == 2 and "sent no dask handshake within 1 s" in error and time.perf_counter() - started < 30
    assert not (tmp_path / "s.sqlite").exists()


def announced_work(text: str) -> str:
    """`text` where it is one line announcing a sweep's work ahead (`checkers.sweep.announce`), else ''."""
    return text if re.fullmatch(r"thmcheck: \d+ tasks? to run, about [^\n]*\n", text) else ""
