"""The report's figures: per prediction, the statement's theory over the swept parameter with its resolution as a
band, the runs as points, and every conjecture and mutant overlaid on the same axes.

The theory is the prediction evaluated from the statement alone on a fine grid of the first swept numeric
parameter, over the whole range, where the prediction is not tested too (dotted: below the BBP threshold, say,
where it predicts 0); where that needs the simulation, a line through the runs. Monte Carlo estimates are pooled
over seeds with 95% t intervals (from the stored standard errors and degrees of freedom); deterministic
observations are margins against the claim, with the band of their stated accuracy. A conjecture's or a mutant's
claim is drawn in its own colour beside the statement's, with its runs.
"""

from __future__ import annotations

import math
import textwrap
import time
from collections import defaultdict
from pathlib import Path

from checkers import registry
from checkers.pooling import pooled_estimate, why_not_pooled
from checkers.stats import critical_value
from checkers.verdict import PredictionResult
from theorems.claims import STATED
from theorems.errors import ThmcheckError

MAX_PANELS = 8
MAX_SERIES = 6
THEORY_POINTS = 25
THEORY_SECONDS = 6.0  # per curve: a prediction too slow to evaluate on a fine grid is drawn at the runs only
AS_STATED = STATED


def number(value):
    return None if value is None else float(value)


def label(parameters: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(parameters.items()))


def axis(records: list[dict]) -> tuple[str, list]:
    """The first swept parameter whose values are all numbers, else the grid point's label."""
    names = sorted({name for r in records for name in r["parameters"]})
    for name in names:
        values = {str(r["parameters"].get(name)) for r in records}
        if len(values) > 1:
            try:
                return name, [float(r["parameters"][name]) for r in records]
            except (ValueError, KeyError):
                continue
    labels = sorted({label(r["parameters"]) for r in records})
    return "grid point", [labels.index(label(r["parameters"])) for r in records]


def _critical(degrees_of_freedom) -> float:
    """The two-sided 95% critical value: Student's t with the stored degrees of freedom, normal without them."""
    dof = number(degrees_of_freedom)
    return critical_value(0.05, math.inf if dof is None or math.isnan(dof) else dof)


def points(records: list[dict], xs: list, series_of: list, key, name: str) -> list[dict]:
    """The observations of one prediction in one series, one point per value of x: the seeds at one setting are
    pooled for a Monte Carlo estimate, by `checkers.pooling.pooled_estimate` where the verdict pools them (all of
    them in one point: a figure shows the reading, the verdict's groups test it), else with equal weights (standard
    error sqrt(sum se^2)/k, summed degrees of freedom); a deterministic observation (a computed value or the
    smallest margin a search found) keeps its worst value."""
    by_x: dict[float, list[PredictionResult]] = defaultdict(list)
    for x, record, own in zip(xs, records, series_of):
        match = next((p for p in record["verdict"].predictions if p.name == name), None)
        if own == key and match is not None and match.observed is not None and match.predicted is not None:
            by_x[x].append(match)
    found = []
    for x, matches in sorted(by_x.items()):
        first = matches[0]
        interval = first.predicted_interval or (first.predicted, first.predicted)
        observed = [number(m.observed) for m in matches]
        errors = [number(m.standard_error) for m in matches]
        point = {"x": x, "predicted": number(first.predicted), "lower": number(interval[0]),
                 "upper": number(interval[1]), "kind": first.kind, "statement": first.statement,
                 "seeds": len(matches)}
        if len(matches) > 1 and not why_not_pooled(matches):  # the seeds as the verdict pools them
            pooled = pooled_estimate(matches)
            point.update(observed=pooled.value, deterministic=False,
                         bar=_critical(pooled.degrees_of_freedom) * pooled.standard_error)
        elif all(e is not None and math.isfinite(e) for e in errors):
            dof = sum(number(m.degrees_of_freedom) or math.inf for m in matches)
            point.update(observed=sum(observed) / len(observed), deterministic=False,
                         bar=_critical(dof) * math.sqrt(sum(e * e for e in errors)) / len(errors))
        else:
            worst = min(observed) if math.isfinite(point["lower"]) else max(observed)
            point.update(observed=worst, deterministic=True,
                         bar=max((number(m.tolerance) or 0.0) for m in matches))
        found.append(point)
    return found


def theory_curve(theorem_id: str, name: str, version_record: dict, axis_name: str, xs: list, *,
                 count: int = THEORY_POINTS, seconds: float = THEORY_SECONDS) -> list | None:
    """The prediction evaluated from the statement alone (no simulation) on a fine grid of the swept parameter, the
    other parameters, the overrides and the mutant as in the runs: (x, value, lower, upper, resolution or None,
    tested) per grid point, `tested` false where the prediction does not apply (there the statement still says
    what it predicts). None where that is not possible: the parameter is not numeric, the statement needs the
    simulation, or it is too slow."""
    verdict = version_record["verdict"]
    try:
        theorem = registry.checker(theorem_id).theorem
        parameters = dict(version_record["parameters"])
        if verdict.mutant:
            parameters = theorem.mutant_parameters(verdict.mutant, parameters)
            theorem = theorem.mutated(verdict.mutant)
        prediction = theorem.prediction(name)
        parameter = theorem.parameter(axis_name)
    except ThmcheckError:
        return None
    if parameter.kind not in ("real", "integer") or min(xs) == max(xs):
        return None
    grid = [min(xs) + (max(xs) - min(xs)) * i / (count - 1) for i in range(count)]
    if parameter.kind == "integer":
        grid = sorted({round(x) for x in grid})
    deadline, curve = time.perf_counter() + seconds, []
    for x in grid:
        if time.perf_counter() > deadline:
            return None
        try:
            instance = theorem.instance({**parameters, axis_name: repr(x)}, verdict.overrides, digits=15)
            if instance.assumption_failures():
                continue
            tested = prediction.applies(instance) is None
            target = prediction.predict(instance)
            resolution = float(prediction.resolution(instance)) if tested else None
        except (ThmcheckError, ArithmeticError, ValueError):
            continue
        curve.append((x, float(target.value), float(target.lower), float(target.upper), resolution, tested))
    if len(curve) < 2 or len({point[1] for point in curve}) < 2:
        return None  # a prediction constant along the axis (a margin's bound 0) is drawn by the runs' line
    return curve


def wrapped(title: str, width: int = 80, lines: int = 3) -> str:
    """A figure title in at most `lines` lines of `width` characters, never cut mid-word."""
    parts = textwrap.wrap(title, width)
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = parts[-1][: width - 4] + " ..."
    return "\n".join(parts)


def figures(plt, directory: Path, theorem_id: str, versions: list[tuple[str, list[dict]]]
            ) -> list[tuple[str, str, list[str]]]:
    """One figure per prediction with numbers, every version on the same axes, written to directory/ID-K.png:
    (file name, prediction, the versions other than the statement drawn on it)."""
    records = [record for _, own in versions for record in own]
    if len({label(r["parameters"]) for r in records}) < 2:
        return []  # one setting: the tables say it all; a lone point on a made-up axis would not
    axis_name, xs = axis(records)
    version_of = [version for version, own in versions for _ in own]
    # one series per version and setting of the parameters other than the x axis, the statement's first
    series_of = [(version, label({k: v for k, v in r["parameters"].items() if k != axis_name}))
                 for version, r in zip(version_of, records)]
    series = list(dict.fromkeys(series_of))[:MAX_SERIES]
    names = list(dict.fromkeys(p.name for r in records for p in r["verdict"].predictions if p.observed is not None))
    written = []
    for index, name in enumerate(names[:MAX_PANELS]):
        figure, axes = plt.subplots(figsize=(6.6, 4.2))
        statement, overlaid = "", []
        for colour, key in enumerate(series):
            found = points(records, xs, series_of, key, name)
            if not found:
                continue
            statement = statement or found[0]["statement"]
            version, setting = key
            if version != AS_STATED and version not in overlaid:
                overlaid.append(version)
            first = records[series_of.index(key)]
            curve = theory_curve(theorem_id, name, first, axis_name, xs) if axis_name != "grid point" else None
            tags = [part for part in (version if version != AS_STATED else "", setting if len(
                {s for v, s in series if v == version}) > 1 else "") if part]
            draw_series(axes, found, curve, f"C{colour}", "; ".join(tags), version)
        if not statement:
            plt.close(figure)
            continue
        axes.set_xlabel(axis_name if axis_name == "grid point" else f"{axis_name} (dimensionless)")
        axes.set_ylabel("observed value (dimensionless)")
        axes.set_title(wrapped(f"{name}: {statement}"), fontsize=8)
        axes.legend(fontsize=6)
        figure.tight_layout()
        file_name = f"{theorem_id}-{index}.png"
        figure.savefig(directory / file_name, dpi=90)
        plt.close(figure)
        written.append((file_name, name, overlaid))
    return written


def _claim_and_resolution(axes, curve: list, colour: str, suffix: str) -> None:
    """Where the prediction is tested: its claim where that is an interval (the network's "within 4%" of a formula)
    as a band, and the test's resolution beyond the claim as a fainter one (around the theory, for a point claim),
    so that neither is read as the other."""
    kept = [c for c in curve if c[5] and c[4] is not None and math.isfinite(c[4])]
    if not kept:
        return
    grid = [c[0] for c in kept]
    interval = any(c[3] > c[2] for c in kept)
    if interval:
        axes.fill_between(grid, [c[2] for c in kept], [c[3] for c in kept], color=colour, alpha=0.25, linewidth=0,
                          label="claim: the statement's interval" + suffix)
    axes.fill_between(grid, [c[2] - c[4] for c in kept], [c[3] + c[4] for c in kept], color=colour, alpha=0.08,
                      linewidth=0, label=("and the test's resolution beyond it" if interval
                                          else "theory +- the test's resolution") + suffix)


def draw_series(axes, found: list[dict], curve: list | None, colour: str, tag: str, version: str = AS_STATED
                ) -> None:
    """One version's claim and runs: its theory curve where the statement evaluates on a fine grid (solid where the
    prediction is tested, dotted where it is not; the claim and the resolution as bands, `_claim_and_resolution`),
    else a line through the runs' settings (a band for an interval, dashed for a one-sided bound); Monte Carlo
    estimates as points with 95% error bars; deterministic values as margins, with the band of their stated
    accuracy around the claim."""
    suffix = f" ({tag})" if tag else ""
    claim = "theory" if version == AS_STATED else "claim"
    x_values = [p["x"] for p in found]
    lows, highs = [p["lower"] for p in found], [p["upper"] for p in found]
    if curve:
        grid, values = [c[0] for c in curve], [c[1] for c in curve]
        tested = [c[5] for c in curve]
        axes.plot(grid, [v if t else math.nan for v, t in zip(values, tested)], "-", color=colour,
                  label=claim + suffix)
        if not all(tested):
            axes.plot(grid, values, ":", color=colour, label=f"{claim}, where not tested" + suffix)
        if version == AS_STATED:
            _claim_and_resolution(axes, curve, colour, suffix)
    elif all(math.isfinite(v) for v in lows + highs):
        axes.plot(x_values, [p["predicted"] for p in found], "-", marker="_", markersize=16, color=colour,
                  label=claim + suffix)
        if any(h > lo for lo, h in zip(lows, highs)):
            axes.fill_between(x_values, lows, highs, color=colour, alpha=0.15)
    else:
        lower_bound = math.isfinite(lows[0])
        bound = lows if lower_bound else highs
        kind = "margin >= 0" if lower_bound and not any(bound) else (
            "claimed lower bound" if lower_bound else "claimed upper bound")
        axes.plot(x_values, bound, "--", marker="_", markersize=16, color=colour, label=kind + suffix)
    if all(p["deterministic"] for p in found):
        accuracy = [p["bar"] for p in found]
        if any(accuracy):
            edge = lows if all(math.isfinite(v) for v in lows) else highs
            axes.fill_between(x_values, [e - a for e, a in zip(edge, accuracy)],
                              [e + a for e, a in zip(edge, accuracy)], color="0.6", alpha=0.3,
                              label="within the stated accuracy" + suffix)
        what = "smallest margin found" if found[0]["kind"] == "inequality" else "computed value"
        axes.plot(x_values, [p["observed"] for p in found], "D", color=colour, markersize=4,
                  label=f"{what} (deterministic)" + suffix)
        return
    seeds = max(p["seeds"] for p in found)
    pooled = f", mean of {seeds} seeds" if seeds > 1 else ""
    axes.errorbar(x_values, [p["observed"] for p in found], yerr=[p["bar"] for p in found], fmt="o",
                  color=colour, capsize=3, markersize=4, label=f"simulation{pooled}, 95% interval" + suffix)
