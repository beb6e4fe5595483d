"""The array backends: the one-step kernels, the ridge readout and whole checks under array-api-strict agree with
numpy to 1e-10 relative; a backend that is unknown, not installed or not offered is bad input."""

import importlib.machinery
import math
import sys
import types

import numpy as np
import pytest

from checkers import arrays, registry
from checkers.cli import main
from checkers.cli.running import summary_line
from checkers.engine import run_check
from checkers.equivalence.ridge import fit_ridge
from checkers.offers import backend_for
from checkers.onestep.simulation import OneStepSetting, one_step, operator_norm, top_left_singular_vector
from checkers.verdict import Verdict
from theorems.activations import BUILTINS, activation
from theorems.errors import InvalidInput

STRICT = "array-api-strict"
AGREEMENT = 1e-10  # relative: the bound; round-off of these sizes is about 1e-14


def _relative(left, right) -> float:
    left, right = np.asarray(arrays.to_numpy(left)), np.asarray(arrays.to_numpy(right))
    return float(np.max(np.abs(left - right)) / np.max(np.abs(right)))


@pytest.mark.parametrize("formula", [*BUILTINS, "max(z, z/10)", "sqrt(1 + z**2)", "min(z, 1)", "z", "3"])
def test_an_activation_and_its_slope_on_a_backend_are_numpys(formula):
    sigma = activation(formula)
    z = np.linspace(-6, 6, 241)
    with arrays.using(STRICT):
        value, slope = arrays.activation_values(sigma, arrays.to_backend(z))
    assert type(value).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(arrays.to_numpy(value), sigma(z), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(arrays.to_numpy(slope), sigma.first_derivative(z), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_step_on_a_backend_is_the_numpy_step(dtype):
    """The same draws moved to the backend: the gradient, its operator norm and its top left singular vector."""
    sigma = activation("erf")
    setting = OneStepSetting(300, 120, 200, sigma, activation("tanh"), noise=0.1, dtype=dtype)
    reference = one_step(setting, np.random.default_rng(5))
    with arrays.using(STRICT):
        moved = one_step(setting, np.random.default_rng(5))
        norm, vector = operator_norm(moved.gradient), top_left_singular_vector(moved.gradient)
    assert type(moved.gradient).__module__.startswith("array_api_strict")
    assert arrays.to_numpy(moved.gradient).dtype == dtype
    tolerance = AGREEMENT if dtype == np.float64 else 1e-5  # float32 round-off
    assert _relative(moved.gradient, reference.gradient) < tolerance
    assert _relative(moved.zeta, reference.zeta) < tolerance
    assert abs(norm / operator_norm(reference.gradient) - 1) < tolerance
    assert abs(abs(vector @ top_left_singular_vector(reference.gradient)) - 1) < tolerance


@pytest.mark.parametrize("samples, width", [(80, 50), (50, 80)])  # the primal system, then the dual one
def test_the_ridge_readout_on_a_backend_is_numpys(samples, width):
    rng = np.random.default_rng(1)
    features, labels = rng.standard_normal((samples, width)) / math.sqrt(width), rng.standard_normal(samples)
    with arrays.using(STRICT):
        moved = fit_ridge(arrays.to_backend(features), arrays.to_backend(labels), 0.01)
    assert _relative(moved, fit_ridge(features, labels, 0.01)) < AGREEMENT


def _predictions(verdict) -> list[tuple]:
    return [(result.outcome, result.observed, result.standard_error, result.systematic)
            for result in verdict.predictions]


def _agree(left, right) -> None:
    for (outcome, *numbers), (other_outcome, *others) in zip(_predictions(left), _predictions(right), strict=True):
        assert outcome == other_outcome
        for number, other in zip(numbers, others):
            assert number == other or abs(number - other) <= AGREEMENT * abs(other)


def test_spike_strength_on_array_api_strict_is_numpys_verdict_and_says_where_it_ran():
    with_numpy = run_check(registry.checker("spike-strength"), seed=0, fidelity="quick")
    moved = run_check(registry.checker("spike-strength"), seed=0, fidelity="quick", backend=STRICT)
    _agree(moved, with_numpy)
    assert (with_numpy.backend, with_numpy.device, moved.backend, moved.device) == ("numpy", "cpu", STRICT, "cpu")
    # what the backend computed in is the draws' float64, moved onto it; numpy's kernels choose theirs per check
    assert (with_numpy.dtype, moved.dtype) == (None, "float64")
    again = Verdict.from_dict(moved.to_dict())
    assert (again.backend, again.dtype) == (STRICT, "float64")
    assert f"on {STRICT} (cpu, float64): PASS" in " ".join(moved.explain().split())  # the line is folded
    assert summary_line([moved], 1.0).endswith(f"in 1 s on {STRICT} (cpu, float64)")
    assert summary_line([with_numpy], 1.0).endswith("in 1 s")  # numpy on the CPU, the default, goes unsaid
    float32 = Verdict.from_dict({**moved.to_dict(), "dtype": "float32, float64"})
    assert summary_line([moved, float32], 1.0).endswith(f"in 1 s on {STRICT} (cpu, float32, float64)")  # once


def test_a_gaussian_equivalence_draw_on_array_api_strict_is_numpys():
    """One draw of gaussian-equivalence's simulation, network readout included, for erf features (the readout's
    exact risk) and for tanh features (the risk on fresh test inputs). The whole check is a slow test."""
    from checkers.equivalence.gaussian_equivalence import _simulated
    from checkers.shared_draws import forget
    for sigma in ("erf", "tanh"):
        parameters = tuple(sorted({"activation": sigma}.items()))
        seed = np.random.SeedSequence(3)
        with_numpy = _simulated(parameters, 100, seed.entropy, seed.spawn_key, True)
        with arrays.using(STRICT):
            moved = _simulated(parameters, 100, seed.entropy, seed.spawn_key, True)
        forget()
        for number, other in zip(moved, with_numpy, strict=True):
            assert _relative(np.atleast_1d(number), np.atleast_1d(other)) < AGREEMENT


def _on_both(draw):
    """`draw()` with numpy, then on array-api-strict: the same seeded draws, moved."""
    with_numpy = draw()
    with arrays.using(STRICT):
        return with_numpy, draw()


def _numbers(rows) -> np.ndarray:
    """Every number of a draw function's rows (tuples, dicts of numbers and vectors, arrays), in order."""
    if isinstance(rows, dict):
        return _numbers(list(rows.values()))
    if isinstance(rows, (list, tuple)):
        return np.concatenate([_numbers(row) for row in rows]) if rows else np.zeros(0)
    if isinstance(rows, (int, float)):
        return np.array([rows], dtype=float)
    return np.atleast_1d(np.asarray(arrays.to_numpy(rows), dtype=float)).ravel()


def test_the_one_step_familys_draws_on_array_api_strict_are_numpys(monkeypatch):
    """The draws of spike-outlier (W_1's top singular vector from float32 draws), spike-decomposition (the residual
    G_0 - A), mixture-spike (the mixture's gradient less its spike), spike-alignment (X^T y) and spike-count (fresh
    features before and after the step, their Hermite projections and the top singular values, a counted draw in
    float64: the generic path evaluates the activation from its expression, numpy from its own form, which in
    float32 differ by round-off), at small sizes."""
    from checkers.budget import FIDELITIES, Budget
    from checkers.onestep import mixture_spike, spike_alignment, spike_count, spike_decomposition, spike_outlier
    quick = Budget(FIDELITIES["quick"], 0)

    def seed():  # a fresh one per call: spawning advances a SeedSequence
        return np.random.SeedSequence(4)
    monkeypatch.setattr(spike_decomposition, "_decomposition_sizes", lambda budget: ([40, 80], 2))
    monkeypatch.setattr(mixture_spike, "_mixture_sizes", lambda budget: [(60, 2), (90, 1)])
    monkeypatch.setattr(spike_alignment, "SIZES", (40, 80, 160))
    monkeypatch.setattr(spike_count, "DTYPE", np.float64)
    counted = tuple(sorted(registry.checker("spike-count").theorem.instance({}).describe_parameters().items()))
    draws = {
        "spike-outlier": lambda: spike_outlier._outlier_draws(
            registry.checker("spike-outlier").theorem.instance({}), 60, 3, seed()),
        "spike-decomposition": lambda: spike_decomposition._decomposition_draws(
            registry.checker("spike-decomposition").theorem.instance({}), quick, seed()),
        "mixture-spike": lambda: mixture_spike._mixture_draws(
            registry.checker("mixture-spike").theorem.instance({}), quick, seed()),
        "spike-alignment": lambda: spike_alignment.read_teacher_overlap(
            registry.checker("spike-alignment").theorem.instance({}), quick, seed()).value,
        "spike-count": lambda: spike_count._draw.__wrapped__(counted, 80, seed().entropy, (), True),  # uncached
    }
    for theorem, draw in draws.items():
        with_numpy, moved = _on_both(draw)
        assert _relative(_numbers(moved), _numbers(with_numpy)) < AGREEMENT, theorem
        assert registry.checker(theorem).array_api


def test_spike_alignment_on_array_api_strict_is_numpys_verdict():
    with_numpy = run_check(registry.checker("spike-alignment"), seed=0, fidelity="quick")
    moved = run_check(registry.checker("spike-alignment"), seed=0, fidelity="quick", backend=STRICT)
    _agree(moved, with_numpy)
    assert moved.backend == STRICT


@pytest.mark.slow
def test_gaussian_equivalence_on_array_api_strict_is_numpys_verdict():
    with_numpy = run_check(registry.checker("gaussian-equivalence"), seed=0, fidelity="quick")
    _agree(run_check(registry.checker("gaussian-equivalence"), seed=0, fidelity="quick", backend=STRICT), with_numpy)


@pytest.mark.slow
def test_spike_strength_on_torchs_cpu_is_numpys_verdict():
    pytest.importorskip("torch")
    with_numpy = run_check(registry.checker("spike-strength"), seed=0, fidelity="quick")
    _agree(run_check(registry.checker("spike-strength"), seed=0, fidelity="quick", backend="torch"), with_numpy)


def test_torch_on_the_cpu_computes_on_one_thread_inside_a_check_and_gets_its_threads_back(monkeypatch):
    """Its thread pool splits a product's sums by the core count (gaussian-equivalence's risk moved in its last
    digits between one thread and two), so inside a check it runs on one, as numpy's BLAS does."""
    threads = {"count": 8, "seen": []}
    torch = types.ModuleType("torch")
    torch.__spec__ = importlib.machinery.ModuleSpec("torch", None)
    torch.cuda = types.SimpleNamespace(is_available=lambda: False)
    torch.get_num_threads = lambda: threads["count"]
    torch.set_num_threads = lambda count: threads.update(count=count) or threads["seen"].append(count)
    monkeypatch.setitem(sys.modules, "torch", torch)
    with arrays.using("torch"):
        assert threads["count"] == 1 and arrays.device_name() == "cpu"
    assert threads["count"] == 8 and threads["seen"] == [1, 8]
    torch.cuda = types.SimpleNamespace(is_available=lambda: True)  # a GPU's threads are the device's own
    with arrays.using("torch"):
        assert threads["count"] == 8


def test_a_backend_that_is_unknown_missing_or_not_offered_is_refused(monkeypatch):
    with pytest.raises(InvalidInput, match="unknown backend 'tensorflow'"):
        arrays.require("tensorflow")
    monkeypatch.setitem(arrays.BACKENDS, "absent", ("no_such_array_library", "absent"))
    with pytest.raises(InvalidInput, match=r"not installed here: pip install -e '\.\[absent\]'"):
        arrays.require("absent")
    with pytest.raises(InvalidInput, match="dual-kernel runs on numpy only; backend array-api-strict is offered by "
                                           ".*gaussian-equivalence.*spike-strength"):
        backend_for(registry.checker("dual-kernel"), STRICT)


def test_an_installed_backend_that_fails_to_import_is_the_users_environment(monkeypatch, tmp_path):
    (tmp_path / "broken_array_library.py").write_text("raise ImportError('libcudart.so.12: cannot open shared "
                                                      "object file')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(arrays.BACKENDS, "broken", ("broken_array_library", "broken"))
    with pytest.raises(InvalidInput, match=r"backend 'broken' is installed here but fails to import \(ImportError: "
                                           r"libcudart.so.12.*\); reinstall it: pip install -e '\.\[broken\]'"):
        arrays.require("broken")


def test_check_refuses_a_backend_a_check_lacks_before_running_any(capsys):
    """The refusal is the user's (exit 2, one line), before the check that could run on it has run."""
    assert main(["check", "spike-strength", "dual-kernel", "--backend", STRICT, "--fidelity", "quick"]) == 2
    captured = capsys.readouterr()
    assert "dual-kernel runs on numpy only" in captured.err and "spike-strength" not in captured.out


def test_a_sweep_on_a_backend_draws_numpys_seeds_and_keeps_its_own_store_key(tmp_path):
    from checkers.store import ResultStore
    from checkers.sweep import plan, sweep
    on_numpy, moved = (plan("spike-strength", {"psi1": ["2"]}, 1, backend=name) for name in ("numpy", STRICT))
    assert moved[0].seed == on_numpy[0].seed and moved[0].key != on_numpy[0].key
    assert '"backend"' not in on_numpy[0].key  # the keys of numpy's tasks are as they were before backends
    with pytest.raises(InvalidInput, match="runs on numpy only"):
        plan("dual-kernel", {"rho": ["0.5"]}, 1, backend=STRICT)
    store = tmp_path / "runs.sqlite"
    sweep(on_numpy + moved, store, executor="serial", progress=False)
    with ResultStore(store, readonly=True) as opened:
        verdicts = [record.verdict for record in opened.records(["spike-strength"])]
    assert len(verdicts) == 2
    (first,), (second,) = (verdict.predictions for verdict in verdicts)
    assert abs(first.observed - second.observed) <= AGREEMENT * abs(first.observed)
