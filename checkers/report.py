"""Reports: one static HTML page (plus PNG figures) with the verdict table, each theorem's statement and
provenance, the evidence, and plots of theory against simulation. It opens in a browser with no server.

Input is either a sweep store (`ResultStore`: every stored task of the chosen theorems) or fresh checks
run here (one per theorem, at the given fidelity and seed). For each theorem and each prediction with
numbers, one panel: the prediction as a line (its interval as a band, a one-sided bound as a dashed
line with the allowed side shaded) and the observation as a point with its 95% error bar (t interval
from the stored standard error and degrees of freedom; deterministic observations carry their stated
accuracy), against the first swept numeric parameter (or the grid point). All quantities the theorems
predict are dimensionless, and the axes say so.
"""

from __future__ import annotations

import html
import math
import time
from collections import defaultdict
from pathlib import Path

import scipy.stats

from checkers import registry
from checkers.check import run_check
from checkers.store import ResultStore, code_version
from theorems.errors import InvalidInput, ThmcheckError
from theorems.statement import PROVENANCES

MAX_PANELS = 8
MAX_ROWS = 200
MAX_SERIES = 6


def build_report(out_dir: str | Path, theorem_ids: list[str] | None = None, *, store: str | Path | None = None,
                 fidelity: str = "quick", seed: int = 0) -> Path:
    """Write out_dir/index.html and out_dir/figures/*.png; return the page's path."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidInput("reports need matplotlib: pip install 'thmcheck[plots]'") from None
    out = Path(out_dir)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    groups = _from_store(store, theorem_ids) if store else _from_checks(theorem_ids, fidelity, seed)
    if not groups:
        raise InvalidInput("nothing to report: no stored results for the chosen theorems")
    sections, summary_rows = [], []
    for theorem_id, records in sorted(groups.items()):
        parts = []
        for index, (version, own) in enumerate(_versions(records)):
            figure_names = _figures(plt, out / "figures", f"{theorem_id}-{index}", own, version)
            summary_rows.append(_summary_row(theorem_id, version, own))
            parts.append((version, own, figure_names))
        sections.append(_section(theorem_id, parts))
    page = out / "index.html"
    source = f"sweep store {html.escape(str(store))}" if store else f"checks run at {fidelity} fidelity, seed {seed}"
    page.write_text(_PAGE.format(
        generated=html.escape(time.strftime("%Y-%m-%d %H:%M:%S")), version=html.escape(code_version()),
        source=source, rows="\n".join(summary_rows), sections="\n".join(sections)), encoding="utf-8")
    return page


# --- inputs -------------------------------------------------------------------------------------

def _from_store(path, theorem_ids) -> dict[str, list[dict]]:
    if not Path(path).exists():
        raise InvalidInput(f"no store at {path}")
    groups: dict[str, list[dict]] = defaultdict(list)
    with ResultStore(path) as store:
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


def _versions(records: list[dict]) -> list[tuple[str, list[dict]]]:
    """The records grouped by version, the statement as stated first: a rejected conjecture or mutant is the
    check working, and is never mixed with the theorem's own runs."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        groups[_version(record)].append(record)
    return sorted(groups.items(), key=lambda item: (item[0] != AS_STATED, item[0]))


def _error_bar(prediction: dict) -> float:
    error = _number(prediction.get("standard_error"))
    if error is None or not math.isfinite(error):
        return 0.0
    dof = _number(prediction.get("degrees_of_freedom"))
    critical = 1.959963984540054 if dof is None or not math.isfinite(dof) else float(scipy.stats.t.isf(0.025, dof))
    return critical * error


def _figures(plt, directory: Path, stem: str, records: list[dict], version: str) -> list[tuple[str, str]]:
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
        figure, axes = plt.subplots(figsize=(6.4, 3.8))
        drawn = False
        for colour, label in enumerate(series[:MAX_SERIES]):
            points = []
            for x, record, own in zip(xs, records, series_of):
                match = next((p for p in record["verdict"]["predictions"] if p["name"] == name), None)
                if own != label or match is None or match.get("observed") is None or match.get("predicted") is None:
                    continue
                interval = match.get("predicted_interval") or [match["predicted"], match["predicted"]]
                points.append((x, _number(match["observed"]), _error_bar(match), _number(match["predicted"]),
                               _number(interval[0]), _number(interval[1]), match))
            if not points:
                continue
            drawn = True
            _draw_series(axes, sorted(points, key=lambda point: point[0]), f"C{colour}",
                         label if len(series) > 1 else "", version)
            statement = points[0][6].get("statement", "")
        if not drawn:
            plt.close(figure)
            continue
        axes.set_xlabel(f"{axis_name} (dimensionless)" if axis_name != "grid point" else "grid point")
        axes.set_ylabel(f"{name} (dimensionless)")
        title = statement if version == AS_STATED else f"{version}: {statement}"
        axes.set_title(title[:90] + ("..." if len(title) > 90 else ""), fontsize=8)
        axes.legend(fontsize=6)
        figure.tight_layout()
        file_name = f"{stem}-{index}.png"
        figure.savefig(directory / file_name, dpi=90)
        plt.close(figure)
        written.append((file_name, name))
    return written


def _draw_series(axes, points, colour: str, label: str, version: str = AS_STATED) -> None:
    """Prediction (line, band or one-sided bound) and observations (points with 95% error bars); the prediction
    of a conjecture or a mutant is labelled as such, not as the theorem's."""
    suffix = f" ({label})" if label else ""
    claim = "prediction" if version == AS_STATED else version
    x_values = [p[0] for p in points]
    lows, highs = [p[4] for p in points], [p[5] for p in points]
    if all(math.isfinite(v) for v in lows + highs):
        axes.plot(x_values, [p[3] for p in points], "-", marker="_", markersize=16, color=colour,
                  label=claim + suffix)
        if any(h > lo for lo, h in zip(lows, highs)):
            axes.fill_between(x_values, lows, highs, color=colour, alpha=0.15)
    else:
        lower_bound = math.isfinite(lows[0])
        bound = lows if lower_bound else highs
        axes.plot(x_values, bound, "--", marker="_", markersize=16, color=colour,
                  label=("claimed lower bound" if lower_bound else "claimed upper bound")
                  + ("" if version == AS_STATED else f" ({version})") + suffix)
    axes.errorbar(x_values, [p[1] for p in points], yerr=[p[2] for p in points], fmt="o", color=colour,
                  capsize=3, markersize=4, label="simulation, 95% interval" + suffix)


# --- HTML ---------------------------------------------------------------------------------------

def _theorem_facts(theorem_id: str, records: list[dict]) -> dict:
    verdict = records[0]["verdict"]
    try:
        theorem = registry.checker(theorem_id).theorem
        return {"title": theorem.title, "provenance": theorem.provenance, "statement": theorem.statement,
                "source": theorem.source}
    except ThmcheckError:  # stored by a plugin that is not loaded here
        return {"title": verdict.get("title", theorem_id), "provenance": verdict.get("provenance", "?"),
                "statement": "(theorem not registered in this session)", "source": ""}


def _overall(outcomes: list[str]) -> str:
    if "fail" in outcomes:
        return "fail"
    if outcomes and all(o == "pass" for o in outcomes):
        return "pass"
    return "inconclusive" if "inconclusive" in outcomes else (outcomes[0] if outcomes else "none")


def _summary_row(theorem_id: str, version: str, records: list[dict]) -> str:
    facts = _theorem_facts(theorem_id, records)
    outcomes = [r["verdict"]["verdict"] for r in records]
    counts = ", ".join(f"{outcomes.count(o)} {o}" for o in sorted(set(outcomes)))
    overall = _overall(outcomes)
    if version != AS_STATED and overall in ("fail", "pass"):
        # a conjecture or a mutant: its failing is the check telling it apart from the theorem
        overall = "rejected" if overall == "fail" else "not rejected"
    css = _css(overall) if version == AS_STATED else "other"
    return (f'<tr class="{css}"><td><a href="#{html.escape(theorem_id)}">{html.escape(theorem_id)}</a></td>'
            f"<td>{html.escape(version)}</td><td>{html.escape(facts['provenance'])}</td><td>{len(records)}</td>"
            f"<td>{html.escape(counts)}</td><td>{html.escape(overall)}</td></tr>")


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
{blocks}
</section>"""


def _prediction_evidence(prediction: dict) -> str:
    """One prediction in words: its outcome with the numbers, or why it did not apply (no empty brackets)."""
    if prediction.get("observed") is None:
        reason = prediction.get("message") or ""
        return f"{prediction['name']}: {prediction['outcome']}" + (f" ({reason})" if reason else "")
    error = _format(prediction.get("standard_error")) if prediction.get("standard_error") else ""
    return (f"{prediction['name']}: {prediction['outcome']} (predicted {_format(prediction.get('predicted'))}, "
            f"observed {_format(prediction.get('observed'))}" + (f" ± {error}" if error else "") + ")")


def _evidence(theorem_id: str, version: str, records: list[dict], figures: list[tuple[str, str]]) -> str:
    """One version's runs (the theorem as stated, a conjecture or a mutant): its evidence table and figures."""
    heading = "The theorem as stated" if version == AS_STATED else f"A version that is not the theorem: {version}"
    rows = []
    for record in records[:MAX_ROWS]:
        verdict = record["verdict"]
        evidence = "; ".join(_prediction_evidence(p) for p in verdict["predictions"])
        if verdict.get("error"):  # a bug in the check, stored by the sweep: say what it was
            evidence = f"error in the check: {verdict['error']}"
        outcome, css = verdict["verdict"], _css(verdict["verdict"])
        if version != AS_STATED:
            outcome = {"fail": "rejected", "pass": "not rejected"}.get(outcome, outcome)
            css = "other"
        rows.append(f'<tr class="{css}"><td>{html.escape(_label(record["parameters"]))}</td>'
                    f"<td>{record['seed_index']}</td><td>{html.escape(outcome)}</td>"
                    f"<td>{html.escape(evidence)}</td></tr>")
    more = f"<p>{len(records) - MAX_ROWS} more rows in the store.</p>" if len(records) > MAX_ROWS else ""
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
