"""A referee's review of one paper: every check of the paper's theorems and of its discussion's claims ledger, run
into a resumable sweep store, summarized per claim in review.json, review.md and index.html (with the runs' own
report, figures included, under runs/), beside the paper's own figure setting where `thmcheck reproduce` has one.

What a check answers is read from the ledger (`theorems.ledger`): a claim's `Check` names a theorem, a parameter
point or a mutant. A stated version should pass; a mutant's check answers its claim by being rejected. Findings are
the ledger's measured findings and what the runs themselves show (a stated version that fails, a mutant that
survives, a form known to fail). Each run's seed is the sweep's (`checkers.sweep.Task.seed`), printed with the one
command that reruns it alone.
"""

from __future__ import annotations

import html
import json
import math
import platform
import shlex
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from checkers import calibration_records, registry, reproduce, review_figures
from checkers.budget import FIDELITIES
from checkers.files import write_atomically
from checkers.outcome import FAIL, PASS, claim_of, reading
from checkers.paper_scales import paper_fidelity
from checkers.report import build_report, output_folder
from checkers.store import ResultStore, code_version
from checkers.sweep import Task, plan, sweep
from theorems.errors import InvalidInput
from theorems.ledger import Check, Claim, has_ledger, ledger
from theorems.papers import paper

PAPER_SCALE = "paper"
# The paper's figure setting is drawn at quick fidelity, the figure's seeds a point: at default its sweep alone takes
# 7 to 23 minutes of one core (mixture-equivalence, spike-outlier), more than a page's budget; the page gives the
# command that draws it at default
FIGURE_FIDELITY = "quick"


def paper_figures(key: str) -> list[str]:
    """The theorems of the paper whose figure setting `thmcheck reproduce` draws."""
    return [theorem for theorem in paper(key).encodes if theorem in reproduce.FIGURES]


def figure_tasks(key: str, *, max_minutes: float = 240.0, max_memory: float | None = None) -> list[Task]:
    """The sweep tasks of the paper's figures, for the review's estimate."""
    return [task for theorem in paper_figures(key)
            for task in reproduce.figure_tasks(theorem, fidelity=FIGURE_FIDELITY, max_minutes=max_minutes,
                                               max_memory=max_memory)]


@dataclass(frozen=True)
class ReviewCheck:
    """One run of the review: a theorem at a point, as stated or as a named mutant, at a fidelity, and the labels of
    the claims it answers (empty for a theorem of the paper that no discussion claim names)."""

    theorem: str
    parameters: tuple[tuple[str, str], ...]
    mutant: str | None
    fidelity: str
    claims: tuple[str, ...]
    overrides: tuple[tuple[str, str], ...] = ()  # a referee's conjecture (`--set`), where the theorem has the constant

    @property
    def paper_scale(self) -> bool:
        """Whether this run is what paper fidelity reads for its check (`checkers.paper_scales.paper_fidelity`): its
        paper's sizes, or its default where that stands for its source's scale or the check is exact."""
        reading = paper_fidelity(registry.checker(self.theorem))
        return reading is not None and FIDELITIES[self.fidelity].level >= FIDELITIES[reading].level

    def command(self, seed: int) -> str:
        """The command that reruns this check alone, on the review's seed."""
        check = Check(self.theorem, mutant=self.mutant or "", parameters=dict(self.parameters))
        conjecture = "".join(f" --set {shlex.quote(f'{name}={value}')}" for name, value in self.overrides)
        return f"{check.command}{conjecture} --fidelity {self.fidelity} --seed {seed}"


def fidelity_of(theorem: str, asked: str) -> str:
    """The fidelity a check runs at when the review asks for `asked`: for `paper`, what paper fidelity reads for it
    (`checkers.paper_scales.paper_fidelity`), or default where it does not reach its source's scale yet; `asked`
    itself otherwise."""
    if asked != PAPER_SCALE:
        return asked
    return paper_fidelity(registry.checker(theorem)) or "default"


def review_checks(key: str, fidelity: str = PAPER_SCALE, *, parameters: dict[str, str] | None = None,
                  overrides: dict[str, str] | None = None) -> list[ReviewCheck]:
    """The paper's theorems at their defaults, then every distinct check of its ledger, each with the claims it
    answers, in the ledger's order. A referee's `parameters` (`--param`) and `overrides` (`--set`, a conjecture)
    apply to every check whose theorem declares the name, a parameter in place of the ledger's value, a constant to
    the checks as stated (a mutant's keeps its own claim); a name that no theorem of the review declares is bad
    input."""
    source = paper(key)
    found: dict[tuple, list[str]] = {(theorem, (), None): [] for theorem in source.encodes}
    if has_ledger(key):
        for claim in ledger(key).claims:
            for check in claim.checks:
                point = (check.theorem, tuple(sorted(check.parameters.items())), check.mutant or None)
                labels = found.setdefault(point, [])
                if claim.label not in labels:
                    labels.append(claim.label)
    asked, conjecture = dict(parameters or {}), dict(overrides or {})
    checks: dict[tuple, ReviewCheck] = {}
    used: set[str] = set()
    for (theorem, point, mutant), labels in found.items():
        statement = registry.theorem(theorem)
        named = {p.name for p in statement.parameters}
        point = tuple(sorted({**dict(point), **{k: v for k, v in asked.items() if k in named}}.items()))
        constants = {c.name for c in statement.instance(dict(point)).graph}
        chosen = tuple(sorted((k, v) for k, v in conjecture.items() if k in constants))
        used |= (set(asked) & named) | {k for k, _ in chosen}
        chosen = () if mutant else chosen  # a mutant's check keeps its own claim
        key_of = (theorem, point, mutant, chosen)
        if key_of in checks:  # the referee's value made two of the ledger's points one
            merged = checks[key_of]
            labels = [*merged.claims, *(label for label in labels if label not in merged.claims)]
        checks[key_of] = ReviewCheck(theorem, point, mutant, fidelity_of(theorem, fidelity), tuple(labels), chosen)
    unknown = sorted((set(asked) | set(conjecture)) - used)
    if unknown:
        raise InvalidInput(f"{unknown[0]} is neither a parameter nor a constant of any theorem in the review of {key}")
    return list(checks.values())


def review_tasks(checks: list[ReviewCheck], *, max_minutes: float, max_memory: float | None = None) -> list[Task]:
    """One sweep task per check, validated (and refused beyond `max_minutes` or `max_memory` GiB) before anything
    runs."""
    return [plan(check.theorem, {}, 1, fixed=dict(check.parameters), fidelity=check.fidelity, mutant=check.mutant,
                 overrides=dict(check.overrides), max_minutes=max_minutes, max_memory=max_memory)[0]
            for check in checks]


def run_review(key: str, out: str | Path, *, store: str | Path | None = None, fidelity: str = PAPER_SCALE,
               workers: int | None = None, scheduler: str | None = None, max_minutes: float = 240.0,
               max_memory: float | None = None, progress: bool = True, command: str = "",
               parameters: dict[str, str] | None = None, overrides: dict[str, str] | None = None) -> Path:
    """Run the review of paper `key` (resuming from `store`, by default out/review.sqlite) and write its pages;
    return index.html's path. The runs go to `workers` local processes, or to a dask `scheduler` (an address, or
    "local" for a LocalCluster of `workers`). Bad input (an unknown key, an --out that is a file, a store that is not
    thmcheck's, a scheduler that does not answer) is refused before any run."""
    source = paper(key)
    folder = output_folder(out)
    store = Path(store) if store is not None else folder / "review.sqlite"
    checks = review_checks(source.key, fidelity, parameters=parameters, overrides=overrides)
    tasks = review_tasks(checks, max_minutes=max_minutes, max_memory=max_memory)
    started = time.perf_counter()
    executor = "dask" if scheduler else "serial" if workers == 1 else "processes"
    sweep(tasks, store, executor=executor, workers=workers, scheduler=scheduler, progress=progress)
    drawn = [_paper_figure(theorem, folder, command, executor=executor, workers=workers, scheduler=scheduler,
                           max_minutes=max_minutes, max_memory=max_memory, progress=progress)
             for theorem in paper_figures(source.key)]
    elapsed = time.perf_counter() - started
    with ResultStore(store, readonly=True) as results:
        by_key = {record.task_key: record for record in results.records({check.theorem for check in checks})}
    runs = [(check, task, by_key[task.key]) for check, task in zip(checks, tasks)]
    review = summarize(source.key, runs, fidelity=fidelity, elapsed=elapsed, command=command)
    folder.mkdir(parents=True, exist_ok=True)
    review["asked"] = {"param": dict(parameters or {}), "set": dict(overrides or {})}
    review["readings"] = readings(review)
    review["figures"] = draw_figures(review, folder / "figures")
    review["paper_figures"] = [figure for figures in drawn for figure in figures]
    build_report(folder / "runs", sorted({check.theorem for check in checks}), store=store, command=command)
    write_atomically(folder / "review.json", json.dumps(review, indent=2) + "\n")
    write_atomically(folder / "review.md", markdown(review))
    page = folder / "index.html"
    write_atomically(page, page_html(review))
    return page


def figure_rows(review: dict) -> dict[str, tuple[str, list]]:
    """Per figure (a claim's label, or `theorems` for the paper's own theorems that no claim names): its title and
    its rows (label, `review_figures.reading`), one per prediction of each run that read something."""
    figures: dict[str, tuple[str, list]] = {}
    texts = {claim["label"]: claim["claim"] for claim in review["claims"]}
    for run in review["runs"]:
        for label in run["claims"] or ["theorems"]:
            title = f"{label}: {texts[label]}" if label in texts else "The paper's theorems, as stated"
            rows = figures.setdefault(label, (title, []))[1]
            for prediction in run["predictions"]:
                row = review_figures.reading(prediction)
                if row is not None:
                    rows.append((f"{prediction['name']}: {run['theorem']}{_point(run)}", row))
    return {label: entry for label, entry in figures.items() if entry[1]}


def _paper_figure(theorem: str, folder: Path, command: str, **options) -> list[dict]:
    """The paper's figure setting of `theorem`, drawn by `thmcheck reproduce` into folder/paper-figures/ID (its own
    store there resumes too, so an interrupt names the review's `command`): one entry per panel, with what the page
    says of it."""
    out = folder / "paper-figures" / theorem
    at_default = f"thmcheck reproduce {theorem} --out DIR"
    result = reproduce.reproduce(theorem, out, fidelity=FIGURE_FIDELITY, command=command or f"thmcheck reproduce "
                                 f"{theorem} --out {out} --fidelity {FIGURE_FIDELITY}", **options)
    outcomes = Counter(run["outcome"] for run in result["runs"])
    panels = {drawn["figure"]: drawn for drawn in result["predictions"].values()}
    return [{"theorem": theorem, "title": f"{drawn['panel']}: {result['paper']}", "caption": result["caption"],
             "png": f"paper-figures/{theorem}/{png}", "svg": f"paper-figures/{theorem}/{drawn['vector']}",
             "fidelity": FIGURE_FIDELITY, "runs": dict(sorted(outcomes.items())),
             "at_default": at_default} for png, drawn in panels.items()]


def draw_figures(review: dict, folder: Path) -> list[dict]:
    """One figure per claim with readings (`figure_rows`), PNG and SVG under `folder`; what the page links."""
    drawn = []
    for label, (title, rows) in figure_rows(review).items():
        png, svg = review_figures.claim_figure(title, rows, folder, label)
        drawn.append({"claim": label, "title": title, "png": f"{folder.name}/{png.name}",
                      "svg": f"{folder.name}/{svg.name}", "rows": len(rows)})
    return drawn


def _calibration_words(run: dict) -> str:
    return calibration_records.evidence_words(run["calibration"], run["mutant"])


def _figure_note(figure: dict) -> str:
    """What a paper's figure ran at, its runs' outcomes, and the command that draws it at default fidelity."""
    runs = ", ".join(f"{count} {outcome}" for outcome, count in figure["runs"].items())
    return f"{figure['caption']}; runs: {runs}; at default fidelity: {figure['at_default']}"


def _run_words(check: ReviewCheck, outcome: str, expected_failure: bool) -> tuple[str, bool]:
    """(what the run says of its claim, whether that answers the claim as the ledger expects). A referee's
    conjecture has no expected answer: it is rejected or not, and either answers it."""
    if check.overrides and not check.mutant:
        values = ", ".join(f"{name}={value}" for name, value in check.overrides)
        return (f"conjecture {values} " + ("rejected" if outcome == FAIL else
                                          "not rejected" if outcome == PASS else f"undecided ({outcome})"),
                outcome in (FAIL, PASS))
    if check.mutant:
        return ("rejected, as a wrong version should be", True) if outcome == FAIL else \
            (f"not rejected ({outcome})", False)
    if expected_failure:
        return ("fails, as expected (a form this project corrects)", True) if outcome == FAIL else \
            (f"{outcome}, where it was expected to fail", False)
    return (outcome, outcome == PASS)


def contradicts(run: dict) -> bool:
    """Whether a run answers its claim against the ledger: a stated version that fails (where it is not known to) or a
    mutant that is not rejected. A run that is only undecided (inconclusive, outside) contradicts nothing."""
    return not run["as_expected"] and (run["outcome"] == FAIL or bool(run["mutant"]))


def summarize(key: str, runs: list, *, fidelity: str, elapsed: float, command: str) -> dict:
    """The review as data: the paper, each claim with its runs, the findings, and the provenance."""
    source = paper(key)
    book = ledger(key) if has_ledger(key) else None
    rows = calibration_records.rows_by_theorem()
    run_rows = []
    for check, task, record in runs:
        verdict = record.verdict
        words, answered = _run_words(check, verdict.outcome, bool(verdict.expected_failure))
        predictions = [{"name": p.name, "outcome": str(p.outcome), "resolution": p.resolution,
                        "basis": (p.resolution_reason or {}).get("basis"), "message": p.message or None,
                        "observed": p.observed, "standard_error": p.standard_error,
                        "degrees_of_freedom": p.degrees_of_freedom, "systematic": p.systematic,
                        "interval": list(p.predicted_interval) if p.predicted_interval else None,
                        "mutant_shifts": p.mutant_shifts or None}
                       for p in verdict.predictions]
        run_rows.append({"theorem": check.theorem, "parameters": dict(check.parameters), "mutant": check.mutant,
                         "overrides": dict(check.overrides),
                         "claims": list(check.claims), "fidelity": check.fidelity, "paper_scale": check.paper_scale,
                         "outcome": verdict.outcome, "says": words, "as_expected": answered, "seed": record.seed,
                         "command": check.command(record.seed), "predictions": predictions,
                         "calibration": calibration_records.evidence(check.theorem, dict(check.parameters),
                                                                     check.mutant, rows)})
    claims = [_claim_row(claim, run_rows) for claim in book.claims] if book else []
    # a measured finding comes with the commands that rerun its claim's runs (their readings are in the table)
    findings = [{"claim": claim["label"], "finding": claim["finding"],
                 "command": "; ".join(run["command"] for run in run_rows if claim["label"] in run["claims"])}
                for claim in claims if claim["finding"]]
    findings += [{"claim": ", ".join(run["claims"]) or run["theorem"],
                  "finding": f"{run['theorem']}{_point(run)}: {run['says']}", "command": run["command"]}
                 for run in run_rows if not run["as_expected"] or "as expected" in run["says"]]
    return {"paper": {"key": source.key, "citation": source.citation, "theorems": dict(source.encodes)},
            "fidelity_asked": fidelity, "scale": book.scale if book else None,
            "claims": claims, "runs": run_rows, "findings": findings,
            "not_checkable": [{"topic": n.topic, "why": n.why} for n in book.not_checkable] if book else [],
            "provenance": {"thmcheck": code_version(), "python": platform.python_version(),
                           "machine": f"{platform.machine()}, {platform.system()} {platform.release()}",
                           "generated": time.strftime("%Y-%m-%d %H:%M:%S"), "wall_seconds": round(elapsed, 1),
                           "command": command or "(called from Python)"}}


def _point(run: dict) -> str:
    words = [f"{k}={v}" for k, v in run["parameters"].items()] + ([f"mutant {run['mutant']}"] if run["mutant"] else [])
    words += [f"set {k}={v}" for k, v in run.get("overrides", {}).items()]
    return f" ({', '.join(words)})" if words else ""


def _claimed(interval: list | None) -> str:
    """A prediction's claim as text: a point, a band, or a bound."""
    if not interval:
        return "-"
    lower, upper = interval
    if lower == upper:
        return f"{lower:.10g}"
    if math.isinf(upper):
        return f">= {lower:.6g}"
    if math.isinf(lower):
        return f"<= {upper:.6g}"
    return f"[{lower:.6g}, {upper:.6g}]"


def readings(review: dict) -> list[dict]:
    """The findings as data: every reading of every run, with its 95% interval (t on its degrees of freedom, plus
    its systematic bound), what was claimed, the resolution with its basis and the prediction's outcome."""
    rows = []
    for run in review["runs"]:
        for prediction in run["predictions"]:
            observed = prediction.get("observed")
            if observed is None:
                continue
            half = review_figures.half_width(prediction)
            rows.append({"claims": run["claims"], "run": run["theorem"] + _point(run), "prediction": prediction["name"],
                         "claimed": _claimed(prediction.get("interval")), "reading": observed,
                         "interval": [observed - half, observed + half], "resolution": prediction["resolution"],
                         "basis": prediction.get("basis"),
                         "outcome": reading(prediction["outcome"], claim_of(run["mutant"], run.get("overrides")),
                                            False)})
    return rows


def _resolution_text(row: dict) -> str:
    """The resolution with its basis (a paper's criterion, a nearest error, a numerical accuracy, or ours)."""
    return f"{row['resolution']:.3g}" + (f" ({row['basis']})" if row.get("basis") else "")


def _reading_text(row: dict) -> str:
    lower, upper = row["interval"]
    return f"{row['reading']:.10g}" + (f" [{lower:.6g}, {upper:.6g}]" if upper > lower else " (exact)")


def _claim_row(claim: Claim, runs: list[dict]) -> dict:
    own = [run for run in runs if claim.label in run["claims"]]
    contradicted = [run for run in own if contradicts(run)]
    if any(run.get("overrides") for run in own):
        verdict = "under a conjecture: " + "; ".join(run["says"] for run in own if run.get("overrides"))
    elif not own:
        verdict = "not run: " + ("not yet encoded" if claim.status == "not yet encoded" else "no check")
    elif contradicted:
        verdict = "contradicted where checked"
    elif all(run["as_expected"] for run in own):
        verdict = "holds" if claim.status == "checked" else "holds where checked"
    else:
        verdict = "unresolved at the fidelity run"
    return {"label": claim.label, "claim": claim.claim, "who": [str(w) for w in claim.who], "where": claim.where,
            "status": str(claim.status), "verdict": verdict,
            "paper_scale_reached": bool(own) and all(run["paper_scale"] for run in own),
            "not_tested": claim.gap or None, "finding": claim.finding or None,
            "runs": [{"run": run["theorem"] + _point(run), "says": run["says"], "fidelity": run["fidelity"]}
                     for run in own]}


def markdown(review: dict) -> str:
    """review.md: the summary a referee can paste, the findings, what was not checked, and the provenance."""
    lines = [f"# Review of {review['paper']['citation']}", "",
             f"Runs at fidelity {review['fidelity_asked']} (paper scale: a check's paper's sizes where it declares "
             "them, else its default where that stands for its source's scale; `thmcheck show ID` says which). "
             f"The discussion's scale: {review['scale'] or 'not stated'}", "", *_asked_lines(review), "## Claims", "",
             "| claim | who | status | verdict | runs | paper scale | not tested |", "|---|---|---|---|---|---|---|"]
    for claim in review["claims"]:
        runs = "; ".join(f"{r['run']}: {r['says']} ({r['fidelity']})" for r in claim["runs"]) or "none"
        lines.append(f"| {claim['label']}: {_cell(claim['claim'])} | {', '.join(claim['who'])} | {claim['status']} | "
                     f"{claim['verdict']} | {_cell(runs)} | {'reached' if claim['paper_scale_reached'] else 'no'} | "
                     f"{_cell(claim['not_tested'] or '-')} |")
    if not review["claims"]:
        lines.append("| no peer discussion of this paper is in the project | | | | | | |")
    lines += ["", "## Runs", "", "| run | fidelity | outcome | command | calibration |", "|---|---|---|---|---|"]
    for run in review["runs"]:
        lines.append(f"| {run['theorem']}{_cell(_point(run))} | {run['fidelity']} | {run['says']} | "
                     f"`{run['command']}` | {_cell(_calibration_words(run))} |")
    lines += ["", "## Readings", "", "Every reading with its 95% interval (plus its systematic bound), against what "
              "its run claims:", "",
              "| claims | run | prediction | claimed | reading [95%] | resolution (basis) | outcome |",
              "|---|---|---|---|---|---|---|"]
    lines += [f"| {', '.join(row['claims']) or '-'} | {_cell(row['run'])} | {row['prediction']} | {row['claimed']} | "
              f"{_reading_text(row)} | {_resolution_text(row)} | {row['outcome']} |"
              for row in review.get("readings", [])] or ["| none | | | | | | |"]
    lines += ["", "## Figures", "", "Each run's readings against what it claims, in units of the test's resolution "
              "(a mutant's claims as crosses):", ""]
    lines += [f"- {figure['title']}: ![{figure['claim']}]({figure['png']}) ([SVG]({figure['svg']}))"
              for figure in review.get("figures", [])] or ["- none (no run read a value)"]
    if review.get("paper_figures"):
        lines += ["", "The paper's figure setting, theory over this project's simulation with 95% intervals:", ""]
        lines += [f"- {figure['title']} ({_figure_note(figure)}): ![{figure['theorem']}]({figure['png']}) "
                  f"([SVG]({figure['svg']}))" for figure in review["paper_figures"]]
    lines += ["", "## Findings", ""]
    lines += [f"- **{f['claim']}**: {f['finding']}" + (f" (`{f['command']}`)" if f.get("command") else "")
              for f in review["findings"]] or ["- none"]
    lines += ["", "## Not checkable here", ""]
    lines += [f"- {item['topic']}: {item['why']}" for item in review["not_checkable"]] or ["- nothing listed"]
    provenance = review["provenance"]
    lines += ["", "## Provenance", "", f"- thmcheck {provenance['thmcheck']}, Python {provenance['python']}, "
              f"{provenance['machine']}", f"- generated {provenance['generated']}, runs took "
              f"{provenance['wall_seconds']} s here", f"- command: `{provenance['command']}`",
              "- each run's calibration row is in review.json; the runs' own report, with figures, is runs/index.html",
              ""]
    return "\n".join(lines)


def _asked(review: dict) -> str:
    """The referee's own values, where given: parameters in place of the ledger's, constants set as a conjecture."""
    asked = review.get("asked") or {}
    words = [f"--param {k}={v}" for k, v in asked.get("param", {}).items()]
    words += [f"--set {k}={v}" for k, v in asked.get("set", {}).items()]
    return ", ".join(words)


def _asked_lines(review: dict) -> list[str]:
    asked = _asked(review)
    return [f"Under the referee's values: {asked} (each applies to the checks whose theorem has the name; a set "
            "constant makes its runs conjectures, rejected or not).", ""] if asked else []


def _row_class(run: dict) -> str:
    """pass where the run answered as expected, fail where it contradicts its claim, other where it is undecided."""
    if run["as_expected"]:
        return "pass"
    return "fail" if contradicts(run) else "other"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def page_html(review: dict) -> str:
    """index.html: the same content as review.md, offline, one stylesheet, linking the runs' report."""
    escape = html.escape
    def runs_cell(claim: dict) -> str:
        return "<br>".join(escape(f"{r['run']}: {r['says']}") for r in claim["runs"]) or "none"

    claim_rows = "\n".join(
        f"<tr class=\"{'pass' if c['verdict'].startswith('holds') else 'other'}\"><td>{escape(c['label'])}</td>"
        f"<td>{escape(c['claim'])}</td><td>{escape(', '.join(c['who']))}</td><td>{escape(c['status'])}</td>"
        f"<td>{escape(c['verdict'])}</td><td>{runs_cell(c)}</td>"
        f"<td>{'reached' if c['paper_scale_reached'] else 'no'}</td><td>{escape(c['not_tested'] or '-')}</td></tr>"
        for c in review["claims"]) or \
        "<tr><td colspan=\"8\">no peer discussion of this paper is in the project</td></tr>"
    run_rows = "\n".join(
        f"<tr class=\"{_row_class(r)}\"><td>{escape(r['theorem'] + _point(r))}</td>"
        f"<td>{escape(r['fidelity'])}</td><td>{escape(r['says'])}</td><td><code>{escape(r['command'])}</code></td>"
        f"<td>{escape(_calibration_words(r))}</td></tr>" for r in review["runs"])
    findings = "\n".join(f"<li><b>{escape(f['claim'])}</b>: {escape(f['finding'])}"
                         + (f" <code>{escape(f['command'])}</code>" if f.get("command") else "") + "</li>"
                         for f in review["findings"]) or "<li>none</li>"
    unchecked = "\n".join(f"<li>{escape(n['topic'])}: {escape(n['why'])}</li>" for n in review["not_checkable"])
    reading_rows = "\n".join(
        f"<tr><td>{escape(', '.join(row['claims']) or '-')}</td><td>{escape(row['run'])}</td>"
        f"<td>{escape(row['prediction'])}</td><td>{escape(row['claimed'])}</td><td>{escape(_reading_text(row))}</td>"
        f"<td>{escape(_resolution_text(row))}</td><td>{escape(row['outcome'])}</td></tr>"
        for row in review.get("readings", []))
    figures = "\n".join(f"<figure><img src=\"{escape(f['png'])}\" alt=\"{escape(f['title'])}\">"
                        f"<figcaption>{escape(f['title'])} (<a href=\"{escape(f['svg'])}\">SVG</a>)</figcaption>"
                        f"</figure>" for f in review.get("figures", [])) or "<p>No run read a value.</p>"
    if review.get("paper_figures"):
        figures = ("<p>The paper's figure setting: theory (the line, its resolution as a band) over this project's "
                   "simulation (points with 95% intervals).</p>\n"
                   + "\n".join(f"<figure><img src=\"{escape(f['png'])}\" alt=\"{escape(f['title'])}\">"
                               f"<figcaption>{escape(f['title'])} ({escape(_figure_note(f))}; <a href=\""
                               f"{escape(f['svg'])}\">SVG</a>)</figcaption></figure>"
                               for f in review["paper_figures"])
                   + "\n<p>Per claim, the runs above:</p>\n" + figures)
    provenance = review["provenance"]
    return _PAGE.format(
        title=escape(review["paper"]["citation"]), fidelity=escape(review["fidelity_asked"]),
        scale=escape(review["scale"] or "not stated"), claim_rows=claim_rows, run_rows=run_rows, findings=findings,
        asked=f"<p>{escape(_asked_lines(review)[0])}</p>" if _asked(review) else "",
        figures=figures, reading_rows=reading_rows or "<tr><td colspan=\"7\">none</td></tr>",
        unchecked=unchecked or "<li>nothing listed</li>", version=escape(provenance["thmcheck"]),
        python=escape(provenance["python"]), machine=escape(provenance["machine"]),
        generated=escape(provenance["generated"]), seconds=provenance["wall_seconds"],
        command=escape(provenance["command"]))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>thmcheck review: {title}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 75em; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; font-size: 0.9em; }}
tr.pass td {{ background: #eef8ee; }} tr.fail td {{ background: #fbeaea; }} tr.other td {{ background: #fdf6e3; }}
figure {{ margin: 1em 0; }} figure img {{ max-width: 100%; }} figcaption {{ font-size: 0.85em; color: #444; }}
</style></head>
<body>
<h1>Review: {title}</h1>
<p>Runs at fidelity <b>{fidelity}</b> (paper scale: a check's paper's sizes where it declares them, else its
default where that stands for its source's scale; <code>thmcheck show ID</code> says which). The discussion's scale:
{scale}</p>
{asked}
<h2 id="claims">Claims</h2>
<table class="claims"><tr><th>claim</th><th>what is claimed</th><th>who</th><th>status</th><th>verdict</th>
<th>runs</th><th>paper scale</th><th>not tested</th></tr>
{claim_rows}
</table>
<h2 id="runs">Runs</h2>
<table class="runs"><tr><th>run</th><th>fidelity</th><th>outcome</th><th>command</th><th>calibration</th></tr>
{run_rows}
</table>
<p>Every run's evidence and figures: <a href="runs/index.html">the runs' report</a>.</p>
<h2 id="readings">Readings</h2>
<p>Every reading with its 95% interval (plus its systematic bound), against what its run claims.</p>
<table class="readings"><tr><th>claims</th><th>run</th><th>prediction</th><th>claimed</th><th>reading [95%]</th>
<th>resolution (basis)</th><th>outcome</th></tr>
{reading_rows}
</table>
<h2 id="figures">Figures</h2>
<p>Per claim, each run's readings against what it claims, in units of the test's resolution: the claim at 0 (for a
bound, the side that holds shaded), the resolution at +-1, each reading with its 95% interval and systematic bound,
and the mutants' claims as crosses (a reading should lie far from them). In a mutant's own run the claim at 0 is the
mutant's: a reading outside its band is the mutant rejected.</p>
<div class="figures">
{figures}
</div>
<h2 id="findings">Findings</h2>
<ul class="findings">
{findings}
</ul>
<h2 id="not-checkable">Not checkable here</h2>
<ul>
{unchecked}
</ul>
<h2 id="provenance">Provenance</h2>
<ul class="provenance">
<li>thmcheck {version}, Python {python}, {machine}</li>
<li>Generated {generated}; the runs took {seconds} s here.</li>
<li>Command: <code>{command}</code></li>
<li>Each run's calibration row (false-fail and kill rates, the tree it was measured on) is in review.json.</li>
</ul>
</body></html>
"""
