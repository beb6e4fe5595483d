"""The committed calibration records (docs/calibration.json): what each theorem's calibration measured, keyed by
the code it measured, so a row whose theorem has changed since is known to be stale.

A record is one `Calibration` (theorem, parameter point, fidelity) with the hash of the code it ran on: the
theorem's module and its checker's, and every project module they import in turn, except the shared engine
(the top-level modules of `checkers` and `theorems.statement`), each without its docstrings; what a module imports
from the engine counts by name, not by the engine module that holds it. The shared exact numerics (the Hermite
tables, their quadrature and the quantities they derive) are keyed by what they give the theorem instead: its
constants' snapshot at the defaults (tests/snapshots/constants-<id>.json, 30 digits, which the contract test holds
to the code). A change to the engine that moves a number is caught by comparing `check --all --json` before and
after it, not by these hashes. Rows measured before the records existed are kept as their markdown cells
(docs/calibration.md names their trees) and are stale.
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

from checkers import catalog
from checkers.calibrate import (
    MARKDOWN_HEADER,
    Calibration,
    markdown_cells,
    near_column,
    point_label,
    pooled_column,
    table_near,
)
from checkers.files import locked, writable, write_atomically
from theorems.errors import InvalidInput

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "docs" / "calibration.json"
DOCUMENT = ROOT / "docs" / "calibration.md"
ENGINE = ("theorems.statement", "theorems.errors")  # and every top-level module of `checkers`
# keyed by the constants' snapshot
EXACT_NUMERICS = ("theorems.hermite", "theorems.quantity", "theorems.arb_quadrature")
SNAPSHOTS = ROOT / "tests" / "snapshots"
PROJECT_PACKAGES = ("theorems", "checkers")
FIDELITY_ORDER = ("quick", "default", "high", "paper")


def _is_engine(module: str) -> bool:
    parts = module.split(".")
    if module in ENGINE or module in EXACT_NUMERICS or parts == ["checkers"] or parts == ["theorems"]:
        return True
    return parts[0] == "checkers" and len(parts) == 2 and not _is_package(module)


@cache
def _is_package(module: str) -> bool:
    return (ROOT.joinpath(*module.split(".")) / "__init__.py").is_file()


@cache
def _source(module: str) -> Path | None:
    """The file of a project module, found on disk without importing it (nor the packages above it)."""
    parts = module.split(".")
    if parts[0] not in PROJECT_PACKAGES:
        return None
    for path in (ROOT.joinpath(*parts).with_suffix(".py"), ROOT.joinpath(*parts) / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def _imports(module: str, path: Path) -> set[str]:
    """The project modules `module`'s source imports (absolute and relative), by name."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # `from package import module`
    return {name for name in found if name.split(".")[0] in PROJECT_PACKAGES and _source(name) is not None}


def hashed_modules(theorem_id: str) -> list[str]:
    """The modules a theorem's records are keyed by: its two modules and what they import, less the engine."""
    entry = (catalog.entries() or {}).get(theorem_id)
    if entry is None:
        raise InvalidInput(f"{theorem_id!r} is not a built-in theorem: only those have calibration records")
    pending = [f"{package}.{entry.family}.{entry.module}" for package in PROJECT_PACKAGES]
    seen: set[str] = set()
    while pending:
        module = pending.pop()
        if module in seen or _is_engine(module):
            continue
        seen.add(module)
        pending.extend(_imports(module, _source(module)))
    return sorted(seen)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module an `import from` names, relative ones resolved against `package`."""
    if not node.level:
        return node.module or ""
    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(anchor + ([node.module] if node.module else []))


@cache
def _code(module: str, path: Path) -> str:
    """A module's syntax tree without its docstrings: what it computes, not how it is worded or laid out (comments
    and layout are not in the tree). What it imports from the engine counts by name only, sorted, not by the engine
    module that holds it: the engine is not hashed, so a name moved between its modules changes no row."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    from_engine = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
                and isinstance(node.body[0].value.value, str):
            node.body[0] = ast.Pass()
        if hasattr(node, "body") and isinstance(node.body, list):
            kept = []
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and _is_engine(_absolute(statement, package)):
                    from_engine += [f"{alias.name} as {alias.asname or alias.name}" for alias in statement.names]
                else:
                    kept.append(statement)
            node.body = kept or [ast.Pass()]
    return ast.dump(tree, include_attributes=False) + "\0from the engine: " + ", ".join(sorted(from_engine))


@cache  # per process: a command that records hashes its theorems before it runs them
def content_hash(theorem_id: str) -> str:
    """The first 16 hex digits of the SHA-256 of the hashed modules' names and code (`_code`: a docstring's words
    leave a row current; a statement's or a mutant's description, which are strings in the code, do not), and of
    the theorem's constants' snapshot where it has one."""
    digest = hashlib.sha256()
    for module in hashed_modules(theorem_id):
        digest.update(module.encode() + b"\0" + _code(module, _source(module)).encode() + b"\0")
    snapshot = SNAPSHOTS / f"constants-{theorem_id}.json"
    if snapshot.is_file():
        digest.update(b"constants\0" + json.dumps(json.loads(snapshot.read_text()), sort_keys=True).encode())
    return digest.hexdigest()[:16]


def _tree() -> str | None:
    """The commit the working tree is on, with '+' where it has uncommitted changes; None outside a checkout."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+" if dirty else "")


@dataclass(frozen=True)
class Record:
    """One recorded calibration, or a row measured before the records (`legacy`: its markdown cells)."""

    theorem: str
    parameters: dict
    fidelity: str
    content: str | None  # the content hash it ran on; None for a legacy row
    measured_on: str  # a date
    tree: str | None
    seeds: int
    paired: bool
    calibration: Calibration | None = None
    near: tuple[str, ...] = ()  # the claims table's near mutants when recorded (`calibrate.table_near`)
    legacy: tuple[str, ...] = ()  # a legacy row's cells after its seeds'

    @property
    def key(self) -> tuple:
        return (self.theorem, tuple(sorted(self.parameters.items())), self.fidelity)

    def stale(self) -> bool:
        """Measured on other content than the theorem's now (always, for a legacy row or a theorem gone)."""
        if self.content is None:
            return True
        try:
            return self.content != content_hash(self.theorem)
        except InvalidInput:
            return True

    def to_dict(self) -> dict:
        data = {"theorem": self.theorem, "parameters": self.parameters, "fidelity": self.fidelity,
                "seeds": self.seeds, "paired": self.paired, "content": self.content, "measured_on": self.measured_on,
                "tree": self.tree}
        if self.calibration is not None:
            data["near"] = list(self.near)
            data["calibration"] = self.calibration.to_dict()
        if self.legacy:
            data["legacy"] = list(self.legacy)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Record":
        calibration = data.get("calibration")
        return cls(theorem=data["theorem"], parameters=dict(data.get("parameters", {})), fidelity=data["fidelity"],
                   content=data.get("content"), measured_on=data["measured_on"], tree=data.get("tree"),
                   seeds=int(data["seeds"]), paired=bool(data["paired"]),
                   calibration=None if calibration is None else Calibration.from_dict(calibration),
                   near=tuple(data.get("near", ())), legacy=tuple(data.get("legacy", ())))


def record_of(calibration: Calibration) -> Record:
    """A record of a calibration just run on this tree."""
    return Record(theorem=calibration.theorem, parameters=dict(calibration.parameters),
                  fidelity=calibration.fidelity, content=content_hash(calibration.theorem),
                  measured_on=date.today().isoformat(), tree=_tree(), seeds=calibration.seeds,
                  paired=calibration.paired, calibration=calibration,
                  near=tuple(table_near(calibration)))


def load(path: Path | None = None) -> list[Record]:
    """The records in `path` (default `RECORDS`; none if it does not exist); a file that is not a records file is
    the user's error."""
    path = RECORDS if path is None else path
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text())
        return [Record.from_dict(item) for item in data["records"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InvalidInput(f"{path} is not a calibration records file ({type(error).__name__}: {error})") from None


def save(records: list[Record], path: Path | None = None) -> None:
    """Write the records (to `RECORDS` by default) sorted by theorem, point and fidelity (quick before default)."""
    path = RECORDS if path is None else path
    ordered = sorted(records, key=_order)
    text = json.dumps({"records": [r.to_dict() for r in ordered]}, indent=1, allow_nan=False)
    write_atomically(path, text + "\n")


def record(calibrations: list[Calibration], path: Path | None = None) -> list[Record]:
    """Add the calibrations' rows to the records in `path` (default `RECORDS`), each in place of its key's row, and
    return them all: read, merged and rewritten under a lock, so that two runs recording at once keep both rows."""
    path = RECORDS if path is None else path
    new = [record_of(calibration) for calibration in calibrations]
    with locked(path):
        records = merged(load(path), new)
        save(records, path)
    return records


def check_records_file(path: Path, *, must_exist: bool) -> None:
    """Refuse, before any run, a records file that is not one (`load`), is missing where rows are to be read from
    it, or could not be rewritten."""
    if must_exist and not path.is_file():
        raise InvalidInput(f"no calibration records file at {str(path)!r}")
    writable(path, "the records file")
    load(path)


def fidelity_rank(record: Record) -> int:
    return FIDELITY_ORDER.index(record.fidelity) if record.fidelity in FIDELITY_ORDER else len(FIDELITY_ORDER)


def _order(record: Record) -> tuple:
    """Records and rows by theorem, parameter point and fidelity (quick before default)."""
    return (record.theorem, sorted(record.parameters.items()), fidelity_rank(record))


def merged(records: list[Record], new: list[Record]) -> list[Record]:
    """`records` with each of `new` in place of the record of its key."""
    keys = {r.key for r in new}
    return [r for r in records if r.key not in keys] + list(new)


def stale(records: list[Record]) -> list[Record]:
    return [r for r in records if r.stale()]


TABLES = {"at the defaults": lambda r: not r.parameters, "away from the defaults": lambda r: bool(r.parameters)}
TABLE_START = ("<!-- calibration table {which}: generated from docs/calibration.json by `thmcheck calibration "
               "--write` -->")
TABLE_END = "<!-- end of calibration table -->"


def status(record: Record) -> str:
    """When and on what a row was measured, and whether it still describes the theorem."""
    if record.content is None:
        return "before the records: stale"
    tree = f" ({record.tree})" if record.tree else ""
    return f"{record.measured_on}{tree}: " + ("stale, the theorem changed since" if record.stale() else "current")


def markdown_row(record: Record) -> str:
    if record.calibration is None:
        label = point_label(record.theorem, record.parameters)
        seeds = f"{record.seeds} paired" if record.paired else str(record.seeds)
        cells = [label, record.fidelity, seeds, *record.legacy]
    else:
        near = near_column(record.calibration, list(record.near))  # the measured part from the record, as read now
        cells = [*markdown_cells(record.calibration), near, pooled_column(record.calibration)]
    return "| " + " | ".join([*cells, status(record)]) + " |"


def markdown_tables(records: list[Record]) -> dict[str, str]:
    """The table of each group of rows (`TABLES`), with a column saying whether each row is current."""
    header = MARKDOWN_HEADER + " measured on |"
    ordered = sorted(records, key=_order)
    return {which: "\n".join([header, "|---" * 9 + "|", *(markdown_row(r) for r in ordered if belongs(r))])
            for which, belongs in TABLES.items()}


def write_tables(document: Path, records: list[Record]) -> None:
    """Replace each generated table in `document` (between its markers) by the records' table."""
    text = document.read_text()
    for which, table in markdown_tables(records).items():
        start = TABLE_START.format(which=which)
        if start not in text or TABLE_END not in text.split(start, 1)[1]:
            raise InvalidInput(f"{document} has no table '{which}' between the markers {start!r} and {TABLE_END!r}")
        before, rest = text.split(start, 1)
        text = before + start + "\n" + table + "\n" + TABLE_END + rest.split(TABLE_END, 1)[1]
    write_atomically(document, text)


def tables_in(document: Path) -> dict[str, str]:
    """The generated tables as `document` has them now."""
    text = document.read_text()
    found = {}
    for which in TABLES:
        start = TABLE_START.format(which=which)
        if start in text:
            found[which] = text.split(start, 1)[1].split(TABLE_END, 1)[0].strip("\n")
    return found


def measured_near(theorem, records: list[Record] | None = None) -> dict | None:
    """The measured move of the mutant a theorem's nearness names (one that acts on the simulation), from the
    current recorded paired calibration at that mutant's own parameters at the highest fidelity recorded: {mutant,
    prediction, mean, standard_error, runs, fidelity, parameters, status}; None where none is (a stale row measured
    other code)."""
    if theorem.nearness is None or not theorem.nearness.mutant:
        return None
    name = theorem.nearness.mutant
    point = {key: str(value) for key, value in theorem.mutant(name).parameters.items()}
    found = [r for r in (load() if records is None else records)
             if r.theorem == theorem.id and r.calibration is not None and r.parameters == point
             and name in r.calibration.nearest_measured() and not r.stale()]
    if not found:
        return None
    record = max(found, key=fidelity_rank)
    move = record.calibration.nearest_measured()[name]
    return {"mutant": name, "prediction": move.prediction, "mean": move.mean,
            "standard_error": move.standard_error, "runs": move.runs, "fidelity": record.fidelity,
            "parameters": point, "status": status(record)}


def at_point(theorem, parameters: dict, records: list[Record]) -> list[Record]:
    """The calibrated rows of `theorem` (a `Theorem`) among `records` at the point `parameters` gives, however either
    spells its values (`alpha=0.30` is `alpha=0.3`; a default written out is the default), from the highest fidelity
    down. A point the theorem does not take is matched as spelt; a row at a point it no longer takes, never."""
    def point(given: dict):
        try:
            return theorem.instance(given).parameters
        except InvalidInput:
            return None
    asked = point(parameters)
    return sorted((row for row in records if row.theorem == theorem.id and row.calibration is not None
                   and (row.parameters == parameters or (asked is not None and point(row.parameters) == asked))),
                  key=lambda r: -fidelity_rank(r))


def timed(theorem, fidelity: str, parameters: dict, records: list[Record]) -> Calibration | None:
    """The row of `theorem` (a `Theorem`) among `records` at `fidelity` and the point `parameters` gives (`at_point`)
    where it timed its runs (`Calibration.run_seconds`): what a rerun of that row is estimated from."""
    return next((row.calibration for row in at_point(theorem, parameters, records)
                 if row.fidelity == fidelity and row.calibration.run_seconds), None)


def measured_at(theorem, instance, records: list[Record] | None = None) -> list[dict]:
    """What the recorded calibrations away from the defaults measured at `instance`'s point (`at_point`), from the
    highest fidelity down: per row its fidelity, the true statement's runs and outcomes, and its status (`status`);
    empty where none was recorded there."""
    found = []
    for row in at_point(theorem, instance.describe_parameters(), load() if records is None else records):
        if row.parameters:
            rates = row.calibration.true_statement
            found.append({"fidelity": row.fidelity, "runs": rates.runs, "passed": rates.passed,
                          "inconclusive": rates.inconclusive, "failed": rates.failed, "status": status(row)})
    return found


def rows_by_theorem(records: list[Record] | None = None) -> dict[str, list[Record]]:
    """The records (default: `load()`) by theorem id, for `evidence` to look points up in."""
    rows: dict = {}
    for row in load() if records is None else records:
        rows.setdefault(row.theorem, []).append(row)
    return rows


def evidence(theorem: str, parameters: dict, mutant: str | None, rows: dict) -> dict | None:
    """What the calibration at a point measured (`at_point`, in `rows` from `rows_by_theorem`), at its highest
    fidelity: the statement's runs and passes, every mutant's runs and rejections (`mutant`'s own named), and
    whether the row is current; None where no row was recorded there."""
    from checkers import registry

    found = at_point(registry.checker(theorem).theorem, parameters, rows.get(theorem, []))
    if not found:
        return None
    row = found[0]
    calibration = row.calibration
    mutants = {m.version: {"runs": m.runs, "rejected": m.failed} for m in calibration.mutants}
    return {"fidelity": row.fidelity, "seeds": row.seeds, "measured_on": row.measured_on, "tree": row.tree,
            "current": not row.stale(), "runs": calibration.true_statement.runs,
            "passed": calibration.true_statement.passed, "failed": calibration.true_statement.failed,
            "expected_failure": bool(calibration.expected_failure), "mutants": mutants,
            "mutant": mutants.get(mutant) if mutant else None}


def evidence_words(found: dict | None, mutant: str = "") -> str:
    """`evidence` in one sentence: where and when the row was measured, the statement's passes (or failures, for a
    form known to fail), how many mutants were rejected in every run, and `mutant`'s own rejections where it is one."""
    if found is None:
        return "no calibration row at this point"
    mutants = found["mutants"].values()
    always = sum(m["rejected"] == m["runs"] for m in mutants)
    statement = (f"known to fail, failed {found['failed']} of {found['runs']} as expected"
                 if found["expected_failure"] else f"as stated passed {found['passed']} of {found['runs']}")
    words = (f"at {found['fidelity']} fidelity over {found['seeds']} seeds ({found['measured_on']}, tree "
             f"{found['tree']}{'' if found['current'] else ', stale: the theorem changed since'}): {statement}; "
             f"{always} of {len(mutants)} mutants rejected in every run")
    own = found["mutant"]
    return words + (f"; {mutant} rejected in {own['rejected']} of {own['runs']}" if own else "")
