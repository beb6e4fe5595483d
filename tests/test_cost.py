"""What a check will cost, before any draw: the declared plans, the refusal beyond a cap, the estimate announced."""

import math

import pytest

from checkers import cost as cost_module
from checkers import registry
from checkers.budget import FIDELITIES
from checkers.cli import main
from checkers.cost import Cost, over_stages
from checkers.engine import run_check
from checkers.offers import estimated_cost
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
    cost = estimated_cost(spike_strength.CHECKER, fidelity="quick")
    verdict = run_check(spike_strength.CHECKER, fidelity="quick")
    stages = verdict.predictions[0].stages
    assert sum(counted) == (cost.first if stages == 1 else cost.multiply_adds)


def test_a_check_beyond_its_cap_is_refused_before_any_draw_with_the_estimate(capsys, monkeypatch):
    from checkers.onestep import spike_strength
    monkeypatch.setattr(spike_strength, "one_step", lambda *arguments, **options: pytest.fail("a draw was made"))
    code, out, err = run(capsys, "check", "spike-decomposition", "--fidelity", "high", "--max-minutes", "1")
    assert code == 2 and not out.strip()
    assert "would take too long" in err and "multiply-adds" in err and "--max-minutes" in err
    with pytest.raises(WorkRefused, match="cap of"):
        run_check(spike_strength.CHECKER, fidelity="high", max_minutes=0.01)


def test_a_sweep_beyond_its_cap_is_refused_before_it_plans_or_stores(capsys, tmp_path):
    store = tmp_path / "r.sqlite"
    code, _, err = run(capsys, "sweep", "spike-count", "--fidelity", "high", "--max-minutes", "1", "--store",
                       str(store))
    assert code == 2 and "would take too long" in err and not store.exists()


def test_a_check_estimated_over_a_minute_is_announced(capsys, monkeypatch):
    quick = estimated_cost(registry.checker("spike-strength"), fidelity="quick")
    monkeypatch.setattr(cost_module, "machine_rate", lambda: quick.first / 90)  # a machine slow enough for 90 s
    from checkers.cli import running
    monkeypatch.setattr(running, "machine_rate", cost_module.machine_rate)
    code, out, err = run(capsys, "check", "spike-strength", "--fidelity", "quick", "--max-minutes", "1000")
    assert code == 0 and "spike-strength at quick fidelity: about 90 s on one core here" in err


def test_the_machine_rate_is_a_positive_finite_rate():
    assert 0 < cost_module.machine_rate() < math.inf
