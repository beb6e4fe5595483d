"""Sweeps: one theorem's check over a grid of parameters and many seeds, serially, on a local process pool,
or on a dask.distributed cluster, with every finished task stored as it completes.

Seeds: task i of a sweep is identified by its key (theorem, parameters, overrides, seed index, fidelity,
false-fail rate, mutant); its seed is drawn from the root SeedSequence spawned at that key
(`checkers.seeds`), so a task's numbers do not depend on the executor, the number of workers or the
order in which tasks finish. A paired task (`Task.paired`: a mutant run on the true statement's draws, as
`thmcheck calibrate --paired` asks) takes the seed of the same task as stated; tasks that share a seed run one
after another in one process, so draws that a checker memoizes independently of the statement
(`checkers.shared_draws`) are simulated once for all of them. Results go to a `ResultStore` (SQLite) one
transaction per task; a re-run skips the keys already stored, so a sweep killed at any point resumes without
loss or duplication.
Where the tasks run is `checkers.executors` (the process pool is `concurrent.futures`, the cluster is dask's).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from checkers import registry
from checkers.arrays import DEFAULT as DEFAULT_BACKEND
from checkers.budget import ANNOUNCE_SECONDS, DEFAULT_FALSE_FAIL_RATE, MAX_CHECK_MINUTES, MAX_TASKS
from checkers.cost import at_once_refusal, duration
from checkers.engine import run_check
from checkers.executors import INTERRUPTS, said
from checkers.executors import workers as pool_of
from checkers.offers import backend_for, estimated, fidelity_for
from checkers.outcome import ERROR
from checkers.pooling import PointVerdict, how_read, pool_points, sweep_outcome
from checkers.progress import WorkProgress
from checkers.seeds import seed_sequence
from checkers.store import ResultStore, code_version, task_key
from checkers.verdict import Verdict
from theorems.errors import CheckError, DeclarationError, InvalidInput, ThmcheckError, WorkRefused


def split_values(text: str) -> list[str]:
    """`V1,V2,...` split at commas outside parentheses, so that `max(z, 0)` stays one value."""
    values, depth, current = [], 0, []
    for character in text:
        if character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
        if character == "," and depth == 0:
            values.append("".join(current).strip())
            current = []
        else:
            current.append(character)
    values.append("".join(current).strip())
    if any(not value for value in values):
        raise InvalidInput(f"empty value in grid {text!r}")
    return values


def parse_grid(arguments: Sequence[str]) -> dict[str, list[str]]:
    """`["rho=0.1,0.5", "activation=relu,tanh"]` -> {"rho": ["0.1", "0.5"], "activation": ["relu", "tanh"]}."""
    grid: dict[str, list[str]] = {}
    for argument in arguments:
        name, separator, values = argument.partition("=")
        name = name.strip()
        if not separator or not name or not values.strip():
            raise InvalidInput(f"--grid expects NAME=V1,V2,..., got {argument!r}")
        if name in grid:
            raise InvalidInput(f"--grid {name} given twice")
        grid[name] = split_values(values)
    return grid


def grid_points(grid: Mapping[str, Sequence[str]]) -> list[dict[str, str]]:
    """The Cartesian product, in a fixed order (names sorted, values as given)."""
    names = sorted(grid)
    return [dict(zip(names, combination)) for combination in itertools.product(*(grid[name] for name in names))]


@dataclass(frozen=True)
class Task:
    """One check of a sweep; picklable, and self-contained for a worker process."""

    theorem: str
    parameters: Mapping[str, str]
    seed_index: int
    fidelity: str
    false_fail_rate: float
    root_seed: int = 0
    overrides: Mapping[str, str] = field(default_factory=dict)
    mutant: str | None = None
    plugins: tuple[str, ...] = ()
    paired: bool = False  # a mutant's task on the seed of the same task as stated (common random numbers)
    max_minutes: float = MAX_CHECK_MINUTES  # the cap on the check's estimated time (`checkers.cost`)
    estimated_seconds: float | None = field(default=None, compare=False)  # likely, where it has an estimate
    backend: str = DEFAULT_BACKEND  # the array library of its matrix work (`checkers.arrays`)
    estimated_bytes: float | None = field(default=None, compare=False)  # its process's peak, where estimated
    max_memory: float | None = None  # the cap on it, in GiB, where one was given

    @property
    def key(self) -> str:
        return task_key(self.theorem, self.parameters, self.seed_index, fidelity=self.fidelity,
                        false_fail_rate=self.false_fail_rate, overrides=self.overrides, mutant=self.mutant,
                        paired=self.paired and self.mutant is not None, backend=self.backend)

    @property
    def draws_key(self) -> str:
        """The key whose seed this task's draws come from: the task as stated when paired, else its own, on numpy
        whatever its backend (the draws are numpy's on every backend)."""
        on_numpy = replace(self, backend=DEFAULT_BACKEND)
        return replace(on_numpy, mutant=None, paired=False).key if self.paired else on_numpy.key

    @property
    def seed(self) -> int:
        """The check's seed: the root SeedSequence spawned at `draws_key`, as a 63-bit integer."""
        state = seed_sequence(self.root_seed, "sweep", self.draws_key).generate_state(2, dtype=np.uint32)
        return (int(state[0]) << 31) | (int(state[1]) >> 1)


def run_task(task: Task) -> tuple[str, Verdict]:
    """Run one task (in whatever process) and return (key, verdict).

    A bug in a theorem or a checker (`CheckError`, `DeclarationError`) is stored as outcome "error" with its
    message, never as a verdict: a sweep that meets one says so, and a later run retries the task."""
    for plugin in task.plugins:
        registry.load_plugin(plugin)
    try:
        verdict = run_check(registry.checker(task.theorem), dict(task.parameters), dict(task.overrides),
                            seed=task.seed, fidelity=task.fidelity, false_fail_rate=task.false_fail_rate,
                            mutant=task.mutant, max_minutes=task.max_minutes, backend=task.backend)
    except (CheckError, DeclarationError) as error:
        verdict = Verdict(theorem=task.theorem, title=task.theorem, provenance="?", outcome=ERROR, predictions=(),
                          parameters=dict(task.parameters), overrides=dict(task.overrides), seed=task.seed,
                          fidelity=task.fidelity, false_fail_rate=task.false_fail_rate, mutant=task.mutant,
                          error=str(error))
    return task.key, verdict


def run_tasks(tasks: Sequence[Task]) -> list[tuple[str, Verdict]]:
    """Run tasks that share a seed one after another in this process (so they share memoized draws)."""
    return [run_task(task) for task in tasks]


def seed_groups(tasks: Sequence[Task]) -> list[list[Task]]:
    """The tasks grouped by the seed their draws come from, in the order each group first appears."""
    groups: dict[str, list[Task]] = {}
    for task in tasks:
        groups.setdefault(task.draws_key, []).append(task)
    return list(groups.values())


@dataclass(frozen=True)
class SweepSummary:
    store: Path
    total: int
    skipped: int
    ran: int
    outcomes: dict[str, int]
    rerun_from_other_code: int = 0  # stored by other code (`code_version`): rerun, not reused
    points: tuple[PointVerdict, ...] = ()  # each grid point's verdict over its seeds (`checkers.pooling`)

    @property
    def verdict(self) -> str:
        """The sweep's outcome: each point's seeds pooled where the test allows it, fail where a point fails."""
        return sweep_outcome(list(self.points))

    @property
    def how(self) -> str:
        """How the points' verdicts were reached, in words (`checkers.pooling.how_read`)."""
        return how_read(list(self.points))

    def to_dict(self) -> dict:
        return {"store": str(self.store), "total": self.total, "already_stored": self.skipped, "ran": self.ran,
                "outcomes": self.outcomes, "rerun_from_other_code": self.rerun_from_other_code,
                "verdict": str(self.verdict), "how": self.how, "points": [p.to_dict() for p in self.points]}


def plan(theorem: str, grid: Mapping[str, Sequence[str]], seeds: int, *, fixed: Mapping[str, str] | None = None,
         fidelity: str = "quick", false_fail_rate: float = DEFAULT_FALSE_FAIL_RATE, root_seed: int = 0,
         overrides: Mapping[str, str] | None = None, mutant: str | None = None,
         plugins: Sequence[str] = (), paired: bool = False, max_minutes: float = MAX_CHECK_MINUTES,
         max_memory: float | None = None, backend: str = DEFAULT_BACKEND) -> list[Task]:
    """The sweep's tasks, validated before anything runs (a bad grid value is an error here, not later, and so is
    a point whose check is estimated beyond `max_minutes` or `max_memory` GiB, `WorkRefused`, or a backend the check
    does not offer);
    with `paired`, a mutant's tasks take the seeds of the statement's own (`Task.paired`)."""
    checker = registry.checker(theorem)
    fidelity_for(checker, fidelity)
    backend_for(checker, backend)
    if not isinstance(seeds, int) or seeds < 1:
        raise InvalidInput(f"--seeds must be a positive integer, got {seeds!r}")
    fixed = dict(fixed or {})
    clash = set(fixed) & set(grid)
    if clash:
        raise InvalidInput(f"parameter {sorted(clash)[0]!r} is both fixed and swept")
    if mutant is not None:
        checker.theorem.mutant(mutant)
    count = math.prod(len(values) for values in grid.values()) * seeds
    if count > MAX_TASKS:
        raise InvalidInput(f"a sweep of {count:,} tasks ({seeds:,} seeds at each of {count // seeds:,} grid points) is "
                           f"more than the {MAX_TASKS:,} one command plans; split the grid or the seeds over several "
                           "commands (one store collects them all)")
    tasks = []
    for point in grid_points(grid):
        parameters = {**fixed, **point}
        checker.theorem.instance(parameters, overrides)  # validates names, domains and overrides
        found = estimated(checker, parameters, fidelity=fidelity, mutant=mutant, max_minutes=max_minutes,
                          max_memory=max_memory)
        tasks.extend(Task(theorem, parameters, index, fidelity, false_fail_rate, root_seed, dict(overrides or {}),
                          mutant, tuple(plugins), paired, max_minutes, found and found.likely, backend,
                          found and found.peak_bytes, max_memory)
                     for index in range(seeds))
    return tasks


def sweep(tasks: Sequence[Task], store_path: str | Path, *, executor: str = "processes", workers: int | None = None,
          scheduler: str | None = None, progress: bool = True) -> SweepSummary:
    """Run the tasks not yet in the store from this code (`checkers.store.code_version`: a result another version
    stored is rerun and replaced, never reused) and store each as it finishes, on `checkers.executors`' pool:
    "serial", "processes" (`workers` local processes, default: the CPU count) or "dask" (`scheduler` a running
    scheduler's address, or "local" to start a LocalCluster of `workers` single-threaded worker processes). The
    pool is reached before the store is opened, so a scheduler that does not answer leaves no store behind. The work
    left is announced on stderr (`announce`) where a person watches it there or it is estimated above a minute, and
    a progress bar follows it where `progress` and stderr is a terminal (`checkers.progress`)."""
    version = code_version()
    cap = next((task.max_memory for task in tasks if task.max_memory), None)
    peaks = [task.estimated_bytes for task in tasks]
    # a cluster's workers may be other machines: there each task is judged alone, when planned
    slots = workers or os.cpu_count() or 1  # the pool's own default (`checkers.executors`)
    if executor != "dask" and (reason := at_once_refusal(peaks, slots, cap)):
        raise WorkRefused(reason)
    with pool_of(executor, workers, scheduler) as pool, ResultStore(store_path) as store:
        done = store.keys(finished_only=True, version=version)
        other_code = len({task.key for task in tasks} & (store.keys(finished_only=True) - done))
        pending = [task for task in tasks if task.key not in done]
        by_key = {task.key: task for task in pending}
        groups = seed_groups(pending)
        weights = [_group_seconds(group) for group in groups]
        known = sum(weight for weight in weights if weight is not None)
        if pending and (progress and sys.stderr.isatty() or known > ANNOUNCE_SECONDS):
            print(f"thmcheck: {announce(pending, weights, slots)}" + (f" ({len(tasks) - len(pending)} already "
                  "stored)" if len(pending) < len(tasks) else ""), file=sys.stderr, flush=True)
        group_of = {task.key: index for index, group in enumerate(groups) for task in group}
        bar = WorkProgress(weights, slots, unit="tasks" if len(groups) == len(pending) else "seed groups",
                           description="sweep", enabled=progress)

        def record(results: list[tuple[str, Verdict]]) -> None:
            for key, verdict in results:
                task = by_key[key]
                store.add(key, task.theorem, task.parameters, task.seed_index, task.seed, task.fidelity, verdict,
                          version)
            if results:
                bar.done(group_of[results[0][0]])

        try:
            pool.run([(run_tasks, (group,)) for group in groups], record)
        finally:
            bar.close()
        keys = {task.key for task in tasks}
        records = [r for r in store.records([tasks[0].theorem] if tasks else []) if r.task_key in keys]
    return SweepSummary(Path(store_path), len(tasks), len(tasks) - len(pending), len(pending),
                        dict(Counter(r.outcome for r in records)), other_code,
                        tuple(pool_points(r.verdict for r in records)))


def _group_seconds(group: Sequence[Task]) -> float | None:
    """The estimated seconds of a group of tasks run as one call (None where none of them has an estimate)."""
    known = [task.estimated_seconds for task in group if task.estimated_seconds is not None]
    return sum(known) * len(group) / len(known) if known else None


def announce(tasks: Sequence, weights: Sequence[float | None], workers: int, unit: str = "task") -> str:
    """The work ahead in words: how many tasks (or other `unit`s), their estimated time on one core here and on
    `workers` (the calls of `weights` spread over them, none shorter than the longest), and how many have no
    estimate."""
    known = [weight for weight in weights if weight is not None]
    words = f"{len(tasks)} {unit}{'s' if len(tasks) != 1 else ''} to run"
    if not known:
        return words + ", with no estimate of their time"
    total = sum(known)
    words += f", about {duration(total)} of one core's time here"
    if workers > 1 and len(weights) > 1:
        words += f", about {duration(max(total / min(workers, len(weights)), max(known)))} on {workers} workers"
    missing = len(weights) - len(known)
    return words + (f" ({missing} without an estimate)" if missing else "")


@contextlib.contextmanager
def stored_on_interrupt(tasks: Sequence[Task] | None, store: str | Path, command: str):
    """On an interrupt (Ctrl-C, SIGTERM), say how many of `tasks` (every task, where None) `store` holds and that
    `command` resumes there, then let the interrupt end the command; a store that cannot be read then goes
    unmentioned (the interrupt is what matters)."""
    try:
        yield
    except INTERRUPTS as stop:
        try:
            with ResultStore(store, readonly=True) as opened:
                stored = opened.keys(finished_only=True)
        except ThmcheckError:
            raise stop from None
        done = f"{len(stored)} tasks" if tasks is None else \
            f"{len(stored & {task.key for task in tasks})} of {len(tasks)} tasks"
        word, then = said(stop)
        print(f"thmcheck: {word}; stopped with {done} stored in {store}; the same command resumes there: {command}",
              file=sys.stderr)
        raise then from None
