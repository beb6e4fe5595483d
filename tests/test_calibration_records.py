"""checkers.calibration_records and `thmcheck calibration`: records keyed by content, stale rows, generated tables."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from checkers import calibration_records as records
from checkers import catalog, registry
from checkers.calibrate import Calibration, MeasuredMove, VersionRates, calibrate
from checkers.cli import main
from theorems.errors import InvalidInput

ROOT = Path(__file__).resolve().parent.parent


def _calibration(theorem="nc2-bracket"):
    rates = VersionRates(version="as stated", runs=4, passed=4, failed=0, inconclusive=0, outside=0, errors=0)
    mutant = VersionRates(version="loosened", runs=4, passed=0, failed=4, inconclusive=0, outside=0, errors=0)
    return Calibration(theorem=theorem, fidelity="quick", seeds=4, stated_false_fail_rate=1e-6,
                       true_statement=rates, mutants=(mutant,), paired=True,
                       moves=(MeasuredMove("loosened", "attained", 4, -2.12, 0.0),),
                       predicted_kills={"loosened": 1.0})


def test_a_theorem_is_keyed_by_its_modules_and_what_they_import_less_the_engine():
    modules = records.hashed_modules("nc2-bracket")
    assert {"theorems.collapse.nc2_bracket", "checkers.collapse.nc2_bracket", "theorems.collapse.bounds",
            "checkers.collapse.heads", "checkers.collapse.head_search"} <= set(modules)
    assert not {"checkers.checker", "checkers.engine", "checkers.search", "theorems.statement"} & set(modules)
    assert "theorems.onestep.common" in records.hashed_modules("hermite-equivalence")  # across families
    assert not set(records.EXACT_NUMERICS) & set(records.hashed_modules("spike-count"))  # keyed by the snapshot
    assert len(records.content_hash("nc2-bracket")) == 16
    assert records.content_hash("nc2-bracket") != records.content_hash("nc1-bound")
    with pytest.raises(InvalidInput):
        records.hashed_modules("no-such-theorem")


def test_the_constants_snapshot_keys_what_the_shared_exact_numerics_give(tmp_path, monkeypatch):
    """A Hermite table's code is not hashed, its numbers are: a constant of the snapshot that moves stales the row."""
    snapshot = json.loads((records.SNAPSHOTS / "constants-spike-count.json").read_text())
    before = records.content_hash("spike-count")
    records.content_hash.cache_clear()
    monkeypatch.setattr(records, "SNAPSHOTS", tmp_path)
    (tmp_path / "constants-spike-count.json").write_text(json.dumps(snapshot))
    assert records.content_hash("spike-count") == before
    records.content_hash.cache_clear()
    value = snapshot["mu1"]["value"]
    snapshot["mu1"]["value"] = value[:-1] + ("1" if value[-1] != "1" else "2")  # the 30th digit moves
    (tmp_path / "constants-spike-count.json").write_text(json.dumps(snapshot))
    assert records.content_hash("spike-count") != before
    records.content_hash.cache_clear()


def test_a_record_reads_back_as_it_was_written_and_knows_when_it_is_stale():
    record = records.record_of(_calibration())
    again = records.Record.from_dict(json.loads(json.dumps(record.to_dict())))
    assert again == record and not again.stale()
    assert again.calibration.to_dict() == record.calibration.to_dict()
    assert records.Record.from_dict({**record.to_dict(), "content": "0" * 16}).stale()
    legacy = records.Record(theorem="nc2-bracket", parameters={}, fidelity="quick", content=None, measured_on="",
                            tree=None, seeds=50, paired=False, legacy=("50 / 0 / 0",) * 5)
    assert legacy.stale() and records.status(legacy) == "before the records: stale"
    assert records.markdown_row(legacy).startswith("| nc2-bracket | quick | 50 | 50 / 0 / 0 |")


def test_the_generated_tables_replace_what_lies_between_their_markers(tmp_path):
    document = tmp_path / "doc.md"
    markers = "\n".join(f"{records.TABLE_START.format(which=which)}\nold rows\n{records.TABLE_END}"
                        for which in records.TABLES)
    document.write_text(f"before\n{markers}\nafter\n")
    record = records.record_of(_calibration())
    records.write_tables(document, [record])
    tables = records.tables_in(document)
    assert "| nc2-bracket | quick | 4 paired | 4 / 0 / 0 |" in tables["at the defaults"]
    assert "old rows" not in document.read_text() and document.read_text().endswith("after\n")
    assert tables["away from the defaults"].count("\n") == 1  # its header only
    default = records.record_of(Calibration(**{**_calibration().__dict__, "fidelity": "default"}))
    rows = records.markdown_tables([default, record])["at the defaults"].splitlines()[2:]
    assert [row.split(" | ")[1] for row in rows] == ["quick", "default"]  # in order, whatever the records' order
    document.write_text("no markers\n")
    with pytest.raises(InvalidInput):
        records.write_tables(document, [record])


def test_the_project_documents_the_records_it_keeps():
    """docs/calibration.md's tables are the ones docs/calibration.json generates, staleness included: a change to a
    theorem shows as stale there until its calibration is run again (`thmcheck calibrate --stale`)."""
    expected = records.markdown_tables(records.load())
    assert records.tables_in(records.DOCUMENT) == expected, "regenerate them with `thmcheck calibration --write`"


def test_every_theorem_has_a_current_calibration():
    """Every built-in theorem has a row, and no row is stale: a change to a theorem, its checker, what they import
    or the constants its snapshot pins lands with its calibrations rerun (`thmcheck calibrate --stale`)."""
    kept = records.load()
    assert set(catalog.entries()) <= {record.theorem for record in kept}  # the built-ins, not a test's plugin
    stale = [f"{record.theorem} {record.parameters or ''} {record.fidelity}" for record in records.stale(kept)]
    assert not stale, "rerun them with `thmcheck calibrate --stale`:\n" + "\n".join(stale)


def test_recording_a_calibration_and_finding_no_stale_row(tmp_path, capsys):
    path = tmp_path / "records.json"
    code = main(["calibrate", "balancedness-identity", "--seeds", "2", "--executor", "serial", "--paired",
                 "--record", "--records", str(path), "--json"])
    assert code == 0
    (recorded,) = records.load(path)
    assert recorded.theorem == "balancedness-identity" and recorded.seeds == 2 and recorded.paired
    assert not recorded.stale()
    capsys.readouterr()
    assert main(["calibrate", "--stale", "--records", str(path)]) == 0
    assert "every recorded row is current" in capsys.readouterr().out
    assert main(["calibration", "--records", str(path), "--stale"]) == 0
    assert "0 of 1 rows stale" in capsys.readouterr().out
    document = tmp_path / "doc.md"
    document.write_text("\n".join(f"{records.TABLE_START.format(which=which)}\n{records.TABLE_END}"
                                   for which in records.TABLES) + "\n")
    assert main(["calibration", "--records", str(path), "--write", str(document)]) == 0
    assert "| balancedness-identity | quick | 2 paired |" in records.tables_in(document)["at the defaults"]
    assert main(["calibration", "--records", str(path), "--write", str(tmp_path / "missing.md")]) == 2


def test_a_stale_row_is_rerun_at_its_own_settings(tmp_path, capsys):
    path = tmp_path / "records.json"
    (result,) = calibrate(["balancedness-identity"], tmp_path / "s.sqlite", seeds=2, executor="serial",
                          progress=False)
    old = records.Record.from_dict({**records.record_of(result).to_dict(), "content": "0" * 16})
    records.save([old], path)
    capsys.readouterr()
    # ids keep only their theorems' rows: nc2-bracket has none, so nothing runs and the stale row stays
    assert main(["calibrate", "nc2-bracket", "--stale", "--records", str(path)]) == 0
    assert "every recorded row of nc2-bracket is current" in capsys.readouterr().out
    assert records.load(path)[0].stale()
    assert main(["calibrate", "balancedness-identity", "--stale", "--records", str(path), "--executor", "serial",
                 "--json"]) == 0
    (rerun,) = records.load(path)
    assert not rerun.stale() and rerun.seeds == 2 and not rerun.paired
    assert main(["calibrate", "--stale", "--records", str(path), "--seeds", "5"]) == 2  # a row's own seeds
    assert main(["calibrate", "--all", "--stale", "--records", str(path)]) == 2
    assert main(["calibrate", "no-such-theorem", "--stale", "--records", str(path)]) == 2
    (path.parent / "bad.json").write_text("[1, 2]")
    assert main(["calibration", "--records", str(path.parent / "bad.json")]) == 2
    assert main(["calibration", "--records", str(path.parent / "missing.json")]) == 2  # not an empty table


def test_the_mutants_of_a_paired_calibration_carry_their_measured_moves(tmp_path):
    (paired,) = calibrate(["nc2-bracket"], tmp_path / "p.sqlite", seeds=2, executor="serial", progress=False,
                          paired=True)
    moves = {(m.mutant, m.prediction): m for m in paired.moves}
    # loosened only moves a target: measured, it is minus the claims table's move, exactly (the draws are shared)
    table_move = registry.checker("nc2-bracket").theorem.claims().moves("loosened")["attained"]
    assert table_move > 2 and moves[("loosened", "attained")].mean == pytest.approx(-table_move, rel=1e-9)
    assert paired.predicted_kills["loosened"] == pytest.approx(1.0)


def test_a_built_in_near_mutant_on_the_simulation_must_be_measured_near(tmp_path, monkeypatch):
    """The contract reads the recorded paired calibration at the mutant's own point: none recorded, or one that
    measured it beyond three resolutions, breaks the near-mutant clause."""
    from checkers import contract

    checker = registry.checker("hermite-equivalence")
    monkeypatch.setattr(records, "RECORDS", tmp_path / "none.json")
    assert "no paired calibration at its parameters is recorded" in contract.CLAUSES["near-mutant"](checker)[0]
    rates = VersionRates(version="as stated", runs=3, passed=3, failed=0, inconclusive=0, outside=0, errors=0)
    measured = Calibration(theorem="hermite-equivalence", fidelity="default", seeds=3, stated_false_fail_rate=1e-6,
                           true_statement=rates, mutants=(), paired=True,
                           moves=(MeasuredMove("degree-one-short", "test-gap", 3, 4.5, 0.3),))
    records.save([records.record_of(measured)], tmp_path / "far.json")
    monkeypatch.setattr(records, "RECORDS", tmp_path / "far.json")
    assert "measured +4.50 resolutions on test-gap (default): not near" in \
        contract.CLAUSES["near-mutant"](checker)[0]
    near = Calibration(**{**measured.__dict__, "moves": (MeasuredMove("degree-one-short", "test-gap", 3, 2.1, 0.3),)})
    records.save([records.record_of(near)], tmp_path / "far.json")
    assert contract.CLAUSES["near-mutant"](checker) == []
    assert records.measured_near(checker.theorem)["mean"] == 2.1


def test_the_hash_reads_code_not_docstrings(tmp_path):
    worded = tmp_path / "worded.py"
    worded.write_text('"""One wording."""\n\n\ndef f(x):\n    """Twice x."""\n    return 2 * x  # a comment\n')
    reworded = tmp_path / "reworded.py"
    reworded.write_text('"""Another wording,\nlonger."""\n\ndef f(x):\n    """x, doubled."""\n\n    return 2 * x\n')
    changed = tmp_path / "changed.py"
    changed.write_text('"""One wording."""\n\n\ndef f(x):\n    """Twice x."""\n    return 3 * x\n')
    code = [records._code("theorems.example", path) for path in (worded, reworded, changed)]
    assert code[0] == code[1] != code[2]


def test_the_hash_reads_names_from_the_engine_not_the_module_that_holds_them(tmp_path):
    held = tmp_path / "held.py"
    held.write_text("from checkers.check import Budget, Checker\nfrom checkers.onestep.draws import one_step\n")
    moved = tmp_path / "moved.py"
    moved.write_text("from checkers.checker import Checker\nfrom checkers.budget import Budget\n"
                     "from checkers.onestep.draws import one_step\n")
    renamed = tmp_path / "renamed.py"
    renamed.write_text("from checkers.checker import Budget, Checker as Check\n"
                       "from checkers.onestep.draws import one_step\n")
    family = tmp_path / "family.py"
    family.write_text("from checkers.check import Budget, Checker\nfrom checkers.onestep.simulation import one_step\n")
    code = [records._code("checkers.onestep.example", path) for path in (held, moved, renamed, family)]
    assert code[0] == code[1]
    assert code[2] != code[0] and code[3] != code[0]  # a name's alias, or a family module's, is the code's


def test_two_calibrations_recording_at_once_keep_both_rows(tmp_path):
    """Two `calibrate --record` runs into one records file, started together: each row is merged into the file as it
    is when the run ends, under a lock, so neither is lost."""
    path = tmp_path / "rec.json"
    command = [sys.executable, "-m", "checkers.cli", "calibrate", "--seeds", "1", "--executor", "serial", "--record",
               "--records", str(path)]
    runs = [subprocess.Popen([*command, theorem], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for theorem in ("balanced-collapse", "balancedness-identity")]
    assert [run.wait(timeout=300) for run in runs] == [0, 0]
    assert sorted(r.theorem for r in records.load(path)) == ["balanced-collapse", "balancedness-identity"]


@pytest.mark.parametrize("records_file, message", [
    ("missing.json", "no calibration records file"), ("folder", "is a folder"), ("text.json", "is not a calibration")])
def test_a_bad_records_file_is_refused_before_any_run(tmp_path, records_file, message):
    (tmp_path / "folder").mkdir()
    (tmp_path / "text.json").write_text("not json")
    arguments = ["--stale"] if records_file == "missing.json" else ["balanced-collapse", "--seeds", "1", "--record"]
    result = subprocess.run([sys.executable, "-m", "checkers.cli", "calibrate", *arguments, "--records",
                             str(tmp_path / records_file)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""  # nothing ran


def test_a_calibration_whose_runs_raised_is_named_and_not_recorded(tmp_path, capsys):
    """A row whose runs raised (a bug, or a tree edited mid-run) would read as current: it is left out and named."""
    import dataclasses

    from checkers.cli.running import _record

    path = tmp_path / "records.json"
    clean = _calibration()
    broken = dataclasses.replace(_calibration("nc1-bound"), true_statement=dataclasses.replace(
        clean.true_statement, passed=0, errors=4))
    _record([clean, broken], path)
    assert [record.theorem for record in records.load(path)] == ["nc2-bracket"]
    assert "not recorded: nc1-bound at quick: 4 run(s) raised an error" in capsys.readouterr().err


def test_the_evidence_a_review_reads_is_found_however_its_point_is_spelt():
    """A review's check at learning_rate=2.0 reads the row recorded at learning_rate=2, as `show` does (they looked
    points up two ways, and the review's missed it); a point with no row has none."""
    rows = records.rows_by_theorem()
    spelt, recorded = (records.evidence("gaussian-equivalence", {"learning_rate": value}, None, rows)
                       for value in ("2.0", "2"))
    assert spelt is not None and spelt == recorded and spelt["fidelity"] == "default"
    at_defaults = records.evidence("gaussian-equivalence", {}, None, rows)
    assert at_defaults is not None and at_defaults != spelt  # the defaults' row, not this one
    assert records.evidence("gaussian-equivalence", {"learning_rate": "3"}, None, rows) is None


def test_a_rerun_is_timed_by_the_row_at_its_fidelity_and_point_that_timed_its_runs():
    """`timed` finds the row a rerun is estimated from however its point is spelt, at the rerun's fidelity only, and
    only where the row timed its runs (rows recorded before they did have no times)."""
    theorem = registry.checker("nc2-bracket").theorem
    untimed = records.record_of(_calibration())
    timed_row = dataclasses.replace(untimed, parameters={"kappa": "3.0"}, calibration=dataclasses.replace(
        _calibration(), run_seconds={"as stated": 2.0, "loosened": 0.1}, probe_seconds=0.07))
    # kappa = 3 is the default, spelt otherwise
    assert records.timed(theorem, "quick", {}, [untimed, timed_row]) is timed_row.calibration
    assert records.timed(theorem, "default", {}, [untimed, timed_row]) is None
    assert records.timed(theorem, "quick", {}, [untimed]) is None


def test_a_calibration_row_is_said_in_words():
    row = {"fidelity": "default", "seeds": 10, "measured_on": "2026-12-06", "tree": "29f95a0", "current": False,
           "runs": 10, "passed": 9, "failed": 0, "expected_failure": False,
           "mutants": {"halved": {"runs": 10, "rejected": 10}, "loosened": {"runs": 10, "rejected": 7}},
           "mutant": {"runs": 10, "rejected": 7}}
    where = "at default fidelity over 10 seeds (2026-12-06, tree 29f95a0, stale: the theorem changed since)"
    assert records.evidence_words(row, "loosened") == (
        f"{where}: as stated passed 9 of 10; 1 of 2 mutants rejected in every run; loosened rejected in 7 of 10")
    assert records.evidence_words({**row, "mutant": None}) == (
        f"{where}: as stated passed 9 of 10; 1 of 2 mutants rejected in every run")
    known = records.evidence_words({**row, "expected_failure": True, "failed": 10, "mutant": None})
    assert known.endswith("known to fail, failed 10 of 10 as expected; 1 of 2 mutants rejected in every run")
    assert records.evidence_words(None) == "no calibration row at this point"
