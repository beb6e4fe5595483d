"""A resumable result store for sweeps: one SQLite file, one row per finished task, each committed atomically.

A task is identified by its key (theorem id, parameters, overrides, seed index, fidelity, false-fail
rate, mutant), serialized as canonical JSON; the key is the table's primary key, so a task is stored at
most once, and a sweep restarted after SIGKILL skips what is there and loses nothing that was committed.
Rows also hold the derived seed, the code version that produced them and the verdict as JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from checkers.verdict import Verdict
from theorems.errors import EnvironmentFault

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    task_key     TEXT PRIMARY KEY,
    theorem      TEXT NOT NULL,
    parameters   TEXT NOT NULL,
    seed_index   INTEGER NOT NULL,
    seed         INTEGER NOT NULL,
    fidelity     TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    verdict      TEXT NOT NULL,
    code_version TEXT NOT NULL,
    finished_at  REAL NOT NULL
)
"""


def task_key(theorem: str, parameters: Mapping[str, str], seed_index: int, *, fidelity: str,
             false_fail_rate: float, overrides: Mapping[str, str] | None = None, mutant: str | None = None,
             paired: bool = False, backend: str = "numpy") -> str:
    """Canonical JSON of everything that determines a task's result (the code aside). `paired` marks a mutant's
    task that reads the true statement's draws (`checkers.sweep.Task.paired`), `backend` one run on another array
    library than numpy; other keys are as they always were."""
    identity = {"theorem": theorem, "parameters": dict(sorted(parameters.items())),
                "overrides": dict(sorted((overrides or {}).items())), "seed_index": seed_index,
                "fidelity": fidelity, "false_fail_rate": false_fail_rate, "mutant": mutant}
    if paired:
        identity["draws"] = "paired"
    if backend != "numpy":
        identity["backend"] = backend
    return json.dumps(identity, sort_keys=True, separators=(",", ":"))


def code_version() -> str:
    """The package version and a digest of the source of `theorems` and `checkers` (so that results from
    edited code are told apart even without a new version number)."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent
    for package in ("theorems", "checkers"):
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    try:
        version = metadata.version("thmcheck")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"{version}+{digest.hexdigest()[:12]}"


@dataclass(frozen=True)
class Record:
    task_key: str
    theorem: str
    parameters: dict
    seed_index: int
    seed: int
    fidelity: str
    outcome: str
    verdict: Verdict
    code_version: str
    finished_at: float


COLUMNS = ("task_key", "theorem", "parameters", "seed_index", "seed", "fidelity", "outcome", "verdict", "code_version",
           "finished_at")


class ResultStore:
    """SQLite-backed; safe to open from one writer while readers look (WAL journal).

    `readonly` opens an existing store without changing it (no table created, journal mode left as it is), as a
    report reads it. A path that is a folder, a file that is not SQLite, an SQLite database that is not a thmcheck
    store, a store that is corrupted, and a disk or folder that cannot be written are refused as `EnvironmentFault`
    with the path, never written to."""

    def __init__(self, path: str | Path, *, readonly: bool = False):
        self.path = Path(path)
        if self.path.is_dir():
            raise EnvironmentFault(f"store {str(self.path)!r} is a folder; give a file name such as "
                                   f"{str(self.path / 'results.sqlite')!r}")
        if readonly and not self.path.is_file():
            raise EnvironmentFault(f"no store at {str(self.path)!r}")
        with self._faults("open"):
            if readonly:
                # with no write-ahead log beside it no writer is active: read it as immutable, which creates no
                # -shm or -wal file beside it; with one, read alongside the writer through its log
                active = self.path.with_name(self.path.name + "-wal").exists()
                mode = "mode=ro" if active else "immutable=1"
                self._connection = sqlite3.connect(f"{self.path.resolve().as_uri()}?{mode}", uri=True, timeout=30)
                self._check_schema(required=True)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._connection = sqlite3.connect(self.path, timeout=30)
                self._check_schema(required=False)
                self._connection.execute("PRAGMA journal_mode=WAL")
                self._connection.execute("PRAGMA synchronous=FULL")
                self._connection.execute(SCHEMA)
                self._connection.commit()

    @contextlib.contextmanager
    def _faults(self, doing: str):
        """SQLite's and the file system's errors as a fault of the store, naming it (a stale connection is closed)."""
        try:
            yield
        except (sqlite3.DatabaseError, OSError) as error:
            connection = getattr(self, "_connection", None)
            if connection is not None and doing == "open":
                connection.close()
            raise EnvironmentFault(f"cannot {doing} the store {str(self.path)!r}: {error}") from None

    def _check_schema(self, *, required: bool) -> None:
        """Refuse a database that is not a thmcheck store: one with tables but no results table of our columns (an
        empty database, or a new file, is fine to write into unless `required`)."""
        tables = {row[0] for row in self._connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "results" not in tables:
            if required or tables:
                raise sqlite3.DatabaseError("not a thmcheck store (it has no results table"
                                            + (f"; its tables: {', '.join(sorted(tables))}" if tables else "") + ")")
            return
        columns = tuple(row[1] for row in self._connection.execute("PRAGMA table_info(results)"))
        if columns != COLUMNS:
            raise sqlite3.DatabaseError(f"not a thmcheck store (its results table has columns {', '.join(columns)})")

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def keys(self, *, finished_only: bool = False, version: str | None = None) -> set[str]:
        """Stored task keys; with `finished_only`, those with a verdict (not an error, which a rerun retries); with
        `version`, those this code version stored (a result of other code is not this code's to reuse)."""
        conditions = (["outcome != 'error'"] if finished_only else []) + (["code_version = ?"] if version else [])
        query = "SELECT task_key FROM results" + (" WHERE " + " AND ".join(conditions) if conditions else "")
        with self._faults("read"):
            return {row[0] for row in self._connection.execute(query, (version,) if version else ())}

    def add(self, key: str, theorem: str, parameters: Mapping[str, Any], seed_index: int, seed: int,
            fidelity: str, verdict: Verdict, version: str) -> bool:
        """Store one finished task in its own transaction; False if it was already there with a verdict of this code
        version (a stored error, or a result of other code, is replaced)."""
        with self._faults("write to"), self._connection:  # commits, or rolls back on error
            self._connection.execute(
                "DELETE FROM results WHERE task_key = ? AND (outcome = 'error' OR code_version != ?)", (key, version))
            cursor = self._connection.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, theorem, json.dumps(dict(parameters), sort_keys=True), seed_index, seed, fidelity,
                 verdict.outcome, json.dumps(verdict.to_dict(), sort_keys=True, allow_nan=False), version,
                 time.time()))
        return cursor.rowcount == 1

    def records(self, theorems: Iterable[str] | None = None) -> list[Record]:
        query = "SELECT * FROM results"
        with self._faults("read"):
            rows = self._connection.execute(query + " ORDER BY theorem, parameters, seed_index").fetchall()
        wanted = None if theorems is None else set(theorems)
        return [self._record(row) for row in rows if wanted is None or row[1] in wanted]

    def _record(self, row) -> Record:
        try:
            parameters, verdict = json.loads(row[2]), json.loads(row[7])
            if not isinstance(parameters, dict) or not isinstance(verdict, dict) or not (
                    {"outcome", "verdict"} & set(verdict)):
                raise ValueError("its parameters or verdict is not a thmcheck record")
            return Record(row[0], row[1], parameters, int(row[3]), int(row[4]), row[5], row[6],
                          Verdict.from_dict(verdict), row[8], float(row[9]))
        except (ValueError, TypeError, KeyError) as error:
            raise EnvironmentFault(f"the store {str(self.path)!r} has a corrupted row (task {str(row[0])[:80]}): "
                                   f"{error}") from None

    def count(self) -> int:
        with self._faults("read"):
            return self._connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]
