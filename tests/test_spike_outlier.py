"""Tests of checkers.onestep.spike_outlier beyond the family's shared ones (tests/test_onestep_family.py)."""

import numpy as np


def test_the_float32_draws_measure_what_float64_draws_measure(monkeypatch):
    """The check's float32 (docs/derivations/onestep.md#spike-outlier, "In float32"): on the same draws every
    measurement (both overlaps, the realized strength, the alignment) agrees with float64 to 1e-5 (measured: 1e-7 at
    most), under a thousandth of the spike overlap's resolution (0.035)."""
    from checkers.onestep import spike_outlier as checker
    assert checker.DTYPE is np.float32  # what the check ships, and what this comparison vouches for
    instance = checker.CHECKER.theorem.instance({})
    rows = {}
    for dtype in (np.float64, np.float32):
        monkeypatch.setattr(checker, "DTYPE", dtype)
        rows[dtype] = checker._outlier_draws(instance, 200, 4, np.random.SeedSequence(7))
    assert rows[np.float32].shape == (4, len(checker.MEASURED))
    np.testing.assert_allclose(rows[np.float32], rows[np.float64], rtol=0, atol=1e-5)
