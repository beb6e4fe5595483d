"""What a check will cost, before any draw: the declared plans, the estimate from a record and a declared cost, the
refusal beyond a cap, the estimate announced."""

import math
from types import SimpleNamespace

import pytest

from checkers import catalog, cost_records, probe, registry
from checkers import cost as cost_module
from checkers.budget import FIDELITIES
from checkers.cli import main
from checkers.cost import Cost, estimate, over_stages
from checkers.cost_records import CostRecord, CostRecords
from checkers.engine import run_check
from checkers.offers import estimated
from checkers.probe import Probe
from theorems.errors import WorkRefused


def run(capsys, *arguments):
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_parts_add_their_work_and_keep_the_largest_memory():
    total = Cost.total([Cost(10, 5, "small"), Cost(30, 50, "large")])
    assert (total.multiply_adds, total.peak_bytes, total.sizes, total.first) == (40, 50, "large", 40)


def test_a_sequential_plan_costs_its_first_stage_and_at_most_every_stage():
    staged = over_stages(FIDELITIES["high"], lambda budget: Cost(2.0**budget.stage, 1, "d"))
    assert staged.first == 1 and staged.multiply_adds == 1 + 2 + 4 + 8
    assert staged.stage_work == (1, 2, 4, 8)


def test_nested_stages_spend_their_last_stages_work_in_all():
    """Each nested stage re-reads the previous one's cached draws: what the check spends is the last stage's, while
    the work behind each stage's reading (what its standard error rests on) is listed as before."""
    nested = over_stages(FIDELITIES["high"], lambda budget: Cost(2.0**budget.stage, 1, "d"), nested=True)
    assert nested.first == 1 and nested.multiply_adds == 8 and nested.stage_work == (1, 2, 4, 8)


def test_the_declared_cost_is_what_the_readers_draw(monkeypatch):
    """spike-strength's plan: its quick check draws as many steps, of the sizes declared, as its cost counts."""
    from checkers.onestep import spike_strength
    counted = []
    real = spike_strength.one_step

    def one_step(setting, rng, **options):
        counted.append(2 * setting.samples * setting.dimension * setting.width)
        return real(setting, rng, **options)
    monkeypatch.setattr(spike_strength, "one_step", one_step)
    cost = spike_strength.CHECKER.cost(spike_strength.CHECKER.theorem.instance({}), FIDELITIES["quick"])
    verdict = run_check(spike_strength.CHECKER, fidelity="quick")
    stages = verdict.predictions[0].stages
    assert sum(counted) == (cost.first if stages == 1 else cost.multiply_adds)


def test_a_check_beyond_its_cap_is_refused_before_any_draw_with_the_estimate(capsys, monkeypatch):
    from checkers.onestep import spike_strength
    monkeypatch.setattr(spike_strength, "one_step", lambda *arguments, **options: pytest.fail("a draw was made"))
    code, out, err = run(capsys, "check", "spike-decomposition", "--fidelity", "high", "--max-minutes", "1")
    assert code == 2 and not out.strip()
    assert "would take too long" in err and "on one core here" in err and "--max-minutes" in err
    with pytest.raises(WorkRefused, match="cap of"):
        run_check(spike_strength.CHECKER, fidelity="high", max_minutes=0.01)


def test_a_sweep_beyond_its_cap_is_refused_before_it_plans_or_stores(capsys, tmp_path):
    store = tmp_path / "r.sqlite"
    code, _, err = run(capsys, "sweep", "spike-count", "--fidelity", "high", "--max-minutes", "1", "--store",
                       str(store))
    assert code == 2 and "would take too long" in err and not store.exists()


def test_a_check_estimated_over_a_minute_is_announced(capsys, monkeypatch):
    here = probe.here()
    factor = 90 / estimated(registry.checker("spike-strength"), fidelity="quick").likely
    slower = Probe(here.matmul * factor, here.eigh * factor, here.elementwise * factor, here.machine)
    monkeypatch.setattr(probe, "here", lambda: slower)  # a machine slow enough for 90 s
    code, out, err = run(capsys, "check", "spike-strength", "--fidelity", "quick", "--max-minutes", "1000")
    assert code == 0 and "spike-strength at quick fidelity: about 90 s on one core here" in err


def test_the_machine_rate_is_a_positive_finite_rate():
    assert 0 < cost_module.machine_rate() < math.inf


RATE = 1e9  # multiply-adds per second of the synthetic machine below
MACHINE = Probe(probe.MATMUL_SIZE**3 / RATE, 0.1, 0.1)


def _checker(cost=None, *, exact=False, nested=False):
    return SimpleNamespace(id="t", cost=cost, exact=exact, nested_stages=nested)


def _with_records(monkeypatch, *records):
    monkeypatch.setattr(probe, "here", lambda: MACHINE)
    monkeypatch.setattr(cost_records, "committed", lambda: CostRecords({(r.theorem, r.fidelity): r for r in records}))


def test_a_declared_cost_is_priced_at_the_rate_measured_for_its_check(monkeypatch):
    """Recorded: 6 s for 1e9 declared multiply-adds over its first two stages, on a machine twice as slow; here the
    same work takes 3 s, and a cost twice as large (other sizes) twice that."""
    stages = (1e9 / 3, 2e9 / 3, 4e9 / 3)
    _with_records(monkeypatch, CostRecord("t", "default", 6.0, 2 * MACHINE.seconds, 2, work=1e9))
    declared = Cost(sum(stages), 1e6, "n=1", stages[0], stages)
    found = estimate(_checker(lambda instance, fidelity: declared), None, FIDELITIES["default"])
    assert found.likely == pytest.approx(3.0) and found.most == pytest.approx(3.0 * 7 / 3)
    assert "declared work at the rate measured" in found.basis and found.peak_bytes == 1e6
    doubled = Cost(2 * sum(stages), 1e6, "n=2", 2 * stages[0], tuple(2 * s for s in stages))
    assert estimate(_checker(lambda instance, fidelity: doubled), None, FIDELITIES["default"]).likely == \
        pytest.approx(6.0)


def test_a_recorded_time_is_scaled_by_the_probe_and_doubled_per_level_above_its_fidelity(monkeypatch):
    """Recorded at default: 3 s for one stage. At default here (a machine as fast): 3 s likely, and 3 + 6 + 12 if
    every one of its three stages runs; at high (two levels up) four times each stage."""
    _with_records(monkeypatch, CostRecord("t", "default", 3.0, MACHINE.seconds, 1))
    at_default = estimate(_checker(), None, FIDELITIES["default"])
    assert (at_default.likely, at_default.most) == pytest.approx((3.0, 21.0))
    at_high = estimate(_checker(), None, FIDELITIES["high"])
    assert at_high.likely == pytest.approx(12.0) and at_high.most == pytest.approx(12.0 * 15)
    assert "doubled per fidelity level" in at_high.basis


def test_an_exact_check_costs_the_same_at_every_fidelity_and_stage(monkeypatch):
    _with_records(monkeypatch, CostRecord("t", "default", 3.0, MACHINE.seconds, 0))
    found = estimate(_checker(exact=True), None, FIDELITIES["high"])
    assert (found.likely, found.most) == pytest.approx((3.0, 3.0))


def test_nested_stages_cost_their_last_stages_work(monkeypatch):
    """Two nested stages took 4 s: the first 2 s, the third (of default's three) 8 s in all."""
    _with_records(monkeypatch, CostRecord("t", "default", 4.0, MACHINE.seconds, 2))
    found = estimate(_checker(nested=True), None, FIDELITIES["default"])
    assert (found.likely, found.most) == pytest.approx((4.0, 8.0))


def test_without_a_record_a_declared_cost_is_a_floor_and_without_either_there_is_no_estimate(monkeypatch):
    _with_records(monkeypatch)
    found = estimate(_checker(lambda instance, fidelity: Cost(3e9, 1.0, "n", 1e9)), None, FIDELITIES["default"])
    assert (found.likely, found.most) == pytest.approx((1.0, 3.0)) and "a floor" in found.basis
    assert estimate(_checker(), None, FIDELITIES["default"]) is None


def test_every_built_in_check_has_an_estimate_at_every_fidelity_it_offers():
    for checker in map(registry.checker, catalog.entries()):
        for fidelity in ("quick", "default", "high") + (("paper",) if checker.paper_scale else ()):
            found = estimated(checker, fidelity=fidelity)
            assert found is not None and 0 < found.likely <= found.most < math.inf, (checker.id, fidelity)


def test_memory_is_the_recorded_peak_plus_twice_the_declared_arrays_beyond_the_recorded_sizes(monkeypatch):
    gib = 2.0**30
    recorded = CostRecord("t", "default", 1.0, MACHINE.seconds, 1, work=1e9, peak_bytes=0.5 * gib,
                          declared_bytes=0.1 * gib)
    assert cost_module.peak_memory(recorded, Cost(1e9, 1.1 * gib, "n")) == pytest.approx(2.5 * gib)
    assert cost_module.peak_memory(recorded, Cost(1e9, 0.05 * gib, "n")) == pytest.approx(0.5 * gib)
    assert cost_module.peak_memory(None, Cost(1e9, 0.05 * gib, "n")) == pytest.approx(0.05 * gib)  # a floor
    assert cost_module.peak_memory(None, None) is None


def test_checks_that_fit_alone_are_refused_side_by_side_beyond_the_cap():
    gib = 2.0**30
    assert cost_module.at_once_refusal([3 * gib, 3 * gib, None], 1, 4) is None
    reason = cost_module.at_once_refusal([3 * gib, 3 * gib, 1 * gib], 2, 4)
    assert "2 checks at once" in reason and "6 GiB, more than the 4 GiB --max-memory" in reason
    assert reason.endswith("lower --workers")


def test_every_built_in_check_has_a_memory_estimate_and_one_beyond_the_cap_is_refused(capsys):
    for checker in map(registry.checker, catalog.entries()):
        found = estimated(checker, fidelity="quick")
        assert found.peak_bytes is not None and 50 * 2**20 < found.peak_bytes < 8 * 2**30, checker.id
    code, out, err = run(capsys, "check", "dual-kernel", "--max-memory", "0.01")
    assert code == 2 and not out.strip() and err.count("\n") == 1
    assert "would need more memory than --max-memory 0.01" in err and "GiB" in err
