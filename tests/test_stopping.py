"""Stops that land where a library would drop them (`checkers.stopping`)."""

import gc
import signal

import pytest

from checkers import registry, stopping
from checkers.checker import Checker
from checkers.engine import run_check
from checkers.executors import Terminated


def test_a_stop_dropped_by_a_collector_callback_is_raised_at_the_engines_next_phase():
    """Hypothesis registers a garbage collector callback; a SIGTERM whose handler ran inside it was dropped as
    unraisable, and `contract --all` ran on for hours. Now the engine raises it as the measurement ends."""
    def callback(phase, info):
        if phase == "start":
            gc.callbacks.remove(callback)
            signal.raise_signal(signal.SIGTERM)  # its handler runs here, inside the collector

    def read(instance, budget, seed, *observable):
        gc.callbacks.append(callback)
        gc.collect()
        assert callback not in gc.callbacks and isinstance(stopping.arrived(), Terminated)
        return plain.readers["monte-carlo"](instance, budget, seed, *observable)

    plain = registry.checker("dual-kernel")
    dropping = Checker(theorem=plain.theorem, simulation=plain.simulation,
                       readers={**plain.readers, "monte-carlo": read})
    with pytest.raises(Terminated), stopping.handled():
        run_check(dropping, {"activation": "tanh", "rho": "0.7"}, fidelity="quick")
    assert stopping.arrived() is None  # recorded for the command it arrived in alone


@pytest.mark.parametrize("stop, sent", [(Terminated, signal.SIGTERM), (KeyboardInterrupt, signal.SIGINT)],
                         ids=("SIGTERM", "SIGINT"))
def test_an_error_a_library_makes_of_a_stop_is_the_stop(stop, sent):
    """Hypothesis's engine turned a SIGTERM that landed inside it into `FlakyStrategyDefinition`, and the check ended
    as an internal error (exit 4). An error raised in a measurement after a stop arrived is the stop."""
    def read(instance, budget, seed, *observable):
        try:
            signal.raise_signal(sent)
        except BaseException:
            raise RuntimeError("Inconsistent data generation!") from None  # as a library would
        raise AssertionError("the stop did not arrive")

    plain = registry.checker("dual-kernel")
    broken = Checker(theorem=plain.theorem, simulation=plain.simulation,
                     readers={name: read for name in plain.readers})
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a command (a test runner's may differ)
    try:
        with pytest.raises(stop), stopping.handled():
            run_check(broken, {"activation": "tanh", "rho": "0.7"}, fidelity="quick")
    finally:
        signal.signal(signal.SIGINT, previous)
