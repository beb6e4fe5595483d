"""A resumable result store for sweeps: one SQLite file, one row per finished task, each committed atomically.

A task is identified by its key (theorem id, parameters, overrides, seed index, fidelity, false-fail
rate, mutant), serialized as canonical JSON; the key is the table's primary key, so a task is stored at
most once, and a sweep restarted after SIGKILL skips what is there and loses nothing that was committed.
Rows also hold the derived seed, the code version that produced them and the verdict as JSON.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

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
             paired: bool = False) -> str:
    """Canonical JSON of everything that determines a task's result (the code aside). `paired` marks a mutant's
    task that reads the true statement's draws (`checkers.sweep.Task.paired`); other keys are as they always were."""
    identity = {"theorem": theorem, "parameters": dict(sorted(parameters.items())),
                "overrides": dict(sorted((overrides or {}).items())), "seed_index": seed_index,
                "fidelity": fidelity, "false_fail_rate": false_fail_rate, "mutant": mutant}
    if paired:
        identity["draws"] = "paired"
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
    verdict: dict
    code_version: str
    finished_at: float


class ResultStore:
    """SQLite-backed; safe to open from one writer while readers look (WAL journal)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(self.path, timeout=30)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=FULL")
        self._connection.execute(SCHEMA)
        self._connection.commit()

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def keys(self, *, finished_only: bool = False) -> set[str]:
        """Stored task keys; with `finished_only`, those with a verdict (not an error, which a rerun retries)."""
        query = "SELECT task_key FROM results" + (" WHERE outcome != 'error'" if finished_only else "")
        return {row[0] for row in self._connection.execute(query)}

    def add(self, key: str, theorem: str, parameters: Mapping[str, Any], seed_index: int, seed: int,
            fidelity: str, verdict: dict, version: str) -> bool:
        """Store one finished task in its own transaction; False if it was already there with a verdict (a stored
        error is replaced)."""
        with self._connection:  # commits, or rolls back on error
            self._connection.execute("DELETE FROM results WHERE task_key = ? AND outcome = 'error'", (key,))
            cursor = self._connection.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, theorem, json.dumps(dict(parameters), sort_keys=True), seed_index, seed, fidelity,
                 verdict["verdict"], json.dumps(verdict, sort_keys=True, allow_nan=False), version, time.time()))
        return cursor.rowcount == 1

    def records(self, theorems: Iterable[str] | None = None) -> list[Record]:
        query = "SELECT * FROM results"
        rows = self._connection.execute(query + " ORDER BY theorem, parameters, seed_index").fetchall()
        wanted = None if theorems is None else set(theorems)
        return [Record(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5], row[6], json.loads(row[7]),
                       row[8], row[9]) for row in rows if wanted is None or row[1] in wanted]

    def count(self) -> int:
        return self._connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]
