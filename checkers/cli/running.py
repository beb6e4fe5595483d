"""The running commands: check, sweep, calibrate and report (simulations, on `checkers.executors`' pool)."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

from checkers import registry
from checkers.budget import ANNOUNCE_SECONDS, DEFAULT_FALSE_FAIL_RATE, DEFAULT_SEEDS, PAPER
from checkers.cost import at_once_refusal, describe, duration
from checkers.engine import run_check
from checkers.executors import INTERRUPTS, said
from checkers.executors import workers as pool_of
from checkers.offers import backend_for, estimated, fidelity_for
from checkers.outcome import (
    ERROR,
    EXIT_PASS,
    FAIL,
    INCONCLUSIVE,
    PASS,
    calibration_standing,
    claim_of,
    exit_code,
    failed_as_expected,
    reading,
    standing,
)
from checkers.paper_scales import paper_fidelity
from checkers.progress import WorkProgress
from checkers.report import output_folder, pyplot, reported_runs, run_standings, write_report
from checkers.sweep import announce, parse_grid, plan, stored_on_interrupt, sweep
from checkers.verdict import Verdict, format_header, format_table, format_verdict_row, table_widths, tested_name
from theorems.errors import InvalidInput, WorkRefused


def _rerun_command(arguments, theorems: list[str], fidelity: str) -> str:
    """The same `thmcheck check` at another fidelity: its parameters, overrides, seed, mutant and rate kept."""
    words = ["thmcheck", "check", *theorems]
    words += [word for name, value in arguments.param for word in ("--param", f"{name}={value}")]
    words += [word for name, value in arguments.overrides for word in ("--set", f"{name}={value}")]
    if arguments.seed:
        words += ["--seed", str(arguments.seed)]
    if arguments.mutant:
        words += ["--mutant", arguments.mutant]
    if arguments.false_fail_rate != DEFAULT_FALSE_FAIL_RATE:
        words += ["--false-fail-rate", repr(arguments.false_fail_rate)]
    return shlex.join(words + ["--fidelity", fidelity])


def check(arguments) -> int:
    """Run the checks, printing each verdict's row as it finishes (on `--workers` processes; the numbers do
    not depend on how many), then the evidence of what did not pass (of every check with --verbose), then one line
    of counts and the time taken. Ctrl-C keeps what finished: it is printed, and the exit is 130."""
    started = time.perf_counter()
    checkers = registry.selected(arguments.theorems, arguments.all)
    jobs = _check_jobs(checkers, dict(arguments.param), dict(arguments.overrides))
    fidelities = _fidelities(arguments, checkers)
    costs = _weigh(arguments, jobs, fidelities)
    common = dict(seed=arguments.seed, false_fail_rate=arguments.false_fail_rate, mutant=arguments.mutant,
                  max_minutes=arguments.max_minutes, backend=arguments.backend)
    plugins = tuple(arguments.plugins_before + arguments.plugin)
    widths = table_widths([tested_name(checker.id, arguments.mutant, checker.theorem.instance(
        parameters, overrides).describe_overrides()) for checker, parameters, overrides in jobs])
    verdicts: dict[str, Verdict] = {}
    if not arguments.json:
        print(format_header(widths), flush=True)  # before the bar, which would otherwise split the header's line
    running = min(arguments.workers, len(jobs))

    # the dearest first, so that the longest checks do not start last and leave a worker idle at the end (the rows
    # print as they finish, and the summary in the order the checks were named)
    submitted = sorted(jobs, key=lambda job: -(costs[job[0].id] or 0.0))
    position = {checker.id: index for index, (checker, _, _) in enumerate(submitted)}
    bar = WorkProgress([costs[checker.id] for checker, _, _ in submitted], running, unit="checks",
                       description="check", enabled=not arguments.json)

    def name_the_running() -> None:  # the checks the workers hold
        bar.describe(", ".join(submitted[index][0].id for index in bar.running()) or "check")

    def finished(verdict: Verdict) -> None:
        verdicts[verdict.theorem] = verdict
        bar.done(position[verdict.theorem])
        if not arguments.json:
            bar.print_above(format_verdict_row(verdict, widths))
        name_the_running()

    name_the_running()

    if min(arguments.workers, len(jobs)) == 1:  # in this process, on the checker objects themselves
        executor, calls = "serial", [(_check_here, (checker, parameters, overrides,
                                                    dict(common, fidelity=fidelities[checker.id])))
                                     for checker, parameters, overrides in submitted]
    else:  # each worker imports the registry (and the plugins) itself
        executor, calls = "processes", [(_check_in_worker, (checker.id, parameters, overrides,
                                                            dict(common, fidelity=fidelities[checker.id]), plugins))
                                        for checker, parameters, overrides in submitted]
    try:
        with pool_of(executor, arguments.workers) as pool:
            pool.run(calls, finished)
    except INTERRUPTS as stop:  # Ctrl-C, SIGINT or SIGTERM: what finished is printed, the workers are stopped
        bar.close()
        _print_verdicts(arguments, [verdicts[c.id] for c, _, _ in jobs if c.id in verdicts], with_table=False)
        word, then = said(stop)
        print(f"thmcheck: {word}; {len(verdicts)} of {len(jobs)} checks finished (printed above)", file=sys.stderr)
        raise then from None
    bar.close()
    ordered = [verdicts[checker.id] for checker, _, _ in jobs]
    _print_verdicts(arguments, [v for v in ordered if arguments.json or arguments.verbose or v.outcome != PASS],
                    with_table=False)
    inconclusive = [v for v in ordered if v.outcome == INCONCLUSIVE]
    # an inconclusive prediction with an observation had too few samples for its resolution, which a higher
    # fidelity adds; one without was left unresolved for a reason it states (sizes where an expansion has not
    # settled, a diverged run), which more samples need not change
    undecided = [v.theorem for v in inconclusive
                 if any(p.outcome == INCONCLUSIVE and p.observed is not None for p in v.predictions)]
    unresolved = [v.theorem for v in inconclusive
                  if any(p.outcome == INCONCLUSIVE and p.observed is None for p in v.predictions)]
    if undecided:
        _say_where_resolved(arguments, [job for job in jobs if job[0].id in undecided], fidelities)
    if unresolved:
        print(f"thmcheck: {len(unresolved)} check(s) left a prediction unresolved for the reason printed with it (an "
              f"expansion not yet settled at the sizes, a diverged run), which more samples need not change: "
              f"{' '.join(unresolved)}", file=sys.stderr)
    expected = [v for v in ordered if failed_as_expected(v.outcome, v.claim, bool(v.expected_failure))]
    if expected:
        print(f"thmcheck: {len(expected)} check(s) failed as expected (a source's form that this project corrects): "
              + "; ".join(f"{v.theorem}: {v.expected_failure}" for v in expected), file=sys.stderr)
    if not arguments.json:
        sys.stderr.flush()
        print(summary_line(ordered, time.perf_counter() - started), flush=True)
    return exit_code(standing(v.outcome, v.claim, bool(v.expected_failure)) for v in ordered)


def summary_line(verdicts: list[Verdict], seconds: float) -> str:
    """One line of counts, each outcome read for its claim ("3 passed, 1 failed as expected, 2 rejected"), and the
    time taken, as pytest ends its run; and the backend, device and dtype, where not numpy's on the CPU."""
    words = {"pass": "passed", "fail": "failed", "fail, as expected": "failed as expected"}
    counts = Counter(words.get(v.reading, v.reading) for v in verdicts)
    order = ["passed", "failed", "failed as expected", "pass, UNEXPECTED (known to fail)", "rejected", "not rejected",
             "inconclusive", "outside assumptions"]
    parts = [f"{counts[word]} {word}" for word in order if counts[word]] + [
        f"{count} {word}" for word, count in counts.items() if word not in order]
    dtypes: dict[tuple, set[str]] = {}  # per backend and device, every dtype its checks computed in
    for v in verdicts:
        if v.backend != "numpy":
            dtypes.setdefault((v.backend, v.device), set()).update(filter(None, (v.dtype or "").split(", ")))
    where = [f"{backend} ({', '.join(filter(None, (device, *sorted(kinds))))})"
             for (backend, device), kinds in sorted(dtypes.items(), key=lambda item: tuple(map(str, item[0])))]
    return (f"{len(verdicts)} check{'s' if len(verdicts) != 1 else ''}: {', '.join(parts)} in {seconds:.0f} s"
            + (f" on {', '.join(where)}" if where else ""))


def _fidelities(arguments, checkers) -> dict[str, str]:
    """The fidelity each check runs at, each checked to be offered, with the backend, before any estimate or run:
    the one asked, except that under `--all --fidelity paper` a check that does not reach its source's scale yet
    (`checkers.paper_scales`) runs at default. At paper fidelity, a line on the standard error first says which
    checks draw their papers' sizes and which run at default though their sources' scale is larger."""
    fidelities = {}
    for checker in checkers:
        backend_for(checker, arguments.backend)
        if arguments.all and arguments.fidelity == PAPER and paper_fidelity(checker) is None:
            fidelities[checker.id] = "default"
        else:
            fidelities[checker.id] = fidelity_for(checker, arguments.fidelity).name
    if arguments.fidelity == PAPER and len(checkers) > 1:
        own = [checker.id for checker in checkers if checker.paper_scale]
        short = [checker.id for checker in checkers if paper_fidelity(checker) is None]
        print(f"thmcheck: at paper fidelity {len(own)} check(s) draw their papers' sizes ({', '.join(own) or 'none'}); "
              f"{len(checkers) - len(own) - len(short)} read default, exact or standing for their sources' scale"
              + (f"; {len(short)} run at default, short of their sources' scale: {', '.join(short)}" if short else "")
              + " (`thmcheck show ID` says which)", file=sys.stderr, flush=True)
    return fidelities


def _weigh(arguments, jobs, fidelities: dict[str, str]) -> dict[str, float | None]:
    """Before any check starts: refuse one estimated beyond --max-minutes or --max-memory (or the memory available),
    and as many as --workers runs at once beyond that memory; say which will take over a minute. Returns each
    check's likely seconds here (None where it has no estimate)."""
    costs, peaks = {}, []
    for checker, parameters, _ in jobs:
        found = estimated(checker, parameters, fidelity=fidelities[checker.id], mutant=arguments.mutant,
                          max_minutes=arguments.max_minutes, max_memory=arguments.max_memory)
        if found is not None and found.likely > ANNOUNCE_SECONDS:
            print(f"thmcheck: {checker.id} at {fidelities[checker.id]} fidelity: {describe(found)}", file=sys.stderr,
                  flush=True)
        costs[checker.id] = None if found is None else found.likely
        peaks.append(None if found is None else found.peak_bytes)
    if reason := at_once_refusal(peaks, min(arguments.workers, len(jobs)), arguments.max_memory):
        raise WorkRefused(reason)
    known = [seconds for seconds in costs.values() if seconds is not None]
    if len(jobs) > 1 and sum(known) > ANNOUNCE_SECONDS:
        print(f"thmcheck: {announce(jobs, list(costs.values()), arguments.workers, unit='check')}", file=sys.stderr,
              flush=True)
    return costs


def _say_where_resolved(arguments, jobs, fidelities: dict[str, str]) -> None:
    """For the checks left inconclusive by too few samples: which fidelity resolves each, about how long it takes
    here (where its checker declares a cost), and the command; or that none of this project's fidelities does."""
    by_fidelity: dict[tuple[str, str | None], list[tuple[str, str]]] = {}
    for checker, parameters, _ in jobs:
        ran = fidelities[checker.id]
        target = checker.resolving_fidelity(ran)
        found = None if target is None else estimated(checker, parameters, fidelity=target, mutant=arguments.mutant)
        described = checker.id
        if found is not None:
            took = "under a second" if found.likely < 1 else f"about {duration(found.likely)}"
            described = f"{checker.id} ({took} on one core here)"
        by_fidelity.setdefault((ran, target), []).append((checker.id, described))
    for (ran, target), named in by_fidelity.items():
        ids = [identifier for identifier, _ in named]
        if target is None:
            print(f"thmcheck: {len(named)} check(s) inconclusive at {ran} fidelity, the highest: their "
                  f"resolution is beyond the sizes this project draws at these parameters: {' '.join(ids)}",
                  file=sys.stderr)
            continue
        print(f"thmcheck: {len(named)} check(s) inconclusive at {ran} fidelity: their samples do not "
              f"resolve the stated resolution there (a true statement may be inconclusive, never fails); "
              f"{target} fidelity resolves {', '.join(text for _, text in named)}; rerun with more: "
              f"{_rerun_command(arguments, ids, target)}",
              file=sys.stderr)


def _check_jobs(checkers, parameters: dict, overrides: dict) -> list[tuple]:
    """(checker, its parameters, its overrides): with several theorems each gets the names it has, and a name
    that no selected theorem has is an error."""
    if len(checkers) == 1:
        return [(checkers[0], parameters, overrides)]
    own_parameters = {checker.id: {name: value for name, value in parameters.items()
                                   if any(p.name == name for p in checker.theorem.parameters)} for checker in checkers}
    constants = {checker.id: {node.name for node in checker.theorem.instance(own_parameters[checker.id]).graph}
                 for checker in checkers}
    for kind, names, known in (("parameter", parameters, own_parameters), ("constant", overrides, constants)):
        for name in names:
            if not any(name in owned for owned in known.values()):
                raise InvalidInput(f"no selected theorem has a {kind} {name!r}")
    return [(checker, own_parameters[checker.id],
             {name: value for name, value in overrides.items() if name in constants[checker.id]})
            for checker in checkers]


def _check_in_worker(theorem_id: str, parameters: dict, overrides: dict, options: dict, plugins: tuple) -> Verdict:
    """One check in a worker process (which imports the registry, and the plugins, itself)."""
    for plugin in plugins:
        registry.load_plugin(plugin)
    return run_check(registry.checker(theorem_id), parameters, overrides, **options)


def _check_here(checker, parameters: dict, overrides: dict, options: dict) -> Verdict:
    return run_check(checker, parameters, overrides, **options)


def _print_verdicts(arguments, verdicts: list[Verdict], *, with_table: bool) -> None:
    if arguments.json:
        print(json.dumps({"results": [v.to_dict() for v in verdicts]}, indent=2, allow_nan=False))
        return
    if with_table:
        print(format_table(verdicts))
    for verdict in verdicts:
        print()
        print(verdict.explain())


def _executor(arguments) -> str:
    """The sweep machinery's executor: dask with --scheduler, else a local process pool, unless chosen."""
    executor = arguments.executor or ("dask" if arguments.scheduler else "processes")
    if arguments.scheduler and executor != "dask":
        raise InvalidInput("--scheduler needs the dask executor")
    return executor


@contextlib.contextmanager
def _say_what_was_stored(arguments, tasks, store: str | None):
    """On an interrupt (Ctrl-C, SIGTERM), say how many of `tasks` (every task, where None) the store holds and how
    to resume (`stored_on_interrupt`), or that a temporary store is gone, then let it end the command."""
    if store is not None:
        with stored_on_interrupt(tasks, store, shlex.join(["thmcheck", *arguments.argv])):
            yield
        return
    try:
        yield
    except INTERRUPTS as stop:
        word, then = said(stop)
        print(f"thmcheck: {word}; this calibration ran in a temporary store, now gone: give --store PATH to make it "
              "resumable", file=sys.stderr)
        raise then from None


def sweep_command(arguments) -> int:
    executor = _executor(arguments)
    tasks = plan(arguments.theorem, parse_grid(arguments.grid), arguments.seeds, fixed=dict(arguments.param),
                 fidelity=arguments.fidelity, false_fail_rate=arguments.false_fail_rate,
                 root_seed=arguments.root_seed, overrides=dict(arguments.overrides), mutant=arguments.mutant,
                 plugins=arguments.plugins_before + arguments.plugin, max_minutes=arguments.max_minutes,
                 max_memory=arguments.max_memory, backend=arguments.backend)
    claim = claim_of(arguments.mutant, dict(arguments.overrides))
    expected_failure = registry.checker(arguments.theorem).theorem.expected_failure
    with _say_what_was_stored(arguments, tasks, arguments.store):
        summary = sweep(tasks, arguments.store, executor=executor, workers=arguments.workers,
                        scheduler=arguments.scheduler, progress=not arguments.json)
    if arguments.json:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        counts = ", ".join(f"{count} {outcome}" for outcome, count in sorted(summary.outcomes.items()))
        rerun = f", {summary.rerun_from_other_code} of them rerun as other code stored them" \
            if summary.rerun_from_other_code else ""
        print(f"{summary.total} tasks ({summary.skipped} already stored, {summary.ran} run{rerun}) in "
              f"{summary.store}: {counts or 'none'}")
        if summary.points:
            print(f"verdict: {reading(summary.verdict, claim, bool(expected_failure))} over "
                  f"{len(summary.points)} point{'s' if len(summary.points) > 1 else ''} ({summary.how})")
    if summary.outcomes.get(ERROR):
        print(f"thmcheck: {summary.outcomes[ERROR]} task(s) raised an error (stored with their message; a rerun "
              "retries them)", file=sys.stderr)
    if failed_as_expected(FAIL, claim, bool(expected_failure)):  # fails are expected here, a pass is not
        if summary.outcomes.get(FAIL):
            print(f"thmcheck: {summary.outcomes[FAIL]} task(s) failed as expected ({expected_failure})",
                  file=sys.stderr)
        if summary.outcomes.get(PASS):
            print(f"thmcheck: {summary.outcomes[PASS]} task(s) of a statement known to fail passed", file=sys.stderr)
    # the sweep's verdict is its points', each pooled over its seeds (`checkers.pooling`)
    return exit_code(standing(point.outcome, claim, bool(expected_failure)) for point in summary.points)


def calibrate_command(arguments) -> int:
    """Calibrate the theorems (or rerun the stale rows of the records); exit 1 where a true statement fails more
    often than stated, or (at default fidelity or above) a mutant survives a run; 4 where a task raised an error."""
    import tempfile

    from checkers import calibration_records
    from checkers.calibrate import calibrate, calibration_tasks, format_calibration, markdown_calibration

    records_path = Path(arguments.records) if arguments.records else calibration_records.RECORDS
    if arguments.record or arguments.stale:  # what the runs' rows go into is checked before any run
        calibration_records.check_records_file(records_path, must_exist=arguments.stale)
    if arguments.stale:
        runs = _stale_runs(arguments, records_path)
        if not runs:
            print(f"thmcheck: every recorded row{' of ' + ', '.join(arguments.theorems) if arguments.theorems else ''}"
                  " is current")
            return EXIT_PASS
    else:
        theorems = [c.id for c in registry.selected(arguments.theorems, arguments.all)]
        runs = [(theorems, dict(fidelity=arguments.fidelity, seeds=arguments.seeds, paired=arguments.paired,
                                parameters=dict(arguments.param)))]
    plugins = arguments.plugins_before + arguments.plugin
    for theorems, settings in runs:  # every run's ids and points validated before any task starts
        for theorem in theorems:
            calibration_tasks(theorem, settings["seeds"], fidelity=settings["fidelity"], plugins=plugins,
                              paired=settings["paired"], parameters=settings["parameters"],
                              max_minutes=arguments.max_minutes, max_memory=arguments.max_memory)
    recorded = calibration_records.load(records_path)  # none where the file does not exist
    executor = _executor(arguments)
    if arguments.record or arguments.stale:  # the code as it is when the runs start, not when they end
        for theorems, _ in runs:
            for theorem in theorems:
                calibration_records.content_hash(theorem)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        store = arguments.store or str(Path(scratch) / "calibration.sqlite")
        with _say_what_was_stored(arguments, None, arguments.store):
            for theorems, settings in runs:
                results += calibrate(theorems, store, **settings, false_fail_rate=arguments.false_fail_rate,
                                     root_seed=arguments.root_seed, executor=executor, workers=arguments.workers,
                                     scheduler=arguments.scheduler, progress=not arguments.json, plugins=plugins,
                                     max_minutes=arguments.max_minutes, max_memory=arguments.max_memory,
                                     measured=_timed(theorems, settings, recorded))
    if arguments.record or arguments.stale:
        _record(results, records_path)
    if arguments.json:
        print(json.dumps([c.to_dict() for c in results], indent=2, allow_nan=False))
    elif arguments.markdown:
        print(markdown_calibration(results))
    else:
        print(format_calibration(results))
    return exit_code(calibration_standing(c.errors, c.contract_holds) for c in results)


def _timed(theorems: list[str], settings: dict, recorded: list) -> dict:
    """By theorem, its recorded row at this run's fidelity and point that timed its runs, to estimate the run by."""
    from checkers import calibration_records
    found = {theorem: calibration_records.timed(registry.checker(theorem).theorem, settings["fidelity"],
                                                settings["parameters"], recorded) for theorem in theorems}
    return {theorem: row for theorem, row in found.items() if row is not None}


def _stale_runs(arguments, records_path: Path) -> list[tuple[list[str], dict]]:
    """The stale rows of the records (of the theorems named, where ids are given), grouped by how they ran:
    (theorem ids, calibrate's settings)."""
    from checkers import calibration_records

    if arguments.all or arguments.param:
        raise InvalidInput("--stale reruns the stale rows of the records at their own points: give no --all or "
                           "--param (ids keep only those theorems' rows)")
    named = {checker.id for checker in registry.selected(arguments.theorems, False)} if arguments.theorems else None
    if arguments.seeds != DEFAULT_SEEDS or arguments.paired or arguments.fidelity != "quick":
        raise InvalidInput("--stale reruns each row at its own fidelity, seeds and pairing: drop --fidelity, --seeds "
                           "and --paired")
    groups: dict[tuple, list[str]] = {}
    registered = {c.id for c in registry.all_checkers()}
    for record in calibration_records.stale(calibration_records.load(records_path)):
        if named is not None and record.theorem not in named:
            continue
        if record.theorem not in registered:
            print(f"thmcheck: {record.theorem} is no longer registered; its row stays until removed",
                  file=sys.stderr)
            continue
        key = (record.fidelity, record.seeds, record.paired, tuple(sorted(record.parameters.items())))
        groups.setdefault(key, []).append(record.theorem)
    return [(theorems, dict(fidelity=fidelity, seeds=seeds, paired=paired, parameters=dict(point)))
            for (fidelity, seeds, paired, point), theorems in groups.items()]


def _record(results, records_path: Path) -> None:
    """Write the calibrations into the records file; for the project's own file, rewrite docs/calibration.md's
    generated tables too. A calibration with runs that raised is not written (its row would read as current): it is
    named, to be rerun."""
    from checkers import calibration_records

    for failed in (result for result in results if result.errors):
        point = ", ".join(f"{name}={value}" for name, value in failed.parameters.items())
        print(f"thmcheck: not recorded: {failed.theorem}{f' ({point})' if point else ''} at {failed.fidelity}: "
              f"{failed.errors} run(s) raised an error; rerun it", file=sys.stderr)
    results = [result for result in results if not result.errors]
    if not results:
        return
    records = calibration_records.record(results, records_path)
    if records_path == calibration_records.RECORDS:
        calibration_records.write_tables(calibration_records.DOCUMENT, records)
    print(f"thmcheck: recorded {len(results)} calibration(s) in {records_path}", file=sys.stderr)


def report(arguments) -> int:
    if not arguments.all and not arguments.theorems and not arguments.store:
        raise InvalidInput("name theorem ids, --all, or --from STORE")
    ids = registry.selection(arguments.theorems, arguments.all, required=False) or None
    if arguments.store and not Path(arguments.store).is_file():
        raise InvalidInput(f"no sweep store at {arguments.store!r}")
    pyplot("reports")  # matplotlib and the folder before any check runs
    output_folder(arguments.out)
    groups = reported_runs(ids, store=arguments.store, fidelity=arguments.fidelity, seed=arguments.seed)
    page = write_report(arguments.out, groups, store=arguments.store, fidelity=arguments.fidelity,
                        seed=arguments.seed, command=shlex.join(["thmcheck", *arguments.argv]))
    if arguments.json:
        print(json.dumps({"report": str(page), "out": str(arguments.out)}, indent=2))
    else:
        print(f"report written to {page}")
    return exit_code(run_standings(groups))
