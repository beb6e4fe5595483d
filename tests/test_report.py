"""Reports: the HTML page has the verdict table, one section per theorem and existing figure files."""

import math
from html.parser import HTMLParser
from pathlib import Path

import pytest

from checkers import registry
from checkers.cli import main
from checkers.report import build_report
from checkers.report_figures import THEORY_POINTS, points, theory_curve, wrapped
from checkers.store import ResultStore, code_version
from checkers.sweep import plan, sweep
from checkers.verdict import PredictionResult, Verdict
from theorems.errors import EnvironmentFault


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.images, self.sections, self._rows = [], [], [], None

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "table":
            self._rows = []
            self.tables.append((attributes.get("class"), self._rows))
        elif tag == "tr" and self._rows is not None:
            self._rows.append(attributes.get("class"))
        elif tag == "img":
            self.images.append(attributes["src"])
        elif tag == "section":
            self.sections.append(attributes["id"])


def _parse(page: Path) -> _Page:
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_report_from_a_store(tmp_path):
    store = tmp_path / "s.sqlite"
    sweep(plan("dual-kernel", {"rho": ["0.2", "0.8"], "activation": ["relu", "tanh"]}, 2), store,
          executor="serial", progress=False)
    sweep(plan("dual-kernel", {"rho": ["0.5"]}, 1, overrides={"c1": "0.51"}), store, executor="serial",
          progress=False)
    page = build_report(tmp_path / "out", store=store, command="thmcheck report --from s.sqlite --out out")
    parsed = _parse(page)
    verdicts = dict(parsed.tables)["verdicts"]
    # header, then the theorem as stated (passing), then the conjecture c1 = 0.51 apart (rejected, not red):
    # a rejected conjecture is the check working, never "the theorem fails"
    assert verdicts == [None, "pass", "other"]
    text = page.read_text(encoding="utf-8")
    assert "conjecture c1=51/100" in text and "rejected" in text
    assert "fidelity <b>quick</b>" in text and "seed indices 0 to 1" in text
    assert "<code>thmcheck report --from s.sqlite --out out</code>" in text
    # one table per prediction and version: the statement's runs (tanh has no closed form, so closed-form has 4
    # rows, monte-carlo and tail-bound 8), then the conjecture's (one run each)
    evidence = [rows for kind, rows in parsed.tables if kind == "evidence"]
    assert [len(rows) - 1 for rows in evidence] == [4, 8, 8, 1, 1, 1]
    assert "The runs tell conjecture c1=51/100 apart from the statement at 1 of 1 runs" in text
    assert parsed.sections == ["dual-kernel"] and parsed.images
    for source in parsed.images:
        assert (page.parent / source).is_file() and (page.parent / source).stat().st_size > 1000


def test_report_from_fresh_checks_and_errors(tmp_path, capsys):
    assert main(["report", "population-loss", "nc1-bound", "--out", str(tmp_path / "fresh")]) == 0
    parsed = _parse(tmp_path / "fresh" / "index.html")
    assert parsed.sections == ["nc1-bound", "population-loss"]
    assert dict(parsed.tables)["verdicts"] == [None, "pass", "pass"]
    page = (tmp_path / "fresh" / "index.html").read_text()
    reason = registry.checker("population-loss").theorem.predictions[0].resolution_reason
    assert f"({reason.basis.replace('-', ' ')})</summary><p>{reason.reason}</p>" in page.replace("&#x27;", "'")
    assert "fidelity <b>quick</b>, seed <b>0</b>" in page
    with pytest.raises(EnvironmentFault, match="no store"):
        build_report(tmp_path / "x", store=tmp_path / "missing.sqlite")
    assert main(["report", "--out", str(tmp_path / "y")]) == 2


def _verdict(**fields) -> Verdict:
    return Verdict(**{"theorem": "t", "title": "t", "provenance": "derived", "outcome": "pass", "predictions": (),
                      "parameters": {}, **fields})


def _record(x: float, observed: float, standard_error=None, tolerance=None, kind="limit", predicted=1.0,
            interval=(1.0, 1.0)) -> dict:
    prediction = PredictionResult(name="p", kind=kind, statement="s", outcome="pass", predicted=predicted,
                                  predicted_interval=interval, observed=observed, standard_error=standard_error,
                                  tolerance=tolerance)
    return {"parameters": {"x": str(x)}, "seed_index": 0, "verdict": _verdict(predictions=(prediction,))}


def test_seeds_at_one_setting_are_pooled_into_one_point_with_a_computed_bar():
    records = [_record(0.5, 1.0, 0.3), _record(0.5, 2.0, 0.4), _record(0.7, 3.0, 0.1)]
    pooled = points(records, [0.5, 0.5, 0.7], ["", "", ""], "", "p")
    assert [point["x"] for point in pooled] == [0.5, 0.7] and pooled[0]["seeds"] == 2
    assert pooled[0]["observed"] == pytest.approx(1.5)
    # the mean of two independent estimates: standard error sqrt(0.3^2 + 0.4^2)/2 = 0.25, times z_0.975
    assert pooled[0]["bar"] == pytest.approx(1.959963984540054 * 0.25)
    assert not pooled[0]["deterministic"]


def test_seeds_the_verdict_pools_are_one_point_at_the_verdicts_pooled_reading():
    records = []
    for observed, samples in ((1.0, 100), (2.0, 300)):
        prediction = PredictionResult(name="p", kind="limit", statement="s", outcome="inconclusive", predicted=1.0,
                                      predicted_interval=(1.0, 1.0), observed=observed, standard_error=0.3,
                                      degrees_of_freedom=math.inf, samples=samples, resolution=0.1,
                                      stage_false_fail_rate=1e-7, pools=True)
        records.append({"parameters": {"x": "0.5"}, "seed_index": 0, "verdict": _verdict(predictions=(prediction,))})
    (point,) = points(records, [0.5, 0.5], ["", ""], "", "p")
    # weighted by samples, 1/4 and 3/4: the mean 1.75, standard error sqrt((0.075)^2 + (0.225)^2), z_0.975
    assert point["observed"] == pytest.approx(1.75)
    assert point["bar"] == pytest.approx(1.959963984540054 * math.hypot(0.075, 0.225))


def test_a_deterministic_observation_is_a_margin_with_its_stated_accuracy_not_an_error_bar():
    records = [_record(0.5, margin, tolerance=1e-27, kind="inequality", predicted=0.0, interval=(0.0, math.inf))
               for margin in (3e-42, -2e-42)]  # a margin's claim: at least 0
    (point,) = points(records, [0.5, 0.5], ["", ""], "", "p")
    assert point["deterministic"] and point["bar"] == 1e-27 and point["observed"] == -2e-42  # the worst seed


def test_the_theory_curve_is_the_statement_evaluated_on_a_fine_grid_with_the_runs_overrides():
    theorem = registry.checker("dual-kernel").theorem
    stated = {"parameters": {"activation": "tanh", "rho": "0.3"}, "verdict": _verdict()}
    curve = theory_curve("dual-kernel", "monte-carlo", stated, "rho", [0.3, 0.9])
    assert len(curve) == THEORY_POINTS and curve[0][0] == pytest.approx(0.3) and curve[-1][0] == pytest.approx(0.9)
    prediction = next(p for p in theorem.predictions if p.name == "monte-carlo")
    middle = curve[THEORY_POINTS // 2]
    expected = prediction.predict(theorem.instance({"activation": "tanh", "rho": repr(middle[0])}))
    assert middle[1] == pytest.approx(float(expected.value), rel=1e-12)
    conjecture = {"parameters": {"activation": "tanh", "rho": "0.3"}, "verdict": _verdict(overrides={"c1": "0.52"})}
    moved = theory_curve("dual-kernel", "monte-carlo", conjecture, "rho", [0.3, 0.9])
    assert moved[-1][1] != pytest.approx(curve[-1][1], rel=1e-3)
    # a prediction constant along the axis (the margin's bound 0), or a non-numeric axis, has no curve
    assert theory_curve("dual-kernel", "tail-bound", stated, "rho", [0.3, 0.9]) is None
    assert theory_curve("dual-kernel", "monte-carlo", stated, "activation", [0, 1]) is None


def test_titles_wrap_at_word_boundaries():
    title = "word " * 60
    folded = wrapped(title, width=40, lines=3)
    lines = folded.split("\n")
    assert len(lines) == 3 and all(len(line) <= 40 for line in lines) and lines[-1].endswith(" ...")
    assert wrapped("short title") == "short title"


def test_predictions_that_do_not_apply_are_said_once_below_their_table(tmp_path):
    store = tmp_path / "s.sqlite"
    # tanh has no closed form for the dual kernel, so "closed-form" does not apply in any of these runs
    sweep(plan("dual-kernel", {"rho": ["0.2", "0.8"], "activation": ["tanh"]}, 1), store, executor="serial",
          progress=False)
    text = build_report(tmp_path / "out", store=store).read_text(encoding="utf-8")
    assert text.count("<b>Not applicable</b> in 2 runs:") == 1


@pytest.mark.slow  # about 20 s of runs
def test_a_run_where_nothing_applies_is_not_applicable_not_inconclusive(tmp_path):
    """Below the BBP threshold neither overlap is tested: such a run counts apart, and the theorem's verdict is read
    from the runs that tested something."""
    store = tmp_path / "s.sqlite"
    # at learning rate 8 quick fidelity resolves the spike overlap's 5% (at 4 it never does)
    sweep(plan("spike-outlier", {"learning_rate": ["0.5", "8"]}, 1), store, executor="serial", progress=False)
    text = build_report(tmp_path / "out", store=store).read_text(encoding="utf-8")
    summary = text[text.index('<table class="verdicts">'):text.index("</table>")]
    assert "1 not applicable, 1 pass" in summary and "inconclusive" not in summary
    # the command's exit code reads the runs as `check` does: nothing applied is undecided (3), not a pass
    assert main(["report", "--from", str(store), "--out", str(tmp_path / "again")]) == 3
    assert "<td>pass</td><td>one seed per point</td></tr>" in summary
    # the theory is drawn over the whole range: where the overlap is not tested, the statement still predicts 0
    below = {"parameters": {"learning_rate": "0.5"}, "verdict": _verdict()}
    curve = theory_curve("spike-outlier", "spike-overlap", below, "learning_rate", [0.5, 8.0])
    untested = [point for point in curve if not point[5]]
    assert untested and all(point[1] == 0 for point in untested) and all(point[5] for point in curve[-3:])


def test_a_claim_interval_and_the_tests_resolution_are_two_bands():
    """The network's "within 4%" of Result 3.3 is a claim interval; the resolution lies beyond it, fainter. A point
    claim has one band, the resolution around the theory."""
    from matplotlib.figure import Figure

    from checkers.report_figures import _claim_and_resolution

    axes = Figure().subplots()
    interval = [(x, 1.0, 0.96, 1.04, 0.16, True) for x in (0.5, 1.0, 2.0)]
    _claim_and_resolution(axes, interval, "C0", " (network)")
    point = [(x, 1.0, 1.0, 1.0, 0.02, True) for x in (0.5, 1.0, 2.0)]
    _claim_and_resolution(axes, point, "C1", " (sRF)")
    labels = [collection.get_label() for collection in axes.collections]
    assert labels == ["claim: the statement's interval (network)", "and the test's resolution beyond it (network)",
                      "theory +- the test's resolution (sRF)"]
    outer = axes.collections[1].get_paths()[0].vertices[:, 1]
    assert math.isclose(outer.min(), 0.96 - 0.16) and math.isclose(outer.max(), 1.04 + 0.16)


def test_a_store_whose_seeds_each_fall_short_is_decided_on_the_seeds_pooled(tmp_path):
    # five seeds of one point, each just short of the resolution (detectable about 0.062 against 0.06): the verdict
    # pools them in the fewest per group that resolve the claim, and the page shows the groups beside the seeds
    store = tmp_path / "s.sqlite"
    with ResultStore(store) as results:
        for index, offset in enumerate((0.004, -0.01, 0.002, 0.006, -0.003)):
            for mutant, shift in ((None, 0.0), ("m", 0.1)):  # the mutant's seeds read 0.1 off: rejected in pairs
                prediction = PredictionResult(
                    name="means-act-as-a-spike", kind="limit", statement="s", outcome="inconclusive", predicted=0.0,
                    predicted_interval=(0.0, 0.0), observed=offset + shift, standard_error=0.0114,
                    degrees_of_freedom=99.0, samples=100, systematic=0.0, resolution=0.06, false_fail_rate=2e-7,
                    stage_false_fail_rate=1e-7, pools=True, detectable=0.062)
                verdict = _verdict(theorem="mixture-means", outcome="inconclusive", predictions=(prediction,),
                                   parameters={"x": "1"}, seed=100 + index, fidelity="quick", mutant=mutant)
                results.add(f"k{index}{mutant}", "mixture-means", {"x": "1"}, index, 100 + index, "quick", verdict,
                            code_version())
    # the mutant's rejection is its exit code's fail (as `check --mutant`); the statement's pass is the verdict
    assert main(["report", "--from", str(store), "--out", str(tmp_path / "out")]) == 1
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    summary = page[page.index('<table class="verdicts">'):page.index("</table>")]
    assert "5 inconclusive" in summary and "<td>pass</td><td>seeds pooled</td>" in summary
    assert "<td>rejected</td><td>seeds pooled</td>" in summary
    tables = _parse(tmp_path / "out" / "index.html").tables
    assert [len(rows) - 1 for kind, rows in tables if kind == "pooled"] == [2, 2]
    assert "seeds pooled in 2 groups of 2, the fewest at which every group resolves it, pass" in page
    mutant_part = page[page.index("A version that is not the theorem: mutant m"):]
    assert "<td>rejected</td></tr>" in mutant_part and "<td>fail</td>" not in mutant_part
