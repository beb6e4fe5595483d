"""Reports: one static HTML page (plus PNG figures) with the verdict table, each theorem's statement and
provenance, the evidence, and figures of theory against simulation. It opens in a browser with no server.

Input is either a sweep store (`ResultStore`: every stored task of the chosen theorems) or fresh checks
run here (one per theorem, at the given fidelity and seed). Runs are grouped by version: the theorem as
stated, each conjecture (`--set`) and each mutant apart. For each prediction with numbers, one panel over
the first swept numeric parameter: the theory as the statement's own curve on a fine grid (or a line through
the runs where the prediction needs the simulation), Monte Carlo estimates pooled over seeds with 95% t
intervals (from the stored standard errors and degrees of freedom), and deterministic observations as
margins against the claim with the band of their stated accuracy. All quantities the theorems predict are
dimensionless, and the axes say so.
"""

from __future__ import annotations

import html
import math
import shutil
import textwrap
import time
from collections import defaultdict
from pathlib import Path

from checkers import registry
from checkers.check import run_check
from checkers.outcome import FAIL, PASS, SKIPPED, Claim, claim_of, pooled_outcome, reading
from checkers.stats import critical_value
from checkers.store import ResultStore, code_version
from theorems.errors import EnvironmentFault, InvalidInput, ThmcheckError
from theorems.statement import PROVENANCES

MAX_PANELS = 8
MAX_ROWS = 200
MAX_SERIES = 6


def pyplot(what: str):
    """matplotlib.pyplot on the file-only Agg backend, or a clear error naming what needs it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidInput(f"{what} need matplotlib: pip install 'thmcheck[plots]'") from None
    return plt


def build_report(out_dir: str | Path, theorem_ids: list[str] | None = None, *, store: str | Path | None = None,
                 fidelity: str = "quick", seed: int = 0) -> Path:
    """Write out_dir/index.html and out_dir/figures/*.png; return the page's path. A folder that cannot be made or
    written is an `EnvironmentFault` naming it; a report that fails leaves no folder it made behind."""
    plt = pyplot("reports")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise EnvironmentFault(f"--out {str(out)!r} is a file; give a folder (it is made if it does not exist)")
    groups = _from_store(store, theorem_ids) if store else _from_checks(theorem_ids, fidelity, seed)
    made = not out.exists()
    try:
        return _write_report(out, plt, groups, store, fidelity, seed)
    except OSError as error:
        raise EnvironmentFault(f"cannot write the report to {str(out)!r}: {error.strerror or error}") from None
    finally:
        if made and not (out / "index.html").is_file():
            shutil.rmtree(out, ignore_errors=True)


def _write_report(out: Path, plt, groups, store, fidelity: str, seed: int) -> Path:
    if not groups:
        raise InvalidInput("nothing to report: no stored results for the chosen theorems")
    (out / "figures").mkdir(parents=True, exist_ok=True)
    sections, summary_rows = [], []
    for theorem_id, records in sorted(groups.items()):
        parts = []
        for index, (version, own) in enumerate(_versions(records)):
            figure_names = _figures(plt, out / "figures", f"{theorem_id}-{index}", own, version, theorem_id)
            summary_rows.append(_summary_row(theorem_id, version, own))
            parts.append((version, own, figure_names))
        sections.append(_section(theorem_id, parts))
    page, partial = out / "index.html", out / "index.html.partial"
    source = f"sweep store {html.escape(str(store))}" if store else f"checks run at {fidelity} fidelity, seed {seed}"
    partial.write_text(_PAGE.format(
        generated=html.escape(time.strftime("%Y-%m-%d %H:%M:%S")), version=html.escape(code_version()),
        source=source, rows="\n".join(summary_rows), sections="\n".join(sections)), encoding="utf-8")
    partial.replace(page)  # a page is there whole or not at all (a full disk stops the write above)
    return page


# --- inputs -------------------------------------------------------------------------------------

def _from_store(path, theorem_ids) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    with ResultStore(path, readonly=True) as store:
        for record in store.records(theorem_ids):
            groups[record.theorem].append({"parameters": record.parameters, "seed_index": record.seed_index,
                                           "verdict": record.verdict})
    return dict(groups)


def _from_checks(theorem_ids, fidelity, seed) -> dict[str, list[dict]]:
    checkers = registry.all_checkers() if not theorem_ids else [registry.checker(i) for i in theorem_ids]
    groups = {}
    for checker in checkers:
        verdict = run_check(checker, seed=seed, fidelity=fidelity).to_dict()
        groups[checker.id] = [{"parameters": verdict["parameters"], "seed_index": 0, "verdict": verdict}]
    return groups


# --- figures ------------------------------------------------------------------------------------

def _number(value):
    if value is None:
        return None
    if isinstance(value, str):
        return float(value)  # "inf", "-inf", "nan" as JSON writes them
    return float(value)


def _axis(records: list[dict]) -> tuple[str, list]:
    """The first swept parameter whose values are all numbers, else the grid point's label."""
    names = sorted({name for r in records for name in r["parameters"]})
    for name in names:
        values = {str(r["parameters"].get(name)) for r in records}
        if len(values) > 1:
            try:
                return name, [float(r["parameters"][name]) for r in records]
            except (ValueError, KeyError):
                continue
    labels = sorted({_label(r["parameters"]) for r in records})
    return "grid point", [labels.index(_label(r["parameters"])) for r in records]


def _label(parameters: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(parameters.items()))


AS_STATED = "as stated"


def _version(record: dict) -> str:
    """Which statement a stored run tested: the theorem as stated, a conjecture (--set), or a named mutant."""
    verdict = record["verdict"]
    label = f"mutant {verdict['mutant']}" if verdict.get("mutant") else ""
    if verdict.get("overrides"):
        label = (label + ", " if label else "") + "conjecture " + ", ".join(
            f"{name}={value}" for name, value in sorted(verdict["overrides"].items()))
    return label or AS_STATED


def _claim(record: dict) -> Claim:
    """The claim a stored run tested (`checkers.outcome.claim_of`)."""
    return claim_of(record["verdict"].get("mutant"), record["verdict"].get("overrides"))


def _versions(records: list[dict]) -> list[tuple[str, list[dict]]]:
    """The records grouped by version, the statement as stated first: a rejected conjecture or mutant is the
    check working, and is never mixed with the theorem's own runs."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        groups[_version(record)].append(record)
    return sorted(groups.items(), key=lambda item: (item[0] != AS_STATED, item[0]))


def _critical(degrees_of_freedom) -> float:
    """The two-sided 95% critical value: Student's t with the stored degrees of freedom, normal without them."""
    dof = _number(degrees_of_freedom)
    return critical_value(0.05, math.inf if dof is None or math.isnan(dof) else dof)


def _points(records: list[dict], xs: list, series_of: list[str], label: str, name: str) -> list[dict]:
    """The observations of one prediction in one series, one point per value of x: the seeds at one setting are
    pooled (mean, standard error sqrt(sum se^2)/k, summed degrees of freedom) for a Monte Carlo estimate; a
    deterministic observation (a computed value or the smallest margin a search found) keeps its worst value."""
    by_x: dict[float, list[dict]] = defaultdict(list)
    for x, record, own in zip(xs, records, series_of):
        match = next((p for p in record["verdict"]["predictions"] if p["name"] == name), None)
        if own == label and match is not None and match.get("observed") is not None \
                and match.get("predicted") is not None:
            by_x[x].append(match)
    points = []
    for x, matches in sorted(by_x.items()):
        first = matches[0]
        interval = first.get("predicted_interval") or [first["predicted"], first["predicted"]]
        observed = [_number(m["observed"]) for m in matches]
        errors = [_number(m.get("standard_error")) for m in matches]
        point = {"x": x, "predicted": _number(first["predicted"]), "lower": _number(interval[0]),
                 "upper": _number(interval[1]), "kind": first.get("kind"), "statement": first.get("statement", ""),
                 "seeds": len(matches)}
        if all(e is not None and math.isfinite(e) for e in errors):
            dof = sum(_number(m.get("degrees_of_freedom")) or math.inf for m in matches)
            point.update(observed=sum(observed) / len(observed), deterministic=False,
                         bar=_critical(dof) * math.sqrt(sum(e * e for e in errors)) / len(errors))
        else:
            worst = min(observed) if math.isfinite(point["lower"]) else max(observed)
            point.update(observed=worst, deterministic=True,
                         bar=max((_number(m.get("tolerance")) or 0.0) for m in matches))
        points.append(point)
    return points


THEORY_POINTS = 25
THEORY_SECONDS = 6.0  # per curve: a prediction too slow to evaluate on a fine grid is drawn at the runs only


def _theory_curve(theorem_id: str, name: str, version_record: dict, axis_name: str, xs: list) -> list | None:
    """The prediction evaluated from the statement alone (no simulation) on a fine grid of the swept
    parameter, the other parameters, the overrides and the mutant as in the runs; None where that is not
    possible (the parameter is not numeric, the statement needs the simulation, or it is too slow)."""
    verdict = version_record["verdict"]
    try:
        theorem = registry.checker(theorem_id).theorem
        parameters = dict(version_record["parameters"])
        if verdict.get("mutant"):
            parameters = theorem.mutant_parameters(verdict["mutant"], parameters)
            theorem = theorem.mutated(verdict["mutant"])
        prediction = theorem.prediction(name)
        parameter = theorem.parameter(axis_name)
    except ThmcheckError:
        return None
    if parameter.kind not in ("real", "integer") or min(xs) == max(xs):
        return None
    grid = [min(xs) + (max(xs) - min(xs)) * i / (THEORY_POINTS - 1) for i in range(THEORY_POINTS)]
    if parameter.kind == "integer":
        grid = sorted({round(x) for x in grid})
    deadline, curve = time.perf_counter() + THEORY_SECONDS, []
    for x in grid:
        if time.perf_counter() > deadline:
            return None
        try:
            instance = theorem.instance({**parameters, axis_name: repr(x)}, verdict.get("overrides") or {},
                                        digits=15)
            if instance.assumption_failures() or prediction.applies(instance):
                continue
            target = prediction.predict(instance)
        except (ThmcheckError, ArithmeticError, ValueError):
            continue
        curve.append((x, float(target.value), float(target.lower), float(target.upper)))
    if len(curve) < 2 or len({value for _, value, _, _ in curve}) < 2:
        return None  # a prediction constant along the axis (a margin's bound 0) is drawn by the runs' line
    return curve


def _wrapped(title: str, width: int = 80, lines: int = 3) -> str:
    """A figure title in at most `lines` lines of `width` characters, never cut mid-word."""
    wrapped = textwrap.wrap(title, width)
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: width - 4] + " ..."
    return "\n".join(wrapped)


def _figures(plt, directory: Path, stem: str, records: list[dict], version: str,
             theorem_id: str = "") -> list[tuple[str, str]]:
    if len({_label(r["parameters"]) for r in records}) < 2:
        return []  # one setting: the evidence table says it all; a lone point on a made-up axis would not
    axis_name, xs = _axis(records)
    names = []
    for record in records:
        for prediction in record["verdict"]["predictions"]:
            if prediction["name"] not in names and prediction.get("observed") is not None:
                names.append(prediction["name"])
    # one series per setting of the parameters other than the x axis
    series_of = [_label({k: v for k, v in r["parameters"].items() if k != axis_name}) for r in records]
    series = list(dict.fromkeys(series_of))
    written = []
    for index, name in enumerate(names[:MAX_PANELS]):
        figure, axes = plt.subplots(figsize=(6.4, 4.0))
        statement = ""
        for colour, label in enumerate(series[:MAX_SERIES]):
            points = _points(records, xs, series_of, label, name)
            if not points:
                continue
            statement = points[0]["statement"]
            first = records[series_of.index(label)]
            curve = _theory_curve(theorem_id, name, first, axis_name, xs) if axis_name != "grid point" else None
            _draw_series(axes, points, curve, f"C{colour}", label if len(series) > 1 else "", version)
        if not statement:
            plt.close(figure)
            continue
        axes.set_xlabel(axis_name if axis_name == "grid point" else f"{axis_name} (dimensionless)")
        axes.set_ylabel("observed value (dimensionless)")
        title = f"{name}: {statement}" if version == AS_STATED else f"{version}; {name}: {statement}"
        axes.set_title(_wrapped(title), fontsize=8)
        axes.legend(fontsize=6)
        figure.tight_layout()
        file_name = f"{stem}-{index}.png"
        figure.savefig(directory / file_name, dpi=90)
        plt.close(figure)
        written.append((file_name, name))
    return written


def _draw_series(axes, points: list[dict], curve: list | None, colour: str, label: str,
                 version: str = AS_STATED) -> None:
    """The prediction (the statement's curve where it can be evaluated on a fine grid, else a line through the
    runs' settings; a band for an interval; dashed for a one-sided bound) and the observations: Monte Carlo
    estimates as points with 95% error bars, deterministic values (an exact evaluation, the smallest margin a
    search found) as margins, with the band of their stated accuracy around the claim. The prediction of a
    conjecture or a mutant is labelled as such, not as the theorem's."""
    suffix = f" ({label})" if label else ""
    claim = "theory" if version == AS_STATED else version
    x_values = [p["x"] for p in points]
    lows, highs = [p["lower"] for p in points], [p["upper"] for p in points]
    deterministic = all(p["deterministic"] for p in points)
    if curve:
        grid = [c[0] for c in curve]
        axes.plot(grid, [c[1] for c in curve], "-", color=colour, label=claim + suffix)
        if any(c[3] > c[2] for c in curve) and all(math.isfinite(c[2]) and math.isfinite(c[3]) for c in curve):
            axes.fill_between(grid, [c[2] for c in curve], [c[3] for c in curve], color=colour, alpha=0.15)
    elif all(math.isfinite(v) for v in lows + highs):
        axes.plot(x_values, [p["predicted"] for p in points], "-", marker="_", markersize=16, color=colour,
                  label=claim + suffix)
        if any(h > lo for lo, h in zip(lows, highs)):
            axes.fill_between(x_values, lows, highs, color=colour, alpha=0.15)
    else:
        lower_bound = math.isfinite(lows[0])
        bound = lows if lower_bound else highs
        kind = "margin >= 0" if lower_bound and not any(bound) else (
            "claimed lower bound" if lower_bound else "claimed upper bound")
        axes.plot(x_values, bound, "--", marker="_", markersize=16, color=colour,
                  label=kind + ("" if version == AS_STATED else f" ({version})") + suffix)
    if deterministic:
        accuracy = [p["bar"] for p in points]
        if any(accuracy):
            edge = lows if all(math.isfinite(v) for v in lows) else highs
            axes.fill_between(x_values, [e - a for e, a in zip(edge, accuracy)],
                              [e + a for e, a in zip(edge, accuracy)], color="0.6", alpha=0.3,
                              label="within the stated accuracy" + suffix)
        what = "smallest margin found" if points[0]["kind"] == "inequality" else "computed value"
        axes.plot(x_values, [p["observed"] for p in points], "D", color=colour, markersize=4,
                  label=f"{what} (deterministic)" + suffix)
        return
    seeds = max(p["seeds"] for p in points)
    pooled = f", mean of {seeds} seeds" if seeds > 1 else ""
    axes.errorbar(x_values, [p["observed"] for p in points], yerr=[p["bar"] for p in points], fmt="o",
                  color=colour, capsize=3, markersize=4, label=f"simulation{pooled}, 95% interval" + suffix)


# --- HTML ---------------------------------------------------------------------------------------

def _theorem_facts(theorem_id: str, records: list[dict]) -> dict:
    verdict = records[0]["verdict"]
    try:
        theorem = registry.checker(theorem_id).theorem
        return {"title": theorem.title, "provenance": theorem.provenance, "statement": theorem.statement,
                "source": theorem.source, "expected_failure": theorem.expected_failure}
    except ThmcheckError:  # stored by a plugin that is not loaded here
        return {"title": verdict.get("title", theorem_id), "provenance": verdict.get("provenance", "?"),
                "statement": "(theorem not registered in this session)", "source": ""}


def _summary_row(theorem_id: str, version: str, records: list[dict]) -> str:
    facts = _theorem_facts(theorem_id, records)
    outcomes = [r["verdict"]["verdict"] for r in records]
    counts = ", ".join(f"{outcomes.count(o)} {o}" for o in sorted(set(outcomes)))
    overall = pooled_outcome(outcomes)
    if overall in (PASS, FAIL):
        overall = reading(overall, _claim(records[0]), bool(facts.get("expected_failure")))
    css = _css(overall) if version == AS_STATED else "other"
    return (f'<tr class="{css}"><td><a href="#{html.escape(theorem_id)}">{html.escape(theorem_id)}</a></td>'
            f"<td>{html.escape(version)}</td><td>{html.escape(facts['provenance'])}</td><td>{len(records)}</td>"
            f"<td>{html.escape(counts)}</td><td>{html.escape(overall)}</td></tr>")


def _known_failure(facts: dict) -> str:
    reason = facts.get("expected_failure")
    return f"<p><b>Known to fail its check:</b> {html.escape(reason)}</p>\n" if reason else ""


def _css(outcome: str) -> str:
    return {"pass": "pass", "fail": "fail"}.get(outcome, "other")


def _format(value) -> str:
    number = _number(value)
    if number is None:
        return ""
    return f"{number:.6g}"


def _section(theorem_id: str, parts: list[tuple[str, list[dict], list[tuple[str, str]]]]) -> str:
    facts = _theorem_facts(theorem_id, parts[0][1])
    provenance = facts["provenance"]
    blocks = "\n".join(_evidence(theorem_id, version, records, figures) for version, records, figures in parts)
    return f"""<section id="{html.escape(theorem_id)}">
<h2>{html.escape(theorem_id)}: {html.escape(facts['title'])}</h2>
<p><b>Provenance:</b> {html.escape(provenance)} ({html.escape(PROVENANCES.get(provenance, ''))}).
<b>Source:</b> {html.escape(facts['source'])}</p>
<p><b>Statement:</b> {html.escape(facts['statement'])}</p>
{_known_failure(facts)}{blocks}
</section>"""


def _prediction_evidence(prediction: dict) -> str:
    """One prediction in words: its outcome with the numbers, or why it did not apply (no empty brackets)."""
    if prediction.get("observed") is None:
        reason = prediction.get("message") or ""
        return f"{prediction['name']}: {prediction['outcome']}" + (f" ({reason})" if reason else "")
    error = _format(prediction.get("standard_error")) if prediction.get("standard_error") else ""
    tightness = prediction.get("tightness")
    tight = "" if not tightness else f"; best ratio of the two sides {_format(tightness['best_ratio'])}" + (
        f", {_format(tightness['attainable'])} attainable" if tightness.get("attainable") is not None else "")
    reason = prediction.get("resolution_reason")
    resolution = "" if prediction.get("resolution") is None else (
        f"; resolution {_format(prediction['resolution'])}"
        + (f" ({reason['basis'].replace('-', ' ')}: {reason['reason']})" if reason else ""))
    return (f"{prediction['name']}: {prediction['outcome']} (predicted {_format(prediction.get('predicted'))}, "
            f"observed {_format(prediction.get('observed'))}" + (f" ± {error}" if error else "")
            + (f" (systematic ± {_format(prediction['systematic'])})" if prediction.get("systematic") else "") + tight
            + resolution + ")")


def _evidence(theorem_id: str, version: str, records: list[dict], figures: list[tuple[str, str]]) -> str:
    """One version's runs (the theorem as stated, a conjecture or a mutant): its evidence table and figures."""
    heading = "The theorem as stated" if version == AS_STATED else f"A version that is not the theorem: {version}"
    rows, not_applicable = [], defaultdict(set)
    for record in records[:MAX_ROWS]:
        verdict = record["verdict"]
        shown = [p for p in verdict["predictions"] if p["outcome"] != SKIPPED]
        for p in verdict["predictions"]:
            if p not in shown:  # said once below the table, not in every row
                not_applicable[p["name"]].add(p.get("message") or "")
        evidence = "; ".join(_prediction_evidence(p) for p in shown) or "no prediction applies here"
        if verdict.get("error"):  # a bug in the check, stored by the sweep: say what it was
            evidence = f"error in the check: {verdict['error']}"
        outcome, css = verdict["verdict"], _css(verdict["verdict"])
        if version != AS_STATED:
            outcome, css = reading(outcome, _claim(record), False), "other"
        rows.append(f'<tr class="{css}"><td>{html.escape(_label(record["parameters"]))}</td>'
                    f"<td>{record['seed_index']}</td><td>{html.escape(outcome)}</td>"
                    f"<td>{html.escape(evidence)}</td></tr>")
    more = f"<p>{len(records) - MAX_ROWS} more rows in the store.</p>" if len(records) > MAX_ROWS else ""
    if not_applicable:
        more += "<p><b>Not applicable in these runs:</b> " + "; ".join(
            f"{html.escape(name)} ({html.escape(' / '.join(sorted(r for r in reasons if r)) or 'no reason given')})"
            for name, reasons in sorted(not_applicable.items())) + ".</p>"
    images = "\n".join(f'<figure><img src="figures/{html.escape(name)}" alt="{html.escape(theorem_id)}: '
                       f'{html.escape(label)}"><figcaption>{html.escape(label)}</figcaption></figure>'
                       for name, label in figures)
    return f"""<h3>{html.escape(heading)}</h3>
<table class="evidence"><tr><th>parameters</th><th>seed</th><th>verdict</th><th>evidence</th></tr>
{chr(10).join(rows)}
</table>{more}
<div class="figures">{images}</div>"""


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>thmcheck report</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 75em; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; font-size: 0.9em; }}
tr.pass td {{ background: #eef8ee; }} tr.fail td {{ background: #fbeaea; }} tr.other td {{ background: #fdf6e3; }}
figure {{ display: inline-block; margin: 0.5em; }} img {{ max-width: 36em; }}
</style></head>
<body>
<h1>thmcheck report</h1>
<p>Generated {generated} by thmcheck {version}, from {source}.</p>
<table class="verdicts"><tr><th>theorem</th><th>version</th><th>provenance</th><th>tasks</th><th>outcomes</th>
<th>verdict</th></tr>
{rows}
</table>
{sections}
</body></html>
"""
