"""Reports: one static HTML page (plus PNG figures) with what was run (fidelity, seeds, version, the command), the
verdict table, and per theorem its statement, one table per prediction and figures of theory against simulation.
It opens in a browser with no server and no script.

Input is either a sweep store (`ResultStore`: every stored task of the chosen theorems) or fresh checks run here
(one per theorem, at the given fidelity and seed). Runs are grouped by version: the theorem as stated, each
conjecture (`--set`) and each mutant apart, and a run where no prediction applies (below a threshold, say) is
counted as not applicable, apart from an inconclusive one. Each prediction's table gives, per run, the parameters,
seed, predicted and observed values (at the digits the standard error supports), the smallest discrepancy it could
detect, its resolution and its verdict; the resolution's reason is stated once above it, folded. The figures
(`checkers.report_figures`) overlay every conjecture and mutant on the statement's curve, and a sentence says
whether the runs tell each apart from the statement.
"""

from __future__ import annotations

import html
import math
import shutil
import time
from collections import Counter, defaultdict
from pathlib import Path

from checkers import registry
from checkers.engine import run_check
from checkers.files import write_atomically
from checkers.outcome import FAIL, PASS, SKIPPED, Claim, reading, standing
from checkers.pooling import how_read, point_key, pool_points, sweep_outcome
from checkers.report_figures import AS_STATED, figures, label, number
from checkers.store import ResultStore, code_version
from checkers.verdict import PredictionResult, shown
from theorems.errors import EnvironmentFault, InvalidInput, ThmcheckError
from theorems.statement import PROVENANCES

MAX_ROWS = 200
NOT_APPLICABLE = "not applicable"


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
                 fidelity: str = "quick", seed: int = 0, command: str = "") -> Path:
    """Write out_dir/index.html and out_dir/figures/*.png; return the page's path. `command` is the command line
    that made it, printed at the top. A folder that cannot be made or written is an `EnvironmentFault` naming it; a
    report that fails leaves no folder it made behind."""
    pyplot("reports")
    output_folder(out_dir)
    return write_report(out_dir, reported_runs(theorem_ids, store=store, fidelity=fidelity, seed=seed), store=store,
                        fidelity=fidelity, seed=seed, command=command)


def output_folder(out_dir: str | Path) -> Path:
    """The report's folder, refused before any run where it is a file (`EnvironmentFault`)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise EnvironmentFault(f"--out {str(out)!r} is a file; give a folder (it is made if it does not exist)")
    return out


def reported_runs(theorem_ids: list[str] | None = None, *, store: str | Path | None = None, fidelity: str = "quick",
                  seed: int = 0) -> dict[str, list[dict]]:
    """What a report reads, by theorem: each run's parameters, seed index and `Verdict`, from the store or from
    checks run now."""
    return _from_store(store, theorem_ids) if store else _from_checks(theorem_ids, fidelity, seed)


def run_standings(groups: dict[str, list[dict]]) -> list:
    """Each point's standing for the exit code, its seeds pooled as a sweep's are (`checkers.pooling`), read for its
    claim as `thmcheck check` reads its checks."""
    return [standing(point.outcome, records[0]["verdict"].claim, bool(records[0]["verdict"].expected_failure))
            for all_records in groups.values() for _, records in _versions(all_records)
            for point in pool_points(r["verdict"] for r in records)]


def write_report(out_dir: str | Path, groups: dict[str, list[dict]], *, store: str | Path | None = None,
                 fidelity: str = "quick", seed: int = 0, command: str = "") -> Path:
    """Write the report of `groups` (`reported_runs`) to out_dir, as `build_report` says."""
    plt = pyplot("reports")
    out = output_folder(out_dir)
    made = not out.exists()
    try:
        return _write_report(out, plt, groups, store, fidelity, seed, command)
    except OSError as error:
        raise EnvironmentFault(f"cannot write the report to {str(out)!r}: {error.strerror or error}") from None
    finally:
        if made and not (out / "index.html").is_file():
            shutil.rmtree(out, ignore_errors=True)


def _write_report(out: Path, plt, groups, store, fidelity: str, seed: int, command: str) -> Path:
    if not groups:
        raise InvalidInput("nothing to report: no stored results for the chosen theorems")
    (out / "figures").mkdir(parents=True, exist_ok=True)
    sections, summary_rows = [], []
    for theorem_id, records in sorted(groups.items()):
        versions = _versions(records)
        drawn = figures(plt, out / "figures", theorem_id, versions)
        summary_rows += [_summary_row(theorem_id, version, own) for version, own in versions]
        sections.append(_section(theorem_id, versions, drawn))
    page = out / "index.html"
    everything = [record for records in groups.values() for record in records]
    write_atomically(page, _PAGE.format(  # a page is there whole or not at all
        generated=html.escape(time.strftime("%Y-%m-%d %H:%M:%S")), version=html.escape(code_version()),
        source=_source(store, everything, fidelity, seed), command=html.escape(command or "(called from Python)"),
        rows="\n".join(summary_rows), sections="\n".join(sections)))
    return page


def _source(store, records: list[dict], fidelity: str, seed: int) -> str:
    """Where the runs come from, at which fidelity, from which seeds."""
    if not store:
        return (f"checks run now: fidelity <b>{html.escape(fidelity)}</b>, seed <b>{seed}</b>, each theorem at its "
                "defaults")
    fidelities = Counter(r["verdict"].fidelity for r in records)
    indices = sorted({r["seed_index"] for r in records})
    seeds = f"seed indices {indices[0]} to {indices[-1]}" if len(indices) > 1 else f"seed index {indices[0]}"
    return (f"the sweep store {html.escape(str(store))}: fidelity <b>"
            + html.escape(", ".join(f"{name} ({count} runs)" if len(fidelities) > 1 else name
                                    for name, count in sorted(fidelities.items())))
            + f"</b>, {len(records)} runs, {seeds} per setting (each run's seed spawned from the sweep's root seed "
              "at the run's identity, and printed in its row)")


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
        verdict = run_check(checker, seed=seed, fidelity=fidelity)
        groups[checker.id] = [{"parameters": verdict.parameters, "seed_index": 0, "verdict": verdict}]
    return groups


# --- versions -----------------------------------------------------------------------------------

def _version(record: dict) -> str:
    """Which statement a stored run tested: the theorem as stated, a conjecture (--set), or a named mutant."""
    verdict = record["verdict"]
    label = f"mutant {verdict.mutant}" if verdict.mutant else ""
    if verdict.overrides:
        label = (label + ", " if label else "") + "conjecture " + ", ".join(
            f"{name}={value}" for name, value in sorted(verdict.overrides.items()))
    return label or AS_STATED


def _claim(record: dict) -> Claim:
    """The claim a stored run tested (`checkers.outcome.claim_of`)."""
    return record["verdict"].claim


def _versions(records: list[dict]) -> list[tuple[str, list[dict]]]:
    """The records grouped by version, the statement as stated first: a rejected conjecture or mutant is the
    check working, and is never mixed with the theorem's own runs."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        groups[_version(record)].append(record)
    return sorted(groups.items(), key=lambda item: (item[0] != AS_STATED, item[0]))


# --- HTML ---------------------------------------------------------------------------------------

def _theorem_facts(theorem_id: str, records: list[dict]) -> dict:
    verdict = records[0]["verdict"]
    try:
        theorem = registry.checker(theorem_id).theorem
        return {"title": theorem.title, "provenance": theorem.provenance, "statement": theorem.statement,
                "source": theorem.source, "expected_failure": theorem.expected_failure}
    except ThmcheckError:  # stored by a plugin that is not loaded here
        return {"title": verdict.title, "provenance": verdict.provenance,
                "statement": "(theorem not registered in this session)", "source": ""}


def _run_outcome(record: dict) -> str:
    """A run's outcome, where a run in which no prediction applied (a bug's row aside) is "not applicable": nothing
    was under-resolved there, so it is no inconclusive run."""
    verdict = record["verdict"]
    if verdict.predictions and not verdict.error and all(p.outcome == SKIPPED for p in verdict.predictions) \
            and not verdict.assumption_failures:
        return NOT_APPLICABLE
    return verdict.outcome


def _summary_row(theorem_id: str, version: str, records: list[dict]) -> str:
    facts = _theorem_facts(theorem_id, records)
    outcomes = [_run_outcome(r) for r in records]
    counts = ", ".join(f"{outcomes.count(o)} {o}" for o in sorted(set(outcomes)))
    points = pool_points(r["verdict"] for r in records)
    overall = str(sweep_outcome(points))
    if overall in (PASS, FAIL):
        overall = reading(overall, _claim(records[0]), bool(facts.get("expected_failure")))
    css = _css(overall) if version == AS_STATED else "other"
    return (f'<tr class="{css}"><td><a href="#{html.escape(theorem_id)}">{html.escape(theorem_id)}</a></td>'
            f"<td>{html.escape(version)}</td><td>{html.escape(facts['provenance'])}</td><td>{len(records)}</td>"
            f"<td>{html.escape(counts)}</td><td>{html.escape(overall)}</td><td>{html.escape(how_read(points))}</td>"
            "</tr>")


def _known_failure(facts: dict) -> str:
    reason = facts.get("expected_failure")
    return f"<p><b>Known to fail its check:</b> {html.escape(reason)}</p>\n" if reason else ""


def _css(outcome: str) -> str:
    return {"pass": "pass", "fail": "fail"}.get(outcome, "other")


def _section(theorem_id: str, versions: list[tuple[str, list[dict]]], drawn: list[tuple[str, str, list[str]]]
             ) -> str:
    facts = _theorem_facts(theorem_id, versions[0][1])
    provenance = facts["provenance"]
    blocks = "\n".join(_version_block(theorem_id, version, records) for version, records in versions)
    images = "\n".join(
        f'<figure><img src="figures/{html.escape(name)}" alt="{html.escape(theorem_id)}: {html.escape(prediction)}'
        + (f", with {html.escape(', '.join(overlaid))} overlaid" if overlaid else "") + '"><figcaption>'
        + html.escape(prediction) + (f": the statement with {html.escape(', '.join(overlaid))} overlaid"
                                     if overlaid else "") + "</figcaption></figure>"
        for name, prediction, overlaid in drawn)
    return f"""<section id="{html.escape(theorem_id)}">
<h2>{html.escape(theorem_id)}: {html.escape(facts['title'])}</h2>
<p><b>Provenance:</b> {html.escape(provenance)} ({html.escape(PROVENANCES.get(provenance, ''))}).
<b>Source:</b> {html.escape(facts['source'])}</p>
<p><b>Statement:</b> {html.escape(facts['statement'])}</p>
{_known_failure(facts)}{blocks}
<div class="figures">{images}</div>
</section>"""


def _version_block(theorem_id: str, version: str, records: list[dict]) -> str:
    """One version's runs (the theorem as stated, a conjecture or a mutant): a table per prediction, what did not
    apply said once, a run's error in words, and for a version other than the statement whether the runs tell it
    apart."""
    heading = "The theorem as stated" if version == AS_STATED else f"A version that is not the theorem: {version}"
    outcomes = Counter(_run_outcome(r) for r in records)
    parts = [f"<h3>{html.escape(heading)}</h3>",
             "<p>" + html.escape(", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items())))
             + f" of {len(records)} runs.</p>"]
    errors = [r for r in records if r["verdict"].error]
    parts += [f"<p class=\"fail\">{html.escape(label(r['parameters']))}, seed {r['seed_index']}: error in the "
              f"check: {html.escape(r['verdict'].error)}</p>" for r in errors[:MAX_ROWS]]
    failures = {name: reason for r in records for name, reason in r["verdict"].assumption_failures}
    if failures:
        parts.append("<p><b>Outside the assumptions in some runs:</b> " + html.escape("; ".join(
            f"{name}: {reason}" for name, reason in sorted(failures.items()))) + "</p>")
    names = list(dict.fromkeys(p.name for r in records for p in r["verdict"].predictions))
    for name in names:
        parts.append(_prediction_table(theorem_id, version, name, records))
    return "\n".join(parts)


def _prediction_table(theorem_id: str, version: str, name: str, records: list[dict]) -> str:
    runs = [(r, next(p for p in r["verdict"].predictions if p.name == name)) for r in records
            if any(p.name == name for p in r["verdict"].predictions)]
    first = runs[0][1]
    applied = [(r, p) for r, p in runs if p.outcome != SKIPPED]
    skipped = Counter(p.message or "no reason given" for _, p in runs if p.outcome == SKIPPED)
    reason = next((p.resolution_reason for _, p in applied if p.resolution_reason), None)
    lines = [f"<h4>{html.escape(name)} ({html.escape(first.kind)}): {html.escape(first.statement)}</h4>"]
    if reason:
        basis = html.escape(reason["basis"].replace("-", " "))
        lines.append(f"<details><summary>why its resolution is what it is ({basis})</summary>"
                     f"<p>{html.escape(reason['reason'])}</p></details>")
    if applied:
        rows = []
        for record, p in applied[:MAX_ROWS]:
            rows.append("<tr class=\"{css}\"><td>{parameters}</td><td>{seed}</td><td>{predicted}</td>"
                        "<td>{observed}</td><td>{detectable}</td><td>{resolution}</td><td>{verdict}</td></tr>".format(
                            css="other" if version != AS_STATED else _css(p.outcome),
                            parameters=html.escape(label(record["parameters"])), seed=record["seed_index"],
                            predicted=html.escape(_claimed(p)), observed=html.escape(_observed(p)),
                            detectable=_value(p.detectable), resolution=_value(p.resolution),
                            verdict=html.escape(p.outcome if version == AS_STATED
                                                else reading(p.outcome, _claim(record), False))))
        more = f"<tr><td colspan=\"7\">{len(applied) - MAX_ROWS} more runs in the store</td></tr>" \
            if len(applied) > MAX_ROWS else ""
        lines.append('<table class="evidence"><tr><th>parameters</th><th>seed</th><th>predicted</th><th>observed</th>'
                     "<th>detectable</th><th>resolution</th><th>verdict</th></tr>\n" + "\n".join(rows) + more
                     + "</table>")
    lines += _pooled_lines(name, version, [record for record, _ in applied])
    if skipped:
        lines.append("<p><b>Not applicable</b> in " + html.escape("; ".join(
            f"{count} run{'s' if count > 1 else ''}: {message}" for message, count in skipped.items())) + ".</p>")
    if version != AS_STATED and applied:
        lines.append(f"<p>{html.escape(_told_apart(theorem_id, name, version, applied))}</p>")
    return "\n".join(lines)


def _pooled_lines(name: str, version: str, records: list[dict]) -> list[str]:
    """Per point with several seeds, how its outcome was reached (`checkers.pooling`): each pooled group of more than
    one seed as a row, or why the seeds were read one by one."""
    rows, notes = [], []
    claim = _claim(records[0]) if records else Claim.STATED

    def words(outcome) -> str:  # a mutant's or a conjecture's groups read "rejected" or not, as its seeds' rows do
        return html.escape(str(outcome) if version == AS_STATED else reading(outcome, claim, False))

    indices = {r["verdict"].seed: r["seed_index"] for r in records}
    asked = {point_key(r["verdict"]): r["parameters"] for r in records}  # a point as its runs' rows name it
    for point in pool_points(r["verdict"] for r in records):
        pooled = next((p for p in point.predictions if p.name == name), None)
        if point.seeds < 2 or pooled is None:
            continue
        where = html.escape(label(asked[point.key]) or "at the defaults")
        notes.append(f"{where}: {html.escape(pooled.describe())}, {words(pooled.outcome)}")
        if pooled.group_size < 2:
            continue
        low, high = pooled.predicted_interval
        for group in pooled.groups:
            outcome = group.comparison.outcome
            rows.append(f'<tr class="{"other" if version != AS_STATED else _css(outcome)}"><td>{where}</td>'
                        f"<td>{', '.join(str(indices.get(seed, '?')) for seed in group.members)} pooled</td>"
                        f"<td>{html.escape(_interval(low, high, group.estimate.standard_error))}</td>"
                        f"<td>{html.escape(shown(group.estimate.value, group.estimate.standard_error))} ± "
                        f"{group.estimate.standard_error:.2g}</td><td>{_value(group.comparison.detectable)}</td>"
                        f"<td>{_value(pooled.resolution)}</td><td>{words(outcome)}</td></tr>")
    lines = []
    if rows:
        lines.append('<table class="pooled"><tr><th>parameters</th><th>seeds</th><th>predicted</th><th>observed</th>'
                     "<th>detectable</th><th>resolution</th><th>verdict</th></tr>\n" + "\n".join(rows) + "</table>")
    if notes:
        lines.append("<p><b>Seeds at a point:</b> " + "; ".join(notes) + ".</p>")
    return lines


def _interval(low: float, high: float, scale: float | None) -> str:
    """A claimed interval at the digits `scale` supports: one number where it is a point."""
    return shown(low, scale) if low == high else f"[{shown(low, scale)}, {shown(high, scale)}]"


def _value(value) -> str:
    number_ = number(value)
    return "" if number_ is None else f"{number_:.2g}"


def _claimed(prediction: PredictionResult) -> str:
    interval = prediction.predicted_interval
    scale = number(prediction.standard_error) or number(prediction.tolerance)
    if interval and number(interval[0]) != number(interval[1]):
        return _interval(number(interval[0]), number(interval[1]), scale)
    return "" if prediction.predicted is None else shown(number(prediction.predicted), scale)


def _observed(prediction: PredictionResult) -> str:
    if prediction.observed is None:
        return prediction.message
    error = number(prediction.standard_error)
    text = shown(number(prediction.observed), error or number(prediction.tolerance))
    if error:
        text += f" ± {error:.2g}"
        if prediction.systematic:
            text += f" (systematic ± {number(prediction.systematic):.2g})"
    tightness = prediction.tightness
    if tightness:
        text += f"; best ratio of the two sides {number(tightness['best_ratio']):.3g}"
    return text


def _stated_value(theorem_id: str, name: str, parameters: dict) -> float | None:
    """The statement's own prediction at these parameters (no simulation), or None where it cannot be had."""
    try:
        theorem = registry.checker(theorem_id).theorem
        instance = theorem.instance(dict(parameters))
        return float(theorem.prediction(name).predict(instance).value)
    except (ThmcheckError, ArithmeticError, ValueError):
        return None


def _told_apart(theorem_id: str, name: str, version: str, applied: list[tuple[dict, PredictionResult]]) -> str:
    """Whether these runs tell the version apart from the statement: at how many of its runs its claim differs from
    the statement's by more than the smallest discrepancy the run could detect, and how many rejected it."""
    gaps = []
    for record, prediction in applied:
        stated, claimed = _stated_value(theorem_id, name, record["parameters"]), number(prediction.predicted)
        detectable = number(prediction.detectable)
        if stated is not None and claimed is not None and detectable and math.isfinite(detectable):
            gaps.append(abs(claimed - stated) / detectable)
    rejected = sum(p.outcome == FAIL for _, p in applied)
    verdicts = f"its runs rejected it at {rejected} of {len(applied)}"
    if not gaps:
        return f"Whether these runs tell {version} apart from the statement cannot be said here; {verdicts}."
    if not any(gaps):
        return (f"Its claim here is the statement's own: the two differ only in what the check computes from the "
                f"runs, and {verdicts}.")
    apart = sum(gap > 1 for gap in gaps)
    if apart:
        return (f"The runs tell {version} apart from the statement at {apart} of {len(gaps)} runs: there its claim "
                f"differs by more than the runs could detect (up to {max(gaps):.2g} times it); {verdicts}.")
    return (f"These runs cannot tell {version} apart from the statement: at every run the two claims differ by at "
            f"most {max(gaps):.2g} of what the run could detect, so a pass says nothing between them; {verdicts}.")


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>thmcheck report</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 75em; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; font-size: 0.9em; }}
tr.pass td {{ background: #eef8ee; }} tr.fail td {{ background: #fbeaea; }} tr.other td {{ background: #fdf6e3; }}
p.fail {{ background: #fbeaea; }} details {{ max-width: 60em; font-size: 0.9em; }}
figure {{ display: inline-block; margin: 0.5em; }} img {{ max-width: 36em; }}
</style></head>
<body>
<h1>thmcheck report</h1>
<ul class="provenance">
<li>Generated {generated} by thmcheck {version}.</li>
<li>Runs: {source}.</li>
<li>Command: <code>{command}</code></li>
</ul>
<table class="verdicts"><tr><th>theorem</th><th>version</th><th>provenance</th><th>runs</th><th>outcomes</th>
<th>verdict</th><th>seeds at a point</th></tr>
{rows}
</table>
{sections}
</body></html>
"""
