"""The flake meter: every check a test runs at its fixed seed, rerun at more seeds, and how often its outcome differs.

`pytest --flake-seeds 50 [tests...]` replaces `checkers.engine.run_check` for the session (before the test modules
import it) by one that returns the test's own verdict, then reruns the same check at seeds seed + 1 ... seed + 49
and records each verdict's outcome. A test that asserts an outcome its check reaches only at its fixed seed is one
whose rows here differ often. Calls whose own run took longer than `--flake-max-seconds` (default 30) are listed
as not metered, with their time: the main job's long checks are measured over seeds by `thmcheck calibrate`
(docs/calibration.md). The rows go to the terminal and, as JSON, to `--flake-report` (default
flake-report.json); under pytest-xdist each worker writes its own part and the controller merges them. The meter
reports; a test that counts its reader's calls fails under it, since the reruns call the reader too.
"""

from __future__ import annotations

import functools
import json
import time
from collections import Counter
from pathlib import Path

import pytest

SEEDS_OPTION, MAX_SECONDS_OPTION, REPORT_OPTION = "--flake-seeds", "--flake-max-seconds", "--flake-report"
# a call whose outcome differs from its fixed seed's in more than this share of the other seeds makes a test that
# fails one run in twenty when its seed is changed: reported as seed-lucky
SEED_LUCKY_SHARE = 0.05

_rows: list[dict] = []
_current_test: list[str] = [""]


def pytest_addoption(parser) -> None:
    group = parser.getgroup("flake meter")
    group.addoption(SEEDS_OPTION, type=int, default=0, metavar="N",
                    help="rerun every check a test runs at N - 1 more seeds and report how often its outcome differs")
    group.addoption(MAX_SECONDS_OPTION, type=float, default=30.0, metavar="S",
                    help="meter only the calls whose own run took at most S seconds (default 30)")
    group.addoption(REPORT_OPTION, default="flake-report.json", metavar="PATH", help="the meter's JSON report")


def pytest_configure(config) -> None:
    seeds = config.getoption(SEEDS_OPTION)
    if seeds < 2:
        return
    import checkers.engine
    checkers.engine.run_check = _metered(checkers.engine.run_check, seeds, config.getoption(MAX_SECONDS_OPTION))


def _metered(run_check, seeds: int, max_seconds: float):
    @functools.wraps(run_check)
    def metered(checker, parameters=None, overrides=None, *, seed: int = 0, **options):
        started = time.perf_counter()
        verdict = run_check(checker, parameters, overrides, seed=seed, **options)
        seconds = time.perf_counter() - started
        row = {"test": _current_test[0], "theorem": checker.id, "parameters": dict(parameters or {}),
               "overrides": dict(overrides or {}), "mutant": options.get("mutant"),
               "fidelity": options.get("fidelity", "default"), "seed": seed, "outcome": _plain(verdict.outcome),
               "seconds": round(seconds, 2)}
        if seconds <= max_seconds:
            row["others"] = dict(Counter(_outcome(run_check, checker, parameters, overrides, seed + k, options)
                                         for k in range(1, seeds)))
        _rows.append(row)
        return verdict
    return metered


def _plain(outcome) -> str:
    return str(getattr(outcome, "value", outcome))


def _outcome(run_check, checker, parameters, overrides, seed: int, options: dict) -> str:
    try:
        return _plain(run_check(checker, parameters, overrides, seed=seed, **options).outcome)
    except Exception as error:  # noqa: BLE001 - a seed at which the check raises is an outcome to report
        return f"error: {type(error).__name__}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    _current_test[0] = item.nodeid
    try:
        return (yield)
    finally:
        _current_test[0] = ""


def differing(row: dict) -> tuple[int, int]:
    """(how many of the other seeds gave another outcome, how many there were)."""
    others = row.get("others", {})
    return sum(count for outcome, count in others.items() if outcome != row["outcome"]), sum(others.values())


def upper_bound(count: int, total: int) -> float:
    """The Clopper-Pearson 95% upper bound on a rate seen `count` times in `total`."""
    if count >= total:
        return 1.0
    from scipy.special import betaincinv
    return float(betaincinv(count + 1, total - count, 0.975))


def seed_lucky(rows: list[dict]) -> list[dict]:
    return [row for row in rows if (counts := differing(row))[1] and counts[0] > SEED_LUCKY_SHARE * counts[1]]


def pytest_sessionfinish(session) -> None:
    config = session.config
    if config.getoption(SEEDS_OPTION) < 2:
        return
    report = Path(config.getoption(REPORT_OPTION))
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker is not None:  # an xdist worker: its part, merged by the controller
        report.with_name(f"{report.name}.{worker}").write_text(json.dumps(_rows))
        return
    rows = list(_rows)
    for part in sorted(report.parent.glob(f"{report.name}.gw*")):
        rows += json.loads(part.read_text())
        part.unlink()
    report.write_text(json.dumps({"seeds": config.getoption(SEEDS_OPTION), "rows": rows}, indent=1))
    config._flake_rows = rows


def pytest_terminal_summary(terminalreporter, config) -> None:
    rows = getattr(config, "_flake_rows", None)
    if rows is None:
        return
    write = terminalreporter.write_line
    metered = [row for row in rows if "others" in row]
    write(f"flake meter: {len(metered)} checks rerun at {config.getoption(SEEDS_OPTION) - 1} more seeds each, "
          f"{len(rows) - len(metered)} not metered (longer than {config.getoption(MAX_SECONDS_OPTION):g} s)")
    for row in sorted(metered, key=lambda row: -differing(row)[0]):
        count, total = differing(row)
        if count:
            point = ", ".join(f"{k}={v}" for k, v in {**row["parameters"], **row["overrides"]}.items())
            write(f"  {row['test']}: {row['theorem']}{' mutant ' + row['mutant'] if row['mutant'] else ''}"
                  f"{' at ' + point if point else ''} ({row['fidelity']}): {row['outcome']} at seed {row['seed']}, "
                  f"another outcome at {count} of {total} seeds (rate <= {upper_bound(count, total):.2g}, 95%): "
                  f"{row['others']}")
    if not any(differing(row)[0] for row in metered):
        write("  every metered check reached its fixed seed's outcome at every other seed")
    for row in sorted((row for row in rows if "others" not in row), key=lambda row: -row["seconds"]):
        write(f"  not metered: {row['test']}: {row['theorem']} ({row['fidelity']}, {row['seconds']:.0f} s)")
    lucky = seed_lucky(rows)
    write(f"seed-lucky (another outcome at more than {SEED_LUCKY_SHARE:.0%} of the seeds): {len(lucky)}"
          + "".join(f"\n  {row['test']} ({row['theorem']})" for row in lucky) + f"; report in "
          f"{config.getoption(REPORT_OPTION)}")
