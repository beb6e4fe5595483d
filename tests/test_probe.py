"""This machine's speed: measured on one core, cached per machine, measured again where the cache is old, another
machine's or unreadable."""

import json
import math

import pytest

from checkers import probe


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("THMCHECK_CACHE", str(tmp_path))
    probe.here.cache_clear()
    yield tmp_path / "probe.json"
    probe.here.cache_clear()


def test_a_measured_probe_has_three_positive_parts_and_names_its_machine():
    measured = probe.measure()
    assert all(0 < part < math.inf for part in (measured.matmul, measured.eigh, measured.elementwise))
    assert measured.seconds == pytest.approx(measured.matmul + measured.eigh + measured.elementwise)
    assert measured.multiply_adds_per_second == pytest.approx(probe.MATMUL_SIZE**3 / measured.matmul)
    assert measured.machine == probe.machine()


def test_the_probe_is_measured_once_then_read_from_the_cache(cache, monkeypatch):
    first = probe.here()
    assert json.loads(cache.read_text())["machine"] == probe.machine()
    probe.here.cache_clear()
    monkeypatch.setattr(probe, "measure", lambda: pytest.fail("measured again"))
    assert probe.here().seconds == pytest.approx(first.seconds, rel=1e-3)


@pytest.mark.parametrize("content", ["{", '{"machine": "elsewhere", "matmul": 1, "eigh": 1, "elementwise": 1, '
                                           '"measured_at": 9e99}', '{"machine": "MACHINE", "matmul": 1, "eigh": 1, '
                                           '"elementwise": 1, "measured_at": 0}', "[]"])
def test_a_cache_that_is_unreadable_another_machines_or_old_is_measured_around(cache, monkeypatch, content):
    cache.write_text(content.replace("MACHINE", probe.machine()))
    fresh = probe.Probe(0.5, 0.5, 0.5, probe.machine())
    monkeypatch.setattr(probe, "measure", lambda: fresh)
    assert probe.here() == fresh
    assert json.loads(cache.read_text())["matmul"] == 0.5


def test_without_a_cache_of_its_own_the_probe_is_cached_with_the_users_others(tmp_path, monkeypatch):
    monkeypatch.delenv("THMCHECK_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert probe.cache_path() == tmp_path / "thmcheck" / "probe.json"


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("THMCHECK_CACHE", str(blocker))  # a file where the cache's folder would be
    probe.here.cache_clear()
    try:
        assert probe.here().seconds > 0
    finally:
        probe.here.cache_clear()
