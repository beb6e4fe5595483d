"""`thmcheck reproduce`: a paper's figure setting drawn from a theorem's statement and this project's simulations.

Each figure is a preset: the theorem, the swept parameter and its values, the parameters held at the paper's setting
(docs/guide.md#reproducing-a-papers-figure names each source), and the predictions drawn. The runs go through
the sweep machinery into DIR/runs.sqlite (so a reproduction resumes), and each prediction is drawn as the report
draws it (`checkers.report_figures`): the statement's theory over the whole range with its resolution as a band, the
simulated points with 95% intervals. Every figure says it is this project's simulation at the paper's setting, at
the fidelity it ran; DIR/ID.json holds the points and the theory curves.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from checkers import registry
from checkers.files import save_figure
from checkers.report_figures import AS_STATED, axis, draw_series, points, theory_curve, wrapped
from checkers.store import ResultStore
from checkers.sweep import plan, stored_on_interrupt, sweep
from checkers.verdict import json_safe
from theorems.errors import InvalidInput

THEORY_POINTS = 41  # evenly over the swept range: fine enough that a smooth peak is drawn without a corner
THEORY_SECONDS = 240.0  # per curve; a reproduction waits for its theory, the report does not


@dataclass(frozen=True)
class Figure:
    """A paper's figure setting: what is swept, what is held, what is drawn, and whose figure it is."""

    theorem: str
    paper: str
    axis: str
    values: tuple[str, ...]
    predictions: tuple[str, ...]
    fixed: dict[str, str] = field(default_factory=dict)
    seeds: int = 3
    xlabel: str = ""  # the swept parameter in the paper's notation (default: its name)
    # the predictions a paper compares on one panel: (the panel's y label, ((prediction, its series' label), ...));
    # by default each prediction on its own panel, labelled by its name
    panels: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    def panel_list(self) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
        return self.panels or tuple((name, ((name, ""),)) for name in self.predictions)


FIGURES = {
    "giant-step-risk": Figure(
        theorem="giant-step-risk",
        paper="Cui et al. (ICML 2024), Result 3.3 against the network and the spiked random features, at the setting "
              "of the authors' Simulations.ipynb (tanh student and teacher, alpha0 = 0.5, eta~ = 1, lambda_C = 0.01)",
        axis="sample_ratio", values=("0.5", "1", "2", "4"),
        predictions=("srf-test-error", "test-error", "srf-train-error", "train-error"),
        fixed={"alpha0": "0.5", "eta": "1", "penalty": "0.01"},
        xlabel="alpha = n/p, readout samples per neuron",
        panels=(("test error", (("srf-test-error", "sRF"), ("test-error", "network"))),
                ("training error", (("srf-train-error", "sRF"), ("train-error", "network"))))),
    "mixture-equivalence": Figure(
        theorem="mixture-equivalence",
        paper="Demir and Dogan, Figure 1b's setting (beta = 3/4 - 0.01, degree 3; the learning-rate exponent alpha "
              "swept), here with a tanh student",
        axis="alpha", values=("0", "0.25", "0.5", "0.75"),
        predictions=("generalization-gap-at-500", "train-gap-at-500"),
        fixed={"beta": "0.74"}),
    "spike-outlier": Figure(
        theorem="spike-outlier",
        paper="Ba et al. (NeurIPS 2022), the spike after one step against the step size: the BBP overlaps of W_1's top "
              "singular vector, zero below the threshold",
        axis="learning_rate", values=("1", "2", "3", "4", "6", "8"), predictions=("spike-overlap", "teacher-overlap"),
        xlabel="eta, the step size",
        panels=(("overlap of u_1(W_1)",
                 (("spike-overlap", "with zeta/|zeta|"), ("teacher-overlap", "with beta_*"))),)),
}


def figure_of(theorem_id: str) -> Figure:
    if theorem_id not in FIGURES:
        raise InvalidInput(f"no paper figure is set up for {theorem_id!r}; `reproduce` draws: {', '.join(FIGURES)}")
    return FIGURES[theorem_id]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _extrapolation(records: list[dict], predictions: tuple[str, ...]) -> str:
    """What each point is, where the runs extrapolate the drawn `predictions` in their size: '; each point
    extrapolated to d -> infinity from d = 100, 200, 400' (the size's name and values read from the runs' own account
    of their readings, `checkers.convergence.bounded_extrapolation`'s 'extrapolated as L + B d^-e ...')."""
    methods = [p.method for record in records for p in record["verdict"].predictions
               if p.method and p.name in predictions]
    extrapolated = [found for method in methods if (found := re.search(r"extrapolated as L \+ B (\w+)\^", method))]
    if not extrapolated:
        return ""
    size = extrapolated[0].group(1)
    sizes = sorted({int(value) for value in re.findall(rf"\b{size} = (\d+)", extrapolated[0].string)})
    drawn = f" from {size} = {', '.join(map(str, sizes))}" if sizes else ""
    return f"; each point extrapolated to {size} -> infinity{drawn}"


def figure_tasks(theorem_id: str, *, fidelity: str = "default", seeds: int | None = None,
                 values: tuple[str, ...] | None = None, max_minutes: float = 240.0,
                 max_memory: float | None = None) -> list:
    """The sweep's tasks of the figure: each value of its axis, `seeds` (default: the figure's) seeds a point."""
    figure = figure_of(theorem_id)
    registry.checker(theorem_id)  # registered (a plugin could shadow nothing here, but say so if it is missing)
    seeds = figure.seeds if seeds is None else seeds
    return plan(theorem_id, {figure.axis: list(values or figure.values)}, seeds, fixed=figure.fixed,
                fidelity=fidelity, max_minutes=max_minutes, max_memory=max_memory)


def reproduce(theorem_id: str, out: str | Path, *, fidelity: str = "default", seeds: int | None = None,
              values: tuple[str, ...] | None = None, executor: str = "processes", workers: int | None = None,
              scheduler: str | None = None, max_minutes: float = 240.0, max_memory: float | None = None,
              progress: bool = True, command: str = "") -> dict:
    """Run the figure's sweep (resuming DIR/runs.sqlite), draw each prediction to DIR/ID-PREDICTION.png and write
    DIR/ID.json; returns what the JSON holds."""
    from checkers.report import pyplot

    figure = figure_of(theorem_id)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidInput(f"--out {out} is a file, not a folder")
    seeds = figure.seeds if seeds is None else seeds
    tasks = figure_tasks(theorem_id, fidelity=fidelity, seeds=seeds, values=values, max_minutes=max_minutes,
                         max_memory=max_memory)
    out.mkdir(parents=True, exist_ok=True)
    grid = {figure.axis: list(values or figure.values)}
    store = out / "runs.sqlite"
    with stored_on_interrupt(tasks, store, command or f"thmcheck reproduce {theorem_id} --out {out}"):
        sweep(tasks, store, executor=executor, workers=workers, scheduler=scheduler, progress=progress)
    wanted = {task.key for task in tasks}
    with ResultStore(store, readonly=True) as opened:
        records = [{"parameters": r.parameters, "seed_index": r.seed_index, "verdict": r.verdict}
                   for r in opened.records([theorem_id]) if r.task_key in wanted]
    plt = pyplot("reproduce")
    axis_name, xs = axis(records)
    caption = (f"this project's simulation at the paper's setting: {fidelity} fidelity, "
               f"{seeds} seed{'s' if seeds > 1 else ''} a point" + _extrapolation(records, figure.predictions))
    drawn = {}
    for ylabel, series in figure.panel_list():
        found_series = [(name, tag, found) for name, tag in series
                        if (found := points(records, xs, [(AS_STATED, "")] * len(records), (AS_STATED, ""), name))]
        if not found_series:
            continue
        plot, axes = plt.subplots(figsize=(6.6, 4.4))
        stem = f"{theorem_id}-{found_series[0][0]}" if len(series) == 1 else f"{theorem_id}-panel-{_slug(ylabel)}"
        for index, (name, tag, found) in enumerate(found_series):
            curve = theory_curve(theorem_id, name, records[0], axis_name, xs, count=THEORY_POINTS,
                                 seconds=THEORY_SECONDS)
            draw_series(axes, found, curve, f"C{index}", tag)
            drawn[name] = {"figure": f"{stem}.png", "vector": f"{stem}.svg", "panel": ylabel, "series": tag,
                           "points": found,
                           "theory": None if curve is None else [
                               {"x": x, "value": value, "lower": lower, "upper": upper, "resolution": resolution,
                                "tested": tested} for x, value, lower, upper, resolution, tested in curve]}
        axes.set_xlabel(figure.xlabel or f"{axis_name} (dimensionless)")
        axes.set_ylabel(ylabel)
        axes.set_title(wrapped(f"{theorem_id}: {ylabel}. {figure.paper}", width=90, lines=4), fontsize=7)
        plot.text(0.01, 0.01, wrapped(caption, width=150, lines=2), fontsize=6, color="0.35")
        axes.legend(fontsize=6)
        plot.tight_layout(rect=(0, 0.05, 1, 1))
        for suffix in ("png", "svg"):
            save_figure(plot, out / f"{stem}.{suffix}", dpi=110)
        plt.close(plot)
    runs = [{axis_name: x, "seed_index": record["seed_index"], "outcome": str(record["verdict"].outcome),
             "predictions": {p.name: str(p.outcome) for p in record["verdict"].predictions}}
            for x, record in sorted(zip(xs, records), key=lambda pair: (pair[0], pair[1]["seed_index"]))]
    result = {"theorem": theorem_id, "paper": figure.paper, "caption": caption, "fidelity": fidelity,
              "seeds": seeds, "axis": axis_name, "values": grid[figure.axis], "fixed": figure.fixed,
              "command": command, "runs": runs, "predictions": drawn}
    (out / f"{theorem_id}.json").write_text(json.dumps(json_safe(result), indent=1, allow_nan=False) + "\n")
    return result


def reproduce_command(arguments) -> int:
    """Run and draw the figure; print each point's verdicts and a summary line. The exit code reads the runs as
    `thmcheck check` reads its checks (3 where some are inconclusive and none fails)."""
    from checkers.outcome import Claim, exit_code, standing

    values = None
    if arguments.values:
        values = tuple(v.strip() for v in arguments.values.split(",") if v.strip())
        if not values:
            raise InvalidInput("--values needs at least one value")
    result = reproduce(arguments.theorem, arguments.out, fidelity=arguments.fidelity, seeds=arguments.seeds,
                       values=values, executor=arguments.executor or "processes", workers=arguments.workers,
                       max_minutes=arguments.max_minutes, max_memory=arguments.max_memory,
                       progress=not arguments.json,
                       command=shlex.join(["thmcheck", *arguments.argv]))
    if arguments.json:
        print(json.dumps(json_safe(result), indent=1, allow_nan=False))
    else:
        for name, drawn in result["predictions"].items():
            print(f"{name}: {Path(arguments.out) / drawn['figure']}"
                  + ("" if drawn["theory"] else " (theory at the runs' points only)"))
        print(f"points and theory: {Path(arguments.out) / (arguments.theorem + '.json')}")
        for point in _by_point(result):
            print(point)
        outcomes = Counter(run["outcome"] for run in result["runs"])
        print(f"{len(result['runs'])} runs: " + ", ".join(f"{count} {outcome}" for outcome, count in
                                                           sorted(outcomes.items())))
    if not result["predictions"]:
        raise InvalidInput(f"no prediction of {arguments.theorem} had a reading to draw at these settings")
    return exit_code(standing(run["outcome"], Claim.STATED, False) for run in result["runs"])


def _by_point(result: dict) -> list[str]:
    """One line per value of the swept parameter: each seed's verdict, with the predictions that did not pass."""
    lines, axis_name = [], result["axis"]
    for x in dict.fromkeys(run[axis_name] for run in result["runs"]):
        runs = [run for run in result["runs"] if run[axis_name] == x]
        said = []
        for run in runs:
            others = [f"{name} {outcome}" for name, outcome in run["predictions"].items() if outcome != "pass"]
            said.append(run["outcome"] + (f" ({', '.join(others)})" if others and run["outcome"] != "pass" else ""))
        lines.append(f"  {axis_name} = {x:g}: {'; '.join(said)}")
    return lines
