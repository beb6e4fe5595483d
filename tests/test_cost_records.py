"""The committed cost records: every built-in check measured at quick and default, merged and rewritten under a lock,
a file that is not one refused as the user's."""

import pytest

from checkers import catalog, cost_records
from checkers.cost_records import CostRecord
from theorems.errors import InvalidInput


def test_every_built_in_check_has_a_record_at_quick_and_default():
    records = cost_records.committed()
    assert records is not None
    missing = [(theorem, fidelity) for theorem in catalog.entries() for fidelity in ("quick", "default")
               if (theorem, fidelity) not in records.records]
    assert not missing, f"record them: python benchmarks/bench_costs.py --record ({missing})"


def test_records_merge_by_theorem_and_fidelity(tmp_path):
    path = tmp_path / "costs.json"
    cost_records.record([CostRecord("a", "quick", 1.0, 0.1, 1), CostRecord("a", "default", 4.0, 0.1, 2)], path)
    merged = cost_records.record([CostRecord("a", "quick", 2.0, 0.1, 1), CostRecord("b", "quick", 3.0, 0.1, 0)],
                                 path)
    assert {key: r.seconds for key, r in merged.records.items()} == {
        ("a", "quick"): 2.0, ("a", "default"): 4.0, ("b", "quick"): 3.0}
    assert cost_records.load(path) == merged


def test_the_nearest_record_is_the_fidelity_asked_else_the_highest_below_it():
    records = cost_records.CostRecords({("a", "quick"): CostRecord("a", "quick", 1.0, 0.1, 1),
                                        ("a", "default"): CostRecord("a", "default", 4.0, 0.1, 1)})
    assert records.nearest("a", "quick").seconds == 1.0
    assert records.nearest("a", "high").fidelity == "default"
    assert records.nearest("b", "quick") is None


def test_a_record_converts_its_time_by_the_probe():
    from checkers.probe import Probe
    record = CostRecord("a", "quick", 10.0, 0.05, 1)
    assert record.seconds_here(Probe(0.05, 0.025, 0.025)) == pytest.approx(20.0)


@pytest.mark.parametrize("content", ["{", "[]", '{"records": [{"theorem": "a"}]}'])
def test_a_file_that_is_not_a_records_file_is_the_users_error(tmp_path, content):
    path = tmp_path / "costs.json"
    path.write_text(content)
    with pytest.raises(InvalidInput, match="not a cost records file"):
        cost_records.load(path)


def test_a_record_of_other_code_or_of_a_theorem_gone_is_stale():
    from checkers.calibration_records import content_hash
    current = CostRecord("dual-kernel", "quick", 1.0, 0.1, 1, content=content_hash("dual-kernel"))
    other = CostRecord("dual-kernel", "default", 1.0, 0.1, 1, content="0" * 16)
    gone = CostRecord("no-such-theorem", "quick", 1.0, 0.1, 1, content="0" * 16)
    found = cost_records.stale(cost_records.CostRecords({("x", "1"): other, ("y", "1"): gone, ("z", "1"): current}),
                               content_hash)
    assert found == [other, gone]
