"""checkers.files: a kept file is rewritten whole or not at all, one writer at a time; an unwritable one is refused
before work."""

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkers.files import locked, save_figure, writable, write_atomically
from theorems.errors import EnvironmentFault

ROOT = Path(__file__).resolve().parent.parent


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path, monkeypatch):
    kept = tmp_path / "rows.json"
    kept.write_text('{"records": []}\n')

    def full(*_):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(EnvironmentFault, match="rows.json.*No space left on device.*left as it was"):
        write_atomically(kept, "x" * 10_000)
    assert kept.read_text() == '{"records": []}\n' and [p.name for p in tmp_path.iterdir()] == ["rows.json"]
    monkeypatch.undo()
    write_atomically(kept, "new\n")
    assert kept.read_text() == "new\n"


def test_a_folder_a_missing_folder_or_a_read_only_one_is_refused_by_name(tmp_path):
    with pytest.raises(EnvironmentFault, match="is a folder"):
        writable(tmp_path, "the records file")
    with pytest.raises(EnvironmentFault, match="its folder does not exist"):
        writable(tmp_path / "nope" / "rows.json", "the records file")
    writable(tmp_path / "rows.json", "the records file")
    if os.geteuid() != 0:  # root writes anywhere
        (tmp_path / "ro").mkdir(mode=0o500)
        with pytest.raises(EnvironmentFault, match="permission denied"):
            writable(tmp_path / "ro" / "rows.json", "the records file")


def test_two_processes_appending_under_the_lock_keep_every_row(tmp_path):
    """Each process reads the list, waits, and writes it back with its own row: without the lock one would lose the
    other's row."""
    shared = tmp_path / "rows.json"
    shared.write_text("[]")
    script = ("import json, sys, time\nfrom pathlib import Path\nfrom checkers.files import locked, write_atomically\n"
              "path = Path(sys.argv[1])\nwith locked(path):\n    rows = json.loads(path.read_text())\n"
              "    time.sleep(0.5)\n    write_atomically(path, json.dumps(rows + [sys.argv[2]]))\n")
    writers = [subprocess.Popen([sys.executable, "-c", script, str(shared), name], cwd=ROOT) for name in "ab"]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0]
    assert sorted(json.loads(shared.read_text())) == ["a", "b"]
    with locked(shared):  # and the lock is free again
        pass


def test_a_figure_is_written_whole_or_not_at_all(tmp_path):
    from matplotlib.figure import Figure

    figure = Figure()
    figure.subplots().plot([0, 1], [0, 1])
    written = save_figure(figure, tmp_path / "line.svg")
    assert written.read_text().startswith("<?xml") and [p.name for p in tmp_path.iterdir()] == ["line.svg"]
    with pytest.raises(EnvironmentFault, match="cannot write .*missing/line.png"):
        save_figure(figure, tmp_path / "missing" / "line.png")
    assert [p.name for p in tmp_path.iterdir()] == ["line.svg"]
